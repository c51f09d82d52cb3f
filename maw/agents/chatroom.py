"""ChatRoomAgent: the Village (by day) or the Hideout (by night).

FSM (design document §3.7.1): Setup -> Open <-> Close. While open it takes a chat only
from a living member, asks the GameMaster (the engine) whether the chat is legal, logs it,
pushes it to every reader at once and serves unread messages by index. Closing archives
the phase's log to disk.

Both ways of reading are used: the push is what a person's terminal and page and a model
see at once; a player also pulls (``get_new_messages`` from the index it has read to),
before each question to its interface, which tells the room what it has read and gives it
any line it missed. As the document's service model says, the lines every reader has read
are then purged from the room's log (written to its archive first), so a long phase's
log holds only what someone has still to read. Replies always go to the member's
registered JID, never to the claimed sender, so a forged request reveals nothing.

The rooms hear the results, as the document's interaction model says (AnnounceVoteResult,
AnnounceWinningTeam; AnnounceScores in the Lobby room): the GameMaster's ``vote_result``,
``end_game``, ``scores`` and a narrating moderator's ``narration`` become announcement
lines of the room's log (speaker "GM"), in
its archive with the chat, so the rooms alone tell the whole game. Players heard them from
the GameMaster already: announcements are not pushed to them.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from spade.behaviour import FSMBehaviour, State
from spade.message import Message

from maw.agents.base import GameLog, MawAgent
from maw.agents.toolkit import Awaiting
from maw.agents.transport import FirstIn, bare, of_types
from maw.protocol import messages as m

ROOM_TYPES = ("open_room", "close_room", "chat", "chat_verdict", "get_new_messages",
              "vote_result", "end_game", "scores", "narration")
ANNOUNCEMENTS = (m.VoteResult, m.EndGame, m.Scores, m.Narration)


def announcement_text(body: m.Body) -> str:
    """An announcement line's text, as a player would read it."""
    from maw.protocol import heard as h
    from maw.protocol import render

    if isinstance(body, m.VoteResult):
        return render.heard(h.ResultHeard(day=body.day, status=body.status,
                                          target=body.target, tied=list(body.tied),
                                          reason=body.reason, by=body.by,
                                          order=list(body.order)))
    if isinstance(body, m.EndGame):
        return render.heard(h.GameEnded(winner=body.winning_team, reason=body.reason))
    if isinstance(body, m.Narration):
        return render.heard(h.Narrated(day=body.day, text=body.text, summary=body.summary))
    assert isinstance(body, m.Scores)
    board = ", ".join(f"{n} {p}" for n, p in body.leaderboard)
    return f"[GM] Scores after round {body.round} of {body.rounds}: {board}."


