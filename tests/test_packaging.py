"""An installed MAW (a built wheel, not the editable checkout) carries its prompts and
rosters: before, a wheel had neither and silently fell back to rule players."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHECK = """
import sys
import maw
from pathlib import Path
from maw.llm.prompts import Prompts
from maw.engine.roles import ROLES
from maw.hosting.roster import agents_dir, load_roster, roster_path

assert Path(maw.__file__).is_relative_to(sys.argv[1]), maw.__file__
prompts = Prompts()
assert Path(prompts.folder).is_relative_to(sys.argv[1]), prompts.folder
for role in ROLES.values():
    assert prompts.render(f"roles/{role.name}.md", name="Ann", pack="Bob")
assert prompts.render("rules.md", name="Ann", players="Ann, Bob", ruleset="maw",
                      rules="The rules.")
assert prompts.render("analyse.md", lines="Bob: hello")
assert load_roster(roster_path("hybrid")).player[0].decider == "hybrid"
assert load_roster(roster_path("local")).llm.backend == "llamacpp"
print(agents_dir())
"""


def test_an_installed_wheel_carries_its_prompts_and_rosters(tmp_path):
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "-q", str(REPO), "-w", str(wheels)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("maw-*.whl"))
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q",
                                "--target", str(site), str(wheel)],
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("MAW_PROMPTS", None)
    env.pop("MAW_AGENTS", None)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run([sys.executable, "-c", CHECK, str(site)], cwd=elsewhere, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(site)
    # the shipped roster by its name, from another directory: found (and then no server)
    game = subprocess.run([sys.executable, "-m", "maw", "game", "--players", "6", "--roster",
                           "ollama"], cwd=elsewhere, capture_output=True, text=True,
                          env={**env, "OLLAMA_HOST": "http://127.0.0.1:9"}, timeout=120)
    assert game.returncode == 2 and "no Ollama server answers" in game.stderr, game.stderr
