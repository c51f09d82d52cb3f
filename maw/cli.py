"""The ``maw`` command. The only place where a ``MawError`` becomes a message and an exit code."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from maw import __version__
from maw.errors import MawError

EXIT_ERROR = 2


def _add_ruleset(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ruleset", default="maw",
                   help="maw (default), aiwolf-5, aiwolf-9, aiwolf-13, aiwolf-15")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="ruleset option, e.g. tie=revote, win=parity, variant=2021 (repeatable)")


def _rules(args: argparse.Namespace):
    from maw.engine import parse_options, ruleset

    return ruleset(args.ruleset, **parse_options(args.rule))


def cmd_simulate(args: argparse.Namespace) -> int:
    from maw.simulate import simulate

    rules = _rules(args)
    rules.roles_for(args.players)  # a wrong size fails before any work
    if args.games < 1:
        raise MawError("--games must be at least 1")
    progress = None
    if not args.json and sys.stderr.isatty():
        step = max(1, args.games // 100)

        def progress(done: int) -> None:
            if done % step == 0 or done == args.games:
                print(f"\r{done}/{args.games} games", end="", file=sys.stderr, flush=True)

    summary = simulate(rules, args.players, args.policy, args.games, args.seed, progress)
    if progress is not None:
        print(file=sys.stderr)
    result = summary.as_dict()
    if args.json:
        print(json.dumps(result))
        return 0
    g = summary.games
    print(f"ruleset {rules.name}{'/' + rules.variant if rules.variant else ''}, "
          f"{args.players} players, policy {args.policy}, seed {args.seed}")
    print(f"games            {g}")
    print(f"village wins     {summary.village_wins} ({100 * summary.village_wins / g:.1f}%)")
    print(f"werewolf wins    {summary.werewolf_wins} ({100 * summary.werewolf_wins / g:.1f}%)")
    if summary.draws:
        print(f"draws            {summary.draws}")
    print(f"mean days        {result['mean_days']}")
    print(f"ms per game      {result['ms_per_game']}")
    print(f"invalid actions  {summary.invalid_actions}")
    return 0


def cmd_game(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.agents.gamemaster import GameConfig
    from maw.game import default_seats, run_game
    from maw.transcript import live_line
    from maw.xmpp import lobby_jid, parse_address

    rules = _rules(args)
    rules.roles_for(args.players)
    for flag in ("rounds", "day_seconds", "night_seconds"):
        if getattr(args, flag) <= 0:
            raise MawError(f"--{flag.replace('_', '-')} must be positive")
    address = parse_address(args.xmpp)
    if not 0 <= args.remote <= args.players:
        raise MawError(f"--remote must be between 0 and --players ({args.players})")
    lobby = args.lobby if args.remote else None
    if lobby:
        lobby_jid(lobby)  # a bad name fails now
    config = GameConfig(players=args.players, rules=rules, seed=args.seed, rounds=args.rounds,
                        day_seconds=args.day_seconds, night_seconds=args.night_seconds,
                        lobby_seconds=args.lobby_seconds, log_dir=Path(args.log_dir))
    if args.roster:
        from maw.game import check_backends, seats_from_roster
        from maw.roster import load_roster

        seats = seats_from_roster(load_roster(Path(args.roster)), args.players - args.remote)
        models = asyncio.run(check_backends(seats))
        if models:
            print(f"maw game: models: {', '.join(models)}", flush=True)
    else:
        seats = default_seats(args.players - args.remote, args.policy)

    def show(event: object) -> None:
        text = live_line(event)
        if text and not args.quiet:
            print(text, flush=True)

    kinds = ", ".join(f"{sum(s.decider == k for s in seats)} {k}"
                      for k in dict.fromkeys(s.decider for s in seats))
    print(f"maw game: {args.players} players ({kinds or 'no AI'}, {args.remote} joining), "
          f"ruleset {rules.name}, seed {args.seed}, XMPP {address}", flush=True)
    if lobby:
        where = f"{address.host}:{address.port}"
        print(f"lobby {lobby!r} waits {args.lobby_seconds:.0f} s for {args.remote} player(s) to "
              f"join with: maw player --lobby {lobby} --xmpp {where} --name NAME", flush=True)
    result = asyncio.run(run_game(config, seats, address, on_event=show,
                                  timeout=args.timeout, remote=args.remote, lobby=lobby))
    print(f"\nSummary: {len(result.outcomes)} round(s) in {result.seconds:.2f} s "
          f"(agents started in {result.startup_seconds:.2f} s)")
    for i, out in enumerate(result.outcomes, 1):
        winner = out.winner.value if out.winner else "nobody (draw)"
        print(f"  round {i}: {winner} won on day {out.day} ({out.termination.value})")
    print("  leaderboard: " + ", ".join(f"{n} {p}" for n, p in result.standings))
    if result.absent:
        print(f"  absent (never acted, or left): {', '.join(result.absent)}")
    if result.llm:
        total = sum(u["seconds"] for u in result.llm.values())
        print(f"  LLM: {sum(u['calls'] for u in result.llm.values())} calls, "
              f"{sum(u['tokens'] for u in result.llm.values())} tokens, {total:.1f} s of "
              f"calls = {100 * total / max(result.seconds, 1e-9):.0f}% of the game's "
              f"{result.seconds:.1f} s (the calls are serialised on one embedded model)")
        for name, u in result.llm.items():
            print(f"    {name}: {u['calls']} calls, {u['tokens']} tokens, {u['seconds']} s; "
                  f"{u['legal']} legal, {u['repaired']} repaired, {u['fallback']} fallback")
    print(f"  log: {result.log_path}")
    return 0


def cmd_player(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.game import Seat, run_player
    from maw.policies import DECIDERS
    from maw.xmpp import lobby_jid, parse_address

    address = parse_address(args.xmpp)
    lobby_jid(args.lobby)
    if args.decider not in DECIDERS:
        raise MawError(f"unknown decider {args.decider!r}: {', '.join(sorted(DECIDERS))}")
    if not args.name or not args.name.replace("_", "").isalnum() or len(args.name) > 20:
        raise MawError(f"bad name {args.name!r}: up to 20 letters, digits or _")

    def show(line: str) -> None:
        if not args.quiet:
            print(f"{args.name} | {line}", flush=True)

    result = asyncio.run(run_player(
        address, args.lobby, Seat(args.name, args.decider), seed=args.seed, on_line=show,
        join_seconds=args.join_seconds, timeout=args.timeout,
        log_dir=Path(args.log_dir) if args.log_dir else None))
    for body in result.results:
        print(f"{result.name}: round {body.round}: {body.winning_team or 'nobody'} won "
              f"({body.reason})", flush=True)
    if not result.final:
        raise MawError("the game ended without final scores")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.transcript import replay_lines

    for text in replay_lines(Path(args.log)):
        print(text)
    return 0


def cmd_server(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from maw.xmpp import EmbeddedServer

    async def serve() -> None:
        server = EmbeddedServer(args.port)
        await server.start()
        print(f"maw server: embedded XMPP server on localhost:{args.port} "
              "(Ctrl-C to stop)", flush=True)
        # SIGTERM stops it as Ctrl-C does: through server.stop(), which also ends
        # pyjabber's worker processes (killed outright, they outlive the server)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        try:
            await stop.wait()
        finally:
            await server.stop()

    asyncio.run(serve())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="maw", description="MAW, Multi-Agent Werewolf")
    parser.add_argument("--version", action="version", version=f"maw {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("simulate", help="play many games on the rules engine alone (no XMPP)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=6)
    p.add_argument("--policy", default="random", help="random or rule")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_ruleset(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("game", help="host a game over XMPP with AI players and watch it")
    p.add_argument("--players", type=int, default=6)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--day-seconds", type=float, default=30.0)
    p.add_argument("--night-seconds", type=float, default=15.0)
    p.add_argument("--xmpp", default="embedded",
                   help="embedded (default; embedded:PORT for another port) or HOST:PORT")
    p.add_argument("--log-dir", default="logs", help="where the JSONL game log goes")
    p.add_argument("--policy", default="rule", help="decider of the AI players: rule, random")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="who plays: agents/*.toml (LLM, rule and random seats)")
    p.add_argument("--timeout", type=float, default=3600.0, help="give up after this long")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.add_argument("--remote", type=int, default=0, metavar="N",
                   help="seats left for players joining from other processes (maw player)")
    p.add_argument("--lobby", default="main", help="the lobby's name, for those who join")
    p.add_argument("--lobby-seconds", type=float, default=300.0,
                   help="how long the lobby waits for the remote players")
    _add_ruleset(p)
    p.set_defaults(func=cmd_game)

    p = sub.add_parser("player", help="one AI player in this process: join a lobby and play")
    p.add_argument("--name", required=True)
    p.add_argument("--decider", default="rule", help="rule (default) or random")
    p.add_argument("--lobby", default="main")
    p.add_argument("--xmpp", default="localhost:5222", help="HOST:PORT of the server")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--join-seconds", type=float, default=60.0,
                   help="keep knocking this long at a lobby that is not up yet")
    p.add_argument("--timeout", type=float, default=3600.0)
    p.add_argument("--log-dir", default=None, help="write this player's JSONL log here")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_player)

    p = sub.add_parser("replay", help="print a game log as a readable transcript")
    p.add_argument("log")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("server", help="run the embedded XMPP server on its own")
    p.add_argument("--port", type=int, default=5222)
    p.set_defaults(func=cmd_server)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except MawError as exc:
        print(f"maw {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"maw {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
