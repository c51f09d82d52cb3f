"""``maw bench`` for the LLM deciders and the hybrid without each of its tactics: what a
model adds, and what each of Sato et al.'s tactics is worth (issue 42, deliverable 6).

    .venv/bin/python benchmarks/tactics.py [--engine-games 2000] [--model-games 50]
                                           [--rows engine,model]

Every row is one candidate seat against MAW's frozen reference pool on aiwolf-5, on the
same schedule (seed 1, half its games on each side, the same opponents and seats):

* **model rows**: the candidate thinks with the embedded model (``maw bench --roster``):
  ``agents/local.toml``'s Ann (``llm``), ``agents/hybrid.toml``'s Ann (``hybrid``), and
  the same seat as ``hybrid-no-counter-co``, ``hybrid-no-fake-seer`` and
  ``hybrid-no-mention``;
* **engine rows**: the same deciders speaking their template lines (``--policy``), many
  more games in seconds: what the tactics are worth to the strategy itself.

Each row: games and wins per side, the win rate with its 95% (Wilson) interval, the
rating (mu ± 2 sigma), and the minutes it took. Rows are written to
``benchmarks/results/tactics.json`` as each ends (a row run again replaces its own).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from record import save, saved  # noqa: E402 (benchmarks/record.py)

import maw.llm  # noqa: E402,F401 - the deciders with a model
from maw.engine import ruleset  # noqa: E402
from maw.hosting.roster import load_roster  # noqa: E402
from maw.hosting.seats import seats_from_roster  # noqa: E402
from maw.tournament.bench import bench, seat_policy  # noqa: E402

RULESET, PLAYERS = "aiwolf-5", 5
HYBRIDS = ["hybrid", "hybrid-no-counter-co", "hybrid-no-fake-seer", "hybrid-no-mention"]


def roster_seat(decider: str):
    """Ann of the shipped roster for ``decider`` (a knockout: hybrid.toml's Ann with it)."""
    source = REPO / "agents" / ("local.toml" if decider == "llm" else "hybrid.toml")
    text = source.read_text(encoding="utf-8")
    if decider.startswith("hybrid-no-"):
        text = text.replace('name = "Ann"\ndecider = "hybrid"',
                            f'name = "Ann"\ndecider = "{decider}"', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    seat = seats_from_roster(load_roster(Path(f.name)), PLAYERS)[0]
    assert seat.name == "Ann" and seat.decider == decider, (seat.name, seat.decider)
    return seat


def row(kind: str, decider: str, games: int) -> list[dict]:
    rules = ruleset(RULESET)
    candidate = seat_policy(roster_seat(decider)) if kind == "model" else decider
    t0 = time.monotonic()
    result = bench(rules, PLAYERS, candidate, games, seed=1, label=decider)
    minutes = round((time.monotonic() - t0) / 60, 1)
    out = []
    for side, s in result.as_dict()["sides"].items():
        low, high = s["interval"]
        out.append({"kind": kind, "decider": decider, "side": side, "games": s["games"],
                    "wins": s["wins"], "rate": round(s["win_rate"], 4),
                    "low": round(low, 4), "high": round(high, 4), "mu": round(s["mu"], 2),
                    "sigma": round(s["sigma"], 2), "minutes": minutes})
        print(f"{kind:6s} {decider:22s} {side:10s} {s['games']:4d} games "
              f"{100 * s['win_rate']:5.1f}% ({100 * low:.1f}-{100 * high:.1f}) "
              f"mu {s['mu']:.2f} ± {2 * s['sigma']:.2f}  {minutes} min", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine-games", type=int, default=2000)
    ap.add_argument("--model-games", type=int, default=50)
    ap.add_argument("--rows", default="engine,model")
    ap.add_argument("--deciders", default="hybrid,llm," + ",".join(HYBRIDS[1:]))
    args = ap.parse_args()
    rows = saved("tactics")
    kinds = args.rows.split(",")
    for kind in ("engine", "model"):
        if kind not in kinds:
            continue
        for decider in args.deciders.split(","):
            if kind == "engine" and decider == "llm":
                continue  # (an llm player needs its model)
            games = args.engine_games if kind == "engine" else args.model_games
            new = row(kind, decider, games)
            rows = [r for r in rows if (r["kind"], r["decider"]) != (kind, decider)] + new
            save("tactics", rows)


if __name__ == "__main__":
    main()
