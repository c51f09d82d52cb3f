"""The long fuzz: many seeded hostile games against their baselines, on each server.

    .venv/bin/python benchmarks/fuzz.py [--seeds 10] [--messages 2000]
                                        [--servers embedded,lax,ejabberd]

The same harness as ``tests/agents/test_security.py`` (``tests/hostile.py``),
longer: for each server, one baseline game (no hostile messages) and one game per seed
with ``--messages`` hostile messages of every type of docs/protocol.md. A game passes
when it ends as the baseline did (winner, day, deaths), no Hideout line reached a
villager and no behaviour ended. Prints a row per game and stores them in
``benchmarks/results/fuzz.json``; exits 1 if any game failed (its seed reproduces it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from hostile import fuzz_game  # noqa: E402

from maw.engine import new_game, ruleset  # noqa: E402
from maw.hosting.connect import port_open  # noqa: E402
from maw.hosting.xmpp import Address, EmbeddedServer, free_port  # noqa: E402

LAX = ("import asyncio, sys\nfrom maw.hosting.xmpp import EmbeddedServer\nasync def main():\n"
       "    await EmbeddedServer(int(sys.argv[1]), check_senders=False).start()\n"
       "    await asyncio.Event().wait()\nasyncio.run(main())\n")


def villager_seed() -> int:
    import random

    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Zed"]
    return next(s for s in range(5, 105) if new_game(ruleset("maw"), names, random.Random(
        f"{s}:1")).roles[-1].name == "Villager")


async def run_server(kind: str, seeds: int, messages: int, out: Path) -> list[dict]:
    cleanup = []
    if kind == "embedded":
        server = EmbeddedServer(free_port())
        await server.start()
        address = Address("localhost", server.port, False)
        cleanup.append(server.stop)
    elif kind == "lax":
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-c", LAX, str(port)], cwd=REPO)
        while not port_open("127.0.0.1", port):
            await asyncio.sleep(0.1)
        address = Address("127.0.0.1", port, False)

        async def stop_lax() -> None:
            proc.terminate()
        cleanup.append(stop_lax)
    else:
        if shutil.which("ejabberdctl") is None:
            print("ejabberd is not installed: skipped")
            return []
        port = free_port()
        state = tempfile.mkdtemp(prefix="maw-fuzz-ejabberd-")
        env = dict(os.environ, MAW_EJABBERD_DIR=state, MAW_EJABBERD_PORT=str(port),
                   MAW_EJABBERD_NODE=f"maw-fuzz-{port}@localhost")
        script = str(REPO / "scripts" / "ejabberd.sh")
        subprocess.run(["bash", script, "start"], env=env, check=True, capture_output=True)
        address = Address("127.0.0.1", port, False)

        async def stop_ejabberd() -> None:
            subprocess.run(["bash", script, "stop"], env=env, capture_output=True)
            shutil.rmtree(state, ignore_errors=True)
        cleanup.append(stop_ejabberd)
    rows = []
    try:
        game_seed = villager_seed()
        base = await fuzz_game(address, 0, 0, out / kind / "base", game_seed=game_seed)
        for seed in range(1, seeds + 1):
            t0 = time.monotonic()
            f = await fuzz_game(address, 1000 * seed, messages, out / kind / str(seed),
                                game_seed=game_seed)
            same = (f.winner, f.day, f.deaths) == (base.winner, base.day, base.deaths)
            ok = same and not f.hideout_to_villagers and not f.seat_heard_hideout
            row = {"server": kind, "seed": 1000 * seed, "sent": f.sent,
                   "forgers_closed": f.forgers_closed, "forged_dropped": f.forged_dropped,
                   "refused": f.refused, "handler_errors": f.handler_errors,
                   "same_game": same, "hideout_leaks": len(f.hideout_to_villagers)
                   + f.seat_heard_hideout, "seconds": round(time.monotonic() - t0, 1),
                   "ok": ok}
            rows.append(row)
            print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    finally:
        for stop in cleanup:
            await stop()
    return rows


async def main() -> int:
    import logging

    logging.getLogger("maw").setLevel(logging.ERROR)  # (a line per forger and failure)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--servers", default="embedded,lax,ejabberd")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.servers.split(","):
            rows += await run_server(kind, args.seeds, args.messages, Path(tmp))
    save("fuzz", rows)
    failed = [r for r in rows if not r["ok"]]
    print(f"{len(rows) - len(failed)} of {len(rows)} fuzzed games ended as their baseline, "
          f"{sum(r['sent'] for r in rows)} hostile messages")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
