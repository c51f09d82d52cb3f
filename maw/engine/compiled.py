"""Which engine runs: its modules as written (pure Python), or the same modules compiled
with mypyc into C extensions, where a build for these very sources exists (``maw engine
build``, ``maw.native``). A game is the same either way, event for event; a compiled one
of random players is played about 1.7x as fast.

Chosen once, when ``maw.engine`` is first imported, by ``MAW_ENGINE``:

* ``auto`` (unset): the compiled modules if they were built for these sources, this
  Python version and this platform; else pure Python;
* ``python``: pure Python always (the test suite's default: ``tests/conftest.py``);
* ``compiled``: the compiled modules; without them no game starts (an error that says how
  to build them), while ``maw engine build`` and ``status`` still run.

A build is a folder of extension modules, ``KEY/``, under ``$MAW_ENGINE_CACHE`` (default:
``maw-engine/`` in the interpreter's prefix, the virtual environment). ``KEY`` hashes every
engine source file and the extensions' suffix (the Python version and the platform's
tag, such as x86_64-linux-gnu): an engine edited since its build, another Python version
or another platform finds no folder of its key and runs pure Python, never a stale build.
The folder is put first on ``maw.engine``'s search path, so the modules it holds are
loaded from it and every other engine module from its source.
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
MODULES = ("abilities", "dayflow", "flows", "loop", "names", "resolution", "rules")
MODES = ("auto", "python", "compiled")
MANIFEST = "build.json"
ENGINE = Path(__file__).resolve().parent
# what a compiled module's behaviour may depend on besides the engine's own sources
_ALSO = (ENGINE.parent / "errors.py", ENGINE.parent / "registry.py")

__all__ = ["MODES", "MODULES", "cache_root", "compiled_modules", "mode", "refuse",
           "source_key"]


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


def source_key(engine: Path | None = None, also: tuple[Path, ...] | None = None) -> str:
    """The key of a build of the engine as its sources are now (or of the copies in
    ``engine`` and ``also``), for this Python and platform: a hash of every engine source
    file, by name, and the extensions' suffix.

    Raises:
        OSError: a source could not be read.
    """
    h = hashlib.sha256(str(sysconfig.get_config_var("EXT_SUFFIX")).encode())
    for path in (*sorted((engine or ENGINE).glob("*.py")), *(_ALSO if also is None else also)):
        h.update(f"\0{path.name}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def select(search_path: MutableSequence[str]) -> None:
    """Put the build for the current sources first on ``search_path`` (``maw.engine``'s
    ``__path__``) where ``MAW_ENGINE`` allows it and the build exists. Where
    ``MAW_ENGINE=compiled`` and no build exists, the engine loads as written and every
    game refuses to start (:func:`refuse`): ``maw engine build`` and ``status`` still run.

    Raises:
        ConfigError: ``MAW_ENGINE`` is not one of :data:`MODES`.
    """
    global REFUSED
    chosen = mode()
    if chosen == "python":
        return
    root = cache_root()
    where, folder = str(root), None
    try:
        mine = root / source_key() if root.is_dir() else None
        if mine is not None and (mine / MANIFEST).is_file():
            folder = mine
    except OSError as exc:  # (a cache or a source it may not read: no build it can use)
        where = f"{root}: {exc.strerror or exc}"
    if folder is None:
        if chosen == "compiled":
            REFUSED = (f"MAW_ENGINE=compiled, but the engine is not compiled for these "
                       f"sources and this Python (none in {where}): run `maw engine build` "
                       "(it needs mypy, pip install -e '.[fast]', and a C compiler)")
        return
    search_path.insert(0, str(folder))


# why games may not start (MAW_ENGINE=compiled, and no build), or None
REFUSED: str | None = None


def refuse() -> None:
    """Raise what :func:`select` found, if it refused the engine as written (every new
    game asks: ``maw.engine.rules.new_game``).

    Raises:
        ConfigError: ``MAW_ENGINE=compiled``, and no build exists for these sources.
    """
    if REFUSED is not None:
        raise ConfigError(REFUSED)


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
