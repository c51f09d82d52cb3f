"""The test suite's time: pytest's own seconds, the tests run and the slowest, read from
the output of a run of the README's test command (``bash scripts/test.sh``, as CI runs
it: ``CI=true bash .ci/run``), or of a run this script starts.

    .venv/bin/python benchmarks/suite.py LOG [--label fresh-clone-ci]
    .venv/bin/python benchmarks/suite.py --run [--fast]

A figure of the machine it ran on, with whatever else ran there: a fresh-clone CI run on
a quiet machine is the one to compare. Adds a row to ``benchmarks/results/suite.json``
(the rows before it kept) and prints it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from record import save, saved  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"(?:(\d+) failed, )?(\d+) passed.* in ([\d.]+)s \(")
DURATION = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(.+?)\s*$")


def read(text: str, workers: int | None) -> dict:
    """The figures of one run's output: pytest's seconds, passed and failed, the slowest
    three tests (their setup, call and teardown together)."""
    found = [m for line in text.splitlines() if (m := SUMMARY.search(line))]
    if not found:
        raise SystemExit("suite.py: no pytest summary line in that output")
    failed, passed, seconds = found[-1].groups()
    per: dict[str, float] = {}
    for line in text.splitlines():
        if m := DURATION.match(line):
            per[m.group(3)] = per.get(m.group(3), 0.0) + float(m.group(1))
    slowest = sorted(per.items(), key=lambda kv: -kv[1])[:3]
    return {"pytest_seconds": float(seconds), "minutes": round(float(seconds) / 60, 2),
            "passed": int(passed), "failed": int(failed or 0),
            "workers": workers,
            "slowest": [{"test": t, "seconds": round(s, 1)} for t, s in slowest]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", nargs="?", help="the output of a run")
    parser.add_argument("--run", action="store_true", help="run scripts/test.sh now")
    parser.add_argument("--fast", action="store_true", help="with --run: the fast tier")
    parser.add_argument("--label", default="")
    parser.add_argument("--workers", type=int, help="with LOG: the run's pytest -n")
    args = parser.parse_args()
    if args.run == bool(args.log):
        parser.error("give a LOG, or --run")
    if args.run:
        started = time.monotonic()
        out = subprocess.run(["bash", "scripts/test.sh", *(["--fast"] if args.fast else [])],
                             cwd=REPO, capture_output=True, text=True)
        text, label = out.stdout + out.stderr, args.label or ("fast" if args.fast else "full")
        print(f"(the command took {time.monotonic() - started:.0f} s with its set-up)")
    else:
        text, label = Path(args.log).read_text(errors="replace"), args.label or "log"
    workers = args.workers
    if args.run:
        found = re.search(r"pytest -n (\d+)", (REPO / "scripts" / "test.sh").read_text())
        workers = int(found.group(1)) if found else None
    row = {"label": label, "date": time.strftime("%Y-%m-%d"), **read(text, workers)}
    save("suite", [*saved("suite"), row])
    print(json.dumps(row, indent=2))
    sys.exit(1 if row["failed"] else 0)


if __name__ == "__main__":
    main()
