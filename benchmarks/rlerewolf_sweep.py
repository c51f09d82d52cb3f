"""RLereWolf's chapter-6 sweep on MAW: three kinds of agent, six table sizes, 1000 games a
run, beside the dissertation's Table 6.2.

    .venv/bin/python benchmarks/rlerewolf_sweep.py [--games 1000] [--sizes 5,15,20,35,55,75]
        [--kinds D,RB,T] [--most N]

The game is ``rlerewolf`` (``maw/engine/rlerewolf.py``: its deal by ratio, Table 6.1).
Every seat of a run is one kind of agent, as in the dissertation: **D**, the dummy agent
(MAW's ``random``: a uniform choice among the legal actions); **RB**, the rule-based agent
(MAW's ``rule``); **T**, the trainable agent (MAW's ``learned`` table player, trained on
``rlerewolf`` at 5 players, ``agents/policies/rlerewolf5-{village,werewolves}.json``:
unlike the dissertation's, which had not been trained). Game i of every run has the same
seed. Per run: the werewolves' and the village's win rates (95% intervals), seconds a
game (AGL), days and actions a game (MAW's count of turns: every decision a seat made),
and the invalid actions (the dissertation's DAV, DAA, TA and IA: dead players voted for
or attacked, teammates attacked, incorrect actions; MAW's agents choose among the legal
actions, so every one is 0 or the run says otherwise). ``--most N`` plays at most N games
at a size whose run would be long (the table says how many each row played). A run
finished is kept in ``benchmarks/results/rlerewolf_sweep.json`` at once; running again
skips the runs there with as many games, and goes on with a run there with fewer from its
next game, adding the new games to it (delete the file to start over).
"""

from __future__ import annotations

import argparse
import fcntl
import sys
import time
from pathlib import Path

from record import RESULTS, save, saved  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import ruleset  # noqa: E402
from maw.engine.rlerewolf import SIZES  # noqa: E402
from maw.simulate import play_game  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402

POLICIES = REPO / "agents" / "policies"
KINDS = {"D": ("random", "random"), "RB": ("rule", "rule"),
         "T": (f"learned:{POLICIES / 'rlerewolf5-village.json'}",
               f"learned:{POLICIES / 'rlerewolf5-werewolves.json'}")}

# RLereWolf's Table 6.2: (kind, players) -> (EWR, GWR, AGL s, AGTL s, AGTC, DAV, DAA, TA, IA)
TABLE_6_2 = {
    ("D", 5): (56.2, 43.8, 0.038, 0.014, 2.74, 0.00, 0.00, 0.00, 0.07),
    ("D", 15): (62.8, 37.2, 0.248, 0.022, 11.52, 0.00, 0.07, 0.00, 2.23),
    ("D", 20): (84.4, 15.6, 0.511, 0.033, 15.71, 0.00, 0.13, 0.00, 6.38),
    ("D", 35): (93.1, 6.9, 1.245, 0.044, 28.64, 0.00, 0.17, 0.00, 18.55),
    ("D", 55): (99.1, 0.9, 3.292, 0.079, 41.90, 0.00, 0.16, 0.00, 50.93),
    ("D", 75): (100.0, 0.0, 7.741, 0.136, 57.14, 0.00, 0.16, 0.00, 99.95),
    ("RB", 5): (47.9, 52.1, 0.037, 0.013, 2.72, 0.00, 0.00, 0.00, 0.07),
    ("RB", 15): (54.6, 45.4, 0.179, 0.016, 11.55, 0.00, 0.07, 0.00, 2.21),
    ("RB", 20): (77.1, 22.9, 0.458, 0.028, 16.24, 0.00, 0.16, 0.00, 6.45),
    ("RB", 35): (76.3, 23.7, 1.573, 0.051, 30.64, 0.00, 0.19, 0.00, 19.20),
    ("RB", 55): (89.1, 10.9, 4.570, 0.095, 48.22, 0.00, 0.23, 0.00, 54.93),
    ("RB", 75): (92.8, 7.2, 8.777, 0.132, 66.65, 0.00, 0.24, 0.00, 107.50),
    ("T", 5): (40.2, 59.8, 0.045, 0.012, 3.78, 0.63, 0.38, 0.15, 2.07),
    ("T", 15): (29.1, 70.9, 0.292, 0.017, 17.27, 11.71, 4.50, 0.56, 48.10),
    ("T", 20): (28.0, 72.0, 0.601, 0.024, 25.13, 22.91, 8.25, 1.11, 89.68),
    ("T", 35): (26.9, 73.1, 1.627, 0.033, 48.66, 73.10, 20.62, 2.68, 282.80),
    ("T", 55): (32.4, 67.6, 3.525, 0.043, 82.28, 177.25, 42.55, 7.76, 675.52),
    ("T", 75): (32.2, 67.8, 6.560, 0.058, 114.92, 319.30, 70.72, 13.10, 1224.63),
}


