"""Engine speed: ms per game for 1000 games at 5, 15 and 75 players, random and rule.

    .venv/bin/python benchmarks/simulate.py [--games 1000] [--cases aiwolf-5:5,maw:75]

Prints a table and writes benchmarks/results/simulate.json. 5 and 15 players use the
AIWolf rulesets (comparable with the AIWolf Java engine), 6/15/75 the MAW ruleset. Each row
says which engine played (``MAW_ENGINE``: run it with ``python`` and with ``compiled``, after
``maw engine build``, to compare; a run keeps the other engine's rows and the cases it
did not play).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from record import save, saved  # benchmarks/record.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from maw.engine import ruleset  # noqa: E402
from maw.engine.compiled import compiled_modules  # noqa: E402
from maw.simulate import simulate  # noqa: E402

CASES = [("aiwolf-5", 5), ("aiwolf-15", 15), ("maw", 6), ("maw", 15), ("maw", 75)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cases", default=",".join(f"{r}:{n}" for r, n in CASES),
                        help="RULESET:PLAYERS,... (default: every case above)")
    args = parser.parse_args()
    cases = [(r, int(n)) for r, _, n in (c.partition(":") for c in args.cases.split(","))]
    engine = "compiled" if compiled_modules() else "python"
    rows = []
    print(f"{'ruleset':<10} {'players':>7} {'policy':<7} {'ms/game':>8} {'days':>6} "
          f"{'actions':>8} {'invalid':>7}  ({engine} engine)")
    for name, players in cases:
        for policy in ("random", "rule"):
            s = simulate(ruleset(name), players, policy, args.games, seed=1).as_dict()
            row = {"ruleset": name, "players": players, "policy": policy, "engine": engine,
                   **s}
            rows.append(row)
            print(f"{name:<10} {players:>7} {policy:<7} {s['ms_per_game']:>8.3f} "
                  f"{s['mean_days']:>6.2f} {s['mean_actions']:>8.1f} {s['invalid_actions']:>7}",
                  flush=True)
    played = {(r["ruleset"], r["players"]) for r in rows}
    kept = [r for r in saved("simulate") if r.get("engine", "python") != engine
            or (r["ruleset"], r["players"]) not in played]
    save("simulate", kept + rows)


if __name__ == "__main__":
    main()
