"""Readable lines for a person: live during ``maw game`` and from a log in ``maw replay``."""

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


def event_fields(event: object) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(event, f.name) for f in fields(event)}  # type: ignore[arg-type]


def live_line(event: object) -> str | None:
    return line(type(event).__name__, event_fields(event))


def replay_lines(path: Path) -> Iterator[str]:
    """The transcript of a JSONL game log (read once, typed). Raises ``ReplayError`` if it
    is not one."""
    seen = False
    for record in read_log(path):
        if isinstance(record, schema.Round):
            seen = True
            yield f"== Round {record.round} ({record.ruleset})"
        elif isinstance(record, schema.Event):
            seen = True
            text = line(record.event, record.data)
            if text:
                yield f"{record.t:8.2f}s {text}"
        elif isinstance(record, schema.Outcome) and record.absent:
            yield f"   absent (never acted): {', '.join(record.absent)}"
    if not seen:
        raise ReplayError(f"{path} holds no game events")
