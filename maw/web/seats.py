"""Seats for people in the browser (``maw game --humans H --web``).

Each seat has a secret link. The first page that opens it claims the seat: the host
starts a PlayerAgent and a UserInterfaceAgent for it (``maw.hosting.players.run_person``,
what ``maw play`` runs in a terminal) that join the lobby like any other person, and the
page is that interface's console: it shows the lines the player hears, takes what the
person types (the terminal's commands; the buttons type them too) and gets the player's
status (its own view, the seconds left, the options offered). The page receives nothing
else, so it cannot show what the player may not see. A person may also take a seat from a
terminal with ``maw play``: the lobby takes whoever comes first.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from maw.agents.toolkit import cancel_and_wait
from maw.hosting.xmpp import Address
from maw.protocol import render
from maw.protocol.heard import Heard
from maw.web.observer import Watcher, frame


@dataclass(eq=False)
class WebConsole:
    """A :class:`maw.agents.user_interface.Console` on a web page: every line, heard
    record and status is kept (a reloaded page gets them again) and streamed to the page's
    watchers."""

    frames: list[bytes] = field(default_factory=list)
    typed: asyncio.Queue = field(default_factory=asyncio.Queue)
    watchers: set[Watcher] = field(default_factory=set)
    closed: bool = False

    def _push(self, event: str, data: Any) -> None:
        item = frame(event, data)
        self.frames.append(item)
        for w in list(self.watchers):
            if not w.put(item):
                self.watchers.discard(w)

    def show(self, line: str) -> None:
        """A line of the interface's own (a refusal, the help, ``/who``)."""
        self._push("line", {"text": line})

    def heard(self, record: Heard) -> None:
        """Something the player heard: its line, and the record it came from, so that the
        page tells a player's chat from the interface's own lines, sees a death as it is
        announced and draws the end of the game as a table (nothing the line does not say)."""
        self._push("line", {"text": render.heard(record), "heard": record.model_dump(mode="json")})

    def update(self, **status: Any) -> None:
        self._push("status", status)

    async def read(self) -> str | None:
        return await self.typed.get()

    def type(self, text: str) -> None:
        self.typed.put_nowait(text)

    def watch(self) -> Watcher:
        w = Watcher(spectator=False)
        for item in self.frames:
            w.put(item)
        if self.closed:
            w.put(None)
        else:
            self.watchers.add(w)
        return w

    def close(self, why: str) -> None:
        self._push("end", {"why": why})
        self.closed = True
        for w in list(self.watchers):
            w.put(None)
        self.watchers.clear()


@dataclass(eq=False)
class SeatLink:
    """A seat's secret link: the person who opens it plays that seat from the page."""

    secret: str
    console: WebConsole = field(default_factory=WebConsole)
    task: asyncio.Task | None = None
    name: str | None = None  # (at a Hall: the name the page's form gave; else it is asked)


MAX_HALL_SEATS = 64  # browser seats at a server's Hall at once (``maw server --web``)


class SeatDesk:
    """The seats of one game: ``count`` secret links; ``claim`` starts a seat's person.
    With no ``lobby``, the seats of a server's Hall (``maw server --web``): each page that
    opens ``/hall`` gets a new one (``open_seat``), whose person is at the Hall first
    (``maw.server.client.drop_in``, as ``maw play`` with no ``--lobby``), then in the game
    it sits at."""

    def __init__(self, count: int, address: Address, lobby: str | None,
                 join_seconds: float = 60.0, timeout: float | None = None) -> None:
        # the people's agents join the host's server like a terminal's would
        self.address = Address(address.host, address.port, False, address.domain)
        self.lobby = lobby
        self.join_seconds = join_seconds
        self.timeout = timeout
        self.seats = {s.secret: s for s in (SeatLink(secrets.token_urlsafe(12))
                                            for _ in range(count))}

    def get(self, secret: str) -> SeatLink | None:
        return self.seats.get(secret)

    def open_seat(self, name: str | None = None, typed: Sequence[str] = ()) -> SeatLink:
        """A new seat at the Hall for ``name`` (asked if ``None``), as if its person had
        typed ``typed`` already (the page's forms: a game to join or create);
        ``ValueError``: too many at once."""
        self.seats = {k: s for k, s in self.seats.items()
                      if s.task is None or not s.task.done() or s.console.watchers}
        if len(self.seats) >= MAX_HALL_SEATS:
            raise ValueError(f"the Hall has {MAX_HALL_SEATS} people from the browser "
                             "already: try again later, or maw play from a terminal")
        seat = SeatLink(secrets.token_urlsafe(12), name=name)
        for line in typed:
            seat.console.type(line)
        self.seats[seat.secret] = seat
        return seat

    def claim(self, seat: SeatLink) -> None:
        """Start the seat's player, once (a reloaded page finds it running)."""
        if seat.task is None:
            seat.task = asyncio.create_task(self._run(seat))

    async def _run(self, seat: SeatLink) -> None:
        from maw.hosting.players import run_person

        console = seat.console
        try:
            lobby, name = self.lobby, None
            if lobby is None:  # (the Hall first: its list, /create, /join, /ready)
                from maw.server.client import drop_in

                found = await drop_in(self.address, console, seat.name)
                if found is None:
                    console.close("you left the Hall")
                    return
                lobby, name = found
            result = await run_person(self.address, lobby, console, name=name,
                                      join_seconds=self.join_seconds, timeout=self.timeout)
            console.close("the game is over" if result.final else "you left the game")
        except asyncio.CancelledError:
            console.close("the host stopped")
            raise
        except Exception as exc:  # the page says why, the host goes on
            console.close(f"the seat stopped: {exc}")

    async def stop(self) -> None:
        await cancel_and_wait(*(seat.task for seat in self.seats.values()))
