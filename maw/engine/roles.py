"""Roles as data: who is on which team, what a seer sees, what each may do at night, and
what the players who reason about roles need to know of it.

A new role is one :class:`Role` here, added with :func:`register_role`; its night action
(if it has a new one) is one entry of the table of actions with its resolution
(``maw.engine.abilities``), and its prompt is ``prompts/roles/<Name>.md``. Nothing else
in MAW names a role: the rulesets deal roles by ``code``, the rules text says ``power``,
the rule and hybrid players read ``reports``, ``fakes`` and ``valued``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Final


class Team(str, Enum):
    """The two sides. The Possessed is human but plays for the Werewolves."""

    VILLAGE = "village"
    WEREWOLVES = "werewolves"

    def __str__(self) -> str:
        return self.value


class Species(str, Enum):
    """What a Seer's divination or a Medium's reading reveals."""

    HUMAN = "human"
    WEREWOLF = "werewolf"

    def __str__(self) -> str:
        return self.value


class Ability:
    """The night abilities MAW ships. An ability is its action's name in the table of
    actions (``maw.engine.abilities``): a role's ``abilities`` are such names, and a new
    one is registered there with its action."""

    ATTACK: Final = "attack"
    DIVINE: Final = "divine"
    GUARD: Final = "guard"
    SAVE: Final = "save"
    POISON: Final = "poison"


@dataclass(frozen=True, slots=True)
class Role:
    """One role of the game.

    Attributes:
        name: the role's name as players see it ("Werewolf").
        team: the side that wins with this role.
        species: what a divination of this role reveals.
        abilities: the night actions of the role (one a night), if any: names in the
            table of actions.
        medium: learns the species of every executed player.
        pack: knows the other pack members, reads and writes the Hideout.
        uses: how many times a game an ability may be used, for the limited ones
            ((ability, uses), ...); the state counts the uses.
        code: the short name a ruleset counts it by ("seer": ``seer=1``).
        power: what the role can do, in a clause for the rules text ("each night the Seer
            learns ..."); empty for a role with no power.
        reports: the kind of private result it comes out with ("divine", "medium"):
            players who claim it are believed to have such results.
        fakes: the role it pretends to be (the Possessed claims to be a Seer).
        valued: the village leans on it: wolves aim at its claimants, guards protect them.
        shoots: on its death (unless poisoned) it shoots one living player (the Hunter).
        survives_execution: its first execution does not kill it: it is revealed and
            may no longer vote (the Village Idiot).
    """

    name: str
    team: Team
    species: Species
    abilities: frozenset[str] = frozenset()
    medium: bool = False
    pack: bool = False
    uses: tuple[tuple[str, int], ...] = ()
    code: str = ""
    power: str = ""
    reports: str = ""
    fakes: str = ""
    valued: bool = False
    shoots: bool = False
    survives_execution: bool = False

    def __str__(self) -> str:
        return self.name

    def __hash__(self) -> int:  # (by name: a ruleset, hashed on every view, holds roles)
        return hash(self.name)


VILLAGER = Role("Villager", Team.VILLAGE, Species.HUMAN, code="vil")
WEREWOLF = Role("Werewolf", Team.WEREWOLVES, Species.WEREWOLF, frozenset({Ability.ATTACK}),
                pack=True, code="ww")
SEER = Role("Seer", Team.VILLAGE, Species.HUMAN, frozenset({Ability.DIVINE}), code="seer",
            power="each night the Seer learns whether one player is a werewolf or human",
            reports="divine", valued=True)
MEDIUM = Role("Medium", Team.VILLAGE, Species.HUMAN, medium=True, code="med",
              power="the Medium learns whether each player executed while it lives was a "
                    "werewolf", reports="medium", valued=True)
BODYGUARD = Role("Bodyguard", Team.VILLAGE, Species.HUMAN, frozenset({Ability.GUARD}),
                 code="bg", power="each night the Bodyguard protects one player from the "
                                  "attack", valued=True)
POSSESSED = Role("Possessed", Team.WEREWOLVES, Species.HUMAN, code="pos",
                 power="the Possessed is a human on the werewolves' side, unknown to them",
                 fakes="Seer")
# werewolf-12 (AutoWerewolf's game)
WITCH = Role("Witch", Team.VILLAGE, Species.HUMAN, frozenset({Ability.SAVE, Ability.POISON}),
             uses=((Ability.SAVE, 1), (Ability.POISON, 1)), code="witch",
             power="the Witch, told each night whom the werewolves attack, may once a game "
                   "save that player and once a game poison another (never both in one "
                   "night)", valued=True)
HUNTER = Role("Hunter", Team.VILLAGE, Species.HUMAN, code="hunter", shoots=True,
              power="the Hunter, when it dies (unless poisoned), shoots one living player",
              valued=True)
GUARD = Role("Guard", Team.VILLAGE, Species.HUMAN, frozenset({Ability.GUARD}), code="guard",
             power="each night the Guard protects one player from the attack",
             valued=True)
IDIOT = Role("Idiot", Team.VILLAGE, Species.HUMAN, code="idiot", survives_execution=True,
             power="the Village Idiot survives its first execution, revealed, and may no "
                   "longer vote")

ROLES: dict[str, Role] = {}  # lower-case name -> role


@cache
def reporters() -> frozenset[str]:
    """The roles that come out with private results (their claimants are believed to
    have them): the Seer and the Medium, and any role registered so."""
    return frozenset(r.name for r in ROLES.values() if r.reports)


@cache
def valued() -> frozenset[str]:
    """The roles the village leans on (wolves aim at their claimants)."""
    return frozenset(r.name for r in ROLES.values() if r.valued)


@cache
def report_kinds() -> frozenset[str]:
    """The kinds of private results the roles come out with ("divine", "medium")."""
    return frozenset(r.reports for r in ROLES.values() if r.reports)


def register_role(role: Role) -> Role:
    """Make ``role`` known by name and code (outside code may add its own)."""
    from maw.errors import ConfigError

    code = role.code or role.name.lower()
    taken = next((r for r in ROLES.values() if (r.code or r.name.lower()) == code
                  and r.name != role.name), None)
    if taken is not None:
        raise ConfigError(f"role {role.name}: code {code!r} is {taken.name}'s")
    ROLES[role.name.lower()] = role
    for listing in (reporters, valued, report_kinds):  # (listed anew from now on)
        listing.cache_clear()
    return role


for _role in (VILLAGER, WEREWOLF, SEER, MEDIUM, BODYGUARD, POSSESSED, WITCH, HUNTER, GUARD,
              IDIOT):
    register_role(_role)


def role_named(name: str) -> Role:
    """Look a role up by name, case-insensitively (AIWolf spells them in capitals)."""
    try:
        return ROLES[name.lower()]
    except KeyError:
        from maw.errors import ConfigError

        raise ConfigError(f"unknown role {name!r}; known: {', '.join(ROLES)}") from None


def role_coded(code: str) -> Role:
    """The role a ruleset counts by ``code`` ("seer", "ww")."""
    for role in ROLES.values():
        if (role.code or role.name.lower()) == code:
            return role
    from maw.errors import ConfigError

    codes = ", ".join(r.code or r.name.lower() for r in ROLES.values())
    raise ConfigError(f"unknown role code {code!r}; known: {codes}")

