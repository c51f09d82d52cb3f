"""The command a host prints for a person to join is one the person can type where they
are: ``.venv/bin/maw play ...`` when MAW is not on PATH (a fresh clone), ``maw play ...``
when it is, ``python -m maw`` when it was run so."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from maw.hosting.invoked import maw_command
from maw.hosting.xmpp import free_port

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "maw"  # this venv's maw


def join_line(path: str) -> str:
    """What ``maw game --humans 1`` run as ``SCRIPT`` from the repository prints for a
    person to type, with ``path`` as PATH."""
    program = os.path.relpath(SCRIPT, REPO)
    proc = subprocess.Popen([program, "game", "--policy", "rule", "--players", "3", "--humans",
                             "1", "--lobby-seconds", "30", "--xmpp", f"embedded:{free_port()}"],
                            cwd=REPO, env={**os.environ, "PATH": path}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            found = re.search(r"with:  (.*) --name NAME --xmpp \S+ --lobby main$", line.rstrip())
            if found:
                return found.group(1)
        raise AssertionError("no join command printed")
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_without_maw_on_path_the_join_command_is_the_path_it_was_run_by():
    command = join_line("/usr/bin:/bin")
    assert command == f"{os.path.relpath(SCRIPT, REPO)} play"
    # and typed as printed, from where the host was started, it runs
    program = shlex.split(command)[0]
    done = subprocess.run([program, "--version"], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr


def test_with_this_maw_on_path_it_is_just_maw(tmp_path):
    (tmp_path / "maw").symlink_to(SCRIPT)  # (a PATH entry that holds this very maw)
    assert join_line(f"{tmp_path}:/usr/bin:/bin") == "maw play"
    other = tmp_path / "other"
    other.mkdir()
    (other / "maw").write_text("#!/bin/sh\n")  # another maw on PATH: not this one
    (other / "maw").chmod(0o755)
    assert maw_command(str(SCRIPT), str(REPO), str(other)) == os.path.relpath(SCRIPT, REPO)


def test_run_from_elsewhere_or_as_a_module(tmp_path):
    # outside the working directory: the whole path, quoted for a shell if need be
    assert maw_command(str(SCRIPT), str(tmp_path), "/usr/bin") == shlex.quote(str(SCRIPT))
    spaced = tmp_path / "my venv" / "bin" / "maw"
    assert maw_command(str(spaced), str(REPO), "/usr/bin") == shlex.quote(str(spaced))
    # run as python -m maw: this interpreter, relative to where the user is
    module = str(REPO / "maw" / "__main__.py")
    python = os.path.relpath(sys.executable, REPO)
    assert maw_command(module, str(REPO), "/usr/bin") == f"{python} -m maw"
    assert maw_command("./maw", str(SCRIPT.parent), "/usr/bin") == "./maw"
