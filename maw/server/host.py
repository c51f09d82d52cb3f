"""A game server people drop into (``maw server``): an XMPP server (embedded, or one at
``--xmpp HOST:PORT`` such as ejabberd), its Hall (``maw.server.hall``), and the games the
Hall starts, several at once, each with its own GameMaster and rooms, hosted in this
process by ``maw.hosting.game.run_game`` as ``maw game --humans`` hosts one.

Each game's log goes to the archive folder the web page browses (``--log-dir``, one folder
a day); the server's own log (the Hall's requests, who sent them, what it sent) to
``server-DATE.jsonl`` beside them. A game that fails (its host raised) is marked
``failed`` with why, and the server goes on; the games already over are in the archive,
so a restart loses none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from maw.engine import ruleset
from maw.engine.state import NAMES
from maw.errors import MawError
from maw.hosting.connect import bind_container, start_agents, stop_agents
from maw.hosting.xmpp import Address, EmbeddedServer, free_port, stable_password
from maw.records.log import GameLog
from maw.server.hall import HallAgent, hall_jid
from maw.server.tables import Table, Tables

if TYPE_CHECKING:
    from maw.aiwolf.server import Seating

JOIN_SECONDS = 60.0  # how long a started game's lobby waits for the people seated


class TableWatch(Protocol):
    """Who follows the server's games as they are played (its web page: ``maw.web.hall``):
    ``listing`` is given the Hall's list once the Hall is up; ``begin`` a table whose game
    starts, returning the listener of that game's records; ``end`` the table, over, with
    its log's path (``None`` if it left none)."""

    def listing(self, tables: Callable[[], list]) -> None: ...

    def begin(self, table: Table) -> Callable[[dict], None]: ...

    def end(self, table: Table, log: Path | None) -> None: ...


def day_folder(log_dir: Path) -> Path:
    return log_dir / time.strftime("%Y-%m-%d")


async def host_table(table: Table, address: Address, log_dir: Path,
                     say: Callable[[str], None],
                     watch: Callable[[dict], None] | None = None,
                     agents: Seating | None = None) -> tuple[str, Path | None]:
    """Play ``table``'s game: its people join its lobby, its AIWolf agents are those seated
    at ``agents`` (its endpoint, open since the table was created), AI players of its
    ``fill`` take the other seats (``watch`` is given its records as they come). Returns
    who won, and its log's path."""
    from maw.hosting.game import run_game
    from maw.hosting.plan import GameRequest, plan_game

    request = GameRequest(players=table.players, rules=ruleset(table.ruleset),
                          seed=random.randrange(1 << 31),
                          xmpp=f"{address.host}:{address.port}", humans=len(table.people),
                          lobby=table.lobby, policy=table.fill, aiwolf=table.aiwolf,
                          day_seconds=table.day_seconds, night_seconds=table.night_seconds,
                          lobby_seconds=JOIN_SECONDS, log_dir=day_folder(log_dir))
    plan = await plan_game(request)
    taken = {n.lower() for n in [*table.people, *table.agents]}
    spare = (n for n in NAMES if n.lower() not in taken)
    for seat in plan.seats:  # (an AI player never takes a name a person chose)
        if seat.name.lower() in taken:
            seat.name = next(spare)
            taken.add(seat.name.lower())
    timeout = 60 * (table.day_seconds + table.night_seconds) + 600

    async def run(seats: list, on_gm=None):
        return await run_game(plan.config, seats, plan.address, remote=plan.joining,
                              lobby=plan.lobby, say=say, watch=watch, timeout=timeout,
                              on_gm=on_gm)
    if table.aiwolf and agents is not None:
        from maw.aiwolf.link import Limits
        from maw.hosting.aiwolf import with_aiwolf

        result = await with_aiwolf(run, plan.seats, table.aiwolf, "", 0, Limits(),
                                   JOIN_SECONDS, say, day_seconds=plan.config.day_seconds,
                                   seed=plan.config.seed, players=table.players,
                                   endpoint=agents)
    else:
        result = await run(plan.seats)
    winners = [o.winner for o in result.outcomes]
    return ", ".join(str(w or "nobody") for w in winners) + " won", result.log_path


