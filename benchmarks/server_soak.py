"""A soak of `maw server` (issue 45): 50 games of rule players back to back, 4 at a time,
with players joining and leaving its Hall; the server's memory and open files from wave
to wave, and every game in its archive.

    .venv/bin/python benchmarks/server_soak.py [--games 50] [--at-once 4] [--no-save]

Each game: a client sets a table (`create_game`, 6 players, rule players fill the rest,
3 s days, 2 s nights), one player sits and leaves again, an AI player is sent in
(`maw.server.client.take_seat`, as `maw player --game ID` does: it sits and is ready at
once, so the game starts) and plays it from this process; the server (its own process)
hosts it, with rule players in the other five seats. Its resident memory and open file
descriptors are read from /proc at the start and after each wave of games (once they are
over); every game's log must be in the archive and pass `maw audit`. Printed and stored
in ``benchmarks/results/server_soak.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent


def proc_figures(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return {"rss_mb": round(rss, 1), "fds": fds}


async def one_game(address, n: int, players: list[str]) -> str:
    from maw.hosting.connect import stop_agents
    from maw.hosting.players import run_player
    from maw.hosting.seats import Seat
    from maw.protocol import messages as m
    from maw.server.client import connected, take_seat

    setter = await connected(address)
    try:
        await setter.ask(m.CreateGame(ruleset="maw", players=6, fill="rule",
                                      day_seconds=3, night_seconds=2, wait_seconds=60))
        local = str(setter.jid).split("@")[0]
        while True:
            heard = await asyncio.wait_for(setter.heard.get(), 30)
            if isinstance(heard, m.Refuse):
                raise RuntimeError(heard.reason)
            found = re.search(rf"{local} created game (\d+)", getattr(heard, "note", ""))
            if found:
                game = int(found.group(1))
                break
        # someone sits down and stands up again
        for ask, said in ((m.JoinGame(game=game, player_name=f"Leaver{n}"), "joined"),
                          (m.LeaveGame(game=game), "left")):
            await setter.ask(ask)
            while f"Leaver{n} {said} game {game}" not in getattr(
                    await asyncio.wait_for(setter.heard.get(), 30), "note", ""):
                pass
    finally:
        await stop_agents([setter])
    lobbies = await asyncio.gather(*(take_seat(address, game, p, wait=120) for p in players))
    played = await asyncio.gather(*(run_player(address, lobby, Seat(p, "rule"), seed=n,
                                               timeout=300)
                                    for p, lobby in zip(players, lobbies, strict=True)))
    if not all(r.final for r in played):
        raise RuntimeError(f"game {game}: a player saw no final scores")
    return f"game {game}: " + ", ".join(str(b.winning_team) for b in played[0].results)


async def soak(port: int, games: int, at_once: int, pid: int) -> dict:
    """The games in waves of ``at_once``; the server's figures after each wave, once its
    games are over (1 s later)."""
    from maw.hosting.xmpp import Address

    address = Address("localhost", port, False)
    waves: list[dict] = []
    done: list[str] = []
    failed: list[str] = []

    async def run(n: int) -> None:
        try:
            done.append(await one_game(address, n, [f"Sam{n}"]))
        except Exception as exc:
            failed.append(f"{n}: {type(exc).__name__}: {exc}")

    t0 = time.monotonic()
    for first in range(0, games, at_once):
        await asyncio.gather(*(run(n) for n in range(first, min(games, first + at_once))))
        await asyncio.sleep(1.0)
        waves.append({"games": len(done) + len(failed), **proc_figures(pid)})
        print(waves[-1], flush=True)
    return {"seconds": round(time.monotonic() - t0, 1), "waves": waves,
            "done": len(done), "failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--at-once", type=int, default=4)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    from maw.hosting.xmpp import free_port
    from maw.records.audit import audit_records

    port = free_port()
    archive = Path(os.environ.get("MAW_SOAK_DIR") or tempfile.mkdtemp(prefix="maw-soak-"))
    server = subprocess.Popen([sys.executable, "-m", "maw", "server", "--port", str(port),
                               "--log-dir", str(archive)], stdout=subprocess.PIPE,
                              stderr=open(os.environ.get("MAW_SOAK_ERR", os.devnull), "w"),
                              text=True)
    assert server.stdout is not None
    while "the Hall is" not in (line := server.stdout.readline()):
        if not line:
            raise SystemExit("the server did not start")
    start = proc_figures(server.pid)
    print("started:", start, flush=True)
    try:
        figures = asyncio.run(soak(port, args.games, args.at_once, server.pid))
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    logs = sorted(archive.rglob("game-*.jsonl"))
    audits = [audit_records([json.loads(x) for x in p.read_text().splitlines()]).ok
              for p in logs]
    finished = len(re.findall(r"game \d+ finished", out))
    row = {"games": args.games, "at_once": args.at_once, "started": start, **figures,
           "logs": len(logs), "audited_ok": sum(audits), "server_finished": finished,
           "server_exit": server.returncode,
           "games_per_minute": round(60 * figures["done"] / figures["seconds"], 1)}
    print(json.dumps(row, indent=2))
    if not args.no_save:
        save("server_soak", [row])


if __name__ == "__main__":
    main()
