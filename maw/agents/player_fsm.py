"""The PlayerAgent's FSM states (design document §3.2): GetName -> JoinLobby -> Lobby ->
Awake | Asleep | Dead (-> Lobby for a new round). While awake, whenever something new
arrived, the player asks its interface for input and forwards the action it gets."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from spade.behaviour import State

from maw.agents.base import bare
from maw.agents.player import PlayerAgent
from maw.errors import LobbyError
from maw.protocol import heard as h
from maw.protocol import messages as m


class PlayerState(State):
    @property
    def player(self) -> PlayerAgent:
        return self.agent  # type: ignore[return-value]

    async def on_start(self) -> None:
        p = self.player
        p.game_log.write("state", player=p.seat_name, state=type(self).__name__[:-5],
                         round=p.round)

    async def ask(self, to: str, body: m.Body, types: tuple[str, ...],
                  timeout: float, abandon: Callable[[], bool] | None = None
                  ) -> m.Body | None:
        """Send ``body`` and wait for the answer in the same thread (others are dropped);
        give up at ``timeout``, or as soon as ``abandon()`` says the question is moot."""
        p = self.player
        thread = secrets.token_hex(6)
        p.questions.open(thread, bare(to), body.type)
        await p.send_body(self, to, body, thread)
        end = time.monotonic() + timeout
        try:
            while (left := end - time.monotonic()) > 0:
                if abandon is not None and abandon():
                    # spare a model the work: its answer would be refused as too late
                    await p.send_body(self, to, m.Cancel(), thread)
                    return None
                msg = await self.receive(timeout=min(left, 0.25) if abandon else left)
                if msg is None:
                    continue
                # only the one asked may answer, in the thread of the question
                if msg.get_metadata("type") not in types or \
                        p.questions.answer(msg.thread, bare(msg.sender), msg) is None:
                    if msg.get_metadata("type") == "start_game":  # the Lobby state's
                        p.stash.append(msg)
                    continue
                reply = p.decode_or_none(msg)
                await p.flush_not_understood(self)
                if reply is not None:
                    return reply
                p.questions.open(thread, bare(to), body.type)  # (not an answer: still open)
            return None
        finally:
            p.questions.close(thread)

    async def wait_change(self, seen: int, timeout: float = 5.0) -> None:
        await self.player.changes.wait(seen, timeout)


class GetNameState(PlayerState):
    async def run(self) -> None:
        p = self.player
        note = p.unread[-1:] if p.unread else []
        reply = None
        for _ in range(720):  # ask again every 5 s (the interface may start later) up to 1 h
            reply = await self.ask(p.player_interface,
                                   m.GetInput(purpose="name", heard=note), ("name",),
                                   timeout=5)
            if isinstance(reply, m.NameChoice):
                break
        if not isinstance(reply, m.NameChoice):
            raise LobbyError("the player interface gave no name")
        p.seat_name = reply.name
        self.set_next_state("JoinLobby")


class JoinLobbyState(PlayerState):
    """Ask the GameMaster to join until it answers (it may not be up yet: keep asking for
    ``join_seconds``), or a name is refused."""

    async def run(self) -> None:
        p = self.player
        end = time.monotonic() + p.join_seconds
        while time.monotonic() < end:
            reply = await self.ask(p.gamemaster, m.JoinLobby(player_name=p.seat_name),
                                   ("joined", "refuse", "not_understood"),
                                   timeout=min(3.0, max(0.1, end - time.monotonic())))
            if isinstance(reply, m.Joined):
                p.token = reply.token
                if reply.rooms:
                    p.rooms = {room: bare(jid) for room, jid in reply.rooms.items()}
                if reply.key:
                    # from now on the GameMaster and the rooms are taken only with proof
                    key = bytes.fromhex(reply.key)
                    for jid in (p.gamemaster, *p.rooms.values()):
                        p.keys[jid] = key
                        p.authorities.add(jid)
                p.hear(h.Notice(text=f"Joined as {p.seat_name} ({reply.joined}/"
                                     f"{reply.expected}).", lobby=True))
                self.set_next_state("Lobby")
                return
            if isinstance(reply, m.Refuse):
                p.hear(h.Notice(text=reply.reason))
                if "taken" in reply.reason and p.rename:  # a person may choose another
                    self.set_next_state("GetName")
                    return
                raise LobbyError(f"could not join: {reply.reason}")
        raise LobbyError(f"the GameMaster {p.gamemaster} did not answer within "
                           f"{p.join_seconds:.0f} s: is the lobby up?")


class LobbyState(PlayerState):
    """Wait for the next round to start (or stop after the last)."""

    async def run(self) -> None:
        p = self.player
        if p.final:
            self.next_state = None  # SPADE keeps an earlier choice: end the FSM here
            return
        while True:
            # a start_game that came while the last question of a round was still open
            msg = p.stash.pop(0) if p.stash else await self.receive(timeout=1)
            if p.final:  # the GameMaster went away while we waited
                self.next_state = None
                return
            if msg is None or bare(msg.sender) != p.gamemaster:
                continue
            body = p.decode_or_none(msg)
            if isinstance(body, m.StartGame):
                p.begin_round(body.round)  # (the News behaviour notes it, in its order)
                break
        # wait for the first phase (the PhaseChange behaviour fills the options)
        while p.view is None or p.round_over:
            await self.wait_change(p.version, 1.0)
            if p.round_over and p.final:
                self.next_state = None
                return
            break
        self.set_next_state(p.next_state())


class AwakeState(PlayerState):
    """Whenever something new arrived: ask the interface, forward its action."""

    async def run(self) -> None:
        p = self.player
        asked = -1
        while p.next_state() == "Awake":
            if p.version == asked:
                await self.wait_change(asked)
                continue
            asked = p.version
            stamp = p.stamp
            heard, p.unread = p.unread, []
            request = m.GetInput(purpose="action", view=p.view, heard=heard,
                                 options=p.options, seconds=round(p.seconds_left(), 2),
                                 round=p.round)
            p.game_log.write("input", player=p.seat_name,
                             heard=[r.model_dump() for r in heard],
                             options=[o.model_dump() for o in p.options])
            types = tuple(m.ACTION_TYPES)
            # a new phase makes the question moot: ask again with the new options (a
            # person may take the whole phase to answer)
            reply = await self.ask(p.player_interface, request, types,
                                   timeout=max(1.0, p.seconds_left() + 1),
                                   abandon=lambda s=stamp: p.stamp != s
                                   or p.next_state() != "Awake")
            if reply is None or p.next_state() != "Awake":
                continue
            try:
                await self.forward(reply, stamp)
            except Exception as exc:  # one bad answer must not end the player
                await p.handler_failed(self, None, exc)
        self.set_next_state(p.next_state())

    async def forward(self, action: m.Body, stamp: str) -> None:
        p = self.player
        data = action.model_dump()
        data.update(player=p.seat_name, token=p.token, stamp=stamp)
        body = type(action).model_validate(data)
        if isinstance(body, m.Listen):
            await p.send_body(self, p.gamemaster, body)
            return
        if isinstance(body, m.Chat):
            room = p.view.room if p.view else None
            target = p.rooms.get(room or "")
            if target is None:
                p.hear(h.Notice(text="No room is open to you now."))
                return
            reply = await self.ask(target, body, ("agree", "refuse"), timeout=p.reply_seconds)
        else:
            reply = await self.ask(p.gamemaster, body, ("agree", "refuse"),
                                   timeout=p.reply_seconds)
        if isinstance(reply, m.Agree):
            if reply.options is not None:
                p.options = list(reply.options)
            p.poke()
        elif isinstance(reply, m.Refuse):
            p.hear(h.Notice(text=f"Refused: {reply.reason}"))


class AsleepState(PlayerState):
    """Alive with nothing to do (a villager at night): wait for the phase to change."""

    async def run(self) -> None:
        p = self.player
        while p.next_state() == "Asleep":
            await self.wait_change(p.version)
        self.set_next_state(p.next_state())


class DeadState(PlayerState):
    """An observer until the round ends (or the next one has already begun: its first
    messages can overtake the scores, and then the player goes straight back in)."""

    async def run(self) -> None:
        p = self.player
        while p.next_state() == "Dead":
            await self.wait_change(p.version)
        self.set_next_state(p.next_state())
