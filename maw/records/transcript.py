"""Readable lines for a person, from the game log's records: live during ``maw game`` and
from a log in ``maw replay``, the same lines. Without ``show_roles`` a transcript says only
what every player may know (a person at the table may watch the host's screen)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from maw.errors import ReplayError
from maw.protocol.render import event_line
from maw.records import schema
from maw.records.log import read_log


def line(event: str, d: dict[str, Any]) -> str | None:
    """One transcript line for an engine event (``maw.protocol.render.event_line``)."""
    return event_line(event, d)


def record_line(r: dict[str, Any] | schema.Record, show_roles: bool = False) -> str | None:
    """The transcript's line for one log record, or ``None``: engine events (the secret
    ones only with ``show_roles``), and a player who leaves, is replaced or comes back."""
    kind = r["kind"]
    if kind == "round":
        return f"== Round {r['round']} ({r['ruleset']})"
    if kind == "event":
        data = r["data"]
        if data.get("audience") is not None and not show_roles:
            return None
        return line(r["event"], data)
    if kind == "narration":
        return f"[Moderator] {r['text']}"
    if kind == "gone":
        if r.get("why") == "idle":
            return f"** {r['player']} let its turns run out without a move: away"
        return f"** {r['player']} left the game"
    if kind == "substituted":
        return (f"** a {r['decider']} player plays {r['player']}'s seat from the next "
                "phase on")
    if kind == "model_down":
        if not (r.get("public") or show_roles):
            return None
        if r.get("waiting") is not None:  # (a hung server: nothing failed yet)
            return (f"** {r['player']}'s model has not answered for {r['waiting']:g} s "
                    f"({r['error']}): its turns wait for it, until the call's timeout or "
                    "the phase's end")
        return (f"** {r['player']}'s model does not answer ({r['error']}): its fallback "
                "plays its turns until it does")
    if kind == "returned":
        return f"** {r['player']} is back and plays its own seat again"
    if kind == "outcome" and r.get("absent"):
        return f"   absent (never acted, or left): {', '.join(r['absent'])}"
    return None


def strayed(recorded: Path, replayed: Path) -> str | None:
    """Where a game replayed from a log (``maw game --replay-llm``) first did otherwise
    than the recorded one, event by event: a sentence saying so, or ``None`` (the same
    events, in the same order)."""
    def events(path: Path) -> list[tuple[str, dict]]:
        return [(r["event"], r["data"]) for r in read_log(path) if r["kind"] == "event"]

    def said(e: tuple[str, dict]) -> str:
        return line(*e) or e[0]

    was, now = events(recorded), events(replayed)
    for i, (a, b) in enumerate(zip(was, now, strict=False)):  # (one may be longer)
        if a != b:
            return (f"the replay strayed from the recording at event {i + 1} of "
                    f"{len(was)} (day {a[1].get('day', '?')}): recorded {said(a)!r}, "
                    f"replayed {said(b)!r}")
    if len(was) != len(now):
        return (f"the replay's events follow the recording's, but it has {len(now)} "
                f"where the recording has {len(was)}")
    return None


def replay_lines(path: Path, show_roles: bool = False) -> Iterator[str]:
    """The transcript of a JSONL game log (read once, typed). Raises ``ReplayError`` if it
    is not one."""
    seen = False
    ended = True  # (the last round began has its outcome)
    last = 0.0
    for record in read_log(path):
        if isinstance(record, schema.Round | schema.Event):
            seen = True
        if isinstance(record, schema.Round):
            ended = False
        elif isinstance(record, schema.Outcome):
            ended = True
        last = record.t
        text = record_line(record, show_roles)
        if text:
            yield f"{record.t:8.2f}s {text}"
    if not seen:
        raise ReplayError(f"{path} holds no game events")
    if not ended:
        yield (f"{last:8.2f}s -- the log ends here, before its game did (a game still "
               "on, or its host stopped or died)")
