"""The web observer's cost: how long an update takes from the GameMaster's log to the
browser, and the host's extra CPU with 1 and 10 watchers.

    .venv/bin/python benchmarks/web_observer.py [--seed 2] [--day-seconds 4]

A rule game (9 players) is hosted in this process without the page, with one headless
Chromium page watching (Debian's chromium-driver), and with that page plus 9 more watchers
(SSE clients in another process, reading every event); each ``--repeat`` times, on the
same seeds. Games on the same seed still differ a little (message timing), so the host's
CPU is compared per record the game logged, and the medians of the repeats are kept.
That comparison is within the games' own variation, so the observer's cost is also
measured alone: a recorded game's log fed to an observer at once, streamed to 0, 1 or 10
spectator watchers (SSE clients in another process, every record), CPU of this process.
The delay is measured per record: the host's wall clock when the record was written
(``Observer.fed_at``) to the page's ``Date.now()`` when it arrived (same machine, same
clock). The host's CPU is this process's user+system time over the game (the browser and
the other watchers run in their own processes). Stored in ``benchmarks/results/web_observer.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw import engine  # noqa: E402
from maw.agents.gamemaster import GameConfig  # noqa: E402
from maw.hosting.game import default_seats, run_game  # noqa: E402
from maw.hosting.xmpp import EmbeddedServer, free_port, parse_address  # noqa: E402
from maw.web.observer import Observer  # noqa: E402
from maw.web.server import WebServer, make_app  # noqa: E402

CLIENTS = """
import asyncio, sys, aiohttp
async def one(url):
    async with aiohttp.ClientSession() as s:
        async with s.get(url, timeout=aiohttp.ClientTimeout(total=None)) as r:
            async for _ in r.content:
                pass
async def main():
    await asyncio.gather(*(one(sys.argv[1]) for _ in range(int(sys.argv[2]))))
