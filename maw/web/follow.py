"""Following games that other processes play (``maw tournament --web``): each game's log
is read as it grows and fed to the game's observer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from maw.web.observer import Observer


async def tail(folder: Path, observer: Observer, done: asyncio.Event,
               poll: float = 0.2) -> None:
    """Feed ``observer`` every record of the game log that appears in ``folder``, as it
    is written, until ``done`` (the game's process is over); then end it."""
    path: Path | None = None
    position, partial = 0, b""
    while True:
        finished = done.is_set()  # (read once more after the process is over)
        if path is None:
            logs = sorted(folder.glob("*.jsonl"))
            path = logs[-1] if logs else None
        if path is not None:
            with path.open("rb") as f:
                f.seek(position)
                chunk = f.read()
                position = f.tell()
            *lines, partial = (partial + chunk).split(b"\n")
            for line in lines:
                try:
                    observer.feed(json.loads(line))
                except ValueError:
                    continue  # (not a record: a line cut by a crash)
        if finished:
            break
        await asyncio.sleep(poll)
    observer.end()


class TournamentWatch:
    """The tournament's live game for the page: the game started last. Called by the
    runner as each game starts (``maw.tournament.runner.Watch``)."""

    def __init__(self, spectator: bool, games: int) -> None:
        self.spectator = spectator
        self.games = games
        self.live: Observer | None = None
        self.live_id = -1
        self.tasks: set[asyncio.Task] = set()

    def __call__(self, spec, folder: Path) -> Callable[[], None]:
        observer = Observer(self.spectator, f"tournament game {spec.index + 1} of "
                                            f"{self.games}, seed {spec.seed}")
        done = asyncio.Event()
        self.live, self.live_id = observer, spec.index
        task = asyncio.create_task(tail(folder, observer, done))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return done.set

    async def stop(self) -> None:
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=5)
