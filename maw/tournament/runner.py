"""Tournaments: many games, unattended, with durable results (``maw tournament``).

Each game is hosted by one of ``parallel`` long-lived worker processes
(``maw.tournament.worker``: game after game, no interpreter start per game) on one XMPP
server (embedded in this process by default). The schedule (which roster players sit
in each game, and its seed) derives from the tournament's seed alone, so the same command
plays the same games. Each finished game is committed to SQLite in one transaction with
its metrics (``maw.records.metrics``): a runner killed at any point loses only the games in
progress, and ``--resume`` plays exactly the games the database lacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from maw.errors import MawError
from maw.hosting.roster import Roster, group_of, load_roster
from maw.hosting.xmpp import die_with_parent
from maw.policies import decider_kind
from maw.tournament.worker import STOP

if TYPE_CHECKING:
    from maw.tournament.remote import Desk, RemoteWorker

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    idx INTEGER PRIMARY KEY, seed INTEGER NOT NULL, seats TEXT NOT NULL,
    ruleset TEXT NOT NULL, winner TEXT, reason TEXT, days INTEGER, phases INTEGER,
    seconds REAL,
    wall_seconds REAL, log TEXT, config TEXT NOT NULL, finished TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    game INTEGER NOT NULL REFERENCES games(idx), name TEXT NOT NULL, agent TEXT NOT NULL,
    role TEXT, team TEXT, won INTEGER, points INTEGER, survived INTEGER, votes INTEGER,
    dead_target_votes INTEGER, refused INTEGER, late INTEGER, teammates_attacked INTEGER,
    questions INTEGER, unanswered INTEGER, llm_calls INTEGER, tokens INTEGER,
    llm_seconds REAL, repaired INTEGER, fallbacks INTEGER, PRIMARY KEY (game, name));
"""
# columns added since the first schema (a database made before them gains them, NULL)
ADDED = {"wolf_votes": "INTEGER", "beliefs": "INTEGER", "brier": "REAL",
         "brier_uniform": "REAL", "log_loss": "REAL", "top_suspect_wolf": "INTEGER",
         "substitute": "TEXT", "cost": "REAL", "gated": "INTEGER", "retries": "INTEGER",
         "fallback_rule": "INTEGER", "fallback_random": "INTEGER",
         "fallback_listen": "INTEGER"}
# ... and to the games (maw audit's violations: must be 0)
ADDED_GAMES = {"violations": "INTEGER", "first_violation": "TEXT"}
GAME_COLUMNS = ("idx", "seed", "seats", "ruleset", "winner", "reason", "days", "phases",
                "seconds", "wall_seconds", "log", "config", "finished", *ADDED_GAMES)
PLAYER_COLUMNS = ("name", "agent", "role", "team", "won", "points", "survived", "votes",
                  "dead_target_votes", "refused", "late", "teammates_attacked", "questions",
                  "unanswered", "llm_calls", "tokens", "llm_seconds", "repaired", "fallbacks",
                  *ADDED)


@dataclass(frozen=True)
class Plan:
    """What a tournament plays; stored in the database so a resume plays the same."""

    roster: str  # the roster file
    roster_sha: str  # ... and its content: a changed roster is another tournament
    games: int
    players: int
    ruleset: str
    rules: tuple[str, ...]
    seed: int
    day_seconds: float
    night_seconds: float
    early_end: bool = False  # a phase also ends once everyone who may act listens
    substitute: str | None = None  # a stand-in for a seat whose client is gone


@dataclass(frozen=True)
class GameSpec:
    index: int
    seed: int
    seats: tuple[str, ...]


def agent_label(roster: Roster, name: str) -> str:
    """What plays seat ``name``: its decider, and its model ("llm:ollama:llama3.1"), with
    the model of each group whose differs ("...+wolves=ollama:qwen3:8b")."""
    p = next(p for p in roster.player if p.name == name)
    if not decider_kind(p.decider).needs_model:
        return p.decider
    spec = roster.llm_for(p)
    groups = "".join(f"+{group}={g.label()}" for group, g in roster.groups_for(p).items()
                     if g.label() != spec.label())
    return f"{p.decider}:{spec.label()}{groups}"


