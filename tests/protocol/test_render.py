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
     "[GM] Ann wants to attack Eve."),
    (h.VoteHeard(day=1, vote="divine", voter="Ann", target="Gus"), "[GM] Ann divines Gus."),
    (h.VoteHeard(day=1, vote="guard", voter="Ann", target="Gus"), "[GM] Ann guards Gus."),
    (h.ResultHeard(day=1, status="executed", target="Cid"), "[GM] Cid was executed."),
    (h.ResultHeard(day=1, status="executed", target="Cid", tied=["Bob", "Cid"],
                   reason="chance"),
     "[GM] Tie between Bob and Cid: chance picked Cid, who was executed."),
    (h.ResultHeard(day=1, status="murdered", target="Eve"), "[GM] Eve was found murdered."),
    (h.ResultHeard(day=1, status="revote", tied=["Bob", "Cid"]),
     "[GM] Tie between Bob and Cid: vote again."),
    (h.ResultHeard(day=1, status="revote", tied=["Bob", "Cid"], reason="runoff"),
     "[GM] Tie between Bob and Cid: vote again, between them alone."),
    (h.PhaseBegan(day=2, phase="order"),
     "[GM] Day 2: the sheriff chooses which neighbour speaks first (/first NAME)."),
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
    (h.Narrated(day=2, text="Dawn finds Bob dead."), "[Moderator] Dawn finds Bob dead."),
    (h.ScoresShown(round=1, rounds=2, done=0, leaderboard=[("Ann", 0), ("Bob", 0)]),
     "[GM] The scores, no round is over yet (points come at a round's end): Ann 0, Bob 0."),
    (h.ScoresShown(round=2, rounds=2, done=1, leaderboard=[("Bob", 3), ("Ann", 0)]),
     "[GM] The scores, after 1 of 2 round(s): Bob 3, Ann 0."),
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
    # (one that found nothing, as a guard learns only whom it guarded, says that much)
    assert render.heard(h.Revealed(day=1, what="heal", target="Bob", value="")) == \
        "[GM] You heal Bob."
    assert m.Reveal(day=1, kind="sniff", target="Bob", value="wet").kind == "sniff"
    with pytest.raises(TypeError, match="not a heard record"):
        render.heard("Bob: hi")


