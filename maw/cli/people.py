"""Players who join a hosted game's lobby: ``maw player`` (AI players in this process) and
``maw play`` (a person, from this terminal)."""

from __future__ import annotations

import argparse
import sys

from maw.cli.options import (
    LEAVE,
    SET_MEMORY,
    add_join_seconds,
    add_lobby,
    add_log_dir,
    add_reconnect,
    add_seed,
    add_timeout,
    add_xmpp,
    check_decider,
    check_seconds,
    command,
)
from maw.errors import MawError


def add_player(sub) -> None:
    p = command(sub, "player", "AI players in this process: join a lobby and play")
    p.add_argument("--name", required=True, action="append", metavar="NAME",
                   help="the player's name in the game; again for more players in this "
                        "process (each its own agents; they share the interpreter)")
    p.add_argument("--decider", default="rule",
                   help="rule, random, or another registered decider (default: rule)")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="play the seat of --name in this roster (an LLM, its persona...)")
    p.add_argument("--model", default=None,
                   help="with --roster: another model than the roster's, for an LLM seat")
    add_lobby(p)
    p.add_argument("--game", type=int, default=None, metavar="ID",
                   help="sit at game ID of a server's Hall (maw server) instead of joining "
                        "--lobby: say it is ready, and play once the game starts")
    add_xmpp(p)
    add_seed(p, "seeds the player's own random choices (the Nth --name: seed + N-1)", default=0)
    add_join_seconds(p)
    add_timeout(p, LEAVE)
    add_log_dir(p, None, "write this player's own JSONL log here (default: no log)")
    add_reconnect(p)
    p.add_argument("--set-memory", action="store_true", help=SET_MEMORY)
    p.add_argument("--quiet", action="store_true", help="print only the results")
    p.set_defaults(func=cmd_player)


