"""The design document's nice-to-haves in MAW games: the Seer (``seer=N``) and private
whispers (``whisper=on``), in the engine and over XMPP, audited."""

from __future__ import annotations

import copy
import json
import random

import pytest

from maw import engine
from maw.engine import (
    SEER,
    VILLAGER,
    WEREWOLF,
    Attack,
    Divine,
    EndPhase,
    Phase,
    Vote,
    Whisper,
    legal_actions,
    new_game,
    play,
    ruleset,
    view,
)
from maw.engine.events import Divined, Whispered
from maw.errors import IllegalActionError
from maw.records.schema import recipients

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def game(**options):
    """Ann and Bob the wolves, Cid the Seer."""
    return new_game(ruleset("maw", seer=1, **options), NAMES, random.Random(1),
                    roles=[WEREWOLF, WEREWOLF, SEER, VILLAGER, VILLAGER, VILLAGER])


def to_night(state):
    while state.phase is not Phase.NIGHT:
        state, _ = play(state, EndPhase())
    return state


def test_seer_option_deals_seers_from_the_villagers():
    roles = ruleset("maw", seer=1).roles_for(7)
    assert [r.name for r in roles].count("Seer") == 1
    assert [r.name for r in roles].count("Werewolf") == 2
    from maw.engine.describe import rules_text
    from maw.errors import ConfigError

    assert "each night the seer learns" in rules_text(ruleset("maw", seer=1), 7).lower()
    assert "whisper" in rules_text(ruleset("maw", whisper=True), 7)
    with pytest.raises(ConfigError, match="an option of the maw ruleset"):
        ruleset("aiwolf-5", seer=1)


def test_the_seer_learns_alone_and_the_night_waits_for_it():
    state = to_night(game())
    assert Divine("Cid", "Ann") in legal_actions(state, "Cid")
    # the pack agrees first: the night waits for the Seer's choice
    state, _ = play(state, Attack("Ann", "Dee"))
    state, _ = play(state, Attack("Bob", "Dee"))
    assert state.phase is Phase.NIGHT
    state, events = play(state, Divine("Cid", "Ann"))
    assert state.phase is Phase.DAY and not state.alive[3]
    divined = [e for e in events if type(e) is Divined]
    assert divined and divined[0].audience == frozenset({"Cid"})
    assert view(state, "Cid").results == ((1, "divine", "Ann", "werewolf"),)
    for other in ("Bob", "Eve", "Fay"):
        assert view(state, other).results == ()
        assert "Cid" not in view(state, other).known_roles


def test_a_seer_who_never_chooses_does_not_save_the_packs_victim():
    # the timer ends the night: the unanimous pack still murders; a split one does not
    state = to_night(game())
    state, _ = play(state, Attack("Ann", "Dee"))
    state, _ = play(state, Attack("Bob", "Dee"))
    state, events = play(state, EndPhase())
    assert state.phase is Phase.DAY and not state.alive[3]
    assert [e.player for e in events if type(e).__name__ == "Murdered"] == ["Dee"]
    assert view(state, "Cid").results == ()
    state = to_night(game())
    state, _ = play(state, Attack("Ann", "Dee"))
    state, _ = play(state, Attack("Bob", "Eve"))
    state, events = play(state, EndPhase())
    assert all(state.alive) and "NoMurder" in [type(e).__name__ for e in events]


def test_a_dead_seer_acts_no_more():
    state = game()
    for voter in ("Ann", "Bob", "Dee", "Eve"):
        state, _ = play(state, Vote(voter, "Cid"))
    assert not state.alive[2] and state.phase is Phase.NIGHT
    assert legal_actions(state, "Cid") == ()
    with pytest.raises(IllegalActionError, match="Cid is dead"):
        play(state, Divine("Cid", "Ann"))


def test_whispers_reach_their_target_alone_and_the_dead_neither_send_nor_hear():
    state = game(whisper=True)
    offered = [a for a in legal_actions(state, "Dee") if type(a) is Whisper]
    assert sorted(a.target for a in offered) == sorted(n for n in NAMES if n != "Dee")
    state, events = play(state, Whisper("Dee", "Eve", "I trust you"))
    assert events == (Whispered(1, "Dee", "Eve", "I trust you", frozenset({"Dee", "Eve"})),)
    for bad, why in [(Whisper("Dee", "Zed", "hi"), "'Zed' is not a player"),
                     (Whisper("Dee", "Dee", "hi"), "may not whisper to itself"),
                     (Whisper("Dee", "Eve", " "), "a whisper needs text")]:
        with pytest.raises(IllegalActionError, match=why):
            play(state, bad)
    for voter in ("Ann", "Bob", "Cid", "Dee"):
        state, _ = play(state, Vote(voter, "Fay"))
    state = to_night(state)
    with pytest.raises(IllegalActionError, match="whispers are for the day"):
        play(state, Whisper("Dee", "Eve", "psst"))
    state, _ = play(state, EndPhase())  # a new day: Fay is dead
    with pytest.raises(IllegalActionError, match="Fay is dead"):
        play(state, Whisper("Fay", "Eve", "from beyond"))
    with pytest.raises(IllegalActionError, match="Fay is dead: the dead hear no whispers"):
        play(state, Whisper("Eve", "Fay", "are you there"))
    for i in range(engine.rules.WHISPERS):
        state, _ = play(state, Whisper("Eve", "Dee", f"line {i}"))
    with pytest.raises(IllegalActionError, match="whispered 5 times today"):
        play(state, Whisper("Eve", "Dee", "one more"))


