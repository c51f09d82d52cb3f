"""Self-play, measured: the sides of one game learn in turns (``maw train --algo ppo --team
both``), then every village that came out of it meets every werewolf side, the rule players
among them, on the same seeds.

    .venv/bin/python benchmarks/self_play.py [--ruleset aiwolf-5] [--rounds 3]
        [--steps 25000] [--imitate 10000] [--games 1000] [--folder DIR]

The training runs once into ``--folder`` (by default ``benchmarks/results/self-play-SLUG``,
not kept in git); a rerun finds its networks there and only plays the games. Each side is
played whole by one network (the self-play trains every seat of a side). Each cell is the
village's win rate with its 95% interval; beside each learned village, its paired
difference from the rule village on the same games (the same column, the same seeds). Stored
in ``benchmarks/results/self_play.json``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from learned import paired  # benchmarks/learned.py
from record import RESULTS, save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import ruleset  # noqa: E402
from maw.policies.neural import Network  # noqa: E402
from maw.simulate import play_game  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402


def train(args: argparse.Namespace, folder: Path) -> float:
    """Run the self-play into ``folder`` (the CLI, as a user would); its seconds."""
    command = [sys.executable, "-m", "maw", "train", "--algo", "ppo", "--ruleset",
               args.ruleset, "--team", "both", "--rounds", str(args.rounds), "--steps",
               str(args.steps), "--out", str(folder)]
    if args.players:
        command += ["--players", str(args.players)]
    if args.imitate:
        command += ["--imitate", str(args.imitate)]
    print("$ maw", " ".join(command[3:]), flush=True)
    t0 = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="aiwolf-5")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=25_000, help="a side a round")
    ap.add_argument("--imitate", type=int, default=10_000,
                    help="round 1 starts each side from the rule player over these steps")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--folder", type=Path, default=None)
    args = ap.parse_args()
    rules = ruleset(args.ruleset)
    players = args.players or rules.min_players
    slug = f"{rules.name.replace('-', '')}-{players}"
    folder = args.folder or RESULTS / f"self-play-{slug}"
    seconds = None
    if not (folder / f"village-{args.rounds}.npz").exists():
        if folder.exists() and any(folder.glob("*.npz")):
            sys.exit(f"{folder} holds another run's networks (not {args.rounds} rounds): "
                     "give another --folder")
        seconds = train(args, folder)
    names = [f"P{i + 1:02d}" for i in range(players)]
    villages = [("rule", "rule")] + [(f"village-{k}", f"learned:{folder / f'village-{k}.npz'}")
                                     for k in range(1, args.rounds + 1)]
    wolves = [("rule", "rule")] + [(f"werewolves-{k}",
                                    f"learned:{folder / f'werewolves-{k}.npz'}")
                                   for k in range(1, args.rounds + 1)]
    rows = []
    for wlabel, wwho in wolves:
        won: dict[str, list[bool]] = {}
        for vlabel, vwho in villages:
            won[vlabel] = [play_game(rules, names, "rule", seed=args.seed * 1_000_003 + i,
                                     teams={"village": vwho, "werewolves": wwho}
                                     ).winner == "village" for i in range(args.games)]
            wins = sum(won[vlabel])
            lo, hi = wilson(wins, args.games)
            row = {"ruleset": rules.name, "players": players, "village": vlabel,
                   "werewolves": wlabel, "games": args.games, "village_wins": wins,
                   "rate": round(wins / args.games, 4), "low": round(lo, 4),
                   "high": round(hi, 4)}
            line = (f"{vlabel:10s} against {wlabel:13s}: the village wins "
                    f"{100 * wins / args.games:5.1f}% ({100 * lo:.1f}-{100 * hi:.1f})")
            if vlabel != "rule":
                d, dlo, dhi = paired(won[vlabel], won["rule"])
                row.update(vs_rule=round(d, 4), vs_rule_low=round(dlo, 4),
                           vs_rule_high=round(dhi, 4))
                line += f"; {100 * d:+.1f} points ({100 * dlo:+.1f} to {100 * dhi:+.1f})"
            rows.append(row)
            print(line, flush=True)
    metas = {}
    for side in ("village", "werewolves"):
        for k in range(1, args.rounds + 1):
            meta = Network.load(folder / f"{side}-{k}.npz").meta
            metas[f"{side}-{k}"] = {key: meta.get(key) for key in
                                    ("steps", "games", "seconds", "command")}
    rows.append({"training": metas, "seconds": round(seconds, 1) if seconds else None,
                 "rounds": args.rounds, "steps_a_side_a_round": args.steps,
                 "imitate": args.imitate})
    save("self_play", rows)


if __name__ == "__main__":
    main()
