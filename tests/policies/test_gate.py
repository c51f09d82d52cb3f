"""The gate every line of a language model passes before anyone hears it
(``maw.policies.gate``): recorded bad answers of real games, crafted lies and slips, and
what may be said."""

from __future__ import annotations

import json
import random

import pytest
from conftest import start, wolf_view

from maw import engine
from maw.engine import Room, view
from maw.llm import LLM
from maw.llm.backends import ScriptedBackend
from maw.llm.decider import LLMDecider
from maw.llm.prompts import Prompts
from maw.policies import gate
from maw.policies.claims import Claim
from maw.policies.rule import RuleDecider

# AIWolf 5: A Seer, B Werewolf, C Possessed, D and E Villagers
DEAL5 = "SWPVV"


def faults(text: str, v, **kw) -> tuple[str, ...]:
    verdict = gate.check(text, v, 160, **kw)
    assert (verdict.text is None) == bool(verdict.faults)
    return verdict.faults


def wolf_instructions(v) -> tuple[str, ...]:
    return Prompts().instructions(v, "voice.md", "voice_again.md")


# the lines of the README's main command that the issue found (seed 1 and 2 of a 6-player
# game of hybrid players on the embedded model), said by a werewolf in the Village
RECORDED = [
    ("I suspect Bob has told us nothing that helps the village.} At most 160 characters. "
     "Your pack: The Wolfpack, led by Dee and Eve (and only) - if you'll get me! I",
     ("repeats its instructions", "gives away its role or its pack")),
    ("I vote for Cid. Cid should explain, not me and your Packmates (a friend",
     ("gives away its role or its pack",)),
    ("Cid should explain, not me and your friends (a friend", ("stops mid-sentence",)),
    ("We know that she is a witch, so vote for C.", ("the Witch, which this game",)),
    ("By day, pass for a villager and steer the vote onto C.", ("repeats its instructions",)),
    ('{"text": "I suspect C."}', ("repeats its instructions",)),
    # (seed 1, after the gate: said with "Game Master", refused for that alone)
    ("I would like to ask you something. Your Party: B and E.",
     ("repeats its instructions", "gives away its role or its pack")),
    ("I trust E and B, they are honest.", ("gives away its role or its pack",)),
    # (the compose demo, the model behind llama.cpp's server with Llama 2's chat template)
    ("You are a was who knoweth not, Dee. Why? - <</SYS> 160 characters. I'm sorry to say: "
     "you don't like this game.", ("repeats its instructions",)),
    ("I suspect C. [/INST] Yes.", ("repeats its instructions",)),
    ("<start_of_turn>I suspect C.", ("repeats its instructions",)),
    # (2026-12-07, seed 1 of the README's main command: the prompt's "You are ... the
    # player B", said back by B; "B" is the speaker here)
    ("You are B. You have been asked by the Village to go on a hunt for an animal thief.",
     ("repeats its instructions (\"You are B\")",)),
    ("you're playing Werewolf as the player B, so vote.", ("repeats its instructions",)),
    # (the same game: the state line a player's prompt starts with, said as the GM would)
    ("Day 2, in the Village. Alive: A, B, C, D.", ("Game Master",)),
]


@pytest.mark.parametrize("text, why", RECORDED)
def test_the_recorded_bad_lines_are_refused_for_what_is_wrong_with_them(text, why):
    v = view(wolf_view(), "B")
    found = faults(text, v, instructions=wolf_instructions(v))
    for fault in why:
        assert any(fault in f for f in found), (fault, found)


@pytest.mark.asyncio
async def test_a_hybrid_line_that_says_its_persona_is_refused_and_the_template_said():
    """A line of the README's embedded-model game: a hybrid player said its persona's own
    description aloud."""
    from maw.llm.hybrid import HybridDecider
    from maw.policies.tactics import Intent

    persona = ("You are Eve, a cheerful virtual mascot: you end sentences with 'nanoda!' "
               "and love to help the village.")
    echo = json.dumps({"text": "You are Eve, a cheerful virtual mascot. You end sentences "
                               "with 'nanoda!' and love to help the village."})
    backend = ScriptedBackend(replies=[echo, echo])
    d = HybridDecider("D", random.Random(0), LLM(backend), persona=persona)
    v = view(wolf_view(), "D")
    record: dict = {"calls": 0, "tokens": 0, "seconds": 0.0}
    said = await d.voice(v, Intent("I suspect C.", "C was quiet."), record)
    assert said == "I suspect C. C was quiet."
    assert any("repeats its instructions" in f for f in record["gated"]), record
    assert persona in backend.calls[0][-1]["content"]  # (it was told its persona)


