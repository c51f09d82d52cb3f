"""The GameMaster's answering behaviours: the Referee takes lobby joins and every player
action (who sent it, whether it is too late, what the engine says) and answers agree or
refuse; RoomReplies takes the rooms' answers to the GameMaster's questions."""

from __future__ import annotations

import secrets

from spade.message import Message

from maw import engine
from maw.agents.guards import Guarded
from maw.agents.moderator import UNKNOWN, Moderator, Occupant
from maw.agents.transport import bare
from maw.errors import IllegalActionError
from maw.protocol import convert
from maw.protocol import messages as m
from maw.protocol.proof import new_key

ROOM_PUSH_SECONDS = 2.0  # the longest a phase's news waits for the line that changed it
REFUSED_KEPT = 10_000  # the refused joins remembered (a flood of names forgets the oldest)


class RoomReplies(Guarded):
    async def handle(self, msg: Message, body: m.Body) -> None:
        gm: Moderator = self.agent
        gm.room_answers.answer(msg.thread, bare(msg.sender), body)


class Referee(Guarded):
    """Takes joins and actions; the engine judges; answers agree or refuse."""

    async def handle(self, msg: Message, body: m.Body) -> None:
        gm: Moderator = self.agent
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
        if isinstance(body, m.ShowScore):  # (at any time, from any seat: its token)
            seat = gm.identify(body.player, body.token, sender)
            await gm.send_body(self, seat.jid if seat else sender,
                               gm.score_board() if seat else m.Refuse(reason=UNKNOWN),
                               msg.thread)
            return
        assert isinstance(body, m.PlayerActionBase)  # (the rest of what it takes: actions)
        seat = gm.identify(body.player, body.token, sender)
        if seat is None:
            await gm.send_body(self, sender, m.Refuse(reason=UNKNOWN), msg.thread)
            return
        if seat.gone:
            await self._back(gm, seat)
        reason = gm.not_now()
        state = gm.state
        if reason is not None or state is None:
            await gm.send_body(self, seat.jid, m.Refuse(reason=reason or ""), msg.thread)
            return
        if isinstance(body, m.Listen):
            if not gm.current(body.stamp, seat.name):  # a listen from an earlier phase
                return
            before = gm.marker()
            events: tuple = ()
            move = engine.listen_as(state, seat.name)  # (a pass while the talk comes
            if move is not None:  # first; werewolf-12's speaker: its turn given up)
                events = gm.apply(move)
                gm.wake(events, seat.name)
            if gm.marker() == before:
                gm.idle.add(seat.name)
                if body.ready:  # a person's /ready: done until it acts again
                    gm.ready.add(seat.name)
            await gm.publish(self, events, before)
            return
        gm.ready.discard(seat.name)  # (it acts: not done after all)
        reason = gm.too_late(body.stamp, seat.name)
        if reason is not None:
            await gm.send_body(self, seat.jid, m.Refuse(reason=reason), msg.thread)
            return
        before = gm.marker()
        try:
            room = engine.open_room(state)
            action = convert.to_engine(body, seat.name, room.value if room else None)
            events = gm.apply(action)
        except IllegalActionError as exc:
            await gm.send_body(self, seat.jid, m.Refuse(reason=str(exc)), msg.thread)
            return
        gm.wake(events, seat.name)
        await gm.send_body(self, seat.jid, m.Agree(
            options=gm.options_after(seat.name, events, before)), msg.thread)
        await gm.publish(self, events, before)

    async def _back(self, gm: Moderator, seat: Occupant) -> None:
        """A gone or idle player moved: its seat is its own again (it is told, if a
        stand-in played it)."""
        if gm.returned(seat.name) and gm.config.substitute is not None:
            await gm.send_body(self, seat.jid, m.Away(round=gm.round, back=True,
                                                      decider=gm.config.substitute))

    async def _join(self, gm: Moderator, body: m.JoinLobby, sender: str,
                    thread: str | None) -> None:
        name = body.player_name
        reason = None
        seat = gm.seats.get(name)
        if seat is not None and seat.jid == sender:
            # the same client asking again (its first answer was slow, or it lost its
            # connection and is back): same seat, same token, and where the game is
            if gm.state is not None and not gm.state.is_over:
                gm.game_log.write("rejoined", player=name, jid=sender)
                if sender not in gm.trusted:
                    gm.presence.subscribe(sender)  # (a restarted server forgot it)
                if seat.gone:
                    await self._back(gm, seat)
            await self._welcome(gm, seat, thread)
            if gm.state is not None and not gm.state.is_over:
                await gm.send_options(self, name)
            return
        if not gm.lobby_open:
            reason = "the lobby is closed: a game is in progress"
        elif (holder := _holder(gm, name, sender)) is not None:
            # (names differ by more than case: "alice" beside "Alice" took votes meant
            # for one or the other, as a Hall's tables already refuse)
            reason = f"the name {name!r} is taken" + (
                f" ({holder!r} is at the table)" if holder != name else "")
        elif any(s.jid == sender for s in gm.seats.values()):
            reason = f"{sender} has already joined"
        if reason:
            # a refusal is said once to each request: the same request again (a client
            # that asks in a loop) is dropped, so no client can make the GameMaster
            # answer it forever
            asked = (sender, name, reason)
            if asked in gm.refused:
                return
            if len(gm.refused) >= REFUSED_KEPT:
                gm.refused.clear()
            gm.refused.add(asked)
            await gm.send_body(self, sender, m.Refuse(reason=reason), thread)
            return
        seat = Occupant(name=name, jid=sender, token=secrets.token_hex(16), key=new_key())
        gm.seats[name] = seat
        gm.keys[sender] = seat.key  # (the rooms share this dict: they sign with it too)
        gm.game_log.write("join", player=name, jid=sender)
        await self._welcome(gm, seat, thread)
        if len(gm.seats) >= gm.config.players:
            gm.lobby_open = False
            gm.lobby_full.set()

    async def _welcome(self, gm: Moderator, seat: Occupant, thread: str | None) -> None:
        rooms = {room.value: jid for room, jid in gm.rooms.items()}
        await gm.send_body(self, seat.jid, m.Joined(player_name=seat.name, token=seat.token,
                                                     joined=len(gm.seats),
                                                     expected=gm.config.players, rooms=rooms,
                                                     key=seat.key.hex()),
                           thread)

    async def _chat(self, gm: Moderator, body: m.ChatCheck, sender: str,
                    thread: str | None) -> None:
        room = next(r for r, jid in gm.rooms.items() if jid == sender)
        # (the room checked the sender is the member's address; the token proves the rest)
        seat = gm.identify(body.player, body.token)
        ok, reason = False, UNKNOWN
        if room.value != body.room:
            reason = f"the {room} asked about the {body.room}"
        elif seat is not None:
            reason = gm.not_now() or gm.too_late(body.stamp, seat.name) or ""
            if not reason:
                before = gm.marker()
                had = engine.legal_actions(gm.state, seat.name)  # type: ignore[arg-type]
                try:
                    events = gm.apply(engine.Chat(seat.name, room, body.message))
                    ok, reason = True, ""
                except IllegalActionError as exc:
                    reason = str(exc)
        ack = secrets.token_hex(4) if ok and gm.marker() != before else ""
        pushed = gm.room_answers.open(ack, sender, room) if ack else None
        await gm.send_body(self, sender, m.ChatVerdict(ref=body.ref, ok=ok, reason=reason,
                                                       ack=ack), thread)
        if pushed is not None:
            # the line reaches its readers before the news of what it changed (a person
            # read "the votes are open" and then the line that opened them); a room that
            # is slow to say so costs only that order
            await gm.room_answers.wait(pushed, ack, timeout=ROOM_PUSH_SECONDS)
        if ok:
            assert seat is not None  # (a verdict of ok is a seat's)
            if seat.gone:
                await self._back(gm, seat)
            gm.ready.discard(seat.name)
            gm.wake(events, seat.name)
            await gm.publish(self, events, before)
            if gm.marker() == before and gm.state is not None and gm.knows_step(seat.name) \
                    and engine.legal_actions(gm.state, seat.name) != had:
                # a speech that was its speaker's one (werewolf-12's campaign, last
                # words): its new options, from here (in order with the next phase's;
                # never to a wolf talking on through a Witch's step it may not know of)
                await gm.send_options(self, seat.name)


def _holder(gm: Moderator, name: str, sender: str) -> str | None:
    """The name at the table, or kept for a player hosted with the GameMaster, that
    ``name`` is, whatever its case; ``None`` if it is free (or kept for ``sender``)."""
    wanted = name.casefold()
    for other in gm.seats:
        if other.casefold() == wanted:
            return other
    for other, jid in gm.reserved.items():
        if other.casefold() == wanted and jid != sender:
            return other
    return None
