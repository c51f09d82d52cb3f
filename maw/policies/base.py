"""The decider interfaces (:class:`Decider`, :class:`AsyncDecider`) and the one registry
of deciders (:class:`DeciderKind`), with the traits every layer asks of them."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from maw.engine import Action, Event, PlayerView, Ruleset
from maw.errors import ConfigError
from maw.registry import Registry

if TYPE_CHECKING:
    from maw.policies.memory import RuleLayer


class Decider:
    """Chooses actions for one player.

    ``observe`` receives, in order, every event the player may see; ``decide`` returns one
    of ``legal`` (a chat with its text filled in) or ``None`` to listen.

    Attributes:
        needs_view: ``decide`` reads its ``view`` argument (else it may get ``None``,
            which saves the simulator building views it would not read).
        asynchronous: it thinks asynchronously (:class:`AsyncDecider`).
    """

    needs_view: ClassVar[bool] = True
    asynchronous: ClassVar[bool] = False  # (an AsyncDecider: the game awaits adecide)

    def __init__(self, player: str, rng: random.Random) -> None:
        self.player = player
        self.rng = rng

    def observe(self, event: Event) -> None:
        """Learn from an event this player may see."""

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        raise NotImplementedError

    def beliefs(self, view: PlayerView) -> dict[str, float] | None:
        """Its probability that each other player is a werewolf, now (``None``: this
        decider does not say). The game log keeps them once a phase; ``maw report``
        scores them against the roles."""
        return None

    def rule_layer(self) -> RuleLayer | None:
        """The rule player that reads the game for it (its beliefs, the claims it heard),
        if it has one: what a game set's memory (``maw.policies.memory``) is kept in."""
        return None


class AsyncDecider(Decider):
    """A decider that thinks asynchronously (a language model): the game awaits
    ``adecide``, which is also given the lines the player heard since its last turn, as
    the player heard them (``messages``); it has no ``decide``."""

    asynchronous: ClassVar[bool] = True

    async def adecide(self, view: PlayerView, legal: tuple[Action, ...],
                      messages: list[str]) -> Action | None:
        raise NotImplementedError

    def supplied(self, completion: dict) -> None:
        """The chat completion its question carried (``get_input``'s ``completions``):
        a decider that posts to a model takes its guiding prompt from it."""

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        raise TypeError(f"{type(self).__name__} thinks asynchronously: the game awaits "
                        "its adecide")


# who decides for a model seat when its model gives no legal action (a roster's
# ``fallback``): the rule player, a random legal action, or nobody (it listens)
FALLBACKS = ("rule", "random", "listen")


@dataclass
class ModelSeat:
    """What a decider that needs a model is made from (``DeciderKind.with_model``): its
    player, the seed of its stream ("SEED:ROUND"), its own conversation with the model
    (a ``maw.llm.LLM``), the prompts, its persona, and its roster's ``[llm]`` settings
    (a ``maw.hosting.roster.LLMSpec``: max_chars, temperature, steer...)."""

    player: str
    seed: str
    llm: Any
    prompts: Any
    persona: str
    spec: Any


@dataclass(frozen=True)
class DeciderKind:
    """A decider MAW can seat, and what every layer asks of it (the one registry:
    rosters, the host, tournaments, ``maw simulate``, stand-ins all ask here).

    Attributes:
        name: how rosters and options name it ("rule"); ``NAME:ARG`` where it takes an
            ``argument`` (``learned:FILE``).
        make: ``make(player, rng)`` without a model (``maw simulate``, a stand-in);
            ``None``: it cannot play without one.
        with_model: ``with_model(seat)`` from a ``ModelSeat``, where it is seated with a
            model (a roster's ``[llm]``): it needs a model there.
        with_argument: ``with_argument(player, rng, arg)`` for ``NAME:ARG``.
        argument: what its argument is, for the help ("FILE").
        talks: it speaks in words: games with it open the day's votes after the talk.
        stand_in: it decides at once, with no model: it may take over the seat of a
            player who left (``--substitute``).
    """

    name: str
    make: Callable[[str, random.Random], Decider] | None = None
    with_model: Callable[[ModelSeat], Decider] | None = None
    with_argument: Callable[[str, random.Random, str], Decider] | None = None
    argument: str = ""
    talks: bool = False
    stand_in: bool = False

    @property
    def needs_model(self) -> bool:
        return self.with_model is not None


