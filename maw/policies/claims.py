"""A small statement grammar that rule players speak and every decider can read.

Statements (one per sentence, any order, case-insensitive on the keywords):

* ``I am the Seer.`` — a coming-out (any role name);
* ``Bob is a werewolf.`` / ``Bob is human.`` — a divination or reading claimed as fact;
* ``I suspect Bob.`` / ``I vote for Bob.`` / ``I accuse Bob.`` — an accusation; so are
  the plain ways a person says it: ``Vote Bob``, ``let's vote for Bob``, ``I don't trust
  Bob``, ``Bob is suspicious`` (``shady``, ``lying``, ``a liar``...);
* ``I trust Bob.`` / ``Bob is innocent.`` / ``Bob is not a werewolf.`` — a defence.

A line that is a sentence of the AIWolf Protocol division's language (Protocol 3.6,
``maw.policies.protocol36``) is read as the same claims, ``Agent[NN]`` being the game's
NN-th player in seat order: ``COMINGOUT`` of oneself a coming-out, ``DIVINED`` and
``IDENTIFIED`` a result, ``VOTE`` and ``ESTIMATE X WEREWOLF`` (or ``POSSESSED``) an
accusation, ``ESTIMATE X`` of a village role a defence, and what ``BECAUSE``, ``AND`` and
``DAY`` join, or a ``REQUEST`` to vote, likewise. Another's statement that the speaker
only reports (a subject not its own) claims nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from maw.engine.roles import ROLES, role_named
from maw.policies import protocol36 as p36

_ROLE: dict[tuple[str, ...], re.Pattern] = {}


def _role_pattern() -> re.Pattern:
    """"I am the <role>." for every role known (a role registered later included), and
    a person's ways of saying it ("I'm just a plain villager")."""
    key = tuple(sorted(ROLES))
    if key not in _ROLE:
        names = "|".join(re.escape(n) for n in key)
        _ROLE[key] = re.compile(rf"\bI(?: am|'m) (?:just |only |really )?(?:the |a |an )?"
                                rf"(?:(?:plain|simple|real|true|humble|ordinary|normal) )?"
                                rf"({names})\b", re.IGNORECASE)
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
    protocol = _protocol(speaker, text, players)
    if protocol is not None:
        return protocol
    claims: list[Claim] = []
    m = _role_pattern().search(text)
    if m:
        claims.append(Claim("role", speaker, speaker, role_named(m.group(1)).name))
    lowered = text.lower()
    for name in players:
        key = name.lower()
        if key not in lowered:
            continue
        species, suspect, defend = _name_patterns(key)
        m = species.search(lowered)
        if m:
            said = "werewolf" if m.group(1) in ("werewolf", "wolf") else "human"
            claims.append(Claim("species", speaker, name, said))
        if suspect.search(lowered):
            claims.append(Claim("suspect", speaker, name, ""))
        elif defend.search(lowered):
            claims.append(Claim("defend", speaker, name, ""))
    return tuple(claims)


# what a person says of a suspect, besides the grammar's own words
_SUSPECT_WORDS = (r"suspicious|suspect|shady|sus|lying|a liar|evil|guilty|fishy|"
                  r"up to something|hiding something")


@lru_cache(maxsize=1024)
def _name_patterns(key: str) -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """"<name> is a werewolf/human", an accusation ("I suspect <name>", "vote <name>",
    "<name> is suspicious") and a defence ("I trust <name>", "<name> is innocent") for
    one (lower-case) name."""
    pat = re.escape(key)
    end = r"(?!\w)"  # (not followed by a letter: a name may end in one, "Agent[03]")
    return (re.compile(pat + r" is (?:a |an )?(werewolf|wolf|human|villager)\b"),
            re.compile(r"\bi (?:suspect|vote for|accuse) " + pat + end
                       + r"|(?:^|[.!?;:,]\s*|\blet'?s |\blet us |\bwe should |\bi )"
                       + r"vote (?:for |out )?" + pat + end
                       # (a model's "I'm voting for X", "I'll vote for X", "my vote goes
                       # to X")
                       + r"|\bi(?:'m| am) voting (?:for |to execute |out )?" + pat + end
                       + r"|\bi(?:'ll| will) vote (?:for |out )?" + pat + end
                       + r"|\bmy vote (?:goes|will go|is going) to " + pat + end
                       + r"|\bi (?:don'?t|do not) trust " + pat + end
                       + r"|(?<!\w)" + pat + r" (?:is|seems|looks) (?:very |really |so )?(?:"
                       + _SUSPECT_WORDS + r")\b"),
            re.compile(r"\bi trust " + pat + end
                       + r"|(?<!\w)" + pat + r" (?:is|seems|looks) (?:innocent|trustworthy|"
                       r"not a (?:werewolf|wolf)|not (?:a )?suspicious)\b"
                       + r"|(?<!\w)" + pat + r" isn'?t a (?:werewolf|wolf)\b"))


