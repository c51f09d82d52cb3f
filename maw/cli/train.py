"""``maw train``: a learned player trained on the rules engine: a table of choices
(``--algo table``), a neural network (``--algo ppo``, the ``.[rl]`` extra), or the rule
player's belief ratios fitted to games (``--algo beliefs``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

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
    p = command(sub, "train", "train a learned player on the engine: a table of choices, "
                "a neural network (--algo ppo), or fitted beliefs (--algo beliefs)")
    p.add_argument("--team", required=True, choices=("village", "werewolves", "both"),
                   help="the side whose seats learn (both: ppo self-play, the sides in "
                        "turns, each against --opponents and the other's earlier "
                        "checkpoints; --out is then a folder)")
    p.add_argument("--rounds", type=int, default=3, metavar="N",
                   help="--team both: rounds of self-play, --steps a side a round "
                        "(default: %(default)s)")
    p.add_argument("--algo", choices=("table", "ppo", "beliefs"), default="table",
                   help="table: Monte-Carlo control over the rule player's options (JSON); "
                        "ppo: sb3-contrib's MaskablePPO over maw.env, exported to numpy "
                        "(.npz; needs pip install -e '.[rl]' to train, nothing to play); "
                        "beliefs: the village rule player's likelihood ratios fitted to "
                        "rule games by maximum likelihood (JSON; --team village)")
    add_games(p, 20000, "games to play (--algo table, --algo beliefs)")
    p.add_argument("--steps", type=int, default=200_000,
                   help="environment steps to train (--algo ppo)")
    p.add_argument("--seats", type=int, default=None, metavar="K",
                   help="ppo: only K seats of the team learn, drawn each game, the rest "
                        "rule players (1: a player that plays well beside others, not by "
                        "a convention among copies of itself; default: every seat); "
                        "--counterfactual: the table plays K of the team's seats, drawn "
                        "each game, one of them trying its choices (default: 1)")
    p.add_argument("--reward", action="append", default=[], metavar="TERM=VALUE",
                   help="ppo: a term of RLereWolf's reward table set otherwise (maw.env."
                        "Rewards: top_vote, rank_penalty, wait, win, loss, invalid, "
                        "day_passed, death, cannibalism, dead_target), e.g. --reward "
                        "top_vote=0; repeatable")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="the policy file (JSON; .npz for ppo, its model beside it as .zip), "
                        "written every --checkpoint games (steps)")
    add_players(p, "players in each game (default: the ruleset's fewest)", default=None)
    p.add_argument("--opponents", default="rule",
                   help="the other side's decider: rule, random or learned:FILE (ppo: a "
                        "comma-separated list, one drawn each game, e.g. "
                        "rule,random,learned:old.npz)")
    add_seed(p, "the games' seeds start here", default=0)
    p.add_argument("--checkpoint", type=int, default=None, metavar="N",
                   help="save the policy every N games (ppo: steps; a killed run loses at "
                        "most N; default 1000 games, 20000 steps)")
    p.add_argument("--imitate", type=int, default=0, metavar="STEPS",
                   help="ppo: a new network first learns the rule player's choices over "
                        "STEPS steps of its play (then PPO improves on them; default: none)")
    p.add_argument("--anchor", type=float, default=0.0, metavar="W",
                   help="ppo with --imitate: between PPO's updates, W times the imitation's "
                        "loss on its demonstrations (DAPG's term), so that PPO keeps the "
                        "rule player's choices where it cannot show better (default: 0)")
    p.add_argument("--advice", action="store_true",
                   help="ppo: the network also reads what the rule player would do now, "
                        "and learns where to do otherwise (with --imitate it starts as "
                        "the rule player)")
    p.add_argument("--counterfactual", type=int, default=0, metavar="K",
                   help="table: one seat of the team learns (beside rule teammates; "
                        "--seats: more), each "
                        "of its choices tried with every option, the rest of the game "
                        "played K times with fresh chance for each (the same K for every "
                        "option): a signal one seat's result alone is too noisy to give "
                        "(default: 0, learn from whole games)")
    p.add_argument("--search", type=int, default=1000, metavar="GAMES",
                   help="beliefs: where the game deals a Witch, the games on which each of "
                        "a few poison thresholds is played to choose hers (0: the rule "
                        "player's; default: %(default)s)")
    p.add_argument("--resume", action="store_true",
                   help="train --out further, from the games it has played")
    add_ruleset(p)
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    import shlex
    import time
    from pathlib import Path

    if args.algo == "ppo":
        return train_ppo(args)
    if args.algo == "beliefs":
        return train_beliefs(args)
    if args.team == "both":
        raise MawError("--team both is self-play, for --algo ppo")
    if args.imitate:
        raise MawError("--imitate starts a network from the rule player: for --algo ppo")
    if args.advice or args.anchor:
        raise MawError("--advice and --anchor train a network: for --algo ppo")
    from maw.env.train import train

    if args.games < 1:
        raise MawError("--games must be at least 1")
    if args.counterfactual < 0:
        raise MawError(f"--counterfactual K: continuations per option, at least 1 "
                       f"(0: none), got {args.counterfactual}")
    if args.seats is not None and not args.counterfactual:
        raise MawError("--seats: for --algo ppo, or a table with --counterfactual")
    if args.seats is not None and args.seats < 1:
        raise MawError("--seats must be at least 1")
    check_decider(args.opponents, "--opponents")
    args.checkpoint = 1000 if args.checkpoint is None else args.checkpoint
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
                          checkpoint=args.checkpoint, counterfactual=args.counterfactual,
                          seats=args.seats or 1, progress=progress, command=command)
    else:
        step = max(1, args.games // 20)

        def progress(done: int, table) -> None:
            if done % step == 0 or done == args.games:
                print(f"[{done}/{args.games}] {len(table.counts)} states, "
                      f"{time.monotonic() - t0:.0f} s", flush=True)
        table = train(rules_of(args), args.team, args.games, out, players=args.players,
                      opponents=args.opponents, seed=args.seed, resume=args.resume,
                      checkpoint=args.checkpoint, counterfactual=args.counterfactual,
                      seats=args.seats or 1, progress=progress, command=command)
    print(f"maw train: {out}: {table.games} games in all, {len(table.counts)} states, "
          f"{time.monotonic() - t0:.0f} s; play it with --policy learned:{out} (or "
          f"maw simulate --{args.team} learned:{out})", flush=True)
    return 0


def train_beliefs(args: argparse.Namespace) -> int:
    import shlex
    import time
    from pathlib import Path

    if args.team != "village":
        raise MawError("--algo beliefs fits the village's beliefs (a wolf knows its pack): "
                       "--team village")
    if args.opponents != "rule" or args.counterfactual or args.seats is not None or \
            args.imitate or args.resume or args.advice or args.anchor:
        raise MawError("--algo beliefs fits to rule games from nothing: no --opponents, "
                       "--counterfactual, --seats, --imitate, --resume, --advice or --anchor")
    out = Path(args.out)
    if out.exists():
        raise MawError(f"{out} exists: choose another --out")
    if not out.parent.is_dir():
        raise MawError(f"--out {out}: no folder {out.parent}")
    if args.search < 0:
        raise MawError(f"--search GAMES: at least 0, got {args.search}")
    from maw.env.fit_beliefs import POISON_AT
    from maw.env.fit_beliefs import train_beliefs as fit

    rules = rules_of(args)
    players = args.players if args.players is not None else rules.min_players
    command = "maw " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    t0 = time.monotonic()
    with progress_bar(disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("playing rule games", total=args.games)
        search = bar.add_task("a Witch's thresholds", total=len(POISON_AT), visible=False)

        def searched(done: int) -> None:
            bar.update(search, completed=done, visible=True)
        fitted = fit(rules, players, args.games, args.seed, out, command,
                     progress=lambda done: bar.update(task, completed=done),
                     search=args.search, searched=searched)
    judged = fitted.held_out
    if fitted.poison_at is not None:
        print(f"maw train: the Witch poisons at P(werewolf) {fitted.poison_at} "
              f"(village wins of {args.search} games at each: {fitted.poison_search})",
              flush=True)
    print(f"maw train: {out}: {fitted.records} weighings of {fitted.games} games, "
          f"{time.monotonic() - t0:.0f} s; on the last {judged['records']} (held out), "
          f"the true pack's mean probability {judged['p_true_hand']:.3f} by hand, "
          f"{judged['p_true_fitted']:.3f} fitted; play it with --policy learned:{out} "
          f"(or maw simulate --village learned:{out})", flush=True)
    return 0


def train_ppo(args: argparse.Namespace) -> int:
    import shlex
    import time
    from pathlib import Path

    if args.steps < 1:
        raise MawError("--steps must be at least 1")
    if args.counterfactual:
        raise MawError("--counterfactual trains a table: for --algo table")
    if args.anchor < 0:
        raise MawError("--anchor W: a weight, at least 0")
    if args.imitate < 0 or (args.imitate and args.resume):
        raise MawError("--imitate STEPS (at least 0) starts a new network: not with --resume")
    opponents = tuple(x.strip() for x in args.opponents.split(",") if x.strip())
    for name in opponents:
        check_decider(name, "--opponents")
    out = Path(args.out)
    if args.team == "both":
        return self_play(args, opponents)
    if out.suffix != ".npz":
        raise MawError(f"--out {out}: --algo ppo writes a network, a .npz file")
    if out.exists() and not args.resume:
        raise MawError(f"{out} exists: --resume to train it further, or another --out")
    from maw.env.ppo import ROLLOUT, train

    command = "maw " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    checkpoint = 20_000 if args.checkpoint is None else args.checkpoint
    t0 = time.monotonic()
    rounded = -(-args.steps // ROLLOUT) * ROLLOUT  # (PPO learns in whole rollouts)
    if args.seats is not None and args.seats < 1:
        raise MawError("--seats must be at least 1")
    from maw.env.rewards import Rewards

    rewards = Rewards.parse(args.reward)
    kwargs = dict(players=args.players, opponents=opponents, seed=args.seed,
                  resume=args.resume, checkpoint=checkpoint, command=command,
                  seats=args.seats, rewards=rewards, imitation=args.imitate,
                  advice=args.advice, anchor=args.anchor)
    if sys.stderr.isatty():
        bar = progress_bar()
        tasks: dict[str, Any] = {}

        def imitating(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(IMITATION[stage], total=total)
            bar.update(tasks[stage], completed=done)
        kwargs["imitating"] = imitating
        task = bar.add_task("training", total=rounded)

        def progress(done: int, s: dict) -> None:
            if done % 256 == 0 or done == rounded:
                rate = s["wins"] / s["games"] if s["games"] else 0.0
                bar.update(task, completed=done, description=f"training ({s['games']} games, "
                           f"{rate:.0%} won)")
        with bar:
            meta = train(rules_of(args).name, args.team, args.steps, out, progress=progress,
                         **kwargs)
    else:
        step = max(1, rounded // 20)
        kwargs["imitating"] = imitation_lines(t0)

        def progress(done: int, s: dict) -> None:
            if done % step == 0 or done == rounded:
                print(f"[{done}/{rounded}] {s['games']} games, {s['wins']} won, "
                      f"{time.monotonic() - t0:.0f} s", flush=True)
        meta = train(rules_of(args).name, args.team, args.steps, out, progress=progress,
                     **kwargs)
    print(f"maw train: {out}: {meta['steps']} steps in all ({meta['games']} games), "
          f"{time.monotonic() - t0:.0f} s; play it with --policy learned:{out} (no PyTorch "
          f"needed), or maw simulate --{args.team} learned:{out}", flush=True)
    return 0


# what ``--imitate`` does first, by stage (``maw.env.ppo.imitate``'s progress)
IMITATION = {"play": "imitating: the rule player plays (steps)",
             "fit": "imitating: fitting its choices (epochs)"}


def imitation_lines(t0: float) -> Callable[[str, int, int], None]:
    """``--imitate``'s progress as lines (no terminal): each twentieth of the rule
    player's steps, each fifth of the fitting's epochs, and each stage's end; a stage
    that starts again (self-play imitates for each side) is told again."""
    import time

    shown: dict[str, int] = {}  # the part each stage had reached at its last call

    def told(stage: str, done: int, total: int) -> None:
        part = done * (20 if stage == "play" else 5) // total
        last = shown.get(stage, 0) if part >= shown.get(stage, 0) else 0  # (or anew)
        if part > last or done == total:
            print(f"[{IMITATION[stage]}: {done}/{total}] {time.monotonic() - t0:.0f} s",
                  flush=True)
        shown[stage] = part
    return told


def self_play(args: argparse.Namespace, opponents: tuple[str, ...]) -> int:
    """``--team both``: the sides learn in turns (``maw.env.ppo.self_play``)."""
    import shlex
    import time
    from pathlib import Path

    from maw.env import ppo
    from maw.env.rewards import Rewards

    if args.resume:
        raise MawError("--team both starts a league afresh: --resume trains one side")
    if args.seats is not None and args.seats < 1:
        raise MawError("--seats must be at least 1")
    t0 = time.monotonic()
    step = max(1, args.steps // 4)

    def progress(what: str, done: int, s: dict) -> None:
        if done % step == 0 or done == args.steps:
            print(f"[{what}: {done}/{args.steps}] {s['games']} games, {s['wins']} won, "
                  f"{time.monotonic() - t0:.0f} s", flush=True)
    metas = ppo.self_play(
        rules_of(args).name, args.steps, Path(args.out), args.rounds, players=args.players,
        opponents=opponents, seed=args.seed, seats=args.seats,
        rewards=Rewards.parse(args.reward), progress=progress, imitation=args.imitate,
        imitating=imitation_lines(t0), advice=args.advice, anchor=args.anchor,
        checkpoint=20_000 if args.checkpoint is None else args.checkpoint,
        command="maw " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    for m in metas:
        print(f"round {m['round']}: {m['team']} against {', '.join(m['opponents'])}: "
              f"{m['steps']} steps in all", flush=True)
    print(f"maw train: {args.out}: {args.rounds} rounds, {time.monotonic() - t0:.0f} s; the "
          f"latest networks are {args.out}/village.npz and {args.out}/werewolves.npz",
          flush=True)
    return 0