async def serve(address: Address, log_dir: Path, stop: asyncio.Event,
                say: Callable[[str], None] = print,
                on_hall: Callable[[HallAgent], None] | None = None,
                watch: TableWatch | None = None, aiwolf_host: str = "127.0.0.1") -> None:
    """Run the server until ``stop`` is set: the embedded XMPP server if ``address`` is
    one, the Hall, and the games it starts (each followed by ``watch``, if given); a
    table's seats for AIWolf agents listen on ``aiwolf_host``, a port each."""
    bind_container()
    embedded = None
    if address.embedded:
        embedded = EmbeddedServer(address.port)
        await embedded.start()
        address = Address("localhost", address.port, False, address.domain)
    # SIGTERM and Ctrl-C end it through its finally (the games, the Hall, the server's
    # workers): set here, after pyjabber set its own
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    day_folder(log_dir).mkdir(parents=True, exist_ok=True)
    server_log = GameLog(day_folder(log_dir) / f"server-{time.strftime('%Y-%m-%d')}.jsonl")
    tables = Tables(prefix=f"t{secrets.token_hex(2)}")
    hall: HallAgent

    endpoints: dict[int, Seating] = {}  # each table's seats for AIWolf agents

    async def seats(table: Table, opening: bool) -> None:
        from maw.aiwolf.server import Endpoint

        if not opening:
            done = endpoints.pop(table.id, None)
            if done is not None:
                await done.stop()
            return

        def seated(line: str) -> None:  # (an agent took a seat: everyone at the Hall sees)
            table.agents[:] = [x.seat for x in endpoint.links]
            hall.changed(f"game {table.id}: {line}")
        # (its agents never take a person's name: the people seated when each comes)
        endpoint = Endpoint(aiwolf_host, free_port(), table.aiwolf,
                            reserved=table.people.keys(), say=seated)
        await endpoint.start()
        table.aiwolf_url = endpoint.url
        endpoints[table.id] = endpoint

    async def start(table: Table) -> None:
        log: Path | None = None
        hall.prepared.discard(table.id)
        try:
            table.result, log = await host_table(
                table, address, log_dir, say, watch.begin(table) if watch else None,
                endpoints.get(table.id))
            table.state = "finished"
        except (MawError, asyncio.TimeoutError, OSError) as exc:
            table.state, table.result = "failed", str(exc)[:300] or type(exc).__name__
        except Exception as exc:  # (a bug in one game: it alone fails)
            table.state, table.result = "failed", f"{type(exc).__name__}: {exc}"[:300]
        say(f"maw server: game {table.id} {table.state}: {table.result}")
        await seats(table, False)
        if watch is not None:
            watch.end(table, log)
        hall.changed(f"game {table.id} is over: {table.result}" if table.state == "finished"
                     else f"game {table.id} failed: {table.result}")

    jid = hall_jid(address.domain)
    hall = HallAgent(jid, stable_password(jid), tables, start, server_log, seats=seats)
    try:
        await start_agents([hall], address)
        # (pyjabber has no rooms: only another server, such as ejabberd, is asked)
        if embedded is None and await hall.open_room(address.domain):
            say(f"maw server: the Hall's room is {hall.room} (any XMPP client sees the "
                "games there; /games gives the list)")
        if on_hall is not None:
            on_hall(hall)
        if watch is not None:
            watch.listing(lambda: tables.listing(hall.clock()))
        say(f"maw server: the Hall is {jid}: people join with maw play --xmpp "
            f"{address.host}:{address.port} (no --lobby); games are archived in {log_dir}")
        await stop.wait()
    finally:
        for task in list(hall.games):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*hall.games, return_exceptions=True)
        for table_id in list(endpoints):
            with contextlib.suppress(Exception):
                await seats(tables.get(table_id), False)
        await stop_agents([hall])
        server_log.close()
        if embedded is not None:
            await embedded.stop()
