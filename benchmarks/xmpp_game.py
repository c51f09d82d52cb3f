"""Full games over XMPP with the players in processes of their own, on pyjabber and on
ejabberd (with the server's fan-out, XEP-0033, as ``ejabberd.yml`` has it, and without).

    .venv/bin/python benchmarks/xmpp_game.py [--sizes 6,15,75] [--per-process K]
        [--servers pyjabber,ejabberd,ejabberd-no-multicast]

Per game: the lobby (``maw game --remote N``) in one process, and ``maw player`` (instant
rule players, each with its interface; ``--per-process`` of them a process, one by
default) in the others, all on the same server. Phase
timers are long (120 s) so every phase ends by the rules or because every player said
"listen": the game's time is set by its message hops. Printed and stored in
``benchmarks/results/xmpp_game.json``:

- start-up: seconds from launching the processes until the last player joined;
- game: seconds from dealing the roles to the outcome;
- messages: every message sent in the game (from all logs), and those that crossed the
  server (between processes; a player and its interface share a process);
- messages per second over the game;
- stanzas fanned out: the lobby's messages to many that went as one stanza the server
  copied to each recipient (ejabberd's mod_multicast), and the stanzas the lobby sent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.connect import port_open  # noqa: E402
from maw.hosting.xmpp import free_port  # noqa: E402
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
        if kind == "ejabberd-no-multicast":  # the project's configuration, less its fan-out
            config = (REPO / "ejabberd.yml").read_text()
            start = config.index("  # XEP-0033")
            end = config.index("        presence: infinite\n") + len("        presence: infinite\n")
            plain = Path(self.state) / "plain.yml"
            plain.write_text(config[:start] + config[end:])
            self.env["MAW_EJABBERD_CONFIG"] = str(plain)

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


def play(server: Server, players: int, seed: int, per_process: int = 1) -> dict:
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
    groups = [names[i:i + per_process] for i in range(0, players, per_process)]
    procs = [subprocess.Popen(maw("player", *[a for n in group for a in ("--name", n)],
                                  "--lobby", lobby, "--xmpp", where,
                                  "--seed", str(i), "--quiet", "--join-seconds", "600",
                                  "--log-dir", str(out / "players")),
                              stdout=subprocess.DEVNULL,
                              stderr=(out / f"players-{i}.err").open("w"), text=True)
             for i, group in enumerate(groups)]
    try:
        summary, err = gm.communicate(timeout=1800)
        if gm.returncode != 0:
            said = "".join(f.read_text() for f in sorted(out.glob("players-*.err")))
            raise SystemExit(f"the lobby failed: {err}\nthe players said:\n{said[-3000:]}"
                             f"\n(logs in {out})")
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
    fanned = re.search(r"of which (\d+) stanzas the server fanned out", summary)
    multicasts = int(fanned.group(1)) if fanned else 0
    # what the lobby's process wrote to the server: a stanza to each recipient in another
    # process, less the copies a multicast stanza saved
    to_others = sum(1 for r in gm_msgs for to in recipients(r) if "-p-" in to)
    shutil.rmtree(out, ignore_errors=True)
    return {
        "server": server.kind, "players": players, "seed": seed,
        "processes": len(groups) + 1, "per_process": per_process,
        "multicasts": multicasts,
        "startup_seconds": round(log_zero + max(joins) - t0, 2),
        "wall_seconds": round(time.time() - t0, 2),
        "game_seconds": round(game_seconds, 3),
        "days": outcome["day"], "winner": outcome["winner"],
        "messages": len(gm_msgs) + len(player_msgs),
        "messages_over_server": crossing,
        "messages_per_second": round((len(gm_msgs) + len(player_msgs)) / game_seconds),
        "lobby_messages_to_players": to_others,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6,15,75")
    parser.add_argument("--servers", default="pyjabber,ejabberd,ejabberd-no-multicast")
    parser.add_argument("--per-process", type=int, default=1,
                        help="players a maw player process hosts (default: 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    rows = []
    print(f"{'server':21} {'players':>7} {'procs':>5} {'start-up s':>10} {'game s':>8} "
          f"{'days':>5} {'messages':>9} {'crossing':>9} {'msg/s':>7} {'to players':>10} "
          f"{'fanned out':>10}")
    for kind in args.servers.split(","):
        if kind.startswith("ejabberd") and shutil.which("ejabberdctl") is None:
            print(f"{kind}: ejabberd is not installed, skipped")
            continue
        with Server(kind) as server:
            for n in (int(x) for x in args.sizes.split(",")):
                row = play(server, n, args.seed, args.per_process)
                rows.append(row)
                print(f"{kind:21} {n:7d} {row['processes']:5d} {row['startup_seconds']:10.2f} "
                      f"{row['game_seconds']:8.3f} {row['days']:5d} {row['messages']:9d} "
                      f"{row['messages_over_server']:9d} {row['messages_per_second']:7d} "
                      f"{row['lobby_messages_to_players']:10d} {row['multicasts']:10d}",
                      flush=True)
    if not args.no_save:
        save("xmpp_game", rows)


if __name__ == "__main__":
    main()
