"""``maw bench`` for each of MAW's own agents: the reference pool rating its members.

    .venv/bin/python benchmarks/bench_pool.py [--games 1000]
    .venv/bin/python benchmarks/bench_pool.py --networks [--only aiwolf-15,werewolf-12]
    .venv/bin/python benchmarks/bench_pool.py --beliefs --games 400

On aiwolf-5 and on maw with 6 players, each candidate (random, rule, hybrid and the
learned tables shipped) plays the same schedule (seed 1, half its games on each side)
against the frozen pool; its win rate with the 95% interval and its OpenSkill rating per
side. The shipped networks (``agents/policies/*.npz``, each made for one side of one
ruleset and size) play that side's games of the same schedule (``maw bench --side``), on
aiwolf-15 and werewolf-12 too, beside the rule player's on the same games; so do the
fitted beliefs (``agents/policies/*.beliefs.json``, the village's). Stored in
``benchmarks/results/bench_pool.json`` (a run of one kind keeps the other rows).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from record import save, saved  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import ruleset  # noqa: E402
from maw.tournament.bench import bench  # noqa: E402

POLICIES = REPO / "agents" / "policies"
GAMES = [("aiwolf-5", 5, ["random", "rule", "hybrid",
                          f"learned:{POLICIES / 'aiwolf5-village.json'}",
                          f"learned:{POLICIES / 'aiwolf5-werewolves.json'}"]),
         ("maw", 6, ["random", "rule", "hybrid", f"learned:{POLICIES / 'maw6-village.json'}"])]


def networks() -> list[tuple[str, int, str, str]]:
    """The shipped networks: (ruleset, players, side, learned:FILE)."""
    from maw.policies.neural import Network

    out = []
    for path in sorted(POLICIES.glob("*.npz")):
        meta = Network.load(path).meta
        out.append((meta["ruleset"], int(meta["players"]), meta["team"], f"learned:{path}"))
    return out


def fitted() -> list[tuple[str, int, str, str]]:
    """The shipped fitted beliefs (``maw train --algo beliefs``, the village's): (ruleset,
    players, side, learned:FILE)."""
    import json

    return [(meta["ruleset"], int(meta["players"]), "village", f"learned:{path}")
            for path in sorted(POLICIES.glob("*.beliefs.json"))
            for meta in [json.loads(path.read_text())]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--networks", action="store_true",
                    help="only the networks' runs (the other rows kept from the file)")
    ap.add_argument("--beliefs", action="store_true",
                    help="only the fitted beliefs' runs (the other rows kept from the file)")
    ap.add_argument("--only", default="",
                    help="with --networks or --beliefs: these rulesets' (e.g. "
                         "aiwolf-15,werewolf-12)")
    args = ap.parse_args()
    only = {x for x in args.only.split(",") if x}
    kind = "beliefs" if args.beliefs else "networks" if args.networks else None
    if args.networks and args.beliefs:
        sys.exit("--networks or --beliefs, not both")
    if only and kind is None:
        sys.exit("--only RULESETS: with --networks or --beliefs")
    rows = []
    runs = [] if kind else [(name, players, who, None)
                            for name, players, who_all in GAMES for who in who_all]
    # each beside the rule player on the same games, one side
    for name, players, side, net in (fitted() if kind == "beliefs" else networks()):
        if only and name not in only:
            continue
        runs += [(name, players, "rule", side), (name, players, net, side)]
    for name, players, who, one in runs:
        t0 = time.monotonic()
        result = bench(ruleset(name), players, who, args.games if one is None
                       else args.games // 2, seed=1, side=one)
        label = who if not who.startswith("learned:") else "learned " + Path(who).name
        for side, s in result.as_dict()["sides"].items():
            if not s["games"]:
                continue
            low, high = s["interval"]
            rows.append({"ruleset": name, "players": players, "candidate": label,
                         "side": side, "games": s["games"], "wins": s["wins"],
                         "rate": round(s["win_rate"], 4), "low": round(low, 4),
                         "high": round(high, 4), "mu": round(s["mu"], 2),
                         "sigma": round(s["sigma"], 2), "one_side": one is not None,
                         **({"set": kind} if one is not None else {}),
                         "seconds": round(time.monotonic() - t0, 1)})
            print(f"{name:8s} {players}p {label:26s} {side:10s} "
                  f"{100 * s['win_rate']:5.1f}% ({100 * low:.1f}-{100 * high:.1f}) "
                  f"mu {s['mu']:.2f} ± {2 * s['sigma']:.2f}", flush=True)
    if kind:  # (the rows of the last full run's other candidates are kept, and the
        # other kind's; a one-side row from before there were two kinds is a network's)
        rows = [r for r in saved("bench_pool") if not r.get("one_side")
                or r.get("set", "networks") != kind
                or (only and r["ruleset"] not in only)] + rows
    save("bench_pool", rows)


if __name__ == "__main__":
    main()
