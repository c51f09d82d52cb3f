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
