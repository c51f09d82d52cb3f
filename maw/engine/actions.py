"""Actions: everything a player (or the phase timer, or chance) can do to a game.

Chat actions returned by :func:`maw.engine.legal_actions` carry an empty ``text``: they
stand for any text of 1 to ``ruleset.max_chat_length`` characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Union


class Room(str, Enum):
    """Where a chat message goes: the Village by day, the Hideout (wolves only) by night."""

    VILLAGE = "Village"
    HIDEOUT = "Hideout"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Chat:
    """Say ``text`` in ``room``."""

    actor: str
    room: Room
    text: str = ""


@dataclass(frozen=True, slots=True)
class Over:
    """Stop talking in ``room`` for the rest of the phase (AIWolf ``Over``; ``Skip`` too,
    since every shipped AIWolf config allows no skips)."""

    actor: str
    room: Room


@dataclass(frozen=True, slots=True)
class Vote:
    """Vote to execute ``target`` (by day). In MAW a later vote replaces the earlier one."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class Unvote:
    """Withdraw one's day vote (MAW)."""

    actor: str


@dataclass(frozen=True, slots=True)
class Attack:
    """A werewolf's vote to murder ``target`` tonight."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class Divine:
    """A Seer learns the species of ``target`` at the end of the night."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class Guard:
    """A Bodyguard protects ``target`` from tonight's attack."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class EndPhase:
    """The phase timer ran out: resolve the phase with what has been done."""


@dataclass(frozen=True, slots=True)
class Resolve:
    """Chance's pick among the tied (see :func:`maw.engine.chance_action`)."""

    pick: str


Action = Union[Chat, Over, Vote, Unvote, Attack, Divine, Guard, EndPhase, Resolve]
TARGETED = (Vote, Attack, Divine, Guard)
