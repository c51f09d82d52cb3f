"""The engine's hot modules compiled with mypyc (``maw engine build``), and what runs
(``maw engine status``). Which engine a process runs is ``maw.engine.compiled``'s choice;
this module makes and removes builds.

A build copies the engine's sources to a scratch folder, has mypyc compile
:data:`maw.engine.compiled.MODULES` there into C extensions (mypy's mypyc, the machine's C
compiler, Python's headers: about a minute on 2 cores), and moves the extensions into the
folder of the sources' key. Nothing is written beside the sources, so an edited source
can never meet a stale extension.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from maw.engine import compiled
from maw.errors import ConfigError, MawError

# the scratch folder's setup: mypyc compiles the engine's modules into one shared library
# (maw.engine._native__mypyc) and one small module each
_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="maw-engine", script_args=["-q", "build_ext", "--inplace"],
      ext_modules=mypycify(sys.argv[1:], group_name="maw.engine._native", opt_level="3"))
"""
LOG = "last-build.log"  # in the cache root: the compiler's words of the last build

__all__ = ["build", "clear", "status"]


def _needs() -> None:
    """What a build needs, each missing one said with how to get it."""
    if importlib.util.find_spec("mypyc") is None:
        raise ConfigError("compiling the engine needs mypy's mypyc: pip install -e '.[fast]'")
    cc = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        raise ConfigError(f"compiling the engine needs a C compiler ({cc} is not on PATH): "
                          "apt-get install gcc")
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        raise ConfigError(f"compiling the engine needs Python's headers ({include}/Python.h "
                          "is missing): apt-get install python3-dev")


def build(force: bool = False) -> dict[str, Any]:
    """Compile the engine's current sources unless a build of them exists (``force``:
    again). Returns the build's manifest, with ``"new"``: whether this call made it.

    Raises:
        ConfigError: mypyc, a C compiler or Python's headers are missing.
        MawError: the compiler failed (its log is kept in the cache root: ``LOG``).
    """
    _needs()
    key, root = compiled.source_key(), compiled.cache_root()
    folder = root / key
    if (folder / compiled.MANIFEST).is_file() and not force:
        return {**json.loads((folder / compiled.MANIFEST).read_text()), "new": False}
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write the engine's builds in {root} ({exc.strerror}): "
                          "set MAW_ENGINE_CACHE to a folder you may write") from exc
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="maw-engine-") as scratch:
        src = Path(scratch) / "maw"
        shutil.copytree(compiled.ENGINE, src / "engine",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
        for path in compiled._ALSO:
            shutil.copy2(path, src / path.name)
        (src / "__init__.py").write_text("")  # (the package's own imports are not needed)
        env = {**os.environ, "MAW_ENGINE": "python"}
        with open(root / LOG, "w") as log:
            done = subprocess.run(
                [sys.executable, "-c", _SETUP,
                 *(f"maw/engine/{name}.py" for name in compiled.MODULES)],
                cwd=scratch, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=1800)
        if done.returncode:
            tail = (root / LOG).read_text().strip().splitlines()[-3:]
            raise MawError(f"mypyc could not compile the engine ({' / '.join(tail)}); "
                           f"the whole log: {root / LOG}")
        made = sorted((src / "engine").glob(f"*{suffix}"))
        names = {p.name[:-len(suffix)] for p in made}
        missing = set(compiled.MODULES) - names
        if missing:
            raise MawError(f"mypyc built no {', '.join(sorted(missing))} (log: {root / LOG})")
        manifest = {
            "key": key, "modules": list(compiled.MODULES), "mypy": _version("mypy"),
            "python": platform.python_version(), "platform": sysconfig.get_platform(),
            "seconds": round(time.monotonic() - start, 1),
            "built": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        staging = root / f".{key}.{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        for path in made:
            shutil.copy2(path, staging / path.name)
        (staging / compiled.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(staging, folder)
    for old in _builds(root):  # (builds of earlier sources: never loaded again)
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)
    return {**manifest, "new": True}


def _builds(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / compiled.MANIFEST).is_file())


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def status() -> dict[str, Any]:
    """Which engine this process runs, and the builds there are."""
    import maw.engine  # noqa: F401 - (the choice is made on its import)

    root, key = compiled.cache_root(), compiled.source_key()
    folder = root / key
    manifest = folder / compiled.MANIFEST
    return {
        "mode": compiled.mode(),
        "running": "compiled" if compiled.compiled_modules() else "python",
        "compiled_modules": list(compiled.compiled_modules()),
        "key": key,
        "cache": str(root),
        "built": json.loads(manifest.read_text()) if manifest.is_file() else None,
        "other_builds": [p.name for p in _builds(root) if p != folder],
    }


def clear() -> list[str]:
    """Remove every build in the cache root; the keys removed."""
    removed = []
    for path in _builds(compiled.cache_root()):
        shutil.rmtree(path)
        removed.append(path.name)
    return removed
