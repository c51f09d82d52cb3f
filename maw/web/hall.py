"""What the page of a server that hosts games (``maw server --web``) shows of its Hall:
the list of games as it changes, each running game live for whoever watches it (as
``maw game --web`` shows its one game: what every player sees, and the roles at the end),
and each finished game's replay in the archive.

The server tells it (``maw.server.host.TableWatch``): the Hall's list once the Hall is
up, each game as it starts (the listener of its records) and as it ends (its log).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from maw.web.observer import Observer


class HallWatch:
    """The Hall's games for the page; ``folder`` is the archive the page serves."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self._listing: Callable[[], list] = list
        self.observers: dict[int, Observer] = {}  # the games running, by table
        self.replays: dict[int, str] = {}  # a finished game's id in the archive

    # --------------------------------------------------------- the server's side
    def listing(self, tables: Callable[[], list]) -> None:
        self._listing = tables

    def begin(self, table: Any) -> Callable[[dict], None]:
        observer = Observer(title=f"game {table.id}: {table.ruleset}, {table.players} "
                                  "players")
        self.observers[table.id] = observer
        return observer.feed

    def end(self, table: Any, log: Path | None) -> None:
        replay = None
        if log is not None:
            try:
                replay = Path(log).resolve().relative_to(self.folder).as_posix()
            except ValueError:
                replay = None
        if replay is not None:
            self.replays[table.id] = replay
        observer = self.observers.pop(table.id, None)  # (a new watcher gets the replay)
        if observer is not None and not observer.over:
            observer.end(why="" if replay else table.result, replay=replay)

    # ----------------------------------------------------------- the page's side
    def tables(self) -> list[dict]:
        """The list, each game with what the page may link to: ``live`` (it runs: watch
        it) or ``replay`` (its id in the archive)."""
        out = []
        for info in self._listing():
            row = info.model_dump()
            row.pop("lobby", None)  # (the page joins through the Hall, never a lobby)
            row["live"] = info.id in self.observers
            row["replay"] = self.replays.get(info.id)
            out.append(row)
        return out

    def observer(self, table_id: int) -> Observer | None:
        return self.observers.get(table_id)
