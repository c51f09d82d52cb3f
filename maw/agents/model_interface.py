"""ModelInterfaceAgent: answers a player's ``get_input`` with a decider's choice.

Algorithm 1 of the design document: wait a random time up to ``max_wait`` seconds, hand
the unread messages and the options to the decider, and answer ``listen`` when it has
nothing to do. The decider sees only the player's own view and what the player heard.

With a ``pace`` (a person sits at the table), the player also acts at a person's pace:
never in the first seconds of a phase, never twice within seconds, never at once on the
news it answers (:class:`Pace`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from maw import engine
from maw.agents.base import GameLog, MawAgent
from maw.agents.guards import Guarded
from maw.agents.transport import bare, of_types
from maw.engine.actions import SPEC_OF
from maw.engine.events import Chatted
from maw.policies.base import AsyncDecider, Decider
from maw.policies.memory import SetMemory
from maw.protocol import convert, render
from maw.protocol import heard as h
from maw.protocol import messages as m

log = logging.getLogger("maw.agents")
# the moves (an action, not a listen) an AI player makes in one phase at most: asked again
# at every message, a decider that always answers (a vote that flips between two targets)
# flooded a hosted game, 1,389 votes in 6 s; the rule players make a few, a model player
# at most its ruleset's lines and a vote or two
MOVES_A_PHASE = 40
# the phases in which every living player is asked (a model asked then tells nothing of
# its role): the day's talk and vote
PUBLIC_PHASES = ("day", "vote")


def action_body(action: engine.Action | None) -> m.Body:
    """The wire form of a decider's choice (``None``: listen)."""
    if action is None:
        return m.Listen()
    spec = SPEC_OF[type(action)]
    if type(action) is engine.Chat:
        return m.Chat(message=action.text, room=action.room.value)
    if type(action) is engine.Whisper:
        return m.Whisper(target=action.target, message=action.text)
    if spec.target:
        return m.ACTION_TYPES[spec.name](target=action.target)  # type: ignore
    return m.ACTION_TYPES[spec.name]()


class DeciderFactory(Protocol):
    """Makes a seat's decider for a round, given the role the seat was dealt in it
    (its own, from its own view; ``None`` where no view has come yet): a roster's model
    settings may hang on it (``maw.hosting.seats.deciders``)."""

    def __call__(self, round_: int, role: str | None = None) -> Decider: ...


class Pace:
    """When an AI player may act, at a person's pace: each phase (and each opening of the
    votes) starts with a wait of ``low`` to ``high`` seconds, each action is followed by
    another, and an answer comes at least ``low / 2`` to ``low`` seconds after the
    question that it answers first arrived (a question superseded by newer news keeps its
    time: a busy chat does not starve the player). The waits are drawn from ``rng``."""

    def __init__(self, low: float, high: float, rng: random.Random) -> None:
        self.low, self.high, self.rng = low, high, rng
        self.phase: tuple | None = None
        self.ready_at = 0.0  # time.monotonic() before which it does not act
        self.asked_at: float | None = None  # the first question not yet answered
        self.reaction = 0.0

    def wait(self, phase: tuple, now: float) -> float:
        """Seconds to wait before deciding on a question of ``phase`` that came ``now``."""
        if phase != self.phase:
            self.phase, self.ready_at = phase, now + self.rng.uniform(self.low, self.high)
        if self.asked_at is None:
            self.asked_at, self.reaction = now, self.rng.uniform(self.low / 2, self.low)
        return max(0.0, max(self.ready_at, self.asked_at + self.reaction) - now)

    def answered(self, acted: bool, now: float) -> None:
        self.asked_at = None
        if acted:
            self.ready_at = now + self.rng.uniform(self.low, self.high)