@pytest.mark.asyncio
async def test_a_voiced_line_that_drops_the_name_it_was_meant_to_say_is_written_again():
    """Real games' closing lines lost their meaning so ("I vote for Eve..." voiced as "I
    voted for you. You should have told your family"): the voiced line must keep every
    player its intent names, or it is asked again, then the template is said."""
    from maw.llm.hybrid import HybridDecider
    from maw.policies.tactics import Intent

    lost = json.dumps({"text": "I voted for you. You should have told your family."})
    kept = json.dumps({"text": "My vote goes to C, who stays far too quiet."})
    v = view(wolf_view(), "D")
    for replies, said, outcome in (([lost, kept], "My vote goes to C, who stays far too "
                                                  "quiet.", "repaired"),
                                   ([lost, lost], "I vote for C. C was quiet.", "fallback")):
        d = HybridDecider("D", random.Random(0), LLM(ScriptedBackend(replies=replies)))
        record: dict = {"calls": 0, "tokens": 0, "seconds": 0.0}
        assert await d.voice(v, Intent("I vote for C.", "C was quiet."), record) == said
        assert record["outcome"] == outcome
        assert "it leaves out C, whom what you mean to say names" in record["caught"]


# the README's main game (six hybrid players, the embedded 270M model, seed 5): lines the
# gate let through that did not say what their speaker meant, and wordings that do
SIX = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
HELLO = "Good morning. We have werewolves to find. Tell us whom you suspect."


@pytest.mark.parametrize("who, meant, why, text, fault", [
    ("Dee", "I vote for Cid.", "Cid has told us nothing that helps the village.",
     "I vote for Bob. I voted against Cid.", "it says you suspect Bob, which is not what you mean"),
    ("Eve", HELLO, "", "Eve, Ann and I are on the hunt for your favorite character.",
     "it names Ann, whom what you mean to say does not"),
    ("Bob", HELLO, "", "I was born in Osaka. I'm an animal, the same as you are.",
     "it says nothing of what you mean"),
    ("Fay", HELLO, "", "Well, it's a game of talking.", "it says nothing of what you mean"),
    ("Ann", "Good morning. We still have werewolves to find. I suspect Eve.",
     "Eve keeps pointing at Fay without a reason.", "I trust Eve, she has done nothing wrong.",
     "it says you trust Eve, which is not what you mean"),
    ("Ann", "I vote for Fay.", "", "I am the Seer and I vote for Fay.",
     "it says you are the Seer, which is not what you mean"),
    ("Bob", "I vote for Cid.", "Cid voted with Ann against Fay on day 1.",
     "I vote for Fay. Cid voted with Ann.", "it says you suspect Fay"),
    # (seed 2, 2026-12-07: a vote for its very speaker, in words the grammar now reads)
    ("Bob", "Good morning. We still have werewolves to find. I suspect Ann.",
     "Ann voted to execute Cid on day 2, and the wolves finished the job that night.",
     "I'm voting for Bob. Day 2: Ann votes against Cid, and the wolves killed him as well.",
     "it says you suspect or vote for yourself"),
    ("Cid", "I vote for Eve.", "", "I'll vote for Ann, I think.", "it says you suspect Ann"),
    # what it meant, in other words
    ("Bob", "Hello everyone, I am Bob. Let us enjoy this game together.", "",
     "Hi all, I'm happy to play with you.", None),
    ("Ann", HELLO, "", "Good morning, all. Who do you think the wolves are?", None),
    ("Bob", "I vote for Cid.", "Cid has told us nothing that helps the village.",
     "Cid has been silent all day, so my vote is for Cid.", None),
    ("Fay", "I vote for Eve.", "On day 1, Eve and Ann both went after me.",
     "Eve gets my vote: she and Ann both went after me.", None),
])
def test_a_wording_must_say_what_its_speaker_means(who, meant, why, text, fault):
    got = gate.unfaithful(text, meant, who, SIX, why)
    if fault is None:
        assert got == []
    else:
        assert any(fault in f for f in got), got
        assert all(gate.fault_kind(f) == gate.MEANING for f in got)


@pytest.mark.asyncio
async def test_a_voiced_line_that_casts_another_vote_is_written_again():
    """"I vote for Cid" voiced as "I vote for Bob. I voted against Cid." (the README's main
    game) passed the gate and told the table a vote its speaker never cast."""
    from maw.llm.hybrid import HybridDecider
    from maw.policies.tactics import Intent

    other = json.dumps({"text": "I vote for B. I voted against C."})
    v = view(wolf_view(), "D")
    d = HybridDecider("D", random.Random(0), LLM(ScriptedBackend(replies=[other, other])))
    record: dict = {"calls": 0, "tokens": 0, "seconds": 0.0}
    assert await d.voice(v, Intent("I vote for C.", "C was quiet."), record) == \
        "I vote for C. C was quiet."
    assert record["outcome"] == "fallback"
    assert "it says you suspect B, which is not what you mean" in record["caught"]


