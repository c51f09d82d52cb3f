"""The README's main command, ``maw game`` (six hybrid players on the embedded model when
no Ollama server is up), over several seeds: how long a game takes, whether every day
reaches its vote, and what its language-model players said.

    .venv/bin/python benchmarks/main_command.py [--seeds 1-6] [--label after] [--repo DIR]

Each seed runs ``maw game --seed S --quiet`` (the command as a new user types it, on an
embedded XMPP server) and reads its log:

* the wall time, the game time, days, model calls, prompt tokens sent and evaluated;
* ``no_vote_days``: days that ended with no execution vote cast;
* ``most_votes_by_one``: the most execution votes one player cast in a day (each change
  counts), and ``no_execution_days``: the days that ended with nobody executed;
* ``moves_unsaid``: the days a model player ended with its vote on another than the
  suspect or vote its last Village line that day named (it moved without a word);
* ``gated``: the lines the gate refused (``maw.policies.gate``: the rule layer's line was
  said instead), by kind of fault;
* ``said_faults``: every line a model player said, read again by the gate's checks with
  the speaker's view at that moment (the engine replays the log's actions): lines that
  still echo the prompt (``echo``), give away the speaker's pack or hidden role
  (``secret``), name a role the game lacks (``role``), or stop mid-sentence
  (``sentence``), and a hybrid player's wording that does not say what its intent meant
  (``meaning``: ``gate.unfaithful`` with the intent's template line as what it may say:
  a player or a statement the intent lacks, or none of its words); the first of them in
  ``examples``.

``--repo DIR`` plays with the code of another checkout (the "before" of a change; its
logs are read by this checkout's gate). Printed, with the median and the longest game,
and stored in ``benchmarks/results/main_command-LABEL.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw import engine  # noqa: E402
from maw.hosting.xmpp import free_port  # noqa: E402
from maw.llm.prompts import Prompts  # noqa: E402
from maw.policies import gate  # noqa: E402
from maw.records.accounting import time_split  # noqa: E402
from maw.records.audit import action_classes  # noqa: E402

TEMPLATES = ("turn.md", "repair.md", "refused.md", "voice.md", "voice_again.md")


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def no_vote_days(log: list[dict]) -> list[int]:
    """The days that ended (an execution, or none) with no execution vote cast."""
    voted: set[int] = set()
    out = []
    for r in log:
        if r["kind"] != "event":
            continue
        data = r["data"]
        if r["event"] == "VoteCast" and data.get("kind") == "execute":
            voted.add(data["day"])
        elif r["event"] in ("Executed", "NoExecution") and data["day"] not in voted:
            out.append(data["day"])
    return out


def votes_by_day(log: list[dict]) -> tuple[int, list[int]]:
    """The most execution votes one player cast in one day (each change a vote; a rule
    layer moves its vote at most once a day), and the days that ended with nobody
    executed (a tie, or no votes)."""
    cast: Counter = Counter()
    spared = []
    for r in log:
        if r["kind"] != "event":
            continue
        data = r["data"]
        if r["event"] == "VoteCast" and data.get("kind") == "execute" and data["target"]:
            cast[(data["day"], data["voter"])] += 1
        elif r["event"] == "NoExecution":
            spared.append(data["day"])
    return max(cast.values(), default=0), spared


def moves_unsaid(log: list[dict]) -> list[str]:
    """The days a model player ended with its vote on another player than its last line
    in the Village that day named as its suspect or its vote (it moved and never said
    so), as "day N: Player said X, voted Y" (a vote withdrawn counts as none)."""
    from maw.policies import claims

    started = next(r for r in log if r["kind"] == "started")
    talkers = {s["name"] for s in started["seats"] if s["decider"] in ("llm", "hybrid")}
    players: tuple[str, ...] = ()
    named: dict[tuple[int, str], set[str]] = {}
    voted: dict[tuple[int, str], str | None] = {}
    for r in log:
        if r["kind"] == "round":
            players = tuple(sorted(r["roles"]))
        elif r["kind"] == "event" and r["event"] == "Chatted":
            data = r["data"]
            if data["speaker"] in talkers and data["room"] == "Village":
                said = {c.target for c in claims.parse(data["speaker"], data["text"], players)
                        if c.kind == "suspect"}
                if said:
                    named[(data["day"], data["speaker"])] = said
        elif r["kind"] == "event" and r["event"] == "VoteCast" and \
                r["data"].get("kind") == "execute" and r["data"]["voter"] in talkers:
            voted[(r["data"]["day"], r["data"]["voter"])] = r["data"]["target"] or None
    return [f"day {d}: {p} said {'/'.join(sorted(named[(d, p)]))}, voted {t}"
            for (d, p), t in sorted(voted.items())
            if t is not None and (d, p) in named and t not in named[(d, p)]]


def said_faults(log: list[dict]) -> tuple[Counter, list[str]]:
    """Every line a model player said, through the gate's checks with its view then."""
    started = next(r for r in log if r["kind"] == "started")
    talkers = {s["name"] for s in started["seats"] if s["decider"] in ("llm", "hybrid")}
    classes = action_classes()
    prompts = Prompts()
    faults: Counter = Counter()
    examples: list[str] = []
    state = None
    meant: dict[str, str] = {}  # a hybrid player's last intent (its template line)
    for r in log:
        if r["kind"] == "llm" and r.get("intent"):
            meant[r["player"]] = r["intent"]
        if r["kind"] == "round":
            rules = engine.ruleset(r["ruleset"], **dict(r.get("options") or {}))
            state = engine.new_game(rules, sorted(r["roles"]),
                                    random.Random(f"{started['seed']}:{r['round']}"))
        elif r["kind"] == "action" and state is not None:
            data = dict(r["data"])
            if "room" in data:
                data["room"] = engine.Room(data["room"])
            action = classes[r["action"]](**data)
            if type(action) is engine.Chat and action.actor in talkers:
                view = engine.view(state, action.actor)
                verdict = gate.check(action.text, view, 500,
                                     instructions=prompts.instructions(view, *TEMPLATES))
                found = list(verdict.faults)
                intent = meant.pop(action.actor, "")
                if intent and action.text != intent:  # (a model's wording of an intent)
                    found += gate.unfaithful(action.text, "", action.actor, view.players,
                                             intent)
                for f in dict.fromkeys(gate.fault_kind(f) for f in found):
                    faults[f] += 1
                if found and len(examples) < 8:
                    examples.append(f"{action.actor} ({view.role}): {action.text!r}: "
                                    f"{'; '.join(found)}")
            state, _ = engine.play(state, action)
    return faults, examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-6")
    parser.add_argument("--label", default="after")
    parser.add_argument("--repo", default=None,
                        help="play with the code of this checkout (default: this one)")
    args = parser.parse_args()
    repo = Path(args.repo).resolve() if args.repo else REPO
    env = dict(os.environ, PYTHONPATH=str(repo))
    rows = []
    for seed in seeds(args.seeds):
        out = Path(tempfile.mkdtemp(prefix="maw-main-bench-"))
        cmd = [sys.executable, "-m", "maw", "game", "--seed", str(seed), "--quiet",
               "--xmpp", f"embedded:{free_port()}", "--log-dir", str(out)]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=repo, env=env)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        log = [json.loads(x) for x in next(out.glob("*.jsonl")).read_text().splitlines()]
        over = next(r for r in log if r["kind"] == "outcome")
        requests = [q for r in log if r["kind"] == "llm" for q in r.get("requests", [])]
        prompt = sum(q.get("prompt_tokens", 0) for q in requests)
        evaluated = [q["evaluated_tokens"] for q in requests if "evaluated_tokens" in q]
        gated: Counter = Counter()
        for r in log:
            if r["kind"] == "llm" and r.get("gated"):
                for kind in dict.fromkeys(gate.fault_kind(f) for f in r["gated"]):
                    gated[kind] += 1
        faults, examples = said_faults(log)
        row = {"seed": seed, "wall_seconds": round(wall, 1),
               "game_seconds": round(time_split(log)["game"], 1), "days": over["day"],
               "winner": over["winner"], "llm_calls": len(requests),
               "prompt_tokens": prompt,
               "evaluated_tokens": sum(evaluated) if evaluated else None,
               "model_seconds": round(sum(q.get("seconds", 0.0) for q in requests), 1),
               "no_vote_days": no_vote_days(log),
               "most_votes_by_one": votes_by_day(log)[0],
               "no_execution_days": votes_by_day(log)[1],
               "moves_unsaid": moves_unsaid(log),
               "lines": sum(1 for r in log if r["kind"] == "action" and r["action"] == "Chat"),
               "gated": dict(gated), "said_faults": dict(faults), "examples": examples}
        rows.append(row)
        print(json.dumps(row), flush=True)
    walls = [r["wall_seconds"] for r in rows]
    said = sum((Counter(r["said_faults"]) for r in rows), Counter())
    print(f"median {statistics.median(walls):.1f} s, longest {max(walls):.1f} s, "
          f"{sum(r['llm_calls'] for r in rows)} calls, "
          f"{sum(r['prompt_tokens'] for r in rows)} prompt tokens; days with no vote: "
          f"{sum(len(r['no_vote_days']) for r in rows)}; days with nobody executed: "
          f"{sum(len(r['no_execution_days']) for r in rows)} of "
          f"{sum(r['days'] for r in rows)}; most votes one player cast in a day: "
          f"{max(r['most_votes_by_one'] for r in rows)}; days a player's last line named "
          f"another than its vote: {sum(len(r['moves_unsaid']) for r in rows)}; "
          f"lines said that the gate's checks "
          f"fault: {dict(said) or 0}; lines the gate replaced: "
          f"{dict(sum((Counter(r['gated']) for r in rows), Counter())) or 0}")
    save(f"main_command-{args.label}", rows)


if __name__ == "__main__":
    main()