def test_whispers_are_off_unless_the_ruleset_says_on():
    state = game()
    assert not state.rules.whisper
    assert not any(type(a) is Whisper for a in legal_actions(state, "Dee"))
    with pytest.raises(IllegalActionError, match="no whispers in this game"):
        play(state, Whisper("Dee", "Eve", "hi"))
    with pytest.raises(Exception, match="whisper"):
        ruleset("aiwolf-9", whisper="on")


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_an_xmpp_game_with_a_seer_and_whispers_keeps_every_secret(server, tmp_path):
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.records.audit import audit_records

    rules = ruleset("maw", seer=1, whisper=True)
    # the game's timing is not seeded: a day-1 execution can take the Seer before any
    # night; then the next seed plays (at most five games). (early_end: a night ends as
    # soon as everyone has acted, so its 10 s cost nothing unless something stalls)
    for seed in range(4, 9):
        config = GameConfig(players=7, rules=rules, seed=seed, day_seconds=4,
                            night_seconds=10, early_end=True, log_dir=tmp_path / str(seed))
        # random players whisper (rule players do not); the Seer is a rule player, who
        # always divines (a random one may listen through a night)
        seats = default_seats(7, "random")
        deal = engine.new_game(rules, sorted(s.name for s in seats),
                               random.Random(f"{seed}:1"))
        seer = next(s.name for s in seats if deal.role_of(s.name).name == "Seer")
        for seat in seats:
            if seat.name == seer:
                seat.decider = "rule"
        result = await run_game(config, seats, server, timeout=180)
        log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
        if any(r["kind"] == "event" and r["event"] == "PhaseStarted"
               and r["data"]["phase"] == "night" and seer in r["data"]["living"]
               for r in log):
            break
    assert next(r for r in log if r["kind"] == "round")["roles"][seer] == "Seer"
    whispers = [r["data"] for r in log if r["kind"] == "event" and r["event"] == "Whispered"]
    assert whispers and any(r["kind"] == "event" and r["event"] == "Divined" for r in log)
    jid = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    lines = [r for r in log if r["kind"] == "msg" and r["type"] == "private_line"]
    assert len(lines) == len(whispers)
    for w, line in zip(whispers, lines, strict=True):
        assert recipients(line) == [jid[w["target"]]] and line["body"]["text"] == w["text"]
    assert audit_records(log).ok
    # the audit finds a whisper sent to someone else
    leak = copy.deepcopy(log)
    i = leak.index(lines[0])
    other = next(n for n in jid if n not in (whispers[0]["speaker"], whispers[0]["target"]))
    leak.insert(i + 1, {**lines[0], "to": jid[other]})
    result = audit_records(leak)
    assert not result.ok and f"{other} was sent private_line" in str(result.violations[0])


def test_a_hybrid_villager_whispers_its_vote_to_the_one_it_trusts_most():
    from maw.policies import make_decider

    state = game(whisper=True)
    d = make_decider("hybrid", "Dee", random.Random(1))
    whispers = []
    for _ in range(6):  # its turns of a day: speak, vote, argue, whisper
        action = d.decide(view(state, "Dee"), legal_actions(state, "Dee"))
        if action is None:
            break
        state, events = play(state, action)
        whispers += [e for e in events if type(e) is Whispered]
    assert len(whispers) == 1  # once a day
    mine = view(state, "Dee").votes["Dee"]
    w = whispers[0]
    assert w.speaker == "Dee" and w.target != mine and f"I vote for {mine}" in w.text
    wolf = make_decider("hybrid", "Ann", random.Random(1))
    for _ in range(6):  # a wolf whispers to nobody: it has its Hideout
        action = wolf.decide(view(state, "Ann"), legal_actions(state, "Ann"))
        if action is None or state.phase is not Phase.DAY:
            break
        assert type(action) is not Whisper
        state, _ = play(state, action)
