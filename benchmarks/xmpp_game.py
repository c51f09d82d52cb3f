"""Full games over XMPP with one OS process per player, on pyjabber and on ejabberd.

    .venv/bin/python benchmarks/xmpp_game.py [--sizes 6,15,75] [--servers pyjabber,ejabberd]

Per game: the lobby (``maw game --remote N``) in one process, and ``maw player`` (an
instant rule player with its interface) in each of N more, all on the same server. Phase
timers are long (120 s) so every phase ends by the rules or because every player said
"listen": the game's time is set by its message hops. Printed and stored in
``benchmarks/results/xmpp_game.json``:

- start-up: seconds from launching the processes until the last player joined;
- game: seconds from dealing the roles to the outcome;
- messages: every message sent in the game (from all logs), and those that crossed the
  server (between processes; a player and its interface share a process);
- messages per second over the game.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.xmpp import free_port, port_open  # noqa: E402
from maw.records.schema import recipients  # noqa: E402


def wait_port(port: int, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if port_open("127.0.0.1", port):
            return
        time.sleep(0.1)
    raise SystemExit(f"no server on port {port} after {seconds} s")


class Server:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.state = tempfile.mkdtemp(prefix=f"maw-bench-{kind}-")
        self.env = dict(os.environ, MAW_EJABBERD_DIR=self.state,
                        MAW_EJABBERD_PORT=str(self.port),
                        MAW_EJABBERD_NODE=f"maw-bench-{self.port}@localhost")

    def __enter__(self) -> Server:
        if self.kind == "pyjabber":
            self.proc = subprocess.Popen([sys.executable, "-m", "maw", "server", "--port",
                                          str(self.port)], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
        else:
            subprocess.run(["bash", str(REPO / "scripts" / "ejabberd.sh"), "start"],
                           env=self.env, check=True, stdout=subprocess.DEVNULL)
        wait_port(self.port)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(30)
        else:
            subprocess.run(["bash", str(REPO / "scripts" / "ejabberd.sh"), "stop"],
                           env=self.env, stdout=subprocess.DEVNULL)
        shutil.rmtree(self.state, ignore_errors=True)


def maw(*args: str) -> list[str]:
    return [sys.executable, "-m", "maw", *args]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def play(server: Server, players: int, seed: int) -> dict:
    out = Path(tempfile.mkdtemp(prefix="maw-bench-logs-"))
    lobby = f"bench{players}x{seed}"
    where = f"127.0.0.1:{server.port}"
    t0 = time.time()
    gm = subprocess.Popen(
        maw("game", "--players", str(players), "--remote", str(players), "--lobby", lobby,
            "--seed", str(seed), "--xmpp", where, "--log-dir", str(out / "gm"),
            "--early-end",
            "--day-seconds", "120", "--night-seconds", "120", "--lobby-seconds", "600",
            "--quiet"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    names = [f"P{i:02d}" for i in range(players)]
    procs = [subprocess.Popen(maw("player", "--name", n, "--lobby", lobby, "--xmpp", where,
                                  "--seed", str(i), "--quiet", "--join-seconds", "600",
                                  "--log-dir", str(out / "players")),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i, n in enumerate(names)]
    try:
        _, err = gm.communicate(timeout=1800)
        if gm.returncode != 0:
            raise SystemExit(f"the lobby failed: {err}")
        bad = [p.wait(120) for p in procs]
        if any(bad):
            raise SystemExit(f"{sum(1 for b in bad if b)} player processes failed")
    finally:
        for p in [gm, *procs]:
            p.kill()
    log = records(next((out / "gm").glob("*.jsonl")))
    # GameLog times count from each process's own start: place them on the wall clock
    # through the lobby's 'started' record, written when its agents were up
    started = next(r for r in log if r["kind"] == "started")
    log_zero = started["wall"] - started["t"]
    joins = [r["t"] for r in log if r["kind"] == "join"]
    dealt = next(r["t"] for r in log if r["kind"] == "round")
    over = next(r["t"] for r in log if r["kind"] == "outcome")
    gm_msgs = [r for r in log if r["kind"] == "msg"]
    player_msgs = [r for f in (out / "players").glob("*.jsonl") for r in records(f)
                   if r["kind"] == "msg"]
    crossing = sum(1 for r in gm_msgs for to in recipients(r) if "-p-" in to) + \
        sum(1 for r in player_msgs for to in recipients(r) if "-ui-" not in to)
    outcome = next(r for r in log if r["kind"] == "outcome")
    game_seconds = over - dealt
    shutil.rmtree(out, ignore_errors=True)
    return {
        "server": server.kind, "players": players, "seed": seed,
        "processes": players + 1,
        "startup_seconds": round(log_zero + max(joins) - t0, 2),
        "wall_seconds": round(time.time() - t0, 2),
        "game_seconds": round(game_seconds, 3),
        "days": outcome["day"], "winner": outcome["winner"],
        "messages": len(gm_msgs) + len(player_msgs),
        "messages_over_server": crossing,
        "messages_per_second": round((len(gm_msgs) + len(player_msgs)) / game_seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6,15,75")
    parser.add_argument("--servers", default="pyjabber,ejabberd")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    rows = []
    print(f"{'server':9} {'players':>7} {'start-up s':>10} {'game s':>8} {'days':>5} "
          f"{'messages':>9} {'crossing':>9} {'msg/s':>7}")
    for kind in args.servers.split(","):
        if kind == "ejabberd" and shutil.which("ejabberdctl") is None:
            print("ejabberd: not installed, skipped")
            continue
        with Server(kind) as server:
            for n in (int(x) for x in args.sizes.split(",")):
                row = play(server, n, args.seed)
                rows.append(row)
                print(f"{kind:9} {n:7d} {row['startup_seconds']:10.2f} "
                      f"{row['game_seconds']:8.3f} {row['days']:5d} {row['messages']:9d} "
                      f"{row['messages_over_server']:9d} {row['messages_per_second']:7d}",
                      flush=True)
    if not args.no_save:
        save("xmpp_game", rows)


if __name__ == "__main__":
    main()
