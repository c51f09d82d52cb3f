"""A person's day against rule players: how long each day runs on after its last vote.

    .venv/bin/python benchmarks/person_day.py [--seeds 1-3] [--label after] [--repo DIR]

Each seed hosts ``maw game --players 6 --humans 1`` as a user would (the host's own
defaults for a game with a person: 120 s days, the AI players at a person's pace, the
votes after the talk) with five rule players, and a scripted person in the same process
(``maw play``'s agents, a console that types): it passes the talk, votes for the first
living player it may as soon as the votes open, then types ``/ready`` (``/pass`` where
the code has no ``/ready``). From the host's log, for every day: the seconds from its
last execution vote to its end (an execution or none). ``--repo DIR`` plays with the
code of another checkout (the "before" of a change). Printed, and stored in
``benchmarks/results/person_day-LABEL.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class Person:
    """A console that passes the talk, votes at once and says it is done."""

    def __init__(self, ready: str) -> None:
        self.ready = ready
        self.view: dict = {}
        self.options: list = []
        self.lines: asyncio.Queue[str] = asyncio.Queue()
        self.done: set = set()

    def show(self, line: str) -> None:
        pass

    def update(self, **status) -> None:
        self.view = status.get("view") or self.view
        self.options = status.get("options") or []
        v = self.view
        if not v or not v.get("alive", True) or v.get("phase") != "day":
            return
        day = v.get("day")
        votes = [o for o in self.options if o.get("action") == "vote"]
        if not votes and ("talk", day) not in self.done:
            self.done.add(("talk", day))
            self.lines.put_nowait("/pass")  # (the talk first: nothing to say)
        elif votes and ("vote", day) not in self.done:
            self.done.add(("vote", day))
            self.lines.put_nowait(f"/vote {votes[0]['target']}")
            self.lines.put_nowait(self.ready)

    async def read(self) -> str | None:
        return await self.lines.get()


async def one_game(seed: int, log_dir: Path) -> Path:
    from maw.engine import ruleset
    from maw.hosting.game import run_game
    from maw.hosting.plan import GameRequest, plan_game
    from maw.hosting.players import run_person
    from maw.hosting.xmpp import EmbeddedServer, free_port
    from maw.terminal.commands import LOCAL

    ready = "/ready" if any(c == "/ready" for c, _ in LOCAL) else "/pass"
    server = EmbeddedServer(free_port())
    await server.start()
    try:
        request = GameRequest(players=6, rules=ruleset("maw"), seed=seed, humans=1,
                              policy="rule", lobby="bench", log_dir=log_dir,
                              xmpp=f"localhost:{server.port}")
        plan = await plan_game(request)
        game = asyncio.create_task(run_game(plan.config, plan.seats, plan.address,
                                            timeout=1800, remote=1, lobby="bench"))
        await run_person(plan.address, "bench", Person(ready), name="Zed", timeout=1800)
        result = await game
        return result.log_path
    finally:
        await server.stop()


def run_on(log: list[dict]) -> list[float]:
    """Per day: seconds from its last execution vote to its end."""
    last: dict[int, float] = {}
    out = []
    for r in log:
        if r["kind"] != "event":
            continue
        data = r["data"]
        if r["event"] == "VoteCast" and data.get("kind") == "execute":
            last[data["day"]] = r["t"]
        elif r["event"] in ("Executed", "NoExecution") and data["day"] in last:
            out.append(round(r["t"] - last[data["day"]], 2))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-3")
    parser.add_argument("--label", default="after")
    parser.add_argument("--repo", default=None)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--log-dir", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:  # (in the child: the checkout's code on sys.path)
        print(asyncio.run(one_game(args.one, Path(args.log_dir))))
        return
    sys.path.insert(0, str(REPO / "benchmarks"))
    from record import save

    repo = Path(args.repo).resolve() if args.repo else REPO
    low, _, high = args.seeds.partition("-")
    rows = []
    for seed in range(int(low), int(high or low) + 1):
        out = Path(tempfile.mkdtemp(prefix="maw-person-bench-"))
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one",
                               str(seed), "--log-dir", str(out)], capture_output=True,
                              text=True, cwd=repo, env=dict(os.environ, PYTHONPATH=str(repo)))
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        log = [json.loads(x) for x in Path(proc.stdout.strip().splitlines()[-1])
               .read_text().splitlines()]
        over = next(r for r in log if r["kind"] == "outcome")
        days = run_on(log)
        row = {"seed": seed, "days": over["day"], "winner": over["winner"],
               "run_on_seconds": days, "game_seconds": round(over["t"], 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    every = [s for r in rows for s in r["run_on_seconds"]]
    print(f"{len(every)} days: after the last vote a day ran on "
          f"{statistics.median(every):.1f} s (median), {max(every):.1f} s at most")
    save(f"person_day-{args.label}", rows)


if __name__ == "__main__":
    main()
