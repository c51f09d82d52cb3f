"""Tournament workers on other machines: ``maw worker --xmpp HOST:PORT --tournament NAME``
joins the tournament ``maw tournament --tournament NAME`` runs, through the XMPP server its
games are played on (ejabberd is the deployment).

The coordinator (``maw tournament``) logs in as the tournament's desk,
``maw-tournament-NAME@localhost``; a worker logs in under a fresh name and says it is
``ready``. The desk hands it orders (``maw.tournament.worker.Order``), one game at a time;
the worker plays each game on its own machine, with its log in its own ``--log-dir``,
measures and audits it there, and answers ``done`` with the metrics (the coordinator
keeps the one SQLite database). While it plays it says ``alive`` every ``PING`` seconds:
a worker silent for ``SILENT`` seconds is lost, and its game is played again by another.
When the tournament is over the desk says ``bye`` and the workers end.

Each message is one JSON object in a chat message's body, carrying the tournament's
``token``: a worker takes orders only from its tournament's desk with the token, and the
desk takes workers only with it (anyone may log in to an open server).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from spade.behaviour import CyclicBehaviour
from spade.message import Message

from maw.agents.base import MawAgent
from maw.agents.transport import bare
from maw.errors import ConfigError, MawError

PING = 2.0  # seconds between a playing worker's "alive"
SILENT = 15.0  # seconds without a word from a playing worker: it is lost
JOIN = 1.0  # seconds between a worker's "ready" until the desk welcomes it (one that came
# before its coordinator joins within a second of it: a tournament of quick games may be
# over in a few seconds)


def desk_jid(name: str, domain: str) -> str:
    """The desk of the tournament ``name``: a fixed JID its workers can find."""
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ConfigError(f"bad tournament name {name!r}: use letters, digits, - and _")
    return f"maw-tournament-{name.lower()}@{domain}"


class _Listen(CyclicBehaviour):
    async def run(self) -> None:
        msg = await self.receive(timeout=1)
        if msg is None:
            return
        agent = self.agent
        assert isinstance(agent, _Station)
        try:
            body = json.loads(msg.body or "")
        except ValueError:
            return
        if isinstance(body, dict) and hmac.compare_digest(str(body.get("token", "")),
                                                          agent.token):
            try:
                await agent.heard(bare(msg.sender), body)
            except Exception:  # (a message that breaks its handling ends nothing)
                agent.failures += 1


class _Station(MawAgent):
    """An agent that says and hears the tournament's JSON messages."""

    def __init__(self, jid: str, password: str, token: str, port: int = 5222) -> None:
        super().__init__(jid, password, port=port)
        self.token = token
        self.listen = _Listen()

    async def setup(self) -> None:
        self.add_behaviour(self.listen)

    async def tell(self, to: str, body: dict[str, Any]) -> None:
        await self.listen.send(Message(to=to, sender=bare(self.jid),
                                       body=json.dumps({**body, "token": self.token})))

    async def heard(self, sender: str, body: dict[str, Any]) -> None:
        raise NotImplementedError


class RemoteWorker:
    """A worker that joined the desk: it plays one order at a time (``Worker``'s
    interface in ``maw.tournament.runner``)."""

    def __init__(self, desk: Desk, jid: str, host: str) -> None:
        self.desk, self.jid, self.host = desk, jid, host
        self.answer: asyncio.Future | None = None
        self.last = time.monotonic()
        self.lost = False

    def __str__(self) -> str:
        return f"{self.host} ({self.jid})"

    async def start(self) -> None:
        return None  # it started itself, elsewhere

    async def play(self, order: dict, timeout: float) -> dict:
        """Hand ``order`` over and wait for its answer; ``EOFError``: the worker went
        silent (or away) meanwhile."""
        if self.lost:
            raise EOFError(f"the worker {self} is gone")
        self.answer = asyncio.get_running_loop().create_future()
        self.last = time.monotonic()
        await self.desk.tell(self.jid, {"type": "order", "order": order})
        end = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            wait = min(end, self.last + SILENT) - now
            if wait <= 0:
                self.lost = True
                raise EOFError(f"the worker {self} went silent for {SILENT:.0f} s"
                               if now < end else f"the worker {self} ran out of time")
            with contextlib.suppress(asyncio.TimeoutError):
                return await asyncio.wait_for(asyncio.shield(self.answer), wait)

    async def close(self) -> None:
        return None  # it ends itself, told ``bye`` (``Desk.dismiss``)


