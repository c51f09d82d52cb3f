"""The immutable game state and the outcome of a game.

``GameState`` is a ``NamedTuple``: immutable, and ``_replace`` is four times faster than
``dataclasses.replace`` on a frozen dataclass, which matters for ``maw simulate``.
Players are seats (indices into ``names``) inside the state; the API speaks names.
Never hand a ``GameState`` to a player: it holds every role. Players get
:func:`maw.engine.view`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from maw.engine.roles import Role, Team
from maw.engine.rulesets import Ruleset


class _Phases(type):
    """Iterating ``Phase`` gives every phase, the registered ones too, in order."""

    def __iter__(cls) -> Iterator[Phase]:
        return iter(tuple(cls._all.values()))  # type: ignore[attr-defined]

    def __len__(cls) -> int:
        return len(cls._all)  # type: ignore[attr-defined]


class Phase(str, metaclass=_Phases):
    """Where a day is. MAW uses DAY and NIGHT; AIWolf uses all four; werewolf-12 its steps.

    A string, one object per name (compare with ``is``), like the members of an enum that
    can grow: a game shape with a phase of its own registers it (:meth:`register`) in its
    module, as it registers its flow and its ruleset. ``Phase("day")`` is ``Phase.DAY``; a
    name nobody registered is a ``ValueError``."""

    _all: ClassVar[dict[str, Phase]] = {}
    DAY: ClassVar[Phase]  # the Village is open (MAW: votes too)
    VOTE: ClassVar[Phase]  # AIWolf: the execution vote after the talk
    WHISPER: ClassVar[Phase]  # AIWolf: the Hideout is open
    NIGHT: ClassVar[Phase]  # attack votes (MAW: and the Hideout), divinations, guards
    WITCH: ClassVar[Phase]  # werewolf-12: the Witch, told the pack's victim, saves or poisons
    HUNT: ClassVar[Phase]  # werewolf-12: a Hunter who just died shoots (known to it alone)
    BADGE: ClassVar[Phase]  # werewolf-12: a sheriff who just died passes the badge, or tears it
    LAST_WORDS: ClassVar[Phase]  # werewolf-12: the executed and the first night's dead speak
    CANDIDACY: ClassVar[Phase]  # werewolf-12, day 1: who stands for sheriff
    CAMPAIGN: ClassVar[Phase]  # the candidates speak, and may withdraw
    ELECTION: ClassVar[Phase]  # the others vote among the candidates
    ORDER: ClassVar[Phase]  # the sheriff says from which side the day's speeches go
    OVER: ClassVar[Phase]  # the game has ended

    def __new__(cls, value: str) -> Phase:
        phase = cls._all.get(value)
        if phase is None:
            raise ValueError(f"{value!r} is not a phase ({', '.join(cls._all)})")
        return phase

    # the phase's name as a plain ``str`` ("day"), and in capitals ("DAY"), as an enum's
    # members have them: attributes of each phase, set once (the engine reads ``value``
    # at every phase it opens; a property was a Python call each time)
    value: str
    name: str

    @classmethod
    def register(cls, value: str) -> Phase:
        """The phase named ``value``, made once (a second call gives the same object)."""
        if value not in cls._all:
            if not value.isidentifier() or value != value.lower():
                raise ValueError(f"a phase's name is a lower-case word: {value!r}")
            phase = str.__new__(cls, value)
            object.__setattr__(phase, "value", str(value))
            object.__setattr__(phase, "name", phase.value.upper())
            cls._all[value] = phase
        return cls._all[value]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a phase is one shared value: Phase.{self.name}.{name} "
                             "cannot be set")

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Phase.{self.name}"

    def __reduce__(self) -> tuple[Any, ...]:  # (a pickled phase is the same object again)
        return (Phase, (self.value,))

    def __copy__(self) -> Phase:
        return self

    def __deepcopy__(self, memo: Any) -> Phase:
        return self


# the shipped games' phases, in this order (a learned player's observation numbers them so)
SHIPPED_PHASES = ("day", "vote", "whisper", "night", "witch", "hunt", "badge", "last_words",
                  "candidacy", "campaign", "election", "order", "over")
for _name in SHIPPED_PHASES:
    setattr(Phase, _name.upper(), Phase.register(_name))


class Termination(str, Enum):
    """Why a game ended."""

    WOLVES_ELIMINATED = "no werewolf lives"
    VILLAGE_ELIMINATED = "no villager lives"
    PARITY = "werewolves reached parity"
    SIDE_ELIMINATED = "the werewolves killed a whole side of the village"
    DAY_LIMIT = "day limit reached"
    ABORTED = "the game was aborted"

    def __str__(self) -> str:
        return self.value


class Death(NamedTuple):
    day: int
    seat: int
    cause: str  # "executed" | "murdered" | "poisoned" | "shot" | "exploded"


class VoteRecord(NamedTuple):
    """A finished vote; attack votes are known to the pack only."""

    day: int
    kind: str  # "execute" | "attack"
    vote_round: int
    votes: tuple[int, ...]  # target seat per seat, -1 for none


class Result(NamedTuple):
    """A private result: a divination (to the seer) or a medium's reading."""

    day: int
    kind: str  # "divine" | "medium" | "guard"
    seat: int  # who learns it
    target: int
    species: str


