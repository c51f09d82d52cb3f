"""The embedded model writing JSON under a schema: milliseconds per token written, with
llama-cpp-python's own sampling (the grammar checks the whole vocabulary at every token,
``grammar_first = true``) and with MAW's (the grammar checks the token drawn,
``maw/llm/sampling.py``).

    .venv/bin/python benchmarks/grammar_sampling.py [--calls 12]

Each way asks the same ``--calls`` questions (a player's turn: a JSON object with an
action from a list and a line to say, as the hybrid and LLM players' schemas are) of its
own model process, two threads, and counts the seconds and tokens of each answer. Prints
the table and stores it in ``benchmarks/results/grammar_sampling.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.llm import make_backend  # noqa: E402

SCHEMA = {"type": "object", "properties": {
    "action": {"enum": ["vote Ann", "vote Bob", "vote Cid", "listen"]},
    "say": {"type": "string", "maxLength": 160}},
    "required": ["action", "say"], "additionalProperties": False}


async def ask(grammar_first: bool, calls: int) -> dict:
    backend = make_backend("llamacpp", n_ctx=2048, threads=2, threads_batch=2,
                           grammar_first=grammar_first, prefix_cache_mb=0)
    await backend.check()
    seconds, tokens, valid = [], [], 0
    for i in range(calls):
        answer = await backend.chat(
            [{"role": "system", "content": "You are playing Werewolf in a village of six."},
             {"role": "user", "content": f"Day {i % 3 + 1}. Bob accused Cid; Ann voted for "
              "Bob. Choose your action and say one sentence. Answer in JSON."}],
            schema=SCHEMA, max_tokens=80, temperature=0.7)
        seconds.append(answer.seconds)
        tokens.append(answer.completion_tokens)
        try:
            valid += json.loads(answer.text)["action"] in SCHEMA["properties"]["action"]["enum"]
        except (ValueError, KeyError):
            pass
    return {"sampling": "grammar_first" if grammar_first else "grammar_last",
            "calls": calls, "valid": valid, "tokens": sum(tokens),
            "seconds": round(sum(seconds), 2),
            "ms_per_token": round(1000 * sum(seconds) / max(1, sum(tokens)), 1),
            "median_call_seconds": round(statistics.median(seconds), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=12)
    args = parser.parse_args()
    rows = [asyncio.run(ask(first, args.calls)) for first in (True, False)]
    print(f"{'sampling':<14} {'calls':>5} {'valid':>5} {'tokens':>6} {'seconds':>8} "
          f"{'ms/token':>8} {'median call':>11}")
    for r in rows:
        print(f"{r['sampling']:<14} {r['calls']:>5} {r['valid']:>5} {r['tokens']:>6} "
              f"{r['seconds']:>8} {r['ms_per_token']:>8} {r['median_call_seconds']:>10} s")
    save("grammar_sampling", rows)


if __name__ == "__main__":
    main()
