"""Rulesets: the MAW rules of the design document and the two AIWolf variants.

A :class:`Ruleset` is plain data. The engine reads it; nothing else encodes a rule.

* ``maw`` — design document §1.2: Werewolves and Villagers, Day first, live public
  votes with an early majority, unanimous night murder, elimination win.
* ``aiwolf-5|9|13|15`` — AIWolf roles (Seer, Medium, Bodyguard, Possessed) in two
  variants, chosen with the ``variant`` option:

  - ``nlp`` (default): the aiwolf-nlp-server configs that wrote the contest logs —
    talk on day 0, execution vote after the talk, no revote (random among the tied),
    self-vote allowed, attack votes on wolves discarded, 4 talks per agent per day.
  - ``2021``: the 3rd AIWolf competition regulation — no talk on day 0, one revote on a
    tie of the vote or of the attack vote then random, 10 talks per agent per day.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from maw.engine.roles import SEER, VILLAGER, WEREWOLF, Role, role_coded
from maw.errors import ConfigError


class Flow(str, Enum):
    """The shape of a game day."""

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
    flow: Flow
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
    seer: int = 0
    whisper: bool = False
    deal: tuple[tuple[str, int], ...] = ()
    night_order: tuple[str, ...] = ()
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


def _counts(**counts: int) -> tuple[Role, ...]:
    """A deal by role codes: ``_counts(ww=2, seer=1, vil=3)``."""
    return tuple(role for code, k in counts.items() for role in (role_coded(code),) * k)


AUTO = (("auto", 0),)  # roles=auto: a balanced deal (maw.engine.compose)
_MAW = Ruleset(name="maw", flow=Flow.MAW, roles=None, min_players=3, max_players=200)

_AIWOLF_ROLES = {
    5: _counts(ww=1, pos=1, seer=1, vil=2),
    9: _counts(ww=2, pos=1, seer=1, med=1, bg=1, vil=3),
    13: _counts(ww=3, pos=1, seer=1, med=1, bg=1, vil=6),
    15: _counts(ww=3, pos=1, seer=1, med=1, bg=1, vil=8),
}

_AIWOLF_VARIANTS: dict[str, dict[str, Any]] = {
    "nlp": dict(
        tie=TiePolicy.RANDOM, attack_tie=TiePolicy.RANDOM, self_vote=True,
        attack_wolves=True, talks_per_day=4, whispers_per_day=4, day0_talk=True,
    ),
    "2021": dict(
        tie=TiePolicy.REVOTE, attack_tie=TiePolicy.REVOTE, self_vote=False,
        attack_wolves=False, guard_dead=True, talks_per_day=10, whispers_per_day=10,
        day0_talk=False,
    ),
}

_OPTION_TYPES: dict[str, Any] = {
    "tie": TiePolicy, "attack_tie": TiePolicy, "win": WinCondition, "self_vote": bool,
    "attack_wolves": bool, "guard_dead": bool, "talks_per_day": int,
    "whispers_per_day": int, "day0_talk": bool, "max_chat_length": int, "max_days": int,
    "votes_open": VotesOpen, "seer": int, "night_order": tuple, "roles": "deal",
    "whisper": bool, "role_set": str, "witch_self_heal_n1": bool, "guard_self_guard": bool,
    "same_guard_same_save_kills": bool, "self_knife": bool, "self_explode": bool,
    "sheriff": bool, "speaking_order": bool, "talk_mode": TalkMode, "base_length": int,
    "mention_length": int, "guard_repeat": bool,
}
_MAW_ONLY = ("seer", "deal", "whisper")  # the maw ruleset's alone (AIWolf deals fixed roles)

# werewolf-12 (AutoWerewolf's game): 4 Werewolves, 4 Villagers, a Seer, a Witch, a Hunter,
# and a Guard (role set A) or a Village Idiot (B)
_W12_ROLES = {"A": _counts(ww=4, vil=4, seer=1, witch=1, hunter=1, guard=1),
              "B": _counts(ww=4, vil=4, seer=1, witch=1, hunter=1, idiot=1)}
_W12 = Ruleset(name="werewolf-12", flow=Flow.WEREWOLF, roles=_W12_ROLES["A"], min_players=12,
               max_players=12, first_day=0, tie=TiePolicy.RUNOFF,
               attack_tie=TiePolicy.RANDOM, win=WinCondition.SIDE, self_knife=True,
               talks_per_day=3, whispers_per_day=None, day0_talk=False, role_set="A",
               guard_repeat=False, sheriff=True, self_explode=True, speaking_order=True)
_W12_ONLY = ("role_set", "witch_self_heal_n1", "guard_self_guard",
             "same_guard_same_save_kills", "self_knife", "self_explode", "sheriff",
             "speaking_order")

RULESET_NAMES = ("maw",) + tuple(f"aiwolf-{n}" for n in _AIWOLF_ROLES) + ("werewolf-12",)


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
    if name == "maw":
        if variant:
            raise ConfigError("ruleset 'maw' has no variants")
        base = _MAW
    elif name.startswith("aiwolf-") and name[7:].isdigit() and int(name[7:]) in _AIWOLF_ROLES:
        n = int(name[7:])
        variant = str(variant or "nlp")
        if variant not in _AIWOLF_VARIANTS:
            raise ConfigError(
                f"unknown AIWolf variant {variant!r}; known: {', '.join(_AIWOLF_VARIANTS)}")
        base = Ruleset(
            name=name, flow=Flow.AIWOLF, roles=_AIWOLF_ROLES[n], min_players=n, max_players=n,
            first_day=0, win=WinCondition.PARITY, variant=variant,
            **_AIWOLF_VARIANTS[variant],
        )
    elif name == "werewolf-12":
        if variant:
            raise ConfigError("ruleset 'werewolf-12' has no variants: its options are "
                              + ", ".join(_W12_ONLY) + ", win")
        base = _W12
    else:
        raise ConfigError(f"unknown ruleset {name!r}; known: {', '.join(RULESET_NAMES)}")
    changes = {("deal" if key == "roles" else key): _coerce(key, value)
               for key, value in options.items()}
    aiwolf_only = [k for k in ("talk_mode", "base_length", "mention_length") if k in changes]
    if base.flow is not Flow.AIWOLF and aiwolf_only:
        raise ConfigError(f"{', '.join(aiwolf_only)} is an option of the aiwolf-* rulesets")
    if changes.get("attack_tie") is TiePolicy.RUNOFF:
        raise ConfigError("ruleset option attack_tie: runoff is for the day's vote (tie=runoff);"
                          " a tied attack vote may be none, random or revote")
    if changes.get("base_length", 0) < 0 or changes.get("mention_length", 0) < 0:
        raise ConfigError("ruleset options base_length and mention_length: at least 0")
    if base.flow is not Flow.WEREWOLF and any(k in changes for k in _W12_ONLY):
        raise ConfigError(f"{', '.join(k for k in changes if k in _W12_ONLY)} is an option "
                          "of the werewolf-12 ruleset")
    if "role_set" in changes:
        role_set = str(changes["role_set"]).upper()
        if role_set not in _W12_ROLES:
            raise ConfigError(f"bad value {changes['role_set']!r} for ruleset option "
                              "'role_set' (A: a Guard, B: a Village Idiot)")
        changes.update(role_set=role_set, roles=_W12_ROLES[role_set])
    if base.flow is not Flow.MAW and any(k in changes for k in _MAW_ONLY):
        raise ConfigError(f"ruleset {name!r} deals fixed roles: "
                          f"{', '.join(k for k in options if k in ('seer', 'roles', 'whisper'))}"
                          " is an "
                          "option of the maw ruleset")
    if changes.get("seer", 0) < 0:
        raise ConfigError("ruleset option seer: at least 0")
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
