"""Actions: everything a player (or the phase timer, or chance) can do to a game, and
:data:`ACTIONS`, the one table of the players' actions that every layer (the rules, the
wire, the agents, the prompts, the screen) derives its lists from. The day's actions are
registered here; the night's, each with how it resolves, in ``maw.engine.abilities``.

Chat actions returned by :func:`maw.engine.legal_actions` carry an empty ``text``: they
stand for any text of 1 to ``ruleset.max_chat_length`` characters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, Union


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
class Whisper:
    """Say ``text`` to ``target`` alone (MAW's ``whisper=on``; only the two of them hear
    it). Offered with an empty ``text``, like a chat."""

    actor: str
    target: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Shoot:
    """A Hunter who has just died shoots ``target`` (werewolf-12)."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class Run:
    """Stand for sheriff (werewolf-12, day 1)."""

    actor: str


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Stand down as a sheriff candidate, before the vote."""

    actor: str


@dataclass(frozen=True, slots=True)
class Badge:
    """A sheriff who has just died passes the badge to ``target``."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class First:
    """The sheriff has ``target``, its left or right neighbour, speak first today: the
    speeches go round from that side, and the sheriff speaks last (werewolf-12)."""

    actor: str
    target: str


@dataclass(frozen=True, slots=True)
class Tear:
    """A sheriff who has just died tears the badge: no sheriff from now on."""

    actor: str


@dataclass(frozen=True, slots=True)
class Explode:
    """A werewolf reveals itself by day and dies: the day ends at once, with no vote
    (werewolf-12 with ``self_explode=on``)."""

    actor: str


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
class Abort:
    """The host ends the game: nobody wins (aiwolf-nlp-server aborts a game when too many
    of its agents are in error)."""


@dataclass(frozen=True, slots=True)
class Resolve:
    """Chance's pick among the tied (see :func:`maw.engine.chance_action`)."""

    pick: str


Action = Union[Chat, Over, Vote, Unvote, Attack, Divine, Guard, Whisper, Shoot, Run,
               Withdraw, Badge, First, Tear, Explode, Pass, OpenVotes, EndPhase,
               Abort, Resolve]
# what the engine's functions take and offer: one of the core's actions above, or one a
# module registered since (a night action's class: ``night_action``), which no static type
# names (Any lets those through, also where the engine is compiled: maw.engine.compiled)
AnyAction = Union[Action, Any]


