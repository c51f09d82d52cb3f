"""9-player games with every seat an AIWolf client at MAW's endpoint (``maw game --aiwolf 9``).

    .venv/bin/python benchmarks/aiwolf_bridge.py [--games 5] [--players 9]

The clients are ``maw aiwolf-client --policy rule`` (MAW's rule player on
aiwolf-nlp-common's client, one process each): they answer at once, so the figures are the
bridge's own cost. Per game: the game's length (from dealing the roles to the outcome),
the bridge's per-request latency (from the packet leaving the host to the answer's
arrival: median and 95th percentile of the agents' medians and 95th percentiles), and the
host process's peak memory (its maximum resident set). Printed and stored in
``benchmarks/results/aiwolf_bridge.json``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.xmpp import free_port  # noqa: E402

MAW = [sys.executable, "-m", "maw"]


def one(players: int, seed: int) -> dict:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        host = subprocess.Popen(
            ["/usr/bin/time", "-f", "maxrss %M", *MAW, "game", "--ruleset",
             f"aiwolf-{players}", "--players", str(players), "--aiwolf", str(players),
             "--aiwolf-port", str(port), "--xmpp", f"embedded:{free_port()}", "--seed",
             str(seed), "--log-dir", tmp, "--quiet"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        t0 = time.monotonic()
        clients = [subprocess.Popen(
            [*MAW, "aiwolf-client", "--url", f"ws://127.0.0.1:{port}/ws", "--name",
             f"rule{i}", "--policy", "rule", "--seed", str(i)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO)
            for i in range(1, players + 1)]
        out, err = host.communicate(timeout=900)
        wall = time.monotonic() - t0
        for c in clients:
            c.wait(timeout=60)
        if host.returncode != 0:
            raise SystemExit(f"the host failed: {err[-2000:]}")
    game = float(re.search(r"round\(s\) in ([\d.]+) s", out).group(1))
    rounds = re.search(r"round 1: (\S+) won on day (\d+)", out)
    agents = re.findall(r"AIWolf \S+ .*?: (\d+) requests, (\d+) failed, median (\d+) ms, "
                        r"p95 (\d+) ms", out)
    rss = int(re.search(r"maxrss (\d+)", err).group(1)) / 1024
    return {"seed": seed, "players": players, "game_s": round(game, 2),
            "wall_s": round(wall, 2), "winner": rounds.group(1), "days": int(rounds.group(2)),
            "requests": sum(int(a[0]) for a in agents),
            "failed": sum(int(a[1]) for a in agents),
            "median_ms": statistics.median(int(a[2]) for a in agents),
            "p95_ms": max(int(a[3]) for a in agents), "host_peak_mb": round(rss, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--players", type=int, default=9)
    args = ap.parse_args()
    rows = []
    for seed in range(1, args.games + 1):
        row = one(args.players, seed)
        rows.append(row)
        print(f"seed {seed}: {row['game_s']:6.2f} s of play ({row['wall_s']:.1f} s with "
              f"start-up), {row['days']} days, {row['requests']} requests "
              f"({row['failed']} failed), latency median {row['median_ms']} ms, p95 "
              f"{row['p95_ms']} ms; host peak {row['host_peak_mb']} MB", flush=True)
    print(f"median game {statistics.median(r['game_s'] for r in rows):.2f} s, median "
          f"latency {statistics.median(r['median_ms'] for r in rows)} ms, worst p95 "
          f"{max(r['p95_ms'] for r in rows)} ms, host peak "
          f"{max(r['host_peak_mb'] for r in rows)} MB")
    save("aiwolf_bridge", rows)


if __name__ == "__main__":
    main()
