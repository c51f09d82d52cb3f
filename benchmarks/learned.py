"""Learned players against rule and random ones, head to head on the same seeds.

    .venv/bin/python benchmarks/learned.py [--games 1000]

For aiwolf-5 and maw with 6 players: the village played by random, rule and learned
players (agents/policies/*-village.json) against rule werewolves, and the werewolves
played by random, rule and learned players (aiwolf-5) against the rule village; game i of
every row has the same seed, so the deals are the same. Village (or werewolf) win rate
with its 95% interval. Stored in ``benchmarks/results/learned.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import ruleset  # noqa: E402
from maw.simulate import simulate  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402

POLICIES = REPO / "agents" / "policies"
ROWS = [
    ("aiwolf-5", 5, "village", POLICIES / "aiwolf5-village.json"),
    ("aiwolf-5", 5, "werewolves", POLICIES / "aiwolf5-werewolves.json"),
    ("maw", 6, "village", POLICIES / "maw6-village.json"),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rows = []
    for name, players, side, policy in ROWS:
        other = "werewolves" if side == "village" else "village"
        for who in ("random", "rule", f"learned:{policy}"):
            s = simulate(ruleset(name), players, "rule", args.games, args.seed,
                         **{side: who, other: "rule"})
            wins = s.village_wins if side == "village" else s.werewolf_wins
            lo, hi = wilson(wins, s.games)
            label = "learned" if who.startswith("learned") else who
            rows.append({"ruleset": name, "players": players, "side": side,
                         "players_of_side": label, "games": s.games, "wins": wins,
                         "rate": round(wins / s.games, 4), "low": round(lo, 4),
                         "high": round(hi, 4), "invalid": s.invalid_actions,
                         "ms_per_game": round(1000 * s.seconds / s.games, 2)})
            print(f"{name:9s} {players}p {side:10s} {label:8s} vs rule: "
                  f"{100 * wins / s.games:5.1f}% ({100 * lo:.1f}-{100 * hi:.1f}), "
                  f"invalid {s.invalid_actions}", flush=True)
    save("learned", rows)


if __name__ == "__main__":
    main()
