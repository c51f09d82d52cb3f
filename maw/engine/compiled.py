"""Which engine runs: its modules as written (pure Python), or the same modules compiled
with mypyc into C extensions, where a build for these very sources exists (``maw engine
build``, ``maw.native``). A game is the same either way, event for event; a compiled one
is played 1.4x to 1.6x as fast.

Chosen once, when ``maw.engine`` is first imported, by ``MAW_ENGINE``:

* ``auto`` (unset): the compiled modules if they were built for these sources, this Python
  and this machine; else pure Python;
* ``python``: pure Python always (the test suite's default: ``tests/conftest.py``);
* ``compiled``: the compiled modules, or an error that says how to build them.

A build is a folder of extension modules, ``KEY/``, under ``$MAW_ENGINE_CACHE`` (default:
``maw-engine/`` in the interpreter's prefix, the virtual environment). ``KEY`` hashes every
engine source file and the extensions' suffix (the Python version and the machine's
platform): an engine edited since its build, another Python or another platform finds no
folder of its key and runs pure Python, never a stale build. The folder is put first on
``maw.engine``'s search path, so the modules it holds are loaded from it and every other
engine module from its source.
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from collections.abc import MutableSequence
from pathlib import Path

from maw.errors import ConfigError

# the modules a build compiles: the logic of every turn. The values stay Python classes
# (``actions``, ``events``, ``roles``, ``state``, ``view``'s PlayerView: a compiled frozen
# dataclass cannot be unpickled, checks its fields' types at run time and has no
# ``__slots__``; ``Phase`` is a str with a metaclass, which mypyc does not build), and
# werewolf-12's modules subclass the compiled flows in plain Python
MODULES = ("abilities", "dayflow", "flows", "resolution", "rules")
MODES = ("auto", "python", "compiled")
MANIFEST = "build.json"
ENGINE = Path(__file__).resolve().parent
# what a compiled module's behaviour may depend on besides the engine's own sources
_ALSO = (ENGINE.parent / "errors.py", ENGINE.parent / "registry.py")

__all__ = ["MODES", "MODULES", "cache_root", "compiled_modules", "mode", "source_key",
           "build_folder"]


def mode() -> str:
    """``MAW_ENGINE``, checked (``auto`` when unset)."""
    value = os.environ.get("MAW_ENGINE", "").strip().lower() or "auto"
    if value not in MODES:
        raise ConfigError(f"MAW_ENGINE={value!r}: it is one of {', '.join(MODES)}")
    return value


def cache_root() -> Path:
    """Where builds live: ``$MAW_ENGINE_CACHE``, or ``maw-engine/`` in ``sys.prefix``."""
    given = os.environ.get("MAW_ENGINE_CACHE", "").strip()
    return Path(given).expanduser() if given else Path(sys.prefix) / "maw-engine"


def source_key() -> str:
    """The key of a build of the engine as its sources are now, for this Python and
    platform: a hash of every engine source file, by name, and the extensions' suffix."""
    h = hashlib.sha256(str(sysconfig.get_config_var("EXT_SUFFIX")).encode())
    for path in (*sorted(ENGINE.glob("*.py")), *_ALSO):
        h.update(f"\0{path.name}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build_folder() -> Path:
    """The folder a build of the engine's current sources has, or would have."""
    return cache_root() / source_key()


def select(search_path: MutableSequence[str]) -> None:
    """Put the build for the current sources first on ``search_path`` (``maw.engine``'s
    ``__path__``) where ``MAW_ENGINE`` allows it and the build exists.

    Raises:
        ConfigError: ``MAW_ENGINE`` is not one of :data:`MODES`, or is ``compiled`` and
            no build exists for these sources.
    """
    chosen = mode()
    if chosen == "python":
        return
    root = cache_root()
    folder = root / source_key() if root.is_dir() else None
    if folder is None or not (folder / MANIFEST).is_file():
        if chosen == "compiled":
            raise ConfigError(
                "MAW_ENGINE=compiled, but the engine is not compiled for these sources "
                f"and this Python (none in {root}): run `maw engine build` (it needs mypy, "
                "pip install -e '.[fast]', and a C compiler)")
        return
    search_path.insert(0, str(folder))


def compiled_modules() -> tuple[str, ...]:
    """The engine modules loaded as compiled extensions in this process (``()``: the
    engine runs as written)."""
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    out = []
    for name in MODULES:
        module = sys.modules.get(f"maw.engine.{name}")
        if module is not None and str(getattr(module, "__file__", "")).endswith(suffix):
            out.append(name)
    return tuple(out)


# the choice, made once, when maw.engine's __init__ imports this module before any other
select(sys.modules["maw.engine"].__path__)
