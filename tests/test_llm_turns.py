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


async def test_the_hybrid_votes_at_once_once_the_votes_open_after_the_talk():
    s = opened()
    backend = ScriptedBackend(replies=[])  # any model call would fail: none is made
    d = HybridDecider("A", random.Random(1), LLM(backend, window=4096))
    d.observe(Chatted(1, engine.Room.VILLAGE, "C", "I suspect D. D is a werewolf."))
    action = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert type(action) is engine.Vote and backend.calls == []
    record = d.tally.log[-1] if d.tally.log else {}
    assert record.get("calls", 0) == 0
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
    backend = ScriptedBackend(replies=[json.dumps({"action": "vote", "target": "C"})])
    d = LLMDecider("A", random.Random(1), LLM(backend, window=4096))
    action = await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), [])
    assert action == engine.Vote("A", "C")
    kinds = {alt["properties"]["action"]["const"] for alt in backend.schemas[0]["anyOf"]}
    assert kinds == {"vote"}  # no chat, no listen: the vote alone
    assert "vote now" in backend.calls[0][-1]["content"]
    # once it has voted it may talk or listen again
    s, _ = engine.play(s, action)
    backend.queue(json.dumps({"action": "listen"}))
    assert await d.adecide(view(s, "A"), engine.legal_actions(s, "A"), []) is None
    kinds = {alt["properties"]["action"]["const"] for alt in backend.schemas[1]["anyOf"]}
    assert "chat" in kinds and "listen" in backend.calls[1][-1]["content"]
