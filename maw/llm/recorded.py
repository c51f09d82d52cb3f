"""The ``recorded`` backend: a game log's model calls, answered again without a model
(``maw game --replay-llm LOG``), so that any LLM game becomes a regression test. The
recording, and when each answer is due, is ``maw.records.model_calls``'s (read its
docstring): this is the backend that gives the answers at those times."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from maw.errors import BackendError
from maw.llm.base import Backend, Completion, Message, NoOptions, register_backend
from maw.records.model_calls import HOLD_MOST, SPACING, Call, messages_key, recording


@register_backend
class RecordedBackend(Backend):
    """See the module docstring; ``model`` is the path of the recorded game log."""

    name = "recorded"
    measured = False  # (its answers come when the recorded game's came)
    # no model runs: a call cut short took no model's time (a request the recording
    # lacks waits for its cancel, and was counted as a model's busy seconds)
    times_own_cuts = True
    # no server to hang: an answer comes when the recorded one came (a notice of a long
    # wait would be one the recorded game may not have had)
    may_hang = False
    # no server to spare: an answer waiting its turn, or a request the recording lacks
    # (which waits until its question is withdrawn), must not hold a slot that the answer
    # it waits for needs (with the 4 slots of a server, a replay stalled until HOLD_MOST)
    default_parallel = 0

    class Options(NoOptions):
        pace: bool = True
        # how long a request the recording lacks waits before it fails (its phase ends
        # long before, and cancels it)
        miss_seconds: float = Field(3600.0, gt=0)

    def __init__(self, model: str = "", base_url: str | None = None,
                 api_key: str | None = None, pace: bool = True,
                 miss_seconds: float = 3600.0, **options: Any) -> None:
        if not model:
            raise BackendError("the recorded backend needs the game log to answer from "
                               "(model = LOG)")
        options.pop("parallel", None)  # (the recorded game's server's: see above)
        super().__init__(model, None, None, **options)
        self.recording = recording(Path(model))
        self.pace = pace
        self.miss_seconds = miss_seconds

    async def check(self) -> None:
        return None  # the recording was read when the backend was made

    def count_tokens(self, messages: list[Message]) -> int:
        """0 for a context the recording sent as it is, else more than any window: the
        replay truncates a context exactly as the recorded model's tokenizer did."""
        return 0 if messages_key(messages) in self.recording.sent else 1 << 30

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        from maw.llm.base import request_key

        call = self.recording.take(request_key(messages, schema, max_tokens, temperature),
                                   messages)
        if call is None:
            # the recorded game never had this answer: the phase ended first (the caller
            # is cancelled then), or the replay has strayed from the recording
            await asyncio.sleep(self.miss_seconds)
            raise BackendError(f"the request is not in the recording {self.model}")
        try:
            if self.pace:
                try:
                    await self.wait_turn(call)
                except asyncio.CancelledError:
                    await self.answered_anyway(call)
        except BaseException:  # cancelled: the answer holds up no later one
            self.recording.release(call, given=False)
            raise
        self.recording.release(call)
        return Completion(call.text, call.prompt_tokens, call.completion_tokens,
                          call.seconds)

    async def answered_anyway(self, call: Call) -> None:
        """The question was withdrawn (its phase ended, or a newer one came) before this
        replay's answer was due, yet the recorded game has the answer: there the model
        answered before the withdrawal reached it, and the answer (too late to count)
        stayed in the player's conversation. So it is given here too, when due, if that
        is soon (2 s); else the cancellation stands."""
        due = self.recording.due(call)
        if due is None or due - time.monotonic() > 2.0:
            raise asyncio.CancelledError
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        await asyncio.sleep(max(0.0, due - time.monotonic()))

    async def wait_turn(self, call: Call) -> None:
        """Wait until ``call``'s answer is due: when it came, after the answers that came
        before it (a replay running late must not swap two answers the recorded game had
        in one order; an earlier answer nobody asks for holds it up 1 s at most), once
        its phase has taken the steps it had then (``Recording.caught_up``; a replay that
        strayed waits ``HOLD_MOST`` at most), and as long after the last answer given as
        it came after it then, up to ``SPACING`` (a backlog comes apart, so the game
        takes each before the next, as it did, and the replay does not fall further
        behind)."""
        asked = time.monotonic()
        while (due := self.recording.due(call)) is None:
            if time.monotonic() > asked + self.miss_seconds:
                raise BackendError("the replay never reached the phase of the recorded "
                                   f"answer in {self.model}")
            await asyncio.sleep(0.01)
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        while self.recording.first_unreleased < call.index and time.monotonic() < due + 1:
            await asyncio.sleep(0.002)
        # a player slow to send the move of an earlier answer, or to ask again, on a
        # loaded machine: its move must not arrive after this answer's, nor its question
        # hear what this answer says
        while not self.recording.caught_up(call) and time.monotonic() < due + HOLD_MOST:
            await asyncio.sleep(0.002)
        last = self.recording.last
        if last is not None and call.end > last[1]:
            gap = min(call.end - last[1], SPACING)
            await asyncio.sleep(max(0.0, last[0] + gap - time.monotonic()))

    def describe(self) -> str:
        return f"recorded:{self.model}"
