"""Brier scores of the beliefs LLM players state in real games on the embedded model.

    .venv/bin/python benchmarks/llm_beliefs.py [--roster agents/local.toml] [--games 4]
    .venv/bin/python benchmarks/llm_beliefs.py --logs DIR [--logs DIR ...]

Plays ``maw tournament --roster R --games N`` (45 s days, 20 s nights, talk before the
votes), or reads the game logs already under each ``--logs`` DIR, and scores every
``beliefs`` record of the village's side against the roles dealt: the mean Brier score and
log-loss, beside the uniform guess's with the same certainties (lower is better). The
``llm`` decider states its beliefs in its answer (``"suspicion"``, once a phase);
``hybrid`` and ``rule`` give their belief state. An ``llm`` player's beliefs are its rule
layer's weighed by the percents its model stated; what the model stated alone is scored
too, in the row "llm (model)". Per decider (the roster's seats), in
``benchmarks/results/llm_beliefs.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.policies.beliefs import brier, flat, log_loss  # noqa: E402


def score(logs: list[Path]) -> dict[str, dict]:
    """Per decider (read from the llm records: ``hybrid`` or ``llm``; ``rule`` without),
    the village side's beliefs scored against the roles."""
    out: dict[str, dict] = {}
    for path in logs:
        records = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        deal = next((r for r in records if r["kind"] == "round"), None)
        if deal is None or not any(r["kind"] == "outcome" for r in records):
            continue  # an unfinished game
        wolves = {n for n, r in deal["roles"].items() if r == "Werewolf"}
        kind: dict[str, str] = {}  # (a call cut short has no "decider": the others say)
        for r in records:
            if r["kind"] == "llm" and (r.get("decider") or r["player"] not in kind):
                kind[r["player"]] = r.get("decider") or "llm"
        stated: list[tuple[str, dict]] = []  # (the decider, beliefs) per statement
        for r in records:
            if r["kind"] == "beliefs" and r["player"] not in wolves:
                stated.append((kind.get(r["player"], "rule"), r["beliefs"]))
            elif r["kind"] == "llm" and r.get("stated") and r["player"] not in wolves:
                # what the model said alone, before it was weighed into the rule layer's
                stated.append((f"{kind.get(r['player'], 'llm')} (model)", r["stated"]))
        for decider, b in stated:
            row = out.setdefault(decider, {
                "games": set(), "beliefs": 0, "brier": 0.0, "brier_uniform": 0.0,
                "log_loss": 0.0, "log_loss_uniform": 0.0})
            row["games"].add(path.name)
            row["beliefs"] += 1
            row["brier"] += brier(b, wolves)
            row["brier_uniform"] += brier(flat(b), wolves)
            row["log_loss"] += log_loss(b, wolves)
            row["log_loss_uniform"] += log_loss(flat(b), wolves)
    for row in out.values():
        n = row["beliefs"]
        row["games"] = len(row["games"])
        for key in ("brier", "brier_uniform", "log_loss", "log_loss_uniform"):
            row[key] = round(row[key] / n, 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roster", default=str(REPO / "agents" / "local.toml"))
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--logs", action="append", default=[], metavar="DIR")
    args = parser.parse_args()
    folders = [Path(d) for d in args.logs]
    if not folders:
        out = Path(tempfile.mkdtemp(prefix="maw-llm-beliefs-"))
        subprocess.run([sys.executable, "-m", "maw", "tournament", "--roster", args.roster,
                        "--games", str(args.games), "--players", "6", "--seed",
                        str(args.seed), "--day-seconds", "45", "--night-seconds", "20",
                        "--rule", "votes_open=talk", "--timeout", "1800",
                        "--out", str(out / "t.db"), "--log-dir", str(out / "logs")],
                       check=False)
        folders = [out / "logs"]
    logs = sorted(p for d in folders for p in d.rglob("game-*.jsonl"))
    rows = [{"decider": k, **v} for k, v in sorted(score(logs).items())]
    print(f"{'decider':<12} {'games':>5} {'beliefs':>8} {'Brier':>7} {'uniform':>8} "
          f"{'log-loss':>9} {'uniform':>8}")
    for r in rows:
        print(f"{r['decider']:<12} {r['games']:>5} {r['beliefs']:>8} {r['brier']:>7.4f} "
              f"{r['brier_uniform']:>8.4f} {r['log_loss']:>9.4f} {r['log_loss_uniform']:>8.4f}")
    save("llm_beliefs", rows)


if __name__ == "__main__":
    main()