class ChatRoomAgent(MawAgent):
    def __init__(self, jid: str, password: str, room_name: str, gamemaster: str,
                 game_log: GameLog, archive_dir: Path | None = None, port: int = 5222) -> None:
        super().__init__(jid, password, port=port)
        self.room_name = room_name
        self.gamemaster = gamemaster
        self.game_log = game_log
        self.archive_dir = archive_dir
        self.writers: dict[str, str] = {}
        self.readers: dict[str, str] = {}
        self.chat_log: list[m.ChatLine] = []
        self.base = 0  # index of chat_log[0]: indices keep growing across phases
        self.read: dict[str, int] = {}  # reader -> the index it has read up to (pulls)
        self.day = 0
        self.round = 1
        # the chats the GameMaster is asked about: (speaker, text, the speaker's thread)
        self.checks: Awaiting[tuple[str, str, str | None]] = Awaiting()
        self.stopping = False
        self.is_open = False
        # the GameMaster's commands and verdicts before the players' chats
        self.inbox = FirstIn(lambda msg: bare(msg.sender) == self.gamemaster)

    async def setup(self) -> None:
        fsm = FSMBehaviour()
        fsm.add_state("Setup", SetupState(), initial=True)
        fsm.add_state("Open", OpenState())
        fsm.add_state("Close", CloseState())
        fsm.add_transition("Setup", "Open")
        fsm.add_transition("Open", "Close")
        fsm.add_transition("Close", "Open")
        self.fsm = fsm
        self.add_behaviour(fsm, of_types(*ROOM_TYPES))
        self.add_catch_all(ROOM_TYPES)

    def member(self, jid: str, pool: dict[str, str]) -> str | None:
        return next((n for n, j in pool.items() if j == jid), None)

    def announce(self, body: m.Body) -> None:
        """Log the GameMaster's announcement of a result; a closed room archives it at
        once (its phase's log was archived when it closed)."""
        if isinstance(body, (m.EndGame, m.Scores)):
            self.round = body.round
        day = getattr(body, "day", self.day)
        self.chat_log.append(m.ChatLine(
            index=self.base + len(self.chat_log), speaker="GM", day=day,
            text=announcement_text(body), announcement=body.model_dump()))
        if not self.is_open:
            self.archive()
            self.base += len(self.chat_log)
            self.chat_log.clear()

    def archive(self, lines: list[m.ChatLine] | None = None) -> None:
        """Append ``lines`` (the whole log by default) to the phase's archive file."""
        lines = self.chat_log if lines is None else lines
        if self.archive_dir is None or not lines:
            return
        self.archive_dir.mkdir(parents=True, exist_ok=True)
        path = self.archive_dir / f"round{self.round}-day{self.day}-{self.room_name}.jsonl"
        with path.open("a", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line.model_dump()) + "\n")

    def pulled(self, name: str, since: int) -> None:
        """Reader ``name`` has read every line before ``since``: the lines every reader
        has read leave the log, archived first (design document, Table 12)."""
        self.read[name] = max(self.read.get(name, 0), since)
        if not self.readers:
            return
        low = min(self.read.get(n, self.base) for n in self.readers)
        count = min(low - self.base, len(self.chat_log))
        if count > 0:
            self.archive(self.chat_log[:count])
            del self.chat_log[:count]
            self.base += count


class RoomState(State):
    @property
    def room(self) -> ChatRoomAgent:
        return self.agent

    async def next_message(self) -> tuple[Message, m.Body, str]:
        """The next message that decodes (others get not-understood), and its sender."""
        while True:
            got = await self.room.receive_body(self, 60, self.room.inbox)
            if got is not None:
                return got[0], got[1], bare(got[0].sender)

    async def serve_messages(self) -> None:
        """Handle messages (``handle``) until one of them changes the state; a message
        whose handling raises is logged and refused, and the room goes on."""
        while True:
            msg, body, sender = await self.next_message()
            try:
                if await self.handle(msg, body, sender):
                    return
            except Exception as exc:
                await self.room.handler_failed(self, msg, exc)

    async def handle(self, msg: Message, body: m.Body, sender: str) -> bool:
        """Handle one message; ``True`` when the room changes state."""
        raise NotImplementedError

    async def answer_open(self, body: m.OpenRoom, thread: str | None) -> None:
        room = self.room
        room.writers, room.readers = dict(body.writers), dict(body.readers)
        room.day, room.round = body.day, body.round
        room.is_open = True
        await room.send_body(self, room.gamemaster, m.Agree(ref="open"), thread)
        announce = m.AnnounceOpen(room_name=room.room_name, players=sorted(room.writers),
                                  day=body.day)
        await room.send_bodies(self, list(room.readers.values()), announce)


class ClosedState(RoomState):
    """Closed: refuse every chat, wait for the GameMaster to open the room."""

    async def run(self) -> None:
        await self.serve_messages()
        self.set_next_state("Open")

    async def handle(self, msg: Message, body: m.Body, sender: str) -> bool:
        room = self.room
        # (the GameMaster is an authority of the room: what claims to come from it is
        # proven, maw.protocol.proof)
        if isinstance(body, m.OpenRoom) and sender == room.gamemaster:
            await self.answer_open(body, msg.thread)
            return True
        elif isinstance(body, m.CloseRoom) and sender == room.gamemaster:
            await room.send_body(self, room.gamemaster, m.Agree(ref="close"), msg.thread)
        elif isinstance(body, ANNOUNCEMENTS) and sender == room.gamemaster:
            room.announce(body)
        elif isinstance(body, m.Chat):
            await room.send_body(self, sender, m.Refuse(
                reason=f"the {room.room_name} is closed"), msg.thread)
        elif isinstance(body, m.GetNewMessages):
            name = room.member(sender, room.readers)
            if name is not None:
                room.pulled(name, body.since)
                await room.send_body(self, room.readers[name], m.NewMessages(
                    room_name=room.room_name, messages=[], next=room.base))
        return False


