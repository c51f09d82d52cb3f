"""``maw`` as the user must type it: what a host prints for others to join it
(``maw play --name NAME --xmpp ...``) is a command to copy, so it names this MAW the way
the user can run it from where they are."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def maw_command(argv0: str | None = None, cwd: str | None = None,
                path: str | None = None) -> str:
    """``maw`` if the ``maw`` on ``PATH`` (``path``) is the one running; else the path it
    was run by (``argv0``), relative to ``cwd`` when it lies under it (``.venv/bin/maw``);
    ``python -m maw`` with this interpreter when it was run so."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    cwd = os.getcwd() if cwd is None else cwd
    if Path(argv0).name == "__main__.py":  # python -m maw
        return f"{_as_typed(sys.executable, cwd)} -m maw"
    script = os.path.join(cwd, argv0)
    found = shutil.which("maw", path=path)
    if found is not None and Path(found).resolve() == Path(script).resolve():
        return "maw"
    return _as_typed(script, cwd)


def _as_typed(file: str, cwd: str) -> str:
    full = os.path.abspath(os.path.join(cwd, file))  # (not resolved: a venv's links stay)
    relative = os.path.relpath(full, cwd)
    if relative.startswith(os.pardir):
        return shlex.quote(full)
    return shlex.quote(relative if os.sep in relative else os.path.join(os.curdir, relative))
