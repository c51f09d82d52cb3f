"""How much could one seat gain over the rule player? Counterfactual rollouts.

    .venv/bin/python benchmarks/headroom.py [--ruleset werewolf-12] [--side village]
        [--games 300] [--k 8] [--workers 2] [--advantages]

The seat is the one ``learned.py`` gives a learned player ("one seat": one of the side's
seats, drawn from the game's seed; until 2026-12-06 the side's first seat, as the stored
figures were measured), on ``learned.py``'s seeds, beside rule players. Each game is
played twice: with the rule player in the seat, and with an oracle that sees the whole
game (roles included). At each of its choices the oracle tries every choice the seat has
(a vote, a night action, a badge...; at a chat, the rule player's line or saying nothing):
the game is replayed to that choice (a game is its seed and its choices), the choice
forced, and the rest played ``k`` times with every random stream reseeded (the game's and
each player's; the same ``k`` seeds for every choice, common random numbers). It takes the
choice whose continuations won at least two more than the rule player's choice did, else
the rule player's. The game itself goes on with its own streams, which no continuation
drew from, so the paired difference (oracle won, rule won), with its 95% interval, is what
that oracle gains, not the best of noisy estimates. A learner reads its own seat, not the
roles: it has less room than the oracle.

``--advantages`` measures what a learner reading its own seat could use instead: at every
choice of the rule seat's own game, each other choice's continuations against the rule
player's (the same ``k`` seeds), averaged by the seat's role and the kind of each choice
(another vote target, a night target, running for sheriff, saying nothing...) over every
such choice of the games, with a 95% interval (the choices taken as independent): a kind
of choice that beats the rule player's on average is a gain a player that knows no more
than its role and the moment could learn.

The rule player's memory is not told of a forced choice (it remembers its own): its later
choices are made as if it had done what it would have. Stored in
``benchmarks/results/headroom.json``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from multiprocessing import Pool
from pathlib import Path

from record import save, saved  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import Chat, ruleset  # noqa: E402
from maw.engine.state import default_names  # noqa: E402
from maw.env.counterfactual import drawn_seats  # noqa: E402
from maw.env.counterfactual import play as play_game  # noqa: E402


def play(rules, n: int, seed: int, side: str, forced: dict[int, int],
         reseed: int | None = None, k: int = 0, log: list | None = None) -> bool:
    """One game of rule players where the side's first seat's choice t is option
    ``forced[t]`` of ``options`` (0: its own), the game reseeded by ``k`` after choice
    ``reseed``. Did ``side`` win? ``log`` receives each choice's options."""
    t = 0  # (the seat's choices so far)
    [seat] = drawn_seats(rules, default_names(n), seed, side, 1)

    def instead(name: str, at, legal: tuple, action):
        nonlocal t
        if name != seat or not legal:
            return action
        opts = options(legal, action)
        if log is not None:
            log.append((opts, at.roles[at.seat[seat]].name))
        t += 1
        return opts[forced.get(t - 1, 0)]

    rec = play_game(rules, default_names(n), "rule", seed, instead=instead,
                    reseed_when=None if reseed is None else lambda: t > reseed,
                    key=(seed, reseed, k))
    return rec.winner == side


def options(legal: tuple, action) -> list:
    """What the seat could do: the rule player's choice first, then the others (at a
    chat, saying nothing)."""
    if isinstance(action, Chat):
        return [action, None]
    return [action, *(a for a in legal if a != action and not isinstance(a, Chat))]


def label(action) -> str:
    return "nothing" if action is None else type(action).__name__


def advantages(job: tuple) -> dict:
    """Each choice of the rule seat's game on one seed: each other kind of choice's mean
    edge over the rule player's, in wins of ``k`` continuations."""
    slug, n, side, seed, k = job
    rules = ruleset(slug)
    log: list = []
    play(rules, n, seed, side, {}, log=log)
    edges = []
    for t, (opts, role) in enumerate(log):
        if len(opts) < 2:
            continue
        wins = [sum(play(rules, n, seed, side, {t: c}, t, j) for j in range(k))
                for c in range(len(opts))]
        by_kind: dict[str, list[float]] = {}
        for c in range(1, len(opts)):
            by_kind.setdefault(label(opts[c]), []).append((wins[c] - wins[0]) / k)
        edges += [(role, label(opts[0]), kind, sum(v) / len(v)) for kind, v in by_kind.items()]
    return {"seed": seed, "edges": edges}


