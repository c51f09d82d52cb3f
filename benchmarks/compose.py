"""Balanced MAW games of any size: for each number of players, the werewolves and Seers
with which rule villages and rule wolves win about as often (``--rule roles=auto``).

    .venv/bin/python benchmarks/compose.py [--sizes 5,6,...] [--scale 1.0]
    .venv/bin/python benchmarks/compose.py --werewolf [--sizes 6,...,16]

For each size the Seers are fixed by a simple rule (none under 7 players, one to 14,
then one in twelve) and the werewolves are searched (every count for small games, a grid of
ten for large ones): the count whose village win rate is nearest 50% in rule-vs-rule engine games
(seed 1, as many games as the size allows). Prints the table that
``maw/engine/compose.py`` keeps and writes benchmarks/results/compose.json.

``--werewolf`` checks the werewolf-N rulesets instead (``maw/engine/werewolf_sizes.py``):
each size's composition, role sets A and B, its village win rate with a 95% interval in
rule-vs-rule games (seed 1); their rows replace the earlier werewolf rows of compose.json
and keep the MAW ones.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from record import save, saved

from maw.engine import ruleset
from maw.simulate import simulate
from maw.tournament.report import wilson

SIZES = [5, 6, 7, 8, 9, 10, 12, 15, 20, 30, 45, 75]


def seers_for(n: int) -> int:
    return 0 if n < 7 else 1 if n <= 14 else n // 12


def games_for(n: int, scale: float) -> int:
    return max(20, int(scale * (400 if n <= 12 else 200 if n <= 20 else 80 if n <= 45 else 30)))


def village_rate(n: int, wolves: int, seers: int, games: int) -> tuple[float, dict]:
    deal = f"ww:{wolves}" + (f",seer:{seers}" if seers else "")
    rules = ruleset("maw", roles=deal)
    t0 = time.perf_counter()
    s = simulate(rules, n, "rule", games, seed=1).as_dict()
    rate = s["village_wins"] / games
    return rate, {"players": n, "wolves": wolves, "seers": seers, "games": games,
                  "village_wins": s["village_wins"], "mean_days": s["mean_days"],
                  "ms_per_game": round(1000 * (time.perf_counter() - t0) / games, 2)}


def werewolf(sizes: list[int], scale: float) -> None:
    """Each werewolf-N's composition and its village win rate, role sets A and B."""
    rows = []
    for n in sizes:
        for role_set in "AB":
            rules = ruleset(f"werewolf-{n}", role_set=role_set)
            roles = dict(Counter(r.name for r in rules.roles_for(n)))
            games = max(20, int(scale * 400))
            t0 = time.perf_counter()
            s = simulate(rules, n, "rule", games, seed=1).as_dict()
            low, high = wilson(s["village_wins"], games)
            rows.append({"ruleset": rules.name, "role_set": role_set, "players": n,
                         "roles": roles, "games": games, "village_wins": s["village_wins"],
                         "rate": round(s["village_wins"] / games, 3),
                         "ci": [round(low, 3), round(high, 3)], "mean_days": s["mean_days"],
                         "invalid_actions": s["invalid_actions"],
                         "ms_per_game": round(1000 * (time.perf_counter() - t0) / games, 2),
                         "date": time.strftime("%Y-%m-%d")})
            listed = ", ".join(f"{k} {r}" for r, k in roles.items())
            print(f"{rules.name} {role_set}: {listed}: village "
                  f"{100 * s['village_wins'] / games:.1f}% ({100 * low:.1f}-{100 * high:.1f}%), "
                  f"{s['mean_days']} days, {s['invalid_actions']} invalid, "
                  f"{rows[-1]['ms_per_game']} ms a game", flush=True)
    kept = [r for r in saved("compose") if "ruleset" not in r]
    save("compose", kept + rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--scale", type=float, default=1.0, help="more or fewer games")
    parser.add_argument("--werewolf", action="store_true",
                        help="check the werewolf-N rulesets' compositions (sizes 6 to 16)")
    args = parser.parse_args()
    if args.werewolf:
        sizes = list(range(6, 17)) if args.sizes == ",".join(map(str, SIZES)) else \
            [int(x) for x in args.sizes.split(",")]
        werewolf(sizes, args.scale)
        return
    rows = []
    for n in map(int, args.sizes.split(",")):
        seers, games = seers_for(n), games_for(n, args.scale)
        most = max(1, (n - seers - 1) // 2)  # the village keeps a majority at first
        # every count for a small game (the rate is not monotone: one wolf always kills,
        # two must agree), a grid of ten for a large one
        counts = range(1, most + 1) if most <= 12 else sorted(
            {max(1, round(most * k / 10)) for k in range(1, 11)})
        tried: dict[int, tuple[float, dict]] = {}
        for w in counts:
            tried[w] = village_rate(n, w, seers, games)
        # then every count between the two of the grid that bracket 50%
        above = [w for w in tried if tried[w][0] >= 0.5]
        below = [w for w in tried if tried[w][0] < 0.5 and (not above or w > max(above))]
        if above and below:
            for w in range(max(above) + 1, min(below)):
                tried[w] = village_rate(n, w, seers, games)
        wolves = min(tried, key=lambda w: (abs(tried[w][0] - 0.5), w))
        rate, row = tried[wolves]
        low, high = wilson(row["village_wins"], games)
        row.update(rate=round(rate, 3), ci=[round(low, 3), round(high, 3)],
                   tried={w: round(r, 3) for w, (r, _) in sorted(tried.items())})
        rows.append(row)
        print(f"{n:>3} players: {wolves} werewolves, {seers} seers: village {100 * rate:.1f}% "
              f"({100 * low:.1f}-{100 * high:.1f}%), {row['mean_days']} days, "
              f"{row['ms_per_game']} ms a game; tried {row['tried']}", flush=True)
    save("compose", rows)
    print("COMPOSITIONS = {" + ", ".join(
        f"{r['players']}: ({r['wolves']}, {r['seers']})" for r in rows) + "}")


if __name__ == "__main__":
    main()
