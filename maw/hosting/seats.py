"""Seats and their deciders: who plays each AI seat, from a roster or by default, and a
fresh decider for each round, with the model settings of the role the seat was dealt
(a roster's ``[llm.wolves]``, ``[llm.village]``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from maw.engine.state import NAMES, default_names
from maw.errors import MawError
from maw.hosting.roster import LLMSpec, Roster, group_of
from maw.policies import Decider, ModelSeat, decider_kind, make_decider

if TYPE_CHECKING:  # (the agents, SPADE's, load only where a game is played)
    from maw.agents.model_interface import DeciderFactory
    from maw.agents.narration import Narration

DEFAULT_NAMES = list(NAMES)  # (the engine's: maw.engine.state)


@dataclass
class Seat:
    """An AI seat: name, decider and how long it may think before answering; an "llm"
    seat also has its model (``llm``; ``groups``: its settings in each group its roster
    sets, by the side of the role it is dealt: ``llm_for``), persona and prompts folder."""

    name: str
    decider: str = "rule"
    max_wait: float = 0.0
    llm: LLMSpec | None = None
    persona: str = ""
    prompts: str | None = None
    # (low, high) seconds: act at a person's pace (``maw.agents.model_interface.Pace``),
    # in a game where people sit
    pace: tuple[float, float] | None = None
    # an "aiwolf" seat: the AIWolf agent's connection (maw.aiwolf.link.Link), its team
    # and the game's AIWolf id
    link: Any = None
    team: str = ""
    game_id: str = ""
    groups: dict[str, LLMSpec] = field(default_factory=dict)
    # keep what it learns of the others from round to round (maw.policies.memory)
    set_memory: bool = False

    def llm_for(self, role: str | None) -> LLMSpec | None:
        """Its model settings once it is dealt ``role`` (``None``: not yet dealt)."""
        group = group_of(role)
        return self.groups.get(group, self.llm) if group else self.llm

    def specs(self) -> list[LLMSpec]:
        """Every model settings it may play with, whatever it is dealt."""
        return [s for s in (self.llm, *self.groups.values()) if s is not None]


@dataclass
class Moderator:
    """A roster's narrating moderator (``[moderator]``): its model settings, whether it
    sums the game up, and the roster's prompts folder."""

    llm: LLMSpec
    summary: bool = True
    prompts: str | None = None


def moderator_of(roster: Roster) -> Moderator | None:
    spec = roster.moderator_llm()
    if spec is None or roster.moderator is None:
        return None
    return Moderator(spec, roster.moderator.summary, roster.prompts)


def narration_of(moderator: Moderator | None) -> Narration | None:
    """The GameMaster's narration with ``moderator``'s model (``None``: none)."""
    if moderator is None:
        return None
    from maw.agents.narration import Narration
    from maw.llm import make_backend
    from maw.llm.narrator import narrator_for
    from maw.llm.prompts import Prompts
    from maw.llm.retry import Retry

    spec = moderator.llm
    timeout = spec.timeout or NARRATION_SECONDS
    narrator = narrator_for(
        make_backend(spec.backend, **spec.backend_config()),
        Prompts(Path(moderator.prompts) if moderator.prompts else None),
        temperature=spec.temperature, max_tokens=spec.max_tokens,
        max_chars=spec.max_chars,
        retry=Retry(spec.retries, spec.backoff, timeout), summary=moderator.summary)
    return Narration(narrator, timeout)


# the longest a narrator's line may take, tries included, when its roster sets no timeout
NARRATION_SECONDS = 60.0


def seats_from_roster(roster: Roster, players: int, fill: str | None = None) -> list[Seat]:
    """The first ``players`` seats of ``roster``; a roster too short is an error, unless
    ``fill`` names a decider for the seats it lacks."""
    if len(roster.player) < players and fill is None:
        raise MawError(f"the roster seats {len(roster.player)} player"
                       f"{'s' * (len(roster.player) != 1)}, not {players}")
    seats = []
    for p in roster.player[:players]:
        model = decider_kind(p.decider).needs_model
        llm = roster.llm_for(p) if model else None
        wait = p.max_wait if p.max_wait is not None else (llm.max_wait if llm else 0.0)
        decider = f"{p.decider}:{p.policy}" if p.policy is not None else p.decider
        seats.append(Seat(p.name, decider, wait, llm, p.persona, roster.prompts,
                          groups=roster.groups_for(p) if model else {}))
    taken = {s.name for s in seats}
    spare = (s for s in default_seats(players + len(taken)) if s.name not in taken)
    for _ in range(players - len(seats)):
        seats.append(Seat(next(spare).name, fill or "rule"))
    return seats


