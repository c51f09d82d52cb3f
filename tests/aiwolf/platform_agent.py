"""A Protocol-division agent written from the AIWolf 0.6 platform's packets (as its Java
``TcpipClient`` reads them), for tests: it connects to ``--tcp HOST:PORT``, answers NAME
with ``--name`` and ROLE with ``none``, says one Protocol 3.6 sentence a day (a vote for a
living other) and then Over, whispers Over, and chooses a random living other as its
target (the pack never attacks its own). Every packet it gets goes to ``--log`` (JSONL).
It plays until the server closes the connection."""

from __future__ import annotations

import argparse
import json
import random
import socket
import time

ap = argparse.ArgumentParser()
ap.add_argument("--tcp", required=True)
ap.add_argument("--name", required=True)
ap.add_argument("--log", required=True)
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()
rng = random.Random(args.seed)
host, _, port = args.tcp.rpartition(":")
for _ in range(200):
    try:
        sock = socket.create_connection((host, int(port)))
        break
    except OSError:
        time.sleep(0.2)
info: dict = {}
talked: set[int] = set()
with sock, sock.makefile("r", encoding="utf-8") as lines, open(args.log, "w") as log:
    for line in lines:
        packet = json.loads(line)
        log.write(json.dumps(packet) + "\n")
        log.flush()
        request = packet["request"]
        if packet.get("gameInfo"):
            info = packet["gameInfo"]
        me = info.get("agent")
        alive = [int(a) for a, s in info.get("statusMap", {}).items() if s == "ALIVE"]
        others = [a for a in alive if a != me]
        pack = [int(a) for a, r in info.get("roleMap", {}).items() if r == "WEREWOLF"]
        answer = None
        if request == "NAME":
            answer = args.name
        elif request == "ROLE":
            answer = "none"
        elif request == "TALK":
            day = info.get("day", 0)
            if day not in talked and others:
                talked.add(day)
                answer = f"VOTE Agent[{rng.choice(others):02d}]"
            else:
                answer = "Over"
        elif request == "WHISPER":
            answer = "Over"
        elif request in ("VOTE", "DIVINE", "GUARD", "ATTACK"):
            pool = [a for a in others if request != "ATTACK" or a not in pack] or others
            answer = json.dumps({"agentIdx": rng.choice(pool)}, separators=(",", ":"))
        if answer is not None:
            sock.sendall((answer + "\n").encode())
