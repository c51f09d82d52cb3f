"""Seats and their deciders: who plays each AI seat, from a roster or by default, and a
fresh decider for each round (an LLM seat falls back on the rule player when its model
cannot answer)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maw.engine.state import NAMES, default_names
from maw.errors import MawError
from maw.hosting.roster import LLMSpec, Roster
from maw.policies import Decider, ModelSeat, decider_kind, make_decider

DEFAULT_NAMES = list(NAMES)  # (the engine's: maw.engine.state)


@dataclass
class Seat:
    """An AI seat: name, decider and how long it may think before answering; an "llm"
    seat also has its model (``llm``), persona and prompts folder."""

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


def seats_from_roster(roster: Roster, players: int, fill: str | None = None) -> list[Seat]:
    """The first ``players`` seats of ``roster``; a roster too short is an error, unless
    ``fill`` names a decider for the seats it lacks."""
    if len(roster.player) < players and fill is None:
        raise MawError(f"the roster seats {len(roster.player)} players, not {players}")
    seats = []
    for p in roster.player[:players]:
        llm = roster.llm_for(p) if decider_kind(p.decider).needs_model else None
        wait = p.max_wait if p.max_wait is not None else (llm.max_wait if llm else 0.0)
        decider = f"{p.decider}:{p.policy}" if p.policy is not None else p.decider
        seats.append(Seat(p.name, decider, wait, llm, p.persona, roster.prompts))
    taken = {s.name for s in seats}
    spare = (s for s in default_seats(players + len(taken)) if s.name not in taken)
    for _ in range(players - len(seats)):
        seats.append(Seat(next(spare).name, fill or "rule"))
    return seats


async def check_backends(seats: Sequence[Seat]) -> list[str]:
    """Ask every distinct backend of ``seats`` whether it can answer, before any agent
    starts: a roster naming an Ollama server that is not running fails now, saying so."""
    from maw.llm import make_backend

    seen: dict[str, str] = {}
    for seat in seats:
        if seat.llm is None:
            continue
        key = seat.llm.model_dump_json(include={"backend", "model", "base_url", "options"})
        if key not in seen:
            backend = make_backend(seat.llm.backend, **seat.llm.backend_config())
            await backend.check()
            seen[key] = backend.describe()
    return sorted(set(seen.values()))


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
    answers from a queue or a recording is not timed."""
    from maw.llm import make_backend

    out: dict[str, ModelTime] = {}
    for seat in seats:
        if seat.llm is None:
            continue
        key = seat.llm.model_dump_json(include={"backend", "model", "base_url", "options"})
        if key not in out:
            backend = make_backend(seat.llm.backend, **seat.llm.backend_config())
            seconds = await backend.seconds_per_call()
            if seconds is None:
                continue
            out[key] = ModelTime(backend.describe(), seconds, backend.at_once(), 0)
        out[key].players += 1
    return list(out.values())


def default_seats(n: int, decider: str = "rule") -> list[Seat]:
    return [Seat(name, decider) for name in default_names(n)]


def deciders(seat: Seat, seed: int) -> Callable[[int], Decider]:
    """A fresh decider for each round of ``seat``, each with its own reproducible stream
    (a seat with a model: a fresh conversation each round, on one backend for the game)."""
    if seat.decider != "aiwolf" and decider_kind(seat.decider).needs_model:
        from maw.llm import LLM, make_backend
        from maw.llm.prompts import Prompts

        kind = decider_kind(seat.decider)
        assert kind.with_model is not None
        spec = seat.llm or LLMSpec()
        backend = make_backend(spec.backend, **spec.backend_config())
        prompts = Prompts(Path(seat.prompts) if seat.prompts else None)
        with_model = kind.with_model

        def new_with_model(round_: int) -> Decider:
            return with_model(ModelSeat(seat.name, f"{seed}:{round_}",
                                        LLM(backend, window=spec.window), prompts,
                                        seat.persona, spec))
        return new_with_model

    if seat.decider == "aiwolf":
        from maw.aiwolf.bridge import AiwolfDecider

        def new_aiwolf(round_: int) -> Decider:
            return AiwolfDecider(seat.name, random.Random(f"{seed}:{round_}"), seat.link,
                                 seat.game_id)
        return new_aiwolf

    def new(round_: int) -> Decider:
        return make_decider(seat.decider, seat.name, random.Random(f"{seed}:{round_}"))
    return new
