"""``maw aiwolf-client``: one of MAW's players in AIWolf games (an aiwolf-nlp-server's, or
``maw game --aiwolf``'s, over a WebSocket; or an AIWolf 0.6 platform server's game set,
the Protocol division's, over TCP)."""

from __future__ import annotations

import argparse

from maw.cli.options import (
    SET_MEMORY,
    add_seed,
    add_xmpp,
    check_decider,
    command,
    roster_seat,
)
from maw.errors import MawError


def add_aiwolf_client(sub) -> None:
    p = command(sub, "aiwolf-client", "one of MAW's players in AIWolf games (an aiwolf-nlp-"
                "server, maw game --aiwolf, or an AIWolf 0.6 platform server)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", metavar="URL",
                       help="the server's WebSocket, e.g. ws://127.0.0.1:8080/ws")
    where.add_argument("--tcp", metavar="HOST:PORT",
                       help="an AIWolf 0.6 platform server (AIWolfServer): play its game "
                            "set, talking in Protocol 3.6")
    where.add_argument("--game", type=int, metavar="ID",
                       help="take a seat for AIWolf agents at game ID of a maw server "
                            "(at --xmpp): its Hall says where they connect")
    add_xmpp(p, "with --game: the maw server's XMPP server (default localhost:5222)",
             metavar="HOST:PORT")
    p.add_argument("--name", required=True,
                   help="the agent's name (its team: the name without trailing digits)")
    p.add_argument("--policy", default=None,
                   help="rule or random (default: rule)")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="play a roster's seat (an LLM or hybrid player): give --seat")
    p.add_argument("--seat", default=None, metavar="NAME",
                   help="with --roster: the roster player who plays")
    p.add_argument("--games", type=int, default=None,
                   help="games to play (--url: connecting again after each, default 1; "
                        "--tcp: default all of the set)")
    add_seed(p, "seeds the player's own choices", default=0)
    p.add_argument("--set-memory", action="store_true", help=SET_MEMORY)
    p.add_argument("--token", default=None,
                   help="a server's access token (sent as Authorization: Bearer)")
    p.add_argument("--connect-seconds", type=float, default=60.0, metavar="SECONDS",
                   help="keep trying this long to reach a server that is not up yet")
    p.set_defaults(func=cmd_aiwolf_client)


def cmd_aiwolf_client(args: argparse.Namespace) -> int:
    import asyncio
    import dataclasses

    from maw.aiwolf.client import Player, check_url, play
    from maw.hosting.seats import Seat, deciders

    if args.game is not None:
        from maw.hosting.xmpp import parse_address
        from maw.server.client import aiwolf_url

        args.url = asyncio.run(aiwolf_url(parse_address(args.xmpp), args.game))
        print(f"{args.name} | game {args.game}'s AIWolf seats are at {args.url}", flush=True)
    if args.url:
        check_url(args.url)
    if not args.name.strip():
        raise MawError("--name: give the agent's name (its team is the name without "
                       "trailing digits)")
    if args.games is not None and args.games < 1:
        raise MawError("--games must be at least 1")
    if args.roster and args.policy:
        raise MawError("give --policy or --roster (with --seat), not both")
    if args.roster:
        from maw.hosting.game import check_backends

        seat = roster_seat(args, "the roster player who plays")
        asyncio.run(check_backends([seat]))
    else:
        policy = args.policy or "rule"
        check_decider(policy, "--policy", talks=False)
        seat = Seat(args.name, policy)

    def new_decider(game: int, me: str, role: str | None):
        # (its in-game name is the server's: a profile name, not the agent's own; its
        # role, the one the server dealt it, picks its roster group's model settings)
        return deciders(dataclasses.replace(seat, name=me), args.seed)(game, role)

    def say(line: str) -> None:
        print(f"{args.name} | {line}", flush=True)

    from maw.policies.memory import SetMemory

    player = Player(args.name, new_decider, say, SetMemory() if args.set_memory else None)
    if args.tcp:
        from maw.aiwolf.platform import play_tcp

        seconds: list[float] = []
        played = play_tcp(args.tcp, player, args.games, args.connect_seconds,
                          timed=lambda request, s: seconds.append(s))
        seconds.sort()
        p95 = 1000 * seconds[int(0.95 * (len(seconds) - 1))] if seconds else 0.0
        print(f"maw aiwolf-client: {played} game(s) played, {len(seconds)} requests "
              f"answered, 95th percentile {p95:.1f} ms, slowest "
              f"{1000 * (seconds[-1] if seconds else 0):.1f} ms", flush=True)
        return 0
    played = play(args.url, player, args.games or 1, args.token, args.connect_seconds)
    print(f"maw aiwolf-client: {played} game(s) played", flush=True)
    return 0
