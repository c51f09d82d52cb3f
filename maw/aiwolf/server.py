"""MAW's AIWolf endpoint: ``ws://HOST:PORT/ws`` as aiwolf-nlp-server serves it
(``../shared/aiwolf-nlp-protocol.md`` §1): each agent that connects is asked its NAME,
and the first ``seats`` to answer take a seat (:class:`maw.aiwolf.link.Link`); the host
then plays them in one game and sends FINISH. A name already taken gets a number added
(its team stays the same); a connection that never answers NAME, or comes when every
seat is taken, is closed without a seat. The socket takes messages of at most
``Limits.max_message`` bytes: a larger one closes it (its agent in error).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator

from aiohttp import WSCloseCode, WSMsgType, web

from maw.aiwolf.link import DEFAULT_LIMITS, Limits, Link
from maw.errors import MawError
from maw.listen import listen

log = logging.getLogger("maw.aiwolf")
_SEAT = re.compile(r"[^A-Za-z0-9_\-]")


def seat_name(name: str, taken: Iterable[str]) -> str:
    """A MAW player name for an agent called ``name`` (1-20 of A-Z, digits, _ and -),
    not one of ``taken``."""
    base = _SEAT.sub("", name)[:17] or "agent"
    taken = {t.lower() for t in taken}
    if base.lower() not in taken:
        return base
    i = 2
    while f"{base}{i}".lower() in taken:
        i += 1
    return f"{base}{i}"


class Seating:
    """What MAW's AIWolf servers share: ``seats`` seats for the first agents to answer
    NAME (:meth:`seat`), and :meth:`gather`, which waits for them. ``reserved`` are names
    the other players of the game take (read at each seating: a server's table gives the
    names of the people seated so far)."""

    kind = "AIWolf agent"

    def __init__(self, host: str, port: int, seats: int, limits: Limits = DEFAULT_LIMITS,
                 reserved: Iterable[str] = (), say: Callable[[str], None] = lambda s: None
                 ) -> None:
        self.host, self.port, self.seats, self.limits = host, port, seats, limits
        self.reserved: Iterable[str] = reserved if not isinstance(reserved, Iterator) \
            else list(reserved)
        self.say = say
        self.links: list[Link] = []
        self.full = asyncio.Event()

    @property
    def url(self) -> str:
        raise NotImplementedError

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    async def gather(self, timeout: float) -> list[Link]:
        """The seated agents, once all ``seats`` have joined; ``MawError`` after
        ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self.full.wait(), timeout)
        except TimeoutError:
            raise MawError(f"{len(self.links)} of {self.seats} AIWolf agent(s) joined at "
                           f"{self.url} in {timeout:.0f} s") from None
        return list(self.links)

    def seat(self, name: str, send_text: Callable[[str], object],
             close: Callable[[], object]) -> Link:
        """A seat for the agent called ``name``: its link."""
        link = Link(name, send_text, close, self.limits)
        link.seat = seat_name(name, [*self.reserved, *(x.seat for x in self.links)])
        self.links.append(link)
        self.say(f"{self.kind} {name!r} (team {link.team}) takes seat {link.seat} "
                 f"({len(self.links)} of {self.seats})")
        if len(self.links) >= self.seats:
            self.full.set()
        return link


class Endpoint(Seating):
    """Serves ``/ws`` on ``host:port`` until :meth:`stop`; :meth:`gather` waits for the
    seats."""

    def __init__(self, host: str, port: int, seats: int, limits: Limits = DEFAULT_LIMITS,
                 reserved: Iterable[str] = (), say: Callable[[str], None] = lambda s: None
                 ) -> None:
        super().__init__(host, port, seats, limits, reserved, say)
        self.runner: web.AppRunner | None = None
        self.sockets: set[web.WebSocketResponse] = set()

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/ws", self._serve)
        self.runner = await listen(app, self.host, self.port, "the AIWolf agents' server")

    async def stop(self) -> None:
        for ws in list(self.sockets):
            await ws.close()
        if self.runner is not None:
            await self.runner.cleanup()

    async def _serve(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=self.limits.max_message)
        await ws.prepare(request)
        self.sockets.add(ws)
        try:
            await self._talk(ws)
        finally:
            self.sockets.discard(ws)
            if not ws.closed:
                await ws.close()
        return ws

    async def _talk(self, ws: web.WebSocketResponse) -> None:
        if self.full.is_set():
            await ws.close(code=1013, message=b"every seat is taken")
            return
        await ws.send_str(json.dumps({"request": "NAME"}))
        try:
            msg = await ws.receive(timeout=self.limits.response)
        except TimeoutError:
            return  # (never answered NAME: no seat)
        if msg.type is not WSMsgType.TEXT or self.full.is_set():
            return
        link = self.seat(msg.data.rstrip("\n"), ws.send_str, ws.close)
        why = "disconnected"
        async for msg in ws:
            if msg.type is WSMsgType.TEXT:
                link.heard(msg.data)
            elif msg.type is WSMsgType.ERROR:
                exc = ws.exception()
                why = f"its connection broke: {exc}"
                if getattr(exc, "code", None) == WSCloseCode.MESSAGE_TOO_BIG:
                    why = f"sent a message over {self.limits.max_message} bytes"
                break
        link.gone(why)