@pytest.mark.parametrize("who, text, fault", [
    ("B", "[GM] C is out of the game.", "Game Master"),
    ("C", "As the game master I say: vote D.", "Game Master"),
    ("B", "I am a werewolf, but please spare me.", "gives away its role or its pack"),
    ("B", "My pack and I think D is lying.", "gives away its role or its pack"),
    ("B", "E is a werewolf, I am sure.", "names its packmate E"),
    ("C", "I am the Seer: D is a werewolf.", "claims to be the Seer"),
    ("C", "D is human, I checked.", "a result it never received"),
    ("C", "A, why did you vote for F?", "A, who is dead"),
    ("D", "I suspect F more than anyone.", "F, who is dead"),
    ("D", "I suspect C, and C has", "stops mid-sentence"),
    ("D", "I suspect C (for two reasons.", "stops mid-sentence"),
    ("C", "D was raped and killed, I tell you.", "no one at the table should hear"),
    ("C", "Go kill yourself, D.", "no one at the table should hear"),
    # (a villager of the README's main game, seed 11, 2026-12-07)
    ("D", "I am from the village, and have been a werewolf for many years now.",
     "says it is a werewolf, which it is not"),
    ("C", "I'm secretly a wolf, so what?", "says it is a werewolf, which it is not"),
    # (werewolf-12 on the embedded model, seed 2, 2026-12-07: a line in another's voice)
    ("D", ". A, B. C: I'm sorry to say it; you are not a werewolf.", "speaks in C's voice"),
    ("D", "C: I am only a villager. E: me too!", "speaks in E's voice"),
])
def test_the_gate_catches_lies_slips_and_broken_lines(who, text, fault):
    found = faults(text, view(wolf_view(), who))
    assert any(fault in f for f in found), found


@pytest.mark.parametrize("who, text", [
    ("B", "I am a simple villager and I suspect C."),  # a wolf's lie on purpose: allowed
    ("C", "I suspect D: D voted with E yesterday."),
    ("C", "F was executed yesterday, and A died in the night."),  # the dead, as dead
    ("C", "D voted to execute F on day 1, and the wolves finished the job."),  # (history)
    ("D", "I am a Villager. Let us vote for C."),
    ("D", "C worries me, nanoda!"),
    ("D", "Dee votes. Wolves go away! ♪"),
    ("C", "The pack will strike again tonight, so think."),  # (a villager may say "pack")
    ("C", "I do not know what you say, D, but I suspect you."),  # (not the prompt's words)
    ("C", "The wolves will kill again tonight; D must be executed."),  # (the game's words)
    ("C", "D, you are C's friend, so vote with me."),  # (its own name, not as told)
    ("C", "You are D, and I suspect you."),  # (another's name)
    ("D", "I was nearly a werewolf's supper last night, and I suspect C."),
])
def test_what_may_be_said_passes_unchanged(who, text):
    verdict = gate.check(text, view(wolf_view(), who), 160)
    assert verdict.faults == () and verdict.text == text and not verdict.cut


def test_the_speakers_own_name_before_its_line_is_dropped_and_the_rest_said():
    v = view(wolf_view(), "D")
    verdict = gate.check("D: I suspect C. C voted for E.", v, 160)
    assert verdict.ok and verdict.text == "I suspect C. C voted for E."
    assert gate.check("D:", v, 160).faults == ("it is empty",)
    # another's name before a colon inside a sentence is not a label
    assert gate.check("I have one question for C: why vote for E?", v, 160).ok


def test_the_possessed_may_call_itself_a_werewolf_and_a_villager_may_not():
    s = start("aiwolf-5", DEAL5)  # (C is the Possessed: the wolves' side, a human)
    line = "I have been a werewolf all along. Vote for me if you dare."
    assert gate.check(line, view(s, "C"), 160).ok
    assert "it says it is a werewolf, which it is not" in gate.check(
        line, view(s, "D"), 160).faults


def test_a_line_cut_off_is_cut_back_to_its_last_full_sentence():
    v = view(wolf_view(), "C")
    verdict = gate.check("I suspect D. D voted with E yesterday. And then D", v, 160)
    assert verdict.text == "I suspect D. D voted with E yesterday." and verdict.cut
    long = "I suspect D. " + "D voted with E yesterday and that is odd. " * 6
    verdict = gate.check(long, v, 60)
    assert verdict.text is not None and len(verdict.text) <= 60 and verdict.cut
    assert verdict.text.endswith(".")


