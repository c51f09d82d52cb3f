"""The one registry of deciders (``maw.policies.DECIDERS``): a decider is one file that
registers itself, with its traits (needs a model, talks, may stand in), and every layer
asks the registry: a roster, the host, ``maw simulate``, the stand-ins."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from maw import engine
from maw.errors import ConfigError
from maw.hosting.plan import GameRequest, plan_game
from maw.hosting.roster import load_roster
from maw.policies import (
    DECIDERS,
    AsyncDecider,
    Decider,
    decider_kind,
    make_decider,
    register_decider,
    stand_ins,
)
from maw.simulate import simulate


class Cautious(Decider):
    """A decider defined here and nowhere else: it votes for the first living player it
    may, attacks likewise, and never talks."""

    def decide(self, view, legal):
        for a in legal:
            if type(a) in (engine.Vote, engine.Attack):
                return a
        return None


register_decider("cautious-test", Cautious)


def test_a_decider_defined_in_a_test_module_plays_maw_simulate():
    summary = simulate(engine.ruleset("maw"), 6, "cautious-test", 30, seed=1)
    assert summary.games == 30 and summary.invalid_actions == 0
    assert summary.village_wins + summary.werewolf_wins + summary.draws == 30
    # (in worker processes too: they know the deciders this process registered)
    shared = simulate(engine.ruleset("maw"), 6, "cautious-test", 30, seed=1, parallel=2)
    assert shared.as_dict()["digest"] == summary.as_dict()["digest"]


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_decider_defined_in_a_test_module_plays_a_roster_game_over_xmpp(server,
                                                                               tmp_path):
    from maw.hosting.game import run_game

    roster = tmp_path / "cautious.toml"
    roster.write_text("".join(f'[[player]]\nname = "{n}"\ndecider = "cautious-test"\n\n'
                              for n in ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")))
    request = GameRequest(players=6, rules=engine.ruleset("maw"), seed=3, roster=str(roster),
                          xmpp=f"localhost:{server.port}", log_dir=tmp_path, day_seconds=5,
                          night_seconds=3, early_end=True)
    plan = await plan_game(request)
    assert {s.decider for s in plan.seats} == {"cautious-test"}
    result = await run_game(plan.config, plan.seats, server, timeout=120)
    assert result.outcomes and result.outcomes[0].termination is not None
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    acts = {r["action"] for r in log if r["kind"] == "action"}
    assert "Vote" in acts and "Chat" not in acts  # it played as it decides, and never talked


class Fickle(Decider):
    """Votes for one of the next two players round the table, whichever it may: the
    legal votes leave out its current one, so asked again it always moves (and no
    player ever has more than two votes: no majority ends the day)."""

    def decide(self, view, legal):
        names = sorted(view.players)
        seat = names.index(self.player)
        near = [names[(seat + k) % len(names)] for k in (1, 2)]
        return next((a for a in legal if type(a) is engine.Vote and a.target in near), None)


register_decider("fickle-test", Fickle)


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_decider_that_never_settles_is_stopped_each_phase_not_left_to_flood(
        server, tmp_path):
    from collections import Counter

    from maw.agents.model_interface import MOVES_A_PHASE
    from maw.hosting.game import run_game

    roster = tmp_path / "fickle.toml"
    roster.write_text("".join(f'[[player]]\nname = "{n}"\ndecider = "fickle-test"\n\n'
                              for n in ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")))
    request = GameRequest(players=6, rules=engine.ruleset("maw", max_days=1), seed=3,
                          roster=str(roster), xmpp=f"localhost:{server.port}",
                          log_dir=tmp_path, day_seconds=4, night_seconds=2)
    plan = await plan_game(request)
    result = await run_game(plan.config, plan.seats, server, timeout=120)
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    # asked at every message, each would vote again at once, as long as the day lasts:
    # its interface stops it at MOVES_A_PHASE moves a phase, and the log says so
    votes = Counter(r["data"]["voter"] for r in log
                    if r["kind"] == "event" and r["event"] == "VoteCast")
    assert max(votes.values()) == MOVES_A_PHASE, votes
    stopped = {r["player"] for r in log if r["kind"] == "decider_error"
               and "moves in one phase" in r["error"]}
    assert stopped == {p for p, n in votes.items() if n == MOVES_A_PHASE}


def test_a_roster_takes_every_registered_decider_and_names_the_known_ones(tmp_path):
    ok = tmp_path / "ok.toml"
    ok.write_text('[[player]]\nname = "Ann"\ndecider = "cautious-test"\n')
    assert load_roster(ok).player[0].decider == "cautious-test"
    bad = tmp_path / "bad.toml"
    bad.write_text('[[player]]\nname = "Ann"\ndecider = "oracle"\n')
    with pytest.raises(ConfigError, match="unknown decider 'oracle'.*cautious-test") as why:
        load_roster(bad)
    # as a roster names one that takes a file (it offered "learned:FILE", then refused it)
    assert 'learned (with policy = "FILE")' in str(why.value) and ":FILE" not in str(why.value)


def test_the_registry_carries_each_deciders_traits():
    import maw.llm  # noqa: F401 - (the deciders that need a model register here)

    assert decider_kind("llm").needs_model and decider_kind("llm").talks
    assert decider_kind("hybrid").needs_model and decider_kind("hybrid").talks
    # the hybrid without each tactic plays with a model too, and without one
    for knockout in ("hybrid-no-counter-co", "hybrid-no-fake-seer", "hybrid-no-mention"):
        kind = decider_kind(knockout)
        assert kind.needs_model and kind.talks and kind.make is not None
    assert not decider_kind("rule").needs_model and decider_kind("rule").stand_in
    assert decider_kind("learned:x.json").argument == "FILE"
    assert set(stand_ins()) >= {"rule", "random"} and "llm" not in stand_ins()
    # the hybrid plays its strategy without a model; the llm player cannot
    assert not isinstance(make_decider("hybrid", "A", random.Random(0)), AsyncDecider)
    with pytest.raises(ConfigError, match="needs a model"):
        make_decider("llm", "A", random.Random(0))
    assert "cautious-test" in DECIDERS


def test_an_asynchronous_decider_has_no_synchronous_decide():
    from maw.llm import LLM
    from maw.llm.backends import ScriptedBackend
    from maw.llm.decider import LLMDecider

    d = LLMDecider("A", random.Random(0), LLM(ScriptedBackend()))
    assert isinstance(d, AsyncDecider) and d.asynchronous
    with pytest.raises(TypeError, match="asynchronously"):
        d.decide(None, ())


def test_a_random_player_asked_at_every_news_takes_three_turns_a_phase_in_the_village():
    """A hosted game asks a player again at each news: a random player voted, unvoted and
    chatted until every day's timer ran out (a tournament's three-day game: 7,474 actions,
    a 22 MB log). Given its view, it takes three turns a phase in the Village (a revote,
    or the votes opening after the talk, are turns anew) and then listens; in the Hideout
    a pack that must agree on its victim tries on. Without a view (``maw simulate``, whose
    rounds bound the turns) it acts whenever asked, as before."""
    from maw.policies.random import RandomDecider

    s = engine.new_game(engine.ruleset("maw"), ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"],
                        random.Random(3))
    me = next(p for p in s.names if s.role_of(p).name == "Villager")
    d = RandomDecider(me, random.Random(0))
    v, legal = engine.view(s, me), engine.legal_actions(s, me)
    assert legal and v.room != "Hideout"
    acted = [d.decide(v, legal) for _ in range(10)]
    assert all(a is not None for a in acted[:3]) and acted[3:] == [None] * 7
    assert d.decide(dataclasses.replace(v, vote_round=1), legal) is not None  # (a revote)
    night = dataclasses.replace(v, room="Hideout")
    assert all(d.decide(night, legal) is not None for _ in range(10))
    blind = RandomDecider(me, random.Random(0))
    assert all(blind.decide(None, legal) is not None for _ in range(10))
