"""``maw bench``: a seat rated against MAW's frozen pool of reference agents, the same
figures run to run, a weaker agent rated lower on the same schedule."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from maw.engine import ruleset
from maw.errors import MawError
from maw.tournament import bench as b


def maw(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "maw", *args], capture_output=True,
                          text=True, timeout=300)


def test_the_same_schedule_gives_the_same_figures_and_a_weaker_agent_rates_lower():
    rules = ruleset("aiwolf-5")
    rule = b.bench(rules, 5, "rule", 200, seed=3, calibration=200)
    again = b.bench(rules, 5, "rule", 200, seed=3, calibration=200)
    assert rule.as_dict() == again.as_dict()
    assert {s: v.games for s, v in rule.sides.items()} == {"village": 100, "werewolves": 100}
    weak = b.bench(rules, 5, "random", 200, seed=3, calibration=200)
    assert weak.frozen == rule.frozen  # (the pool is frozen: the candidate is not in it)
    assert weak.sides["village"].mu < rule.sides["village"].mu
    assert weak.sides["village"].wins < rule.sides["village"].wins
    # the pool's own ratings: the random agent is the weakest villager
    village = rule.frozen["village"]
    assert min(village, key=lambda a: village[a][0]) == "random"


def test_the_candidate_sits_on_each_side_in_turn_and_the_pool_fills_the_rest(monkeypatch):
    seen: list[dict[str, str]] = []
    real = b.play_game

    def spy(rules, names, policy, seed, **kw):
        seen.append(dict(policy))
        return real(rules, names, policy, seed, **kw)

    monkeypatch.setattr(b, "play_game", spy)
    rules = ruleset("maw")
    result = b.bench(rules, 6, "rule", 6, seed=1, calibration=0, pool=("random", "learned"))
    assert len(seen) == 6
    for i, policy in enumerate(seen):
        mine = [n for n, d in policy.items() if d == "rule"]
        assert len(mine) == 1
        side = b.sides_of(rules, b.names_of(6), 1 + i)[mine[0]]
        assert side == b.SIDES[i % 2]
        for n, d in policy.items():
            if n == mine[0]:
                continue
            # the learned table of maw 6p is the village's: a wolf seat never plays it
            assert d == "random" or (d.startswith("learned:") and
                                     b.sides_of(rules, b.names_of(6), 1 + i)[n] == "village")
    assert result.sides["village"].games == result.sides["werewolves"].games == 3


def test_bad_input_is_one_line(tmp_path):
    with pytest.raises(MawError, match="unknown pool agent llama"):
        b.bench(ruleset("aiwolf-5"), 5, "rule", 10, 1, pool=("rule", "llama"))
    both = maw("bench", "--policy", "rule", "--roster", "agents/rule.toml", "--seat", "Ann")
    assert both.returncode != 0 and "give --roster with --seat" in both.stderr
    unknown = maw("bench", "--policy", "oracle")
    assert unknown.returncode != 0 and "unknown decider 'oracle'" in unknown.stderr
    roster = tmp_path / "r.toml"
    roster.write_text('[[player]]\nname = "Ann"\ndecider = "rule"\n')
    absent = maw("bench", "--roster", str(roster), "--seat", "Zed")
    assert absent.returncode != 0 and "Zed" in absent.stderr
    # a pool with nobody for a side (learned has no werewolf table for maw's 6 players):
    # an IndexError's traceback before
    empty = maw("bench", "--policy", "rule", "--players", "6", "--pool", "learned",
                "--games", "4", "--calibration", "4")
    assert empty.returncode == 2 and "no pool agent plays the werewolves side of maw with " \
        "6 players" in empty.stderr, empty.stderr
    assert "Traceback" not in both.stderr + unknown.stderr + absent.stderr + empty.stderr


def test_a_roster_seat_is_rated_and_json_carries_the_figures(tmp_path):
    import shutil

    shutil.copy("agents/policies/aiwolf5-werewolves.json", tmp_path / "w.json")
    roster = tmp_path / "r.toml"
    roster.write_text('[[player]]\nname = "Wes"\ndecider = "learned"\npolicy = "w.json"\n')
    out = maw("bench", "--ruleset", "aiwolf-5", "--roster", str(roster), "--seat", "Wes",
              "--games", "40", "--calibration", "100", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["label"] == "Wes (learned:" + str(tmp_path / "w.json") + ")"
    assert data["sides"]["werewolves"]["games"] == 20
    low, high = data["sides"]["werewolves"]["interval"]
    assert low <= data["sides"]["werewolves"]["win_rate"] <= high
    text = maw("bench", "--ruleset", "aiwolf-5", "--policy", "rule", "--games", "20",
               "--calibration", "50")
    assert text.returncode == 0 and "village" in text.stdout and "pool as werewolves" in \
        text.stdout


def test_the_clis_default_pool_is_the_pool():
    from maw.cli import build_parser

    args = build_parser().parse_args(["bench", "--policy", "rule"])
    assert tuple(args.pool.split(",")) == b.POOL


def test_a_bench_plays_six_players_unless_told_as_simulate_and_tournament_do(capsys):
    """It played the ruleset's fewest: 3 for maw, a game nobody meant."""
    from maw.cli import main

    assert main(["bench", "--policy", "rule", "--games", "2", "--calibration", "2"]) == 0
    assert "rule on maw, 6 players:" in capsys.readouterr().out
    assert main(["bench", "--policy", "rule", "--games", "2", "--calibration", "2",
                 "--ruleset", "aiwolf-5"]) == 0
    assert "rule on aiwolf-5, 5 players:" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.model
