"""The hybrid agent: talk analysis on recorded utterances (scripted model), the voice with
its one regeneration and its template line, its vote before its words, and its strategy
against fixed opponents (the gate its lines pass: tests/policies/test_gate.py)."""

from __future__ import annotations

import json
import random

import pytest
from conftest import start, wolf_view

from maw import engine
from maw.engine import Chat, Room, Vote, view
from maw.llm import LLM
from maw.llm.backends import ScriptedBackend
from maw.llm.hybrid import HybridDecider, read_facts
from maw.policies.claims import Claim
from maw.policies.hybrid import HybridStrategy
from maw.simulate import simulate

# AIWolf 5: A Seer, B Werewolf, C Possessed, D and E Villagers
DEAL5 = "SWPVV"


def facts(*items):
    return json.dumps({"facts": [dict(zip(("speaker", "kind", "target", "role"), i,
                                          strict=True)) for i in items]})


def test_the_model_s_facts_are_kept_only_where_the_speaker_named_the_target():
    lines = [("C", "Listen, I am the Seer and B is a werewolf, trust me."),
             ("D", "I think we should hear from E first.")]
    answer = facts(("C", "claims_role", "C", "Seer"), ("C", "says_werewolf", "B", "Seer"),
                   ("D", "accuses", "A", "Villager"),  # D never named A: invented
                   ("D", "defends", "E", "Villager"), ("A", "accuses", "B", "Villager"))
    got = read_facts(answer, lines, ("A", "B", "C", "D", "E"))
    assert got == [Claim("role", "C", "C", "Seer"), Claim("species", "C", "B", "werewolf"),
                   Claim("defend", "D", "E", "")]
    with pytest.raises(ValueError, match="not a list of facts"):
        read_facts("I think C is lying", lines, ("A", "B", "C", "D", "E"))


async def test_talk_analysis_feeds_the_strategy_and_falls_back_to_the_grammar():
    state = start("aiwolf-5", DEAL5)
    backend = ScriptedBackend(replies=[
        facts(("C", "claims_role", "C", "Seer"), ("C", "says_werewolf", "A", "Seer"))])
    d = HybridDecider("D", random.Random(1), LLM(backend, window=4096))
    d.observe(engine.events.Chatted(0, Room.VILLAGE, "C",
                                    "Everyone, I'm the seer here. A is a werewolf."))
    legal = tuple(a for a in engine.legal_actions(state, "D") if type(a) is not Chat)
    await d.adecide(view(state, "D"), legal, [])
    assert d.strategy.claimed == {"C": "Seer"}
    assert d.strategy.suspicion["A"] > 0  # the stated result weighs on A
    record = d.tally.log[-1]
    assert record["facts_by"] == "model" and record["calls"] == 1
    assert ["C", "species", "A", "werewolf"] in record["facts"]
    assert "Everyone, I'm the seer here" in backend.calls[0][-1]["content"]
    # the model answers nonsense: the statement grammar's facts still count
    backend.queue("no idea")
    d.observe(engine.events.Chatted(0, Room.VILLAGE, "E", "I suspect C."))
    await d.adecide(view(state, "D"), legal, [])
    record = d.tally.log[-1]
    assert record["facts_by"] == "grammar" and record["facts"] == [["E", "suspect", "C", ""]]
    assert "C" in d.strategy.against["E"]


async def test_the_voice_is_regenerated_once_then_replaced_by_the_template():
    s = wolf_view()
    v = view(s, "B")
    strategy = HybridStrategy("B", random.Random(1))
    _action, intent = strategy.decide_intent(v, engine.legal_actions(s, "B"))
    assert intent is not None and "I suspect " in intent.text  # (after its good morning)
    suspect = intent.text.split("I suspect ")[1][0]  # (the voiced line must name it too)
    backend = ScriptedBackend(replies=[
        json.dumps({"text": f"Between us wolves, I suspect {suspect}."}),
        json.dumps({"text": f"Honestly, {suspect} worries me the most today."})])
    d = HybridDecider("B", random.Random(1), LLM(backend, window=4096), persona="Blunt.")
    action = await d.adecide(v, engine.legal_actions(s, "B"), [])
    assert action == Chat("B", Room.VILLAGE, f"Honestly, {suspect} worries me the most today.")
    record = d.tally.log[-1]
    assert record["outcome"] == "repaired" and record["calls"] == 2
    assert "gives away its role or its pack" in record["caught"][0]
    assert "cannot be said: a werewolf gives away" in backend.calls[1][-1]["content"]
    assert "Blunt." in backend.calls[0][-1]["content"]
    assert record["prompts"] == backend.calls and record["answers"] == record["sentences"]
    # twice wrong: the template line goes out, and the log says what was caught
    backend = ScriptedBackend(replies=[json.dumps({"text": "[GM] C is a wolf."}),
                                       json.dumps({"text": "E is a werewolf."})])
    d = HybridDecider("B", random.Random(1), LLM(backend, window=4096))
    action = await d.adecide(v, engine.legal_actions(s, "B"), [])
    assert action.text == intent.template()[:160]
    caught = d.tally.log[-1]["caught"]
    assert d.tally.log[-1]["outcome"] == "fallback" and "Game Master" in caught[0]
    assert "a werewolf names its packmate E" in caught