class ModelInterfaceAgent(MawAgent):
    """``new_decider(round, role)`` makes the decider of each round: a round is a new
    game, and a decider must not carry last round's roles and suspicions into it. It is
    made when the round's first question comes, which brings the player's own view and
    so its role: the model it plays with may hang on the role (a roster's groups), and
    nothing but its own view is read for it."""

    def __init__(self, jid: str, password: str, name: str, new_decider: DeciderFactory,
                 game_log: GameLog, max_wait: float = 0.0, seed: int = 0,
                 port: int = 5222, pace: tuple[float, float] | None = None,
                 memory: SetMemory | None = None) -> None:
        super().__init__(jid, password, port=port)
        self.player_name = name
        self.new_decider = new_decider
        # what its deciders learn of the others from round to round (None: nothing)
        self.memory = memory
        self.round = 1
        self.decider: Decider | None = None  # (made by the round's first question)
        self.logged = 0  # LLM call records already written to the game log
        self.cut_logged = 0  # cancelled calls' spans already written
        # its model's failure to answer, written to the log: in a phase where everyone
        # acts (True), in one where only some do (False)
        self.told_down: set[bool] = set()
        self.told_waiting: set[bool] = set()  # and a call that only waits (a hung server)
        self.public = False  # whether the question it answers is of a phase where all act
        self.finished = False  # the game's end logged (``log_unfinished``): nothing after
        self.past: list[dict] = []  # the LLM records of earlier rounds
        self.game_log = game_log
        self.max_wait = max_wait
        self.rng = random.Random(seed)
        # (its own stream: the pace must not change what Algorithm 1's waits draw)
        self.pace = Pace(*pace, random.Random(f"{seed}:pace")) if pace else None
        self.context_dir: Path | None = None  # where each round's LLM context is saved
        self.belief_key: tuple[int, int, str] | None = None  # the phase of belief_now
        self.belief_now: dict[str, float] | None = None
        # what a model has heard but not yet read: the lines of questions that were
        # cancelled or superseded before it answered, carried into the next question
        self.unread: list[str] = []

    def take_in(self, body: m.GetInput) -> None:
        """What a question brings, taken in as it comes, before any wait: the decider
        observes each chat line as it was said (no English to parse), and a model will
        read the messages as they were written, those of the questions it never answered
        first. So a question withdrawn or superseded while its answer waits its turn
        (``max_wait``, the pace) loses nothing (its lines were lost), and what the model
        reads next does not hang on whether the withdrawal came before its call began or
        after (a replay strayed by that)."""
        if self.decider is None or body.round > self.round:
            if self.decider is not None:
                self.retire(body.heard)
            self.round = max(self.round, body.round)
            role = body.view.role if body.view is not None else None
            self.decider = self.new_decider(self.round, role)
            backend = getattr(getattr(self.decider, "llm", None), "backend", None)
            if backend is not None:  # (one backend a seat: see maw.hosting.seats.deciders)
                backend.on_hang = self.note_hang
            if self.memory is not None:
                self.memory.lend(self.decider)
            self.logged = 0
            self.unread = []
        self.public = body.view is not None and body.view.phase in PUBLIC_PHASES
        if body.completions and isinstance(self.decider, AsyncDecider):
            self.decider.supplied(body.completions)
        for record in body.heard:
            if isinstance(record, h.Said):
                self.decider.observe(Chatted(record.day, engine.Room(record.room),
                                             record.speaker, record.text))
        if self.decider.asynchronous:
            self.unread += [render.heard(r) for r in body.heard
                            if not (isinstance(r, h.Notice) and r.lobby)]

    def delay(self, body: m.GetInput) -> tuple[float, float]:
        """How long the answer to ``body`` waits (up to ``max_wait``) and until when, on
        ``time.monotonic()``, at the latest (the pace), drawn as the question comes: a
        question withdrawn before its answer began draws its number like any other, so
        what a player's later waits draw does not hang on when a withdrawal came."""
        now = time.monotonic()
        wait = self.rng.uniform(0, self.max_wait) if self.max_wait > 0 else 0.0
        ready = now
        if self.pace is not None and body.view is not None:
            v = body.view
            ready += self.pace.wait((body.round, v.day, v.phase, v.vote_round, v.votes_open),
                                    now)
        return wait, ready

    def note_beliefs(self, view: engine.PlayerView) -> None:
        """Keep the decider's latest beliefs of this phase; the last of each phase goes
        to the game log (``beliefs`` records) when the next phase begins."""
        if self.decider is None:
            return
        try:
            belief = self.decider.beliefs(view)
        except Exception:  # a decider's bug must not cost the answer
            log.exception("beliefs of %s", self.player_name)
            return
        if belief is None:
            return
        key = (self.round, view.day, view.phase)
        if self.belief_key is not None and key != self.belief_key:
            self.flush_beliefs()
        self.belief_key, self.belief_now = key, belief

    def flush_beliefs(self) -> None:
        if self.belief_now is not None and self.belief_key is not None:
            round_, day, phase = self.belief_key
            self.game_log.write("beliefs", player=self.player_name, round=round_, day=day,
                                phase=phase, beliefs={n: round(p, 4) for n, p in
                                                      sorted(self.belief_now.items())})
        self.belief_now = None

    def retire(self, heard: Sequence[h.Heard] = ()) -> None:
        """The round is over: its conversation saved, its model calls kept, and what the
        round showed of the others learnt (``memory``: the roles its end told all, in
        ``heard``, the next round's first news)."""
        if self.memory is not None:
            for record in heard:
                if isinstance(record, h.GameEnded):
                    self.memory.learn_from(self.decider, record.roles)
                    self.game_log.write("remembered", player=self.player_name,
                                        round=self.round, games=self.memory.learnt,
                                        claims=self.memory.weighed)
        self.save_context()
        tally = getattr(self.decider, "tally", None)
        if tally is not None:
            self.past.extend(tally.log)

    def save_context(self) -> Path | None:
        """Save the round's model conversation (``LLM.save``: the design document's "for
        reuse and logging purposes") in ``context_dir``, if the decider has one."""
        llm = getattr(self.decider, "llm", None)
        if self.context_dir is None or llm is None or not getattr(llm, "context", None):
            return None
        path = self.context_dir / f"context-{self.player_name}-round{self.round}.json"
        try:
            llm.save(path)
        except OSError as exc:  # the game goes on; the log says why
            self.game_log.write("agent_error", agent=str(self.jid),
                                error=f"cannot save the context to {path}: {exc}")
            return None
        return path

    def never_answered(self) -> bool:
        """A seat with a model that gave no answer all game (its server hung, or gone)."""
        llm = getattr(self.decider, "llm", None)
        return getattr(llm, "backend", None) is not None and self.usage()["calls"] == 0

    def usage(self) -> dict:
        """LLM calls of the whole game: calls, tokens, seconds, and how they ended."""
        from maw.llm.telemetry import summarize

        tally = getattr(self.decider, "tally", None)
        return summarize(self.past + (list(tally.log) if tally else []))

    def log_llm(self) -> None:
        """Write the decider's LLM records not yet in the game log, and the calls that a
        cancel cut short after they had started (they took the model's time)."""
        if self.finished:  # (a decision cancelled as the agents stop: already unfinished)
            return
        tally = getattr(self.decider, "tally", None)
        for record in tally.log[self.logged:] if tally else []:
            self.write_llm(record)
        self.logged = len(tally.log) if tally else 0
        backend = getattr(getattr(self.decider, "llm", None), "backend", None)
        spans = getattr(backend, "cancelled_spans", [])
        for a, b in spans[self.cut_logged:]:
            self.write_llm({"player": self.player_name, "calls": 1, "tokens": 0,
                            "seconds": round(b - a, 3), "spans": [[a, b]],
                            "outcome": "cut short"})
        self.cut_logged = len(spans)

    def log_unfinished(self) -> None:
        """At the game's end: the records not yet written, and a decision in progress
        (its calls took the model's time) as ``unfinished``; the last beliefs."""
        self.flush_beliefs()
        self.log_llm()
        record = getattr(self.decider, "pending", None)
        if record and record.get("spans"):
            self.write_llm({**record, "outcome": "unfinished"})
        # the decision in progress is cancelled as the agents stop: logged again, as
        # "cancelled", it was one call twice (a replay counted an answer it never gave)
        self.finished = True

    def write_llm(self, record: dict) -> None:
        start = self.game_log.start  # the spans on the log's clock
        spans = [[round(a - start, 4), round(b - start, 4)] for a, b in record.get("spans", [])]
        self.game_log.write("llm", **{**record, "spans": spans})
        public = record.get("phase") in PUBLIC_PHASES
        if record.get("backend_error") and public not in self.told_down:
            # (a hung or gone server: once, where the table and the host see it, not only
            # in the summary's fallbacks at the end; one found in a phase where only some
            # players act, such as a night, is written apart: its time alone tells that
            # this player acts then, so the table's transcript leaves it out)
            self.told_down.add(public)
            self.game_log.write("model_down", player=self.player_name,
                                error=record["backend_error"], public=public)

    def note_hang(self, seconds: float) -> None:
        """A call of its model has had no answer for ``seconds`` (``Backend.on_hang``):
        said once a game where the table and the host see it (as ``write_llm`` says a
        failure), for a hung server fails nothing, and the seat's turns only wait."""
        if self.finished or self.public in self.told_waiting:
            return
        self.told_waiting.add(self.public)
        backend = getattr(getattr(self.decider, "llm", None), "backend", None)
        where = backend.describe() if backend is not None else "its model"
        self.game_log.write("model_down", player=self.player_name,
                            error=f"{where}: no answer yet", public=self.public,
                            waiting=seconds)

    async def setup(self) -> None:
        self.add_behaviour(SendInput(), of_types("get_input", "cancel"))
        self.add_catch_all(("get_input", "cancel"))


