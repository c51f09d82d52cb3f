"""Rulesets: what a game's rules are (:class:`Ruleset`, plain data) and the registry of
the named ones (:func:`register_ruleset`, :func:`ruleset`).

The engine reads a ruleset; nothing else encodes a rule. Each shape of game registers
its rulesets beside its day flow, OpenSpiel-style:

* ``maw`` (``maw.engine.flows``) — design document §1.2: Werewolves and Villagers, Day
  first, live public votes with an early majority, unanimous night murder.
* ``aiwolf-5|9|13|15`` (``maw.engine.flows``) — AIWolf's roles and contest rules, in the
  variants ``nlp`` (aiwolf-nlp-server's, the default) and ``2021``.
* ``werewolf-12`` (``maw.engine.werewolf``) — AutoWerewolf's twelve-player game, and
  ``werewolf-6`` to ``werewolf-16`` (``maw.engine.werewolf_sizes``), its role sets scaled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from maw.engine.roles import SEER, VILLAGER, WEREWOLF, Role, role_coded
from maw.errors import ConfigError
from maw.registry import Registry


class Flow(str, Enum):
    """The shapes of a game day MAW ships (a game shape of its own names its flow with any
    string: :func:`maw.engine.dayflow.register_flow`)."""

    MAW = "maw"  # Day (chat + live votes) then Night (Hideout chat + attack votes)
    AIWOLF = "aiwolf"  # Talk, Vote, Whisper, Night (divine, guard, attack)
    WEREWOLF = "werewolf"  # werewolf-12: Night (attack, divine, guard), Witch, Talk, Vote


class TiePolicy(str, Enum):
    """What a tied vote at the end of a phase does."""

    NONE = "none"  # nobody is executed
    RANDOM = "random"  # a random one of the tied
    REVOTE = "revote"  # vote once more (votes cleared), then random among the tied
    RUNOFF = "runoff"  # one more vote between the tied alone; still tied: nobody (day only)


class TalkMode(str, Enum):
    """How AIWolf agents at the table are asked to talk (``maw.aiwolf``): the engine's
    talk is the same either way."""

    TURNS = "turns"  # a TALK request each time (aiwolf-nlp-server's turn-based mode)
    FREEFORM = "freeform"  # a group chat: TALK_PHASE_START, lines at will, TALK_BROADCAST


class VotesOpen(str, Enum):
    """When a MAW day's execution votes open."""

    START = "start"  # with the day (design document §1.2)
    TALK = "talk"  # once every living player has spoken or passed (or the host opens them)


