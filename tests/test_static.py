"""The static checks CI runs with the suite: ruff over everything, mypy over the modules
that are clean (the engine and the wire, and those listed in .pre-commit-config.yaml)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *cmd], cwd=REPO, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing():
    out = run("ruff", "check", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_is_clean_on_the_modules_that_promise_it():
    config = (REPO / ".pre-commit-config.yaml").read_text()
    modules = re.search(r"args: \[(.*?)\]", config, re.S).group(1).replace("\n", " ")
    modules = [m.strip() for m in modules.split(",") if m.strip()]
    assert {"maw/engine", "maw/protocol"} <= set(modules)
    out = run("mypy", *modules)
    assert out.returncode == 0, out.stdout + out.stderr
