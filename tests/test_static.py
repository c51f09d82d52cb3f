"""The static checks CI runs (in .ci/run, before the suite) and pre-commit runs: ruff over
everything, mypy over the whole package."""

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


def test_mypy_is_clean_on_the_whole_package():
    config = (REPO / ".pre-commit-config.yaml").read_text()
    modules = re.search(r"args: \[(.*?)\]", config, re.S).group(1).replace("\n", " ")
    assert [m.strip() for m in modules.split(",") if m.strip()] == ["maw"]
    assert ".venv/bin/mypy maw" in (REPO / ".ci" / "run").read_text()
    out = run("mypy", "maw")
    assert out.returncode == 0, out.stdout + out.stderr
