"""Where the benchmarks keep their figures: ``benchmarks/results/NAME.json``, with the
machine and the date beside the rows."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def saved(name: str) -> list[dict]:
    """The rows ``save(name, ...)`` last stored ([] if none): what a rerun of a few rows
    keeps of the others."""
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text())["rows"] if path.exists() else []


def save(name: str, rows: list[dict]) -> Path:
    path = RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=2) + "\n")
    tmp.replace(path)  # (whole or not at all: another run may be reading it)
    print(f"saved to benchmarks/results/{path.name}")
    return path
