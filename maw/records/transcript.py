"""Readable lines for a person: live during ``maw game`` and from a log in ``maw replay``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from maw.errors import ReplayError
from maw.protocol.render import event_line


def line(event: str, d: dict[str, Any]) -> str | None:
    """One transcript line for an engine event (``maw.protocol.render.event_line``)."""
    return event_line(event, d)


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
