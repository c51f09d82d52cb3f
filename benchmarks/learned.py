"""Learned players against rule and random ones, head to head on the same seeds.

    .venv/bin/python benchmarks/learned.py [--games 1000] [--only maw6,aiwolf5] [--workers 2]

(``--only``: those rulesets' rows are played again, the others' kept from the file;
``--workers``: rows played at a time, each in a process of its own, the same rows.)

For each ruleset and side: that side played by random players, rule players and each
learned player shipped for it (``agents/policies/SLUG-SIDE.json``, a table: ``maw train``;
``SLUG-SIDE.npz``, a network: ``maw train --algo ppo``; ``SLUG-SIDE.beliefs.json``, the
rule player with fitted beliefs: ``maw train --algo beliefs``), against rule players on the other
side. Game i of every contender has the same seed, so the deals are the same: each
learned player's win rate is given with its 95% interval, and its difference from the rule
players' with the paired 95% interval (per game: won with the learned side, won with the
rule side). A learned player is also played in one seat of its side alone (``ppo, one
seat``, ``table, one seat``: a seat of the side drawn from the game's seed, the others rule
players): a side whose every seat is the same player may win by a convention among its
seats (a claim only they make), which one seat among rule players cannot use. (Until
2026-12-06 it was the side's first seat, which knows that every seat before it is the
other side's: a table trained there learned to use it.) A ruleset and side with no learned
player says so. Stored in ``benchmarks/results/learned.json``.
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
from maw.engine import ruleset  # noqa: E402
from maw.env.counterfactual import drawn_seats  # noqa: E402
from maw.policies import make_decider  # noqa: E402
from maw.simulate import play_game  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402

POLICIES = REPO / "agents" / "policies"
SHAPES = [("aiwolf5", "aiwolf-5", 5), ("maw6", "maw", 6), ("aiwolf15", "aiwolf-15", 15),
          ("werewolf12", "werewolf-12", 12)]


def paired(a: list[bool], b: list[bool]) -> tuple[float, float, float]:
    """The mean of a - b over paired games, and its 95% interval (normal)."""
    d = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def one_seat(who: str, rules, names: list[str], seed: int, side: str):
    """A side's deciders for the game of ``seed``: ``who`` in one of its seats, drawn from
    the seed (``maw.env.counterfactual.drawn_seats``), rule players in the others."""
    [seat] = drawn_seats(rules, names, seed, side, 1)

    def make(name, stream, role=None):
        return make_decider(who if name == seat else "rule", name, stream)
    make.takes_role = True  # type: ignore[attr-defined]
    return make


def _won(task: tuple[str, int, str, str, str, int, int]) -> list[bool]:
    """One row's games: whether ``side`` won each, played by ``who`` (in one seat of it
    where ``label`` says so) against rule players."""
    name, players, side, label, who, seed, games = task
    names = [f"P{i + 1:02d}" for i in range(players)]
    other = "werewolves" if side == "village" else "village"
    seeds = [seed * 1_000_003 + i for i in range(games)]
    return [play_game(ruleset(name), names, "rule", seed=s,
                      teams={side: one_seat(who, ruleset(name), names, s, side)
                             if "one seat" in label else who,
                             other: "rule"}).winner == side
            for s in seeds]


def _timed(task: tuple) -> tuple[list[bool], float]:
    t0 = time.perf_counter()
    return _won(task), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="slugs, comma-separated (e.g. maw6,aiwolf5)")
    ap.add_argument("--workers", type=int, default=1,
                    help="rows played at a time, each in a process of its own")
    args = ap.parse_args()
    only = {s for s in args.only.split(",") if s}
    plan: list[tuple[str, int, str, list[tuple[str, str]]]] = []
    for slug, name, players in SHAPES:
        if only and slug not in only:
            continue
        for side in ("village", "werewolves"):
            learned = [(kind, POLICIES / f"{slug}-{side}.{ext}")
                       for kind, ext in (("table", "json"), ("ppo", "npz"),
                                         ("beliefs", "beliefs.json"))]
            contenders = [("random", "random"), ("rule", "rule")] + [
                (kind, f"learned:{path}") for kind, path in learned if path.exists()]
            seats = sum(r.team.value == side for r in ruleset(name).roles_for(players))
            if seats > 1:
                contenders += [(f"{kind}, one seat", f"learned:{path}")
                               for kind, path in learned if path.exists()]
            plan.append((name, players, side, contenders))
    tasks = [(name, players, side, label, who, args.seed, args.games)
             for name, players, side, contenders in plan for label, who in contenders]
    with Pool(args.workers) as pool:  # (a row's games in one process: its ms a game)
        results = iter(pool.imap(_timed, tasks))
        rows = []
        for name, players, side, contenders in plan:
            if len(contenders) == 2:
                print(f"{name:11s} {players:2d}p {side:10s} no learned player shipped",
                      flush=True)
                rows.append({"ruleset": name, "players": players, "side": side,
                             "players_of_side": "learned", "games": 0,
                             "note": "no learned player shipped"})
            won: dict[str, list[bool]] = {}
            for label, _who in contenders:
                won[label], seconds = next(results)
                wins = sum(won[label])
                lo, hi = wilson(wins, args.games)
                row = {"ruleset": name, "players": players, "side": side,
                       "players_of_side": label, "games": args.games, "wins": wins,
                       "rate": round(wins / args.games, 4), "low": round(lo, 4),
                       "high": round(hi, 4),
                       "ms_per_game": round(1000 * seconds / args.games, 2)}
                line = (f"{name:11s} {players:2d}p {side:10s} {label:13s} vs rule: "
                        f"{100 * wins / args.games:5.1f}% ({100 * lo:.1f}-{100 * hi:.1f})")
                if label not in ("random", "rule"):
                    d, dlo, dhi = paired(won[label], won["rule"])
                    row.update(vs_rule=round(d, 4), vs_rule_low=round(dlo, 4),
                               vs_rule_high=round(dhi, 4))
                    line += (f"; against the rule {side}: {100 * d:+.1f} points "
                             f"({100 * dlo:+.1f} to {100 * dhi:+.1f}, paired)")
                rows.append(row)
                print(line, flush=True)
    if only:  # (the other rulesets' rows of the last full run are kept)
        done = {r["ruleset"] for r in rows}
        kept = [r for r in saved("learned") if r["ruleset"] not in done]
        order = [name for _slug, name, _n in SHAPES]
        rows = sorted(kept + rows, key=lambda r: order.index(r["ruleset"]))
    save("learned", rows)


if __name__ == "__main__":
    main()