asyncio.run(main())
"""


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


async def one_run(watchers: int, args, address) -> dict:
    config = GameConfig(players=args.players, rules=engine.ruleset("maw"), seed=args.seed,
                        day_seconds=args.day_seconds, night_seconds=args.night_seconds,
                        log_dir=Path(tempfile.mkdtemp(prefix="maw-web-bench-")))
    observer = Observer()
    server = page = clients = None
    if watchers:
        port = free_port()
        server = WebServer(make_app(observer), "127.0.0.1", port)
        await server.start()
        url = f"http://127.0.0.1:{port}/"
        page = await asyncio.to_thread(browser)
        await asyncio.to_thread(page.get, url)
        await asyncio.sleep(1.0)
        if watchers > 1:
            clients = subprocess.Popen([sys.executable, "-c", CLIENTS, url + "events",
                                        str(watchers - 1)])
            await asyncio.sleep(1.0)
    t0, c0 = time.monotonic(), cpu()
    result = await run_game(config, default_seats(args.players), address, timeout=600,
                            watch=observer.feed if watchers else None)
    seconds, used = time.monotonic() - t0, cpu() - c0
    records = len(result.log_path.read_text().splitlines())
    row = {"watchers": watchers, "records": records, "game_seconds": round(seconds, 2),
           "host_cpu_seconds": round(used, 3),
           "cpu_ms_per_record": round(1000 * used / records, 4)}
    if watchers:
        observer.end()
        await asyncio.sleep(1.0)
        arrivals = await asyncio.to_thread(page.execute_script, "return window.mawArrivals")
        delays = sorted(arrivals[str(i)] / 1000 - observer.fed_at[i]
                        for i in range(len(observer.records)) if str(i) in arrivals)
        row.update(public_records=len(delays),
                   delay_median_ms=round(1000 * statistics.median(delays), 2),
                   delay_p99_ms=round(1000 * delays[int(0.99 * (len(delays) - 1))], 2),
                   delay_max_ms=round(1000 * delays[-1], 2))
        await asyncio.to_thread(page.quit)
        if clients is not None:
            clients.terminate()
            clients.wait()
        await server.stop(drain=1)
    return row


async def serving_cost(log: Path, watchers: int) -> dict:
    """CPU of this process to stream a whole recorded game to ``watchers`` spectators."""
    import json

    records = [json.loads(x) for x in log.read_text().splitlines()]
    observer = Observer(spectator=True)
    port = free_port()
    server = WebServer(make_app(observer), "127.0.0.1", port)
    await server.start()
    clients = None
    if watchers:
        clients = subprocess.Popen([sys.executable, "-c", CLIENTS,
                                    f"http://127.0.0.1:{port}/events?spectator=1",
                                    str(watchers)])
        while len(observer.watchers) < watchers:
            await asyncio.sleep(0.05)
    c0, t0 = cpu(), time.monotonic()
    for i, r in enumerate(records):
        observer.feed(r)
        if i % 50 == 0:
            await asyncio.sleep(0)  # (the streams write as the game goes)
    observer.end()
    if clients is not None:
        await asyncio.to_thread(clients.wait, 60)
    used, wall = cpu() - c0, time.monotonic() - t0
    await server.stop(drain=1)
    return {"watchers": watchers, "records": len(records), "cpu_seconds": round(used, 4),
            "wall_seconds": round(wall, 3)}


async def main_async(args) -> list[dict]:
    port = free_port()
    server = EmbeddedServer(port)
    await server.start()
    address = parse_address(f"127.0.0.1:{port}")
    runs: dict[int, list[dict]] = {0: [], 1: [], 10: []}
    try:
        for _ in range(args.repeat):
            for watchers in runs:
                row = await one_run(watchers, args, address)
                runs[watchers].append(row)
                print(row, flush=True)
    finally:
        await server.stop()
    rows = []
    for watchers, got in runs.items():
        row = {"watchers": watchers, "runs": len(got), "players": args.players}
        for key in got[0]:
            if key != "watchers":
                row[key] = round(statistics.median(r[key] for r in got), 4)
        rows.append(row)
    base = rows[0]["cpu_ms_per_record"]
    for row in rows:
        row["extra_cpu_percent"] = round(100 * (row["cpu_ms_per_record"] - base) / base, 1)
    # the observer alone, on the last game's log
    game_cpu = rows[0]["host_cpu_seconds"]
    log = sorted(Path(tempfile.gettempdir()).glob("maw-web-bench-*/*.jsonl"),
                 key=lambda p: p.stat().st_mtime)[-1]
    for watchers in (0, 1, 10):
        got = [await serving_cost(log, watchers) for _ in range(args.repeat)]
        row = {"measure": "streaming a recorded game", "watchers": watchers,
               "records": got[0]["records"],
               "cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in got), 4)}
        row["percent_of_a_game_host_cpu"] = round(100 * row["cpu_seconds"] / game_cpu, 1)
        rows.append(row)
        print(row, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--day-seconds", type=float, default=4)
    parser.add_argument("--night-seconds", type=float, default=2)
    parser.add_argument("--players", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = asyncio.run(main_async(args))
    print(f"{'watchers':>8} {'shown':>6} {'median ms':>10} {'p99 ms':>8} {'CPU ms/record':>14} "
          f"{'extra':>7}")
    for r in rows:
        if "measure" in r:
            print(f"streaming a recorded game ({r['records']} records) to {r['watchers']:>2} "
                  f"spectators: {r['cpu_seconds']} s CPU, {r['percent_of_a_game_host_cpu']}% of "
                  "the game's host CPU")
            continue
        print(f"{r['watchers']:>8} {r.get('public_records', '-'):>6} "
              f"{r.get('delay_median_ms', '-'):>10} {r.get('delay_p99_ms', '-'):>8} "
              f"{r['cpu_ms_per_record']:>14} {r['extra_cpu_percent']:>6}%")
    save("web_observer", rows)


if __name__ == "__main__":
    main()
