"""An in-tree plug-in is one file that registers itself (CONTRIBUTING.md): a decider
beside ``maw/policies/rule.py``, a game shape beside ``maw/engine/flows.py``, a backend
beside ``maw/llm/backends.py``. Each is dropped into a copy of the package, where nothing
imports it, and the commands find it by name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from maw.hosting.xmpp import free_port

REPO = Path(__file__).resolve().parent.parent

DECIDER = '''
from maw.engine import Vote
from maw.policies import Decider, register_decider


class Alphabet(Decider):
    """Votes for the first name it may, once a phase."""

    def __init__(self, player, rng):
        super().__init__(player, rng)
        self.voted = None

    def decide(self, view, legal):
        votes = sorted((a for a in legal if type(a) is Vote), key=lambda a: a.target)
        if not votes or self.voted == (view.day, view.phase):
            return None
        self.voted = (view.day, view.phase)
        return votes[0]


register_decider("alphabet", Alphabet)
'''

SHAPE = '''
import dataclasses

from maw.engine.rulesets import register_ruleset, ruleset

register_ruleset(dataclasses.replace(ruleset("maw"), name="told"))
'''

BACKEND = '''
from maw.llm.base import Backend, Completion, register_backend


@register_backend
class Echo(Backend):
    name = "echo-for-test"

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        return Completion('{"action": "listen"}')
'''

BROKEN = '''
raise RuntimeError("half written")
'''


def _copy(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(REPO / "maw", root / "maw", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "rosters"))
    for rel, text in files.items():
        (root / rel).write_text(text)
    return root


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MAW_ENGINE": "python", "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_decider_a_game_shape_and_a_backend_each_in_one_file_are_found_by_name(tmp_path):
    root = _copy(tmp_path, {"maw/policies/alphabet.py": DECIDER,
                            "maw/engine/told.py": SHAPE,
                            "maw/llm/echo_for_test.py": BACKEND})
    where = _run(root, "-c", "import maw; print(maw.__file__)")
    assert where.stdout.strip() == str(root / "maw" / "__init__.py"), where.stderr
    played = _run(root, "-m", "maw", "simulate", "--policy", "alphabet", "--ruleset", "told",
                  "--games", "20", "--seed", "3", "--json")
    assert played.returncode == 0, played.stderr
    out = json.loads(played.stdout)
    assert out["ruleset"] == "told" and out["village"] == "alphabet"
    assert out["invalid_actions"] == 0
    assert out["village_wins"] + out["werewolf_wins"] + out["draws"] == 20
    helped = _run(root, "-m", "maw", "simulate", "--help")
    assert "told" in helped.stdout
    # a hosted game seats it too, over XMPP, by --policy
    port = free_port()
    hosted = _run(root, "-m", "maw", "game", "--policy", "alphabet", "--players", "4",
                  "--day-seconds", "2", "--night-seconds", "1", "--seed", "1",
                  "--xmpp", f"embedded:{port}", "--log-dir", str(tmp_path / "logs"))
    assert hosted.returncode == 0, hosted.stderr
    assert "4 players (4 alphabet" in hosted.stderr + hosted.stdout
    made = _run(root, "-c", "from maw.llm import make_backend; "
                "print(type(make_backend('echo-for-test')).__name__)")
    assert made.stdout.strip() == "Echo", made.stderr


def test_a_plug_in_that_fails_to_load_is_named_in_a_one_line_error(tmp_path):
    root = _copy(tmp_path, {"maw/policies/half.py": BROKEN})
    played = _run(root, "-m", "maw", "simulate", "--policy", "nobody", "--games", "1")
    assert played.returncode == 2, played.stderr
    assert "cannot load maw.policies.half" in played.stderr
    assert "RuntimeError: half written" in played.stderr and "Traceback" not in played.stderr
    # a name it knows needs no search: the broken file stops nothing else
    played = _run(root, "-m", "maw", "simulate", "--policy", "rule", "--games", "2")
    assert played.returncode == 0, played.stderr