# the host's transcript (maw game, maw replay): werewolf-12's day as sentences
LINES = [
    ("VotesRevealed", {"day": 3, "kind": "execute", "vote_round": 0, "sheriff": "Jon",
                       "votes": [["Eve", "Jon"], ["Fay", "Eve"], ["Jon", "Eve"], ["Kim", "Eve"],
                                 ["Lou", "Jon"], ["Max", "Jon"]]},
     "   Day 3, the votes (the sheriff Jon's counts 1.5): Eve 3.5 (Fay, Jon, Kim); Jon 3 "
     "(Eve, Lou, Max)"),
    ("VotesRevealed", {"day": 3, "kind": "execute", "vote_round": 1, "sheriff": "Jon",
                       "votes": [["Eve", "Jon"], ["Fay", "Eve"]]},
     "   Day 3, the votes (revote): Eve 1 (Fay); Jon 1 (Eve)"),  # (the sheriff did not vote)
    ("Spared", {"day": 3, "player": "Eve", "role": "Idiot", "votes": 3.5},
     "** Eve is voted out (3.5 votes) but lives: an Idiot, who votes no more"),
    ("GameOver", {"day": 4, "winner": "village", "reason": "no werewolf lives",
                  "roles": [["Ann", "Seer"], ["Bob", "Werewolf"]]},
     "== Game over on day 4: village wins (no werewolf lives). Roles: Ann Seer, Bob Werewolf"),
    ("GameOver", {"day": 3, "winner": "werewolves", "reason": "no villager lives",
                  "roles": [["Bob", "Werewolf"]]},
     "== Game over on day 3: werewolves win (no villager lives). Roles: Bob Werewolf"),
    ("GameOver", {"day": 17, "winner": None, "reason": "day limit reached",
                  "roles": [["Bob", "Werewolf"]]},
     "== Game over on day 17: nobody wins, a draw (day limit reached). Roles: Bob Werewolf"),
    ("Executed", {"day": 3, "player": "Ivy", "votes": 8.5}, "** Ivy is executed (8.5 votes)"),
    ("Executed", {"day": 3, "player": "Ivy", "votes": 1}, "** Ivy is executed (1 vote)"),
    ("Executed", {"day": 3, "player": "Eve", "votes": 2, "drawn": ["Dee", "Eve"]},
     "** Eve is executed (2 votes): a tie between Dee and Eve, settled by chance"),
    ("VoteCast", {"day": 1, "kind": "sheriff", "voter": "Ann", "target": "Kim",
                  "audience": ["Ann"]}, "   Ann votes for Kim as sheriff (to Ann)"),
    ("SheriffElected", {"day": 1, "sheriff": "Fay", "votes": [["Bob", "Fay"], ["Cid", "Lou"],
                                                              ["Gus", "Fay"], ["Hal", "Eve"]]},
     "** Fay is elected sheriff with 2 votes (Bob, Gus); Eve 1 (Hal), Lou 1 (Cid)"),
    ("SheriffElected", {"day": 1, "sheriff": "Fay", "votes": []},
     "** Fay is elected sheriff unopposed"),
    ("SheriffElected", {"day": 1, "sheriff": "", "votes": [["Bob", "Fay"], ["Cid", "Lou"],
                                                          ["Dee", "Fay"], ["Eve", "Lou"],
                                                          ["Gus", "Ivy"]]},
     "** No sheriff is elected: a tie of 2 votes between Fay (Bob, Dee) and Lou (Cid, Eve); "
     "Ivy 1 (Gus)"),
    ("SheriffElected", {"day": 1, "sheriff": "", "votes": []},
     "** No sheriff is elected: nobody stood, or everyone did"),
    ("PhaseStarted", {"day": 1, "phase": "order", "vote_round": 0, "living": ["Ann", "Bob"]},
     "-- Day 1: the sheriff chooses which neighbour speaks first. Alive: Ann, Bob"),
    ("PhaseStarted", {"day": 1, "phase": "last_words", "vote_round": 0, "living": ["Ann"]},
     "-- Day 1: the dead say their last words. Alive: Ann"),
    ("PhaseStarted", {"day": 0, "phase": "witch", "vote_round": 0, "living": ["Ann"],
                      "audience": ["Kim"]}, "-- Night 0: the Witch's turn (to Kim). Alive: Ann"),
    ("PhaseStarted", {"day": 2, "phase": "vote", "vote_round": 1, "living": ["Ann"],
                      "candidates": ["Eve", "Jon"]},
     "-- Day 2, vote, once more (after a tie between Eve and Jon). Alive: Ann"),
    ("PhaseStarted", {"day": 1, "phase": "day", "vote_round": 0, "living": ["Ann", "Bob"]},
     "-- Day 1, day. Alive: Ann, Bob"),
    ("Revote", {"day": 2, "kind": "execute", "tied": ["Eve", "Jon"], "runoff": True},
     "** Tie between Eve and Jon: vote again, between them alone"),
    ("Revote", {"day": 2, "kind": "execute", "tied": ["Eve", "Jon"]},
     "** Tie between Eve and Jon: vote again"),
    ("SpeakingOrder", {"day": 1, "order": ["Gus", "Hal", "Fay"]},
     "   Today's speeches, one each, in turn: Gus, Hal, Fay"),
    ("BadgePassed", {"day": 2, "sheriff": "Fay", "target": ""},
     "** Fay tears the sheriff's badge: no sheriff from now on"),
    ("BadgePassed", {"day": 2, "sheriff": "Fay", "target": "Bob"},
     "** Fay passes the sheriff's badge to Bob"),
    ("Exploded", {"day": 2, "player": "Bob"},
     "** Bob explodes, a werewolf revealed: the day ends with no vote"),
    ("Acted", {"day": 0, "actor": "Kim", "action": "save", "target": "Kim", "audience": ["Kim"]},
     "   Kim saves Kim with the potion of life (to Kim)"),
    ("Acted", {"day": 1, "actor": "Kim", "action": "poison", "target": "Ann",
               "audience": ["Kim"]}, "   Kim poisons Ann (to Kim)"),
    ("RoleAssigned", {"player": "Ann", "role": "Werewolf", "pack": ["Ann", "Dee"]},
     "   Ann is a Werewolf (the pack: Ann, Dee)"),
]


@pytest.mark.parametrize("event,data,line", LINES, ids=[e for e, _d, _l in LINES])
def test_the_transcript_says_werewolf12_s_day_in_sentences(event, data, line):
    assert render.event_line(event, data) == line


def test_a_log_from_before_the_sheriff_s_weight_was_told_still_reads():
    """(a VotesRevealed logged before it named the sheriff: counted one each)"""
    line = render.event_line("VotesRevealed", {"day": 1, "kind": "execute", "vote_round": 0,
                                               "votes": [["Eve", "Jon"]]})
    assert line == "   Day 1, the votes: Jon 1 (Eve)"
