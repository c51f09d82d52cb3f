"""A game's records for its watchers, and what each watcher may see.

A watcher without the spectator switch sees what every player sees: the public events
(those whose audience is everyone), the phases' timers, the GameMaster's states, the
joins and each round's outcome. Roles, the Hideout, private results and the agents'
minds (their FSM states, questions, prompts, answers and beliefs) are sent only to a
spectator (``--web-spectator``), or to everyone once the game is over (``reveal``).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

# how many frames a watcher may fall behind before it is dropped (a stuck browser must
# not make the host hold the whole game once more for it)
BACKLOG_LIMIT = 50_000
# (a player who leaves, its stand-in and its return are seen at the table: no secret)
PUBLIC_KINDS = frozenset({"started", "join", "timer", "outcome", "gone", "substituted",
                          "returned"})


def public(record: dict) -> bool:
    """Whether every player may see ``record`` (see the module docstring)."""
    kind = record.get("kind")
    if kind in PUBLIC_KINDS:
        return True
    if kind == "event":
        return record.get("data", {}).get("audience") is None
    if kind == "state":
        return record.get("agent") == "GameMaster"
    return False


def frame(event: str, data: object) -> bytes:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


@dataclass(eq=False)
class Watcher:
    spectator: bool
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    sent: set[int] = field(default_factory=set)  # the records it was sent, by index

    def put(self, item: bytes | None) -> bool:
        if self.queue.qsize() > BACKLOG_LIMIT:
            return False
        self.queue.put_nowait(item)
        return True


class Observer:
    """Holds every record of the game in order (``feed``, a ``GameLog`` listener) and
    streams to each ``Watcher`` what it may see; ``end`` reveals the rest to all."""

    def __init__(self, spectator: bool = False, title: str = "") -> None:
        self.spectator_allowed = spectator
        self.title = title
        self.records: list[dict] = []
        self.frames: list[bytes] = []  # each record encoded once, for every watcher
        self.watchers: set[Watcher] = set()
        self.over = False
        self.fed_at: list[float] = []  # time.time() each record came (update delays)
        self.ending: dict = {}  # what the end frame says: why, the replay's id

    def feed(self, record: dict) -> None:
        i = len(self.records)
        self.fed_at.append(time.time())
        self.records.append(record)
        self.frames.append(frame("record", {"i": i, "r": record}))
        for w in list(self.watchers):
            if w.spectator or public(record):
                self._send(w, i)

    def _send(self, w: Watcher, i: int) -> None:
        w.sent.add(i)
        if not w.put(self.frames[i]):
            self.watchers.discard(w)
            w.queue.put_nowait(None)

    def may_spectate(self) -> bool:
        return self.spectator_allowed or self.over

    def watch(self, spectator: bool = False) -> Watcher:
        """A new watcher, with every record so far that it may see queued for it."""
        if spectator and not self.may_spectate():
            raise PermissionError("the host did not enable the spectator switch")
        w = Watcher(spectator or self.over)
        w.put(frame("hello", {"title": self.title, "spectator": w.spectator,
                              "spectator_allowed": self.may_spectate(), "over": self.over,
                              "now": self.now()}))
        for i, r in enumerate(self.records):
            if w.spectator or public(r):
                self._send(w, i)
        if self.over:
            w.put(frame("end", self.ending))
            w.put(None)
        else:
            self.watchers.add(w)
        return w

    def leave(self, w: Watcher) -> None:
        self.watchers.discard(w)

    def now(self) -> float:
        """The game log's clock now (seconds since it began), for a watcher's countdown:
        a phase's time left is its timer's start plus its length, less this."""
        if not self.records:
            return 0.0
        return round(self.records[-1].get("t", 0.0) + time.time() - self.fed_at[-1], 3)

    def end(self, why: str = "", replay: str | None = None) -> None:
        """The game is over (or never began: ``why``): every watcher gets what it was not
        sent, then the end, with the game's id in the archive (``replay``) if it has one."""
        self.over = True
        self.ending = {"why": why, "replay": replay}
        for w in list(self.watchers):
            hidden = [{"i": i, "r": r} for i, r in enumerate(self.records) if i not in w.sent]
            w.put(frame("reveal", {"records": hidden}))
            w.put(frame("end", self.ending))
            w.put(None)
        self.watchers.clear()
