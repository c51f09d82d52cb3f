"""The GameMaster's game: its seats, the engine's state, the phase's timer, the stand-ins,
and what it tells whom (design document §3.6). :class:`Moderator` is the agent without
its behaviours; :class:`maw.agents.gamemaster.GameMasterAgent` adds them (the FSM's states
in ``maw.agents.gamemaster_fsm``, the Referee in ``maw.agents.referee``), which drive it
through what is here: it sits below both, so that neither imports the other.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
import time
from collections.abc import Awaitable, Callable

from spade.behaviour import CyclicBehaviour

from maw import engine
from maw.agents.base import GameLog, MawAgent
from maw.agents.narration import Narration
from maw.agents.seats import STAND_IN_ACTIONS, GameConfig, Occupant, StandIn
from maw.agents.toolkit import Awaiting, Changes, Deadline
from maw.agents.transport import bare
from maw.engine import events as ev
from maw.engine.dayflow import flow_of
from maw.engine.resolution import NOBODY
from maw.errors import MawError
from maw.protocol import convert
from maw.protocol import messages as m
from maw.protocol.proof import new_key

UNKNOWN = "unknown player or wrong token"
# the phases whose actors are a role's secret (the pack, the Seer, the Witch, a Hunter)
SECRET_ACTORS = frozenset({engine.Phase.WHISPER, engine.Phase.NIGHT, engine.Phase.WITCH,
                           engine.Phase.HUNT})
ROOM_REPLIES = ("agree", "refuse")
ROOM_ANSWER_SECONDS = 30.0  # how long the GameMaster waits for a room to open or close


class Moderator(MawAgent):
    """See the module docstring."""

    def __init__(self, jid: str, password: str, config: GameConfig, village: str,
                 hideout: str, game_log: GameLog, port: int = 5222,
                 on_event: Callable[[object], None] | None = None,
                 lobby_room: str | None = None, narration: Narration | None = None) -> None:
        super().__init__(jid, password, port=port)
        # the narrating moderator (a roster's [moderator]), or None: the templates alone
        self.narration = narration
        self.config = config
        self.rooms = {engine.Room.VILLAGE: village, engine.Room.HIDEOUT: hideout}
        self.lobby_room = lobby_room  # hears each round's winner and the scores
        self.game_log = game_log
        self.on_event = on_event or (lambda e: None)
        self.seats: dict[str, Occupant] = {}
        self.lobby_open = True
        self.lobby_full = asyncio.Event()
        self.changes = Changes()  # poked whenever a phase may have become decided
        self.aborting: str | None = None  # the host asked to end the game (why)
        self.offline: set[str] = set()  # players from elsewhere whose client went offline
        self.state: engine.GameState | None = None
        self.round = 0
        self.board = engine.Leaderboard()
        self.idle: set[str] = set()
        # persons who said /ready: done for the phase until they act again (news does
        # not wake them, as it wakes an idle AI player)
        self.ready: set[str] = set()
        self.deadline = Deadline()
        self.room_open: dict[engine.Room, bool] = {r: False for r in self.rooms}
        self.room_answers: Awaiting[engine.Room] = Awaiting()
        self.outcomes: list[engine.Outcome] = []
        self.error: BaseException | None = None
        self.done = asyncio.Event()
        self.history: list[engine.Event] = []  # this round's events (for a stand-in)
        self.stand_ins: dict[str, StandIn] = {}  # seats a substitute decider plays
        self.began: tuple[tuple, float] = ((), 0.0)  # ((round, day, phase), when it began)
        self.refused: set[tuple[str, str, str]] = set()  # joins refused: (sender, name, why)
        # the names of the host's own players -> their addresses: a name no one else
        # takes, whoever comes to the lobby first
        self.reserved: dict[str, str] = {}
        # a private revote going on: (the stamp before it, who may know of it)
        self.hidden: tuple[str, frozenset[str]] | None = None
        # awaited once when a timer passes, before it ends the phase or opens the votes: a
        # replay waits there for the answers its recording had by then (maw.records.model_calls)
        self.hold: Callable[[tuple[int, int, str], str], Awaitable[None]] | None = None

    async def held(self, step: str) -> bool:
        """A timer has passed (or, with ``early_end``, every actor is idle), to end the
        phase (``step`` "end") or open the day's votes ("votes"): await ``hold`` (once a
        phase and step), ``True`` if it was awaited (a move it let in may have changed the
        phase: look again)."""
        s = self.state
        if self.hold is None or step in self.deadline.held or s is None:
            return False
        self.deadline.held.add(step)
        await self.hold((self.round, s.day, s.phase.value), step)
        return True

    def abort(self, why: str) -> None:
        """End the game now, nobody winning (``maw game --aiwolf``: too many AIWolf agents
        in error, as aiwolf-nlp-server ends it); ``why`` goes to the log."""
        if self.aborting is None:
            self.aborting = why
            self.game_log.write("aborted", why=why)
            self.changes.poke()

    def bounced(self, jid: str) -> None:
        self.gone_away(jid, "bounced")

    def _unavailable(self, jid: str, info, last) -> None:
        """The server says a player's client went offline (presence unavailable: its
        connection closed or was lost; the GameMaster follows each player's presence)."""
        client = bare(jid).split("/")[0]
        self.offline.add(client)
        self.gone_away(client, "offline")

    def gone_away(self, jid: str, why: str) -> None:
        if self.done.is_set():  # (the last round is over: leaving now is no news)
            return
        for seat in self.seats.values():
            if seat.jid == jid and not seat.gone:
                seat.gone = True
                self.game_log.write("gone", player=seat.name, jid=jid, why=why)
                self.substitute(seat.name)
                self.changes.poke()  # a phase need not wait for it any more

    def all_left(self) -> bool:
        """Has every seated player from outside the host gone offline (after the end,
        a client leaves once it has the final scores)?"""
        return all(seat.jid in self.offline for seat in self.seats.values()
                   if seat.jid not in self.trusted)

    def follow_presence(self) -> None:
        """Follow the presence of each seated player from outside the host (the host's
        own go only with it), to learn at once when its client goes offline. Asked once
        the round has begun: asked as a player joined, the request raced the round's
        first messages, and a person's client lost its start of the round."""
        for seat in self.seats.values():
            if seat.jid not in self.trusted and not seat.followed:
                seat.followed = True
                self.presence.subscribe(seat.jid)

    def substitute(self, name: str) -> None:
        """With ``config.substitute``, a stand-in decider takes over the seat of ``name``
        from the next phase on; it learns what the player could have (the events of the
        round whose audience it was in), never more."""
        s = self.state
        if self.config.substitute is None or s is None or s.is_over or \
                name in self.stand_ins:
            return
        from maw.policies import make_decider

        decider = make_decider(self.config.substitute, name, random.Random(
            f"{self.config.seed}:{self.round}:stand-in:{name}"))
        for e in self.history:
            if e.audience is None or name in e.audience:
                decider.observe(e)
        self.stand_ins[name] = StandIn(decider, self.stamp(), rng=random.Random(
            f"{self.config.seed}:{self.round}:stand-in-pace:{name}"))
        self.game_log.write("substituted", player=name, decider=self.config.substitute,
                            round=self.round, day=s.day, phase=s.phase.value)

    def returned(self, name: str) -> bool:
        """The player acts again (its client is back, or it idled and is back at the
        table): its seat is its own again. True if a stand-in played it."""
        seat = self.seats.get(name)
        if seat is not None:
            seat.gone = False
            seat.missed = 0
        if self.stand_ins.pop(name, None) is not None:
            self.game_log.write("returned", player=name, round=self.round)
            return True
        return False

    def phase_began(self) -> None:
        """Note when the engine's phase now on began (once: the votes opening, or the
        next speaker's turn, is the same phase)."""
        s = self.state
        if s is not None and self.began[0] != (self.round, s.day, s.phase):
            self.began = ((self.round, s.day, s.phase), time.monotonic())

    def idled(self) -> list[str]:
        """The phase now on has run to its timer: each seat the rules awaited a move from
        (it may act, and not only talk) and which sent nothing since the phase began
        missed one more phase in a row (one that moved starts again). With
        ``config.idle_phases`` and a stand-in to play, those that missed that many are
        away from now on, as a gone player is: the stand-in plays their seat from the
        next phase, until they move again. Returns them.

        Only a phase in which everyone knows who is awaited counts: a day's talk and
        votes, a sheriff's election, a speaker's turn, a dead player's last words. A
        night's choices and a hidden step are a role's: a seat taken as away at a night's
        end, or sooner for a night it let pass, would tell the table (the observer's page
        shows who is away) that it is a wolf or a Witch. A silent wolf still blocks its
        pack's kill in the nights before it is away."""
        s, limit = self.state, self.config.idle_phases
        if s is None or s.is_over or limit <= 0 or self.config.substitute is None or \
                self.hidden is not None or s.phase in SECRET_ACTORS:
            return []
        key, began = self.began
        if key != (self.round, s.day, s.phase):
            began = time.monotonic()  # (not noted: no move of this phase is missed)
        away = []
        for name in engine.actors(s):
            seat = self.seats.get(name)
            if seat is None or seat.gone or not any(
                    type(a) is not engine.Chat for a in engine.legal_actions(s, name)):
                continue
            seat.missed = seat.missed + 1 if seat.seen < began else 0
            if seat.missed >= limit:
                seat.gone = True
                self.game_log.write("gone", player=name, jid=seat.jid, why="idle")
                self.substitute(name)
                away.append(name)
        return away

    async def stand_ins_act(self, behaviour: CyclicBehaviour) -> bool:
        """Each stand-in that may act now (from the phase after it took over, and not
        idle) decides, as a player would on news; it never talks (a pass, where the talk
        must end). True if any acted."""
        acted = False
        pace = self.config.pace
        for name, stand_in in list(self.stand_ins.items()):
            s = self.state
            if s is None or s.is_over or stand_in.since == self.stamp() or \
                    name in self.idle or name not in engine.actors(s) or \
                    stand_in.acted.get(self.stamp(), 0) >= STAND_IN_ACTIONS or \
                    not stand_in.ready(self.marker(), pace, time.monotonic()):
                continue
            legal = tuple(a for a in engine.legal_actions(s, name)
                          if type(a) is not engine.Chat)
            self.idle.add(name)
            try:
                action = stand_in.decider.decide(engine.view(s, name), legal) \
                    if legal else None
            except Exception as exc:  # a broken decider must not end the game
                self.game_log.write("decider_error", player=name, error=repr(exc))
                continue
            if action is None:
                action = engine.listen_as(s, name)
            if action is None:
                continue
            stamp = self.stamp()
            stand_in.acted[stamp] = stand_in.acted.get(stamp, 0) + 1
            if pace is not None:
                stand_in.ready_at = time.monotonic() + stand_in.rng.uniform(*pace)
            before = self.marker()
            events = self.apply(action)
            self.wake(events, name)
            self.idle.add(name)
            await self.publish(behaviour, events, before)
            acted = True
        return acted

    def stand_ins_wait(self) -> float | None:
        """Seconds until the next stand-in's pace lets it act, if one waits."""
        now = time.monotonic()
        waits = [st.ready_at - now for st in self.stand_ins.values() if st.ready_at > now]
        return min(waits) if waits else None

    # ------------------------------------------------------------ the game state

    def marker(self) -> tuple:
        """Changes when the players' options change for everyone: a new phase, a revote,
        the day's votes opening (``votes_open=talk``), the next speaker's turn
        (werewolf-12)."""
        s = self.state
        return (self.round, s.day, s.phase, s.vote_round, s.ballot, s.turn) if s \
            else (self.round,)

    def wake(self, events: tuple[engine.Event, ...], actor: str) -> None:
        """Players who will hear of ``events`` may want to act again: not idle any more.
        (An Over reaches nobody, so it wakes nobody but the actor.)"""
        self.idle.discard(actor)
        for e in events:
            if type(e) is not ev.Overed:
                if e.audience is None:
                    self.idle.clear()
                    return
                self.idle -= e.audience

    def stamp(self) -> str:
        """Names the phase (the votes opening does not make a new one), and the turn in
        a day of turns (werewolf-12): a "listen" or an action chosen in the last speaker's
        turn is not taken for one in this."""
        return stamp_of(self.marker())

    def apply(self, action: engine.Action) -> tuple[engine.Event, ...]:
        """The one place the game state changes."""
        assert self.state is not None
        self.state, events = engine.play(self.state, action)
        self.game_log.write("action", round=self.round, action=type(action).__name__,
                            data=record_fields(action))
        for e in events:
            self.game_log.write("event", round=self.round, event=type(e).__name__,
                                data=record_fields(e))
            self.on_event(e)
        self.heard(events)
        return events

    def heard(self, events) -> None:
        """Keep the round's events, and tell each stand-in those it may know of."""
        self.history.extend(events)
        for name, stand_in in self.stand_ins.items():
            for e in events:
                if e.audience is None or name in e.audience:
                    stand_in.decider.observe(e)

    def seconds_left(self) -> float:
        return self.deadline.left()

    def phase_seconds(self) -> float:
        phase = self.state.phase if self.state else engine.Phase.DAY
        if phase in (engine.Phase.WHISPER, engine.Phase.NIGHT, engine.Phase.WITCH,
                     engine.Phase.HUNT):
            return self.config.night_seconds
        return self.config.day_seconds  # (the day, and werewolf-12's public steps)

    async def publish(self, behaviour: CyclicBehaviour, events: tuple[engine.Event, ...],
                      before: tuple) -> None:
        """Tell every player what it may learn of ``events``; open the next phase."""
        s = self.state
        assert s is not None
        everyone = list(self.seats)
        carry: dict = {}
        for e in events:
            for name, body in convert.event_messages(e, s.day, self.round, carry):
                if name is not None:
                    to = [name]
                else:
                    to = everyone if e.audience is None else [n for n in everyone
                                                              if n in e.audience]
                await self.send_bodies(behaviour, [self.seats[p].jid for p in to], body)
                if name is None and e.audience is None:
                    await self.announce(behaviour, body)
        if self.narration is not None:
            first = len(self.history) - len(events)  # (``apply`` kept them last)
            if first >= 0 and all(a is b for a, b in zip(self.history[first:], events,
                                                          strict=True)):
                self.narration.hear(self.round, s.day, list(enumerate(events, first)))
        now = self.marker()
        if now[:4] != before[:4]:
            audience = self._private_step(events, before)
            if audience is not None:
                await self.open_private(behaviour, audience, before)
            else:
                self.hidden = None
                await self.open_phase(behaviour)
        elif now != before:  # the day's votes opened, a turn passed: everyone's new options
            self.idle.clear()  # (a player idle a moment ago may act now)
            self.ready.clear()
            for name in self.seats:
                await self.send_options(behaviour, name)
        self.changes.poke()

    async def announce(self, behaviour: CyclicBehaviour, body: m.Body) -> None:
        """A public result to the rooms too (the document's AnnounceVoteResult and
        AnnounceWinningTeam; the scores go to the Lobby room): their logs hold the game."""
        if isinstance(body, m.VoteResult | m.EndGame):
            await self.send_bodies(behaviour, list(self.rooms.values()), body)
        if isinstance(body, m.EndGame | m.Scores) and self.lobby_room:
            await self.send_body(behaviour, self.lobby_room, body)

    async def open_phase(self, behaviour: CyclicBehaviour) -> None:
        """Open the right room for the new phase, then tell every player its options."""
        s = self.state
        assert s is not None
        self.idle.clear()
        self.ready.clear()
        self.deadline.set(self.phase_seconds())
        if s.is_over:
            for room in self.rooms:
                await self._set_room(behaviour, room, False)
            return
        self.game_log.write("timer", round=self.round, day=s.day, phase=s.phase.value,
                            seconds=self.phase_seconds())
        open_room = engine.open_room(s)  # the room the engine has open, if any
        # one room open at a time: the others are closed (each room says it is) before
        # it opens; at dawn the Village opened while the Hideout was still open
        for room in sorted(self.rooms, key=lambda room: room is open_room):
            await self._set_room(behaviour, room, room is open_room)
        for name in self.seats:
            await self.send_options(behaviour, name)

    def options_after(self, player: str, events: tuple, before: tuple) -> list[m.Option]:
        """The options to send ``player`` with the agreement to its move (an action, or a
        chat its room checked), ``events`` what the move made happen: what it may still
        do where the phase goes on, for it (a step only others may know of, such as the
        Witch told the pack's victim, leaves it in the phase as it was: a wolf may still
        talk in the Hideout); nothing where the move ended the phase, or began a step it
        is in, whose options come next. Left with the options it had, a Seer whose
        divination began the Witch's step was asked again with it still offered, and a
        candidate with its one speech made, and each was refused."""
        s = self.state
        if s is None:
            return []
        if self.marker() != before:
            hidden = self._private_step(events, before)
            if hidden is None or player in hidden:
                return []
        return convert.options(engine.legal_actions(s, player))

    def knows_step(self, player: str) -> bool:
        """May ``player`` know of the step now on (none is hidden, or it is one of its
        audience)? A ``phase_change`` names the phase: one sent to a player who may not
        know of a Witch's step would tell it of the step."""
        return self.hidden is None or player in self.hidden[1]

    @staticmethod
    def _private_step(events, before: tuple) -> frozenset[str] | None:
        """The audience of a step that only some may know of, if ``events`` opened one:
        the pack's attack revote, a Witch's or a Hunter's step (werewolf-12); else
        ``None``."""
        started = [e for e in events if type(e) is ev.PhaseStarted]
        if not started or started[-1].audience is None:
            return None
        return started[-1].audience

    async def open_private(self, behaviour: CyclicBehaviour, audience: frozenset[str],
                           before: tuple) -> None:
        """A step only ``audience`` may know of: its players get their new options (and a
        step of its own, its time); for everyone else the phase goes on as it was (no
        timer logged, nothing sent, their stamp still good), so nobody else learns of it
        by a message's arrival."""
        old = stamp_of(before)
        self.hidden = (self.hidden[0] if self.hidden else old, audience)
        s = self.state
        if s is not None and s.phase.value != before[2].value:  # a step, not a revote
            self.deadline.set(self.phase_seconds())
        self.idle -= audience
        for name in self.seats:
            if name in audience:
                await self.send_options(behaviour, name)

    def current(self, stamp: str | None, player: str) -> bool:
        """Is ``stamp`` the phase ``player`` knows of now (a player outside a private
        revote still knows the phase as it was before it)?"""
        if stamp == self.stamp():
            return True
        return self.hidden is not None and stamp == self.hidden[0] and \
            player not in self.hidden[1]

    async def refresh(self, behaviour: CyclicBehaviour) -> None:
        """Every player's options again (after a reconnection: what was sent while the
        server was away is lost)."""
        if self.state is not None and not self.state.is_over:
            for name in self.seats:
                await self.send_options(behaviour, name)

    async def send_options(self, behaviour: CyclicBehaviour, name: str) -> None:
        s = self.state
        assert s is not None
        view = engine.view(s, name)
        stamp = self.stamp()
        if self.hidden is not None and name not in self.hidden[1]:
            stamp = self.hidden[0]  # (a rejoin mid-revote: the phase as this player knows it)
        body = m.PhaseChange(stamp=stamp, round=self.round, day=s.day,
                             new_phase=s.phase.value, vote_round=view.vote_round, room=view.room,
                             seconds=round(self.seconds_left(), 2),
                             view=view,
                             options=convert.options(engine.legal_actions(s, name)))
        await self.send_body(behaviour, self.seats[name].jid, body)

    async def _set_room(self, behaviour: CyclicBehaviour, room: engine.Room, is_open: bool) -> None:
        s = self.state
        assert s is not None
        if not is_open and not self.room_open[room]:
            return
        ref = secrets.token_hex(4)
        if is_open:
            members = [n for n in s.names if room is engine.Room.VILLAGE or n in s.pack]
            body: m.Body = m.OpenRoom(
                day=s.day, round=self.round,
                writers={n: self.seats[n].jid for n in members if s.alive[s.seat[n]]
                         or s.seat[n] in s.speakers},  # (last words: the dead speak once)
                readers={n: self.seats[n].jid for n in members})
        else:
            body = m.CloseRoom()
        answer = self.room_answers.open(ref, self.rooms[room], room)
        await self.send_body(behaviour, self.rooms[room], body, thread=ref)
        # (a room is the host's own agent: one that says nothing in 30 s is broken; 5 s
        # once ended a game whose process a flood kept busy, on a loaded machine)
        if await self.room_answers.wait(answer, ref, timeout=ROOM_ANSWER_SECONDS) is None:
            raise MawError(f"the {room} room did not answer {body.type}")
        self.room_open[room] = is_open

    def score_board(self) -> m.ScoreBoard:
        """The points of the rounds over so far, every seated player's (``show_score``)."""
        points = dict.fromkeys(sorted(self.seats), 0) | dict(self.board.standings())
        board = sorted(points.items(), key=lambda item: (-item[1], item[0]))
        return m.ScoreBoard(round=self.round, rounds=self.config.rounds,
                            done=self.board.rounds, leaderboard=board)

    # ------------------------------------------------------------ who acts, and when

    def identify(self, player: str | None, token: str | None,
                 sender: str | None = None) -> Occupant | None:
        """The seat of ``player`` if ``token`` is its secret (and ``sender``, when given,
        its registered address): the one check of who an action comes from."""
        seat = self.seats.get(player or "")
        if seat is None or not token or (sender is not None and seat.jid != sender) or \
                not hmac.compare_digest(seat.token, token):
            return None
        seat.acted = True
        seat.seen = time.monotonic()
        return seat

    def not_now(self) -> str | None:
        return "no game is in progress" if self.state is None or self.state.is_over else None

    def too_late(self, stamp: str | None, player: str) -> str | None:
        """Why ``player``'s action stamped ``stamp`` (the phase it answers) comes too late,
        if it does: a vote sent as a day ended must not count in the next phase or round."""
        if stamp and not self.current(stamp, player):
            return "too late: that phase is over"
        return None

    # ------------------------------------------------------------ summary

    def absent(self) -> list[str]:
        """Players who never acted (nor said listen) in the last round, or whose client
        went offline."""
        return sorted(n for n, seat in self.seats.items() if not seat.acted or seat.gone)

    def waiting_for(self, actors) -> bool:
        """Is the phase still waiting for one of ``actors`` (not idle, not ready, not
        gone)?"""
        return any(a not in self.idle and a not in self.ready and not self.seats[a].gone
                   for a in actors)

    def all_voted_and_done(self) -> bool:
        """``ready_end``: the votes of the day are open, every living player who may vote
        has voted, and nobody who may act is still at it: the day is over, as its timer
        would end it."""
        s = self.state
        if s is None or s.is_over or not s.ballot or s.pending or \
                s.phase is not flow_of(s).vote_phase:
            return False
        voters = [i for i, alive in enumerate(s.alive) if alive and i not in s.exposed]
        if not voters or any(s.votes[i] == NOBODY for i in voters):
            return False
        return not self.waiting_for(engine.actors(s))


def stamp_of(marker: tuple) -> str:
    """A phase's stamp from its marker (``Moderator.marker``)."""
    turn = marker[5] if len(marker) > 5 else 0
    return ":".join(str(x) for x in marker[:4]) + (f":t{turn}" if turn else "")


def share_host_key(gm: Moderator, rooms: list[MawAgent]) -> None:
    """The GameMaster and its rooms share one key, made here, that never crosses the wire,
    and one table of keys (each player's is added as it joins): each takes control
    messages from the others only with their proof (``maw.protocol.proof``)."""
    key = new_key()
    for agent in (gm, *rooms):
        gm.keys[bare(agent.jid)] = key
    gm.authorities = {bare(room.jid) for room in rooms}
    for room in rooms:
        room.keys = gm.keys  # one table: the rooms sign to the players with their keys
        room.authorities = {bare(gm.jid)}


def record_fields(obj: object) -> dict:
    """An action or event as the log keeps it: its fields, sets sorted."""
    from dataclasses import fields, is_dataclass

    if is_dataclass(obj):
        out = {}
        for f in fields(obj):
            v = getattr(obj, f.name)
            out[f.name] = sorted(v) if isinstance(v, frozenset) else v
        return out
    return {}
