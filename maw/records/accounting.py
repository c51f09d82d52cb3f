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

Of ``llm``, ``cut`` is the calls a cancel cut short (the phase moved on while the model was
answering): they took the model's time, but no decision came of them, so a player's own
tally of its decisions leaves them out.

The records of one process only: a player in another process logs its own game.
"""

from __future__ import annotations

import bisect
import math
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
    """Seconds of ``game`` and of its four shares (they add up to ``game``), and ``cut``
    (of ``llm``)."""
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
    cut = clip([tuple(span) for r in records if r["kind"] == "llm"
                and r.get("outcome") == "cut short" for span in r.get("spans") or []], lo, hi)
    # in milliseconds, idle the rest: the shares as given add up to the game as given
    split = {"game": round(hi - lo, 3), "llm": round(length(busy), 3),
             "waits": round(length(waiting), 3), "overhead": round(length(overhead), 3)}
    split["idle"] = round(max(0.0, split["game"] - split["llm"] - split["waits"]
                              - split["overhead"]), 3)
    split["cut"] = round(length(cut), 3)
    return split


SHARES = (("llm", "LLM calls"), ("waits", "deliberate waits"), ("idle", "timers and idle"),
          ("overhead", "MAW overhead"))


def apportion(values: Sequence[float], total: float, digits: int) -> list[float]:
    """``values`` scaled to ``total`` and rounded to ``digits`` decimals so that they add
    up to ``total`` exactly (largest remainders: each is its exact value rounded up or
    down)."""
    whole = sum(values)
    unit = 10 ** -digits
    units = round(total / unit)
    if whole <= 0:
        return [0.0] * len(values)
    exact = [v * units / whole for v in values]
    out = [math.floor(x) for x in exact]
    by_remainder = sorted(range(len(values)), key=lambda i: out[i] - exact[i])
    for i in by_remainder[:units - sum(out)]:
        out[i] += 1
    return [round(n * unit, digits) for n in out]


def describe(split: dict[str, float]) -> str:
    """One line: each share in seconds and in percent of the game. The seconds are shown
    to a hundredth of the game's length at least (a game of 0.4 s in thousandths), and
    both the seconds and the percentages add up, as shown, to the whole."""
    game = split["game"]
    digits = 1 if game >= 10 else 2 if game >= 1 else 3
    shown = round(game, digits)
    values = [split[key] for key, _ in SHARES]
    seconds = apportion(values, shown, digits)
    percents = apportion(values, 100.0, 1)
    parts = [f"{name} {s:.{digits}f} s ({p:.1f}%)"
             for (key, name), s, p in zip(SHARES, seconds, percents, strict=True)]
    cut = min(split.get("cut", 0.0), seconds[0])
    if cut:  # (the players' own tallies of their decisions leave these calls out)
        parts[0] = parts[0][:-1] + f"; {cut:.{digits}f} s of it in calls a cancel cut short)"
    return f"{shown:.{digits}f} s of play: " + ", ".join(parts)
