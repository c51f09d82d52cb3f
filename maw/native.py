"""The engine's hot modules compiled with mypyc (``maw engine build``), and what runs
(``maw engine status``). Which engine a process runs is ``maw.engine.compiled``'s choice;
this module makes and removes builds.

A build copies the engine's sources to a scratch folder, has mypyc compile
:data:`maw.engine.compiled.MODULES` there into C extensions (mypy's mypyc, the machine's C
compiler, Python's headers: about 20 s on 2 cores), and moves the extensions into the
folder of the sources' key. Nothing is written beside the sources, so an edited source
can never meet a stale extension.
"""

from __future__ import annotations

import fcntl
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

# (maw.engine chooses on import, and never refuses there: maw engine build runs under
# MAW_ENGINE=compiled without a build)
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
TIMEOUT = 1800  # seconds a build may take (about 20 on 2 cores)

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
    again). Returns the build's manifest, with ``"new"``: whether this call made it. One
    build at a time in a cache (a lock): a second waits, then finds the first's.

    Raises:
        ConfigError: mypyc, a C compiler or Python's headers are missing, or the cache
            may not be written.
        MawError: the compiler failed or took over half an hour (its log is kept in the
            cache: ``LOG``), or the sources changed while they were copied.
    """
    _needs()
    root = compiled.cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = open(root / ".lock", "w")  # noqa: SIM115 - held for the whole build
    except OSError as exc:
        raise ConfigError(f"cannot write the engine's builds in {root} ({exc.strerror}): "
                          "set MAW_ENGINE_CACHE to a folder you may write") from exc
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(root, force)


def _build(root: Path, force: bool) -> dict[str, Any]:
    key = compiled.source_key()
    folder = root / key
    if not force and (existing := _manifest(folder)):
        return {**existing, "new": False}
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="maw-engine-") as scratch:
        src = Path(scratch) / "maw"
        shutil.copytree(compiled.ENGINE, src / "engine",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
        for path in compiled._ALSO:
            shutil.copy2(path, src / path.name)
        if compiled.source_key(src / "engine", tuple(src / p.name for p in compiled._ALSO)) \
                != key:  # (what is compiled is what the key names)
            raise MawError("the engine's sources changed while they were copied: build again")
        (src / "__init__.py").write_text("")  # (the package's own imports are not needed)
        env = {**os.environ, "MAW_ENGINE": "python"}
        try:
            with open(root / LOG, "w") as log:
                done = subprocess.run(
                    [sys.executable, "-c", _SETUP,
                     *(f"maw/engine/{name}.py" for name in compiled.MODULES)],
                    cwd=scratch, env=env, stdout=log, stderr=subprocess.STDOUT,
                    timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise MawError(f"mypyc took over {TIMEOUT // 60} minutes to compile the "
                           f"engine: stopped (log: {root / LOG})") from None
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
            "python": platform.python_version(), "suffix": suffix,
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
    # builds of other sources for this Python (an earlier commit's, which a checkout of it
    # builds again in seconds); other Pythons' and platforms' are theirs
    for old in _builds(root):
        if old != folder and _manifest(old).get("suffix") == suffix:
            shutil.rmtree(old, ignore_errors=True)
    return {**manifest, "new": True}


def _builds(root: Path) -> list[Path]:
    """The builds in ``root`` (not a build under way: its folder's name starts with '.')."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir()
                  if not p.name.startswith(".") and (p / compiled.MANIFEST).is_file())


def _manifest(folder: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((folder / compiled.MANIFEST).read_text()))
    except (OSError, ValueError):
        return {}


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def status() -> dict[str, Any]:
    """Which engine this process runs, and the builds there are."""
    import importlib

    import maw.engine  # noqa: F401 - (the choice is made on its import)

    for name in compiled.MODULES:  # (each one, as a game would load it: loop too)
        importlib.import_module(f"maw.engine.{name}")
    root = compiled.cache_root()
    try:
        key: str | None = compiled.source_key()
    except OSError:
        key = None
    folder = root / key if key else None
    running = list(compiled.compiled_modules())
    return {
        "mode": compiled.mode(),
        "running": "compiled" if running else "python",
        "compiled_modules": running,
        "refused": compiled.REFUSED,
        "key": key,
        "cache": str(root),
        "built": _manifest(folder) or None if folder else None,
        "other_builds": [p.name for p in _builds(root) if p != folder],
    }


def clear() -> list[str]:
    """Remove every build in the cache root; the keys removed."""
    removed = []
    for path in _builds(compiled.cache_root()):
        shutil.rmtree(path)
        removed.append(path.name)
    return removed