class SendInput(Guarded):
    """Answers each question in a task of its own, so that a ``cancel`` from the player
    (the phase ended: the question is moot) stops it before it takes a model's turn; a
    newer question supersedes an older one the same way. Only its own player may ask
    (with proof: the player is its authority)."""

    receive_timeout = 30.0

    async def on_start(self) -> None:
        self.task: asyncio.Task | None = None
        self.thread: str | None = None
        self.ending: set[asyncio.Task] = set()  # answers withdrawn, not yet ended
        # (round, day, phase, vote round) -> the moves its decider made in that phase
        self.moves: tuple[tuple, int] = ((), 0)

    async def on_end(self) -> None:
        for task in (self.task, *self.ending):
            if task is not None:
                task.cancel()

    async def handle(self, msg, body: m.Body) -> None:
        agent: ModelInterfaceAgent = self.agent
        if agent.authorities and bare(msg.sender) not in agent.authorities:
            agent.game_log.write("refused", sender=bare(msg.sender),
                                 reason="not this interface's player")
            return
        if isinstance(body, m.Cancel):
            if msg.thread == self.thread:
                self.drop("cancelled")
            return
        if not isinstance(body, m.GetInput):
            return
        if body.purpose == "name":
            await agent.send_body(self, str(msg.sender.bare),
                                  m.NameChoice(name=agent.player_name), msg.thread)
            return
        self.drop("superseded")
        self.thread = msg.thread
        # (now, not in the task: it may be cancelled before it ever runs)
        try:
            agent.take_in(body)
        except Exception as exc:  # a broken decider must not cost the answer
            log.exception("decider of %s failed", agent.player_name)
            agent.game_log.write("decider_error", player=agent.player_name, error=repr(exc))
        wait, ready = agent.delay(body)
        self.task = asyncio.create_task(self.answer(msg, body, wait, ready,
                                                    tuple(self.ending)))

    def drop(self, why: str) -> None:
        agent: ModelInterfaceAgent = self.agent
        if self.task is not None and not self.task.done():
            self.task.cancel()
            self.ending.add(self.task)
            self.task.add_done_callback(self.ending.discard)
            agent.game_log.write("dropped", player=agent.player_name, why=why)
        self.task = None

    async def answer(self, msg, body: m.GetInput, wait: float, ready: float,
                     before: tuple[asyncio.Task, ...] = ()) -> None:
        """Answer ``body`` after ``wait`` seconds and not before ``ready`` (``delay``),
        once the withdrawn answers ``before`` it have ended: one decision at a time (a
        withdrawn one mostly ends at once; a replay's may still give its recorded
        answer, and the next must not read what that one read)."""
        agent: ModelInterfaceAgent = self.agent
        asked = time.monotonic()
        if before:
            await asyncio.wait(before)
        await asyncio.sleep(wait)
        paced = max(0.0, ready - time.monotonic())
        await asyncio.sleep(paced)
        wait += paced
        reply: m.Body
        view = body.view
        phase = (body.round, view.day, view.phase, view.vote_round) if view else ()
        made = self.moves[1] if self.moves[0] == phase else 0
        try:
            if made >= MOVES_A_PHASE:  # a decider that never settles: it listens now
                reply = m.Listen()
            else:
                reply = action_body(await self.choose(agent, body))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken decider must not take the player down
            log.exception("decider of %s failed", agent.player_name)
            agent.game_log.write("decider_error", player=agent.player_name, error=repr(exc))
            reply = m.Listen()
        if not isinstance(reply, m.Listen) and phase:
            self.moves = (phase, made + 1)
            if made + 1 == MOVES_A_PHASE:
                agent.game_log.write("decider_error", player=agent.player_name, error=(
                    f"{MOVES_A_PHASE} moves in one phase: it listens until the next (a "
                    "decider asked at every message must return None when it has "
                    "nothing new to do)"))
        await agent.send_body(self, str(msg.sender.bare), reply, msg.thread)
        if agent.pace is not None:
            agent.pace.answered(not isinstance(reply, m.Listen), time.monotonic())
        # for the time split (maw.records.accounting)
        agent.game_log.write("turn", player=agent.player_name, wait=round(wait, 4),
                             seconds=round(time.monotonic() - asked, 4))

    async def choose(self, agent: ModelInterfaceAgent,
                     body: m.GetInput) -> engine.Action | None:
        view = body.view
        me = agent.player_name
        legal = tuple(convert.option_to_engine(o, me) for o in body.options)
        if not legal:
            return None
        decider = agent.decider
        if decider is None:  # (it could not be made: a decider_error says why)
            return None
        if isinstance(decider, AsyncDecider):
            if view is None:
                return None
            try:
                read = list(agent.unread)
                action = await decider.adecide(view, legal, read)
                # read (a cancel skips this: they are read next time); what the next
                # question brought meanwhile (a withdrawn question's answer may still
                # come: ``maw.records.model_calls``) is for the next time
                if agent.unread[:len(read)] == read:
                    del agent.unread[:len(read)]
                return action
            finally:  # cancelled too: its record says so
                agent.log_llm()
                agent.note_beliefs(view)
        action = decider.decide(view, legal)
        if view is not None:
            agent.note_beliefs(view)
        return action