class Desk(_Station):
    """The coordinator's end: workers that join come out of ``joined``."""

    def __init__(self, name: str, domain: str, token: str, port: int = 5222) -> None:
        from maw.hosting.xmpp import stable_password

        jid = desk_jid(name, domain)
        super().__init__(jid, stable_password(jid), token, port)
        self.tournament = name
        self.workers: dict[str, RemoteWorker] = {}
        self.joined: asyncio.Queue[RemoteWorker] = asyncio.Queue()

    async def heard(self, sender: str, body: dict[str, Any]) -> None:
        kind = body.get("type")
        worker = self.workers.get(sender)
        if kind == "ready":
            if worker is None or worker.lost:
                worker = RemoteWorker(self, sender, str(body.get("host", "?"))[:80])
                self.workers[sender] = worker
                self.joined.put_nowait(worker)
            await self.tell(sender, {"type": "welcome"})
        elif worker is None:
            return
        elif kind == "alive":
            worker.last = time.monotonic()
        elif kind == "done" and worker.lost:  # only slow: its game went to another
            worker.lost = False
            self.joined.put_nowait(worker)
        elif kind == "done" and worker.answer is not None and not worker.answer.done():
            worker.last = time.monotonic()
            worker.answer.set_result(body.get("done") or {})

    async def dismiss(self) -> None:
        """The tournament is over: every worker may go (one taken for lost too: it may
        only have been slow)."""
        for jid in self.workers:
            with contextlib.suppress(Exception):
                await self.tell(jid, {"type": "bye"})


class Station(_Station):
    """A worker's end: the desk's orders come out of ``orders``."""

    def __init__(self, domain: str, desk: str, token: str, port: int = 5222) -> None:
        super().__init__(f"maw-worker-{secrets.token_hex(4)}@{domain}",
                         secrets.token_hex(8), token, port)
        self.desk = desk
        self.welcomed = asyncio.Event()
        self.orders: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def heard(self, sender: str, body: dict[str, Any]) -> None:
        if sender != self.desk:
            return
        kind = body.get("type")
        if kind == "welcome":
            self.welcomed.set()
        elif kind == "order" and isinstance(body.get("order"), dict):
            self.orders.put_nowait(body["order"])
        elif kind == "bye":
            self.orders.put_nowait(None)


async def work(xmpp: str, name: str, token: str, log_dir: Path, wait: float = 60.0,
               say: Callable[[str], None] = print) -> int:
    """``maw worker``: join the tournament ``name`` on the server ``xmpp``, play the games
    its desk hands over until it says ``bye``; the number of games played."""
    from maw.hosting.connect import bind_container, check_server, start_agents, stop_agents
    from maw.hosting.logins import Logins
    from maw.hosting.xmpp import parse_address
    from maw.tournament.worker import Order, play

    address = parse_address(xmpp)
    if address.embedded:
        raise ConfigError("maw worker joins a tournament through its server: --xmpp "
                          "HOST:PORT (the coordinator's, or ejabberd's)")
    desk = desk_jid(name, address.domain)
    check_server(address)
    bind_container()
    station = Station(address.domain, desk, token, address.port)
    await start_agents([station], address)
    logins = Logins()  # (its games' agents stay logged in from one game to the next)
    played = 0
    try:
        end = time.monotonic() + wait
        while not station.welcomed.is_set():
            if time.monotonic() > end:
                raise MawError(f"no tournament {name!r} took this worker at {xmpp} in "
                               f"{wait:.0f} s (is maw tournament --tournament {name} running, "
                               "with this token?)")
            await station.tell(desk, {"type": "ready", "host": socket.gethostname(),
                                      "pid": os.getpid()})
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(station.welcomed.wait(), JOIN)
        say(f"maw worker: joined the tournament {name} at {xmpp} as {station.jid}")
        while (data := await station.orders.get()) is not None:
            try:
                order = Order(**{**data, "xmpp": xmpp,
                                 "out": str(log_dir / f"game-{int(data['index']):05d}")})
            except (KeyError, TypeError, ValueError) as exc:
                say(f"maw worker: a bad order from the desk, skipped: {exc}")
                continue
            pinging = asyncio.create_task(_ping(station, order.index))
            try:
                done = await play(order, logins)
            finally:
                pinging.cancel()
            await station.tell(desk, {"type": "done", "done": asdict(done)})
            played += 1
            say(f"maw worker: game {order.index} " + ("done" if done.ok else
                                                      f"FAILED: {done.error}")
                + f" in {done.wall:.1f} s")
    finally:
        await logins.close()
        await stop_agents([station])
    return played


async def _ping(station: Station, index: int) -> None:
    while True:
        await asyncio.sleep(PING)
        with contextlib.suppress(Exception):
            await station.tell(station.desk, {"type": "alive", "index": index})
