"""What a player knows of its game, round by round: a plain class, no XMPP.

The :class:`~maw.agents.player.PlayerAgent` is one (its News behaviour hands every
message of the GameMaster and the rooms to :meth:`Knowledge.take`); a test feeds one the
messages themselves. It starts a round on whichever of start_game, assign_role and
phase_change comes first and keeps nothing of the last; it holds the role and pack, the
phase's view, options and deadline, what each room has said, the results; and it notes
everything the player learnt (:class:`~maw.protocol.heard.Heard`) for its interface, in
order.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from maw.agents.toolkit import Changes, Deadline
from maw.engine import ACTIONS
from maw.protocol import heard as h
from maw.protocol import messages as m
from maw.protocol import render
from maw.protocol.heard import Heard, View


class Knowledge:
    """A player's knowledge of its game (see the module docstring)."""

    def __init__(self, push_news: bool = False) -> None:
        self.push_news = push_news  # send each line to the interface at once (a person)
        self.news: list[Heard] = []
        self.news_ready = asyncio.Event()
        self.seat_name: str | None = None
        self.role: str | None = None
        self.pack: list[str] = []
        self.status = "alive"
        self.round = 0
        self.rounds = 0  # how many the game has (0: not told yet)
        self.view: View | None = None
        self.options: list[m.Option] = []
        # how many phase_changes have set the options: an agreement's options, older
        # than one that came while it was on its way, must not replace them
        self.offers = 0
        self.deadline = Deadline()  # the current phase's end
        self.unread: list[Heard] = []
        self.seen: dict[str, int] = {}  # room -> next chat index
        self.changes = Changes()  # grows whenever something new arrives
        self.round_over = False
        self.final = False
        self.results: list[m.EndGame] = []
        self.last_note: Heard | None = None
        self.stamp = ""
        self.roles: list[str] = []  # the role of each round
        self.announced = 0  # the last round whose start the player noted
        self.on_line: Callable[[str], None] | None = None

    @property
    def game_over(self) -> bool:
        """Has the player learnt that the game is over (the final scores, or the end of
        its last round)?"""
        return self.final or (self.rounds > 0 and any(
            r.round >= self.rounds for r in self.results))

    def take(self, body: m.Body) -> bool:
        """Learn from one message of the GameMaster or a room; False if it tells a player
        nothing."""
        take = TAKE.get(type(body))
        if take is None:
            return False
        return take(self, body) is not False

    @property
    def version(self) -> int:
        return self.changes.version

    def poke(self) -> None:
        self.changes.poke()

    def agreed(self, action: m.Body) -> None:
        """The GameMaster agreed to the player's ``action``: a vote (one whose news is a
        VoteCast: a day's vote, its withdrawal, a wolf's attack) stands in the view at
        once. Its news comes after the agreement, and the interface is asked again as
        soon as the agreement arrives: asked with a view that does not show its own vote,
        a decider votes again, and again (6 votes a day by one player, seen over XMPP)."""
        spec = ACTIONS.get(getattr(action, "type", ""))
        if spec is not None and spec.result == "VoteCast" and self.view is not None \
                and self.seat_name is not None:
            self.view = with_vote(self.view, self.seat_name, getattr(action, "target", None))

    def begin_round(self, number: int) -> bool:
        """Start round ``number`` if it is new. The start of a round reaches the player by
        several behaviours (start_game, assign_role, phase_change), in any order: whichever
        comes first starts it, and nothing of the last round survives."""
        if number <= self.round:
            return False
        self.round, self.round_over, self.status = number, False, "alive"
        self.options, self.seen, self.view, self.last_note = [], {}, None, None
        self.stamp = ""
        self.role, self.pack = None, []
        return True

    def note(self, record: Heard) -> None:
        """Something the player learnt: for its interface's next get_input, and for
        ``on_line`` (a terminal, a test) at once, in words."""
        self.unread.append(record)
        if self.on_line is not None:
            self.on_line(render.heard(record))
        if self.push_news:
            self.news.append(record)
            self.news_ready.set()

    def hear(self, record: Heard) -> None:
        self.note(record)
        self.poke()

    def seconds_left(self) -> float:
        return self.deadline.left()

    def next_state(self) -> str:
        if self.round_over:
            return "Lobby"
        if self.status == "dead" and not self.options:  # (a Hunter who died may shoot)
            return "Dead"
        # options without a view: the round has begun, its first phase is yet to come
        return "Awake" if self.options and self.view else "Asleep"


# ---------------------------------------------------------------- each message, taken


def _start(k: Knowledge, body: m.StartGame) -> None:
    """A round starts (the FSM's Lobby state waits for it too)."""
    k.begin_round(body.round)
    k.rounds = body.rounds
    if body.round == k.round and k.announced < body.round:
        k.announced = body.round
        k.note(h.RoundBegan(round=body.round, rounds=body.rounds,
                                players=list(body.players)))


def _role(k: Knowledge, body: m.AssignRole) -> None:
    """The role for this round; the player is alive again."""
    k.begin_round(body.round)
    if body.round != k.round:
        return  # a late message of an earlier round
    k.role, k.pack, k.status = body.role, list(body.pack), "alive"
    k.roles.append(body.role)
    k.note(h.RoleDealt(role=body.role, pack=list(body.pack)))


