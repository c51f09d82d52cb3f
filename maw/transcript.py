"""Readable lines for a person: live during ``maw game`` and from a log in ``maw replay``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from maw.errors import ReplayError


def line(event: str, d: dict[str, Any]) -> str | None:
    """One transcript line for an engine event (by name and fields), or ``None`` to skip."""
    secret = d.get("audience")
    tag = f" (to {', '.join(sorted(secret))})" if secret else ""
    if event == "GameStarted":
        return f"== A game of {d['ruleset']} with {', '.join(d['players'])}"
    if event == "RoleAssigned":
        pack = f", pack {', '.join(d['pack'])}" if d.get("pack") else ""
        return f"   {d['player']} is a {d['role']}{pack}"
    if event == "PhaseStarted":
        extra = f" (revote: {', '.join(d['candidates'])})" if d.get("candidates") else ""
        return f"-- Day {d['day']}, {d['phase']}{extra}. Alive: {', '.join(d['living'])}"
    if event == "Chatted":
        room = d["room"] if isinstance(d["room"], str) else d["room"].value
        return f"   [{room}] {d['speaker']}: {d['text']}"
    if event == "Overed":
        return None
    if event == "VoteCast":
        verb = {"execute": "votes for", "attack": "wants to attack",
                "divine": "divines"}.get(d["kind"], d["kind"])
        if d["target"] is None:
            return f"   {d['voter']} withdraws the vote"
        return f"   {d['voter']} {verb} {d['target']}{tag}"
    if event == "VotesRevealed":
        return None
    if event == "Executed":
        return f"** {d['player']} is executed ({d['votes']} votes)"
    if event == "NoExecution":
        return f"** Nobody is executed ({d['reason']})"
    if event == "Revote":
        return f"** Tie between {', '.join(d['tied'])}: vote again{tag}"
    if event == "RoleRevealed":
        return f"   {d['player']} was a {d['role']}{tag}"
    if event == "Murdered":
        return f"** {d['player']} is found murdered"
    if event == "NoMurder":
        return "** Nobody was murdered"
    if event == "AttackBlocked":
        return f"   the attack on {d['target']} was blocked{tag}"
    if event == "Divined":
        return f"   {d['seer']} divines {d['target']}: {d['species']}{tag}"
    if event == "Guarded":
        return f"   {d['bodyguard']} guards {d['target']}{tag}"
    if event == "MediumResult":
        return f"   {d['medium']} reads {d['target']}: {d['species']}{tag}"
    if event == "GameOver":
        winner = d["winner"] or "nobody (a draw)"
        roles = ", ".join(f"{n} {r}" for n, r in d["roles"])
        return f"== Game over on day {d['day']}: {winner} win ({d['reason']}). Roles: {roles}"
    return f"   {event} {d}"


def event_fields(event: object) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(event, f.name) for f in fields(event)}  # type: ignore[arg-type]


def live_line(event: object) -> str | None:
    return line(type(event).__name__, event_fields(event))


def replay_lines(path: Path) -> Iterator[str]:
    """The transcript of a JSONL game log. Raises ``ReplayError`` if it is not one."""
    if not path.exists():
        raise ReplayError(f"no log at {path}")
    seen = False
    with path.open(encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                kind = record["kind"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ReplayError(f"{path}:{number}: not a MAW game log line") from exc
            if kind == "round":
                seen = True
                yield f"== Round {record['round']} ({record.get('ruleset', '')})"
            elif kind == "event":
                seen = True
                text = line(record["event"], record["data"])
                if text:
                    yield f"{record['t']:8.2f}s {text}"
            elif kind == "outcome":
                absent = record.get("absent") or []
                if absent:
                    yield f"   absent (never acted): {', '.join(absent)}"
    if not seen:
        raise ReplayError(f"{path} holds no game events")
