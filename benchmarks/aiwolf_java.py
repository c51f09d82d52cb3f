"""The AIWolf Java engine and MAW's engine on the same machine, with the same kind of
players: every talk and whisper "Over", every vote and night choice uniform among the
living others (a werewolf's among those it does not know for a packmate).

    .venv/bin/python benchmarks/aiwolf_java.py --sources DIR [--games 2000] [--runs 5]

``DIR`` holds checkouts of the AIWolf 0.6 platform's own repositories (github.com/aiwolf:
``AIWolfCommon``, ``AIWolfServer``, ``AIWolfClient``; not part of MAW), which this script
compiles with the machine's ``javac`` beside ``aiwolf_java/Bench.java`` (MAW's harness: the
server's own game loop, ``AIWolfGame`` with a ``DirectConnectServer`` and
``GameSetting.getDefaultGame(n)``, no logging), then times 5- and 15-player games after a
warm-up of 10,000 games (the JIT compiles the game loop first). MAW's figure is its
engine's ``play_game`` with the same players, after a warm-up of 200 games, in a process of
its own for each engine: as written (``MAW_ENGINE=python``) and compiled with mypyc
(``MAW_ENGINE=compiled``, where ``maw engine build`` made it; else said and skipped). Best
and median of the runs, ms per game; results in ``benchmarks/results/aiwolf_java.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.engine import Chat, Over, ruleset  # noqa: E402
from maw.policies.base import Decider  # noqa: E402
from maw.simulate import play_game  # noqa: E402


class OverRandom(Decider):
    """The Java harness's player in MAW: Over when it may talk, else a uniform choice."""

    needs_view = False

    def decide(self, view, legal):
        others = []  # (one pass over the offer, as lean as the Java harness's player)
        for a in legal:
            kind = type(a)
            if kind is Over:
                return a
            if kind is not Chat:
                others.append(a)
        return others[int(self.rng.random() * len(others))] if others else None


def maw_ms(players: int, games: int, runs: int) -> tuple[float, float, float]:
    rules = ruleset(f"aiwolf-{players}")
    names = [f"P{i + 1:02d}" for i in range(players)]
    for i in range(200):
        play_game(rules, names, OverRandom, seed=i)
    out, days = [], 0
    for _ in range(runs):
        t0, days = time.perf_counter(), 0
        for i in range(games):
            days += play_game(rules, names, OverRandom, seed=i).days
        out.append(1000 * (time.perf_counter() - t0) / games)
    out.sort()
    return out[0], out[len(out) // 2], days / games


def engine_ms(engine: str, players: int, games: int, runs: int
              ) -> tuple[float, float, float] | None:
    """:func:`maw_ms` in a process of its own with ``MAW_ENGINE=engine``; ``None`` where
    that engine is not there (no compiled build for these sources)."""
    done = subprocess.run([sys.executable, __file__, "--maw-only", str(players), str(games),
                           str(runs)], env={**os.environ, "MAW_ENGINE": engine},
                          capture_output=True, text=True)
    if done.returncode:
        if "maw engine build" in done.stderr:
            return None
        raise SystemExit(done.stderr)
    best, median, days, running = json.loads(done.stdout)
    assert running == (engine == "compiled"), f"MAW_ENGINE={engine} ran another engine"
    return best, median, days


def build(sources: Path, *extra: Path) -> tuple[Path, str]:
    """The AIWolf 0.6 platform's sources under ``sources`` and MAW's harnesses ``extra``
    compiled with the machine's ``javac`` into a new folder: (the folder, the classpath).
    The caller removes the folder."""
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        raise SystemExit("no javac/java on PATH (apt-get install -y default-jdk-headless)")
    jars = sorted(sources.rglob("jsonic-*.jar"))
    if not jars:
        raise SystemExit(f"{sources}: no AIWolfServer checkout (its lib/jsonic-*.jar)")
    out = Path(tempfile.mkdtemp(prefix="maw-aiwolf-java-"))
    files = [str(p) for p in sorted(sources.rglob("*.java")) if "/test/" not in str(p)]
    listing = out / "sources.txt"
    listing.write_text("\n".join(files) + "\n")
    cp = f"{out}:{jars[0]}"
    subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-cp", str(jars[0]), "-d",
                    str(out), f"@{listing}"], check=True, capture_output=True)
    if extra:
        subprocess.run([javac, "-encoding", "UTF-8", "-cp", cp, "-d", str(out),
                        *map(str, extra)], check=True, capture_output=True)
    return out, cp


def java_ms(sources: Path, games: int, runs: int) -> dict[int, tuple[float, float, float]]:
    build_dir, cp = build(sources, Path(__file__).parent / "aiwolf_java" / "Bench.java")
    try:
        done = subprocess.run(["java", "-cp", cp, "Bench", "10000", str(games), str(runs),
                               "5", "15"], check=True, capture_output=True, text=True)
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    print(done.stdout.splitlines()[0])
    out = {}
    for m in re.finditer(r"players=(\d+).*?best ([\d.]+) median ([\d.]+).*?mean final day "
                         r"([\d.]+)", done.stdout, re.S):
        out[int(m.group(1))] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
    return out


def main() -> None:
    if sys.argv[1:2] == ["--maw-only"]:  # (engine_ms's process: MAW_ENGINE chose)
        from maw.engine.compiled import compiled_modules

        players, games, runs = map(int, sys.argv[2:5])
        print(json.dumps([*maw_ms(players, games, runs), bool(compiled_modules())]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", required=True, type=Path,
                        help="a folder with checkouts of AIWolfCommon, AIWolfServer and "
                             "AIWolfClient")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    java = java_ms(args.sources, args.games, args.runs)
    rows = []
    for n in (5, 15):
        games = args.games if n == 5 else args.games // 4
        jbest, jmedian, jdays = java[n]
        timed = engine_ms("python", n, games, args.runs)
        assert timed is not None
        best, median, days = timed
        row = {"players": n, "maw_best_ms": round(best, 4),
               "maw_median_ms": round(median, 4), "maw_mean_days": round(days, 2),
               "java_best_ms": jbest, "java_median_ms": jmedian, "java_mean_days": jdays,
               "maw_over_java": round(median / jmedian, 2)}
        print(f"{n:2d} players: Java best {jbest:.3f} median {jmedian:.3f} ms ({jdays:.2f} "
              f"days); MAW best {best:.3f} median {median:.3f} ms ({days:.2f} days): "
              f"{median / jmedian:.1f}x as long", flush=True)
        fast = engine_ms("compiled", n, games, args.runs)
        if fast is None:
            print("    (no compiled engine for these sources: maw engine build)")
        else:
            cbest, cmedian, cdays = fast
            row.update(maw_compiled_best_ms=round(cbest, 4),
                       maw_compiled_median_ms=round(cmedian, 4),
                       compiled_over_java=round(cmedian / jmedian, 2),
                       compiled_speedup=round(median / cmedian, 2))
            print(f"    MAW compiled best {cbest:.3f} median {cmedian:.3f} ms ({cdays:.2f} "
                  f"days): {cmedian / jmedian:.1f}x as long as Java, {median / cmedian:.2f}x "
                  "as fast as MAW as written", flush=True)
        rows.append(row)
    if not args.no_save:
        save("aiwolf_java", rows)


if __name__ == "__main__":
    main()
