"""The Hall of a game server (``maw server``): the agent people talk to before a game, at
``maw-hall@DOMAIN``. It lists the games (``maw.server.tables``), creates them, seats
people, takes their ``ready``, and starts each game when it is due, telling each person
seated where its game's lobby is (``game_starts``); the server hosts the game
(``maw.server.host``). Every client that asked for the list is sent it again at each
change, until it goes offline: the Hall follows the presence of each (XMPP's own), so a
person whose client is gone loses their seat at an open table.

Each request and its answer is a record of the server's log (``hall``), with the sender.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from spade.behaviour import CyclicBehaviour
from spade.message import Message

from maw.agents.base import MawAgent
from maw.agents.guards import Guarded
from maw.agents.transport import bare, of_types
from maw.errors import MawError
from maw.protocol import messages as m
from maw.protocol.messages import Body
from maw.records.log import GameLog
from maw.server.room import join_room, say
from maw.server.tables import Table, Tables, listing

HALL_TYPES = ("list_games", "create_game", "join_game", "leave_game", "table_ready")
TICK = 0.25  # seconds between the Hall's looks at its tables' timers
# a client that has not let the Hall follow its presence this long after its first
# request is taken for gone: it went before it could (an "unavailable" then never comes),
# and its seats and its place in the list would stay for good
UNSEEN = 20.0


def hall_jid(domain: str) -> str:
    return f"maw-hall@{domain}"


class Requests(Guarded):
    """People's requests: each answered with the list (``games``) or a ``refuse``."""

    receive_timeout = 1.0

    async def handle(self, msg: Message, body: Body) -> None:
        hall: HallAgent = self.agent
        sender = bare(msg.sender)
        try:
            note = hall.apply(sender, body)
        except MawError as exc:
            hall.game_log.write("hall", sender=sender, type=body.type, ok=False,
                                reason=str(exc))
            await hall.send_body(self, sender, m.Refuse(reason=str(exc)), msg.thread)
            return
        if isinstance(body, m.CreateGame) and body.aiwolf:
            table = max(hall.tables.tables.values(), key=lambda t: t.id)
            try:
                await hall.prepare(table)
            except Exception as exc:  # (its AIWolf agents cannot connect: no table)
                hall.tables.tables.pop(table.id, None)
                why = f"no seats for AIWolf agents could be opened: {exc}"
                hall.game_log.write("hall", sender=sender, type=body.type, ok=False,
                                    reason=why)
                await hall.send_body(self, sender, m.Refuse(reason=why), msg.thread)
                return
            note += f"; AIWolf agents connect to {table.aiwolf_url}"
        hall.game_log.write("hall", sender=sender, type=body.type, ok=True, reason=note)
        if sender not in hall.watchers:
            hall.watchers[sender] = hall.clock()
            hall.presence.subscribe(sender)  # (to learn when its client goes)
        if note:
            hall.changed(note)
        else:  # (only the list asked for: to the asker alone)
            await hall.send_body(self, sender, m.Games(tables=hall.tables.listing(
                hall.clock())), msg.thread)


class Tick(CyclicBehaviour):
    """Starts the games that are due, and sends the list to every watcher at each change."""

    async def run(self) -> None:
        try:
            await self.tick()
        except Exception as exc:  # (SPADE ends a behaviour that raises: no game would start)
            await self.agent.handler_failed(self, None, exc)

    async def tick(self) -> None:
        hall: HallAgent = self.agent
        try:
            note = await asyncio.wait_for(hall.notes.get(), TICK)
        except asyncio.TimeoutError:
            note = None
        notes = [note] if note else []
        while not hall.notes.empty():
            notes.append(hall.notes.get_nowait())
        notes = [n for n in notes if n]
        hall.sweep()
        for table in hall.tables.tables.values():  # (closed by its timer, nobody seated)
            if table.state == "closed" and table.id in hall.prepared:
                hall.prepared.discard(table.id)
                await hall.release(table)
        for table in hall.tables.due(hall.clock()):
            for name, address in table.people.items():
                await hall.send_body(self, address, m.GameStarts(
                    game=table.id, lobby=table.lobby, player_name=name))
            notes.append(f"game {table.id} starts: {', '.join(sorted(table.people))}"
                         f" and {table.free} AI player(s)")
            hall.game_log.write("hall", sender=str(hall.jid), type="game_starts", ok=True,
                                reason=notes[-1])
            hall.begin(table)
        if notes and hall.watchers:
            await hall.send_bodies(self, sorted(hall.watchers), m.Games(
                tables=hall.tables.listing(hall.clock()), note="; ".join(notes)))
        if hall.room is not None:  # (its room: every change, and the list to who asks)
            if notes:
                say(hall, hall.room, "; ".join(notes))
            if hall.room_asked:
                hall.room_asked = False
                say(hall, hall.room, "\n".join(listing(hall.tables.listing(hall.clock()))))


