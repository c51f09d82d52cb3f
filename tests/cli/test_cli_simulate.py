"""``maw simulate`` as a person runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from maw.cli import main


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "maw", *args], capture_output=True, text=True,
                          timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("args", [
    ("--ruleset", "maw", "--players", "6", "--policy", "random"),
    ("--ruleset", "aiwolf-15", "--players", "15", "--policy", "rule"),
])
def test_json_output_is_complete_valid_and_repeatable(args):
    code, out, err = run_cli("simulate", "--games", "60", "--seed", "1", "--json", *args)
    assert code == 0, err
    first = json.loads(out)
    assert {"games", "village_wins", "werewolf_wins", "mean_days", "ms_per_game",
            "invalid_actions", "digest"} <= set(first)
    assert first["games"] == 60 and first["invalid_actions"] == 0
    # what was played, so a stored result says which command made it
    policy = args[args.index("--policy") + 1]
    assert (first["ruleset"], first["players"], first["village"], first["werewolves"]) == \
        (args[1], int(args[3]), policy, policy)
    assert first["village_wins"] + first["werewolf_wins"] + first["draws"] == 60
    _, out2, _ = run_cli("simulate", "--games", "60", "--seed", "1", "--json", *args)
    second = json.loads(out2)
    first.pop("ms_per_game"), second.pop("ms_per_game")
    assert first == second
    _, out3, _ = run_cli("simulate", "--games", "60", "--seed", "2", "--json", *args)
    assert json.loads(out3)["digest"] != first["digest"]


def test_games_in_parallel_processes_are_the_same_games():
    """``--parallel 3``: the games shared among three processes, summed in order (the
    same digest as one process's, and not the digest of an unordered sum)."""
    args = ("simulate", "--ruleset", "werewolf-12", "--policy", "rule", "--games", "37",
            "--seed", "3", "--json")
    code, out, err = run_cli(*args)
    assert code == 0, err
    alone = json.loads(out)
    code, out, err = run_cli(*args, "--parallel", "3")
    assert code == 0, err
    shared = json.loads(out)
    alone.pop("ms_per_game"), shared.pop("ms_per_game")
    assert shared == alone


def test_text_output(capsys):
    assert main(["simulate", "--games", "20", "--players", "5", "--ruleset", "aiwolf-5",
                 "--seed", "4", "--rule", "max_days=3"]) == 0
    out = capsys.readouterr().out
    assert "village wins" in out and "invalid actions  0" in out
    assert "ruleset aiwolf-5/nlp --rule max_days=3, 5 players" in out  # (the options played)
    assert main(["simulate", "--games", "20", "--players", "5", "--ruleset", "aiwolf-5",
                 "--seed", "4", "--rule", "max_days=3", "--json"]) == 0
    digest = json.loads(capsys.readouterr().out)["digest"]
    assert f"digest           {digest} " in out  # (the README's "the same digest")


@pytest.mark.parametrize("args,message", [
    (["--ruleset", "aiwolf-5", "--players", "7"], "needs 5 players, got 7"),
    (["--ruleset", "chess"], "unknown ruleset 'chess'"),
    (["--rule", "tie=maybe"], "bad value 'maybe' for ruleset option 'tie'"),
    (["--rule", "nonsense"], "is not KEY=VALUE"),
    (["--policy", "psychic"], "unknown decider 'psychic'"),
    (["--games", "0"], "--games must be at least 1"),
    (["--parallel", "0"], "--parallel must be at least 1, got 0"),
])
def test_bad_input_is_a_clear_error(args, message, capsys):
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_policy_per_team_and_a_clear_error_for_an_unknown_one():
    code, out, err = run_cli("simulate", "--games", "30", "--seed", "1", "--json",
                             "--village", "random", "--werewolves", "rule")
    assert code == 0, err
    mixed = json.loads(out)
    _, out, _ = run_cli("simulate", "--games", "30", "--seed", "1", "--json",
                        "--policy", "rule", "--village", "random")
    assert json.loads(out)["digest"] == mixed["digest"], "--village overrides --policy"
    _, out, _ = run_cli("simulate", "--games", "30", "--seed", "1", "--json", "--policy", "rule")
    assert json.loads(out)["digest"] != mixed["digest"]
    code, out, err = run_cli("simulate", "--games", "3", "--werewolves", "clever")
    assert code != 0 and "unknown decider 'clever' for --werewolves" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name,size", [("aiwolf-5", 5), ("werewolf-12", 12), ("maw", 6)])
def test_a_fixed_size_ruleset_plays_its_own_size_without_players(name, size, capsys):
    """(``--ruleset aiwolf-5`` alone said "needs 5 players, got 6")"""
    assert main(["simulate", "--ruleset", name, "--games", "3", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 3 and out["invalid_actions"] == 0
    again = main(["simulate", "--ruleset", name, "--players", str(size), "--games", "3",
                  "--seed", "1", "--json"])
    assert again == 0 and json.loads(capsys.readouterr().out)["digest"] == out["digest"]


def test_a_learned_table_played_outside_what_it_learned_is_said(capsys):
    """A table learned for aiwolf-5's village played maw's game on both sides without a
    word; it still plays, and stderr says so. On its own ruleset and side: nothing."""
    table = "learned:agents/policies/aiwolf5-village.json"
    assert main(["simulate", "--ruleset", "maw", "--games", "3", "--policy", table]) == 0
    err = capsys.readouterr().err
    assert "maw simulate: note: --policy agents/policies/aiwolf5-village.json was learned " \
        "on aiwolf-5 for the village; here it plays maw and plays both sides" in err, err
    assert main(["simulate", "--ruleset", "aiwolf-5", "--games", "3", "--village", table,
                 "--werewolves", "rule"]) == 0
    assert "note" not in capsys.readouterr().err
