"""The learned player: ``maw train`` makes a table of choices on the engine, with
checkpoints and ``--resume``; ``learned:FILE`` plays it wherever a decider is named."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from maw.engine import ruleset
from maw.env.train import train
from maw.policies.learned import OPTIONS, SURE_AFTER, Table
from maw.simulate import simulate


def maw(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "maw", *args], capture_output=True,
                          text=True, timeout=300)


def test_training_learns_a_table_and_resumes_where_it_stopped(tmp_path):
    out = tmp_path / "v.json"
    a = train(ruleset("aiwolf-5"), "village", 150, out, checkpoint=100, command="maw first")
    assert a.games == 150 and a.counts
    data = json.loads(out.read_text())
    assert data["games"] == 150 and data["options"] == list(OPTIONS)
    # every choice a village seat made is counted once per game it was made in
    assert all(len(c) == len(OPTIONS) and sum(c) > 0 for c, _s in data["table"].values())
    b = train(ruleset("aiwolf-5"), "village", 50, out, resume=True, command="maw more")
    assert b.games == 200
    # the file says every command its games came from, not the resume's alone
    assert json.loads(out.read_text())["command"] == "maw first && maw more"
    # the same 200 games in one run make the same table (game i has seed (seed, i))
    whole = train(ruleset("aiwolf-5"), "village", 200, tmp_path / "w.json")
    assert whole.counts == b.counts and whole.sums == b.sums
    with pytest.raises(Exception, match="learned village on aiwolf-5, not werewolves"):
        train(ruleset("aiwolf-5"), "werewolves", 10, out, resume=True)


def test_a_game_played_again_is_the_same_until_its_streams_are_drawn_anew():
    """``maw.env.counterfactual.play``: the same seed, the same game as ``maw simulate``'s;
    drawn anew after a choice from the same key, the same continuation; from other keys,
    other continuations."""
    from maw.env.counterfactual import play
    from maw.simulate import play_game

    rules, names = ruleset("aiwolf-5"), [f"P{i}" for i in range(5)]
    for seed in range(5):
        assert play(rules, names, "rule", seed) == play_game(rules, names, "rule", seed)
    asked = [0]

    def after_five() -> bool:
        asked[0] += 1
        return asked[0] > 5

    def again(key: tuple):
        asked[0] = 0
        return play(rules, names, "rule", 2, reseed_when=after_five, key=key)

    assert again((1,)) == again((1,))
    assert len({repr(again((j,))) for j in range(8)}) > 1


def test_counterfactual_training_tries_every_option_of_a_seats_choices(tmp_path):
    """``--counterfactual K``: each choice of the learning seat that has two options or
    more (by the actions they take) gets a return for each, the mean of K continuations
    (a multiple of 1/K), and the options differ somewhere: forced, they were played."""
    k = 3
    out = tmp_path / "c.json"
    table = train(ruleset("aiwolf-5"), "village", 30, out, counterfactual=k, seed=2)
    assert table.games == 30 and table.counts
    differ = 0
    for key, counts in table.counts.items():
        tried = [i for i, c in enumerate(counts) if c]
        assert len(tried) >= 2, key
        values = [table.sums[key][i] for i in tried]
        assert all(-1 <= v <= 1 for v in values)
        once = [table.sums[key][i] for i, c in enumerate(counts) if c == 1]
        assert all(abs(v * k - round(v * k)) < 1e-9 for v in once)
        differ += len(set(values)) > 1
        # each option's advantage over the rule option in the same rollouts, paired: as
        # many as its returns, the rule option's own advantage 0, each a multiple of 1/K
        paired = table.paired[key]
        assert [int(n) for n, _s, _q in paired] == counts
        assert paired[0][1] == 0 and paired[0][2] == 0
        assert all(abs(t * k - round(t * k)) < 1e-9 for _n, t, _q in paired)
    assert differ > 0
    assert any(table.paired[key][i][1] for key in table.paired for i in range(1, 5))
    again = train(ruleset("aiwolf-5"), "village", 30, tmp_path / "d.json", counterfactual=k,
                  seed=2)
    assert again.sums == table.sums and again.counts == table.counts
    assert Table.load(out).paired == table.paired  # (saved, and read back)
    played = simulate(ruleset("aiwolf-5"), 5, "rule", 30, 4, village=f"learned:{out}")
    assert played.games == 30 and played.invalid_actions == 0
    bad = maw("train", "--ruleset", "aiwolf-5", "--team", "village", "--out",
              str(tmp_path / "e.json"), "--counterfactual", "-1")
    assert bad.returncode == 2 and "--counterfactual K" in bad.stderr
    bad = maw("train", "--ruleset", "aiwolf-5", "--team", "village", "--algo", "ppo",
              "--out", str(tmp_path / "e.npz"), "--counterfactual", "4")
    assert bad.returncode == 2 and "trains a table" in bad.stderr
    for seats, message in (("2", "--seats: for --algo ppo, or a table with"),
                           ("0", "--seats must be at least 1")):
        extra = ("--counterfactual", "2") if seats == "0" else ()
        bad = maw("train", "--ruleset", "aiwolf-5", "--team", "village", "--out",
                  str(tmp_path / "e.json"), "--seats", seats, *extra)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


def test_a_safe_table_leaves_the_rule_player_only_where_the_advantage_is_sure():
    """A table with paired advantages takes another option than the rule player's only if
    its advantage's mean is ``CONFIDENCE`` standard errors above 0, the best of such;
    without them, the option of the best mean return."""
    t = Table("aiwolf-5", "village")
    for i in range(40):
        t.add("s", 0, 0.0)
        t.add("s", 1, 0.05)  # a small advantage, every time: sure
        t.add("s", 3, 0.5 if i % 2 else -0.4)  # a larger mean, but noise: not sure
        t.add_paired("s", 0, 0.0)
        t.add_paired("s", 1, 0.05)
        t.add_paired("s", 3, 0.5 if i % 2 else -0.4)
    assert t.best("s", [0, 1, 3]) == 1
    assert t.best("s", [0, 3]) == 0  # only the noisy one: the rule player's
    mean, se = t.advantage("s", 3)
    assert mean == pytest.approx(0.05) and se == pytest.approx(0.45 / 40 ** 0.5, rel=0.02)
    for _ in range(SURE_AFTER - 1):  # too few samples prove nothing, all alike or not
        t.add_paired("s", 4, 9.0)
        t.add("s", 4, 9.0)
    assert t.best("s", [0, 1, 3, 4]) == 1
    t.add_paired("s", 4, 9.0)
    assert t.best("s", [0, 1, 3, 4]) == 4
    del t.paired["s"]  # a table of whole games: the best mean return
    t.add("s", 3, 5.0)
    assert t.best("s", [0, 1, 3]) == 3


def test_a_safe_tables_confidence_is_over_all_the_options_it_tested(tmp_path):
    """An advantage sure where the table tested one option is not where it tested a
    hundred, at the same level: 97.5% over all of them (Bonferroni's correction), counted
    as the samples come and again from a saved table."""
    t = Table("aiwolf-15", "village")
    ups = [0.1, -0.04] * 15  # mean 0.03, standard error about 0.013: z near 2.3
    for a in ups:
        t.add("s", 0, 0.0)
        t.add("s", 1, a)
        t.add_paired("s", 0, 0.0)
        t.add_paired("s", 1, a)
    mean, se = t.advantage("s", 1)
    assert 1.96 < mean / se < 3.48
    assert t.tested() == 1 and t.confidence() == pytest.approx(1.96, abs=0.01)
    assert t.best("s", [0, 1]) == 1
    for k in range(99):  # 99 more options tested, none better than the rule player's
        for i in range(SURE_AFTER):
            t.add(f"n{k}", 0, 0.0)
            t.add(f"n{k}", 2, 0.0)
            t.add_paired(f"n{k}", 2, 0.1 if i % 2 else -0.1)
    assert t.tested() == 100 and t.confidence() == pytest.approx(3.48, abs=0.01)
    assert t.best("s", [0, 1]) == 0
    t.save(tmp_path / "t.json")
    again = Table.load(tmp_path / "t.json")
    assert again.tested() == 100 and again.best("s", [0, 1]) == t.best("s", [0, 1])
    for _ in range(200):  # the same advantage, surer: past 3.48 standard errors
        t.add_paired("s", 1, 0.04)
    assert t.best("s", [0, 1]) == 1


def test_counterfactual_training_draws_its_seats_and_not_the_first(tmp_path, monkeypatch):
    """``seats=S``: the table plays S of the team's seats drawn from each game's seed, and
    the first drawn tries its choices; not the team's first seat (which knows that every
    seat before it is the other side's)."""
    import maw.env.counterfactual as cf
    import maw.env.train as training
    from maw.engine import new_game
    from maw.policies.learned import LearnedDecider

    plays: list[list[str]] = []  # each play's table seats, in order
    tried: list[set[str]] = []  # each play's seats that were forced somewhere
    seeds: list[int] = []
    real = cf.play

    def spy(rules, names, policy, seed, *args, **kwargs):
        plays.append([])
        tried.append(set())
        seeds.append(seed)
        return real(rules, names, policy, seed, *args, **kwargs)

    class Seat(LearnedDecider):
        def __init__(self, player, rng, table, explore=0.0):
            super().__init__(player, rng, table, explore)
            plays[-1].append(player)

        def decide(self, view, legal):
            if self.forced.get(len(self.visits)) is not None:
                tried[-1].add(self.player)
            return super().decide(view, legal)

    monkeypatch.setattr(cf, "play", spy)
    monkeypatch.setattr(training, "LearnedDecider", Seat)
    rules, names = ruleset("aiwolf-9"), [f"P{i:02d}" for i in range(9)]
    table = train(rules, "village", 12, tmp_path / "s.json", players=9, counterfactual=1,
                  seats=3, seed=1)
    assert table.games == 12 and table.paired
    assert all(len(seats) == 3 for seats in plays)
    firsts = [i for i, t in enumerate(tried) if not t]  # each game's first play: unforced
    assert len(firsts) == 12 and firsts[0] == 0
    not_first = 0
    for game, start in enumerate(firsts):
        end = firsts[game + 1] if game + 1 < len(firsts) else len(plays)
        learners = set().union(*tried[start + 1:end])
        drawn = cf.drawn_seats(rules, names, seeds[start], "village", 3)
        assert set(plays[start]) == set(drawn)
        assert learners <= {drawn[0]}, (game, learners, drawn)
        deal = new_game(rules, names, random.Random(seeds[start]))
        village = [n for n, r in zip(names, deal.roles, strict=True)
                   if r.team.value == "village"]
        not_first += drawn[0] != village[0]
    assert not_first > 0
    assert cf.drawn_seats(rules, names, 5, "village", 3) == \
        cf.drawn_seats(rules, names, 5, "village", 3)


def test_a_learned_player_plays_only_legal_actions_for_either_side(tmp_path):
    for team in ("village", "werewolves"):
        out = tmp_path / f"{team}.json"
        train(ruleset("aiwolf-9"), team, 100, out, players=9)
        summary = simulate(ruleset("aiwolf-9"), 9, "rule", 100, 5,
                           **{team: f"learned:{out}"})
        assert summary.games == 100 and summary.invalid_actions == 0


def test_a_table_that_never_saw_a_state_plays_the_rule_player(tmp_path):
    empty = tmp_path / "empty.json"
    Table("aiwolf-5", "village").save(empty)
    a = simulate(ruleset("aiwolf-5"), 5, "rule", 200, 3)
    b = simulate(ruleset("aiwolf-5"), 5, "rule", 200, 3, village=f"learned:{empty}")
    assert a.as_dict()["digest"] == b.as_dict()["digest"]


def test_the_train_command_and_its_errors(tmp_path):
    out = tmp_path / "p.json"
    done = maw("train", "--ruleset", "aiwolf-5", "--team", "village", "--games", "40",
               "--out", str(out), "--checkpoint", "20")
    assert done.returncode == 0, done.stderr
    assert "[40/40]" in done.stdout and f"--policy learned:{out}" in done.stdout
    assert "maw train --ruleset aiwolf-5" in json.loads(out.read_text())["command"]
    again = maw("train", "--ruleset", "aiwolf-5", "--team", "village", "--games", "40",
                "--out", str(out))
    assert again.returncode != 0 and "--resume" in again.stderr
    sim = maw("simulate", "--ruleset", "aiwolf-5", "--players", "5", "--games", "20",
              "--village", f"learned:{out}", "--json")
    assert sim.returncode == 0 and json.loads(sim.stdout)["invalid_actions"] == 0
    for bad, message in ((str(tmp_path / "none.json"), "cannot read the policy"),
                         (str(tmp_path), "cannot read the policy")):
        r = maw("simulate", "--ruleset", "aiwolf-5", "--players", "5", "--games", "5",
                "--village", f"learned:{bad}")
        assert r.returncode != 0 and message in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "x.json").write_text("{}")
    r = maw("simulate", "--ruleset", "aiwolf-5", "--players", "5", "--games", "5",
            "--village", f"learned:{tmp_path / 'x.json'}")
    assert r.returncode != 0 and "is not a learned policy" in r.stderr