# the players' names where nobody chose them (a host's AI seats, the PettingZoo agents):
# these twenty, then P20, P21...
NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou",
         "Max", "Ned", "Oli", "Pam", "Quinn", "Ray", "Sue", "Tom")


def default_names(n: int) -> tuple[str, ...]:
    """``n`` players' names where nobody chose them."""
    return NAMES[:n] + tuple(f"P{i}" for i in range(len(NAMES), n))


class GameState(NamedTuple):
    """Everything about a game at one moment. See the module docstring."""

    rules: Ruleset
    names: tuple[str, ...]
    seat: Mapping[str, int]
    roles: tuple[Role, ...]
    pack: frozenset[str]  # the werewolves (fixed at the deal)
    alive: tuple[bool, ...]
    day: int
    phase: Phase
    vote_round: int
    votes: tuple[int, ...]  # current vote (execute by day, night action target by night)
    chosen: tuple[str | None, ...]  # the ability of each seat's night choice, if any
    spoken: tuple[int, ...]  # messages each seat sent in the open room this phase
    done: tuple[bool, ...]  # said Over this phase
    candidates: tuple[int, ...]  # tied seats while chance must pick (empty otherwise)
    pending: str  # "execute" | "attack" while chance must pick, else ""
    deaths: tuple[Death, ...]
    vote_log: tuple[VoteRecord, ...]
    results: tuple[Result, ...]
    executed_today: int  # seat executed this day, -1 for none
    termination: Termination | None
    winner: Team | None
    seed: int
    uses: Mapping[tuple[int, str], int]  # uses so far of the limited abilities (Role.uses)
    ballot: bool = True  # the day's execution votes are open (Ruleset.votes_open)
    whispered: tuple[int, ...] = ()  # whispers each seat sent this phase (Ruleset.whisper)
    # a night of steps (werewolf-12): the choices of its earlier steps, (seat, ability,
    # target), and the pack's victim, until dawn resolves them
    tonight: tuple[tuple[int, str, int], ...] = ()
    victim: int = -1
    # the pack's victim, whom dawn's attack strikes, while the Witch chooses: ``victim``
    # is whom she was told (werewolf-12's night_steps may tell her nobody)
    attack: int = -1
    shooter: int = -1  # the Hunter who shoots now (Phase.HUNT)
    resume: Phase | None = None  # the phase that follows the steps after deaths
    exposed: frozenset[int] = frozenset()  # Idiots who survived their execution
    shooters: tuple[int, ...] = ()  # dead Hunters still owed their shot
    speakers: tuple[int, ...] = ()  # the dead owed their last words
    running: frozenset[int] = frozenset()  # sheriff candidates (those still standing)
    ran: frozenset[int] = frozenset()  # everyone who stood (they do not vote)
    sheriff: int = -1  # the sheriff (1.5 votes), -1 for none
    elected: bool = False  # the day-1 election has been held
    order: tuple[int, ...] = ()  # the day's speaking order (werewolf-12's turns)
    turn: int = 0  # whose turn it is in ``order``
    revealed: frozenset[int] = frozenset()  # roles everyone has seen: a spared Idiot, a
    # Hunter who shot, a werewolf who exploded
    runoff: tuple[int, ...] = ()  # the tied, the only ones a runoff vote may name
    # (tie=runoff), while it lasts

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def living(self) -> tuple[str, ...]:
        return living_names(self.names, self.alive)

    def role_of(self, name: str) -> Role:
        """The hidden role of ``name``: for the referee and tests, never for a player."""
        return self.roles[self.seat[name]]


@lru_cache(maxsize=1024)
def living_names(names: tuple[str, ...], alive: tuple[bool, ...]) -> tuple[str, ...]:
    """The living, in seat order (every view and every phase asks: listed once per state
    of the game's deaths)."""
    return tuple(n for n, a in zip(names, alive, strict=True) if a)


_FIELD = {name: i for i, name in enumerate(GameState._fields)}
_new = tuple.__new__


def _replace(self: GameState, /, **changes: Any) -> GameState:
    """The state with ``changes`` (field=value): NamedTuple's own ``_replace``, 3x as fast
    (every move of the game makes one or more); NamedTuple lets a class body define no
    ``_replace``, so it is set below."""
    values = list(self)
    try:
        for name, value in changes.items():
            values[_FIELD[name]] = value
    except KeyError as exc:
        raise ValueError(f"GameState has no field {exc.args[0]!r}") from None
    return _new(GameState, values)


GameState._replace = _replace  # type: ignore[method-assign,assignment]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: the winning team, ``None`` for a draw (day limit).
        termination: why the game ended.
        day: the day it ended on.
        roles: every player's role.
        points: what each player scored (design document §1.2.4).
        living: who lived at the end, in seat order.
    """

    winner: Team | None
    termination: Termination
    day: int
    roles: Mapping[str, str]
    points: Mapping[str, int]
    living: tuple[str, ...] = ()
