"""A game log's model calls as a recording to answer from again (``maw game --replay-llm
LOG``; the ``recorded`` backend, ``maw.llm.recorded``, answers with it), and when each
answer is due.

The ``recorded`` backend: a game log's model calls, answered again without a model
(``maw game --replay-llm LOG``), so that any LLM game becomes a regression test.

Every call of an LLM player is in its log's ``llm`` records: the messages sent
(``prompts``), the text that came back (``answers``) and the rest of the request
(``requests``: its key, schema, options, tokens and seconds). A request is answered by
its key (``maw.llm.base.request_key``: messages, schema and options), never by its
order, so a game that strays from the recording is noticed, not papered over: a request
the recording lacks is never answered (as in the recorded game, where the phase ended
before the model did) and is counted in ``missed``.

Two more things make a replay reach the same log:

* **Timing.** The game's timers run on, so each answer comes when it came in the recorded
  game (``pace``, the default): as long after the start of the phase it came in (the
  log's ``timer`` records, which the host passes on with ``Recording.hear``), after the
  answers that came before it, and a little after the last answer (a replay that runs
  late on a loaded machine keeps the order), and only once the phase has taken the
  moves and asked the questions it had when the answer came (``Recording.caught_up``:
  however slow a player is to send a move or ask again, the earlier answers' moves reach
  the GameMaster first, and each question hears what it heard then). A question
  withdrawn in the replay whose answer the recording has is answered anyway, as it was.
  Without ``pace`` each answer comes at once. And a timer that passes (to end a phase or
  open the day's votes) first waits for as many moves in the phase as the recorded game
  had taken by then, and for the recorded answers by then that the replay has asked for
  (``Recording.hold``): a loaded machine's lag does not cut a phase short.
* **Truncation.** What fits a player's window was decided by the recorded model's
  tokenizer: here a context fits if the recording has it as sent (``count_tokens``), so
  the replay drops the same old messages as the recorded game did.

What a replay cannot repeat: a move that raced its phase's timer in the recorded game by
a few milliseconds (an answer due 5 ms before the day's end, its vote refused as too late
1 ms after it) may land on the other side of the timer in the replay, and the games part
there (seen once in CI; ``tests/llm/test_replay.py`` then records a game again).
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import dataclasses
import hashlib
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from maw.errors import BackendError, ReplayError

Message = dict[str, str]  # a message sent to a model (maw.llm.base.Message)

if TYPE_CHECKING:
    from maw.records.schema import Record

Phase = tuple[int, int, str]  # (round, day, phase)


@dataclass(frozen=True)
class Call:
    index: int  # its place among the recorded answers, in the order they came
    key: str
    text: str
    start: float  # on the recorded log's clock
    end: float
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    phase: Phase | None = None  # the phase the answer came in ...
    offset: float = 0.0  # ... and how long after that phase began
    steps: int = 0  # ... and how many steps (``step``) that phase had taken by then


def messages_key(messages: list[Message]) -> str:
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


@dataclass
class Recording:
    """The model calls of one game log, by request key, and the contexts they sent."""

    path: Path
    calls: dict[str, collections.deque[Call]] = field(default_factory=dict)
    sent: set[str] = field(default_factory=set)  # messages_key of every context sent
    first_start: float = 0.0
    anchor: float | None = None  # time.monotonic() of the replay's first call
    missed: int = 0
    answered: int = 0
    misses: list[list[Message]] = field(default_factory=list)  # the first few missed
    total: int = 0
    released: set[int] = field(default_factory=set)
    asked: set[int] = field(default_factory=set)  # the answers the replay has asked for
    first_unreleased: int = 0
    began: dict[Phase, float] = field(default_factory=dict)  # the replay's phases
    last: tuple[float, float] | None = None  # the last answer given: when, recorded end
    # the moves the recorded game took in a phase before a timer could end it ("end") or
    # open its votes ("votes"), and those the replay has taken in the phase so far
    moves: dict[tuple[Phase, str], int] = field(default_factory=dict)
    taken: collections.Counter[Phase] = field(default_factory=collections.Counter)
    marked: dict[tuple[Phase, str], int] = field(default_factory=dict)  # the steps by then
    # the steps (``step``) of each phase: the recorded game's, in order, and the replay's
    script: dict[Phase, list[Step]] = field(default_factory=dict)
    steps: dict[Phase, collections.Counter[Step]] = field(default_factory=dict)
    counted: collections.Counter[Phase] = field(default_factory=collections.Counter)
    wanted: dict[tuple[Phase, int], collections.Counter[Step]] = field(default_factory=dict)
    # the answers (by index) the recorded game had by then: "listen" makes no move
    before: dict[tuple[Phase, str], list[int]] = field(default_factory=dict)
    now: Phase | None = None  # the replay's phase
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hear(self, record: dict) -> None:
        """A record of the replay's own game log (``GameLog.listeners``): when each of
        its phases began, which each answer is timed from."""
        kind = record.get("kind")
        if kind == "timer":
            self.now = (record["round"], record["day"], record["phase"])
            self.began.setdefault(self.now, time.monotonic())
        elif (done := step(record)) is not None and self.now is not None:
            self.steps.setdefault(self.now, collections.Counter())[done] += 1
            self.counted[self.now] += 1
            if kind == "action" and record.get("action") not in TIMED:
                self.taken[self.now] += 1

    def caught_up(self, call: Call) -> bool:
        """Whether the replay's phase of ``call`` has taken every step (``step``) the
        recorded game's had when ``call``'s answer came, whatever their order (or has
        ended)."""
        if self.now is None or self.now != call.phase:
            return True
        # (polled every few ms by each answer waiting: the count first, which is cheap)
        return self.counted[self.now] >= call.steps and not self.unseen(self.now,
                                                                         call.steps)

    def unseen(self, phase: Phase, steps: int) -> collections.Counter[Step]:
        """The first ``steps`` steps of the recorded game's ``phase`` the replay has not
        taken in it (in any order)."""
        wanted = self.wanted.get((phase, steps))
        if wanted is None:
            wanted = self.wanted[phase, steps] = collections.Counter(
                self.script.get(phase, [])[:steps])
        return wanted - self.steps.get(phase, collections.Counter())

    @classmethod
    def read(cls, path: Path) -> Recording:
        from maw.records.accounting import read_log

        try:
            records = read_log(path)
        except ReplayError as exc:
            raise BackendError(f"cannot read the recording: {exc}") from None
        recording = cls(path)
        found: list[Call] = []
        timers: list[tuple[float, Phase]] = [
            (r["t"], (r["round"], r["day"], r["phase"])) for r in records
            if r.get("kind") == "timer"]
        marks = timer_marks(records)
        script = steps_by_phase(records)
        for r in records:
            if r.get("kind") != "llm" or not r.get("requests"):
                continue
            spans = r.get("spans") or []
            for i, (request, text) in enumerate(zip(r["requests"], r["answers"],
                                                    strict=False)):
                start, end = spans[i] if i < len(spans) else (0.0, 0.0)
                found.append(Call(0, request["key"], text, start, end,
                                  request.get("prompt_tokens", 0),
                                  request.get("completion_tokens", 0),
                                  request.get("seconds", 0.0)))
                recording.sent.add(messages_key(r["prompts"][i]))
        if not found:
            raise BackendError(f"{path} has no recorded model calls (a log written before "
                               "requests were recorded, or a game without LLM players)")
        found.sort(key=lambda c: c.end)
        recording.first_start = min(c.start for c in found)
        for i, c in enumerate(found):
            began = [(t, phase) for t, phase in timers if t <= c.end]
            if began:
                t, phase = began[-1]
                c = dataclasses.replace(c, phase=phase, offset=c.end - t,
                                        steps=bisect.bisect_left(
                                            [t for t, _ in script[phase]], c.end))
                for step in ("end", "votes"):
                    mark = marks.get((phase, step))
                    if mark is not None and c.end < mark:
                        recording.before.setdefault((phase, step), []).append(i)
            c = dataclasses.replace(c, index=i)
            recording.calls.setdefault(c.key, collections.deque()).append(c)
        recording.total = len(found)
        recording.moves = moves_before_timers(records)
        recording.script = {phase: [done for _, done in steps]
                            for phase, steps in script.items()}
        recording.marked = {
            (phase, step): bisect.bisect_left([t for t, _ in script[phase]], mark)
            for (phase, step), mark in marks.items()}
        return recording

    def take(self, key: str, messages: list[Message]) -> Call | None:
        with self.lock:
            if self.anchor is None:
                self.anchor = time.monotonic()
            queue = self.calls.get(key)
            if not queue:
                self.missed += 1
                if len(self.misses) < 10:
                    self.misses.append([dict(m) for m in messages])
                return None
            self.answered += 1
            call = queue.popleft()
            self.asked.add(call.index)
            return call

    def release(self, call: Call, given: bool = True) -> None:
        with self.lock:
            if given:
                self.last = (time.monotonic(), call.end)
            self.released.add(call.index)
            while self.first_unreleased in self.released:
                self.first_unreleased += 1

    async def hold(self, phase: Phase, step: str) -> dict | None:
        """A timer of ``phase`` has passed in the replay (``Moderator.held``), or everyone
        who may act is idle (``early_end``), to end it (``step`` "end") or to open the
        day's votes ("votes"): wait until the replay has taken as many moves in the phase
        as the recorded game had by then, and the same steps (``step``: a question a slow
        player has yet to ask is waited for), and has given those of the recorded game's
        answers by then that it has asked for (an answer may make no move). The game moves
        on by the recorded answers, not by how late a loaded machine gives them (at most
        ``HOLD_MOST`` seconds: a replay that strayed may never take them all). Returns
        what was still missing when it stopped waiting, for the game log (``None``: all
        came)."""
        wanted = self.moves.get((phase, step), 0)
        answers = self.before.get((phase, step), [])
        t0 = time.monotonic()
        until = t0 + HOLD_MOST
        def owed() -> list[int]:  # the answers asked for and not yet given (a question
            # never asked holds nothing up: the replay may rightly not ask it)
            return [i for i in answers if i in self.asked and i not in self.released]

        def missing() -> bool:
            return self.taken[phase] < wanted or bool(owed()) or \
                bool(self.unseen(phase, self.marked.get((phase, step), 0)))

        while missing() and self.now == phase and time.monotonic() < until:
            await asyncio.sleep(0.005)
        if not missing():
            return None
        return {"phase": list(phase), "step": step, "moves": wanted,
                "taken": self.taken[phase], "owed": owed(),
                "unseen": [list(s) for s in
                           self.unseen(phase, self.marked.get((phase, step), 0))],
                "now": None if self.now is None else list(self.now),
                "seconds": round(time.monotonic() - t0, 3)}

    def due(self, call: Call) -> float | None:
        """When ``call``'s answer came, on this process's clock: as long after the start
        of its phase as in the recorded game (the phase timers run alike), else (no
        replay log heard) as long after the first call; ``None``: its phase has not
        begun yet."""
        if self.began or call.phase is None:
            if call.phase is None:
                return None if not self.began else time.monotonic()
            began = self.began.get(call.phase)
            return None if began is None else began + call.offset
        assert self.anchor is not None
        return self.anchor + (call.end - self.first_start)


SPACING = 0.05  # seconds: the most a late answer waits after the one before it
HOLD_MOST = 5.0  # seconds: the longest a timer waits for the recorded game's moves
TIMED = frozenset({"EndPhase", "OpenVotes"})  # the moves a timer makes
Step = tuple[str, str, str]


def step(record: Record | dict) -> Step | None:
    """What an answer waits for (``Recording.caught_up``), if ``record`` is one: a move
    (the timers' too), by its name and actor, or a question a player asks its interface
    (``input``: what it has heard by then is in the question), by the player."""
    kind = record.get("kind")
    if kind == "action":
        return ("action", record.get("action", ""), record.get("data", {}).get("actor", ""))
    if kind == "input":
        return ("input", record.get("player", ""), "")
    return None


def timer_marks(records: Sequence[Record]) -> dict[tuple[Phase, str], float]:
    """When, on a game log's clock, each phase ended ("end": its EndPhase, else its
    timer's deadline) and its votes opened ("votes")."""
    marks: dict[tuple[Phase, str], float] = {}
    phase: Phase | None = None
    for r in records:
        kind = r.get("kind")
        if kind == "timer":
            phase = (r["round"], r["day"], r["phase"])
            marks[phase, "end"] = r["t"] + r.get("seconds", 0.0)
        elif phase is None:
            continue
        elif kind == "action" and r.get("action") == "EndPhase":
            marks[phase, "end"] = min(marks[phase, "end"], r["t"])
        elif kind == "event" and r.get("event") == "VotesOpened":
            marks.setdefault((phase, "votes"), r["t"])
    return marks


def steps_by_phase(records: Sequence[Record]
                   ) -> collections.defaultdict[Phase, list[tuple[float, Step]]]:
    """The steps (``step``) each phase of a game log took (the records after its
    ``timer`` record), in order, with when, on the log's clock. Of the questions
    (``input``) only those a model answered count: the latest a player asked before a
    call of its began. One withdrawn before any answer (news came, or the phase ended)
    may or may not be asked again in a replay, by a hair's breadth of timing, and what
    it heard is in the next question anyway. So may a question asked with the view of
    the phase before (the player's last answer came as the phase ended, and it asked
    again before the phase change reached it): in a replay the change may come first."""
    found: list[tuple[Phase, float, Step]] = []
    asked: dict[str, list[tuple[float, int]]] = {}  # a player's questions: when, where
    answered: set[int] = set()
    phase: Phase | None = None
    for r in records:
        kind = r.get("kind")
        if kind == "timer":
            phase = (r["round"], r["day"], r["phase"])
        elif kind == "llm" and r.get("answers"):
            times = asked.get(r.get("player", ""), [])
            seen = (r.get("day"), r.get("phase"))  # the phase of the view it was asked with
            for start, _end in r.get("spans") or []:
                i = bisect.bisect_right(times, (start, len(found))) - 1
                if i >= 0 and (seen[0] is None or found[times[i][1]][0][1:] == seen):
                    answered.add(times[i][1])
        elif phase is not None and (done := step(r)) is not None:
            if kind == "input":
                asked.setdefault(done[1], []).append((r["t"], len(found)))
            found.append((phase, r["t"], done))
    steps: collections.defaultdict[Phase, list[tuple[float, Step]]] = \
        collections.defaultdict(list)
    for i, (at, t, done) in enumerate(found):
        if done[0] != "input" or i in answered:
            steps[at].append((t, done))
    return steps


def moves_before_timers(records: Sequence[Record]) -> dict[tuple[Phase, str], int]:
    """For each phase of a game log, how many moves (``action`` records) it took before
    a timer could end it ("end": all but the timer's own EndPhase) and before its votes
    opened ("votes"); a phase's moves are those after its ``timer`` record."""
    moves: dict[tuple[Phase, str], int] = {}
    phase: Phase | None = None
    count = 0
    for r in records:
        kind = r.get("kind")
        if kind == "timer":
            phase, count = (r["round"], r["day"], r["phase"]), 0
        elif phase is None:
            continue
        elif kind == "action" and r.get("action") not in TIMED:
            count += 1
            moves[phase, "end"] = count
        elif kind == "event" and r.get("event") == "VotesOpened":
            moves.setdefault((phase, "votes"), count)
    return moves

_RECORDINGS: dict[Path, Recording] = {}  # one per log in this process: a shared clock


def recording(path: Path, fresh: bool = False) -> Recording:
    """The recording of ``path`` that every recorded backend of this process shares;
    ``fresh``: read again, for a new replay (one game's answers are each given once)."""
    path = path.resolve()
    if fresh or path not in _RECORDINGS:
        _RECORDINGS[path] = Recording.read(path)
    return _RECORDINGS[path]


