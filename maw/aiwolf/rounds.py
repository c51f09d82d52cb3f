"""aiwolf-nlp-server's talk rounds among the AIWolf agents of one game
(``../shared/aiwolf-nlp-protocol.md`` §5): the agents who take part in a talk (or a
whisper) are shuffled once for the phase; in each round each of them, in that order, gets
one TALK and answers before the next is asked; one who said ``Over``, is out of lines or
in error is asked no more. MAW's own players talk freely in between (their lines reach
the agents in the next TALK's history).

A seat whose turn it is but that is not asked within ``patience`` seconds (its player was
not asked: it has nothing left to say in MAW's eyes) loses that turn, so no agent waits on
another for ever.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Hashable, Iterable


class _Phase:
    def __init__(self, seats: list[str]) -> None:
        self.order = seats  # the phase's order (shuffled once)
        self.out: set[str] = set()  # Over, out of lines, in error
        self.done: set[str] = set()  # answered this round
        self.taken: str | None = None  # the seat whose TALK is out now

    def next(self) -> str | None:
        """Whose turn it is (``None``: nobody is left)."""
        live = [s for s in self.order if s not in self.out]
        if not live:
            return None
        if all(s in self.done for s in live):
            self.done = set()  # a new round
        return next(s for s in live if s not in self.done)


class TalkRounds:
    """The rounds of one game; ``rng`` shuffles each phase's order."""

    def __init__(self, rng: random.Random, seats: Iterable[str], patience: float = 65.0
                 ) -> None:
        self.rng = rng
        self.seats = frozenset(seats)  # the game's AIWolf agents' seats
        self.patience = patience
        self.phases: dict[Hashable, _Phase] = {}
        self.changed = asyncio.Condition()

    def _phase(self, key: Hashable, seats: Iterable[str]) -> _Phase:
        phase = self.phases.get(key)
        if phase is None:
            order = sorted(set(seats))
            self.rng.shuffle(order)
            phase = self.phases[key] = _Phase(order)
        return phase

    async def turn(self, key: Hashable, seat: str, seats: Iterable[str]) -> None:
        """Wait for ``seat``'s turn in phase ``key`` (whose agents are ``seats``), then
        hold it until :meth:`answered`."""
        phase = self._phase(key, seats)
        loop = asyncio.get_running_loop()
        async with self.changed:
            if seat not in phase.order:  # (one the first to come did not know of)
                phase.order.append(seat)
            phase.out.discard(seat)  # (asked to talk: it takes part)
            while True:
                now = phase.next()
                if now == seat and phase.taken is None:
                    phase.taken = seat
                    return
                holder, since = now, loop.time()
                try:
                    await asyncio.wait_for(self.changed.wait(), self.patience)
                except TimeoutError:
                    if phase.next() == holder and phase.taken is None and \
                            loop.time() - since >= self.patience and holder is not None:
                        phase.done.add(holder)  # not asked in time: its turn is lost
                        self.changed.notify_all()

    async def answered(self, key: Hashable, seat: str, out: bool) -> None:
        """``seat`` answered its TALK (``out``: it is asked no more this phase)."""
        phase = self.phases.get(key)
        if phase is None:
            return
        async with self.changed:
            phase.done.add(seat)
            if out:
                phase.out.add(seat)
            if phase.taken == seat:
                phase.taken = None
            self.changed.notify_all()

    async def leave(self, seat: str) -> None:
        """``seat`` takes no more part in any talk (its agent is in error)."""
        async with self.changed:
            for phase in self.phases.values():
                phase.out.add(seat)
                if phase.taken == seat:
                    phase.taken = None
            self.changed.notify_all()
