"""What a game set's memory (``--set-memory``, ``maw.policies.memory``) is worth: the same
sets played with it and without, game for game on the same seeds.

    .venv/bin/python benchmarks/set_memory.py [--sets 10] [--games 100] [--table rule,hybrid]

A set is ``--games`` games among the same seats, each seat always the same kind of
player (``--table``, repeated around the table: by default rule and hybrid players in
turn, whose wolves play differently: a hybrid wolf exposed by a lone Seer claims the
Seer itself), roles dealt anew each game. With memory, every seat keeps one
``SetMemory`` for its set: lent to each game's decider, taught by each game's end. Game
``g`` of set ``s`` has the same seed in both runs, so the deals are the same.

For each ruleset: the village's wins with and without (Wilson 95% intervals), the games
whose winner the memory changed each way (a two-sided sign test on them), and the mean
Brier score of the village players' beliefs at the end of each phase (lower is better).
Stored in ``benchmarks/results/set_memory.json``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import ruleset  # noqa: E402
from maw.engine.roles import role_named  # noqa: E402
from maw.policies import make_decider  # noqa: E402
from maw.policies.beliefs import brier  # noqa: E402
from maw.policies.memory import SetMemory  # noqa: E402
from maw.simulate import play_game  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402

NAMES = [f"P{i:02d}" for i in range(1, 16)]
RULESETS = {"aiwolf-5": 5, "maw": 6, "aiwolf-15": 15}


def play_set(rules, names: list[str], kinds: list[str], games: int, seed: int,
             memory: bool) -> tuple[list[bool], list[float]]:
    """One set: the village's win in each game, and the Brier score of each village
    player's beliefs at the end of each phase."""
    memories = {n: SetMemory() for n in names} if memory else {}
    wins, scores = [], []
    for g in range(games):
        made: dict = {}

        def factory(name, rng, made=made):
            decider = make_decider(kinds[names.index(name)], name, rng)
            if memory:
                memories[name].lend(decider)
            made[name] = decider
            return decider

        said: list = []
        record = play_game(rules, names, dict.fromkeys(names, factory), seed + g,
                           beliefs=said)
        wolves = {n for n, r in record.roles.items() if role_named(r).pack}
        wins.append(record.winner == "village")
        for _player, role, _day, _phase, belief in said:
            if not role_named(role).pack and role_named(role).team == "village" and belief:
                scores.append(brier(belief, wolves))
        for name, decider in made.items():
            if memory:
                memories[name].learn_from(decider, record.roles)
    return wins, scores


def sign_test(b: int, c: int) -> float:
    """Two-sided exact sign test: the chance of a split at least as uneven as ``b`` to
    ``c`` if each changed game were a coin toss."""
    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=10)
    ap.add_argument("--games", type=int, default=100, help="games a set")
    ap.add_argument("--table", default="rule,hybrid",
                    help="the seats' players, repeated around the table")
    ap.add_argument("--rulesets", default="aiwolf-5,maw,aiwolf-15")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    table = args.table.split(",")
    rows = []
    for name in args.rulesets.split(","):
        rules, players = ruleset(name), RULESETS[name]
        names = NAMES[:players]
        kinds = [table[i % len(table)] for i in range(players)]
        result: dict[bool, tuple[list[bool], list[float]]] = {}
        t0 = time.monotonic()
        for memory in (False, True):
            wins, scores = [], []
            for s in range(args.sets):
                w, b = play_set(rules, names, kinds, args.games,
                                args.seed * 1_000_000 + s * 1000, memory)
                wins += w
                scores += b
                print(f"\r{name}: memory {'on ' if memory else 'off'} set {s + 1}/"
                      f"{args.sets}", end="", file=sys.stderr, flush=True)
            result[memory] = (wins, scores)
        print(file=sys.stderr)
        (off, off_b), (on, on_b) = result[False], result[True]
        gained = sum(a and not b for a, b in zip(on, off, strict=True))
        lost = sum(b and not a for a, b in zip(on, off, strict=True))
        n = len(on)
        row = {"ruleset": name, "players": players, "table": kinds, "sets": args.sets,
               "games_a_set": args.games, "games": n,
               "seconds": round(time.monotonic() - t0, 1)}
        for label, wins, scores in (("off", off, off_b), ("on", on, on_b)):
            lo, hi = wilson(sum(wins), n)
            row[f"village_{label}"] = sum(wins)
            row[f"village_{label}_ci95"] = [round(lo, 4), round(hi, 4)]
            row[f"brier_{label}"] = round(sum(scores) / len(scores), 4) if scores else None
        row["changed"] = {"to_village": gained, "to_werewolves": lost,
                          "sign_test_p": round(sign_test(gained, lost), 4)}
        rows.append(row)
        print(f"{name:9s} {players:2d}p village without memory {sum(off)}/{n} "
              f"({100 * row['village_off_ci95'][0]:.1f}-{100 * row['village_off_ci95'][1]:.1f}), "
              f"with {sum(on)}/{n} ({100 * row['village_on_ci95'][0]:.1f}-"
              f"{100 * row['village_on_ci95'][1]:.1f}); changed {gained} to the village, "
              f"{lost} to the wolves (p = {row['changed']['sign_test_p']}); village Brier "
              f"{row['brier_off']} -> {row['brier_on']}", flush=True)
    if not args.no_save:
        save("set_memory", rows)


if __name__ == "__main__":
    main()
