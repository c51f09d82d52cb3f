"""The README's main command, ``maw game`` (six hybrid players on the embedded model when
no Ollama server is up), over several seeds: how long a game takes and how many prompt
tokens the model had to read.

    .venv/bin/python benchmarks/main_command.py [--seeds 1-6] [--label after]

Each seed runs ``maw game --seed S --quiet`` (the command as a new user types it, on an
embedded XMPP server) and reads its log: the wall time, the game time, days, model calls,
prompt tokens sent and prompt tokens the model evaluated (``evaluated_tokens``: the rest
it had kept from that player's earlier calls; absent in logs made before it was counted).
Printed, with the median and the longest game, and stored in
``benchmarks/results/main_command-LABEL.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.records.accounting import time_split  # noqa: E402


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-6")
    parser.add_argument("--label", default="after")
    args = parser.parse_args()
    rows = []
    for seed in seeds(args.seeds):
        out = Path(tempfile.mkdtemp(prefix="maw-main-bench-"))
        cmd = [sys.executable, "-m", "maw", "game", "--seed", str(seed), "--quiet",
               "--xmpp", f"embedded:{free_port()}", "--log-dir", str(out)]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        log = [json.loads(x) for x in next(out.glob("*.jsonl")).read_text().splitlines()]
        over = next(r for r in log if r["kind"] == "outcome")
        requests = [q for r in log if r["kind"] == "llm" for q in r.get("requests", [])]
        prompt = sum(q.get("prompt_tokens", 0) for q in requests)
        evaluated = [q["evaluated_tokens"] for q in requests if "evaluated_tokens" in q]
        row = {"seed": seed, "wall_seconds": round(wall, 1),
               "game_seconds": round(time_split(log)["game"], 1), "days": over["day"],
               "winner": over["winner"], "llm_calls": len(requests),
               "prompt_tokens": prompt,
               "evaluated_tokens": sum(evaluated) if evaluated else None,
               "model_seconds": round(sum(q.get("seconds", 0.0) for q in requests), 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    walls = [r["wall_seconds"] for r in rows]
    print(f"median {statistics.median(walls):.1f} s, longest {max(walls):.1f} s, "
          f"{sum(r['llm_calls'] for r in rows)} calls, "
          f"{sum(r['prompt_tokens'] for r in rows)} prompt tokens")
    save(f"main_command-{args.label}", rows)


if __name__ == "__main__":
    main()