class SetupState(ClosedState):
    """Closed until the GameMaster opens the room for the first time."""


class OpenState(RoomState):
    """Take chats from living members; the engine (via the GameMaster) has the last word."""

    async def run(self) -> None:
        await self.serve_messages()
        self.set_next_state("Close")

    async def handle(self, msg: Message, body: m.Body, sender: str) -> bool:
        room = self.room
        if isinstance(body, m.CloseRoom) and sender == room.gamemaster:
            await room.send_body(self, room.gamemaster, m.Agree(ref="close"), msg.thread)
            return True
        elif isinstance(body, m.OpenRoom) and sender == room.gamemaster:
            await self.answer_open(body, msg.thread)  # a new phase, still open
        elif isinstance(body, ANNOUNCEMENTS) and sender == room.gamemaster:
            room.announce(body)
        elif isinstance(body, m.Chat):
            await self.chat(body, sender, msg.thread)
        elif isinstance(body, m.ChatVerdict) and sender == room.gamemaster:
            await self.verdict(body, sender)
        elif isinstance(body, m.GetNewMessages):
            name = room.member(sender, room.readers)
            if name is not None:
                await self.serve(room.readers[name], body.since)
                room.pulled(name, body.since)
        return False

    async def chat(self, body: m.Chat, sender: str, thread: str | None) -> None:
        room = self.room
        name = body.player or room.member(sender, room.writers)
        if name is None or room.writers.get(name) != sender:
            # not a living member of this room (or a forged sender): refuse, to the sender
            await room.send_body(self, sender, m.Refuse(
                reason=f"only living members may speak in the {room.room_name}"), thread)
            return
        ref = secrets.token_hex(6)
        room.checks.open(ref, room.gamemaster, (name, body.message, thread))
        await room.send_body(self, room.gamemaster, m.ChatCheck(
            room=room.room_name, player=name, token=body.token, message=body.message, ref=ref,
            stamp=body.stamp))

    async def verdict(self, body: m.ChatVerdict, sender: str) -> None:
        room = self.room
        asked = room.checks.answer(body.ref, sender, body)
        if asked is None:
            return
        try:
            await self._verdict(body, asked)
        finally:
            if body.ack:  # (pushed: what the line changed may now be told)
                await room.send_body(self, room.gamemaster, m.Agree(ref="chat"), body.ack)

    async def _verdict(self, body: m.ChatVerdict, asked: tuple) -> None:
        room = self.room
        name, text, thread = asked
        jid = room.writers.get(name) or room.readers.get(name)
        if not body.ok:
            if jid:
                await room.send_body(self, jid, m.Refuse(reason=body.reason), thread)
            return
        line = m.ChatLine(index=room.base + len(room.chat_log), speaker=name, text=text,
                          day=room.day)
        room.chat_log.append(line)
        if jid:
            await room.send_body(self, jid, m.Agree(ref="chat"), thread)
        push = m.NewMessages(room_name=room.room_name, messages=[line], next=line.index + 1)
        await room.send_bodies(self, list(room.readers.values()), push)

    async def serve(self, jid: str, since: int) -> None:
        room = self.room
        lines = [ln for ln in room.chat_log if ln.index >= since]
        nxt = room.base + len(room.chat_log)
        await room.send_body(self, jid, m.NewMessages(room_name=room.room_name,
                                                      messages=lines, next=nxt))


class CloseState(ClosedState):
    """Archive and clear the phase's log, then wait, closed, to open again."""

    async def on_start(self) -> None:
        room = self.room
        room.is_open = False
        room.archive()
        room.base += len(room.chat_log)
        room.chat_log.clear()
        for name, _text, thread in room.checks.drain():  # verdicts that never came
            if name in room.writers:
                await room.send_body(self, room.writers[name],
                                     m.Refuse(reason=f"the {room.room_name} is closed"),
                                     thread)
        room.writers = {}
