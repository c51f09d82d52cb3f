"""Games of N hosted rule players, every agent in one process, over XMPP: messages, log
and seconds at 6, 15, 30 and 75 players, and how they grow.

    .venv/bin/python benchmarks/large_games.py [--sizes 6,15,30,75]
        [--servers embedded,ejabberd] [--seed 1]

Per game: ``maw game --players N --policy rule --early-end --seed S --quiet``, on the
embedded server (in the game's process) or on ejabberd (``scripts/ejabberd.sh``, a node
of its own, started once for all sizes). Printed and stored in
``benchmarks/results/large_games.json``: the agents' start-up and the play (the game's
Summary line), the days, the messages sent (each recipient of each ``msg`` record), the
game log's size and records, the process's peak memory, and each figure's growth from
the size before (an exponent: 2 is N²).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py
from xmpp_game import Server  # benchmarks/xmpp_game.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.records.schema import recipients  # noqa: E402

# the game through a small launcher: a process started straight from this one inherits
# this one's peak memory as its own (Linux keeps the high-water mark across exec)
LAUNCH = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""


def play(players: int, seed: int, xmpp: str) -> dict:
    out = Path(tempfile.mkdtemp(prefix="maw-large-"))
    args = [sys.executable, "-m", "maw", "game", "--players", str(players), "--policy",
            "rule", "--early-end", "--seed", str(seed), "--quiet", "--log-dir", str(out)]
    if xmpp != "embedded":
        args += ["--xmpp", xmpp]
    t0 = time.monotonic()
    with (out / "stdout").open("w") as stdout_, (out / "stderr").open("w") as stderr_:
        code = subprocess.run([sys.executable, "-c", LAUNCH, str(out / "peak"), *args],
                              stdout=stdout_, stderr=stderr_).returncode
    wall = time.monotonic() - t0
    stdout = (out / "stdout").read_text()
    if code != 0:
        raise SystemExit(f"{players} players on {xmpp}: "
                         f"{(out / 'stderr').read_text().strip()[-500:]}")
    summary = re.search(r"in ([\d.]+) s \(agents started in ([\d.]+) s\)", stdout)
    day = re.search(r"round 1: (\w+) won on day (\d+)", stdout)
    log = next(out.glob("*.jsonl"))
    records = [json.loads(line) for line in log.read_text().splitlines() if line]
    messages = sum(len(recipients(r)) for r in records if r["kind"] == "msg")
    return {"players": players, "wall": round(wall, 1),
            "startup": float(summary.group(2)) if summary else None,
            "play": float(summary.group(1)) if summary else None,
            "winner": day.group(1) if day else None, "days": int(day.group(2)) if day else None,
            "messages": messages, "log_mb": round(log.stat().st_size / 1e6, 2),
            "records": len(records),
            "peak_mb": round(int((out / "peak").read_text()) / 1024)}


def growth(rows: list[dict], key: str) -> list[float | None]:
    """The exponent of each row's ``key`` against the row before: log(y2/y1)/log(n2/n1)."""
    out: list[float | None] = [None]
    for a, b in zip(rows, rows[1:], strict=False):
        if a.get(key) and b.get(key):
            out.append(round(math.log(b[key] / a[key]) / math.log(b["players"] / a["players"]),
                             2))
        else:
            out.append(None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="6,15,30,75")
    parser.add_argument("--servers", default="embedded,ejabberd")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    rows: list[dict] = []
    print(f"{'server':<9} {'players':>7} {'start':>6} {'play':>7} {'days':>4} "
          f"{'messages':>9} {'log MB':>7} {'records':>8} {'peak MB':>7}")
    for kind in args.servers.split(","):
        mine: list[dict] = []
        if kind == "embedded":
            for n in sizes:
                mine.append({"server": kind, **play(n, args.seed, "embedded")})
                show(mine[-1])
        else:
            with Server(kind) as server:
                for n in sizes:
                    mine.append({"server": kind,
                                 **play(n, args.seed, f"127.0.0.1:{server.port}")})
                    show(mine[-1])
        for key in ("play", "messages", "log_mb"):
            for row, g in zip(mine, growth(mine, key), strict=True):
                row[f"{key}_growth"] = g
        print(f"{kind}: growth from size to size (2 = N²): "
              + ", ".join(f"{r['players']}: play {r['play_growth']}, messages "
                          f"{r['messages_growth']}, log {r['log_mb_growth']}"
                          for r in mine[1:]))
        rows += mine
    save("large_games", rows)


def show(r: dict) -> None:
    print(f"{r['server']:<9} {r['players']:>7} {r['startup']:>6} {r['play']:>7} "
          f"{r['days']:>4} {r['messages']:>9} {r['log_mb']:>7} {r['records']:>8} "
          f"{r['peak_mb']:>7}", flush=True)


if __name__ == "__main__":
    main()
