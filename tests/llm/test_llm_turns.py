"""An LLM player's turn once the day's votes are open: it votes (the hybrid agent by rule,
before any model reads the talk; a vanilla ``llm`` player is offered the vote alone and
told to vote now), so that a day whose players' calls run one after another still
reaches its vote."""

from __future__ import annotations

import json
import random

from conftest import start

from maw import engine
from maw.engine import view
from maw.engine.events import Chatted
from maw.llm import LLM
from maw.llm.backends import ScriptedBackend
from maw.llm.decider import LLMDecider
from maw.llm.hybrid import HybridDecider


def opened():
    """MAW 6 (B and E the wolves), day 1: everyone has talked, the votes are open."""
    s = start("maw", "VWVVWV", votes_open="talk")
    s, _ = engine.play(s, engine.OpenVotes())
    assert s.ballot
    return s


async def test_the_hybrid_votes_at_once_once_the_votes_open_after_its_say():
    s = start("maw", "VWVVWV", votes_open="talk")
    backend = ScriptedBackend(replies=[json.dumps({"text": "C has said nothing; why?"})])
    d = HybridDecider("A", random.Random(1), LLM(backend, window=4096))
    said = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert type(said) is engine.Chat  # its say first, the votes closed
    s, _ = engine.play(s, said)
    s, _ = engine.play(s, engine.OpenVotes())
    calls = len(backend.calls)  # (no reply is left: a model call now would fail)
    d.observe(Chatted(1, engine.Room.VILLAGE, "C", "I suspect D. D is a werewolf."))
    action = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert type(action) is engine.Vote and len(backend.calls) == calls
    # the talk the model did not read was read by the grammar: C's result is heard
    assert ("C", "D", "werewolf") in d.strategy.said_results


async def test_with_the_votes_open_from_the_start_the_hybrid_speaks_first():
    s = start("maw", "VWVVWV")  # votes_open=start: the design document's day
    backend = ScriptedBackend(replies=[json.dumps({"facts": []}),
                                       json.dumps({"text": "C has said nothing; why?"})])
    d = HybridDecider("A", random.Random(1), LLM(backend, window=4096))
    action = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert type(action) is engine.Chat


async def test_a_vanilla_llm_player_is_offered_the_vote_alone_and_told_to_vote_now():
    s = opened()
    backend = ScriptedBackend(replies=[json.dumps({"action": "chat", "text": "Hm. C?"}),
                                       json.dumps({"action": "vote", "target": "C"})])
    d = LLMDecider("A", random.Random(1), LLM(backend, window=4096))
    said = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert type(said) is engine.Chat  # its turn first: it may talk
    s, _ = engine.play(s, said)
    action = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert action == engine.Vote("A", "C")
    kinds = {alt["properties"]["action"]["const"] for alt in backend.schemas[1]["anyOf"]}
    assert kinds == {"vote"}  # it has had its turn: no chat, no listen, the vote alone
    assert "vote now" in backend.calls[1][-1]["content"]
    # once it has voted it may talk or listen again
    s, _ = engine.play(s, action)
    backend.queue(json.dumps({"action": "listen"}))
    assert await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), []) is None
    kinds = {alt["properties"]["action"]["const"] for alt in backend.schemas[2]["anyOf"]}
    assert "chat" in kinds and "listen" in backend.calls[2][-1]["content"]


def test_the_timers_fit_every_players_calls_on_each_model_in_turn():
    from maw.engine import ruleset
    from maw.hosting.defaults import LLM_DAY, LLM_NIGHT
    from maw.hosting.plan import GameRequest, phase_lengths
    from maw.hosting.seats import ModelTime, Seat

    r = GameRequest(players=6, rules=ruleset("maw"))
    seats = [Seat(n, "hybrid") for n in ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")]
    assert phase_lengths(r, seats) == (LLM_DAY, LLM_NIGHT)  # (nothing measured)
    # six players' calls in turn, 3 s each: a 45 s day held one round of them
    day, night = phase_lengths(r, seats, [ModelTime("embedded", 3.0, 1, 6)])
    assert day >= 2 * 6 * 4 * 3.0 and day % 5 == 0 and night >= 2 * 6 * 2 * 3.0
    # a server that answers four at once: the default day is long enough
    assert phase_lengths(r, seats, [ModelTime("ollama", 3.0, 4, 6)]) == (LLM_DAY, LLM_NIGHT)
    # two models side by side: the slower one decides
    both = [ModelTime("a", 1.0, 1, 3), ModelTime("b", 6.0, 1, 3)]
    assert phase_lengths(r, seats, both)[0] >= 3 * 4 * 6.0
    # what the host was told wins
    asked = GameRequest(players=6, rules=ruleset("maw"), day_seconds=20, night_seconds=9)
    assert phase_lengths(asked, seats, [ModelTime("embedded", 3.0, 1, 6)]) == (20, 9)


async def test_at_night_the_hybrid_makes_its_choice_before_it_talks():
    from conftest import wolf_view

    s = wolf_view()  # day 2 of MAW 6, B and E the wolves: to the night
    for voter in "BDE":  # (a majority of the four living executes C)
        s, _ = engine.play(s, engine.Vote(voter, "C"))
    assert s.phase.value == "night"
    backend = ScriptedBackend(replies=[])  # any model call would fail: none is made
    d = HybridDecider("B", random.Random(1), LLM(backend, window=4096))
    legal = engine.legal_actions(s, "B")
    assert any(type(a) is engine.Chat for a in legal)  # (it may talk in the Hideout)
    action = await d.adecide(view(s, "B"), legal, [])
    assert type(action) is engine.Attack and backend.calls == []
    s, _ = engine.play(s, action)
    # its choice made, it may talk: its model voices the pack's line
    backend.queue(json.dumps({"text": f"Let us take {action.target} tonight, quietly."}))
    said = await d.adecide(view(s, "B"), engine.legal_actions(s, "B"), [])
    assert type(said) is engine.Chat and backend.calls


def test_a_werewolf12_players_prompt_tells_the_werewolf12_rules():
    from maw.llm import LLM
    from maw.llm.backends import ScriptedBackend
    from maw.llm.prompts import Prompts, pin_game

    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim",
             "Lou"]
    s = engine.new_game(engine.ruleset("werewolf-12"), names, random.Random(1))
    llm = LLM(ScriptedBackend(), window=4096)
    pin_game(llm, Prompts(), view(s, "Ann"))
    rules = llm.context[0]["content"]  # (the first pinned message: the game's rules)
    assert "sheriff" in rules and "1.5" in rules and "night 0" in rules
    assert "no attack on the first night" not in rules
    assert "Witch" in rules and "last words" in rules
