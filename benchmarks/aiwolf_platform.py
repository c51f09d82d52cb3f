"""MAW and the AIWolf 0.6 platform's own agents and server, both ways (the Protocol
division's table): MAW's player in a game set on the platform's server, and the platform's
Java sample players at MAW's table.

    .venv/bin/python benchmarks/aiwolf_platform.py --sources DIR [--games 10] [--players 5,15]
                                                   [--at platform,maw]

``DIR`` holds checkouts of the AIWolf 0.6 platform's repositories (github.com/aiwolf:
``AIWolfCommon``, ``AIWolfServer``, ``AIWolfClient``, branch 0.6.x; not part of MAW), which
this script compiles with the machine's ``javac`` beside ``aiwolf_java/SetServer.java``
(the platform's ``TcpipServer`` and ``AIWolfGame``: one connection per agent for the whole
set, ``GameSetting.getDefaultGame(players)``, each game seeded and logged in the
platform's log format). It starts that server, ``players - 1`` unmodified Java
``SampleRoleAssignPlayer`` agents (``ClientStarter``), and ``maw aiwolf-client --tcp`` with
``--policy``, then reads the platform's logs: MAW's agent's role and win in each game, the
sample players' wins, and how fast MAW answered (the platform gives an agent 1 s; the
regulation asks for 100 ms).

``--at maw``: ``maw game --aiwolf-tcp K --rounds GAMES`` hosts a game set of ``players``
(the Java agents in K = 3 of 5 or 10 of 15 seats, connected once with ``ClientStarter``
for the whole set; MAW's rule players in the rest); the set's log goes through ``maw
audit``, and each game is exported in the platform's log form and replayed by MAW's engine
to its result.
Win rates with Wilson 95% intervals, in ``benchmarks/results/aiwolf_platform.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from aiwolf_java import build  # benchmarks/aiwolf_java.py
from record import save, saved  # benchmarks/record.py

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


def play_set(cp: str, logs: Path, players: int, games: int, policy: str, seed: int,
             memory: bool = False) -> dict:
    """One game set: the server, ``players - 1`` Java sample agents and MAW's client (with
    ``memory``: keeping what it learns of the others over the set, ``--set-memory``)."""
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
             "--name", NAME, "--policy", policy, "--seed", str(seed),
             *(["--set-memory"] if memory else [])],
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
          f"MAW's roles: {', '.join(sorted(set(roles)))}; {minutes:.1f} min"
          f"{'; with --set-memory' if memory else ''}", flush=True)
    return {"at": "platform", "players": players, "games": n, "policy": policy,
            "memory": memory,
            "maw_wins": maw_wins, "maw_ci95": [round(lo, 3), round(hi, 3)],
            "sample_wins": sample_wins, "sample_seats": sample_seats,
            "sample_ci95": [round(slo, 3), round(shi, 3)],
            "maw_roles": {r: roles.count(r) for r in sorted(set(roles))},
            "answer_p95_ms": p95, "answer_max_ms": slowest, "minutes": round(minutes, 2)}


def host_set(cp: str, logs: Path, players: int, games: int, seed: int,
             memory: bool = False) -> dict:
    """A game set of ``games`` games of ``players`` hosted by ``maw game --aiwolf-tcp
    --rounds games``: the Java sample players in most seats, each connected once for the
    whole set, MAW's rule players in the others."""
    java = {5: 3, 15: 10}[players]
    t0 = time.monotonic()
    wins = {"java": [0, 0], "maw": [0, 0]}  # won, seats
    port = free_port()
    game = subprocess.Popen(
        [sys.executable, "-m", "maw", "game", "--ruleset", f"aiwolf-{players}",
         "--players", str(players), "--aiwolf-tcp", str(java), "--aiwolf-tcp-port",
         str(port), "--policy", "rule", "--seed", str(seed), "--rounds", str(games),
         "--log-dir", str(logs), "--quiet", *(["--set-memory"] if memory else [])],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO)
    agents = []
    try:
        deadline = time.monotonic() + 60
        while "waiting" not in (game.stdout.readline() or "waiting"):  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise SystemExit("maw game did not start")
        for _ in range(java):
            agents.append(subprocess.Popen(
                ["java", "-cp", cp, "org.aiwolf.common.bin.ClientStarter", "-h",
                 "localhost", "-p", str(port), "-c",
                 "org.aiwolf.sample.player.SampleRoleAssignPlayer"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        out, _ = game.communicate(timeout=120 * games)
    finally:
        for a in [game, *agents]:
            if a.poll() is None:
                a.kill()
    if game.returncode:
        raise SystemExit(f"maw game failed:\n{out[-2000:]}")
    p95s = sorted(float(x) for x in re.findall(r"p95 (\d+) ms", out))
    log = next(logs.glob("game-*.jsonl"))
    audit = subprocess.run([sys.executable, "-m", "maw", "audit", str(log)],
                           capture_output=True, text=True, cwd=REPO)
    if audit.returncode:
        raise SystemExit(f"maw audit failed on {log}:\n{audit.stdout[-2000:]}")
    # ... and each game in the platform's own log form, replayed by MAW's engine
    exported = logs / "platform"
    exported.mkdir()
    subprocess.run([sys.executable, "-m", "maw", "export", "--aiwolf", str(log), "--out",
                    str(exported / "set.log"), "--platform"], check=True, capture_output=True,
                   cwd=REPO)
    again = subprocess.run([sys.executable, "-m", "maw.aiwolf.replay", str(exported)],
                           capture_output=True, text=True, cwd=REPO)
    agree = re.search(r"(\d+) of (\d+) games agree", again.stdout)
    if again.returncode or agree is None or agree.group(1) != str(games):
        raise SystemExit(f"the set does not replay:\n{again.stdout[-2000:]}")
    outcomes = [json.loads(x) for x in log.read_text().splitlines() if '"kind":"outcome"' in x]
    for outcome in outcomes:
        for name, points in outcome["points"].items():
            side = "java" if name.startswith("SampleRoleAssign") else "maw"
            wins[side][0] += points > 0
            wins[side][1] += 1
    minutes = (time.monotonic() - t0) / 60
    row: dict = {"at": "maw", "players": players, "games": len(outcomes), "memory": memory,
                 "java_agents": java, "audited": audit.stdout.count(": ok"),
                 "replayed": int(agree.group(1)), "minutes": round(minutes, 2),
                 "java_answer_p95_ms_median": p95s[len(p95s) // 2] if p95s else None,
                 "java_answer_p95_ms_max": p95s[-1] if p95s else None}
    for side, (won, n) in wins.items():
        lo, hi = wilson(won, n)
        row[f"{side}_wins"], row[f"{side}_seats"] = won, n
        row[f"{side}_ci95"] = [round(lo, 3), round(hi, 3)]
    print(f"a set of {len(outcomes)} games of {players} at MAW's table ({java} Java sample "
          f"agents over TCP, one connection each, the rest MAW rule players): Java "
          f"{wins['java'][0]}/{wins['java'][1]}, MAW {wins['maw'][0]}/{wins['maw'][1]} seats "
          f"won; its log passes maw audit; {agree.group(1)} games replay in the platform's "
          f"log form; the Java agents' p95 answer (MAW's measure) median "
          f"{row['java_answer_p95_ms_median']} ms; {minutes:.1f} min", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--games", type=int, default=10, help="games a set")
    parser.add_argument("--players", default="5", help="a set's size, or sizes: 5,15")
    parser.add_argument("--policy", default="rule")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--at", default="platform,maw",
                        help="platform: MAW's client on AIWolfServer; maw: the Java agents "
                             "at MAW's table")
    parser.add_argument("--set-memory", action="store_true",
                        help="MAW's players keep what they learn of the others over the set")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    build_dir, cp = build(args.sources, Path(__file__).parent / "aiwolf_java" / "SetServer.java")
    try:
        rows = []
        for at in args.at.split(","):
            for n in map(int, args.players.split(",")):
                logs = build_dir / f"logs-{at}-{n}"
                rows.append(play_set(cp, logs, n, args.games, args.policy, args.seed,
                                     args.set_memory)
                            if at == "platform" else host_set(cp, logs, n, args.games,
                                                              args.seed, args.set_memory))
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    if not args.no_save:  # (the rows of the directions and sizes not run again are kept)
        kept = saved("aiwolf_platform")

        def key(r: dict) -> tuple:
            return r.get("at", "platform"), r["players"], r.get("memory", False)

        ran = {key(r) for r in rows}
        save("aiwolf_platform", [r for r in kept if key(r) not in ran] + rows)


if __name__ == "__main__":
    main()
