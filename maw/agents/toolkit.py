"""The agents' one toolkit for time and for questions awaiting answers.

* :class:`Deadline` — when the current phase ends, on this process's clock (the
  GameMaster's timers, a player's "seconds left", a person's countdown).
* :class:`Changes` — a counter that grows whenever something new arrives, and a wait for
  the next change that cannot miss one (read the version, look, then wait from it).
* :class:`Awaiting` — requests sent and not yet answered, each under its reference (a
  thread or a ref), with its context; an answer counts only from the address the request
  went to. The GameMaster's questions to its rooms, the rooms' chat checks, a player's
  questions to its interface and to the GameMaster all use it.
* :func:`cancel_and_wait` — end tasks one owns, without eating a cancel meant for oneself.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Generic, TypeVar

T = TypeVar("T")


async def cancel_and_wait(*tasks: asyncio.Task | None) -> None:
    """Cancel ``tasks`` (``None`` and finished ones are skipped) and wait until each has
    ended, whatever it ends with. A cancel of the caller itself, meanwhile, still reaches
    the caller: ``contextlib.suppress(CancelledError)`` around ``await task`` ate a
    Ctrl-C that came while a host stopped its XMPP server, and the host, its game over,
    then kept its page up for good (a CI run: the host was still there 30 s later)."""
    live = [t for t in tasks if t is not None and not t.done()]
    for task in live:
        task.cancel()
    if live:
        await asyncio.wait(live)  # (raises only for a cancel of the caller)
    for task in live:
        if not task.cancelled():
            task.exception()  # (seen: asyncio says nothing of an error nobody read)


class Deadline:
    def __init__(self) -> None:
        self.at = 0.0  # time.monotonic() when it passes; 0: not set
        self.held: set[str] = set()  # the holds awaited since it was set (``Moderator.held``)

    def set(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self.held = set()

    @property
    def is_set(self) -> bool:
        return self.at > 0

    def left(self) -> float:
        """Seconds until it passes (0 once it has, or if it was never set)."""
        return max(0.0, self.at - time.monotonic())


class Changes:
    def __init__(self) -> None:
        self.version = 0
        self._event = asyncio.Event()

    def poke(self) -> None:
        self.version += 1
        self._event.set()

    async def wait(self, seen: int, timeout: float | None) -> bool:
        """Wait until the version is no longer ``seen`` (at most ``timeout`` seconds);
        ``True`` if it changed."""
        if self.version != seen:
            return True
        self._event.clear()
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        return self.version != seen


class Awaiting(Generic[T]):
    def __init__(self) -> None:
        self._open: dict[str, tuple[str, T, asyncio.Future]] = {}

    def open(self, ref: str, to: str, context: T) -> asyncio.Future:
        """A request under ``ref`` went to ``to``: the future gets its answer."""
        future = asyncio.get_running_loop().create_future()
        self._open[ref] = (to, context, future)
        return future

    def answer(self, ref: str | None, sender: str, value: Any) -> T | None:
        """``value`` answers the request ``ref`` if it is open and ``sender`` is whom it was
        sent to: the request closes, its future gets ``value``, and its context is returned;
        otherwise nothing happens (``None``)."""
        entry = self._open.get(ref or "")
        if entry is None or entry[0] != sender:
            return None
        del self._open[ref or ""]
        if not entry[2].done():
            entry[2].set_result(value)
        return entry[1]

    def close(self, ref: str) -> T | None:
        """Give up on the request ``ref`` (its context, if it was open)."""
        entry = self._open.pop(ref, None)
        if entry is None:
            return None
        entry[2].cancel()
        return entry[1]

    def drain(self) -> list[T]:
        """Give up on every open request; their contexts, in the order they were opened."""
        contexts = [context for _, context, _ in self._open.values()]
        for _, _, future in self._open.values():
            future.cancel()
        self._open.clear()
        return contexts

    def __contains__(self, ref: object) -> bool:
        return ref in self._open

    def __len__(self) -> int:
        return len(self._open)

    async def wait(self, future: asyncio.Future, ref: str, timeout: float) -> Any:
        """The answer to ``ref`` within ``timeout`` seconds, or ``None`` (then it closes)."""
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            self.close(ref)
            return None
