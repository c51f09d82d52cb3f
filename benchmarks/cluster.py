"""Tournaments across the compose cluster (docker/compose.cluster.yaml): games a minute with
1, 2 and 4 workers over two ejabberd nodes, and 4 workers on one node.

    .venv/bin/python benchmarks/cluster.py [--games 60] [--rows 2x1,2x2,2x4,1x4]

A row ``NxK`` starts the two nodes, the coordinator and workers 1..K (with N = 1 every
worker attaches to ej1: ``MAW_SECOND_NODE=ej1``), plays ``--games`` six-player rule games
(agents/rule.toml, early end) and times the coordinator from its first game handed out to
its exit (the database's games over that wall time); ``maw report`` must count them all.
Stored in ``benchmarks/results/cluster.json``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
CLUSTER = REPO / "docker" / "compose.cluster.yaml"


def row(nodes: int, workers: int, games: int) -> dict:
    project = f"mawbench{nodes}x{workers}"
    env = {**os.environ, "MAW_GAMES": str(games), "MAW_SEED": "7",
           **({"MAW_SECOND_NODE": "ej1"} if nodes == 1 else {})}
    compose = ["docker-compose", "-p", project, "-f", str(CLUSTER)]
    services = ["ej1", "ej2", "coordinator", *(f"worker{i}" for i in range(1, workers + 1))]
    try:
        subprocess.run([*compose, "up", "--build", "-d", "--no-deps", "ej1", "ej2"], env=env,
                       check=True, capture_output=True, timeout=900)
        for _ in range(120):  # both nodes healthy, clustered
            states = subprocess.run([*compose, "ps"], env=env, capture_output=True,
                                    text=True).stdout
            if states.count("(healthy)") >= 2:
                break
            time.sleep(1)
        t0 = time.monotonic()
        subprocess.run([*compose, "up", "-d", *services], env=env, check=True,
                       capture_output=True, timeout=300)
        coordinator = subprocess.run([*compose, "ps", "-q", "coordinator"], env=env,
                                     capture_output=True, text=True).stdout.strip()
        code = subprocess.run(["docker", "wait", coordinator], capture_output=True,
                              text=True, timeout=3600).stdout.strip()
        wall = time.monotonic() - t0
        report = subprocess.run([*compose, "run", "--rm", "--no-deps", "--entrypoint", "maw",
                                 "coordinator", "report", "/data/cluster.db"], env=env,
                                capture_output=True, text=True, timeout=300).stdout
    finally:
        subprocess.run([*compose, "down", "-v", "--remove-orphans"], env=env,
                       capture_output=True, timeout=300)
    counted = re.search(r"games: (\d+),", report)
    n = int(counted.group(1)) if counted else 0
    out = {"nodes": nodes, "workers": workers, "games": n, "exit_code": int(code or -1),
           "seconds": round(wall, 1), "games_per_minute": round(60 * n / wall, 1)}
    print(f"{nodes} node(s), {workers} worker(s): {n}/{games} games in {wall:.0f} s, "
          f"{out['games_per_minute']} games a minute (coordinator exit {code})", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--rows", default="2x1,2x2,2x4,1x4")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    rows = [row(int(r.split("x")[0]), int(r.split("x")[1]), args.games)
            for r in args.rows.split(",")]
    if not args.no_save:
        save("cluster", rows)


if __name__ == "__main__":
    main()