# a line that may be a Protocol 3.6 sentence: it starts with a subject or a word in capitals
_PROTOCOL = re.compile(r"^\s*(?:Agent\[\d+\]|ANY|Over\s*$|Skip\s*$|[A-Z]{3,}\b)")
_ACCUSED = ("WEREWOLF", "POSSESSED")


def _protocol(speaker: str, text: str, players: tuple[str, ...]) -> tuple[Claim, ...] | None:
    """The claims of ``text`` if it is a Protocol 3.6 sentence (``None``: it is not)."""
    if not _PROTOCOL.match(text) or not p36.valid(text):
        return None
    me = p36.Agent(players.index(speaker) + 1) if speaker in players else None
    return tuple(dict.fromkeys(_read(p36.parse(text), speaker, me, players)))


def _read(c: p36.Content, speaker: str, me: p36.Agent | None, players: tuple[str, ...]):
    if c.subject not in (None, me):
        return  # (another's statement, reported: nothing the speaker claims)
    name = players[c.target.idx - 1] if 0 < c.target.idx <= len(players) else None
    if c.topic == "COMINGOUT" and c.target == me and _maw_role(c.role or ""):
        yield Claim("role", speaker, speaker, _maw_role(c.role or ""))
    elif c.topic in ("DIVINED", "IDENTIFIED") and name and c.result in ("HUMAN", "WEREWOLF"):
        yield Claim("species", speaker, name, c.result.lower())
    elif c.topic == "VOTE" and name:
        yield Claim("suspect", speaker, name, "")
    elif c.topic == "ESTIMATE" and name and c.role != "ANY":
        yield Claim("suspect" if c.role in _ACCUSED else "defend", speaker, name, "")
    elif c.operator in ("BECAUSE", "AND", "DAY"):
        for x in c.contents:
            yield from _read(x, speaker, me, players)
    elif c.operator == "REQUEST" and c.contents[0].topic == "VOTE":
        target = c.contents[0].target
        if 0 < target.idx <= len(players):
            yield Claim("suspect", speaker, players[target.idx - 1], "")


def _maw_role(name: str) -> str:
    """MAW's name of Protocol 3.6's role ``name`` (``SEER`` -> ``Seer``); "" if MAW has
    none (FOX, FREEMASON, ANY)."""
    return next((role_named(r).name for r in ROLES if r.upper() == name
                 and name in p36.ROLES), "")


def say_protocol(claim: Claim, players: tuple[str, ...]) -> str:
    """``claim`` as a Protocol 3.6 sentence of its speaker (``Agent[NN]`` by seat)."""
    def agent(name: str) -> p36.Agent:
        return p36.Agent(players.index(name) + 1)

    me = agent(claim.speaker)
    if claim.kind == "role":
        return p36.comingout(me, claim.value.upper(), me).text
    if claim.kind == "species":
        return p36.divined(agent(claim.target), claim.value.upper(), me).text
    if claim.kind == "defend":
        return p36.estimate(agent(claim.target), "VILLAGER", me).text
    return p36.vote(agent(claim.target), me).text


def say_role(role: str) -> str:
    return f"I am the {role}."


def say_species(target: str, species: str) -> str:
    return f"{target} is a werewolf." if species == "werewolf" else f"{target} is human."


def say_suspect(target: str) -> str:
    return f"I suspect {target}."
