"""How a rule player says what it means: a small bank of phrasings per intent, picked by a
seeded stream, each keeping a statement of the claims grammar (``claims.py``) so that
every player can still read it.

An intent is what the line must say (a suspect and the reason, a vote that changes, a
result claimed, the pack's target); the bank only varies the words around it. Reasons
come from what every player saw (votes, murders, accusations), never from a secret.
"""

from __future__ import annotations

import random

# {t}: the target; {r}: the reason (a sentence, or empty); {old}: an earlier target
SUSPECT = (
    "I suspect {t}. {r}",
    "{r} I suspect {t}.",
    "My vote will go to {t}: I suspect {t}. {r}",
    "I suspect {t}, and I will say why. {r}",
    "{r} So I suspect {t}.",
    "Look at {t}. {r} I suspect {t}.",
)
# no reason yet (the first day): a hunch, said as one
HUNCH = (
    "{t} has not given us anything to go on yet.",
    "I have no proof, only a feeling about {t}.",
    "Call it a hunch.",
    "It is early, but someone has to start.",
    "Let {t} explain themselves.",
)
CHANGE = (
    "I change my mind: I vote for {t}, not {old}. {r}",
    "{r} I vote for {t} instead of {old}.",
    "I was wrong about {old}. I vote for {t}. {r}",
)
FIRST = (  # a vote cast before the player said anything today
    "I vote for {t}. {r}",
    "{r} I vote for {t}.",
)
# why a player is suspect, by the kind of evidence ({t} the suspect, {v} a victim or the
# one it accused, {a} who voted along, {d} the day)
REASONS = {
    "murdered": (  # ({n}: "that night", or "on night 3" where the wolves took longer)
        "{t} voted against {v} on day {d}, and the wolves murdered {v} {n}.",
        "On day {d} {t} wanted {v} gone; {n} {v} was murdered.",
        "{t} voted to execute {v} on day {d}, and the wolves finished the job {n}.",
    ),
    "along": (
        "{t} voted with {a} against {v} on day {d}.",
        "On day {d}, {t} and {a} both went after {v}.",
        "{t} joined {a} against {v} on day {d}.",
    ),
    "accused": (
        "{t} accused {v}, and the wolves killed {v}.",
        "{t} pointed at {v}, and {v} was murdered.",
    ),
    "points": (
        "{t} keeps pointing at {v} without a reason.",
        "{t} accuses {v} with nothing to show for it.",
        "{t} is very quick to blame {v}.",
    ),
}
PACK = (  # in the Hideout
    "Let us take {t} tonight.",
    "Let us take {t} tonight: they are the most dangerous.",
    "I say we take {t} tonight.",
)


def pick(bank: tuple[str, ...], rng: random.Random, **words: object) -> str:
    """One phrasing of ``bank`` with ``words`` filled in, its spaces tidied."""
    text = rng.choice(bank).format(**words)
    return " ".join(text.split())


def reason(kind: str, rng: random.Random, me: str = "", **words: object) -> str:
    """One phrasing of a reason of ``kind`` (a key of ``REASONS``), said by ``me``: where
    a name is the speaker's own it says "me" ("Bob is very quick to blame me", not
    "... to blame Fay" in Fay's mouth)."""
    return pick(REASONS[kind], rng,
                **{k: "me" if me and str(v) == me else str(v) for k, v in words.items()})


def suspect_line(target: str, reason: str, rng: random.Random) -> str:
    if not reason:
        return pick(SUSPECT, rng, t=target, r=pick(HUNCH, rng, t=target))
    return pick(SUSPECT, rng, t=target, r=reason)


def change_line(target: str, old: str | None, reason: str, rng: random.Random) -> str:
    if old is None:
        return pick(FIRST, rng, t=target, r=reason)
    return pick(CHANGE, rng, t=target, old=old, r=reason)


def pack_line(target: str, rng: random.Random) -> str:
    return pick(PACK, rng, t=target)
