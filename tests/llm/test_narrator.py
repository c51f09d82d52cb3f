"""The narrating moderator (``maw.llm.narrator``): told public events only, its line kept
to the news (every name, no other, no role the news lacks, no prompt words), the events'
own words when the model fails, and a summary at the end."""

from __future__ import annotations

import json

import pytest

from maw import engine
from maw.engine import events as ev
from maw.llm.backends import ScriptedBackend
from maw.llm.narrator import Narrator, fact, names_in
from maw.llm.prompts import Prompts
from maw.llm.retry import Retry

PLAYERS = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")


def narrator(*replies, **kw) -> tuple[Narrator, ScriptedBackend]:
    """A narrator whose model says ``replies`` in turn (each in the answer's form)."""
    backend = ScriptedBackend(replies=[json.dumps({"text": r}) for r in replies])
    return Narrator(backend, Prompts(), retry=Retry(), label="scripted", **kw), backend


def numbered(*events):
    return list(enumerate(events))


@pytest.mark.asyncio
async def test_a_death_at_dawn_is_retold_in_the_model_s_words():
    n, backend = narrator("The sun rises on a grim sight: Bob lies dead, killed by the wolves.")
    line = await n.narrate(numbered(ev.PhaseStarted(2, "day", 0, PLAYERS),
                                    ev.Murdered(2, "Bob")), PLAYERS, "maw")
    assert line.by == "model" and "Bob lies dead" in line.text
    assert line.events == (1,)
    prompt = backend.calls[0][0]["content"]
    assert "Day 2." in prompt and "short sentences: Bob is found murdered." in prompt


@pytest.mark.asyncio
async def test_it_is_told_public_events_only_and_chat_or_votes_are_no_news():
    n, backend = narrator("Bob was executed by the village.")
    secret = ev.Divined(1, "Ann", "Bob", "werewolf", audience=frozenset({"Ann"}))
    attack = ev.VoteCast(1, "attack", "Cid", "Bob", audience=frozenset({"Cid", "Dee"}))
    line = await n.narrate(numbered(secret, attack, ev.Executed(1, "Bob", 4.0)), PLAYERS, "maw")
    assert line.events == (2,)  # (not the divination nor the pack's vote)
    prompt = backend.calls[0][0]["content"]
    assert "Cid" not in prompt and "divine" not in prompt and "attack" not in prompt
    # a batch of talk and votes alone is not narrated, and asks no model
    assert await n.narrate(numbered(ev.Chatted(1, engine.Room.VILLAGE, "Ann", "hi"),
                                    ev.VoteCast(1, "execute", "Ann", "Bob")),
                           PLAYERS, "maw") is None
    assert len(backend.calls) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("reply, why", [
    ("A quiet night passes.", "leaves out Bob"),
    ("Bob went for a long walk in the woods.", "does not say the news (Murdered)"),
    ("Bob was found dead, and Cid looks guilty.", "names Cid"),
    ("Bob, our brave Seer, was found dead.", "role Seer"),
    ("Bob (was found dead.", "not a whole sentence"),
    # (a real game's line on the embedded model, for a murder)
    ("Bob was killed by the Werewolf, and they were both executed.", "'execut'"),
    ("You are the moderator of a game of Werewolf: Bob died.", "repeats its prompt"),
    # (a real game's line on the embedded model, for an execution: passed until then)
    ("I am the leader of a group called The Werewolf. Bob was found dead by my hand.",
     "speaks of itself"),
])
async def test_a_line_that_strays_from_the_news_is_replaced_by_the_news(reply, why):
    n, _ = narrator(reply)
    line = await n.narrate(numbered(ev.Murdered(2, "Bob")), PLAYERS, "maw")
    assert line.by == "template" and why in line.why and line.refused == reply
    assert line.text == "Bob is found murdered."


@pytest.mark.asyncio
@pytest.mark.parametrize("reply", ["Eve is executed (4 votes)", "Eve is executed by vote"])
async def test_a_whole_answer_without_its_full_stop_is_closed_with_one(reply):
    # (the embedded model's answers for an execution, in real games: "Ann is executed (2
    # votes)" was refused as no sentence though its JSON was whole)
    n, _ = narrator(reply)
    line = await n.narrate(numbered(ev.Executed(1, "Eve", 4.0)), PLAYERS, "maw")
    assert line.by == "model" and line.text == reply + "."


@pytest.mark.asyncio
async def test_a_model_that_fails_gives_the_events_own_words():
    n, _ = narrator()  # (no reply left: a BackendError)
    line = await n.narrate(numbered(ev.NoMurder(2)), PLAYERS, "maw")
    assert line.by == "template" and line.text == "Nobody was murdered." and "failed" in line.why


@pytest.mark.asyncio
async def test_a_slow_model_is_given_up_within_the_timeout():
    import asyncio

    class Slow(ScriptedBackend):
        async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
            await asyncio.sleep(10)

    n = Narrator(Slow(), Prompts(), retry=Retry(timeout=0.3))
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    line = await n.narrate(numbered(ev.Murdered(2, "Bob")), PLAYERS, "maw")
    assert line.by == "template" and loop.time() - t0 < 3


