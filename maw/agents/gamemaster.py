"""GameMasterAgent: the lobby, the moderator and the only authority on the game state.

Its FSM (design document §3.6.1) is Setup -> AssignRoles -> DayPhase ->
DayPhaseVoteCount -> NightPhase -> NightPhaseVoteCount -> ... -> EndPhase (-> AssignRoles
for the next round). The states only sequence phases and run the timers: every rule is
the engine's. The Referee behaviour takes the lobby joins and every player action,
checks who sent it (a per-player secret token issued privately on joining, because
pyjabber lets a client forge its sender), lets the engine judge it, and answers ``agree``
or ``refuse`` with the reason.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from spade.behaviour import CyclicBehaviour, FSMBehaviour, State
from spade.message import Message

from maw import engine
from maw.agents.base import GameLog, Guarded, MawAgent, bare, of_types
from maw.agents.toolkit import Awaiting, Changes, Deadline
from maw.engine import events as ev
from maw.errors import IllegalActionError, MawError
from maw.protocol import convert
from maw.protocol import messages as m
from maw.protocol.heard import View
from maw.protocol.proof import new_key

# every action but chat (the rooms take chats) comes to the GameMaster, and "listen"
ACTIONS = tuple(name for name in m.ACTION_TYPES if name != "chat")
REFEREE_TYPES = ("join_lobby", "chat_check", *ACTIONS)
UNKNOWN = "unknown player or wrong token"
ROOM_REPLIES = ("agree", "refuse")


@dataclass
class GameConfig:
    """What a game is: size, rules, seed, rounds, timers, where logs go."""

    players: int = 6
    rules: engine.Ruleset = field(default_factory=lambda: engine.ruleset("maw"))
    seed: int = 1
    rounds: int = 1
    day_seconds: float = 30.0
    night_seconds: float = 15.0
    lobby_seconds: float = 120.0
    early_end: bool = True  # end a phase once everyone who may act has said "listen"
    log_dir: Path | None = None


@dataclass
class Seat:
    name: str
    jid: str
    token: str
    key: bytes = b""  # signs what the host sends this player (maw.protocol.proof)
    acted: bool = False
    gone: bool = False  # the server bounced a message to it: its client is offline


class GameMasterAgent(MawAgent):
    """See the module docstring."""

    def __init__(self, jid: str, password: str, config: GameConfig, village: str,
                 hideout: str, game_log: GameLog, port: int = 5222,
                 on_event: Callable[[object], None] | None = None) -> None:
        super().__init__(jid, password, port=port)
        self.config = config
        self.rooms = {engine.Room.VILLAGE: village, engine.Room.HIDEOUT: hideout}
        self.game_log = game_log
        self.on_event = on_event or (lambda e: None)
        self.seats: dict[str, Seat] = {}
        self.lobby_open = True
        self.lobby_full = asyncio.Event()
        self.changes = Changes()  # poked whenever a phase may have become decided
        self.state: engine.GameState | None = None
        self.round = 0
        self.board = engine.Leaderboard()
        self.idle: set[str] = set()
        self.deadline = Deadline()
        self.room_open: dict[engine.Room, bool] = {r: False for r in self.rooms}
        self.room_answers: Awaiting[engine.Room] = Awaiting()
        self.outcomes: list[engine.Outcome] = []
        self.error: BaseException | None = None
        self.done = asyncio.Event()

    async def setup(self) -> None:
        fsm = FSMBehaviour()
        names = ["Setup", "AssignRoles", "DayPhase", "DayPhaseVoteCount", "NightPhase",
                 "NightPhaseVoteCount", "EndPhase"]
        states = [SetupState(), AssignRolesState(), DayPhaseState(), VoteCountState(),
                  NightPhaseState(), VoteCountState(), EndPhaseState()]
        for i, (name, st) in enumerate(zip(names, states, strict=True)):
            fsm.add_state(name, st, initial=i == 0)
        for src, dests in {
            "Setup": ["AssignRoles"], "AssignRoles": ["DayPhase", "NightPhase", "EndPhase"],
            "DayPhase": ["DayPhaseVoteCount"],
            "DayPhaseVoteCount": ["NightPhase", "DayPhase", "EndPhase"],
            "NightPhase": ["NightPhaseVoteCount"],
            "NightPhaseVoteCount": ["DayPhase", "NightPhase", "EndPhase"],
            "EndPhase": ["AssignRoles"],
        }.items():
            for dest in dests:
                fsm.add_transition(src, dest)
        self.fsm = fsm
        self.add_behaviour(fsm)  # it receives nothing: it only sequences and times
        self.add_behaviour(Referee(), of_types(*REFEREE_TYPES))
        self.add_behaviour(RoomReplies(), of_types(*ROOM_REPLIES))
        self.add_catch_all(REFEREE_TYPES + ROOM_REPLIES)

    def bounced(self, jid: str) -> None:
        for seat in self.seats.values():
            if seat.jid == jid and not seat.gone:
                seat.gone = True
                self.game_log.write("gone", player=seat.name, jid=jid)
                self.changes.poke()  # a phase need not wait for it any more

    # ------------------------------------------------------------ the game state

    def marker(self) -> tuple:
        s = self.state
        return (self.round, s.day, s.phase, s.vote_round) if s else (self.round,)

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
        return ":".join(str(x) for x in self.marker())

    def apply(self, action: engine.Action) -> tuple[engine.Event, ...]:
        """The one place the game state changes."""
        assert self.state is not None
        self.state, events = engine.play(self.state, action)
        self.game_log.write("action", round=self.round, action=type(action).__name__,
                            data=_fields(action))
        for e in events:
            self.game_log.write("event", round=self.round, event=type(e).__name__,
                                data=_fields(e))
            self.on_event(e)
        return events

    def seconds_left(self) -> float:
        return self.deadline.left()

    def phase_seconds(self) -> float:
        phase = self.state.phase if self.state else engine.Phase.DAY
        if phase in (engine.Phase.DAY, engine.Phase.VOTE):
            return self.config.day_seconds
        return self.config.night_seconds

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
                for player in to:
                    await self.send_body(behaviour, self.seats[player].jid, body)
        if self.marker() != before:
            await self.open_phase(behaviour)
        self.changes.poke()

    async def open_phase(self, behaviour: CyclicBehaviour) -> None:
        """Open the right room for the new phase, then tell every player its options."""
        s = self.state
        assert s is not None
        self.idle.clear()
        self.deadline.set(self.phase_seconds())
        if s.is_over:
            for room in self.rooms:
                await self._set_room(behaviour, room, False)
            return
        open_room = engine.open_room(s)  # the room the engine has open, if any
        for room in self.rooms:
            await self._set_room(behaviour, room, room is open_room)
        for name in self.seats:
            await self.send_options(behaviour, name)

    async def send_options(self, behaviour: CyclicBehaviour, name: str) -> None:
        s = self.state
        assert s is not None
        view = engine.view(s, name)
        body = m.PhaseChange(stamp=self.stamp(), round=self.round, day=s.day,
                             new_phase=s.phase.value, vote_round=s.vote_round, room=view.room,
                             seconds=round(self.seconds_left(), 2),
                             view=View.of(view),
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
                writers={n: self.seats[n].jid for n in members if s.alive[s.seat[n]]},
                readers={n: self.seats[n].jid for n in members})
        else:
            body = m.CloseRoom()
        answer = self.room_answers.open(ref, self.rooms[room], room)
        await self.send_body(behaviour, self.rooms[room], body, thread=ref)
        if await self.room_answers.wait(answer, ref, timeout=5) is None:
            raise MawError(f"the {room} room did not answer {body.type}")
        self.room_open[room] = is_open

    # ------------------------------------------------------------ who acts, and when

    def identify(self, player: str | None, token: str | None,
                 sender: str | None = None) -> Seat | None:
        """The seat of ``player`` if ``token`` is its secret (and ``sender``, when given,
        its registered address): the one check of who an action comes from."""
        seat = self.seats.get(player or "")
        if seat is None or not token or (sender is not None and seat.jid != sender) or \
                not hmac.compare_digest(seat.token, token):
            return None
        seat.acted = True
        return seat

    def not_now(self) -> str | None:
        return "no game is in progress" if self.state is None or self.state.is_over else None

    def too_late(self, stamp: str | None) -> str | None:
        """Why an action stamped ``stamp`` (the phase it answers) comes too late, if it
        does: a vote sent as a day ended must not count in the next phase or round."""
        if stamp and stamp != self.stamp():
            return f"too late: that phase is over ({stamp}; now {self.stamp()})"
        return None

    # ------------------------------------------------------------ summary

    def absent(self) -> list[str]:
        """Players who never acted (nor said listen) in the last round, or whose client
        went offline."""
        return sorted(n for n, seat in self.seats.items() if not seat.acted or seat.gone)

    def waiting_for(self, actors) -> bool:
        """Is the phase still waiting for one of ``actors`` (not idle, not gone)?"""
        return any(a not in self.idle and not self.seats[a].gone for a in actors)


def share_host_key(gm: GameMasterAgent, rooms: list[MawAgent]) -> None:
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


def _fields(obj: object) -> dict:
    from dataclasses import fields, is_dataclass

    if is_dataclass(obj):
        out = {}
        for f in fields(obj):
            v = getattr(obj, f.name)
            out[f.name] = sorted(v) if isinstance(v, frozenset) else v
        return out
    return {}


class RoomReplies(Guarded):
    async def handle(self, msg: Message, body: m.Body) -> None:
        gm: GameMasterAgent = self.agent  # type: ignore[assignment]
        gm.room_answers.answer(msg.thread, bare(msg.sender), body)


class Referee(Guarded):
    """Takes joins and actions; the engine judges; answers agree or refuse."""

    async def handle(self, msg: Message, body: m.Body) -> None:
        gm: GameMasterAgent = self.agent  # type: ignore[assignment]
        sender = bare(msg.sender)
        if isinstance(body, m.JoinLobby):
            await self._join(gm, body, sender, msg.thread)
            return
        if isinstance(body, m.ChatCheck):
            if sender in gm.rooms.values():  # (proven: the rooms are its authorities)
                await self._chat(gm, body, sender, msg.thread)
            else:
                gm.game_log.write("refused", sender=sender, reason="chat_check not from a room")
            return
        seat = gm.identify(body.player, body.token, sender)
        if seat is None:
            await gm.send_body(self, sender, m.Refuse(reason=UNKNOWN), msg.thread)
            return
        seat.gone = False
        reason = gm.not_now()
        if reason is not None:
            await gm.send_body(self, seat.jid, m.Refuse(reason=reason), msg.thread)
            return
        if isinstance(body, m.Listen):
            if body.stamp == gm.stamp():  # a listen from an earlier phase means nothing now
                gm.idle.add(seat.name)
                gm.changes.poke()
            return
        reason = gm.too_late(body.stamp)
        if reason is not None:
            await gm.send_body(self, seat.jid, m.Refuse(reason=reason), msg.thread)
            return
        before = gm.marker()
        try:
            room = engine.open_room(gm.state)
            action = convert.to_engine(body, seat.name, room.value if room else None)
            events = gm.apply(action)
        except IllegalActionError as exc:
            await gm.send_body(self, seat.jid, m.Refuse(reason=str(exc)), msg.thread)
            return
        gm.wake(events, seat.name)
        if gm.marker() == before:
            await gm.send_body(self, seat.jid, m.Agree(options=convert.options(
                engine.legal_actions(gm.state, seat.name))), msg.thread)
        else:
            await gm.send_body(self, seat.jid, m.Agree(), msg.thread)
        await gm.publish(self, events, before)

    async def _join(self, gm: GameMasterAgent, body: m.JoinLobby, sender: str,
                    thread: str | None) -> None:
        name = body.player_name
        reason = None
        seat = gm.seats.get(name)
        if seat is not None and seat.jid == sender:
            # the same client asking again (its first answer was slow): same seat, same token
            await self._welcome(gm, seat, thread)
            return
        if not gm.lobby_open:
            reason = "the lobby is closed: a game is in progress"
        elif name in gm.seats:
            reason = f"the name {name!r} is taken"
        elif any(s.jid == sender for s in gm.seats.values()):
            reason = f"{sender} has already joined"
        if reason:
            await gm.send_body(self, sender, m.Refuse(reason=reason), thread)
            return
        seat = Seat(name=name, jid=sender, token=secrets.token_hex(16), key=new_key())
        gm.seats[name] = seat
        gm.keys[sender] = seat.key  # (the rooms share this dict: they sign with it too)
        gm.game_log.write("join", player=name, jid=sender)
        await self._welcome(gm, seat, thread)
        if len(gm.seats) >= gm.config.players:
            gm.lobby_open = False
            gm.lobby_full.set()

    async def _welcome(self, gm: GameMasterAgent, seat: Seat, thread: str | None) -> None:
        rooms = {room.value: jid for room, jid in gm.rooms.items()}
        await gm.send_body(self, seat.jid, m.Joined(player_name=seat.name, token=seat.token,
                                                     joined=len(gm.seats),
                                                     expected=gm.config.players, rooms=rooms,
                                                     key=seat.key.hex()),
                           thread)

    async def _chat(self, gm: GameMasterAgent, body: m.ChatCheck, sender: str,
                    thread: str | None) -> None:
        room = next(r for r, jid in gm.rooms.items() if jid == sender)
        # (the room checked the sender is the member's address; the token proves the rest)
        seat = gm.identify(body.player, body.token)
        ok, reason = False, UNKNOWN
        if room.value != body.room:
            reason = f"the {room} asked about the {body.room}"
        elif seat is not None:
            reason = gm.not_now() or gm.too_late(body.stamp) or ""
            if not reason:
                before = gm.marker()
                try:
                    events = gm.apply(engine.Chat(seat.name, room, body.message))
                    ok, reason = True, ""
                except IllegalActionError as exc:
                    reason = str(exc)
        await gm.send_body(self, sender, m.ChatVerdict(ref=body.ref, ok=ok, reason=reason),
                           thread)
        if ok:
            gm.wake(events, seat.name)  # type: ignore[union-attr]
            await gm.publish(self, events, before)


# ---------------------------------------------------------------- FSM states


class GMState(State):
    @property
    def gm(self) -> GameMasterAgent:
        return self.agent  # type: ignore[return-value]

    async def on_start(self) -> None:
        self.gm.game_log.write("state", agent="GameMaster", state=type(self).__name__[:-5],
                               round=self.gm.round)


class SetupState(GMState):
    """Wait until the expected number of players joined the lobby."""

    async def run(self) -> None:
        gm = self.gm
        try:
            await asyncio.wait_for(gm.lobby_full.wait(), gm.config.lobby_seconds)
        except asyncio.TimeoutError:
            raise MawError(f"only {len(gm.seats)} of {gm.config.players} players joined "
                           f"within {gm.config.lobby_seconds:.0f} s") from None
        self.set_next_state("AssignRoles")


class AssignRolesState(GMState):
    """Deal roles for a round, tell each player its role, open the first phase."""

    async def run(self) -> None:
        gm = self.gm
        gm.round += 1
        for seat in gm.seats.values():
            seat.acted = False
        # roles are dealt to the names in sorted order, not in the order they joined: the
        # same seed deals the same roles whatever the network did
        names = sorted(gm.seats)
        rng = random.Random(f"{gm.config.seed}:{gm.round}")
        gm.state = engine.new_game(gm.config.rules, names, rng)
        gm.game_log.write("round", round=gm.round, roles={n: r.name for n, r in zip(
            names, gm.state.roles, strict=True)}, ruleset=gm.config.rules.name)
        for e in engine.opening_events(gm.state):
            gm.game_log.write("event", round=gm.round, event=type(e).__name__,
                              data=_fields(e))
            gm.on_event(e)
        start = m.StartGame(total_players=len(names), players=names, round=gm.round,
                            rounds=gm.config.rounds, ruleset=gm.config.rules.name)
        for seat in gm.seats.values():
            await gm.send_body(self, seat.jid, start)
        for name, role in zip(names, gm.state.roles, strict=True):
            pack = sorted(gm.state.pack) if role.pack else []
            await gm.send_body(self, gm.seats[name].jid,
                               m.AssignRole(role=role.name, pack=pack, round=gm.round))
        await gm.open_phase(self)
        self.set_next_state(_next_fsm_state(gm))


def _next_fsm_state(gm: GameMasterAgent) -> str:
    s = gm.state
    assert s is not None
    if s.is_over:
        return "EndPhase"
    return "DayPhase" if s.phase in (engine.Phase.DAY, engine.Phase.VOTE) else "NightPhase"


class PhaseState(GMState):
    """Run engine phases until the FSM's part of the day is over: each phase ends by the
    rules (an action), by its timer, or when everyone who may act said "listen"."""

    parts: tuple[engine.Phase, ...] = ()
    count_state = ""

    async def run(self) -> None:
        gm = self.gm
        while gm.state is not None and not gm.state.is_over and gm.state.phase in self.parts:
            before = gm.marker()
            while gm.marker() == before:
                seen = gm.changes.version  # (before looking: no change can be missed)
                actors = engine.actors(gm.state)
                if gm.config.early_end and actors and not gm.waiting_for(actors):
                    break
                if not actors and gm.config.early_end:
                    break
                left = gm.seconds_left()
                if left <= 0:
                    break
                await gm.changes.wait(seen, left)
            if gm.marker() == before:
                events = gm.apply(engine.EndPhase())
                await gm.publish(self, events, before)
        self.set_next_state(self.count_state)


class DayPhaseState(PhaseState):
    parts = (engine.Phase.DAY, engine.Phase.VOTE)
    count_state = "DayPhaseVoteCount"


class NightPhaseState(PhaseState):
    parts = (engine.Phase.WHISPER, engine.Phase.NIGHT)
    count_state = "NightPhaseVoteCount"


class VoteCountState(GMState):
    """The vote was counted by the engine and announced; go on to what comes next."""

    async def run(self) -> None:
        self.set_next_state(_next_fsm_state(self.gm))


class EndPhaseState(GMState):
    """Score the round, announce the leaderboard; next round or the end."""

    async def run(self) -> None:
        gm = self.gm
        assert gm.state is not None
        out = engine.outcome(gm.state)
        assert out is not None
        gm.outcomes.append(out)
        winners = [n for n, r in out.roles.items()
                   if out.winner and engine.role_named(r).team is out.winner]
        gm.board.record(out.points, winners)
        final = gm.round >= gm.config.rounds
        gm.game_log.write("outcome", round=gm.round, winner=out.winner.value if out.winner
                          else None, reason=out.termination.value, day=out.day,
                          points=dict(out.points), roles=dict(out.roles), absent=gm.absent())
        scores = m.Scores(round=gm.round, rounds=gm.config.rounds,
                          leaderboard=gm.board.standings(), final=final)
        for seat in gm.seats.values():
            await gm.send_body(self, seat.jid, scores)
        if final:
            self.next_state = None  # SPADE keeps the last round's choice: end the FSM here
            gm.done.set()
        else:
            self.set_next_state("AssignRoles")
