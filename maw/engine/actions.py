"""Actions: everything a player (or the phase timer, or chance) can do to a game, and
:data:`ACTIONS`, the one table of the players' actions that every layer (the rules, the
wire, the agents, the prompts, the screen) derives its lists from.

Chat actions returned by :func:`maw.engine.legal_actions` carry an empty ``text``: they
stand for any text of 1 to ``ruleset.max_chat_length`` characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Union

from maw.engine.roles import Ability


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
class Pass:
    """Let one's turn to speak go (a "listen" while a MAW day's votes are closed,
    ``votes_open=talk``): the votes open once every living player has spoken or passed.
    Not offered as an option: a player passes by listening."""

    actor: str


@dataclass(frozen=True, slots=True)
class OpenVotes:
    """The host opens the day's votes before everyone has spoken (a share of the day is
    over, ``votes_open=talk``)."""


@dataclass(frozen=True, slots=True)
class EndPhase:
    """The phase timer ran out: resolve the phase with what has been done."""


@dataclass(frozen=True, slots=True)
class Resolve:
    """Chance's pick among the tied (see :func:`maw.engine.chance_action`)."""

    pick: str


Action = Union[Chat, Over, Vote, Unvote, Attack, Divine, Guard, Pass, OpenVotes, EndPhase,
               Resolve]


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One action a player may take, for every layer at once.

    Attributes:
        name: its name on the wire, in prompts and on the screen ("vote").
        cls: the engine's action class.
        ability: the role ability it takes (``None``: any living player, by the rules).
        target: it names a target player.
        room: it is said in a room (chat, over).
        phases: the phases in which the rules may offer it.
        result: the event that tells who may know that it happened.
        usage: how a person types it ("/vote NAME").
        help: what it does, in a few words (the screen's help, the prompts).
    """

    name: str
    cls: type
    ability: Ability | None
    target: bool
    room: bool
    phases: frozenset[str]
    result: str
    usage: str
    help: str


ACTIONS: Mapping[str, ActionSpec] = MappingProxyType({s.name: s for s in (
    ActionSpec("chat", Chat, None, False, True, frozenset({"day", "whisper", "night"}),
               "Chatted", "TEXT", "say TEXT in the open room"),
    ActionSpec("vote", Vote, None, True, False, frozenset({"day", "vote"}), "VoteCast",
               "/vote NAME", "vote to execute NAME (again to change it)"),
    ActionSpec("unvote", Unvote, None, False, False, frozenset({"day"}), "VoteCast",
               "/unvote", "withdraw your vote"),
    ActionSpec("attack", Attack, Ability.ATTACK, True, False, frozenset({"night"}),
               "VoteCast", "/attack NAME", "choose tonight's victim (werewolf)"),
    ActionSpec("divine", Divine, Ability.DIVINE, True, False, frozenset({"night"}),
               "Divined", "/divine NAME", "learn NAME's species at dawn (seer)"),
    ActionSpec("guard", Guard, Ability.GUARD, True, False, frozenset({"night"}), "Guarded",
               "/guard NAME", "protect NAME from tonight's attack (bodyguard)"),
    ActionSpec("over", Over, None, False, True, frozenset({"day", "whisper"}), "Overed",
               "/over", "done talking for today"),
)})
SPEC_OF: Mapping[type, ActionSpec] = MappingProxyType({s.cls: s for s in ACTIONS.values()})
TARGETED = tuple(s.cls for s in ACTIONS.values() if s.target)
# the action each night ability takes
NIGHT_ACTIONS: Mapping[Ability, type] = MappingProxyType(
    {s.ability: s.cls for s in ACTIONS.values() if s.ability is not None})


def action_name(action: Action) -> str:
    """The table's name of a player's action ("vote")."""
    return SPEC_OF[type(action)].name
