"""The embedded model's threads on a busy machine: seconds for the same answers with 1
thread and with every CPU, on an idle machine and beside other work (``--busy`` processes
that spin, as the other workers of the test suite or a host's agents would).

    .venv/bin/python benchmarks/model_threads.py [--calls 4] [--busy 2]

llama.cpp's threads wait for each other at every step: one that waits for a CPU holds up
the rest. Each row asks the same ``--calls`` questions of a fresh model process (greedy,
40 tokens each), so the rows differ only in threads and load. Prints the table and stores
it in ``benchmarks/results/model_threads.json``; ``MAW_LLM_THREADS`` is what a user sets
from it (``maw.llm.model_process.default_threads``).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.llm import make_backend  # noqa: E402


def spin(stop: float) -> None:  # a busy process: another worker's CPU work
    while time.monotonic() < stop:
        pass


async def ask(threads: int, calls: int) -> float:
    backend = make_backend("llamacpp", n_ctx=1024, threads=threads, threads_batch=threads,
                           prefix_cache_mb=0)
    await backend.check()  # (loaded before the clock starts)
    started = time.monotonic()
    for i in range(calls):
        await backend.chat([{"role": "user", "content": f"Day {i + 1} of a game of "
                             "Werewolf. Bob accused Cid and Ann voted for Bob. Who do you "
                             "vote for, and why?"}], max_tokens=40, temperature=0.0)
    return time.monotonic() - started


def row(threads: int, busy: int, calls: int) -> dict:
    spinners = [multiprocessing.Process(target=spin, args=(time.monotonic() + 600,))
                for _ in range(busy)]
    for p in spinners:
        p.start()
    try:
        seconds = asyncio.run(ask(threads, calls))
    finally:
        for p in spinners:
            p.terminate()
            p.join()
    return {"threads": threads, "busy_processes": busy, "calls": calls,
            "seconds": round(seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--busy", type=int, default=2)
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))
    rows = [row(t, b, args.calls) for b in (0, args.busy) for t in sorted({1, cpus})]
    print(f"{'threads':>7} {'busy':>4} {'calls':>5} {'seconds':>8}")
    for r in rows:
        print(f"{r['threads']:>7} {r['busy_processes']:>4} {r['calls']:>5} {r['seconds']:>8}")
    save("model_threads", rows)


if __name__ == "__main__":
    main()
