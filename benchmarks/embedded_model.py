"""Tokens per second of the embedded model as this machine's llama-cpp-python build runs it.

    .venv/bin/python benchmarks/embedded_model.py --label portable [--repeat 5]

For each thread setting (``n_threads``/``n_threads_batch``), loads the default model
(``gemma3-270m``) in a child process, the way a game runs it (``maw.llm.model_process``)
and times, ``--repeat`` times each, reading a 600-token prompt (prompt tokens/s) and
writing 64 tokens after it (generation tokens/s), from llama.cpp's own counters. Prints a
table and merges the rows, under ``--label`` (the build: ``native``, ``portable``...),
into ``benchmarks/results/embedded_model.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from record import save, saved  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys
import llama_cpp
from llama_cpp import Llama
from maw.llm.model_process import default_model_path
from maw.llm.model_worker import quiet_llama_logs
threads, batch, repeat = (int(a) for a in sys.argv[1:4])
quiet_llama_logs()
llm = Llama(model_path=default_model_path(), n_ctx=2048, n_threads=threads,
            n_threads_batch=batch, verbose=False)
prompt = " ".join(f"Player {i % 7} says that player {(i * 3) % 7} voted." for i in range(60))
rows = []
for i in range(repeat + 1):  # the first run warms up
    llm.reset()
    llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
    llm.create_completion(f"{i} {prompt}", max_tokens=64, temperature=0.0,
                          stop=[], seed=i)
    perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
    if i:
        rows.append([perf.n_p_eval, perf.t_p_eval_ms, perf.n_eval, perf.t_eval_ms])
info = llama_cpp.llama_print_system_info().decode()
print(json.dumps({"rows": rows, "info": info}))
"""


def measure(threads: int, batch: int, repeat: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(threads), str(batch), str(repeat)],
                         capture_output=True, text=True, cwd=REPO, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"the model died ({out.returncode}): {out.stderr[-2000:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    prompt = [n / (ms / 1000) for n, ms, _, _ in data["rows"]]
    gen = [n / (ms / 1000) for _, _, n, ms in data["rows"]]
    features = [f.split("=")[0].strip() for f in data["info"].split("|")
                if f.strip().endswith("= 1")]
    return {"threads": threads, "threads_batch": batch,
            "prompt_tokens": data["rows"][0][0],
            "prompt_tok_s": round(statistics.median(prompt), 1),
            "generation_tok_s": round(statistics.median(gen), 1),
            "features": " ".join(f.replace("CPU : ", "") for f in features)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="the build measured, e.g. native")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", default="1/2,2/2",
                        help="n_threads/n_threads_batch pairs, comma-separated")
    args = parser.parse_args()
    rows = []
    for pair in args.threads.split(","):
        threads, batch = (int(x) for x in pair.split("/"))
        row = {"build": args.label, **measure(threads, batch, args.repeat)}
        rows.append(row)
        print(f"{row['build']:>10}  threads {threads}/{batch}: prompt "
              f"{row['prompt_tok_s']:7.1f} tok/s, generation {row['generation_tok_s']:6.1f} "
              f"tok/s  [{row['features']}]", flush=True)
    kept = [r for r in saved("embedded_model") if r["build"] != args.label]
    save("embedded_model", kept + rows)


if __name__ == "__main__":
    main()
