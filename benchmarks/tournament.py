"""Tournament throughput: games per minute with instant rule players for K = 1, 2, 4
parallel games on this machine, and games per hour with the embedded model.

    .venv/bin/python benchmarks/tournament.py [--games 12] [--llm-games 2] [--no-save]

Each row runs `maw tournament` (one embedded XMPP server, each game a `maw game` child
process) into a fresh database and times it from start to the last commit. Printed and
stored in ``benchmarks/results/tournament.json``.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent


def run(roster: str, games: int, parallel: int, day: float, night: float) -> dict:
    out = Path(tempfile.mkdtemp(prefix="maw-tournament-bench-"))
    db = out / "t.db"
    cmd = [sys.executable, "-m", "maw", "tournament", "--roster", roster, "--games",
           str(games), "--players", "6", "--parallel", str(parallel), "--out", str(db),
           "--log-dir", str(out / "logs"), "--early-end", "--day-seconds", str(day),
           "--night-seconds", str(night)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    with sqlite3.connect(db) as c:
        n, game_s, calls = c.execute(
            "SELECT COUNT(*), AVG(seconds), (SELECT SUM(llm_calls) FROM players) "
            "FROM games").fetchone()
    return {"roster": Path(roster).name, "games": n, "parallel": parallel,
            "wall_seconds": round(wall, 1), "games_per_minute": round(60 * n / wall, 2),
            "games_per_hour": round(3600 * n / wall, 1),
            "mean_game_seconds": round(game_s, 2), "llm_calls_per_game": (calls or 0) / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="rule-player games per K")
    parser.add_argument("--llm-games", type=int, default=2, help="0 to skip the model")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    rows = []
    for k in (1, 2, 4):
        rows.append(run(str(REPO / "agents" / "rule.toml"), args.games, k, 10, 5))
        print(rows[-1], flush=True)
    if args.llm_games:
        rows.append(run(str(REPO / "agents" / "local.toml"), args.llm_games, 1, 45, 20))
        print(rows[-1], flush=True)
    if not args.no_save:
        save("tournament", rows)


if __name__ == "__main__":
    main()
