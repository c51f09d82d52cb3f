"""One renderer: what a player heard, in the words its screen shows and its prompt carries."""

from __future__ import annotations

import typing

import pytest

from maw.protocol import heard as h
from maw.protocol import render

CASES = [
    (h.Said(room="Village", speaker="Bob", text="I suspect Cid.", day=1), "Bob: I suspect Cid."),
    (h.RoomOpened(room="Hideout", players=["Ann", "Fay"]), "[Hideout] open for Ann, Fay."),
    (h.WhisperHeard(speaker="Ann", to="Cid", text="Vote Eve.", day=1),
     "[whisper] Ann to Cid: Vote Eve."),
    (h.VoteHeard(day=1, vote="execute", voter="Bob", target="Cid"), "[GM] Bob votes for Cid."),
    (h.VoteHeard(day=1, vote="execute", voter="Bob", target=None),
     "[GM] Bob withdraws the vote."),
    (h.VoteHeard(day=1, vote="attack", voter="Ann", target="Eve"),
     "[GM] Ann votes for Eve (attack)."),
    (h.ResultHeard(day=1, status="executed", target="Cid"), "[GM] Cid was executed."),
    (h.ResultHeard(day=1, status="murdered", target="Eve"), "[GM] Eve was found murdered."),
    (h.ResultHeard(day=1, status="revote", tied=["Bob", "Cid"]),
     "[GM] Tie between Bob and Cid: vote again."),
    (h.ResultHeard(day=1, status="no_execution", reason="tie", tied=["Bob", "Cid", "Dee"]),
     "[GM] Nobody was executed: a tie between Bob, Cid and Dee."),
    (h.ResultHeard(day=1, status="no_execution", reason="no votes"),
     "[GM] Nobody was executed (no votes)."),
    (h.ResultHeard(day=1, status="no_murder"), "[GM] Nobody was murdered last night."),
    (h.ResultHeard(day=2, status="spared", target="Lu", reason="Idiot"),
     "[GM] Lu was voted out but lives: an Idiot, who votes no more."),
    (h.ResultHeard(day=2, status="shot", target="Ann", by="Kim"),
     "[GM] Kim was a Hunter and shot Ann."),
    (h.Revealed(day=0, what="save", target="Eve", value="attacked"),
     "[GM] Tonight the werewolves attack Eve: /save Eve, /poison NAME, or let it be."),
    (h.PhaseBegan(day=0, phase="witch"), "[GM] Night 0: the Witch's turn."),
    (h.PhaseBegan(day=1, phase="hunt"),
     "[GM] You are dead, Hunter: /shoot NAME takes one player with you."),
    (h.Revealed(day=1, what="divine", target="Bob", value="human"),
     "[GM] Your divination: Bob is human."),
    (h.Revealed(day=1, what="medium", target="Cid", value="werewolf"),
     "[GM] Your reading: Cid was werewolf."),
    (h.Revealed(day=1, what="role", target="Bob", value="Werewolf"),
     "[GM] Bob was a Werewolf."),
    (h.RoleDealt(role="Werewolf", pack=["Ann", "Fay"]),
     "[GM] You are a Werewolf (the pack: Ann, Fay)."),
    (h.Died(day=2, cause="murdered"), "[GM] You were murdered on day 2."),
    (h.PhaseBegan(day=2, phase="day", vote_round=1), "[GM] Day 2, day (revote)."),
    (h.PhaseBegan(day=2, phase="day", votes="closed"),
     "[GM] Day 2, day: talk first; the votes open once everyone has spoken or passed."),
    (h.PhaseBegan(day=2, phase="day", votes="opened"), "[GM] Day 2: the votes are open."),
    (h.RoundBegan(round=1, rounds=2, players=["Ann", "Bob"]),
     "[GM] Round 1 of 2 starts with 2 players: Ann, Bob."),
    (h.GameEnded(winner=None, reason="day limit reached"),
     "[GM] The game is over: nobody won (day limit reached)."),
    (h.GameEnded(winner="werewolves", reason="no villager lives",
                 roles={"Ann": "Werewolf", "Bob": "Villager"}, points={"Ann": 1, "Bob": 0}),
     "[GM] The game is over: werewolves won (no villager lives).\n"
     "     Who was who, and the points of the round:\n"
     "     Ann  Werewolf  1 point\n"
     "     Bob  Villager  0 points"),
    (h.Notice(text="Refused: Bob is dead"), "[GM] Refused: Bob is dead"),
]


@pytest.mark.parametrize("record,line", CASES, ids=[type(r).__name__ for r, _ in CASES])
def test_every_heard_record_has_its_words(record, line):
    assert render.heard(record) == line
    # and it crosses the wire as itself
    assert h.HEARD.validate_json(record.model_dump_json()) == record


def test_every_kind_of_record_is_rendered():
    kinds = typing.get_args(typing.get_args(h.Heard)[0])
    assert {type(r) for r, _ in CASES} == set(kinds)
    # every kind of private result has its words
    from maw.protocol import messages as m

    shipped = {"divine", "medium", "role", "blocked", "guard", "save"}  # (convert's)
    assert set(render.REVEALED) == shipped
    # and one a registered action sends is said too
    assert render.heard(h.Revealed(day=1, what="sniff", target="Bob", value="wet")) == \
        "[GM] sniff: Bob is wet."
    assert m.Reveal(day=1, kind="sniff", target="Bob", value="wet").kind == "sniff"
    with pytest.raises(TypeError, match="not a heard record"):
        render.heard("Bob: hi")
