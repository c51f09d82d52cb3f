"""``maw bench``: rate one seat against MAW's frozen pool of reference agents."""

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
    note_learned,
    players_for,
    progress_bar,
    roster_seat,
    rules_of,
)
from maw.errors import MawError


def add_bench(sub) -> None:
    p = command(sub, "bench", "rate one seat against MAW's frozen pool of reference agents")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="the roster the candidate comes from: give --seat")
    p.add_argument("--seat", default=None, metavar="NAME",
                   help="the roster player to rate")
    p.add_argument("--policy", default=None,
                   help="rate a decider instead of a roster seat: rule, random, hybrid "
                        "or learned:FILE")
    add_players(p, SIZE, default=None)
    add_games(p, 200, "games the candidate plays, half on each side (--side: all on one)")
    p.add_argument("--side", choices=("village", "werewolves"), default=None,
                   help="play every game on this side: for a player made for one side, "
                        "e.g. a network trained as a villager (the same seeds and seats as "
                        "that side's games in a bench on both)")
    add_seed(p, "the schedule's first seed (the same seed, the same figures)", default=1)
    p.add_argument("--pool", default="random,rule,hybrid,learned",  # (bench.POOL)
                   help="the reference agents, comma-separated (default: %(default)s; "
                        "add llm for the LLM player on the embedded model, whose games "
                        "take the model's time)")
    p.add_argument("--calibration", type=int, default=1000, metavar="N",
                   help="pool-only games that fix the pool's ratings")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_ruleset(p)
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from maw.tournament.bench import bench, plays, seat_policy, thinks

    rules = rules_of(args)
    players = players_for(args, rules)  # (6, as simulate and tournament; it was the
    # ruleset's fewest: 3 for maw, a game a new user did not mean)
    rules.roles_for(players)
    if bool(args.roster) == bool(args.policy):
        raise MawError("give --roster with --seat (a roster's player), or --policy DECIDER")
    if args.roster:
        seat = roster_seat(args, "the roster player to rate")
        candidate, label = seat_policy(seat), f"{seat.name} ({seat.decider})"
        if thinks(candidate):
            import asyncio

            from maw.hosting.seats import check_backends

            asyncio.run(check_backends([seat]))  # (a model that cannot answer fails now)
        else:
            check_decider(seat.decider, "--seat")
    else:
        candidate = label = args.policy
        check_decider(args.policy, "--policy")
        note_learned(args.policy, "--policy", rules.name, "bench", args.side)
    made: list = []  # the candidate's deciders, for what its model did (a seat with one)
    if thinks(candidate):
        factory = candidate

        def counted(name, rng, role=None):
            made.append(factory(name, rng, role=role))
            return made[-1]
        counted.takes_role = True  # type: ignore[attr-defined]
        candidate = counted
    pool = tuple(a.strip() for a in args.pool.split(",") if a.strip())
    if args.json or not sys.stderr.isatty():
        result = bench(rules, players, candidate, args.games, args.seed, pool,
                       args.calibration, label=label, side=args.side)
    else:
        bar = progress_bar()
        task = bar.add_task("bench", total=args.games)
        with bar:
            result = bench(rules, players, candidate, args.games, args.seed, pool,
                           args.calibration, label=label, side=args.side,
                           progress=lambda done: bar.update(task, completed=done))
    tallies = [d.tally for d in made if getattr(d, "tally", None) is not None]
    # (a server that dies mid-bench: the rule layer's fallbacks are rated in its name)
    model = {"calls": sum(t.calls for t in tallies), "decisions": sum(len(t.log) for t in tallies),
             "legal": sum(t.legal for t in tallies),
             "repaired": sum(t.repaired for t in tallies),
             "fallbacks": sum(t.fallbacks for t in tallies)} if made else None
    if args.json:
        print(json.dumps({**result.as_dict(), "label": label, "model": model}))
        return 0
    where = f" as {args.side}" if args.side else ""
    playing = [a for a in pool if plays(a, rules, players)]
    absent = [a for a in pool if a not in playing]
    print(f"maw bench: {label}{where} on {rules.name}, {players} players: {args.games} games from "
          f"seed {args.seed}, against {', '.join(playing)} ({args.calibration} pool games fix "
          "the pool's ratings)" + (f"; {', '.join(absent)} has no table for this game"
                                   if absent else ""))
    print(f"{'side':<11} {'games':>5} {'wins':>5} {'win rate (95%)':>21} "
          f"{'rating':>14} {'ordinal':>8}")
    for name, side in result.sides.items():
        if not side.games:
            continue
        d = side.as_dict()
        low, high = d["interval"]
        rate = f"{100 * d['win_rate']:.1f}% ({100 * low:.1f}-{100 * high:.1f})"
        print(f"{name:<11} {side.games:>5} {side.wins:>5} {rate:>21} "
              f"{side.mu:>7.2f} ± {2 * side.sigma:4.2f} {d['ordinal']:>8.2f}")
    for name, rated in result.frozen.items():
        pool_line = ", ".join(f"{a} {mu:.2f}" for a, (mu, _) in
                              sorted(rated.items(), key=lambda kv: -kv[1][0]))
        print(f"pool as {name}: {pool_line}")
    if model is not None:
        print(f"its model: {model['calls']} calls for {model['decisions']} decisions: "
              f"{model['legal']} legal, {model['repaired']} repaired, {model['fallbacks']} "
              "fallbacks (its fallback decided those)")
    return 0