class HallAgent(MawAgent):
    """The Hall: ``tables`` and who watches them; ``start`` hosts a table's game (a task
    of the server's; it calls ``finished`` at the end); ``seats`` opens a table's seats
    for AIWolf agents when it is created, and closes them (``None``: the table is done)."""

    def __init__(self, jid: str, password: str, tables: Tables,
                 start: Callable[[Table], Coroutine[Any, Any, None]], game_log: GameLog,
                 clock: Callable[[], float] = time.monotonic,
                 seats: Callable[[Table, bool], Coroutine[Any, Any, None]] | None = None
                 ) -> None:
        super().__init__(jid, password)
        self.tables = tables
        self.host_game = start
        self.seats = seats
        self.prepared: set[int] = set()  # tables whose AIWolf seats are open
        self.room: str | None = None  # its multi-user chat room (``maw.server.room``)
        self.room_asked = False  # someone there said /games
        self.game_log = game_log
        self.clock = clock
        self.watchers: dict[str, float] = {}  # client -> when it first asked
        self.followed: set[str] = set()  # clients whose presence the Hall follows
        self.notes: asyncio.Queue[str] = asyncio.Queue()
        self.games: set[asyncio.Task] = set()

    async def setup(self) -> None:
        self.presence.approve_all = False
        self.presence.on_unavailable = self._unavailable
        self.presence.on_subscribed = self._followed
        self.add_behaviour(Requests(), of_types(*HALL_TYPES))
        self.add_behaviour(Tick())
        self.add_catch_all(HALL_TYPES)

    def apply(self, sender: str, body: Body) -> str:
        """``body`` from ``sender`` applied to the tables: what changed, in a line ("":
        nothing, the list was asked for). ``MawError``: refused, why."""
        now, t = self.clock(), self.tables
        if isinstance(body, m.ListGames):
            return ""
        if isinstance(body, m.CreateGame):
            if body.aiwolf and self.seats is None:
                raise MawError("this server has no seats for AIWolf agents")
            table = t.create(sender, body.ruleset, body.players, body.fill, body.day_seconds,
                             body.night_seconds, body.wait_seconds, now, aiwolf=body.aiwolf)
            if body.player_name:
                try:
                    t.join(table.id, body.player_name, sender)
                except MawError:
                    del t.tables[table.id]
                    raise
            return (f"{body.player_name or sender.split('@')[0]} created game {table.id} "
                    f"({table.ruleset}, {table.players} players)")
        if isinstance(body, m.JoinGame):
            t.join(body.game, body.player_name, sender)
            return f"{body.player_name} joined game {body.game}"
        if isinstance(body, m.LeaveGame):
            names = [n for n, a in t.get(body.game).people.items() if a == sender]
            t.leave(body.game, sender)
            return f"{', '.join(names) or 'nobody'} left game {body.game}"
        if isinstance(body, m.TableReady):
            t.set_ready(body.game, sender, body.ready)
            names = [n for n, a in t.get(body.game).people.items() if a == sender]
            return f"{', '.join(names)} {'is' if body.ready else 'is not'} ready for " \
                   f"game {body.game}"
        raise MawError(f"the Hall does not handle {body.type}")

    async def open_room(self, domain: str) -> str | None:
        """Join the Hall's room where the server has rooms (``maw.server.room``)."""
        self.room = await join_room(self, domain, "Hall", self._room_said)
        return self.room

    def _room_said(self, nick: str, text: str) -> None:
        if text.strip().lower() in ("/games", "/list"):
            self.room_asked = True
            self.notes.put_nowait("")  # (the tick answers at once)

    async def prepare(self, table: Table) -> None:
        """Open ``table``'s seats for AIWolf agents (its ``aiwolf_url``)."""
        assert self.seats is not None
        await self.seats(table, True)
        self.prepared.add(table.id)

    async def release(self, table: Table) -> None:
        """Close them (the table closed before its game began)."""
        if self.seats is not None:
            await self.seats(table, False)

    def begin(self, table: Table) -> None:
        task: asyncio.Task = asyncio.get_running_loop().create_task(self.host_game(table))
        self.games.add(task)
        task.add_done_callback(self.games.discard)

    def changed(self, note: str) -> None:
        """Something changed (a game ended): every watcher is sent the list."""
        self.notes.put_nowait(note)

    def sweep(self) -> None:
        """Drop the clients that asked over ``UNSEEN`` seconds ago and never let the Hall
        follow their presence (the others go when they go offline)."""
        now = self.clock()
        for address, since in list(self.watchers.items()):
            if address not in self.followed and now - since >= UNSEEN:
                self._gone(address)

    def _followed(self, jid: str) -> None:
        self.followed.add(bare(jid).split("/")[0])

    def _unavailable(self, jid: str, info, last) -> None:
        self._gone(bare(jid).split("/")[0])

    def bounced(self, jid: str) -> None:
        """The server bounced the list sent to a client: it is not online (either server
        says so at once), so it is gone, whether or not the Hall followed its presence."""
        self._gone(bare(jid).split("/")[0])

    def _gone(self, address: str) -> None:
        self.watchers.pop(address, None)
        self.followed.discard(address)
        for table in self.tables.gone(address):
            self.changed(f"{address.split('@')[0]} went offline: its seat at game "
                         f"{table.id} is free")
