"""werewolf-12 (AutoWerewolf's game) in the engine: village win rates with 95% intervals,
mean days and ms per game for role sets A and B, with rule, hybrid and random players
(every player the same decider), and what the special roles did.

    .venv/bin/python benchmarks/werewolf12.py [--games 1000]

Writes benchmarks/results/werewolf12.json.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from record import save

from maw.engine import ruleset
from maw.simulate import play_game
from maw.tournament.report import wilson

NAMES = [f"P{i:02d}" for i in range(12)]


def run(role_set: str, policy: str, games: int, **options: str) -> dict:
    rules = ruleset("werewolf-12", role_set=role_set, **options)
    wins = days = invalid = 0
    seen: Counter[str] = Counter()
    t0 = time.perf_counter()
    for seed in range(games):
        events: list = []
        g = play_game(rules, NAMES, policy, seed, events=events)
        wins += g.winner == "village"
        days += g.days
        invalid += g.invalid_actions
        kinds = {type(e).__name__ for e in events}
        acted = {e.action for e in events if type(e).__name__ == "Acted"}
        seen.update(kinds & {"Shot", "Spared", "Exploded", "AttackBlocked", "BadgePassed"})
        seen.update(f"witch {a}" for a in acted & {"save", "poison"})
        sheriff = [e for e in events if type(e).__name__ == "SheriffElected"]
        seen["sheriff elected"] += bool(sheriff and sheriff[0].sheriff)
    ms = 1000 * (time.perf_counter() - t0) / games
    low, high = wilson(wins, games)
    return {"role_set": role_set, "policy": policy, "options": options, "games": games,
            "village_wins": wins, "rate": round(wins / games, 3),
            "ci": [round(low, 3), round(high, 3)], "mean_days": round(days / games, 2),
            "ms_per_game": round(ms, 2), "invalid_actions": invalid,
            "games_with": dict(sorted(seen.items()))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    for role_set in ("A", "B"):
        for policy in ("rule", "hybrid", "random"):
            rows.append(run(role_set, policy, args.games))
        # random werewolves explode themselves most days: the same without it
        rows.append(run(role_set, "random", args.games, self_explode="off"))
    for r in rows:
        opts = ",".join(f"{k}={v}" for k, v in r["options"].items())
        print(f"{r['role_set']} {r['policy']:<7} {opts:<17} village {100 * r['rate']:5.1f}% "
              f"({100 * r['ci'][0]:.1f}-{100 * r['ci'][1]:.1f}) days {r['mean_days']:4.2f} "
              f"{r['ms_per_game']:6.1f} ms/game invalid {r['invalid_actions']} "
              f"{r['games_with']}")
    save("werewolf12", rows)


if __name__ == "__main__":
    main()
