#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install MAW with its test tools and the embedded model,
# then prove that the embedded model runs here. Idempotent and quick when nothing changed.
#
# The embedded model (llama-cpp-python) is built from source for this CPU's instruction
# sets but never with AMX, whose kernels crash on some Intel CPUs (maw/llm/cpu_flags.py);
# a user's own CMAKE_ARGS win. The wheel is kept in a cache of MAW's own, one folder per
# set of flags (pip's cache hands back a wheel built with other flags), and the venv
# remembers which flags its build has, so a venv built another way is rebuilt once.
#
# --no-model: MAW alone, without the embedded model (no build: seconds, not minutes);
# games then play with rule players, or a model on an Ollama or OpenAI-compatible server.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
NO_MODEL=0
for arg in "$@"; do
  case "$arg" in
    --no-model) NO_MODEL=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option $arg (--no-model, or nothing)" >&2; exit 2 ;;
  esac
done
LLAMA=llama-cpp-python==0.3.36
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/maw/llama-wheels"
STAMP=.venv/.maw-llama-build

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip > .venv/pip.log 2>&1 || {
  cat .venv/pip.log >&2; echo "setup: pip could not upgrade itself (above)" >&2; exit 1; }

if [ "$NO_MODEL" = 1 ]; then
  if ! .venv/bin/python -m pip install --quiet -e . > .venv/pip.log 2>&1; then
    cat .venv/pip.log >&2
    echo "setup: pip could not install MAW (above)" >&2
    exit 1
  fi
  echo "setup: MAW is installed in .venv, without the embedded model (bash scripts/setup.sh" \
       "adds it)" >&2
  exit 0
fi

# install_llama FLAGS: build (once per set of flags) and install llama-cpp-python
install_llama() {
  local flags="$1" key wheels
  key=$(printf '%s %s' "$LLAMA" "$flags" | sha256sum | cut -c1-16)
  wheels="$CACHE/$key"
  if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "setup: building the embedded model (llama-cpp-python) for this CPU; it takes" \
         "4 to 10 minutes, once. Flags: $flags" >&2
    rm -rf "$wheels.tmp" && mkdir -p "$wheels.tmp"
    # --no-cache-dir: never a wheel that pip kept from a build with other flags
    CMAKE_ARGS="$flags" .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir \
      "$LLAMA" -w "$wheels.tmp" >&2
    mkdir -p "$wheels" && mv "$wheels.tmp"/llama_cpp_python-*.whl "$wheels"/
    rm -rf "$wheels.tmp"
  fi
  if [ "$(cat "$STAMP" 2>/dev/null)" != "$key" ] && .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
    echo "setup: replacing this venv's llama-cpp-python, which was built another way" >&2
    .venv/bin/python -m pip install --quiet --force-reinstall --no-deps \
      "$wheels"/llama_cpp_python-*.whl
  fi
  # the wheel of these flags is the only llama-cpp-python that pip may take
  if ! .venv/bin/python -m pip install --quiet --find-links "$wheels" -e ".[dev,local]" \
      > .venv/pip.log 2>&1; then
    cat .venv/pip.log >&2
    echo "setup: pip could not install MAW (above)" >&2
    exit 1
  fi
  echo "$key" > "$STAMP"
}

if [ -n "${CMAKE_ARGS+x}" ]; then
  install_llama "$CMAKE_ARGS"
else
  # no llava: it is not used, and skipping it saves a third of the build
  install_llama "-DLLAVA_BUILD=OFF $(.venv/bin/python maw/llm/cpu_flags.py)"
fi

# prove it: a few tokens in a child process, with the thread counts a game uses
# (exit status 3: this build crashes here, or uses AMX)
set +e
.venv/bin/python -m maw.llm.model_worker --check
status=$?
set -e
if [ "$status" -eq 3 ] && [ -z "${CMAKE_ARGS+x}" ]; then
  echo "setup: trying a plainer build (AVX2 at most)" >&2
  install_llama "-DLLAVA_BUILD=OFF $(.venv/bin/python maw/llm/cpu_flags.py --plain)"
  .venv/bin/python -m maw.llm.model_worker --check && status=0
fi
if [ "$status" -ne 0 ]; then
  echo "setup: MAW is installed, but maw game will play with rule players until the" \
       "embedded model runs (or an Ollama server answers); to build it yourself:" \
       "CMAKE_ARGS='-DLLAVA_BUILD=OFF ...' bash scripts/setup.sh" >&2
fi
exit 0
