"""Tournament throughput: games per minute with instant rule players for K = 1, 2, 4
parallel games on this machine, and games per hour with the embedded model; then issue
44's figure: 200 games on 2 workers whose agents stay logged in from game to game, paired
with the same tournament logging every game's agents in afresh (``--fresh-logins``).

    .venv/bin/python benchmarks/tournament.py [--games 12] [--llm-games 2]
        [--logins-games 200] [--pairs 3] [--no-save]

Each row runs `maw tournament` (one embedded XMPP server, ``--parallel`` long-lived
workers) into a fresh database and times the whole command, start-up included. The pairs
run kept, fresh, kept, fresh...; each pair's ratio is taken. Printed and stored in
``benchmarks/results/tournament.json``.
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


def run(roster: str, games: int, parallel: int, day: float, night: float,
        *extra: str) -> dict:
    out = Path(tempfile.mkdtemp(prefix="maw-tournament-bench-"))
    db = out / "t.db"
    cmd = [sys.executable, "-m", "maw", "tournament", "--roster", roster, "--games",
           str(games), "--players", "6", "--parallel", str(parallel), "--out", str(db),
           "--log-dir", str(out / "logs"), "--early-end", "--day-seconds", str(day),
           "--night-seconds", str(night), "--seed", "1", *extra]
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
            "logins": "fresh" if "--fresh-logins" in extra else "kept",
            "wall_seconds": round(wall, 1), "games_per_minute": round(60 * n / wall, 2),
            "games_per_hour": round(3600 * n / wall, 1),
            "mean_game_seconds": round(game_s, 2), "llm_calls_per_game": (calls or 0) / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="rule-player games per K")
    parser.add_argument("--llm-games", type=int, default=2, help="0 to skip the model")
    parser.add_argument("--logins-games", type=int, default=200,
                        help="games of each kept/fresh pair (0 to skip)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    rows = []
    rule = str(REPO / "agents" / "rule.toml")
    ratios = []
    for _ in range(args.pairs if args.logins_games else 0):
        kept = run(rule, args.logins_games, 2, 30, 15)
        fresh = run(rule, args.logins_games, 2, 30, 15, "--fresh-logins")
        ratios.append(round(kept["games_per_minute"] / fresh["games_per_minute"], 2))
        rows += [kept, fresh]
        print(kept, fresh, f"kept/fresh {ratios[-1]}x", flush=True)
    if ratios:
        print(f"median kept/fresh {sorted(ratios)[len(ratios) // 2]}x; kept games a minute "
              f"{sorted(r['games_per_minute'] for r in rows if r['logins'] == 'kept')}")
    for k in (1, 2, 4):
        rows.append(run(rule, args.games, k, 10, 5))
        print(rows[-1], flush=True)
    if args.llm_games:
        rows.append(run(str(REPO / "agents" / "local.toml"), args.llm_games, 1, 45, 20))
        print(rows[-1], flush=True)
    if not args.no_save:
        save("tournament", rows)


if __name__ == "__main__":
    main()
