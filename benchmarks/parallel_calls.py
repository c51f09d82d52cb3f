"""Parallel model calls: the README's main command's game (six hybrid players, the
roster of ``agents/hybrid.toml``) with its model on llama.cpp's own server, which answers
``--parallel N`` requests at once (``bash scripts/llama-server.sh`` builds it from the
llama.cpp the embedded model runs), and the roster's ``parallel = N``; the same seeds for
each N.

    .venv/bin/python benchmarks/parallel_calls.py [--seeds 1-3] [--slots 1,2]

Per game: the wall time, the game time, model calls, the most calls in flight at once
(from the log's spans), the model's seconds (the sum over calls) and the seconds during
which at least one call ran. Printed and stored in ``benchmarks/results/parallel_calls.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.hosting.connect import port_open  # noqa: E402
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.llm.backends import default_model_path  # noqa: E402
from maw.records.accounting import time_split  # noqa: E402


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def start_server(binary: str, slots: int, folder: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = (folder / f"server-{slots}.log").open("w")
    # each slot has the context a player's conversation has on the embedded model
    proc = subprocess.Popen([binary, "-m", default_model_path(), "--host", "127.0.0.1",
                             "--port", str(port), "--parallel", str(slots),
                             "--ctx-size", str(2048 * slots), "--threads", "2",
                             "--threads-batch", "2", "--no-webui"],
                            stdout=log, stderr=subprocess.STDOUT)
    end = time.monotonic() + 120
    while not port_open("127.0.0.1", port):
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise SystemExit(f"llama-server did not start: {folder}/server-{slots}.log")
        time.sleep(0.2)
    time.sleep(2)  # (it listens before the model is loaded: /v1/models says when)
    return proc, f"http://127.0.0.1:{port}/v1"


def roster(url: str, slots: int, folder: Path) -> Path:
    """agents/hybrid.toml with its [llm] on the server."""
    text = (REPO / "agents" / "hybrid.toml").read_text()
    head, sep, players = text.partition("[[player]]")
    llm = tomllib.loads(head)["llm"]
    lines = ["[llm]", 'backend = "openai"', 'model = "gemma3"', f'base_url = "{url}"',
             'options = {schema_mode = "json_object"}', f"parallel = {slots}"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in llm.items()
              if k not in ("backend", "model", "base_url", "options")]
    path = folder / f"roster-{slots}.toml"
    path.write_text("\n".join(lines) + "\n\n" + sep + players)
    return path


def most_at_once(spans: list[tuple[float, float]]) -> int:
    edges = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    now = most = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def busy(spans: list[tuple[float, float]]) -> float:
    """Seconds during which at least one call ran."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-3")
    parser.add_argument("--slots", default="1,2")
    args = parser.parse_args()
    binary = subprocess.run(["bash", str(REPO / "scripts" / "llama-server.sh")],
                            capture_output=True, text=True, check=True).stdout.strip()
    folder = Path(tempfile.mkdtemp(prefix="maw-parallel-bench-"))
    rows = []
    for slots in [int(x) for x in args.slots.split(",")]:
        server, url = start_server(binary, slots, folder)
        try:
            for seed in seeds(args.seeds):
                out = folder / f"logs-{slots}-{seed}"
                cmd = [sys.executable, "-m", "maw", "game", "--seed", str(seed), "--quiet",
                       "--roster", str(roster(url, slots, folder)),
                       "--xmpp", f"embedded:{free_port()}", "--log-dir", str(out)]
                t0 = time.monotonic()
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      env={**os.environ, "CI": ""})
                wall = time.monotonic() - t0
                if proc.returncode != 0:
                    raise SystemExit(proc.stderr[-3000:])
                log = [json.loads(x) for x in next(out.glob("*.jsonl")).read_text()
                       .splitlines()]
                over = next(r for r in log if r["kind"] == "outcome")
                spans = [tuple(s) for r in log if r["kind"] == "llm"
                         for s in r.get("spans", [])]
                requests = [q for r in log if r["kind"] == "llm"
                            for q in r.get("requests", [])]
                row = {"slots": slots, "seed": seed, "wall_seconds": round(wall, 1),
                       "game_seconds": round(time_split(log)["game"], 1),
                       "days": over["day"], "winner": over["winner"],
                       "llm_calls": len(requests), "most_at_once": most_at_once(spans),
                       "model_seconds": round(sum(b - a for a, b in spans), 1),
                       "busy_seconds": round(busy(spans), 1),
                       "completion_tokens": sum(q.get("completion_tokens", 0)
                                                for q in requests)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            server.terminate()
            server.wait(30)
    for slots in sorted({r["slots"] for r in rows}):
        mine = [r for r in rows if r["slots"] == slots]
        median = statistics.median(r["wall_seconds"] for r in mine)
        model = sum(r["model_seconds"] for r in mine)
        held = sum(r["busy_seconds"] for r in mine)
        print(f"--parallel {slots}: median game {median:.1f} s, "
              f"{sum(r['llm_calls'] for r in mine)} calls, model {model:.0f} s in "
              f"{held:.0f} s busy")
    save("parallel_calls", rows)


if __name__ == "__main__":
    main()
