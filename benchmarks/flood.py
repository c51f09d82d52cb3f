"""A flooded game: the host's memory and the game's length, with and without a flood.

    .venv/bin/python benchmarks/flood.py [--rate 2000] [--seconds-per-day 5]

``maw game --remote 1 --policy rule --early-end`` hosts six players; the remote seat is
taken by a raw slixmpp client (``tests/hostile.py``) that joins and says nothing. In the
flooded run it also sends ``--rate`` messages a second, half to the lobby (votes with a
wrong token) and half to the Village (chats with a stale stamp), for the whole game. The
host's resident memory is sampled every 0.1 s (``/proc/PID/status``). Stored in
``benchmarks/results/flood.json``: per run the game's length, messages sent, the host's
peak memory, and what the log says the host dropped (``throttled``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from hostile import RawClient, take_seat  # noqa: E402

from maw.hosting.connect import port_open  # noqa: E402
from maw.hosting.xmpp import Address, free_port  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def one(rate: float, day: float) -> dict:
    port = free_port()
    logs = Path(tempfile.mkdtemp(prefix="maw-flood-"))
    host = subprocess.Popen(
        [sys.executable, "-m", "maw", "game", "--players", "6", "--remote", "1", "--lobby",
         "flood", "--policy", "rule", "--xmpp", f"embedded:{port}", "--early-end",
         "--day-seconds", str(day), "--night-seconds", str(day / 2), "--log-dir", str(logs),
         "--quiet", "--seed", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    peak = 0.0
    while not port_open("127.0.0.1", port):
        await asyncio.sleep(0.1)
    seat = RawClient("maw-flood-zed@localhost", Address("127.0.0.1", port, False))
    await seat.connect()
    lobby = "maw-lobby-flood@localhost"
    joined = await take_seat(seat, lobby, "Zed", alive=lambda: host.poll() is None)
    t0, sent = time.monotonic(), 0
    while host.poll() is None:
        peak = max(peak, rss_mb(host.pid))
        if rate:
            due = int((time.monotonic() - t0) * rate) - sent
            for i in range(max(0, due)):
                if i % 2:
                    seat.send(joined["rooms"]["Village"], json.dumps({
                        "type": "chat", "message": "spam " * 20, "player": "Zed",
                        "token": joined["token"], "stamp": "1:0:night:9"}), "chat")
                else:
                    seat.send(lobby, json.dumps({"type": "vote", "target": "Ann",
                                                 "player": "Ann", "token": "0" * 32}), "vote")
                sent += 1
        await asyncio.sleep(0.1)
    seconds = time.monotonic() - t0
    seat.disconnect()
    records = [json.loads(x) for x in next(logs.glob("*.jsonl")).read_text().splitlines()]
    throttled: dict[str, int] = {}
    for r in records:
        if r["kind"] == "throttled":
            throttled[r["agent"]] = max(throttled.get(r["agent"], 0), r["dropped"])
    over = next(r for r in records if r["kind"] == "outcome")
    return {"rate": rate, "sent": sent, "game_seconds": round(seconds, 1),
            "days": over["day"], "winner": over["winner"], "exit": host.returncode,
            "host_peak_rss_mb": round(peak, 1), "dropped": sum(throttled.values())}


async def main_async(args) -> list[dict]:
    rows = []
    for rate in (0, args.rate):
        row = await one(rate, args.day_seconds)
        print(row, flush=True)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=2000)
    parser.add_argument("--day-seconds", type=float, default=5)
    args = parser.parse_args()
    save("flood", asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
