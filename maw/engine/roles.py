"""Roles as data: who is on which team, what a seer sees, what each may do at night."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


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


class Ability(str, Enum):
    """A night action a role may take."""

    ATTACK = "attack"
    DIVINE = "divine"
    GUARD = "guard"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Role:
    """One role of the game.

    Attributes:
        name: the role's name as players see it ("Werewolf").
        team: the side that wins with this role.
        species: what a divination of this role reveals.
        abilities: the night actions of the role (one a night), if any.
        medium: learns the species of every executed player.
        pack: knows the other pack members, reads and writes the Hideout.
        uses: how many times a game an ability may be used, for the limited ones
            ((ability, uses), ...); the state counts the uses.
    """

    name: str
    team: Team
    species: Species
    abilities: frozenset[Ability] = frozenset()
    medium: bool = False
    pack: bool = False
    uses: tuple[tuple[Ability, int], ...] = ()

    def __str__(self) -> str:
        return self.name


VILLAGER = Role("Villager", Team.VILLAGE, Species.HUMAN)
WEREWOLF = Role("Werewolf", Team.WEREWOLVES, Species.WEREWOLF, frozenset({Ability.ATTACK}),
                pack=True)
SEER = Role("Seer", Team.VILLAGE, Species.HUMAN, frozenset({Ability.DIVINE}))
MEDIUM = Role("Medium", Team.VILLAGE, Species.HUMAN, medium=True)
BODYGUARD = Role("Bodyguard", Team.VILLAGE, Species.HUMAN, frozenset({Ability.GUARD}))
POSSESSED = Role("Possessed", Team.WEREWOLVES, Species.HUMAN)

ROLES: dict[str, Role] = {
    r.name.lower(): r for r in (VILLAGER, WEREWOLF, SEER, MEDIUM, BODYGUARD, POSSESSED)
}


def role_named(name: str) -> Role:
    """Look a role up by name, case-insensitively (AIWolf spells them in capitals)."""
    try:
        return ROLES[name.lower()]
    except KeyError:
        from maw.errors import ConfigError

        raise ConfigError(f"unknown role {name!r}; known: {', '.join(ROLES)}") from None