@pytest.mark.asyncio
async def test_the_end_is_summed_up_with_what_was_told_before():
    n, backend = narrator("Bob fell at dawn.", "Cid was executed.",
                          "The village won on day 2: Bob fell first, and Cid, the Werewolf, "
                          "was caught.")
    await n.narrate(numbered(ev.Murdered(1, "Bob")), PLAYERS, "maw")
    await n.narrate(numbered(ev.Executed(2, "Cid", 4.0)), PLAYERS, "maw")
    roles = tuple(zip(PLAYERS, ("Villager", "Villager", "Werewolf", "Seer", "Villager",
                                "Werewolf"), strict=True))
    end = await n.narrate(numbered(ev.GameOver(2, "village", "no werewolf lives", roles, ())),
                          PLAYERS, "maw")
    assert end.summary and end.by == "model" and "village won" in end.text
    prompt = backend.calls[2][0]["content"]
    assert "Bob is found murdered. Cid is executed (4 votes)." in prompt
    assert "Game over on day 2" in prompt
    n.new_round()
    assert n.told == []


@pytest.mark.asyncio
@pytest.mark.parametrize("reply, by", [
    ("The werewolves won: Cid and Fay hid well to the end.", "model"),
    ("The village won, then the werewolves won.", "template"),
    ("The village was brave but lost.", "template"),
])
async def test_the_summary_says_who_won_and_not_the_other_side(reply, by):
    n, _ = narrator(reply)
    roles = (("Ann", "Villager"), ("Cid", "Werewolf"), ("Fay", "Werewolf"))
    end = await n.narrate(numbered(ev.GameOver(3, "werewolves", "no villager lives", roles,
                                               ())), PLAYERS, "maw")
    assert end.summary and end.by == by


def test_names_and_facts_read_as_the_transcript_does():
    assert names_in("Ann and Bobby met Bob.", PLAYERS) == {"Ann", "Bob"}
    assert fact(ev.Executed(1, "Bob", 3.0)) == "Bob is executed (3 votes)"
    assert fact(ev.SpeakingOrder(1, ("Ann", "Bob"))) == \
        "Today's speeches, one each, in turn: Ann, Bob"


def test_of_engine_games_events_it_is_told_the_public_news_alone():
    """Over 30 seeded werewolf-12 games (every kind of news: deaths, verdicts, a sheriff,
    the speaking order, a Hunter's shot): each event a narrator is handed by ``tells`` is
    public, and each public piece of news is told."""
    from maw.simulate import play_game

    rules = engine.ruleset("werewolf-12")
    kinds = set()
    for seed in range(30):
        events: list = []
        play_game(rules, [f"P{i:02}" for i in range(12)], "rule", seed, events=events)
        told = Narrator.tells(numbered(*events))
        assert told and all(e.audience is None for _, e in told)
        news = {i for i, e in enumerate(events) if e.audience is None
                and isinstance(e, (ev.Murdered, ev.Executed, ev.SheriffElected,
                                   ev.SpeakingOrder, ev.Shot, ev.GameOver))}
        assert news <= {i for i, _ in told}
        secret = {i for i, e in enumerate(events) if e.audience is not None}
        assert not secret & {i for i, _ in told}
        kinds |= {type(e).__name__ for _, e in told}
    assert {"Murdered", "Executed", "SheriffElected", "SpeakingOrder", "GameOver"} <= kinds


@pytest.mark.asyncio
@pytest.mark.parametrize("reply, said", [
    # (the embedded model's lines in real games, after "Eve is found murdered.")
    ("Eve was found murdered. She is in a coma, and she has been taken to the hospital.",
     "Eve was found murdered."),
    ("The village mourns Eve. They searched for her since she was found dead at night. "
     "The harvest was good.",
     "The village mourns Eve. They searched for her since she was found dead at night."),
])
async def test_the_sentences_after_the_news_that_it_made_up_are_not_said(reply, said):
    n, _ = narrator(reply)
    line = await n.narrate(numbered(ev.Murdered(2, "Eve")), PLAYERS, "maw")
    assert (line.by, line.text, line.why, line.refused) == ("model", said,
                                                            "cut to the news", reply)


@pytest.mark.asyncio
async def test_what_comes_before_the_news_stays_and_a_line_without_it_is_not_said():
    n, _ = narrator("Hear this, village! Eve died. The harvest was good.",
                    "The village is a small town in the middle of nowhere.")
    line = await n.narrate(numbered(ev.Murdered(2, "Eve")), PLAYERS, "maw")
    assert (line.by, line.text) == ("model", "Hear this, village! Eve died.")
    line = await n.narrate(numbered(ev.NoMurder(3)), PLAYERS, "maw")
    assert line.by == "template" and line.why == "it does not keep to the news"


@pytest.mark.asyncio
async def test_what_no_one_at_the_table_should_hear_is_not_said():
    # (a real game's line on the embedded model, for a murder; it passed the gate then)
    reply = "Eve is found murdered. She was raped and strangled in her room."
    n, _ = narrator(reply)
    line = await n.narrate(numbered(ev.Murdered(2, "Eve")), PLAYERS, "maw")
    assert line.by == "template" and "should hear ('raped')" in line.why
    assert line.text == "Eve is found murdered."