def schedule(roster: Roster, plan: Plan) -> list[GameSpec]:
    """The games of ``plan``: each seats ``players`` of the roster, drawn from the seed."""
    names = [p.name for p in roster.player]
    if plan.players > len(names):
        raise MawError(f"the roster seats {len(names)} player{'s' * (len(names) != 1)}, "
                       f"not {plan.players}")
    rng = random.Random(f"{plan.seed}:schedule")
    return [GameSpec(i, rng.getrandbits(31), tuple(rng.sample(names, plan.players)))
            for i in range(plan.games)]


class Results:
    """The SQLite database of one tournament."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.db = sqlite3.connect(path)
            self.db.executescript(SCHEMA)
            have = {row[1] for row in self.db.execute("PRAGMA table_info(players)")}
            for column, kind in ADDED.items():
                if column not in have:
                    self.db.execute(f"ALTER TABLE players ADD COLUMN {column} {kind}")
            have = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
            for column, kind in ADDED_GAMES.items():
                if column not in have:
                    self.db.execute(f"ALTER TABLE games ADD COLUMN {column} {kind}")
        except sqlite3.DatabaseError as exc:
            raise MawError(f"{path} is not a MAW results database: {exc}") from None

    def plan(self) -> Plan | None:
        row = self.db.execute("SELECT value FROM tournament WHERE key = 'plan'").fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        data["rules"] = tuple(data["rules"])
        return Plan(**data)

    def save_plan(self, plan: Plan) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO tournament VALUES ('plan', ?)",
                            (json.dumps(asdict(plan)),))

    def done(self) -> set[int]:
        return {i for (i,) in self.db.execute("SELECT idx FROM games")}

    def record(self, spec: GameSpec, ruleset: str, metrics, log: Path, wall: float,
               config: dict, violations: list[str] | None = None,
               prices: dict[str, float] | None = None) -> None:
        """One game (with what ``maw audit`` found in it) and its players, in one
        transaction; ``prices``: what a million tokens cost, for the seats whose roster
        says."""
        count = None if violations is None else len(violations)
        first = violations[0] if violations else None
        with self.db:
            self.db.execute(
                f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES "
                f"({', '.join('?' * len(GAME_COLUMNS))})",
                (spec.index, spec.seed, json.dumps(list(spec.seats)), ruleset,
                 metrics.winner, metrics.reason, metrics.days, metrics.phases,
                 metrics.seconds,
                 round(wall, 3), str(log), json.dumps(config),
                 time.strftime("%Y-%m-%dT%H:%M:%S"), count, first))
            for p in metrics.players:
                row = asdict(p)
                price = (prices or {}).get(p.name)
                row["cost"] = None if price is None else round(p.tokens * price / 1e6, 8)
                self.db.execute(
                    f"INSERT INTO players (game, {', '.join(PLAYER_COLUMNS)}) VALUES "
                    f"(?, {', '.join('?' * len(PLAYER_COLUMNS))})",
                    (spec.index, *(row[c] for c in PLAYER_COLUMNS)))

    def leader(self) -> tuple[str, int] | None:
        board = self.standings()
        return board[0] if board else None

    def standings(self) -> list[tuple[str, int]]:
        """Every player's points over the games so far, best first."""
        return [(n, int(s)) for n, s in self.db.execute(
            "SELECT name, SUM(points) AS s FROM players GROUP BY name ORDER BY s DESC, name")]

    def close(self) -> None:
        self.db.close()


@dataclass
class Finished:
    spec: GameSpec
    ok: bool
    wall: float
    error: str = ""
    worker_lost: bool = False  # its worker died or stopped answering


# told that a game starts, with the folder its log will be written to; returns what to
# call when the game's process is over (the web observer follows the log meanwhile)
Watch = Callable[["GameSpec", Path], Callable[[], None]]


def metrics_of(data: dict):
    """A worker's ``GameMetrics``, from the JSON it answered."""
    from maw.records.metrics import GameMetrics, PlayerMetrics

    return GameMetrics(**{**data, "players": [PlayerMetrics(**x) for x in data["players"]]})


