"""One AIWolf agent's WebSocket, as aiwolf-nlp-server keeps it (``../shared/
aiwolf-nlp-protocol.md`` §1, §6): packets out as JSON text frames, answers in as raw text
with every newline removed; one request answered at a time.

* A request not answered within ``action + acceptable`` seconds is followed by a NAME
  request: the agent's own name within ``response`` seconds means it is alive (the request
  failed: a talk becomes a skip, a vote none); anything else, or nothing, and the agent is
  in error for the rest of the game. So is a dropped connection, or a message over
  ``max_message`` bytes (the socket is closed).
* An agent in error is asked nothing more: every request of its seat fails at once.
* A message that answers no request answers the next one (as the server reads it), but
  while a group chat is open (the freeform talk) it is a line of that chat.

A request the game no longer needs (its phase ended while the agent thought) keeps its
turn: the next packet goes out once it is answered or has timed out, and its answer is
dropped; asked again for the same thing, the seat waits for the same answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("maw.aiwolf")


@dataclass(frozen=True)
class Limits:
    """aiwolf-nlp-server's limits, in seconds (its configs: ``timeout.action`` 60 s,
    ``timeout.response`` 120 s, ``acceptable`` 5 s) and bytes (a message it takes)."""

    action: float = 60.0
    response: float = 120.0
    acceptable: float = 5.0
    max_message: int = 64 * 1024


DEFAULT_LIMITS = Limits()
CHAT_BACKLOG = 100  # a group chat's lines kept unread (more are dropped, as too many)

@dataclass
class _Request:
    key: Hashable
    future: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop()
                                   .create_future())
    sent: float = field(default_factory=time.monotonic)
    checking: bool = False  # timed out: the NAME check is on
    timer: asyncio.TimerHandle | None = None


class Link:
    """``send_text`` sends one text frame; ``close`` closes the socket. ``name`` is the
    agent's own name (its NAME answer); ``team`` that name without trailing digits, as the
    server derives it."""

    def __init__(self, name: str, send_text: Callable[[str], object],
                 close: Callable[[], object], limits: Limits = DEFAULT_LIMITS) -> None:
        self.name = name
        self.team = name.rstrip("0123456789") or name
        self.seat = name  # its name at the table (the host may make it unique)
        self._send_text = send_text
        self._close = close
        self.limits = limits
        self.error: str | None = None
        self.request: _Request | None = None
        self.early: deque[str] = deque()  # answers that came before their request
        self.latencies: list[float] = []  # seconds from request to answer
        self.counts = {"requests": 0, "packets": 0, "failed": 0}
        self.on_error: Callable[[Link], None] | None = None
        self.closed = asyncio.Event()
        self.finished = False  # FINISH was sent: the socket may close
        self.turn = asyncio.Lock()  # packets go out one at a time, in order
        self.asks: dict[Hashable, asyncio.Future] = {}
        self.chat: asyncio.Queue[str | None] | None = None  # an open group chat's lines
        self.talk_seconds = 0.0  # how long a day's talk may last (freeform's duration)
        self.rounds: Any = None  # the game's talk rounds (maw.aiwolf.rounds.TalkRounds)
        # a game set (the platform's, over one connection): awaited before a game's first
        # packet, it sends the last game's FINISH and readies the link for the next
        self.before_game: Callable[[Link, int], Awaitable[None]] | None = None
        self.games = 0  # the games of the set it has been sent FINISH of

    # ------------------------------------------------------------ incoming

    def heard(self, text: str) -> None:
        """A text frame from the agent."""
        text = text.replace("\n", "")
        r = self.request
        if r is None or r.future.done():
            if self.chat is not None:  # a group chat is open: a line of it
                if self.chat.qsize() < CHAT_BACKLOG:
                    self.chat.put_nowait(text)
            else:
                self.early.append(text)
            return
        if r.checking:  # the NAME check: its name, or the late answer (an error)
            if text == self.name:
                self._settle(r, None)
            else:
                self.fail("answered after the timeout")
            return
        self.latencies.append(time.monotonic() - r.sent)
        self._settle(r, text)

    def gone(self, why: str = "disconnected") -> None:
        """The socket closed or broke (after FINISH, as it should)."""
        if self.error is None and not self.finished:
            self.fail(why)
        self.closed.set()

    def fail(self, why: str) -> None:
        """In error for the rest of the game: every request fails from now on."""
        if self.error is not None:
            return
        self.error = why
        log.warning("AIWolf agent %s (%s): %s", self.seat, self.name, why)
        if self.request is not None and not self.request.future.done():
            self._settle(self.request, None)
        if self.chat is not None:
            self.chat.put_nowait(None)  # (a seat waiting for its next line: none comes)
        if self.on_error is not None:
            self.on_error(self)
        try:
            result = self._close()
            if asyncio.iscoroutine(result):
                asyncio.ensure_future(result)
        except Exception:  # (closing a broken socket may fail: it is gone either way)
            pass

    def _settle(self, r: _Request, answer: str | None) -> None:
        if r.timer is not None:
            r.timer.cancel()
        if answer is None:
            self.counts["failed"] += 1
        if not r.future.done():
            r.future.set_result(answer)

    # ------------------------------------------------------------ outgoing

    async def _idle(self) -> None:
        """Until no request waits for its answer."""
        while self.request is not None and not self.request.future.done():
            await asyncio.shield(self.request.future)

    async def _send(self, packet: dict) -> None:
        if self.error is not None:
            return
        try:
            result = self._send_text(json.dumps(packet, ensure_ascii=False,
                                                separators=(",", ":")))
            if asyncio.iscoroutine(result):
                await result
        except Exception as exc:  # (a socket that broke while sending)
            self.fail(f"cannot be sent to: {exc}")
        self.counts["packets"] += 1

    async def notify(self, packet: dict) -> None:
        """A packet that takes no answer (INITIALIZE, DAILY_INITIALIZE, ...). It goes out
        in turn even if the caller is cancelled meanwhile."""
        await asyncio.shield(asyncio.ensure_future(self._notify(packet)))

    async def _notify(self, packet: dict) -> None:
        async with self.turn:
            await self._idle()
            await self._send(packet)

    async def ask(self, key: Hashable, packet: dict) -> str | None:
        """The agent's answer to ``packet`` (``None``: it failed). Asked again with the
        same ``key``, it waits for that same answer (the request goes out once, even if
        its caller is cancelled)."""
        task = self.asks.get(key)
        if task is None:
            task = self.asks[key] = asyncio.ensure_future(self._ask(key, packet))
        return await asyncio.shield(task)

    async def _ask(self, key: Hashable, packet: dict) -> str | None:
        async with self.turn:
            await self._idle()
            if self.error is not None:
                return None
            r = self.request = _Request(key)
            self.counts["requests"] += 1
            await self._send(packet)
            if self.error is not None:
                self._settle(r, None)
            elif self.early:
                self._settle(r, self.early.popleft())
            else:
                loop = asyncio.get_running_loop()
                r.timer = loop.call_later(self.limits.action + self.limits.acceptable,
                                          self._timed_out, r)
        return await r.future

    def open_chat(self) -> None:
        """A group chat (freeform talk) opens: the agent's lines come unasked."""
        self.chat = asyncio.Queue()

    def close_chat(self) -> None:
        """It ends: lines not yet read are dropped (as the server drains them)."""
        self.chat = None

    async def said(self) -> str | None:
        """The agent's next line in the open group chat (``None``: none is open, or the
        agent is in error)."""
        chat = self.chat
        if chat is None or self.error is not None:
            return None
        return await chat.get()

    def _timed_out(self, r: _Request) -> None:
        if r.future.done() or self.error is not None:
            return
        r.checking = True
        asyncio.ensure_future(self._send({"request": "NAME"}))
        r.timer = asyncio.get_running_loop().call_later(
            self.limits.response, self._no_response, r)

    def _no_response(self, r: _Request) -> None:
        if not r.future.done():
            self.fail("did not answer in time, nor the NAME check after it")

    async def finish(self, packet: dict, last: bool = True) -> None:
        """The game's last packet (FINISH), then the socket closes (as aiwolf-nlp-server
        does: agents reconnect for the next game); not ``last``: a game of a set, the
        connection kept for the next, what was asked in this one forgotten."""
        if self.error is None:
            async with self.turn:
                try:
                    await asyncio.wait_for(self._idle(), self.limits.action
                                           + self.limits.acceptable + self.limits.response)
                except TimeoutError:
                    pass
                await self._send(packet)
        self.games += 1
        if not last:
            self.asks.clear()
            self.early.clear()
            return
        self.finished = True
        try:
            result = self._close()
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            pass
        self.closed.set()

    def summary(self) -> dict:
        """Requests, latencies (median and 95th percentile, seconds) and its state."""
        lat = sorted(self.latencies)

        def pct(q: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(q * len(lat)))], 4) if lat else None

        return {"name": self.name, "team": self.team, "seat": self.seat, **self.counts,
                "median": pct(0.5), "p95": pct(0.95), "error": self.error}