class WinCondition(str, Enum):
    """When the Werewolves win (the Village always wins when no Werewolf lives)."""

    ELIMINATION = "elimination"  # no village-team player lives
    PARITY = "parity"  # living humans are no more than living werewolves
    SIDE = "side"  # no plain villager lives, or no villager with a power (werewolf-12)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every rule the engine applies. Build one with :func:`ruleset`.

    Attributes:
        name: registry name ("maw", "aiwolf-15").
        flow: the shape of a day.
        roles: fixed role list for a fixed-size game, or ``None`` for MAW's
            one-third-werewolves rule.
        min_players: fewest players a game may have.
        max_players: most players a game may have.
        first_day: number of the first day (AIWolf counts from 0).
        tie: what a tied execution vote does (``runoff``: one more vote, between the
            tied alone, and nobody is executed if it ties again; werewolf-12's default).
        attack_tie: what a tied attack vote does (AIWolf only; MAW needs unanimity).
        win: when the Werewolves win.
        self_vote: a player may vote to execute itself.
        attack_wolves: a wolf may vote to attack a wolf (the vote is then discarded).
        guard_dead: a bodyguard may guard a dead player (to no effect).
        talks_per_day: Village messages per player per day, ``None`` for no limit.
        whispers_per_day: Hideout messages per wolf per day, ``None`` for no limit.
        day0_talk: the Village talks on the first day (AIWolf).
        max_chat_length: longest chat message in characters.
        votes_open: when a MAW day's votes open: with the day (``start``, the document),
            or once every living player has spoken or passed (``talk``; the host may open
            them earlier, after a share of the day). No effect on AIWolf rulesets, whose
            vote follows the talk anyway.
        announce_votes: MAW: each execution vote is told to everyone as it is cast (the
            design document's announced votes); ``False``: silent votes, which only the
            voter knows of until the day's result tells who voted for whom.
        max_days: the game is a draw after this many days; ``None`` (default) means
            2 x players + 5, so that a game whose players never act still ends; 0: no limit.
        seer: MAW: how many Seers are dealt (from the villagers; the design document's
            nice-to-have, after Plotkin).
        whisper: MAW: by day a living player may say a line to one other living player
            alone (the design document's nice-to-have; ``WHISPERS`` a day each).
        deal: MAW: other roles dealt by code, ((code, count), ...): ``roles=seer:1,bg:1``
            deals them from the villagers (``ww:K`` sets the werewolves); ``roles=auto``
            a deal balanced for rule players at any size (``maw.engine.compose``).
        night_order: the night's actions in the order they resolve, by name (empty: the
            table's order, ``maw.engine.abilities``).
        night_steps: werewolf-*: the night's steps by role, in the order they take effect
            (``maw.engine.werewolf_night``): whether the Witch hears of a victim the Guard
            protected, whether a Seer killed that night learns anything (empty: the
            seed's seer, wolves, witch, guard).
        variant: the AIWolf variant ("nlp", "2021"), empty for MAW.
        role_set: werewolf-12's special roles: "A" (Seer, Witch, Hunter, Guard) or "B"
            (Seer, Witch, Hunter, Village Idiot).
        witch_self_heal_n1: werewolf-12: the Witch may save herself on the first night
            (never later).
        guard_self_guard: werewolf-12: the Guard may protect itself.
        same_guard_same_save_kills: werewolf-12: a victim both guarded and saved dies.
        guard_repeat: a guard may protect the same player two nights running (werewolf-12:
            off).
        self_knife: werewolf-12: the pack may kill one of its own (the attack counts).
        self_explode: werewolf-12: a werewolf may reveal itself by day and die, ending
            the day at once with no vote.
        sheriff: werewolf-12: a sheriff is elected on day 1 (1.5 votes).
        speaking_order: werewolf-12: the day's talk goes round the table, one speech each
            (from the side the sheriff chooses; the sheriff last), then the vote.
        talk_mode: aiwolf-*: how AIWolf agents at the table are asked to talk
            (``maw.aiwolf.bridge``): ``turns`` or ``freeform``.
        base_length: aiwolf-*: a line is cut to this many characters, spaces not counted
            (aiwolf-nlp-server's ``base_length``: 50, 125 in the English contests; 0: no
            cut, only ``max_chat_length``).
        mention_length: aiwolf-*: with ``base_length``, what follows the first mention of
            another player (``@Name``) has this many characters of its own.
    """

    name: str
    flow: Flow | str
    roles: tuple[Role, ...] | None
    min_players: int
    max_players: int
    first_day: int = 1
    tie: TiePolicy = TiePolicy.NONE
    attack_tie: TiePolicy = TiePolicy.RANDOM
    win: WinCondition = WinCondition.ELIMINATION
    self_vote: bool = False
    attack_wolves: bool = False
    guard_dead: bool = False
    talks_per_day: int | None = None
    whispers_per_day: int | None = None
    day0_talk: bool = True
    max_chat_length: int = 500
    max_days: int | None = None
    votes_open: VotesOpen = VotesOpen.START
    announce_votes: bool = True
    seer: int = 0
    whisper: bool = False
    deal: tuple[tuple[str, int], ...] = ()
    night_order: tuple[str, ...] = ()
    night_steps: tuple[str, ...] = ()
    variant: str = ""
    role_set: str = ""
    witch_self_heal_n1: bool = True
    guard_self_guard: bool = False
    same_guard_same_save_kills: bool = True
    guard_repeat: bool = True
    self_knife: bool = False
    self_explode: bool = False
    sheriff: bool = False
    speaking_order: bool = False
    talk_mode: TalkMode = TalkMode.TURNS
    base_length: int = 0
    mention_length: int = 0

    def roles_for(self, n: int) -> tuple[Role, ...]:
        """The multiset of roles dealt to ``n`` players (before shuffling)."""
        if not self.min_players <= n <= self.max_players:
            size = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise ConfigError(f"ruleset {self.name!r} needs {size} players, got {n}")
        if self.roles is not None:
            return self.roles
        if self.deal == AUTO:  # balanced for rule players (maw.engine.compose)
            from maw.engine.compose import compose

            wolves, seers = compose(n)
            return (WEREWOLF,) * wolves + (SEER,) * seers + (VILLAGER,) * (n - wolves - seers)
        deal = dict(self.deal)
        wolves = deal.pop(WEREWOLF.code, max(1, n // 3))
        others: list[Role] = [SEER] * self.seer
        for code, k in deal.items():
            others += [role_coded(code)] * k
        if wolves < 1 or n - wolves - len(others) < 1:
            raise ConfigError(f"{n} players are too few for {wolves} werewolves and "
                              f"{len(others)} other roles: a villager must remain")
        return (WEREWOLF,) * wolves + tuple(others) + (VILLAGER,) * (n - wolves - len(others))


def role_counts(**counts: int) -> tuple[Role, ...]:
    """A deal by role codes: ``role_counts(ww=2, seer=1, vil=3)``."""
    return tuple(role for code, k in counts.items() for role in (role_coded(code),) * k)


AUTO = (("auto", 0),)  # roles=auto: a balanced deal (maw.engine.compose)

_OPTION_TYPES: dict[str, Any] = {
    "tie": TiePolicy, "attack_tie": TiePolicy, "win": WinCondition, "self_vote": bool,
    "attack_wolves": bool, "guard_dead": bool, "talks_per_day": int,
    "whispers_per_day": int, "day0_talk": bool, "max_chat_length": int, "max_days": int,
    "votes_open": VotesOpen, "announce_votes": bool, "seer": int, "night_order": tuple,
    "roles": "deal",
    "whisper": bool, "role_set": str, "witch_self_heal_n1": bool, "guard_self_guard": bool,
    "same_guard_same_save_kills": bool, "self_knife": bool, "self_explode": bool,
    "sheriff": bool, "speaking_order": bool, "talk_mode": TalkMode, "base_length": int,
    "mention_length": int, "guard_repeat": bool, "night_steps": tuple,
}

# the least value of each number option (talks_per_day=0: a day without talk; max_days=0:
# no limit)
_LEAST: dict[str, int] = {"talks_per_day": 0, "whispers_per_day": 0, "max_chat_length": 1,
                          "max_days": 0, "base_length": 0, "mention_length": 0, "seer": 0}


@dataclass(frozen=True, slots=True)
class RulesetKind:
    """A ruleset as :func:`register_ruleset` made it known.

    Attributes:
        name: what ``ruleset(name)`` and ``--ruleset`` call it.
        base: its defaults, given its variant ("" where it has none).
        variants: its variants, the default first (none: it takes no ``variant``).
        own: options that only this ruleset (or its family) takes; another ruleset given
            one is refused, naming ``family``.
        family: what a refusal of ``own`` calls it ("the aiwolf-* rulesets").
        adjust: its own checks of the changed options (raise ``ConfigError``), which may
            add changes (werewolf-12's ``role_set`` deals its roles).
    """

    name: str
    base: Callable[[str], Ruleset]
    variants: tuple[str, ...] = ()
    own: tuple[str, ...] = ()
    family: str = ""
    adjust: Callable[[dict[str, Any]], None] | None = None


# (a game shape is a module of maw.engine that registers its rulesets: found unnamed)
RULESETS: Registry[RulesetKind] = Registry("ruleset", "maw.rulesets", packages=("maw.engine",))


def register_ruleset(base: Ruleset | Callable[[str], Ruleset], name: str = "", *,
                     variants: tuple[str, ...] = (), own: tuple[str, ...] = (),
                     family: str = "", adjust: Callable[[dict[str, Any]], None] | None = None
                     ) -> RulesetKind:
    """Make a ruleset available by name (``ruleset(name)``, ``--ruleset``, a roster, the
    web replay), the way OpenSpiel registers a game: a module that defines a game shape
    registers its rulesets beside its :class:`~maw.engine.dayflow.DayFlow`. ``base`` is
    the ruleset itself, or (with ``variants``) a function of the variant that builds it.
    Code outside MAW may add its own, or through the entry-point group ``maw.rulesets``
    (a module that registers its rulesets when it is loaded).

    Raises:
        ConfigError: an option in ``own`` that no ruleset has.
    """
    make: Callable[[str], Ruleset]
    if isinstance(base, Ruleset):
        fixed = base
        name = name or fixed.name
        make = lambda variant: fixed  # noqa: E731
    else:
        make = base
    unknown = [k for k in own if k not in _OPTION_TYPES]
    if not name or unknown:
        raise ConfigError(f"register_ruleset: {'no name' if not name else 'unknown options'}"
                          f"{' ' + ', '.join(unknown) if unknown else ''}")
    kind = RulesetKind(name, make, tuple(variants), tuple(own), family or f"the {name} ruleset",
                       adjust)
    RULESETS[name] = kind
    return kind


class _Names(Sequence[str]):
    """The registered rulesets' names, as they are now (a plugin may add one later)."""

    def __getitem__(self, i):
        return tuple(RULESETS.names())[i]

    def __len__(self) -> int:
        return len(RULESETS.names())

    def __repr__(self) -> str:
        return repr(tuple(RULESETS.names()))


RULESET_NAMES: Sequence[str] = _Names()


def ruleset_kind(name: str) -> RulesetKind:
    """The registry's entry for ``name``; ``ConfigError`` if none."""
    return RULESETS.find(name)


def _coerce(key: str, value: Any) -> Any:
    kind = _OPTION_TYPES.get(key)
    if kind is None:
        raise ConfigError(f"unknown ruleset option {key!r}; known: {', '.join(_OPTION_TYPES)}")
    if value is None or (isinstance(kind, type) and isinstance(value, kind)):
        return value
    if kind == "deal" and isinstance(value, tuple):
        return value
    if kind is tuple:  # a list of names, comma-separated
        return tuple(x.strip() for x in str(value).split(",") if x.strip())
    if kind == "deal":  # code:count, comma-separated, or "auto"
        if str(value).strip().lower() == "auto":
            return AUTO
        out = []
        for part in str(value).split(","):
            code, _, count = part.strip().partition(":")
            try:
                role_coded(code.strip())
                out.append((code.strip(), int(count or 1)))
            except ValueError:
                raise ConfigError(f"bad value {value!r} for ruleset option 'roles' "
                                  "(code:count, e.g. seer:1,bg:1)") from None
        return tuple(out)
    text = str(value).strip().lower()
    try:
        if kind is bool:
            if text not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                raise ValueError(text)
            return text in ("true", "yes", "1", "on")
        if kind is int:
            return None if text in ("none", "unlimited") else int(text)
        return kind(text)
    except ValueError:
        choices = ", ".join(m.value for m in kind) if isinstance(kind, type) and issubclass(
            kind, Enum) else kind.__name__
        raise ConfigError(f"bad value {value!r} for ruleset option {key!r} ({choices})") from None


def ruleset(name: str = "maw", **options: Any) -> Ruleset:
    """Build a ruleset by name, with options overriding its defaults.

    Options are the :class:`Ruleset` attributes listed in ``_OPTION_TYPES`` plus
    ``variant`` for the AIWolf rulesets; values may be strings (from a command line).

    Raises:
        ConfigError: unknown name, option or value.
    """
    variant = options.pop("variant", None)
    kind = ruleset_kind(name)
    if kind.variants:
        variant = str(variant or kind.variants[0])
        if variant not in kind.variants:
            raise ConfigError(f"unknown variant {variant!r} of ruleset {name!r}; known: "
                              f"{', '.join(kind.variants)}")
    elif variant:
        raise ConfigError(f"ruleset {name!r} has no variants"
                          + (f": its options are {', '.join(kind.own)}" if kind.own else ""))
    base = kind.base(str(variant or ""))
    changes = {("deal" if key == "roles" else key): _coerce(key, value)
               for key, value in options.items()}
    for other in RULESETS.values():
        theirs = [k for k in options if k in other.own and k not in kind.own]
        if theirs:
            raise ConfigError(f"ruleset {name!r} takes no {', '.join(theirs)}: "
                              f"{'it is an option' if len(theirs) == 1 else 'options'} of "
                              f"{other.family}")
    if changes.get("attack_tie") is TiePolicy.RUNOFF:
        raise ConfigError("ruleset option attack_tie: runoff is for the day's vote (tie=runoff);"
                          " a tied attack vote may be none, random or revote")
    for key, least in _LEAST.items():
        if key in changes and changes[key] is not None and changes[key] < least:
            raise ConfigError(f"ruleset option {key}: at least {least}, got {changes[key]}")
    if kind.adjust is not None:
        kind.adjust(changes)
    return replace(base, **changes) if changes else base


def changed_options(rules: Ruleset) -> tuple[tuple[str, str], ...]:
    """The options (and variant) in which ``rules`` differs from its named ruleset, as
    text: ``ruleset(rules.name, **dict(changed_options(rules)))`` rebuilds it."""
    # (asked for every view: remembered by the ruleset's identity, which is cheaper to
    # look up than its hash over every rule and role)
    hit = _CHANGED.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_CHANGED) >= 256:
        _CHANGED.clear()
    out = _changed_options(rules)
    _CHANGED[id(rules)] = (rules, out)
    return out


_CHANGED: dict[int, tuple[Ruleset, tuple[tuple[str, str], ...]]] = {}


def _changed_options(rules: Ruleset) -> tuple[tuple[str, str], ...]:
    variant = {"variant": rules.variant} if rules.variant else {}
    base = ruleset(rules.name, **variant)
    out = [("variant", rules.variant)] if rules.variant and rules.variant != "nlp" else []
    for key in _OPTION_TYPES:
        attr = "deal" if key == "roles" else key  # (``roles`` is the fixed deal's field)
        value = getattr(rules, attr)
        if value != getattr(base, attr):
            text = value.value if isinstance(value, Enum) else (
                "none" if value is None else _text(value) if isinstance(value, tuple)
                else str(value).lower())
            out.append((key, text))
    return tuple(out)


def _text(value: tuple) -> str:
    """A tuple option as ``--rule`` takes it: names, or code:count pairs, or auto."""
    if value == AUTO:
        return "auto"
    return ",".join(x if isinstance(x, str) else f"{x[0]}:{x[1]}" for x in value)


def parse_options(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Turn ``["tie=revote", "win=parity"]`` (from ``--rule``) into keyword options."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"ruleset option {pair!r} is not KEY=VALUE")
        out[key.strip()] = value.strip()
    return out
