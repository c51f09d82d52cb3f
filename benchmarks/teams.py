"""Play strength per team: a side's deciders against fixed opponents, with 95% intervals.

    .venv/bin/python benchmarks/teams.py [--games 1000] [--policies random,rule,hybrid]

Every row plays the same seeds, so the same roles are dealt to the same seats: only the
deciders of one side change. Prints a table of village wins with Wilson 95% intervals
and writes benchmarks/results/teams.json. (``hybrid`` in engine games is the hybrid
agent's strategy with template talk: no model is asked.)
"""

from __future__ import annotations

import argparse

from record import save

from maw.engine import ruleset
from maw.simulate import simulate
from maw.tournament.report import wilson

CASES = [("maw", 6), ("aiwolf-5", 5), ("maw", 9), ("aiwolf-15", 15)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--policies", default="random,rule")
    parser.add_argument("--cases", default=",".join(f"{r}:{n}" for r, n in CASES))
    args = parser.parse_args()
    policies = args.policies.split(",")
    rows = []
    print(f"{'ruleset':<10} {'players':>7} {'village':<8} {'wolves':<8} {'village wins':>13} "
          f"{'95% interval':>15} {'ms/game':>8}")
    for case in args.cases.split(","):
        name, players = case.split(":")
        for wolves in policies:
            for village in policies:
                s = simulate(ruleset(name), int(players), "random", args.games, seed=1,
                             village=village, werewolves=wolves).as_dict()
                lo, hi = wilson(s["village_wins"], args.games)
                rows.append({"ruleset": name, "players": int(players), "village": village,
                             "werewolves": wolves, "games": args.games,
                             "village_wins": s["village_wins"], "low": round(lo, 4),
                             "high": round(hi, 4), "ms_per_game": s["ms_per_game"],
                             "digest": s["digest"]})
                print(f"{name:<10} {players:>7} {village:<8} {wolves:<8} "
                      f"{s['village_wins'] / args.games:>12.1%} "
                      f"{f'{lo:.1%}-{hi:.1%}':>15} {s['ms_per_game']:>8.2f}", flush=True)
    save("teams", rows)


if __name__ == "__main__":
    main()