@pytest.mark.xmpp
def test_a_learned_seat_plays_over_xmpp_from_a_roster_and_as_an_aiwolf_client(tmp_path):
    from maw.hosting.xmpp import free_port

    policy = tmp_path / "v.json"
    train(ruleset("aiwolf-5"), "village", 60, policy)
    roster = tmp_path / "r.toml"
    roster.write_text('[[player]]\nname = "Ann"\ndecider = "learned"\npolicy = "v.json"\n'
                      + "".join(f'[[player]]\nname = "{n}"\ndecider = "rule"\n'
                                for n in ("Bob", "Cid", "Dee")))
    port = free_port()
    game = subprocess.Popen(
        [sys.executable, "-m", "maw", "game", "--ruleset", "aiwolf-5", "--players", "5",
         "--roster", str(roster), "--aiwolf", "1", "--aiwolf-port", str(port), "--xmpp",
         f"embedded:{free_port()}", "--seed", "2", "--day-seconds", "10",
         "--night-seconds", "5", "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # (the AIWolf agent plays the shipped network: learned:FILE.npz, numpy alone)
    network = Path(__file__).resolve().parents[2] / "agents" / "policies" / \
        "aiwolf5-village.npz"
    client = subprocess.run(
        [sys.executable, "-m", "maw", "aiwolf-client", "--url", f"ws://127.0.0.1:{port}/ws",
         "--name", "learner", "--policy", f"learned:{network}"],
        capture_output=True, text=True, timeout=300)
    out, err = game.communicate(timeout=300)
    assert game.returncode == 0, err[-2000:]
    assert client.returncode == 0 and "1 game(s) played" in client.stdout, client.stderr
    assert "1 learned:" in out and "Game over" in out
    log = next(tmp_path.glob("game-*.jsonl"))
    audit = maw("audit", str(log))
    assert audit.returncode == 0, audit.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('[[player]]\nname = "Ann"\ndecider = "learned"\n')
    r = maw("game", "--ruleset", "aiwolf-5", "--players", "5", "--roster", str(bad))
    assert r.returncode != 0 and "names its policy file" in r.stderr


def test_training_is_the_same_in_every_process(tmp_path):
    """The same command makes the same table, whatever process runs it (a seed that
    hashed None, whose hash is its address, made every run another table)."""
    tables = []
    for k in range(2):
        out = tmp_path / f"{k}.json"
        done = maw("train", "--ruleset", "aiwolf-5", "--team", "werewolves", "--games", "300",
                   "--out", str(out))
        assert done.returncode == 0, done.stderr
        tables.append(json.loads(out.read_text())["table"])
    assert tables[0] == tables[1]
