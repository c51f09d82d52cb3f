"""How a model call meets a server that is away for a moment: it waits and tries again.

A call that fails with ``BackendUnavailable`` (refused, timed out, HTTP 408/409/429/5xx:
a server restarting or overloaded) waits and tries again, ``retries`` times at most, each
wait twice the last (``backoff``, ``2 * backoff``, ... at most ``MAX_WAIT``). Any other
``BackendError`` (a wrong model, a refused key, a crashed embedded model) would fail the
same way again, and is not retried.

``timeout`` bounds the whole call, its tries and its waits: a wait takes at most half of
what is left (the other half is the next try's), and a try still running when the time
is up is cancelled, so a call gives up within ``timeout`` seconds however the server
behaves. The wait for a free slot of a shared server (``Backend.slot``) is not the call's:
it counts against neither, and no slot is held while a call waits to try again.

The waits are fixed, not drawn (no jitter): chance in MAW is a seeded, explicit thing,
and the players who share a server are kept to its slots already.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass

from maw.errors import BackendUnavailable
from maw.llm.base import Backend, Completion, Message

MAX_WAIT = 8.0  # seconds: the longest wait between two tries
# seconds a try may wait for its answer before its backend's ``on_hang`` is told (a hung
# server answers nothing and fails nothing: without this, only the summary's "absent"
# showed it, long after)
HANG_NOTICE = 30.0
LAST_TRY = 0.05  # seconds: less left than this, and a call gives up rather than try


@dataclass(frozen=True)
class Retry:
    """A call's patience (a roster's ``retries``, ``backoff`` and ``timeout``).

    Attributes:
        retries: tries after the first, at most (0: a failure is final).
        backoff: seconds before the first retry; each next wait doubles.
        timeout: seconds the whole call may take, tries and waits included (``None``: no
            bound but the backend's own, and the phase that asked).
    """

    retries: int = 0
    backoff: float = 0.5
    timeout: float | None = None

    def wait(self, tried: int) -> float:
        """Seconds before the next try, after ``tried`` tries failed."""
        return min(self.backoff * 2 ** (tried - 1), MAX_WAIT)


async def send(backend: Backend, messages: list[Message], schema: dict | None,
               max_tokens: int, temperature: float, retry: Retry,
               log: list[dict]) -> Completion:
    """``backend.chat`` under ``retry``, in one of the server's slots each try; every
    retry goes into ``log`` (``{"error": why, "wait": seconds}``) as it is decided, so a
    call cancelled in its wait still shows what it tried. Raises ``BackendUnavailable``
    once the retries or the time are spent, naming how many tries it made."""
    spent = 0.0
    for tried in itertools.count(1):
        left = None if retry.timeout is None else retry.timeout - spent
        async with backend.slot():  # (its wait is not the call's)
            t0 = time.monotonic()
            hang = (asyncio.get_running_loop().call_later(HANG_NOTICE, backend.on_hang,
                                                          HANG_NOTICE)
                    if backend.on_hang is not None and backend.may_hang else None)
            try:
                async with asyncio.timeout(left):
                    return await backend.chat(messages, schema, max_tokens, temperature)
            except TimeoutError:
                raise BackendUnavailable(
                    f"{backend.describe()}: no answer within the call's timeout of "
                    f"{retry.timeout:g} s ({tried} tries)") from None
            except BackendUnavailable as exc:
                error = exc
            except asyncio.CancelledError:  # (the phase moved on: the call took its time)
                if not backend.times_own_cuts:
                    backend.cancelled_spans.append((t0, time.monotonic()))
                raise
            finally:
                if hang is not None:
                    hang.cancel()
                spent += time.monotonic() - t0
        if not retry.retries:
            raise error
        wait = retry.wait(tried)
        if retry.timeout is not None:
            wait = min(wait, (retry.timeout - spent) / 2)
            if wait < LAST_TRY / 2:
                raise BackendUnavailable(f"{error} (gave up after {tried} tries in the "
                                         f"call's timeout of {retry.timeout:g} s)") from error
        if tried > retry.retries:
            raise BackendUnavailable(f"{error} (gave up after {tried} tries)") from error
        log.append({"error": str(error), "wait": round(wait, 3)})
        await asyncio.sleep(wait)
        spent += wait
    raise AssertionError("unreachable")  # (itertools.count never ends)
