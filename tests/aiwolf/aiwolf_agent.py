"""An AIWolf contest agent as the contest's sample agent is built: on aiwolf-nlp-common's
``Client`` and packet types, one request at a time. It plays at random (a line of talk, a
living target), logs every packet it gets (JSON lines), and misbehaves when asked to.

    python tests/aiwolf/aiwolf_agent.py --url ws://127.0.0.1:PORT/ws --name NAME --log FILE
        [--fault late|mute|malformed|unknown|drop|silent|flood] [--fault-at N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from aiwolf_nlp_common.client import Client
from aiwolf_nlp_common.packet import Request, Role
from websocket import WebSocketException

LINES = ["Hello, everyone.", "I think we should look at the quiet ones.",
         "I am a villager, I promise.", "Who do you suspect?", "Let us vote carefully."]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--fault", default=None)
    ap.add_argument("--fault-at", type=int, default=3, help="the request that misbehaves")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--late", type=float, default=3.0, help="seconds a late answer takes")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    client = Client(args.url, None)
    # the host may still be starting: on a loaded machine (the suite on four workers, the
    # host logging its players in to ejabberd) its endpoint opened after the 10 s this
    # waited once, and no agent joined
    deadline = time.monotonic() + 120
    while True:
        try:
            client.connect()
            break
        except (OSError, WebSocketException) as exc:  # (refused, or a handshake cut short)
            if time.monotonic() > deadline:
                print(f"cannot connect: {exc!r}", file=sys.stderr)
                return 2
            client = Client(args.url, None)  # (a fresh socket for the next try)
            time.sleep(0.2)
    out = open(args.log, "a", encoding="utf-8")  # noqa: SIM115
    info = None
    asked = 0
    talks = 0
    try:
        while True:
            try:
                packet = client.receive()
            except Exception as exc:  # the server closed the socket: the game is over
                out.write(json.dumps({"closed": repr(exc)}) + "\n")
                break
            if packet.info is not None:
                info = packet.info
            out.write(json.dumps({
                "request": packet.request.value,
                "day": info.day if info else None,
                "agent": info.agent if info else None,
                "role": {k: v.value for k, v in info.role_map.items()} if info else None,
                "status": {k: v.value for k, v in info.status_map.items()} if info else None,
                "divine": info.divine_result.__dict__ if info and info.divine_result else None,
                "talk": [t.__dict__ for t in packet.talk_history or []],
                "whisper": [t.__dict__ for t in packet.whisper_history or []],
                "setting": packet.setting.agent_count if packet.setting else None,
                "remain_count": info.remain_count if info else None,
                "new": (packet.new_talk or packet.new_whisper).__dict__
                if (packet.new_talk or packet.new_whisper) else None,
            }) + "\n")
            out.flush()
            request = packet.request
            if request is Request.NAME:
                if args.fault == "silent":
                    time.sleep(3600)
                client.send(args.name)
                continue
            if request is Request.FINISH:
                continue
            if request in (Request.TALK_PHASE_START, Request.WHISPER_PHASE_START):
                # the group chat (freeform): lines at will, then Over
                for _ in range(2):
                    client.send(rng.choice(LINES))
                client.send("Over")
                continue
            if request not in (Request.TALK, Request.WHISPER, Request.VOTE, Request.DIVINE,
                               Request.GUARD, Request.ATTACK):
                continue
            asked += 1
            if args.fault and asked == args.fault_at:
                if args.fault == "late":
                    time.sleep(args.late)
                elif args.fault == "mute":  # no answer: the NAME check comes next
                    continue
                elif args.fault == "malformed":
                    client.send("\x00{not a name]")
                    continue
                elif args.fault == "drop":
                    client.close()
                    out.write(json.dumps({"dropped": asked}) + "\n")
                    return 0
                elif args.fault == "flood":
                    client.socket.send("x" * (1 << 20))
                    continue
            assert info is not None
            me = info.agent
            alive = [a for a, s in info.status_map.items() if s.value == "ALIVE" and a != me]
            if request in (Request.TALK, Request.WHISPER):
                talks += 1
                client.send("Over" if talks % 3 == 0 else rng.choice(LINES))
            elif args.fault == "unknown" and asked == args.fault_at:
                client.send("Nobody-By-This-Name")
            else:
                if request is Request.ATTACK:
                    wolves = {a for a, r in info.role_map.items() if r is Role.WEREWOLF}
                    alive = [a for a in alive if a not in wolves] or alive
                client.send(rng.choice(alive))
    finally:
        out.close()
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
