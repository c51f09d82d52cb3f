"""Engine speed: ms per game for 1000 games at 5, 15 and 75 players, random and rule.

    .venv/bin/python benchmarks/simulate.py [--games 1000] [--cases aiwolf-5:5,maw:75]

Prints a table and writes benchmarks/results/simulate.json. 5 and 15 players use the
AIWolf rulesets (comparable with the AIWolf Java engine), 6/15/75 the MAW ruleset.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from maw.engine import ruleset
from maw.simulate import simulate

CASES = [("aiwolf-5", 5), ("aiwolf-15", 15), ("maw", 6), ("maw", 15), ("maw", 75)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cases", default=",".join(f"{r}:{n}" for r, n in CASES),
                        help="RULESET:PLAYERS,... (default: every case above)")
    args = parser.parse_args()
    cases = [(r, int(n)) for r, _, n in (c.partition(":") for c in args.cases.split(","))]
    rows = []
    print(f"{'ruleset':<10} {'players':>7} {'policy':<7} {'ms/game':>8} {'days':>6} "
          f"{'actions':>8} {'invalid':>7}")
    for name, players in cases:
        for policy in ("random", "rule"):
            s = simulate(ruleset(name), players, policy, args.games, seed=1).as_dict()
            row = {"ruleset": name, "players": players, "policy": policy, **s}
            rows.append(row)
            print(f"{name:<10} {players:>7} {policy:<7} {s['ms_per_game']:>8.3f} "
                  f"{s['mean_days']:>6.2f} {s['mean_actions']:>8.1f} {s['invalid_actions']:>7}",
                  flush=True)
    out = Path(__file__).parent / "results" / "simulate.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "when": time.strftime("%Y-%m-%d"), "python": platform.python_version(),
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores",
        "games": args.games, "rows": rows}, indent=1) + "\n")
    print(f"written {out}")


if __name__ == "__main__":
    main()