def test_an_llm_seat_is_benched_with_its_model_thinking_asynchronously(tmp_path):
    """A roster's llm seat on the embedded model: its games are played with the model
    answering each of its turns (no engine stand-in), and every answer is accounted."""
    from maw.hosting.roster import LLMSpec
    from maw.hosting.seats import Seat

    made = []
    factory = b.seat_policy(Seat("Lin", "llm", llm=LLMSpec(max_chars=80)))
    assert b.thinks(factory)

    def keep(name, rng):
        d = factory(name, rng)
        made.append(d)
        return d

    result = b.bench(ruleset("maw", max_days=1), 4, keep, 2, seed=1, calibration=10, label="Lin")
    assert len(made) == 2 and result.candidate == "Lin"
    assert {s: v.games for s, v in result.sides.items()} == {"village": 1, "werewolves": 1}
    tallies = [d.tally for d in made]
    assert all(t.calls > 0 for t in tallies)
    for t in tallies:  # every decision it was asked ended in a legal action, or listened
        assert t.legal + t.repaired + t.fallbacks == len(t.log)
        # (the small model's first answers are not always legal: some are repaired)
        assert t.legal + t.repaired > 0 and t.calls >= len(t.log)


def test_a_roster_seat_is_benched_with_its_groups_settings_for_the_role_it_is_dealt(tmp_path):
    """``[llm.wolves]`` and ``[llm.village]`` reach a benched seat: the engine game gives
    the seat's factory the role it was dealt (its own), as a hosted game's interface does."""
    import asyncio

    from maw.hosting.roster import load_roster
    from maw.hosting.seats import seats_from_roster
    from maw.simulate import aplay_game

    path = tmp_path / "r.toml"
    path.write_text('[llm]\nbackend = "scripted"\nmodel = "plain"\n'
                    '[llm.wolves]\nmodel = "wolfish"\n'
                    '[[player]]\nname = "Ann"\ndecider = "hybrid"\n')
    factory = b.seat_policy(seats_from_roster(load_roster(path), 1)[0])
    seen: dict[str, str] = {}

    def keep(name, rng, role=None):
        d = factory(name, rng, role=role)
        seen[role] = d.llm.backend.model
        return d
    keep.takes_role = True  # type: ignore[attr-defined]
    names = ["Ann", "Bob", "Cid", "Dee", "Eve"]
    for seed in range(12):  # (the scripted model answers nothing: the hybrid's templates)
        asyncio.run(aplay_game(ruleset("aiwolf-5", max_days=1), names,
                               {n: keep if n == "Ann" else "rule" for n in names}, seed))
    from maw.hosting.roster import group_of

    assert {"Werewolf", "Villager"} <= set(seen)  # (both sides were dealt to Ann)
    assert all(model == ("wolfish" if group_of(role) == "wolves" else "plain")
               for role, model in seen.items()), seen


def test_a_one_sided_player_is_benched_on_its_side_on_the_both_sided_schedules_games():
    rules = ruleset("aiwolf-5")
    both = b.bench(rules, 5, "rule", 60, seed=2, calibration=50)
    for side in b.SIDES:
        one = b.bench(rules, 5, "rule", 30, seed=2, calibration=50, side=side)
        assert one.sides[side].as_dict() == both.sides[side].as_dict()
        other = b.SIDES[1 - b.SIDES.index(side)]
        assert one.sides[other].games == 0
    with pytest.raises(MawError, match="side 'wolves'"):
        b.bench(rules, 5, "rule", 10, 1, side="wolves")
    out = maw("bench", "--ruleset", "aiwolf-5", "--policy",
              "learned:agents/policies/aiwolf5-village.npz", "--side", "village",
              "--games", "20", "--calibration", "20")
    assert out.returncode == 0, out.stderr
    assert "as village" in out.stdout and "\nwerewolves " not in out.stdout


def test_a_benched_model_seat_says_what_its_model_did(tmp_path):
    """A review: a server that dies mid-bench would have its seat's fallback rated in
    its name, and nothing said so. The bench tells the model's calls and fallbacks: here
    a model that has nothing to answer (a scripted backend with no reply left), so every
    decision was its fallback's."""
    import json
    import subprocess
    import sys

    roster = tmp_path / "r.toml"
    roster.write_text('[llm]\nbackend = "scripted"\n[[player]]\nname = "Lin"\n'
                      'decider = "llm"\n')
    proc = subprocess.run([sys.executable, "-m", "maw", "bench", "--roster", str(roster),
                           "--seat", "Lin", "--games", "2", "--calibration", "4",
                           "--players", "4", "--rule", "max_days=1", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    model = json.loads(proc.stdout)["model"]
    assert model["decisions"] > 0 and model["fallbacks"] == model["decisions"]
    assert model["legal"] == model["repaired"] == 0
