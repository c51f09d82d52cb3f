"""How well each decider knows who the werewolves are: Brier score and log-loss of its
beliefs against the roles, beside the uniform guess's, in engine games.

    .venv/bin/python benchmarks/beliefs.py [--games 300]

Every player of the village's side states, at the end of each phase, its probability
that each other player is a werewolf (``Decider.beliefs``); wolves know their pack, so
only the village's side is scored. Each decider plays every seat (``--policy``), on the
same seeds. Prints a table and writes benchmarks/results/beliefs.json. Lower is better;
the uniform guess is what a player knows for certain and nothing more.
"""

from __future__ import annotations

import argparse

from record import save

from maw.engine import role_named, ruleset
from maw.policies.beliefs import brier, flat, log_loss
from maw.simulate import play_game

CASES = [("maw", 6), ("aiwolf-5", 5)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--policies", default="random,rule,hybrid")
    args = parser.parse_args()
    rows = []
    print(f"{'ruleset':<9} {'decider':<7} {'beliefs':>8} {'Brier':>7} {'uniform':>8} "
          f"{'log-loss':>9} {'uniform':>8}")
    for name, players in CASES:
        rules = ruleset(name)
        names = [f"P{i}" for i in range(players)]
        for policy in args.policies.split(","):
            b = u = lb = lu = 0.0
            n = 0
            for i in range(args.games):
                out: list = []
                game = play_game(rules, names, policy, seed=1_000_003 + i, beliefs=out)
                truth = {p for p, r in game.roles.items() if r == "Werewolf"}
                for _player, role, _day, _phase, belief in out:
                    if role_named(role).team.value != "village":
                        continue  # a wolf knows its pack
                    guess = flat(belief)
                    b, u = b + brier(belief, truth), u + brier(guess, truth)
                    lb, lu = lb + log_loss(belief, truth), lu + log_loss(guess, truth)
                    n += 1
            row = {"ruleset": name, "players": players, "decider": policy, "games": args.games,
                   "beliefs": n, "brier": round(b / n, 4), "brier_uniform": round(u / n, 4),
                   "log_loss": round(lb / n, 4), "log_loss_uniform": round(lu / n, 4)}
            rows.append(row)
            print(f"{name:<9} {policy:<7} {n:>8} {row['brier']:>7.4f} "
                  f"{row['brier_uniform']:>8.4f} {row['log_loss']:>9.4f} "
                  f"{row['log_loss_uniform']:>8.4f}", flush=True)
    save("beliefs", rows)


if __name__ == "__main__":
    main()
