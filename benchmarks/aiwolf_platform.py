"""MAW's player in a game set on the AIWolf 0.6 platform's own server, against the
platform's own Java sample players (the Protocol division's table).

    .venv/bin/python benchmarks/aiwolf_platform.py --sources DIR [--games 10] [--players 5]

``DIR`` holds checkouts of the AIWolf 0.6 platform's repositories (github.com/aiwolf:
``AIWolfCommon``, ``AIWolfServer``, ``AIWolfClient``, branch 0.6.x; not part of MAW), which
this script compiles with the machine's ``javac`` beside ``aiwolf_java/SetServer.java``
(the platform's ``TcpipServer`` and ``AIWolfGame``: one connection per agent for the whole
set, ``GameSetting.getDefaultGame(players)``, each game seeded and logged in the
platform's log format). It starts that server, ``players - 1`` unmodified Java
``SampleRoleAssignPlayer`` agents (``ClientStarter``), and ``maw aiwolf-client --tcp`` with
``--policy``, then reads the platform's logs: MAW's agent's role and win in each game, the
sample players' wins, and how fast MAW answered (the platform gives an agent 1 s; the
regulation asks for 100 ms). Win rates with Wilson 95% intervals, in
``benchmarks/results/aiwolf_platform.json``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from aiwolf_java import build  # benchmarks/aiwolf_java.py
from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402

WOLVES = {"WEREWOLF", "POSSESSED"}
NAME = "maw"


def read_log(path: Path) -> tuple[dict[int, tuple[str, str]], str]:
    """A platform log: each agent's (role, name) on day 0, and the winning team."""
    seats, winner = {}, ""
    for line in path.read_text().splitlines():
        f = line.split(",")
        if f[1] == "status" and f[0] == "0":
            seats[int(f[2])] = (f[3], f[5])
        elif f[1] == "result":
            winner = f[4]
    return seats, winner


def team(role: str) -> str:
    return "WEREWOLF" if role in WOLVES else "VILLAGER"


def play_set(cp: str, logs: Path, players: int, games: int, policy: str, seed: int) -> dict:
    """One game set: the server, ``players - 1`` Java sample agents and MAW's client."""
    port = free_port()
    procs: list[subprocess.Popen] = []
    t0 = time.monotonic()
    try:
        server = subprocess.Popen(
            ["java", "-cp", cp, "SetServer", str(port), str(players), str(games), str(logs),
             str(seed)], stdout=subprocess.PIPE, text=True)
        procs.append(server)
        time.sleep(1.0)
        for _ in range(players - 1):
            procs.append(subprocess.Popen(
                ["java", "-cp", cp, "org.aiwolf.common.bin.ClientStarter", "-h", "localhost",
                 "-p", str(port), "-c", "org.aiwolf.sample.player.SampleRoleAssignPlayer"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        client = subprocess.run(
            [sys.executable, "-m", "maw", "aiwolf-client", "--tcp", f"localhost:{port}",
             "--name", NAME, "--policy", policy, "--seed", str(seed)],
            capture_output=True, text=True, timeout=60 * games + 120, cwd=REPO)
        server.wait(60)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    if client.returncode:
        raise SystemExit(f"maw aiwolf-client failed:\n{client.stderr[-2000:]}")
    summary = client.stdout.strip().splitlines()[-1]
    maw_wins, sample_wins, sample_seats, roles = 0, 0, 0, []
    played = sorted(logs.glob("game-*.log"))
    for path in played:
        seats, winner = read_log(path)
        for role, name in seats.values():
            won = team(role) == winner
            if name == NAME:
                maw_wins += won
                roles.append(role)
            else:
                sample_wins += won
                sample_seats += 1
    n = len(played)
    lo, hi = wilson(maw_wins, n)
    slo, shi = wilson(sample_wins, sample_seats)
    p95 = float(re.search(r"95th percentile ([\d.]+) ms", summary).group(1))  # type: ignore[union-attr]
    slowest = float(re.search(r"slowest ([\d.]+) ms", summary).group(1))  # type: ignore[union-attr]
    minutes = (time.monotonic() - t0) / 60
    print(summary)
    print(f"{n} games of {players} on AIWolfServer 0.6: MAW's {policy} player won "
          f"{maw_wins}/{n} ({100 * maw_wins / n:.0f}%, 95% {100 * lo:.0f}-{100 * hi:.0f}); "
          f"the Java samples {sample_wins}/{sample_seats} ({100 * slo:.0f}-{100 * shi:.0f}); "
          f"MAW's roles: {', '.join(sorted(set(roles)))}; {minutes:.1f} min", flush=True)
    return {"players": players, "games": n, "policy": policy,
            "maw_wins": maw_wins, "maw_ci95": [round(lo, 3), round(hi, 3)],
            "sample_wins": sample_wins, "sample_seats": sample_seats,
            "sample_ci95": [round(slo, 3), round(shi, 3)],
            "maw_roles": {r: roles.count(r) for r in sorted(set(roles))},
            "answer_p95_ms": p95, "answer_max_ms": slowest, "minutes": round(minutes, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--games", type=int, default=10, help="games a set")
    parser.add_argument("--players", default="5", help="a set's size, or sizes: 5,15")
    parser.add_argument("--policy", default="rule")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    build_dir, cp = build(args.sources, Path(__file__).parent / "aiwolf_java" / "SetServer.java")
    try:
        rows = [play_set(cp, build_dir / f"logs-{n}", int(n), args.games, args.policy,
                         args.seed) for n in args.players.split(",")]
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    if not args.no_save:
        save("aiwolf_platform", rows)


if __name__ == "__main__":
    main()
