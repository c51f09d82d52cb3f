"""The GameMaster's narrating moderator (a roster's ``[moderator]``): each batch of public
events it has just sent goes to the narrator (``maw.llm.narrator``), in order, and the
line that comes back goes to every player and the Village as a ``narration``, logged with
the numbers of the events it tells (``maw audit`` checks that each was public).

The narrator works beside the game, never in its way: the phases go on while it thinks,
and the round's end waits for its last line (the summary) a bounded time only
(:meth:`Narration.drain`). Without a ``[moderator]`` the GameMaster has no ``Narration``
and speaks in its templates alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

from spade.behaviour import CyclicBehaviour

from maw import engine
from maw.engine import events as ev
from maw.protocol import messages as m


class Narration:
    """The queue of public events to narrate, and the narrator that takes them."""

    def __init__(self, narrator: Any, seconds: float) -> None:
        """``narrator``: a ``maw.llm.narrator.Narrator`` (its ``tells``, ``narrate``,
        ``new_round`` and ``label``)."""
        self.narrator = narrator
        self.seconds = seconds  # the longest a line may take (the model's, and its retries)
        self.queue: asyncio.Queue[tuple[int, int, list[tuple[int, ev.Event]]]] = \
            asyncio.Queue()
        self.round = 0

    def hear(self, round_: int, day: int, numbered: list[tuple[int, ev.Event]]) -> None:
        """A batch of events just sent (with their numbers in the round): the public ones
        that are news go to the narrator."""
        public = self.narrator.tells(numbered)
        if public:
            self.queue.put_nowait((round_, day, public))

    async def drain(self) -> None:
        """Wait for the lines still coming (a round's end: its summary), a bounded time."""
        bound = self.seconds * (self.queue.qsize() + 1) + 5.0
        try:
            await asyncio.wait_for(self.queue.join(), bound)
        except TimeoutError:
            pass  # (the game ends; a line that came too late is not sent)


class Narrating(CyclicBehaviour):
    """Takes the batches in order; sends each line to the players and the Village."""

    async def run(self) -> None:
        gm = self.agent  # (the GameMaster: maw.agents.moderator, which imports this)
        narration = gm.narration
        assert narration is not None
        round_, day, events = await narration.queue.get()
        try:
            if round_ != narration.round:
                narration.round = round_
                narration.narrator.new_round()
            players = sorted(gm.seats)
            line = await narration.narrator.narrate(events, players, gm.config.rules.name)
            if line is None:
                return
            gm.game_log.write("narration", round=round_, day=day, text=line.text, by=line.by,
                              events=list(line.events), summary=line.summary, why=line.why,
                              model=narration.narrator.label, seconds=round(line.seconds, 3),
                              tokens=line.tokens, refused=line.refused)
            body = m.Narration(round=round_, day=day, text=line.text, summary=line.summary)
            await gm.send_bodies(self, [s.jid for s in gm.seats.values()], body)
            await gm.send_body(self, gm.rooms[engine.Room.VILLAGE], body)
        except Exception as exc:  # a narrator's fault must not end the GameMaster
            gm.game_log.write("handler_error", agent=str(gm.jid), behaviour="Narrating",
                              type=None, sender=None, error=f"{type(exc).__name__}: {exc}")
        finally:
            narration.queue.task_done()