class Worker:
    """One long-lived worker process (``maw.tournament.worker``) and its pipes."""

    def __init__(self, log_dir: Path, fresh_logins: bool = False) -> None:
        self.log_dir = log_dir
        self.fresh_logins = fresh_logins  # (its games' agents not kept logged in)
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "maw.tournament.worker", "--log-dir", str(self.log_dir),
            *(("--fresh-logins",) if self.fresh_logins else ()),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, limit=16 << 20,
            preexec_fn=die_with_parent)  # no orphan game plays on
        line = await self._line(120)
        if "ready" not in line:
            raise MawError(f"a tournament worker did not start: {line}")

    async def _line(self, timeout: float) -> dict:
        assert self.proc is not None and self.proc.stdout is not None
        raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not raw:
            code = await self.proc.wait()
            raise EOFError(f"the worker died (exit {code})")
        return json.loads(raw)

    async def play(self, order: dict, timeout: float) -> dict:
        """Send ``order``; its answer (``EOFError``: the worker died meanwhile)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(order) + "\n").encode())
        await self.proc.stdin.drain()
        return await self._line(timeout)

    async def close(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.write(STOP + b"\n")  # (its stdin may not end: see STOP)
            self.proc.stdin.close()
            await asyncio.wait_for(self.proc.wait(), 10)
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()


async def play_one(spec: GameSpec, plan: Plan, worker: Worker | RemoteWorker, xmpp: str,
                   log_dir: Path, results: Results, roster: Roster, timeout: float,
                   watch: Watch | None = None) -> Finished:
    """One scheduled game on ``worker``, then what it measured into the database;
    ``watch`` is told where the game's log will be, and when the game is over."""
    out = log_dir / f"game-{spec.index:05d}"
    order = {"index": spec.index, "seed": spec.seed, "seats": list(spec.seats),
             "plan": asdict(plan), "xmpp": xmpp, "out": str(out), "timeout": timeout,
             "agents": {n: agent_label(roster, n) for n in spec.seats}}
    t0 = time.monotonic()
    over = watch(spec, out) if watch is not None else None
    try:
        # (the worker gives up on its game after timeout + 60 s; this is its last word)
        done = await worker.play(order, timeout + 120)
    except (EOFError, asyncio.TimeoutError, ValueError) as exc:
        return Finished(spec, False, time.monotonic() - t0, str(exc) or "no answer",
                        worker_lost=True)
    finally:
        if over is not None:
            over()
    if not done.get("ok"):
        return Finished(spec, False, done.get("wall", 0.0), done.get("error", "failed"))
    metrics = metrics_of(done["metrics"])
    roles = {p.name: p.role for p in metrics.players}
    results.record(spec, plan.ruleset, metrics, Path(done["log"]),
                   done["wall"], {"players": plan.players, "rules": list(plan.rules),
                                  "day_seconds": plan.day_seconds,
                                  "night_seconds": plan.night_seconds},
                   done["violations"], prices_of(roster, spec.seats, roles))
    return Finished(spec, True, done["wall"])


