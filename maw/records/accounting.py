"""Where a game's time goes, from its JSONL log.

Four shares of the game (from the first ``round`` record to the last ``outcome``):

``llm``
    a model call was running (the ``spans`` of the ``llm`` records, one per call: a
    decision and its repair are two calls, and a call a cancel cut short is one too; the
    wait for a shared model is not part of it);
``waits``
    Algorithm 1's deliberate random waits (``turn`` records' ``wait``), where no call ran;
``overhead``
    MAW's own: a question was open (a player had sent ``get_input``, its interface had
    not answered yet) and neither a model call nor a deliberate wait was running. That is
    XMPP delivery, prompt building, parsing and the hand-over of a model's lock;
``idle``
    nobody had been asked anything: the game waited for a phase timer, a night with only
    villagers left, or messages the players had not yet reacted to.

The records of one process only: a player in another process logs its own game.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Any

from maw.records.log import read_log  # noqa: F401 - where the records come from

Interval = tuple[float, float]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of ``intervals`` as sorted, disjoint intervals."""
    out: list[list[float]] = []
    for a, b in sorted(i for i in intervals if i[1] > i[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def length(intervals: Iterable[Interval]) -> float:
    return sum(b - a for a, b in merge(intervals))


def clip(intervals: Iterable[Interval], lo: float, hi: float) -> list[Interval]:
    return [(max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi]


def minus(intervals: Iterable[Interval], cut: Iterable[Interval]) -> list[Interval]:
    """``intervals`` without any part covered by ``cut``."""
    cut = merge(cut)
    out: list[Interval] = []
    for a, b in merge(intervals):
        for c, d in cut:
            if d <= a or c >= b:
                continue
            if c > a:
                out.append((a, c))
            a = max(a, d)
            if a >= b:
                break
        if a < b:
            out.append((a, b))
    return out


def time_split(records: Sequence[Any]) -> dict[str, float]:
    """Seconds of ``game`` and of its four shares (they add up to ``game``)."""
    starts = [r["t"] for r in records if r["kind"] == "round"]
    ends = [r["t"] for r in records if r["kind"] == "outcome"]
    if not starts or not ends:
        return {}
    lo, hi = starts[0], ends[-1]
    calls = clip([tuple(span) for r in records if r["kind"] == "llm"
                  for span in r.get("spans") or [(r["t"] - r.get("seconds", 0.0), r["t"])]],
                 lo, hi)
    turns = [r for r in records if r["kind"] == "turn"]
    waits = clip([(r["t"] - r["seconds"], r["t"] - r["seconds"] + r.get("wait", 0.0))
                  for r in turns], lo, hi)
    # a question is open from the player's get_input to its interface's answer
    asked: dict[str, list[float]] = {}
    for r in records:
        if r["kind"] == "input":
            asked.setdefault(r["player"], []).append(r["t"])
    questions = []
    for r in turns:
        start = r["t"] - r["seconds"]
        sent = asked.get(r["player"], [])
        i = bisect.bisect_right(sent, start) - 1
        questions.append((sent[i] if i >= 0 else start, r["t"]))
    questions = clip(questions, lo, hi)
    busy = merge(calls)
    waiting = minus(waits, busy)
    overhead = minus(questions, busy + waiting)
    game = hi - lo
    split = {"game": game, "llm": length(busy), "waits": length(waiting),
             "overhead": length(overhead)}
    split["idle"] = max(0.0, game - split["llm"] - split["waits"] - split["overhead"])
    return {k: round(v, 3) for k, v in split.items()}


def describe(split: dict[str, float]) -> str:
    """One line: each share in seconds and in percent of the game."""
    game = split["game"] or 1e-9
    parts = [f"{name} {split[key]:.1f} s ({100 * split[key] / game:.1f}%)"
             for key, name in (("llm", "LLM calls"), ("waits", "deliberate waits"),
                               ("idle", "timers and idle"), ("overhead", "MAW overhead"))]
    return f"{split['game']:.1f} s of play: " + ", ".join(parts)
