"""Events: what a transition tells the world, each with its audience.

``audience`` is ``None`` for a public event, otherwise the names of the only players who
may learn of it. :func:`visible_to` is the one test every layer above uses before passing
an event on; the engine fills ``audience`` from the rules, so nothing above needs to know
who may see what.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Union, get_args

from maw.engine.actions import Room


@dataclass(frozen=True, slots=True)
class GameStarted:
    ruleset: str
    players: tuple[str, ...]
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class RoleAssigned:
    """A player learns its role; pack members also learn the pack."""

    player: str
    role: str
    pack: tuple[str, ...]
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class PhaseStarted:
    day: int
    phase: str
    vote_round: int
    living: tuple[str, ...]
    candidates: tuple[str, ...] = ()
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Chatted:
    day: int
    room: Room
    speaker: str
    text: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Whispered:
    """A private line: only its speaker and its ``target`` hear it."""

    day: int
    speaker: str
    target: str
    text: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Overed:
    """A player is done talking in ``room`` for this phase."""

    day: int
    room: Room
    player: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Passed:
    """A player let its turn to speak go (``votes_open=talk``); only it hears of it."""

    day: int
    player: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class VotesOpened:
    """The day's execution votes are open (``votes_open=talk``): everyone has spoken or
    passed (``by`` "talk") or the host opened them (``by`` "host")."""

    day: int
    by: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class VoteCast:
    """A vote (``kind`` "execute" or "attack"); ``target`` is ``None`` for a withdrawal."""

    day: int
    kind: str
    voter: str
    target: str | None
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class VotesRevealed:
    """The votes of a finished vote, in seat order, as (voter, target) pairs; ``sheriff``
    names the voter whose vote counts 1.5 (werewolf-12's sheriff; "" for none)."""

    day: int
    kind: str
    vote_round: int
    votes: tuple[tuple[str, str], ...]
    audience: frozenset[str] | None = None
    sheriff: str = ""


@dataclass(frozen=True, slots=True)
class Executed:
    """``player`` is executed with ``votes``; ``drawn`` names the tied among whom chance
    picked it (a tie the ruleset settles at random), empty where the votes decided."""

    day: int
    player: str
    votes: int | float  # (a whole number but under a werewolf-12 sheriff's 1.5 votes)
    audience: frozenset[str] | None = None
    drawn: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NoExecution:
    """Nobody is executed: ``reason`` "tie" (``tied`` names who tied) or "no votes"."""

    day: int
    reason: str
    tied: tuple[str, ...] = ()
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Revote:
    """A tie: the vote is held once more (``runoff``: between the ``tied`` alone)."""

    day: int
    kind: str
    tied: tuple[str, ...]
    audience: frozenset[str] | None = None
    runoff: bool = False


@dataclass(frozen=True, slots=True)
class RoleRevealed:
    """The role of a dead player, told to ``audience`` (MAW: the executed, to the pack)."""

    player: str
    role: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Murdered:
    day: int
    player: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class NoMurder:
    day: int
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class AttackBlocked:
    """The pack's target was guarded (only the pack learns whom they attacked)."""

    day: int
    target: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Divined:
    day: int
    seer: str
    target: str
    species: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Guarded:
    day: int
    bodyguard: str
    target: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Acted:
    """A night action chosen, told only to its actor (a registered action's record, when
    its table entry names no event of its own)."""

    day: int
    actor: str
    action: str
    target: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class NightResult:
    """What a night action taught its actor at dawn (a registered action's private
    result): ``value`` is what it learnt of ``target``."""

    day: int
    actor: str
    action: str
    target: str
    value: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class MediumResult:
    day: int
    medium: str
    target: str
    species: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Spared:
    """The Village Idiot was voted out but lives: revealed, it may vote no more."""

    day: int
    player: str
    role: str
    votes: int | float
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Shot:
    """A Hunter who died shoots ``target``, who dies (a public event)."""

    day: int
    hunter: str
    target: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Ran:
    """``player`` stands for sheriff (or, ``withdrawn``, stands down)."""

    day: int
    player: str
    withdrawn: bool = False
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class SheriffElected:
    """The election's result: ``sheriff`` ("" for none: a tie, no candidate, no voter),
    with the votes."""

    day: int
    sheriff: str
    votes: tuple[tuple[str, str], ...] = ()
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class BadgePassed:
    """A dead sheriff's badge goes to ``target`` ("" when it is torn: no sheriff again)."""

    day: int
    sheriff: str
    target: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class SpeakingOrder:
    """Today's speeches go in this order, one each (werewolf-12)."""

    day: int
    order: tuple[str, ...]
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Exploded:
    """A werewolf revealed itself and died: the day ends, with no vote."""

    day: int
    player: str
    audience: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class GameOver:
    """The end: winner (``None`` for a draw), why, every role, and the points scored."""

    day: int
    winner: str | None
    reason: str
    roles: tuple[tuple[str, str], ...]
    points: tuple[tuple[str, int], ...]
    audience: frozenset[str] | None = None


Event = Union[
    GameStarted, RoleAssigned, PhaseStarted, Chatted, Overed, Passed, VotesOpened, VoteCast,
    VotesRevealed,
    Executed, NoExecution, Revote, RoleRevealed, Murdered, NoMurder, AttackBlocked,
    Divined, Guarded, MediumResult, GameOver, Acted, NightResult, Whispered, Spared, Shot,
    Ran, SheriffElected, BadgePassed, Exploded, SpeakingOrder,
]


def _quick_init(cls: type) -> None:
    """Give the frozen dataclass ``cls`` (with ``__slots__``) an ``__init__`` of the same
    signature that sets each slot by its own descriptor, instead of dataclasses' frozen
    ``object.__setattr__`` by name: a third as long, and a random 15-player game makes
    250 events. The class stays frozen, and is the same value in every other way. A
    class this does not write out (a field made by a factory, out of ``__init__`` or
    keyword-only, a ``__post_init__``, a field of a base class) keeps dataclasses' own."""
    own = cls.__dict__.get("__annotations__", {})
    if hasattr(cls, "__post_init__") or any(
            f.default_factory is not MISSING or not f.init or f.kw_only or f.name not in own
            for f in fields(cls)):
        return
    names = [f.name for f in fields(cls)]
    scope = {f"_set_{n}": cls.__dict__[n].__set__ for n in names}
    params = []
    for f in fields(cls):
        if f.default is MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    body = "".join(f"\n    _set_{n}(self, {n})" for n in names) or "\n    pass"
    exec(f"def __init__(self, {', '.join(params)}):{body}", scope)  # noqa: S102
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010 - (the class's own, replaced)


for _kind in get_args(Event):
    _quick_init(_kind)


def visible_to(event: Event, player: str) -> bool:
    """May ``player`` learn of ``event``?"""
    return event.audience is None or player in event.audience