# (a decider is a module of maw.policies that registers itself: found unnamed; one that
# needs a model is a module of maw.llm, which adds its package here once it is loaded)
DECIDERS: Registry[DeciderKind] = Registry(
    "decider", "maw.deciders", lambda kinds: ", ".join(
        f"{k.name}:{k.argument}" if k.argument else k.name
        for k in sorted(kinds.values(), key=lambda k: k.name)),
    packages=("maw.policies",))


def register_decider(name: str, make: Callable[[str, random.Random], Decider] | None = None,
                     *, with_model: Callable[[ModelSeat], Decider] | None = None,
                     talks: bool = False, stand_in: bool = False) -> DeciderKind:
    """Make a decider available as ``name`` (a roster's ``decider``, ``--policy``, a
    stand-in): ``make(player, rng)`` plays without a model, ``with_model(seat)`` with
    one. Code outside MAW may add its own (or through the entry-point group
    ``maw.deciders``: a module that registers its deciders when it is loaded)."""
    if make is None and with_model is None:
        raise ConfigError(f"decider {name!r}: give how to make it (make, or with_model)")
    kind = DeciderKind(name, make, with_model, talks=talks, stand_in=stand_in)
    DECIDERS[name] = kind
    return kind


def register_decider_with_argument(
        name: str, factory: Callable[[str, random.Random, str], Decider],
        argument: str = "FILE") -> DeciderKind:
    """Make ``factory`` available as decider ``NAME:ARG`` (``learned:FILE``)."""
    kind = DeciderKind(name, with_argument=factory, argument=argument)
    DECIDERS[name] = kind
    return kind


def decider_kind(name: str) -> DeciderKind:
    """The registry's entry for ``name`` (``NAME:ARG`` too); ``ConfigError`` if none."""
    return DECIDERS.find(name.partition(":")[0], shown=name)


def make_decider(name: str, player: str, rng: random.Random) -> Decider:
    """A decider ``name`` for ``player``, without a model."""
    kind = decider_kind(name)
    head, colon, arg = name.partition(":")
    if kind.with_argument is not None:
        if not colon:
            raise ConfigError(f"decider {head!r} is named {head}:{kind.argument}")
        return kind.with_argument(player, rng, arg)
    if kind.make is None:
        raise ConfigError(f"decider {name!r} needs a model: seat it from a roster, whose "
                          "[llm] names one")
    return kind.make(player, rng)


def known_deciders() -> str:
    return DECIDERS.known(DECIDERS)


def stand_ins() -> tuple[str, ...]:
    """The deciders that may take over a gone player's seat."""
    DECIDERS.discover()
    return tuple(sorted(k.name for k in DECIDERS.values() if k.stand_in))


def quiet_deciders() -> list[str]:
    """The deciders that play without a model and do not speak in words (``--policy``
    of a game), as a flag names them (``learned:FILE``)."""
    DECIDERS.discover()
    return [f"{k.name}:{k.argument}" if k.argument else k.name
            for k in sorted(DECIDERS.values(), key=lambda k: k.name)
            if not k.talks and (k.make is not None or k.with_argument is not None)]


def check_decider(name: str, flag: str) -> None:
    """``ConfigError`` (saying ``flag``) unless ``name`` makes a decider without a model
    (its file read, if it has one)."""
    try:
        decider_kind(name)
    except ConfigError:
        raise ConfigError(f"unknown decider {name!r} for {flag}: {known_deciders()}") from None
    try:
        make_decider(name, "check", random.Random(0))
    except ConfigError as exc:
        raise ConfigError(f"{flag}: {exc}") from None


def max_chat(view: PlayerView) -> int:
    """The longest chat message the player's ruleset takes (the GameMaster refuses a
    longer one)."""
    return rules_of(view).max_chat_length


def rules_of(view: PlayerView) -> Ruleset:
    """The ruleset of the player's game, as its view names it (``ConfigError``: one this
    process does not know)."""
    return _rules(view.ruleset, view.rule_options)


@lru_cache(maxsize=64)
def _rules(name: str, options: tuple[tuple[str, str], ...]) -> Ruleset:
    # (a decider asks at every turn: a ruleset is built once)
    from maw.engine import ruleset

    return ruleset(name, **dict(options))
