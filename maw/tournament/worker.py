"""A tournament's long-lived worker: it hosts game after game in one process, so a game
no longer pays for an interpreter, its imports and its start-up (``maw tournament``
starts ``--parallel`` of them).

    python -m maw.tournament.worker --log-dir DIR

It reads orders on stdin, one JSON line each (``Order``), plays each game to its end on
the order's XMPP server (its agents' logins kept from one game to the next:
``maw.hosting.logins``; ``--fresh-logins``, each game's afresh), with its log in the
order's folder, then measures it there (``maw.records.metrics``, and ``maw audit``), and
answers one JSON line on stdout (``Done``). It ends at the line ``{"stop": true}`` or when
stdin closes, and dies with the runner that started it. A game that fails is answered as
failed and the worker goes on; a worker that dies costs only its
game, which the runner plays again on a fresh worker.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from maw.hosting.logins import Logins


# the runner's last line: end now. (The end of stdin is not enough: a process forked from
# the runner after this worker started, such as the embedded server's pool of hashers,
# holds the pipe open, and the worker waited until it was killed, 10 s later.)
STOP = b'{"stop": true}'


@dataclass
class Order:
    """One game to play: the tournament's plan (``maw.tournament.runner.Plan`` as a dict),
    the game's index, seed and seats, where to play it and where its log goes."""

    index: int
    seed: int
    seats: list[str]
    plan: dict[str, Any]
    xmpp: str
    out: str
    timeout: float
    agents: dict[str, str] = field(default_factory=dict)  # seat -> agent label


@dataclass
class Done:
    """A game played (``ok``), with what the database keeps of it, or why it failed."""

    index: int
    ok: bool
    wall: float = 0.0
    log: str = ""
    metrics: dict[str, Any] | None = None
    violations: list[str] = field(default_factory=list)
    error: str = ""


async def play(order: Order, logins: Logins | None = None) -> Done:
    """Host the game of ``order`` in this process and measure it; with ``logins``, its
    agents start on the logins the worker's games before left (``maw.hosting.logins``)."""
    from maw.engine import parse_options, ruleset
    from maw.errors import MawError, ReplayError
    from maw.hosting.game import run_game
    from maw.hosting.plan import GameRequest, plan_game
    from maw.hosting.seats import narration_of
    from maw.records.accounting import read_log
    from maw.records.audit import audit_records
    from maw.records.metrics import game_metrics

    p = order.plan
    out = Path(order.out)
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("game-*"):  # a game a killed runner or worker left: its log,
        # and its rooms' logs (a folder beside it)
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)
    t0 = time.monotonic()
    try:
        rules = ruleset(p["ruleset"], **parse_options(list(p["rules"])))
        request = GameRequest(
            players=p["players"], rules=rules, seed=order.seed, roster=p["roster"],
            seats=",".join(order.seats), day_seconds=p["day_seconds"],
            night_seconds=p["night_seconds"], xmpp=order.xmpp, log_dir=out,
            rule_options=tuple(p["rules"]), early_end=p["early_end"],
            substitute=p["substitute"])
        plan = await plan_game(request, say=lambda line: None)
        await asyncio.wait_for(
            run_game(plan.config, plan.seats, plan.address, timeout=order.timeout,
                     lobby=plan.lobby, say=lambda line: None,
                     narration=narration_of(plan.moderator),
                     logins=logins if plan.lobby is None else None),
            order.timeout + 60)
    except (MawError, asyncio.TimeoutError, OSError) as exc:
        return Done(order.index, False, time.monotonic() - t0,
                    error=str(exc) or type(exc).__name__)
    wall = time.monotonic() - t0
    logs = sorted(out.glob("*.jsonl"))
    if not logs:
        return Done(order.index, False, wall, error="the game wrote no log")

    def measure():  # (the log read once for both: what maw audit reads)
        records = [r.model_dump(mode="json") for r in read_log(logs[-1])]
        return game_metrics(records, order.agents), audit_records(records)

    try:  # (in a thread: a remote worker goes on saying it is alive)
        metrics, audit = await asyncio.to_thread(measure)  # (audit: maw audit's check)
    except (ReplayError, ValueError) as exc:  # (ValueError: a record of the wrong shape)
        return Done(order.index, False, wall, error=f"{logs[-1]}: {exc}")
    return Done(order.index, True, wall, str(logs[-1]), asdict(metrics),
                [str(v) for v in audit.violations])


async def serve(reader: asyncio.StreamReader, logins: Logins | None) -> None:
    """Play the orders read from ``reader`` one after another, on ``logins`` kept from
    game to game (``None``: each game's agents log in afresh); answer each on stdout."""
    print(json.dumps({"ready": os.getpid()}), flush=True)
    try:
        await _serve(reader, logins)
    finally:
        if logins is not None:
            await logins.close()


async def _serve(reader: asyncio.StreamReader, logins: Logins | None) -> None:
    while line := await reader.readline():
        if line.strip() == STOP:
            return
        try:
            order = Order(**json.loads(line))
        except (ValueError, TypeError) as exc:
            print(json.dumps({"error": f"bad order: {exc}"}), flush=True)
            continue
        try:
            done = await play(order, logins)
        except Exception as exc:  # a bug in one game: answer it, keep serving
            done = Done(order.index, False, error=f"{type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
        print(json.dumps(asdict(done)), flush=True)


async def _main(fresh: bool) -> None:
    from maw.hosting.logins import Logins

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    await serve(reader, None if fresh else Logins())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m maw.tournament.worker",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--log-dir", required=True,
                        help="the tournament's log folder (each order names its own)")
    parser.add_argument("--fresh-logins", action="store_true",
                        help="log each game's agents in afresh (not kept from game to game)")
    args = parser.parse_args(argv)
    # (what the games print is not the runner's business: answers go to the real stdout)
    real = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(real, "w", buffering=1)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main(args.fresh_logins))
    return 0


if __name__ == "__main__":
    sys.exit(main())