async def run_tournament(plan: Plan, roster_path: Path, results: Results, *,
                         xmpp: str, parallel: int, log_dir: Path, timeout: float,
                         on_done: Callable[[Finished], None] | None = None,
                         watch: Watch | None = None, desk: Desk | None = None,
                         on_join: Callable[[RemoteWorker], None] | None = None,
                         fresh_logins: bool = False) -> list[Finished]:
    """Play the games of ``plan`` the database lacks on ``parallel`` long-lived workers,
    and on the workers that join ``desk`` (``maw worker``, ``maw.tournament.remote``;
    ``on_join`` is told of each). A worker's agents stay logged in from one game to the
    next (``maw.hosting.logins``), unless ``fresh_logins``. A game whose worker died (or
    stopped answering) is played once more on another worker (a fresh one, here); a game
    that fails twice, or fails by itself, is reported and left out of the database
    (``--resume`` plays it again)."""
    from maw.hosting.connect import bind_container, start_agents, stop_agents
    from maw.hosting.xmpp import EmbeddedServer, free_port, parse_address

    roster = load_roster(roster_path)
    done = results.done()
    todo: asyncio.Queue[tuple[GameSpec, int]] = asyncio.Queue()
    for g in schedule(roster, plan):
        if g.index not in done:
            todo.put_nowait((g, 0))
    total = todo.qsize()
    address = parse_address(xmpp)
    server = None
    if address.embedded:
        port = address.port if xmpp != "embedded" else free_port()
        server = EmbeddedServer(port)
        await server.start()
        xmpp = f"127.0.0.1:{port}"
    finished: list[Finished] = []
    workers: list[Worker | RemoteWorker] = []
    over = asyncio.Event()  # every game finished
    if total == 0:
        over.set()

    def finish(f: Finished) -> None:
        finished.append(f)
        if on_done is not None:
            on_done(f)
        if len(finished) == total:
            over.set()

    async def next_game() -> tuple[GameSpec, int] | None:
        """A game to play, once one is to be played (a lost one comes back); ``None``
        when every game is finished."""
        getting = asyncio.ensure_future(todo.get())
        ending = asyncio.ensure_future(over.wait())
        await asyncio.wait({getting, ending}, return_when=asyncio.FIRST_COMPLETED)
        ending.cancel()
        if getting.done():
            return getting.result()
        getting.cancel()
        return None

    async def local() -> Worker:
        worker = Worker(log_dir, fresh_logins)
        workers.append(worker)
        await worker.start()
        return worker

    async def serve(worker: Worker | RemoteWorker | None) -> None:
        """Games on ``worker`` (``None``: a fresh local one) until all are finished; a
        lost local worker is replaced by a fresh one, a lost remote one ends its lane."""
        fresh = worker is None
        if worker is None:
            worker = await local()
        while (game := await next_game()) is not None:
            spec, tries = game
            f = await play_one(spec, plan, worker, xmpp, log_dir, results, roster,
                               timeout, watch)
            if f.worker_lost:
                await worker.close()
                if tries == 0:
                    todo.put_nowait((spec, 1))  # played again, on another worker
                else:
                    finish(f)
                if not fresh:
                    return
                worker = await local()
                continue
            finish(f)

    async def welcome(group: asyncio.TaskGroup) -> None:
        assert desk is not None
        while True:
            worker = await desk.joined.get()
            workers.append(worker)
            if on_join is not None:
                on_join(worker)
            group.create_task(serve(worker))

    try:
        if desk is not None:
            bind_container()
            await start_agents([desk], address)
        async with asyncio.TaskGroup() as group:
            for _ in range(min(parallel, total)):
                group.create_task(serve(None))
            if desk is not None:
                joining = group.create_task(welcome(group))
                await over.wait()
                joining.cancel()
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
    finally:
        await asyncio.gather(*(w.close() for w in workers), return_exceptions=True)
        if desk is not None:
            await desk.dismiss()
            await stop_agents([desk])
        if server is not None:
            await server.stop()
    return finished


def prices_of(roster: Roster, seats, roles: dict[str, str] | None = None) -> dict[str, float]:
    """What a million tokens cost each model seat of ``seats``, where the roster says
    (``roles``: the role each played, for a roster whose groups price their models)."""
    out = {}
    for p in roster.player:
        if p.name in seats and decider_kind(p.decider).needs_model:
            group = group_of((roles or {}).get(p.name))
            price = roster.llm_for(p, group).price_per_million
            if price is not None:
                out[p.name] = price
    return out


def roster_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def resume_plan(results: Results, plan: Plan, resume: bool) -> tuple[Plan, set]:
    """The plan to play into ``results`` (stored there too) and the games it already has.

    A database that holds games is only gone on with ``resume``, and only by the same
    tournament (roster, players, ruleset, seed, phase times); more games than stored
    extend the plan, fewer never shrink it."""
    stored = results.plan()
    done = results.done()
    if stored is not None and done and not resume:
        raise MawError(f"{results.path} already holds {len(done)} game(s): --resume to go on "
                       "with them, or another --out")
    if stored is not None and resume:
        differ = ["the roster's content" if k == "roster_sha" else
                  f"{k.replace('_', ' ')} {getattr(stored, k)!r}, not {v!r}"
                  for k, v in vars(plan).items() if k != "games" and getattr(stored, k) != v]
        if differ:
            raise MawError(f"{results.path} was made by another tournament ("
                           f"{'; '.join(differ)}): --resume needs the same command")
        if plan.games < stored.games:
            plan = stored  # never shrink: the stored games stay the plan
    results.save_plan(plan)
    return plan, done