def one_game(job: tuple) -> dict:
    """The rule seat's game and the oracle's, on one seed."""
    slug, n, side, seed, k = job
    rules = ruleset(slug)
    rule_won = play(rules, n, seed, side, {})
    forced: dict[int, int] = {}
    changed, tried, t = [], 0, 0
    while True:
        log: list = []
        won = play(rules, n, seed, side, forced, log=log)
        if t >= len(log):
            break
        opts, role = log[t]
        if len(opts) > 1:
            tried += 1
            wins = [sum(play(rules, n, seed, side, {**forced, t: c}, t, j) for j in range(k))
                    for c in range(len(opts))]
            best = max(range(len(opts)), key=lambda c: (wins[c], -c))
            if wins[best] >= wins[0] + 2:
                forced[t] = best
                changed.append({"role": role, "kind": label(opts[best]),
                                "by": (wins[best] - wins[0]) / k})
        t += 1
    return {"seed": seed, "rule": rule_won, "oracle": won, "choices": tried,
            "changed": changed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ruleset", default="werewolf-12")
    ap.add_argument("--players", type=int, default=12)
    ap.add_argument("--side", choices=("village", "werewolves"), default="village")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--k", type=int, default=8, help="continuations per choice")
    ap.add_argument("--seed", type=int, default=1, help="learned.py's --seed")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--advantages", action="store_true",
                    help="each kind of other choice against the rule player's, on average")
    args = ap.parse_args()
    jobs = [(args.ruleset, args.players, args.side, args.seed * 1_000_003 + i, args.k)
            for i in range(args.games)]
    t0, games = time.time(), []
    with Pool(args.workers) as pool:
        for g in pool.imap_unordered(advantages if args.advantages else one_game, jobs):
            games.append(g)
            print(f"\r{len(games)}/{args.games} games, {time.time() - t0:.0f} s",
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if args.advantages:
        return report_advantages(args, games, time.time() - t0)
    n = len(games)
    d = [int(g["oracle"]) - int(g["rule"]) for g in games]
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    changed = [c for g in games for c in g["changed"]]
    choices = sum(g["choices"] for g in games)
    kinds: dict[str, int] = {}
    for c in changed:
        kinds[f"{c['role']} {c['kind']}"] = kinds.get(f"{c['role']} {c['kind']}", 0) + 1
    row = {"ruleset": args.ruleset, "players": args.players, "side": args.side,
           "games": n, "k": args.k, "rule": 100 * sum(g["rule"] for g in games) / n,
           "oracle": 100 * sum(g["oracle"] for g in games) / n,
           "gain": 100 * mean, "low": 100 * (mean - half), "high": 100 * (mean + half),
           "choices": choices, "changed": len(changed), "by_kind": dict(sorted(kinds.items())),
           "seconds": round(time.time() - t0)}
    print(f"{args.ruleset} {args.side}, one seat, {n} games: rule {row['rule']:.1f}%, oracle "
          f"{row['oracle']:.1f}%, paired {row['gain']:+.1f} ({row['low']:+.1f} to "
          f"{row['high']:+.1f}); it changed {len(changed)} of {choices} choices "
          f"with another to take: " + ", ".join(f"{k} {v}" for k, v in row["by_kind"].items()))
    rows = [r for r in saved("headroom") if (r["ruleset"], r["side"], r.get("advantages"))
            != (args.ruleset, args.side, None)]
    save("headroom", [*rows, row])


def report_advantages(args: argparse.Namespace, games: list[dict], seconds: float) -> None:
    groups: dict[tuple[str, str, str], list[float]] = {}
    for g in games:
        for role, rule, kind, edge in g["edges"]:
            groups.setdefault((role, rule, kind), []).append(edge)
    kinds = []
    for (role, rule, kind), v in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        n = len(v)
        mean = sum(v) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n)
        kinds.append({"role": role, "rule": rule, "instead": kind, "choices": n,
                      "edge": 100 * mean, "low": 100 * (mean - half),
                      "high": 100 * (mean + half)})
        print(f"{role:9} rule {rule:8} instead {kind:8} {n:5} choices  "
              f"{100 * mean:+6.2f} ({100 * (mean - half):+6.2f} to {100 * (mean + half):+6.2f})")
    row = {"ruleset": args.ruleset, "players": args.players, "side": args.side,
           "advantages": True, "games": len(games), "k": args.k, "kinds": kinds,
           "seconds": round(seconds)}
    rows = [r for r in saved("headroom") if (r["ruleset"], r["side"], r.get("advantages"))
            != (args.ruleset, args.side, True)]
    save("headroom", [*rows, row])


if __name__ == "__main__":
    main()
