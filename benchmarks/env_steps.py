"""maw.env's speed: PettingZoo steps a second with masked random actions.

    .venv/bin/python benchmarks/env_steps.py [--games 200]

Per row: every agent's action drawn at random from its mask (the API's cost, the engine's
and the observations'; no learning), all seats agents or one side's against rule players.
Each row says which engine ran (``MAW_ENGINE``: run it once with ``python`` and once with
``compiled``, after ``maw engine build``, to compare: the rows of the other engine are
kept). Printed and stored in ``benchmarks/results/env_steps.json``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
from record import save, saved  # benchmarks/record.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from maw.engine.compiled import compiled_modules  # noqa: E402
from maw.env import env  # noqa: E402

ROWS = [("aiwolf-5", 5, "all", False), ("aiwolf-5", 5, "village", False),
        ("aiwolf-5", 5, "village", True), ("maw", 6, "all", False),
        ("maw", 6, "village", False), ("werewolf-12", 12, "all", False)]


def run(name: str, players: int, learn: str, beliefs: bool, games: int) -> dict:
    e = env(ruleset_name=name, players=players, learn=learn, opponents="rule",
            beliefs=beliefs)
    rng = random.Random(0)
    steps = 0
    t0 = time.perf_counter()
    for seed in range(games):
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _r, done, cut, _i = e.last()
            if done or cut:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    seconds = time.perf_counter() - t0
    return {"ruleset": name, "players": players, "learn": learn, "beliefs": beliefs,
            "games": games, "steps": steps, "steps_per_s": round(steps / seconds),
            "ms_per_game": round(1000 * seconds / games, 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    engine = "compiled" if compiled_modules() else "python"
    rows = [r for r in saved("env_steps") if r.get("engine", "python") != engine]
    for name, players, learn, beliefs in ROWS:
        row = {**run(name, players, learn, beliefs, args.games), "engine": engine}
        rows.append(row)
        print(f"{engine:8s} {name:12s} {players:2d}p learn={learn:9s} beliefs={str(beliefs):5s} "
              f"{row['steps_per_s']:7d} steps/s  {row['ms_per_game']:8.2f} ms/game "
              f"({row['steps'] / args.games:.1f} agent steps a game)", flush=True)
    save("env_steps", rows)


if __name__ == "__main__":
    main()
