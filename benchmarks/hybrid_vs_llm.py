"""Hybrid against vanilla LLM villagers on the embedded model, on the same seats and seeds.

    .venv/bin/python benchmarks/hybrid_vs_llm.py [--minutes 60] [--first-seed 1]

For each seed, two real 6-player MAW games (``maw game``, embedded XMPP server, the
embedded model): the same deal, the werewolves ``llm`` players both times (the fixed
opponents), the villagers ``hybrid`` (agents/hybrid.toml's seats) in one and ``llm``
(agents/local.toml's) in the other. Seeds are played until ``--minutes`` are used.
Printed and stored in benchmarks/results/hybrid_vs_llm.json, per game and per side:
the winner, days, chats and model calls per living player-day, tokens, legal / repaired /
fallback, the sentences the consistency check caught, and a post-hoc check over the log:
every chat line replayed through the engine and checked against what its speaker could
know (the gate's checks, ``maw.policies.gate``), the lines that reached the chat anyway.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw import engine  # noqa: E402
from maw.engine import actions as A  # noqa: E402
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.llm.telemetry import summarize  # noqa: E402
from maw.policies.gate import check  # noqa: E402
from maw.tournament.report import wilson  # noqa: E402

RULES = engine.ruleset("maw", votes_open="talk")


def deal(names: list[str], seed: int) -> dict[str, str]:
    """The roles ``maw game --seed seed`` deals (as the GameMaster's AssignRoles does)."""
    state = engine.new_game(RULES, sorted(names), random.Random(f"{seed}:1"))
    return {n: r.name for n, r in zip(state.names, state.roles, strict=True)}


def roster(village: str, roles: dict[str, str]) -> str:
    """A roster seating the village as ``village`` (hybrid or llm), the wolves as llm."""
    hybrid = tomllib.loads((REPO / "agents" / "hybrid.toml").read_text())
    local = tomllib.loads((REPO / "agents" / "local.toml").read_text())
    seats = {"hybrid": {p["name"]: p for p in hybrid["player"]},
             "llm": {p["name"]: p for p in local["player"]}}
    lines = ["[llm]"] + [f"{k} = {json.dumps(v)}" for k, v in local["llm"].items()]
    for name, role in roles.items():
        p = seats["llm" if role == "Werewolf" else village][name]
        lines += ["", "[[player]]", f'name = "{name}"', f'decider = "{p["decider"]}"',
                  f"persona = {json.dumps(p['persona'])}"]
    return "\n".join(lines) + "\n"


def posthoc(log: list[dict]) -> dict[str, int]:
    """Chat lines by side that the consistency check would have stopped, replaying the
    game's actions through the engine to know what each speaker knew when it spoke."""
    roles = next(r for r in log if r["kind"] == "round")["roles"]
    names = sorted(roles)
    state = engine.new_game(RULES, names, random.Random(0),
                            roles=[engine.role_named(roles[n]) for n in names])
    flagged = {"wolves": 0, "village": 0}
    for r in log:
        if r["kind"] != "action":
            continue
        data = dict(r["data"])
        if "room" in data:
            data["room"] = engine.Room(data["room"])
        action = getattr(A, r["action"])(**data)
        if type(action) is engine.Chat and check(
                action.text, engine.view(state, action.actor), 500).faults:
            flagged["wolves" if roles[action.actor] == "Werewolf" else "village"] += 1
        state, _ = engine.play(state, action)
    return flagged


def play(seed: int, village: str, roles: dict[str, str], out: Path) -> dict:
    folder = out / f"seed{seed}-{village}"
    folder.mkdir(parents=True)
    path = folder / "roster.toml"
    path.write_text(roster(village, roles))
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "maw", "game", "--players", "6", "--roster", str(path),
         "--seed", str(seed), "--xmpp", f"embedded:{free_port()}", "--log-dir", str(folder),
         "--quiet"], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        return {"seed": seed, "village": village, "error": proc.stderr.strip()[-300:]}
    log = [json.loads(x) for x in next(folder.glob("*.jsonl")).read_text().splitlines()]
    over = next(r for r in log if r["kind"] == "outcome")
    events = [r for r in log if r["kind"] == "event"]
    living_days = sum(len(e["data"]["living"]) for e in events
                      if e["event"] == "PhaseStarted" and e["data"]["phase"] == "day")
    village_chats = sum(e["event"] == "Chatted" and e["data"]["room"] == "Village"
                        for e in events)
    calls = [r for r in log if r["kind"] == "llm"]
    villagers = {n for n, r in roles.items() if r != "Werewolf"}
    mine = [r for r in calls if r["player"] in villagers]
    totals, theirs = summarize(mine), summarize([r for r in calls if r not in mine])
    caught = sum(len(r.get("caught") or []) for r in mine)
    flagged = posthoc(log)
    return {
        "seed": seed, "village": village, "winner": over["winner"], "days": over["day"],
        "wall_seconds": round(wall, 1), "village_chats_per_player_day":
            round(village_chats / max(living_days, 1), 2),
        "village_calls": totals["calls"], "wolf_calls": theirs["calls"],
        "calls_per_player_day": round((totals["calls"] + theirs["calls"]) /
                                      max(living_days, 1), 2),
        "tokens": totals["tokens"] + theirs["tokens"],
        "legal": totals["legal"], "repaired": totals["repaired"],
        "fallback": totals["fallback"], "caught": caught,
        "let_through_village": flagged["village"], "let_through_wolves": flagged["wolves"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="maw-hybrid-bench-"))
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
    rows: list[dict] = []
    start, seed = time.monotonic(), args.first_seed
    while time.monotonic() - start < args.minutes * 60:
        roles = deal(names, seed)
        for village in ("hybrid", "llm"):
            row = play(seed, village, roles, out)
            rows.append(row)
            print(json.dumps(row), flush=True)
        seed += 1
    for village in ("hybrid", "llm"):
        done = [r for r in rows if r["village"] == village and "error" not in r]
        wins = sum(r["winner"] == "village" for r in done)
        lo, hi = wilson(wins, len(done)) if done else (0.0, 0.0)
        print(f"{village} village: {wins}/{len(done)} wins (95% {lo:.0%}-{hi:.0%}), "
              f"mean {sum(r['wall_seconds'] for r in done) / max(len(done), 1):.0f} s a game, "
              f"chats/player-day "
              f"{sum(r['village_chats_per_player_day'] for r in done) / max(len(done), 1):.2f}"
              f", caught {sum(r['caught'] for r in done)}, let through "
              f"{sum(r['let_through_village'] for r in done)}")
    save("hybrid_vs_llm", rows)


if __name__ == "__main__":
    main()