async def check_backends(seats: Sequence[Seat], moderator: Moderator | None = None
                         ) -> list[str]:
    """Ask every distinct backend of ``seats`` (and the narrating ``moderator``'s) whether
    it can answer, before any agent starts: a roster naming an Ollama server that is not
    running fails now, saying so."""
    from maw.llm import make_backend

    seen: dict[str, str] = {}
    specs = [spec for seat in seats for spec in seat.specs()]  # (its groups' too)
    for spec in specs + ([moderator.llm] if moderator else []):
        key = model_key(spec)
        if key not in seen:
            backend = make_backend(spec.backend, **spec.backend_config())
            try:
                await backend.check()
            finally:
                await backend.aclose()
            seen[key] = backend.describe()
    return sorted(set(seen.values()))


def model_key(spec: LLMSpec) -> str:
    """What tells one model from another: its backend, model, server and options."""
    return spec.model_dump_json(include={"backend", "model", "base_url", "options"})


@dataclass
class ModelTime:
    """What one model costs the game: seconds a typical call takes (measured), calls its
    server answers at once, and the players who share it."""

    model: str
    seconds: float
    at_once: int
    players: int

    def seconds_for(self, calls: float) -> float:
        """How long ``calls`` calls of each of its players take, in turn."""
        return self.players * calls * self.seconds / self.at_once


async def time_models(seats: Sequence[Seat]) -> list[ModelTime]:
    """One typical call of each distinct model of ``seats`` (``Backend.seconds_per_call``),
    with the players who share it: what the phases' timers are fitted to. A model that
    answers from a queue or a recording is not timed. A seat whose model hangs on the
    role it is dealt counts as a player of each model it may get: the timers are fitted
    before the deal, and a phase whose players are all done ends then, long or not."""
    from maw.llm import make_backend

    out: dict[str, ModelTime] = {}
    for seat in seats:
        mine: dict[str, LLMSpec] = {}
        for spec in seat.specs():
            mine.setdefault(model_key(spec), spec)
        for key, spec in mine.items():
            if key not in out:
                backend = make_backend(spec.backend, **spec.backend_config())
                try:
                    seconds = await backend.seconds_per_call()
                finally:
                    await backend.aclose()
                if seconds is None:
                    continue
                out[key] = ModelTime(backend.describe(), seconds, backend.at_once(), 0)
            out[key].players += 1
    return list(out.values())


def default_seats(n: int, decider: str = "rule") -> list[Seat]:
    return [Seat(name, decider) for name in default_names(n)]


def completion_for(seat: Seat) -> Callable[[Any, list[str]], dict] | None:
    """A model's seat: what makes the chat completion each of its questions carries
    (``maw.llm.prompts.completion``: its prompts folder, the model of the role it was
    dealt); ``None`` for any other seat (its questions carry none)."""
    if seat.decider == "aiwolf" or not decider_kind(seat.decider).needs_model:
        return None
    from maw.llm.prompts import Prompts, completion

    prompts = Prompts(Path(seat.prompts) if seat.prompts else None)

    def made(view: Any, lines: list[str]) -> dict:
        spec = seat.llm_for(view.role) or LLMSpec()
        return completion(prompts, view, lines, spec.model)
    return made


def deciders(seat: Seat, seed: int) -> DeciderFactory:
    """A fresh decider for each round of ``seat``, each with its own reproducible stream
    (a seat with a model: a fresh conversation each round, with the settings of the
    role it was dealt, ``Seat.llm_for``; one backend per model for the game)."""
    if seat.decider != "aiwolf" and decider_kind(seat.decider).needs_model:
        from maw.llm import LLM, make_backend
        from maw.llm.prompts import Prompts
        from maw.llm.retry import Retry

        kind = decider_kind(seat.decider)
        assert kind.with_model is not None
        prompts = Prompts(Path(seat.prompts) if seat.prompts else None)
        with_model = kind.with_model
        backends: dict[str, Any] = {}

        def new_with_model(round_: int, role: str | None = None) -> Decider:
            spec = seat.llm_for(role) or LLMSpec()
            key = model_key(spec)
            if key not in backends:
                backends[key] = make_backend(spec.backend, **spec.backend_config())
            llm = LLM(backends[key], window=spec.window,
                      retry=Retry(spec.retries, spec.backoff, spec.timeout))
            return with_model(ModelSeat(seat.name, f"{seed}:{round_}", llm, prompts,
                                        seat.persona, spec))
        return new_with_model

    if seat.decider == "aiwolf":
        from maw.aiwolf.bridge import AiwolfDecider

        def new_aiwolf(round_: int, role: str | None = None) -> Decider:
            return AiwolfDecider(seat.name, random.Random(f"{seed}:{round_}"), seat.link,
                                 seat.game_id, round_)
        return new_aiwolf

    def new(round_: int, role: str | None = None) -> Decider:
        return make_decider(seat.decider, seat.name, random.Random(f"{seed}:{round_}"))
    return new
