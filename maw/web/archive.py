"""The logs of past games, for ``maw web LOGDIR``: one line each (date, ruleset,
players, winner, length), and a game's records."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from maw.errors import MawError


@dataclass(frozen=True)
class Game:
    id: str  # the log's path under LOGDIR
    date: str
    ruleset: str
    players: list[str]
    winner: str  # "village", "werewolves", "draw", or "unfinished"
    days: int
    seconds: float
    seed: int | None = None  # what replays it: maw game --seed

    def as_dict(self) -> dict:
        return asdict(self)


class Archive:
    """The game logs (``*.jsonl``) under ``folder``, newest first; a log is read again
    only when it changed."""

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise MawError(f"no folder of game logs at {folder}")
        self.folder = folder.resolve()
        self._seen: dict[Path, tuple[float, Game | None]] = {}

    def games(self) -> list[Game]:
        out = []
        for path in sorted(self.folder.rglob("*.jsonl")):
            mtime = path.stat().st_mtime
            cached = self._seen.get(path)
            if cached is None or cached[0] != mtime:
                cached = (mtime, self._summary(path))
                self._seen[path] = cached
            if cached[1] is not None:
                out.append(cached[1])
        return sorted(out, key=lambda g: g.date, reverse=True)

    def _summary(self, path: Path) -> Game | None:
        started = deal = over = None
        players: list[str] = []
        last_t = 0.0
        try:
            with path.open(encoding="utf-8") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        continue
                    last_t = r.get("t", last_t)
                    kind = r.get("kind")
                    if kind == "started" and started is None:
                        started = r
                    elif kind == "round" and deal is None:
                        deal = r
                        players = sorted(r.get("roles", {}))
                    elif kind == "outcome":
                        over = r
        except (OSError, UnicodeDecodeError):
            return None
        if started is None and deal is None:
            return None  # not a game's log (a player's own, say)
        wall = (started or {}).get("wall") or path.stat().st_mtime
        begin = (deal or started or {}).get("t", 0.0)
        return Game(
            id=path.relative_to(self.folder).as_posix(),
            date=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(wall)),
            ruleset=(deal or started or {}).get("ruleset", "?"), players=players,
            winner=("unfinished" if over is None else over.get("winner") or "draw"),
            days=(over or {}).get("day", 0),
            seconds=round(((over or {}).get("t", last_t)) - begin, 1),
            seed=(started or {}).get("seed"))

    def records(self, game_id: str) -> list[dict]:
        path = (self.folder / game_id).resolve()
        if self.folder not in path.parents or path.suffix != ".jsonl" or not path.is_file():
            raise KeyError(game_id)
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # (a line cut by a crash: the rest of the game still shows)
        return out