@dataclass(frozen=True, slots=True)
class Night:
    """How a night action works, declared once beside it in the table of actions.

    Attributes:
        order: where it resolves at dawn, lower first (a ruleset's ``night_order`` may
            reorder the actions by name): a guard before the attack it may block.
        resolve: what it does at dawn: ``resolve(dawn, actor, target)`` with seats
            (``maw.engine.resolution.Dawn``: the night's protections, deaths, results);
            a ``collective`` action is resolved once, on the pack's choice, actor -1.
        chosen: the event that tells who may know it was chosen (``(state, actor,
            target) -> Event``); ``None``: only the actor learns it (``Acted``).
        may_target: whom it may name (``(state, actor, target) -> bool``); ``None``: any
            other living player.
        first_night: it may be used on the first night (AIWolf: only the Seer's).
        collective: the pack's: each wolf votes, the tally's choice is resolved once.
        aim: for deciders that do not know it: whom it is for, "suspect" (a likely
            werewolf) or "trust" (a likely villager).
        protects: it may keep the night's victim alive (a guard, a save): the rules
            text then says the victim dies unless protected.
    """

    order: int
    resolve: Callable[..., None]
    chosen: Callable[..., Any] | None = None
    may_target: Callable[..., bool] | None = None
    first_night: bool = True
    collective: bool = False
    aim: str = "suspect"
    protects: bool = False


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One action a player may take, for every layer at once.

    Attributes:
        name: its name on the wire, in prompts and on the screen ("vote"); for a night
            action, the name of the role ability it takes.
        cls: the engine's action class.
        ability: the role ability it takes (``None``: any living player, by the rules).
        target: it names a target player.
        room: it is said in a room (chat, over).
        phases: the phases in which the rules may offer it.
        result: the event that tells who may know that it happened.
        usage: how a person types it ("/vote NAME").
        help: what it does, in a few words (the screen's help, the prompts).
        night: how a night action works (``None`` for the others).
        text: it carries a text (a chat, a whisper).
        who: ``who(rules, role, flow)``: may a player of ``role`` ever be offered it in a
            game of ``rules`` (whose day is ``flow``)? ``None``: anyone whose game has its
            phases (a night action: whoever has its ability). What a person's ``/help``
            lists (``maw.engine.rules.possible_actions``).
    """

    name: str
    cls: type
    ability: str | None
    target: bool
    room: bool
    phases: frozenset[str]
    result: str
    usage: str
    help: str
    night: Night | None = None
    text: bool = False
    who: Callable[[Any, Any, Any], bool] | None = None


NIGHT_PHASES = frozenset({"night", "witch"})  # the phases night actions are taken in
_ACTIONS: dict[str, ActionSpec] = {}
_SPEC_OF: dict[type, ActionSpec] = {}
_NIGHT: dict[str, type] = {}
# the one table of the players' actions, and what is derived from it (read-only views: an
# action registered later shows in them at once)
ACTIONS: Mapping[str, ActionSpec] = MappingProxyType(_ACTIONS)
SPEC_OF: Mapping[type, ActionSpec] = MappingProxyType(_SPEC_OF)
# the action each night ability takes
NIGHT_ACTIONS: Mapping[str, type] = MappingProxyType(_NIGHT)
_LISTENERS: list[Callable[[ActionSpec], None]] = []


def night_action(name: str) -> type:
    """A new engine action class for a night action ``name``: (actor, target)."""
    from dataclasses import make_dataclass

    cls = make_dataclass(name.capitalize(), [("actor", str), ("target", str)], frozen=True,
                         slots=True)
    cls.__doc__ = f"A night action: {name} ``target``."
    cls.__module__ = __name__
    # found where its module says it is: pickled (a game's state sent to a worker
    # process) and unpickled by name, as the core actions are
    globals().setdefault(cls.__name__, cls)
    return cls


def register_action(spec: ActionSpec) -> ActionSpec:
    """Add ``spec`` to the table. A night action must say how it resolves (``night``):
    an action the night cannot resolve is an error here, never a silent no-op."""
    from maw.errors import ConfigError

    if spec.name in _ACTIONS and _ACTIONS[spec.name] != spec:
        raise ConfigError(f"the action {spec.name!r} is already in the table")
    if spec.ability is not None:
        if spec.night is None:
            raise ConfigError(f"the night action {spec.name!r} says nothing of how it "
                              "resolves (its ActionSpec needs night=Night(...))")
        if spec.ability != spec.name or not spec.target or not spec.phases or \
                not spec.phases <= NIGHT_PHASES:
            raise ConfigError(f"the night action {spec.name!r} must be named for its "
                              "ability, name a target and be of the night")
    elif spec.night is not None:
        raise ConfigError(f"{spec.name!r} is not a night action but says how one resolves")
    _ACTIONS[spec.name] = spec
    _SPEC_OF[spec.cls] = spec
    if spec.ability is not None:
        _NIGHT[spec.ability] = spec.cls
    for listener in _LISTENERS:
        listener(spec)
    return spec


def when_registered(listener: Callable[[ActionSpec], None]) -> None:
    """Call ``listener`` with every action registered from now on (the wire's models)."""
    _LISTENERS.append(listener)


def night_spec(ability: str) -> ActionSpec:
    """The table's entry of the night action that takes ``ability``.

    Raises:
        ConfigError: no action takes it (a role given an ability nothing registered).
    """
    try:
        return _SPEC_OF[_NIGHT[ability]]
    except KeyError:
        from maw.errors import ConfigError

        known = ", ".join(sorted(_NIGHT))
        raise ConfigError(f"no night action takes the ability {ability!r} (register one "
                          f"with register_action(ActionSpec(..., night=Night(...))); "
                          f"known: {known})") from None


def targeted() -> dict[type, str]:
    """The actions that name a target: class -> the table's name (read when asked: an
    action registered later is one of them)."""
    return {s.cls: name for name, s in _ACTIONS.items() if s.target}


def action_name(action: Action) -> str:
    """The table's name of a player's action ("vote")."""
    return _SPEC_OF[type(action)].name


def _sheriff(rules: Any, role: Any, flow: Any) -> bool:
    return bool(rules.sheriff)


for _spec in (
    ActionSpec("chat", Chat, None, False, True, frozenset({"day", "whisper", "night"}),
               "Chatted", "TEXT", "say TEXT in the open room", text=True),
    ActionSpec("vote", Vote, None, True, False, frozenset({"day", "vote", "election"}),
               "VoteCast", "/vote NAME", "vote to execute NAME (again to change it)"),
    ActionSpec("unvote", Unvote, None, False, False, frozenset({"day"}), "VoteCast",
               "/unvote", "withdraw your vote",
               who=lambda rules, role, flow: flow.choices_change),
    ActionSpec("over", Over, None, False, True, frozenset({"day", "whisper"}), "Overed",
               "/over", "done talking for today", who=lambda rules, role, flow: flow.over),
    ActionSpec("whisper", Whisper, None, True, False, frozenset({"day"}), "Whispered",
               "/whisper NAME TEXT", "say TEXT to NAME alone (games with whisper=on)",
               text=True, who=lambda rules, role, flow: rules.whisper),
    ActionSpec("shoot", Shoot, None, True, False, frozenset({"hunt"}), "Shot",
               "/shoot NAME", "as a Hunter who has just died, shoot NAME",
               who=lambda rules, role, flow: role.shoots),
    ActionSpec("run", Run, None, False, False, frozenset({"candidacy"}), "Ran", "/run",
               "stand for sheriff (1.5 votes; day 1)", who=_sheriff),
    ActionSpec("withdraw", Withdraw, None, False, False, frozenset({"campaign"}), "Withdrew",
               "/withdraw", "stand down as a sheriff candidate", who=_sheriff),
    ActionSpec("badge", Badge, None, True, False, frozenset({"badge"}), "BadgePassed",
               "/badge NAME", "as the sheriff who has just died, pass the badge to NAME",
               who=_sheriff),
    ActionSpec("first", First, None, True, False, frozenset({"order"}), "SpeakingOrder",
               "/first NAME", "as the sheriff, have NAME (your left or right neighbour) "
               "speak first today; you speak last", who=_sheriff),
    ActionSpec("tear", Tear, None, False, False, frozenset({"badge"}), "BadgePassed",
               "/tear", "as the sheriff who has just died, tear the badge", who=_sheriff),
    ActionSpec("explode", Explode, None, False, False, frozenset({"day"}), "Exploded",
               "/explode", "as a werewolf, reveal yourself and die: the day ends, no vote",
               who=lambda rules, role, flow: rules.self_explode and role.pack),
):
    register_action(_spec)
# the night's actions, with how each resolves, are in maw.engine.abilities
