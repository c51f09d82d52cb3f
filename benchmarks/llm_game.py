"""One 6-player all-LLM game on the embedded model, and where its time goes.

    .venv/bin/python benchmarks/llm_game.py [--roster agents/local.toml] [--seed 1]
                                            [--max-days 0] [--day-seconds 45]

Runs ``maw game --roster`` (embedded XMPP server, six llamacpp players) and reads its JSONL
log. Printed and stored in ``benchmarks/results/llm_game.json``: LLM calls, tokens,
seconds per game and per call, legal / repaired / fallback answers, nights and murders
(a MAW night kills only if the pack agrees), refusals, and the
game's time split (``maw.records.accounting``) into model calls, Algorithm 1's deliberate waits,
timers and idle (nobody had been asked anything), and MAW's own overhead (a question was
open and neither a call nor a wait ran: XMPP delivery, prompts, parsing, lock hand-over).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.llm.telemetry import summarize  # noqa: E402
from maw.records.accounting import time_split  # noqa: E402
from maw.records.metrics import LATE  # noqa: E402 - refusals for arriving after the phase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roster", default=str(REPO / "agents" / "local.toml"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-days", type=int, default=0, help="0: the ruleset's default")
    parser.add_argument("--day-seconds", type=float, default=45)
    parser.add_argument("--night-seconds", type=float, default=20)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="maw-llm-bench-"))
    cmd = [sys.executable, "-m", "maw", "game", "--players", "6", "--roster", args.roster,
           "--seed", str(args.seed), "--day-seconds", str(args.day_seconds),
           "--night-seconds", str(args.night_seconds), "--xmpp", f"embedded:{free_port()}",
           "--log-dir", str(out), "--quiet"]
    if args.max_days:
        cmd += ["--rule", f"max_days={args.max_days}"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    log = [json.loads(x) for x in next(out.glob("*.jsonl")).read_text().splitlines()]
    over = next(r for r in log if r["kind"] == "outcome")
    calls = [r for r in log if r["kind"] == "llm"]
    split = time_split(log)
    game = split["game"]
    totals = summarize(calls)
    events = [r for r in log if r["kind"] == "event"]
    nights = sum(e["event"] == "PhaseStarted" and e["data"]["phase"] == "night" for e in events)
    murders = sum(e["event"] == "Murdered" for e in events)
    refusals = [r["body"]["reason"] for r in log if r["kind"] == "msg" and r["type"] == "refuse"]
    row = {
        "roster": Path(args.roster).name, "seed": args.seed, "wall_seconds": round(wall, 1),
        "game_seconds": round(game, 1), "days": over["day"], "winner": over["winner"],
        "reason": over["reason"], "llm_calls": totals["calls"], "tokens": totals["tokens"],
        "seconds_per_call": round(totals["seconds"] / max(totals["calls"], 1), 2),
        "legal": totals["legal"], "repaired": totals["repaired"],
        "fallback": totals["fallback"],
        "nights": nights, "murders": murders,  # MAW: a murder needs the pack to agree
        "refusals": len(refusals),
        "refusals_not_late": sum(not x.startswith(LATE) for x in refusals),
        "llm_seconds": split["llm"], "wait_seconds": split["waits"],
        "idle_seconds": split["idle"], "overhead_seconds": split["overhead"],
        "llm_share": round(split["llm"] / game, 3) if game else 0.0,
        "overhead_share": round(split["overhead"] / game, 4) if game else 0.0,
    }
    for k, v in row.items():
        print(f"{k:20} {v}")
    if not args.no_save:
        save("llm_game", [row])


if __name__ == "__main__":
    main()
