"""The soak: many engine games per ruleset, then one long XMPP tournament, watched for
leaks.

    .venv/bin/python benchmarks/soak.py [--engine-games 10000] [--xmpp-games 200]
                                        [--parallel 2] [--skip-engine] [--skip-xmpp]

1. **Engine**: ``--engine-games`` games of every ruleset (maw with 6 players, aiwolf-N
   with N) with rule players and again with random ones (``maw.simulate.play_game``,
   which checks every action against the rules): the illegal actions must be 0.
2. **XMPP**: ``maw tournament --games N --roster agents/rule.toml`` on the embedded
   server (in the tournament's own process), day 4 s, night 2 s, ``--early-end``. Every
   second the tournament process's open file descriptors, threads, resident memory and
   child processes are sampled from ``/proc``. When it is over: every game's ``maw
   audit`` from the database, the games that failed, and what is left behind: processes
   whose command line names the soak's folder, and a listener on the server's port.

Stored in ``benchmarks/results/soak.json``.
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from maw.engine.rulesets import RULESET_NAMES  # noqa: E402
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.simulate import play_game  # noqa: E402

NAMES = [f"P{i:02d}" for i in range(15)]


def engine(games: int) -> list[dict]:
    from maw.engine import ruleset

    rows = []
    for name in RULESET_NAMES:
        players = 6 if name == "maw" else int(name.split("-")[1])
        for policy in ("rule", "random"):
            t0 = time.perf_counter()
            illegal = wins = days = 0
            for seed in range(games):
                g = play_game(ruleset(name), NAMES[:players], policy, seed)
                illegal += g.invalid_actions
                wins += g.winner == "village"
                days += g.days
            rows.append({"part": "engine", "ruleset": name, "policy": policy,
                         "games": games, "illegal_actions": illegal,
                         "village_wins": wins, "mean_days": round(days / games, 2),
                         "seconds": round(time.perf_counter() - t0, 1)})
            print(f"{name:10} {policy:7} {games} games, {illegal} illegal actions, "
                  f"village {wins / games:.1%}, {rows[-1]['seconds']} s", flush=True)
    return rows


def proc_sample(pid: int) -> dict | None:
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = dict(line.split(":", 1) for line in status)
    return {"fds": fds, "threads": int(fields["Threads"]),
            "rss_mb": round(int(fields["VmRSS"].split()[0]) / 1024, 1),
            "children": len(children)}


def leftovers(marker: str) -> list[str]:
    """Processes still running whose command line names ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{entry}: {cmd.strip()[:120]}")
    return found


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def xmpp(games: int, parallel: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="maw-soak-"))
    port = free_port()
    db = work / "soak.db"
    cmd = [sys.executable, "-m", "maw", "tournament", "--games", str(games), "--players",
           "6", "--roster", str(REPO / "agents" / "rule.toml"), "--out", str(db),
           "--parallel", str(parallel), "--xmpp", f"embedded:{port}", "--day-seconds", "4",
           "--night-seconds", "2", "--early-end", "--log-dir", str(work / "logs"),
           "--timeout", "300"]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, cwd=work)
    samples = []
    while proc.poll() is None:
        s = proc_sample(proc.pid)
        if s is not None:
            done = 0
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=1) as con:
                        done = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                except sqlite3.Error:
                    pass
            samples.append({"t": round(time.monotonic() - t0, 1), "games": done, **s})
            if len(samples) % 60 == 0:
                print(f"  {samples[-1]}", flush=True)
        time.sleep(1.0)
    wall = time.monotonic() - t0
    err = proc.stderr.read() if proc.stderr else ""
    time.sleep(1.0)
    left = leftovers(str(work))
    with sqlite3.connect(db) as con:
        recorded, violations, audited = con.execute(
            "SELECT COUNT(*), COALESCE(SUM(violations), 0), COUNT(violations) "
            "FROM games").fetchone()
        winners = dict(con.execute("SELECT winner, COUNT(*) FROM games GROUP BY winner"))
    tenth = max(1, len(samples) // 10)
    early, late = samples[tenth:2 * tenth], samples[-tenth:]

    def mean(rows: list[dict], key: str) -> float:
        return round(statistics.fmean(r[key] for r in rows), 1) if rows else 0.0

    row = {"part": "xmpp", "games": games, "recorded": recorded, "audited": audited,
           "violations": violations, "winners": winners, "exit": proc.returncode,
           "failed": games - recorded, "wall_s": round(wall, 1),
           "fds_early": mean(early, "fds"), "fds_late": mean(late, "fds"),
           "fds_max": max((s["fds"] for s in samples), default=0),
           "threads_early": mean(early, "threads"), "threads_late": mean(late, "threads"),
           "rss_early_mb": mean(early, "rss_mb"), "rss_late_mb": mean(late, "rss_mb"),
           "rss_max_mb": max((s["rss_mb"] for s in samples), default=0),
           "children_max": max((s["children"] for s in samples), default=0),
           "leftover_processes": left, "port_still_open": listening(port),
           "stderr_tail": err.strip().splitlines()[-3:]}
    print(row, flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine-games", type=int, default=10_000)
    ap.add_argument("--xmpp-games", type=int, default=200)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--skip-engine", action="store_true")
    ap.add_argument("--skip-xmpp", action="store_true")
    args = ap.parse_args()
    rows = [] if args.skip_engine else engine(args.engine_games)
    if not args.skip_xmpp:
        rows.append(xmpp(args.xmpp_games, args.parallel))
    save("soak", rows)


if __name__ == "__main__":
    main()
