"""The decider interface and its registry."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache
from typing import ClassVar

from maw.engine import Action, Event, PlayerView, Ruleset
from maw.errors import ConfigError


class Decider:
    """Chooses actions for one player.

    ``observe`` receives, in order, every event the player may see; ``decide`` returns one
    of ``legal`` (a chat with its text filled in) or ``None`` to listen.

    Attributes:
        needs_view: ``decide`` reads its ``view`` argument (else it may get ``None``,
            which saves the simulator building views it would not read).
    """

    needs_view: ClassVar[bool] = True

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


DECIDERS: dict[str, Callable[[str, random.Random], Decider]] = {}
# deciders named with an argument, ``NAME:ARG`` (``learned:FILE``)
WITH_ARGUMENT: dict[str, Callable[[str, random.Random, str], Decider]] = {}


def register_decider(name: str, factory: Callable[[str, random.Random], Decider]) -> None:
    """Make ``factory`` available as decider ``name`` (outside code may add its own)."""
    DECIDERS[name] = factory


def register_decider_with_argument(
        name: str, factory: Callable[[str, random.Random, str], Decider]) -> None:
    """Make ``factory`` available as decider ``NAME:ARG`` (``learned:FILE``)."""
    WITH_ARGUMENT[name] = factory


def make_decider(name: str, player: str, rng: random.Random) -> Decider:
    head, colon, arg = name.partition(":")
    if colon and head in WITH_ARGUMENT:
        return WITH_ARGUMENT[head](player, rng, arg)
    try:
        factory = DECIDERS[name]
    except KeyError:
        raise ConfigError(f"unknown decider {name!r}; known: {known_deciders()}") from None
    return factory(player, rng)


def known_deciders() -> str:
    return ", ".join([*sorted(DECIDERS), *(f"{n}:FILE" for n in sorted(WITH_ARGUMENT))])


def check_decider(name: str, flag: str) -> None:
    """``ConfigError`` (saying ``flag``) unless ``name`` makes a decider (its file read,
    if it has one)."""
    head, colon, _arg = name.partition(":")
    if not (colon and head in WITH_ARGUMENT) and name not in DECIDERS:
        raise ConfigError(f"unknown decider {name!r} for {flag}: {known_deciders()}")
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