def _kill(k: Knowledge, body: m.Kill) -> None:
    k.status = "dead"
    k.options = []
    k.note(h.Died(day=body.day, cause=body.cause))


def _phase(k: Knowledge, body: m.PhaseChange) -> None:
    k.begin_round(body.round)
    if body.round != k.round:
        return  # a late message of an earlier round
    k.view, k.options, k.stamp = body.view, list(body.options), body.stamp
    k.offers += 1
    k.deadline.set(body.seconds)
    votes = "" if body.view.votes_open else "closed"
    last = k.last_note
    if votes == "" and isinstance(last, h.PhaseBegan) and last.votes == "closed" and \
            (last.day, last.phase, last.vote_round) == (body.day, body.new_phase,
                                                        body.vote_round):
        votes = "opened"
    note = h.PhaseBegan(day=body.day, phase=body.new_phase, vote_round=body.vote_round,
                        votes=votes)
    if note != k.last_note:
        k.last_note = note
        k.note(note)


def _end(k: Knowledge, body: m.EndGame) -> None:
    k.results.append(body)
    k.note(h.GameEnded(winner=body.winning_team, reason=body.reason,
                           roles=dict(body.roles), points=dict(body.points)))


def _narrated(k: Knowledge, body: m.Narration) -> None:
    k.note(h.Narrated(day=body.day, text=body.text, summary=body.summary))


def _scores(k: Knowledge, body: m.Scores) -> None:
    if body.round < k.round:
        return  # the next round has already begun
    k.round_over = True
    k.final = body.final
    k.options = []


def _away(k: Knowledge, body: m.Away) -> None:
    if body.round != k.round:
        return  # (of an earlier round)
    turns = "a turn" if body.phases == 1 else f"{body.phases} turns in a row"
    k.note(h.Notice(text="You are back: your seat is yours again." if body.back else
                    f"You let {turns} pass without a move, so a {body.decider} player "
                    "plays your seat from the next phase on. Any move of yours (a vote, "
                    "a line, /pass) takes it back."))


def _score_board(k: Knowledge, body: m.ScoreBoard) -> None:
    k.note(h.ScoresShown(round=body.round, rounds=body.rounds, done=body.done,
                         leaderboard=[tuple(x) for x in body.leaderboard]))


def _said(k: Knowledge, body: m.NewMessages) -> bool:
    """The lines not heard yet; False if there was none (a pull's answer, most often:
    nothing to ask the interface about again)."""
    seen = k.seen.get(body.room_name, 0)
    new = False
    for line in body.messages:
        if line.announcement is not None:  # (the GameMaster told it already)
            seen = max(seen, line.index + 1)
            continue
        if line.index >= seen:
            k.note(h.Said(room=body.room_name, speaker=line.speaker, text=line.text,
                              day=line.day))
            seen, new = line.index + 1, True
    k.seen[body.room_name] = seen
    return new


def _opened(k: Knowledge, body: m.AnnounceOpen) -> None:
    k.note(h.RoomOpened(room=body.room_name, players=list(body.players)))


def _vote(k: Knowledge, body: Any) -> None:  # an m.VoteCast
    # keep the view's current votes fresh: a decider that does not see its own vote
    # keeps switching between its two best choices
    if k.view is not None and k.view.day == body.day:
        k.view = with_vote(k.view, body.voter, body.target)
    k.note(h.VoteHeard(day=body.day, vote=body.kind, voter=body.voter,
                           target=body.target))


def _result(k: Knowledge, body: m.VoteResult) -> None:
    k.note(h.ResultHeard(day=body.day, status=body.status, target=body.target,
                             tied=list(body.tied), reason=body.reason, by=body.by,
                             order=list(body.order)))


def _whispered(k: Knowledge, body: m.PrivateLine) -> None:
    k.note(h.WhisperHeard(speaker=body.speaker, to=k.seat_name or "you",
                              text=body.text, day=body.day))


def _reveal(k: Knowledge, body: m.Reveal) -> None:
    k.note(h.Revealed(day=body.day, what=body.kind, target=body.target, value=body.value))


# (each learns from its message; one that returns False learnt nothing new)
TAKE: dict[type, Callable[[Knowledge, Any], bool | None]] = {
    m.StartGame: _start, m.AssignRole: _role, m.Kill: _kill, m.PhaseChange: _phase,
    m.EndGame: _end, m.Scores: _scores, m.NewMessages: _said, m.AnnounceOpen: _opened,
    m.VoteCast: _vote, m.VoteResult: _result, m.Reveal: _reveal, m.PrivateLine: _whispered,
    m.Narration: _narrated, m.ScoreBoard: _score_board, m.Away: _away,
}


def with_vote(view: View, voter: str, target: str | None) -> View:
    """``view`` with ``voter``'s current vote changed (or withdrawn: ``None``)."""
    votes = dict(view.votes)
    if target is None:
        votes.pop(voter, None)
    else:
        votes[voter] = target
    return dataclasses.replace(view, votes=votes)