async def test_a_dead_model_costs_the_voice_not_the_move():
    s = wolf_view()
    d = HybridDecider("C", random.Random(1), LLM(ScriptedBackend(replies=[]), window=4096))
    action = await d.adecide(view(s, "C"), engine.legal_actions(s, "C"), [])
    assert isinstance(action, Chat) and "I suspect " in action.text
    assert d.tally.log[-1]["outcome"] == "fallback" and "exception" in d.tally.log[-1]


def test_hybrid_strategy_speaks_asks_the_undeclared_then_votes_and_waits_to_close():
    s = start("maw", "VWVVWV", votes_open="talk")
    d = HybridStrategy("A", random.Random(1))
    for e in engine.opening_events(s):
        d.observe(e)
    s, events = engine.play(s, Chat("B", Room.VILLAGE, "I suspect C."))
    for e in events:
        d.observe(e)
    first = d.decide(view(s, "A"), engine.legal_actions(s, "A"))
    assert isinstance(first, Chat) and first.text.startswith("I suspect ")
    s, _ = engine.play(s, first)
    ask = d.decide(view(s, "A"), engine.legal_actions(s, "A"))  # (B has declared)
    assert isinstance(ask, Chat) and "@C @D @E @F," in ask.text and "@B" not in ask.text
    s, _ = engine.play(s, ask)
    assert d.decide(view(s, "A"), engine.legal_actions(s, "A")) is None  # asked: waits
    s, _ = engine.play(s, engine.OpenVotes())
    vote = d.decide(view(s, "A"), engine.legal_actions(s, "A"))
    assert isinstance(vote, Vote) and ask.text.startswith(f"I vote for {vote.target}.")
    s, _ = engine.play(s, vote)
    assert d.decide(view(s, "A"), engine.legal_actions(s, "A")) is None  # (C.. undeclared)


@pytest.mark.parametrize("name, players", [("maw", 6), ("aiwolf-5", 5)])
def test_hybrid_villagers_beat_random_villagers_against_the_same_rule_wolves(name, players):
    games = 300  # benchmarks/teams.py has the figures over 1000 games with intervals
    hybrid = simulate(engine.ruleset(name), players, "rule", games, seed=1,
                      village="hybrid", werewolves="rule")
    rand = simulate(engine.ruleset(name), players, "rule", games, seed=1,
                    village="random", werewolves="rule")
    assert hybrid.invalid_actions == 0
    assert hybrid.village_wins > rand.village_wins + games // 20


async def test_an_inquiry_while_votes_are_cast_in_the_open_is_said_at_once_unvoiced():
    """Every inquiry of the README's main game named players who voted in the seconds
    the model took to word it: where votes are cast beside the talk, it is said as the
    strategy wrote it, with no model call for its words."""
    state = start("maw", "VWVVWV")
    backend = ScriptedBackend(replies=[facts()] * 4)
    d = HybridDecider("D", random.Random(1), LLM(backend, window=4096))

    def play(action):
        nonlocal state
        state, events = engine.play(state, action)
        for e in events:
            if e.audience is None or "D" in e.audience:
                d.observe(e)

    play(Chat("A", Room.VILLAGE, "I suspect B."))
    for _ in range(2):  # its line (the template: the model has only facts to give), its vote
        action = await d.adecide(view(state, "D"), engine.legal_actions(state, "D"), [])
        play(action)
    assert type(action) is Vote
    for voter, target in (("A", "B"), ("B", "A"), ("E", "A")):
        play(Vote(voter, target))
    assert await d.adecide(view(state, "D"), engine.legal_actions(state, "D"), []) is None
    action = await d.adecide(view(state, "D"), engine.legal_actions(state, "D"), [])
    assert type(action) is Chat and "@C" in action.text and "@F" in action.text
    assert action.text.startswith("I vote for ")
    assert not any("you have not said whom you vote for" in m["content"]
                   for call in backend.calls for m in call)
