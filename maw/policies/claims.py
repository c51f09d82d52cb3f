"""A small statement grammar that rule players speak and every decider can read.

Statements (one per sentence, any order, case-insensitive on the keywords):

* ``I am the Seer.`` — a coming-out (any role name);
* ``Bob is a werewolf.`` / ``Bob is human.`` — a divination or reading claimed as fact;
* ``I suspect Bob.`` / ``I vote for Bob.`` / ``I accuse Bob.`` — an accusation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from maw.engine.roles import ROLES, role_named

_ROLE: dict[tuple[str, ...], re.Pattern] = {}


def _role_pattern() -> re.Pattern:
    """"I am the <role>." for every role known (a role registered later included)."""
    key = tuple(sorted(ROLES))
    if key not in _ROLE:
        names = "|".join(re.escape(n) for n in key)
        _ROLE[key] = re.compile(rf"\bI am (?:the |a )?({names})\b", re.IGNORECASE)
    return _ROLE[key]


@dataclass(frozen=True, slots=True)
class Claim:
    kind: str  # "role" | "species" | "suspect" | "defend" (free talk, from a model)
    speaker: str
    target: str
    value: str  # the role, the species, or ""


def parse(speaker: str, text: str, players: tuple[str, ...]) -> list[Claim]:
    """The statements in ``text``; names that are not players are ignored."""
    return list(parsed(speaker, text, tuple(players)))


@lru_cache(maxsize=4096)
def parsed(speaker: str, text: str, players: tuple[str, ...]) -> tuple[Claim, ...]:
    """:func:`parse`, shared: every listener of a line reads the same statements (the line
    is read once); ``players`` a tuple."""
    claims: list[Claim] = []
    m = _role_pattern().search(text)
    if m:
        claims.append(Claim("role", speaker, speaker, role_named(m.group(1)).name))
    lowered = text.lower()
    for name in players:
        key = name.lower()
        if key not in lowered:
            continue
        species, suspect = _name_patterns(key)
        m = species.search(lowered)
        if m:
            said = "werewolf" if m.group(1) in ("werewolf", "wolf") else "human"
            claims.append(Claim("species", speaker, name, said))
        if suspect.search(lowered):
            claims.append(Claim("suspect", speaker, name, ""))
    return tuple(claims)


@lru_cache(maxsize=1024)
def _name_patterns(key: str) -> tuple[re.Pattern, re.Pattern]:
    """"<name> is a werewolf/human" and "I suspect <name>" for one (lower-case) name."""
    pat = re.escape(key)
    return (re.compile(pat + r" is (?:a |an )?(werewolf|wolf|human|villager)\b"),
            re.compile(r"\bi (?:suspect|vote for|accuse) " + pat + r"\b"))


def say_role(role: str) -> str:
    return f"I am the {role}."


def say_species(target: str, species: str) -> str:
    return f"{target} is a werewolf." if species == "werewolf" else f"{target} is human."


def say_suspect(target: str) -> str:
    return f"I suspect {target}."