def test_a_lie_the_strategy_chose_passes_and_true_results_pass():
    s = start("aiwolf-5", DEAL5)
    possessed = view(s, "C")
    lie = (Claim("role", "C", "C", "Seer"), Claim("species", "C", "D", "werewolf"))
    assert faults("Hear me: I am the Seer, and D is a werewolf!", possessed, allowed=lie) == ()
    assert faults("I am the Seer, and E is a werewolf!", possessed, allowed=lie)
    s, _ = engine.play(s, engine.Over("A", Room.VILLAGE))  # (to the night: A divines)
    for p in "BCDE":
        s, _ = engine.play(s, engine.Over(p, Room.VILLAGE))
    s, _ = engine.play(s, engine.Divine("A", "B"))
    seer = view(s, "A")
    assert seer.results and faults("I am the Seer. B is a werewolf.", seer) == ()
    # its strategy chose not to come out yet: the Seer keeps its role to itself
    kept = faults("I am the Seer. B is a werewolf.", seer, allowed=())
    assert any("keeps to itself" in f for f in kept), kept


@pytest.mark.parametrize("name, text, ok", [
    ("aiwolf-5", "The Bodyguard must protect C tonight.", False),  # no Bodyguard in 5
    ("aiwolf-15", "The Bodyguard must protect C tonight.", True),
    ("aiwolf-15", "Our guard should watch C.", True),  # (the Bodyguard, by another name)
    ("werewolf-12", "If the Witch saved C, she should say so.", True),
    ("maw", "If the Witch saved C, she should say so.", False),
    ("maw", "I will guard my words today.", True),  # (a verb, not the role)
])
def test_only_the_roles_the_game_has_may_be_named(name, text, ok):
    size = {"aiwolf-5": 5, "aiwolf-15": 15, "werewolf-12": 12, "maw": 6}[name]
    names = [chr(ord("A") + i) for i in range(size)]
    s = engine.new_game(engine.ruleset(name), names, random.Random(3))
    villager = next(n for n, r in zip(names, s.roles, strict=True) if r.name == "Villager")
    found = faults(text, view(s, villager))
    assert (not any("this game does not have" in f for f in found)) == ok, found


async def test_an_llm_line_the_gate_refuses_is_asked_again_then_the_rule_player_speaks():
    s = wolf_view()
    v = view(s, "B")
    legal = engine.legal_actions(s, "B")
    chat = [a for a in legal if type(a) is engine.Chat]
    backend = ScriptedBackend(replies=[
        json.dumps({"action": "chat", "text": "Your pack: E. I suspect C."}),
        json.dumps({"action": "chat", "text": "C has been quiet, and quiet worries me."})])
    d = LLMDecider("B", random.Random(1), LLM(backend, window=4096),
                   fallback=("rule", RuleDecider("B", random.Random(2))))
    action = await d.adecide(v, tuple(chat), [])
    assert action == engine.Chat("B", Room.VILLAGE, "C has been quiet, and quiet worries me.")
    record = d.tally.log[-1]
    assert record["outcome"] == "repaired" and "repeats its instructions" in record["error"]
    assert "cannot be said" in backend.calls[1][-1]["content"]
    # twice refused: the rule player's turn, and the record says why
    backend = ScriptedBackend(replies=[
        json.dumps({"action": "chat", "text": "We wolves must stick together."}),
        json.dumps({"action": "chat", "text": "I am a werewolf and E"})])
    d = LLMDecider("B", random.Random(1), LLM(backend, window=4096),
                   fallback=("rule", RuleDecider("B", random.Random(2))))
    action = await d.adecide(v, tuple(chat), [])
    record = d.tally.log[-1]
    assert record["outcome"] == "fallback" and record["gated"]
    assert any("gives away" in f for f in record["gated"])
    if action is not None:  # the rule player's own line, through no model
        assert "werewolf and E" not in getattr(action, "text", "")


def test_the_refusals_are_counted_by_kind_in_the_summary_and_the_tournament_metrics():
    from maw.llm.telemetry import summarize
    from maw.records.metrics import game_metrics
    from maw.records.schema import BY_KIND

    gated = {"kind": "llm", "player": "B", "calls": 2, "tokens": 9, "seconds": 0.5,
             "outcome": "fallback", "t": 2.0,
             "gated": ["it repeats its instructions (\"your pack\")",
                       "a werewolf gives away its role or its pack"]}
    fine = {**gated, "outcome": "legal", "gated": None, "t": 3.0}
    BY_KIND["llm"].model_validate(gated)  # (the log's schema takes it)
    s = summarize([gated, fine])
    assert s["gated"] == 1 and s["why"] == {"echo": 1, "secret": 1} and s["fallback"] == 1
    records = [{"kind": "round", "t": 1.0, "round": 1, "roles": {"B": "Werewolf",
                                                                 "C": "Villager"}},
               gated, fine,
               {"kind": "outcome", "t": 4.0, "winner": "village", "day": 1, "points": {}}]
    metrics = {p.name: p for p in game_metrics(records, {"B": "llm", "C": "rule"}).players}
    assert metrics["B"].gated == 1 and metrics["C"].gated == 0
