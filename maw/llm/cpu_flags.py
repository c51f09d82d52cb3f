"""The CMake flags that build the embedded model (llama.cpp) for this CPU, without AMX.

    python3 maw/llm/cpu_flags.py [--plain]    # prints them (scripts/setup.sh uses it)

llama.cpp builds for the native CPU by default (``GGML_NATIVE``), and on Intel CPUs with
AMX (Sapphire Rapids and later) the native build picks AMX kernels that crash with SIGSEGV
on a second thread (llama.cpp #20824, closed without a fix). Turning the AMX options off
is not enough while ``GGML_NATIVE`` is on: ``-march=native`` brings AMX back. So on
x86-64 the build is not native: every instruction set this CPU has, read from
``/proc/cpuinfo``, is named ON, every other one OFF (with ``GGML_NATIVE=OFF`` llama.cpp
would otherwise assume AVX2, FMA and F16C, which some CPUs lack), and AMX always OFF.
Other machines (ARM, or no ``/proc/cpuinfo``) keep llama.cpp's native build.

Measured on an AMD EPYC with AVX-512 (benchmarks/README.md): the same tokens per second
as the native build.

Standard library only: the set-up runs it before MAW is installed.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

# llama.cpp option -> the /proc/cpuinfo flags the CPU must have for it
X86_OPTIONS = {
    "GGML_SSE42": ("sse4_2",),
    "GGML_AVX": ("avx",),
    "GGML_AVX2": ("avx2",),
    "GGML_BMI2": ("bmi2",),
    "GGML_FMA": ("fma",),
    "GGML_F16C": ("f16c",),
    "GGML_AVX_VNNI": ("avx_vnni",),
    # GGML_AVX512 compiles for AVX512 F, CD, VL, DQ and BW together
    "GGML_AVX512": ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"),
    "GGML_AVX512_VBMI": ("avx512vbmi",),
    "GGML_AVX512_VNNI": ("avx512_vnni",),
    "GGML_AVX512_BF16": ("avx512_bf16",),
}
NEVER = ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16")


def cpu_flags(cpuinfo: str) -> set[str]:
    """The instruction-set flags of the first CPU in a ``/proc/cpuinfo`` text."""
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "flags":
            return set(value.split())
    return set()


PLAIN = ("GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_BMI2", "GGML_FMA", "GGML_F16C")


def cmake_args(cpuinfo: str | None, machine: str, plain: bool = False) -> str:
    """The CMake options for llama.cpp on this machine ("" keeps its defaults). ``plain``:
    AVX2 at most (the set-up's second try, where a build with more crashed)."""
    if machine.lower() not in ("x86_64", "amd64") or not cpuinfo:
        return ""
    flags = cpu_flags(cpuinfo)
    if not flags:
        return ""
    options = ["-DGGML_NATIVE=OFF"]
    for option, needs in X86_OPTIONS.items():
        on = all(f in flags for f in needs) and (option in PLAIN or not plain)
        if option.startswith("GGML_AVX512_") and "avx512f" not in flags:
            on = False
        options.append(f"-D{option}={'ON' if on else 'OFF'}")
    options += [f"-D{option}=OFF" for option in NEVER]
    return " ".join(options)


def main() -> int:
    path = Path("/proc/cpuinfo")
    cpuinfo = path.read_text(errors="replace") if path.is_file() else None
    print(cmake_args(cpuinfo, platform.machine(), plain="--plain" in sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
