"""The compose demo in containers: its images' sizes and build times, and its game's time.

    .venv/bin/python benchmarks/docker_demo.py [--rosters rule,server] [--base maw-base:bookworm]

Builds docker/compose.yaml's images (``docker-compose build``: the time of a build whose
layers the engine has cached, which is what a second run costs; a cold build is timed by
``--cold``, which removes the images and the builder's cache first), prints each image's
size, then plays the demo once for each roster (``rule``: agents/rule.toml, ``server``:
agents/server.toml's LLM players on the model container) with ``up --build
--exit-code-from lobby``: the wall time of the whole ``up``, and the game's own time as
the lobby's summary gives it. Stored in ``benchmarks/results/docker_demo.json``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
COMPOSE = ["docker-compose", "-f", str(REPO / "docker" / "compose.yaml")]
IMAGES = ["maw:latest", "maw-ejabberd:latest", "maw-model:latest"]
ROSTERS = {"rule": "agents/rule.toml", "server": "agents/server.toml"}


def run(args: list[str], env: dict, timeout: float) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.monotonic()
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=REPO)
    return time.monotonic() - t0, proc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rosters", default="rule,server")
    ap.add_argument("--base", default=os.environ.get("MAW_BASE", "python:3.11-slim"))
    ap.add_argument("--cold", action="store_true", help="time a build from nothing cached")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    env = {**os.environ, "MAW_BASE": args.base}
    rows: list[dict] = []
    if args.cold:
        subprocess.run(["docker", "rmi", "-f", *IMAGES], capture_output=True)
        subprocess.run(["docker", "builder", "prune", "-af"], capture_output=True)
    seconds, proc = run([*COMPOSE, "build"], env, 3600)
    if proc.returncode:
        raise SystemExit(f"docker-compose build failed:\n{proc.stderr[-3000:]}")
    sizes = {}
    for image in IMAGES:
        out = subprocess.run(["docker", "image", "inspect", "-f", "{{.Size}}", image],
                             capture_output=True, text=True).stdout.strip()
        sizes[image] = round(int(out) / 1e6)
    rows.append({"what": "build", "cold": args.cold, "base": args.base,
                 "seconds": round(seconds, 1), "image_mb": sizes})
    print(f"build ({'cold' if args.cold else 'cached'}, base {args.base}): {seconds:.1f} s; "
          + ", ".join(f"{k} {v} MB" for k, v in sizes.items()), flush=True)
    for roster in args.rosters.split(","):
        project = f"mawbench{roster}"
        demo = {**env, "MAW_ROSTER": ROSTERS[roster]}
        up = [*COMPOSE[:1], "-p", project, *COMPOSE[1:]]
        try:
            seconds, proc = run([*up, "up", "--build", "--exit-code-from", "lobby"], demo,
                                3600)
            logs = subprocess.run([*up, "logs", "--no-color", "lobby"], env=demo,
                                  capture_output=True, text=True).stdout
        finally:
            subprocess.run([*up, "down", "-v"], env=demo, capture_output=True)
        game = re.search(r"Summary: 1 round\(s\) in ([\d.]+) s", logs)
        won = re.search(r"round 1: (.*)", logs)
        row = {"what": "demo", "roster": ROSTERS[roster], "exit_code": proc.returncode,
               "up_seconds": round(seconds, 1),
               "game_seconds": float(game.group(1)) if game else None,
               "result": won.group(1).strip() if won else None}
        rows.append(row)
        print(f"demo with {ROSTERS[roster]}: exit {proc.returncode}, up {seconds:.0f} s, "
              f"game {row['game_seconds']} s: {row['result']}", flush=True)
    if not args.no_save:
        save("docker_demo", rows)


if __name__ == "__main__":
    main()
