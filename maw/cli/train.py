"""``maw train``: a learned player (a table of choices) trained on the rules engine."""

from __future__ import annotations

import argparse
import sys

from maw.cli.options import (
    add_games,
    add_players,
    add_ruleset,
    add_seed,
    check_decider,
    command,
    progress_bar,
    rules_of,
)
from maw.errors import MawError


def add_train(sub) -> None:
    p = command(sub, "train", "train a learned player (a table of choices) on the engine")
    p.add_argument("--team", required=True, choices=("village", "werewolves"),
                   help="the side whose seats learn")
    add_games(p, 20000, "games to play")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="the policy file (JSON), written every --checkpoint games")
    add_players(p, "players in each game (default: the ruleset's fewest)", default=None)
    p.add_argument("--opponents", default="rule",
                   help="the other side's decider: rule, random or learned:FILE")
    add_seed(p, "the games' seeds start here", default=0)
    p.add_argument("--checkpoint", type=int, default=1000, metavar="N",
                   help="save the policy every N games (a killed run loses at most N)")
    p.add_argument("--resume", action="store_true",
                   help="train --out further, from the games it has played")
    add_ruleset(p)
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    import shlex
    import time
    from pathlib import Path

    from maw.env.train import train

    if args.games < 1:
        raise MawError("--games must be at least 1")
    check_decider(args.opponents, "--opponents")
    out = Path(args.out)
    if out.exists() and not args.resume:
        raise MawError(f"{out} exists: --resume to train it further, or another --out")
    if args.resume and not out.exists():
        raise MawError(f"--resume: {out} does not exist yet")
    command = "maw " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    t0 = time.monotonic()
    if sys.stderr.isatty():
        bar = progress_bar()
        task = bar.add_task("training", total=args.games)

        def progress(done: int, table) -> None:
            if done % 50 == 0 or done == args.games:
                bar.update(task, completed=done,
                           description=f"training ({len(table.counts)} states)")
        with bar:
            table = train(rules_of(args), args.team, args.games, out, players=args.players,
                          opponents=args.opponents, seed=args.seed, resume=args.resume,
                          checkpoint=args.checkpoint, progress=progress, command=command)
    else:
        step = max(1, args.games // 20)

        def progress(done: int, table) -> None:
            if done % step == 0 or done == args.games:
                print(f"[{done}/{args.games}] {len(table.counts)} states, "
                      f"{time.monotonic() - t0:.0f} s", flush=True)
        table = train(rules_of(args), args.team, args.games, out, players=args.players,
                      opponents=args.opponents, seed=args.seed, resume=args.resume,
                      checkpoint=args.checkpoint, progress=progress, command=command)
    print(f"maw train: {out}: {table.games} games in all, {len(table.counts)} states, "
          f"{time.monotonic() - t0:.0f} s; play it with --policy learned:{out} (or "
          f"maw simulate --{args.team} learned:{out})", flush=True)
    return 0
