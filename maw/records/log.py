"""The game log: append-only JSONL, one record a line, flushed at every line."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


class GameLog:
    """Append-only JSONL, flushed at every line: a crash loses at most the line being written.

    Records: ``{"t": seconds since start, "kind": ..., ...}`` with kinds ``msg`` (sender,
    receiver, type, body), ``event`` (an engine event, with its audience), ``state``,
    ``input`` (a get_input payload and its answer), ``outcome``.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.start = time.monotonic()
        self._file = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")

    def write(self, kind: str, **fields: Any) -> None:
        if self._file is None:
            return
        record = {"t": round(time.monotonic() - self.start, 4), "kind": kind, **fields}
        self._file.write(json.dumps(record, default=str, ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


NULL_LOG = GameLog(None)