def cmd_player(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.protocol.messages import check_name

    check_seconds(args, "--timeout", "--join-seconds")

    names = args.name
    for name in names:
        check_name(name)
    if len(set(n.lower() for n in names)) < len(names):
        raise MawError(f"--name given twice: {', '.join(names)}")
    from maw.hosting.players import run_player
    from maw.hosting.seats import Seat
    from maw.hosting.xmpp import lobby_jid, parse_address

    address = parse_address(args.xmpp)
    lobby_jid(args.lobby)
    check_decider(args.decider, "--decider", model=True)
    seats = [Seat(name, args.decider) for name in names]
    if args.roster:  # the seat of that name in a roster: its decider, model and persona
        from maw.hosting.game import check_backends, seats_from_roster
        from maw.hosting.plan import pick_seats
        from maw.hosting.roster import load_roster, roster_path

        roster = roster_path(args.roster)
        seats = [seats_from_roster(pick_seats(load_roster(roster), name, roster), 1)[0]
                 for name in names]
        for seat in seats:
            if args.model and seat.llm is not None:
                seat.llm = seat.llm.model_copy(update={"model": args.model})
        asyncio.run(check_backends(seats))
    for seat in seats:
        seat.set_memory = args.set_memory

    def show(name: str):
        def line(text: str) -> None:
            if not args.quiet:
                print(f"{name} | {text}", flush=True)
        return line

    def say(line: str) -> None:
        print(f"maw player: {line}", file=sys.stderr, flush=True)

    async def one(i: int, seat):
        try:
            lobby = args.lobby
            if args.game is not None:  # (a server's game: the Hall says its lobby)
                from maw.server.client import take_seat

                lobby = await take_seat(address, args.game, seat.name,
                                        wait=args.join_seconds * 10, say=say)
            return await run_player(
                address, lobby, seat, seed=args.seed + i, on_line=show(seat.name),
                join_seconds=args.join_seconds, timeout=args.timeout,
                log_dir=Path(args.log_dir) if args.log_dir else None,
                reconnect_seconds=args.reconnect_seconds, say=say)
        except Exception as exc:  # (said at once: the others play on)
            if len(seats) > 1:
                say(f"{seat.name}: {exc}")
            return exc

    async def play() -> list:
        # several players share this process (and its interpreter): each its own agents
        return await asyncio.gather(*(one(i, seat) for i, seat in enumerate(seats)))

    results = asyncio.run(play())
    failed = [r for r in results if isinstance(r, BaseException)]
    for result in results:
        if isinstance(result, BaseException):
            continue
        for body in result.results:
            print(f"{result.name}: round {body.round}: {body.winning_team or 'nobody'} won "
                  f"({body.reason})", flush=True)
    if failed:
        if isinstance(failed[0], MawError):
            raise failed[0]
        raise MawError(f"a player failed: {failed[0]!r}") from failed[0]
    unfinished = [r.name for r in results if not r.final]
    if unfinished:
        raise MawError(f"the game ended without final scores ({', '.join(unfinished)})")
    return 0

def add_play(sub) -> None:
    p = command(sub, "play", "a person joins a server's Hall (or a lobby) and plays from "
                "this terminal")
    p.add_argument("--name", default=None, help="your name in the game (asked if not given)")
    p.add_argument("--lobby", default=None, metavar="NAME",
                   help="the lobby to join (maw game --humans prints it); without it, the "
                        "server's Hall (maw server): its games, /create, /join, /ready; "
                        "a server without a Hall: the lobby main")
    add_xmpp(p)
    add_join_seconds(p)
    add_timeout(p, LEAVE, default=6 * 3600.0)
    add_log_dir(p, None, "write your own JSONL log here (default: no log)")
    add_reconnect(p)
    p.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.protocol.messages import check_name

    check_seconds(args, "--timeout", "--join-seconds")

    if args.name is not None:
        check_name(args.name)
    from maw.hosting.players import run_person
    from maw.hosting.xmpp import lobby_jid, parse_address

    address = parse_address(args.xmpp)
    if args.lobby is not None:
        lobby_jid(args.lobby)
    log_dir = Path(args.log_dir) if args.log_dir else None

    def say(line: str) -> None:
        print(f"maw play: {line}", file=sys.stderr, flush=True)

    async def play(console):
        lobby, name = args.lobby, args.name
        if lobby is None:  # the server's Hall, if it has one
            from maw.server.client import NoHall, drop_in

            print(f"maw play: at the Hall of {address.host}:{address.port} (/quit to "
                  "leave)", flush=True)
            try:
                found = await drop_in(address, console, name)
            except NoHall as exc:
                found = ("main", name)
                say(f"{exc}: joining the lobby main")
            if found is None:
                return None
            lobby, name = found
            if hasattr(console, "screen"):
                console.screen.name = name
        print(f"maw play: joining lobby {lobby!r} at {address.host}:{address.port}"
              + (f" as {name}" if name else "") + " (Ctrl-C or /quit to leave)",
              flush=True)
        return await run_person(address, lobby, console, name=name,
                                join_seconds=args.join_seconds, timeout=args.timeout,
                                log_dir=log_dir, reconnect_seconds=args.reconnect_seconds,
                                say=say)

    if sys.stdin.isatty() and sys.stdout.isatty():
        from prompt_toolkit.patch_stdout import patch_stdout

        from maw.terminal.screen import TerminalConsole

        console = TerminalConsole()
        console.screen.name = args.name
        with patch_stdout(raw=True):
            result = asyncio.run(play(console))
    else:  # piped: plain lines in, plain lines out
        from maw.terminal.screen import PlainConsole

        result = asyncio.run(play(PlainConsole()))
    if result is None:
        print("maw play: you left the Hall", flush=True)
        return 0
    for body in result.results:
        print(f"maw play: round {body.round}: {body.winning_team or 'nobody'} won "
              f"({body.reason})", flush=True)
    if not result.final:
        print("maw play: you left before the end; the game goes on without you", flush=True)
        return 1
    return 0
