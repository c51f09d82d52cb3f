#!/usr/bin/env bash
# Build llama.cpp's own server (llama-server: an OpenAI-compatible server that answers
# several requests at once, one "slot" each) from the llama.cpp that the embedded model
# runs: the sources in the pinned llama-cpp-python's package on PyPI. Once, in MAW's
# cache; prints the server's path. Needs cmake, ninja and a C++ compiler (Debian:
# apt-get install cmake ninja-build g++). It takes 5 to 15 minutes on 2 cores.
#
#   bash scripts/llama-server.sh            # build (or find) it, print its path
#   $(bash scripts/llama-server.sh) -m MODEL.gguf --port 8080 --parallel 4
#
# `maw` does not need it: it is the server that benchmarks/parallel_calls.py measures
# parallel model calls against (python -m llama_cpp.server answers one at a time).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "llama-server.sh: unknown option $1 (--help)" >&2; exit 2 ;;
esac
LLAMA=$(sed -n 's/^LLAMA=\(.*\)$/\1/p' scripts/setup.sh)  # the pin the embedded model uses
VERSION=${LLAMA#*==}
[ -x .venv/bin/python ] || { echo "llama-server.sh: run bash scripts/setup.sh first" >&2; exit 1; }
for tool in cmake ninja c++; do
  command -v "$tool" >/dev/null || {
    echo "llama-server.sh: $tool is missing (apt-get install cmake ninja-build g++)" >&2; exit 1; }
done
# the embedded model's CPU flags (never AMX, never this machine's -march=native)
FLAGS=$(.venv/bin/python maw/llm/cpu_flags.py)
KEY=$(printf '%s %s' "$LLAMA" "$FLAGS" | sha256sum | cut -c1-16)
HOME_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/maw/llama-server/$KEY"
SERVER="$HOME_DIR/build/bin/llama-server"  # (its libraries beside it, found by path)
if [ ! -f "$HOME_DIR/built" ]; then
  echo "llama-server.sh: building llama-server $VERSION (once; flags: $FLAGS)" >&2
  rm -rf "$HOME_DIR" && mkdir -p "$HOME_DIR"
  .venv/bin/python -m pip download --quiet --no-deps --no-binary :all: "$LLAMA" \
    -d "$HOME_DIR" >&2
  tar xzf "$HOME_DIR"/llama_cpp_python-"$VERSION".tar.gz -C "$HOME_DIR"
  SRC="$HOME_DIR/llama_cpp_python-$VERSION/vendor/llama.cpp"
  # shellcheck disable=SC2086  # (FLAGS is a list of -D options)
  if ! cmake -S "$SRC" -B "$HOME_DIR/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF $FLAGS \
      > "$HOME_DIR/cmake.log" 2>&1; then
    tail -20 "$HOME_DIR/cmake.log" >&2; echo "llama-server.sh: cmake failed (above)" >&2; exit 1
  fi
  if ! cmake --build "$HOME_DIR/build" --target llama-server -j "$(nproc)" \
      > "$HOME_DIR/build.log" 2>&1; then
    tail -20 "$HOME_DIR/build.log" >&2; echo "llama-server.sh: the build failed (above)" >&2; exit 1
  fi
  rm -rf "$HOME_DIR/llama_cpp_python-$VERSION" "$HOME_DIR"/*.tar.gz
  touch "$HOME_DIR/built"
fi
echo "$SERVER"
