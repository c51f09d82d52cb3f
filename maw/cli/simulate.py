"""``maw simulate``: many games on the rules engine alone (no XMPP)."""

from __future__ import annotations

import argparse
import json
import sys

from maw.cli.options import (
    SIZE,
    add_games,
    add_players,
    add_ruleset,
    add_seed,
    check_decider,
    command,
    fresh_seed,
    note_learned,
    players_for,
    rules_of,
)
from maw.errors import MawError


def add_simulate(sub) -> None:
    p = command(sub, "simulate", "play many games on the rules engine alone (no XMPP)")
    add_games(p, 1000, "how many games")
    add_players(p, SIZE, default=None)
    p.add_argument("--policy", default="random",
                   help="every player's decider: random, rule, hybrid (its strategy, template "
                        "talk), learned:FILE or another registered one")
    p.add_argument("--village", default=None, metavar="POLICY",
                   help="the village side's decider (default: --policy)")
    p.add_argument("--werewolves", default=None, metavar="POLICY",
                   help="the werewolf side's decider, the Possessed too (default: --policy)")
    p.add_argument("--parallel", type=int, default=1, metavar="K",
                   help="games at a time, each in a process of its own (the same games "
                        "and digest; ms per game is then the wall time's)")
    add_seed(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_ruleset(p)
    p.set_defaults(func=cmd_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    from maw.simulate import simulate

    rules = rules_of(args)
    args.seed = fresh_seed(args.seed)
    rules.roles_for(players_for(args, rules))  # a wrong size fails before any work
    if args.games < 1:
        raise MawError("--games must be at least 1")
    if args.parallel < 1:
        raise MawError(f"--parallel must be at least 1, got {args.parallel}")
    progress = None
    if not args.json and sys.stderr.isatty():
        step = max(1, args.games // 100)

        def progress(done: int) -> None:
            if done % step == 0 or done == args.games:
                print(f"\r{done}/{args.games} games", end="", file=sys.stderr, flush=True)

    for flag in ("policy", "village", "werewolves"):
        name = getattr(args, flag)
        if name is not None:
            check_decider(name, f"--{flag}")
            note_learned(name, f"--{flag}", rules.name, "simulate",
                         None if flag == "policy" else flag)
    summary = simulate(rules, args.players, args.policy, args.games, args.seed, progress,
                       village=args.village, werewolves=args.werewolves,
                       parallel=args.parallel)
    if progress is not None:
        print(file=sys.stderr)
    from maw.engine.compiled import compiled_modules

    # (which engine played them: the same games either way, a compiled one faster)
    engine = "compiled" if compiled_modules() else "python"
    result = {**summary.as_dict(), "seed": args.seed, "engine": engine,
              "ruleset": rules.name, "variant": rules.variant or None,
              "rule_options": list(args.rule), "players": args.players,
              "village": args.village or args.policy,
              "werewolves": args.werewolves or args.policy}
    if args.json:
        print(json.dumps(result))
        return 0
    g = summary.games
    print(f"ruleset {rules.name}{'/' + rules.variant if rules.variant else ''}"
          + "".join(f" --rule {r}" for r in args.rule) + ", "
          f"{args.players} players, village {args.village or args.policy}, werewolves "
          f"{args.werewolves or args.policy}, seed {args.seed}")
    print(f"games            {g}")
    print(f"village wins     {summary.village_wins} ({100 * summary.village_wins / g:.1f}%)")
    print(f"werewolf wins    {summary.werewolf_wins} ({100 * summary.werewolf_wins / g:.1f}%)")
    if summary.draws:
        print(f"draws            {summary.draws}")
    print(f"mean days        {result['mean_days']}")
    print(f"ms per game      {result['ms_per_game']} ({engine} engine: maw engine status)")
    print(f"invalid actions  {summary.invalid_actions}")
    print(f"digest           {result['digest']} (the same for the same command: every "
          "event of every game)")
    return 0