def run(kind: str, players: int, games: int, before: dict | None = None) -> dict:
    """``games`` games of ``players`` seats all of ``kind``: the row's figures. ``before``,
    a row of the same run with fewer games, is gone on with: its games are not played
    again (game i keeps its seed) and its figures are added to the new games'."""
    village, werewolves = KINDS[kind]
    rules = ruleset("rlerewolf")
    names = [f"P{i + 1:02d}" for i in range(players)]
    wins = {"village": 0, "werewolves": 0}
    days = actions = invalid = 0
    seconds = 0.0
    start = 0
    if before is not None:
        start = before["games"]
        for side in wins:
            wins[side] = before[side][0]
        # rows saved before the totals were kept have averages (days to 0.01, actions to
        # 0.1): their totals are those times the games
        days = before.get("day_total", round(before["days"] * start))
        actions = before.get("action_total", round(before["actions"] * start))
        invalid = before["invalid"]
        seconds = before["seconds"]
    t0 = time.perf_counter()
    for i in range(start, games):
        rec = play_game(rules, names, "rule", seed=players * 1_000_003 + i,
                        teams={"village": village, "werewolves": werewolves})
        if rec.winner in wins:
            wins[rec.winner] += 1
        days += rec.days
        actions += rec.actions
        invalid += rec.invalid_actions
        if sys.stderr.isatty():
            print(f"\r{kind} {players}: {i + 1}/{games}", end="", file=sys.stderr, flush=True)
    seconds += time.perf_counter() - t0
    if sys.stderr.isatty():
        print(file=sys.stderr)
    row = {"kind": kind, "players": players, "games": games, "seconds": round(seconds, 1),
           "agl": round(seconds / games, 4), "days": round(days / games, 2),
           "actions": round(actions / games, 1), "invalid": invalid,
           "day_total": days, "action_total": actions}
    if before is not None:
        row["continued_from"] = before["games"]
    for side in ("werewolves", "village"):
        low, high = wilson(wins[side], games)
        row[side] = [wins[side], round(100 * wins[side] / games, 1), round(100 * low, 1),
                     round(100 * high, 1)]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--kinds", default="D,RB,T")
    ap.add_argument("--most", type=int, default=None, metavar="N",
                    help="at most N games at 55 players and more")
    args = ap.parse_args()
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise SystemExit(f"unknown kind {unknown[0]}: D, RB or T")
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = saved("rlerewolf_sweep")
    for players in sizes:
        games = args.games if args.most is None or players < 55 else min(args.games, args.most)
        for kind in kinds:
            there = [r for r in rows if (r["kind"], r["players"]) == (kind, players)]
            if there and there[0]["games"] >= games:
                continue
            row = run(kind, players, games, there[0] if there else None)
            # read again: another run of this script (another kind or size, on another
            # core) may have saved a row since; one run at a time reads and writes
            with open(RESULTS / ".rlerewolf_sweep.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                rows = [r for r in saved("rlerewolf_sweep")
                        if (r["kind"], r["players"]) != (kind, players)] + [row]
                rows.sort(key=lambda r: (list(KINDS).index(r["kind"]), r["players"]))
                save("rlerewolf_sweep", rows)
            theirs = TABLE_6_2[(kind, players)]
            print(f"{kind:2s} {players:2d}: werewolves {row['werewolves'][1]:5.1f}% "
                  f"({row['werewolves'][2]}-{row['werewolves'][3]}), village "
                  f"{row['village'][1]:5.1f}%; {row['agl']:.3f} s a game, {row['days']} days, "
                  f"{row['actions']} actions, {row['invalid']} invalid; RLereWolf: "
                  f"{theirs[0]}% / {theirs[1]}%, {theirs[2]} s, {theirs[4]} turns, "
                  f"{theirs[8]} incorrect", flush=True)
    print(table(rows))


def table(rows: list[dict]) -> str:
    """The runs beside RLereWolf's, as a Markdown table."""
    out = ["| kind | players | games | werewolves won (95%) | village won | RLereWolf "
           "werewolves / village | s a game (RLereWolf) | days | actions (RLereWolf turns) "
           "| invalid (RLereWolf incorrect) |",
           "|---|---:|---:|---|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        t = TABLE_6_2[(r["kind"], r["players"])]
        w, v = r["werewolves"], r["village"]
        out.append(f"| {r['kind']} | {r['players']} | {r['games']} | {w[1]}% ({w[2]}-{w[3]}) "
                   f"| {v[1]}% | {t[0]}% / {t[1]}% | {r['agl']:.3f} ({t[2]}) | {r['days']} | "
                   f"{r['actions']} ({t[4]}) | {r['invalid']} ({t[8]}) |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
