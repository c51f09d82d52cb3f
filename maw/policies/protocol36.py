"""The AIWolf Protocol division's talk language, version 3.6: its sentences parsed and
printed as the platform's own ``org.aiwolf.client.lib.Content`` does (AIWolfCommon 0.6.x,
``Content.java``), built as its ``ContentBuilder`` classes build them, and read as MAW's
claims (``maw.policies.claims``) so that every decider hears them.

The 23 kinds: the topics ``ESTIMATE COMINGOUT DIVINATION DIVINED IDENTIFIED GUARD GUARDED
VOTE VOTED ATTACK ATTACKED AGREE DISAGREE OVER SKIP`` and the operators ``REQUEST INQUIRE
BECAUSE AND OR XOR NOT DAY``, nested to any depth::

    Agent[01] COMINGOUT Agent[01] SEER
    DIVINED Agent[03] WEREWOLF
    BECAUSE (DIVINED Agent[03] WEREWOLF) (VOTE Agent[03])
    REQUEST ANY (VOTE Agent[03])
    Agent[02] AGREE TALK day1 ID:4
    DAY 1 (Agent[01] DIVINED Agent[03] HUMAN)

As in ``Content.java``: a sentence's subject may be left out (then an inner sentence
takes its outer one's, or, inside REQUEST and INQUIRE, the outer target); printing leaves
out an inner subject equal to the one it would take; ``Agent[1]`` reads as ``Agent[01]``;
``Over`` and ``Skip`` are the platform's words for OVER and SKIP, and the two stay apart
(OVER: nothing more to say today; SKIP: nothing now). ``parse`` raises ``ContentError``
with one line saying what is wrong where the platform validates (``Content.validate``);
``parse(text, lenient=True)`` reads a bad sentence as SKIP, as the platform's own
``new Content(text)`` does with what an agent said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from maw.errors import MawError

TOPICS = ("ESTIMATE", "COMINGOUT", "DIVINATION", "DIVINED", "IDENTIFIED", "GUARD", "GUARDED",
          "VOTE", "VOTED", "ATTACK", "ATTACKED", "AGREE", "DISAGREE", "OVER", "SKIP")
OPERATORS = ("REQUEST", "INQUIRE", "BECAUSE", "AND", "OR", "XOR", "NOT", "DAY")
ROLES = ("BODYGUARD", "FREEMASON", "MEDIUM", "POSSESSED", "SEER", "VILLAGER", "WEREWOLF",
         "FOX", "ANY")
SPECIES = ("HUMAN", "WEREWOLF", "ANY")
TALK_TYPES = ("TALK", "WHISPER")
OVER_TEXT, SKIP_TEXT = "Over", "Skip"  # (org.aiwolf.common.data.Talk)
# how each kind is written (after an optional subject: Agent[NN] or ANY), for the errors
FORMS = {
    **dict.fromkeys(("ESTIMATE", "COMINGOUT"), "{} Agent[NN] ROLE"),
    **dict.fromkeys(("DIVINED", "IDENTIFIED"), "{} Agent[NN] HUMAN|WEREWOLF"),
    **dict.fromkeys(("DIVINATION", "GUARD", "GUARDED", "VOTE", "VOTED", "ATTACK",
                     "ATTACKED"), "{} Agent[NN]"),
    **dict.fromkeys(("AGREE", "DISAGREE"), "{} TALK|WHISPER dayN ID:N"),
    **dict.fromkeys(("REQUEST", "INQUIRE"), "{} Agent[NN] (SENTENCE)"),
    **dict.fromkeys(("BECAUSE", "XOR"), "{} (SENTENCE) (SENTENCE)"),
    **dict.fromkeys(("AND", "OR"), "{} (SENTENCE) (SENTENCE) ..."),
    "NOT": "NOT (SENTENCE)", "DAY": "DAY N (SENTENCE)", "OVER": "Over", "SKIP": "Skip",
}
FORMS = {k: v.format(k) for k, v in FORMS.items()}


class ContentError(MawError, ValueError):
    """A sentence that is not Protocol 3.6 (one line: what is wrong)."""


@dataclass(frozen=True, order=True)
class Agent:
    """``Agent[NN]``; index 0 is ``ANY`` (as ``Content.ANY = Agent.getAgent(0)``)."""

    idx: int

    def __str__(self) -> str:
        return "ANY" if self.idx == 0 else f"Agent[{self.idx:02d}]"


ANY = Agent(0)
Subject = Agent | None  # None: left out (``Content.UNSPEC``)


@dataclass(frozen=True)
class Content:
    """One sentence. ``topic`` is one of ``TOPICS`` or ``"OPERATOR"`` (then ``operator``
    is one of ``OPERATORS`` and ``contents`` its sentences)."""

    topic: str
    subject: Subject = None
    target: Agent = ANY
    role: str | None = None  # ESTIMATE, COMINGOUT
    result: str | None = None  # DIVINED, IDENTIFIED
    talk_type: str | None = None  # AGREE, DISAGREE: TALK or WHISPER, the day, the ID
    talk_day: int = -1
    talk_id: int = -1
    operator: str | None = None
    contents: tuple[Content, ...] = ()
    day: int = -1  # DAY
    text: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        """The sentence's kind: its topic, or its operator."""
        return self.operator or self.topic

    def __str__(self) -> str:
        return self.text


# ------------------------------------------------------------------ building


def _made(c: Content) -> Content:
    """``c`` as ``Content(ContentBuilder)`` leaves it: inner subjects completed, its text
    printed."""
    c = _complete(c)
    return replace(c, text=_print(c))


def _complete(c: Content) -> Content:
    """Inner sentences without a subject take the outer target (REQUEST, INQUIRE) or the
    outer subject (the others, where it is given); ``completeInnerSubject``."""
    if not c.contents:
        return c
    inner = []
    for x in c.contents:
        if x.subject is None and c.operator in ("REQUEST", "INQUIRE"):
            x = _made(replace(x, subject=c.target))
        elif x.subject is None and c.subject is not None:
            x = _made(replace(x, subject=c.subject))
        else:
            x = _made(x)
        inner.append(x)
    return replace(c, contents=tuple(inner))


def _head(c: Content) -> str:
    return "" if c.subject is None else f"{c.subject} "


def _inner(x: Content, same: Subject) -> str:
    """An inner sentence, its subject left out where it is ``same`` (``stripSubject``)."""
    text = x.text or _print(x)
    return f"({_strip(text) if x.subject == same else text})"


def _strip(text: str) -> str:
    m = re.match(r"^(Agent\[\d+\]|ANY|)\s*([A-Z]+)(.*)$", text)
    return m.group(2) + m.group(3) if m else text


def _print(c: Content) -> str:
    """``normalizeText``."""
    if c.topic == "SKIP":
        return SKIP_TEXT
    if c.topic == "OVER":
        return OVER_TEXT
    if c.topic in ("AGREE", "DISAGREE"):
        return f"{_head(c)}{c.topic} {c.talk_type} day{c.talk_day} ID:{c.talk_id}"
    if c.topic in ("ESTIMATE", "COMINGOUT"):
        return f"{_head(c)}{c.topic} {c.target} {c.role}"
    if c.topic in ("DIVINED", "IDENTIFIED"):
        return f"{_head(c)}{c.topic} {c.target} {c.result}"
    if c.topic != "OPERATOR":
        return f"{_head(c)}{c.topic} {c.target}"
    op = c.operator
    if op in ("REQUEST", "INQUIRE"):
        return f"{_head(c)}{op} {c.target} {_inner(c.contents[0], c.target)}"
    if op == "DAY":
        return f"{_head(c)}DAY {c.day} {_inner(c.contents[0], c.subject)}"
    return f"{_head(c)}{op} " + " ".join(_inner(x, c.subject) for x in c.contents)


def topic(name: str, target: Agent = ANY, subject: Subject = None, *, role: str | None = None,
          result: str | None = None) -> Content:
    """A sentence of a topic (``ESTIMATE`` ... ``ATTACKED``), as its builder makes it."""
    if name not in TOPICS or name in ("AGREE", "DISAGREE", "OVER", "SKIP"):
        raise ContentError(f"{name!r} is not a topic with a target")
    if name in ("ESTIMATE", "COMINGOUT") and role not in ROLES:
        raise ContentError(f"{name} needs a role ({', '.join(ROLES)}), not {role!r}")
    if name in ("DIVINED", "IDENTIFIED") and result not in SPECIES:
        raise ContentError(f"{name} needs a species ({', '.join(SPECIES)}), not {result!r}")
    return _made(Content(name, subject, target, role=role, result=result))


def estimate(target: Agent, role: str, subject: Subject = None) -> Content:
    return topic("ESTIMATE", target, subject, role=role)


def comingout(target: Agent, role: str, subject: Subject = None) -> Content:
    return topic("COMINGOUT", target, subject, role=role)


def divined(target: Agent, result: str, subject: Subject = None) -> Content:
    return topic("DIVINED", target, subject, result=result)


def identified(target: Agent, result: str, subject: Subject = None) -> Content:
    return topic("IDENTIFIED", target, subject, result=result)


def vote(target: Agent, subject: Subject = None) -> Content:
    return topic("VOTE", target, subject)


def agree(talk_type: Literal["TALK", "WHISPER"], talk_day: int, talk_id: int,
          subject: Subject = None, disagree: bool = False) -> Content:
    if talk_type not in TALK_TYPES:
        raise ContentError(f"a talk is TALK or WHISPER, not {talk_type!r}")
    return _made(Content("DISAGREE" if disagree else "AGREE", subject, talk_type=talk_type,
                         talk_day=talk_day, talk_id=talk_id))


def operator(op: str, *contents: Content, subject: Subject = None, target: Agent = ANY,
             day: int = -1) -> Content:
    """A sentence of sentences: REQUEST and INQUIRE (of ``target``), BECAUSE and XOR (two),
    NOT and DAY (one; DAY of ``day``), AND and OR (one or more)."""
    if op not in OPERATORS:
        raise ContentError(f"{op!r} is not an operator ({', '.join(OPERATORS)})")
    _count(op, len(contents))
    return _made(Content("OPERATOR", subject, target, operator=op, contents=contents,
                         day=day))


def _count(op: str, n: int) -> None:
    want = {"BECAUSE": 2, "XOR": 2, "NOT": 1, "DAY": 1, "REQUEST": 1, "INQUIRE": 1}.get(op)
    if want is not None and n != want:
        raise ContentError(f"{op} takes {want} sentence{'s' * (want > 1)} in brackets, not {n}")
    if want is None and n < 1:
        raise ContentError(f"{op} takes one sentence or more in brackets")


OVER = _made(Content("OVER"))
SKIP = _made(Content("SKIP"))


# ------------------------------------------------------------------ parsing

_AGENT = r"(Agent\[\d+\]|ANY)"
_SUBJECT = r"^(Agent\[\d+\]|ANY|)\s*"
_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("agree", re.compile(_SUBJECT + r"(AGREE|DISAGREE)\s+([A-Z]+)\s+day(\d+)\s+ID:(\d+)$")),
    ("estimate", re.compile(_SUBJECT + r"(ESTIMATE|COMINGOUT)\s+" + _AGENT + r"\s+([A-Z]+)$")),
    ("divined", re.compile(_SUBJECT + r"(DIVINED|IDENTIFIED)\s+" + _AGENT + r"\s+([A-Z]+)$")),
    ("attack", re.compile(_SUBJECT + r"(ATTACK|ATTACKED|DIVINATION|GUARD|GUARDED|VOTE|VOTED)"
                          r"\s+" + _AGENT + "$")),
    ("request", re.compile(_SUBJECT + r"(REQUEST|INQUIRE)\s+" + _AGENT + r"\s+(\(.*\))$")),
    ("because", re.compile(_SUBJECT + r"(BECAUSE|AND|OR|XOR|NOT|REQUEST)\s+(\(.*\))$")),
    ("day", re.compile(_SUBJECT + r"DAY\s+(\d+)\s+(\(.*\))$")),
]


def _agent(text: str) -> Subject:
    if not text:
        return None
    return ANY if text == "ANY" else Agent(int(text[6:-1]))


def _brackets(text: str) -> list[str]:
    """The sentences of ``(a) (b) ...`` (``getContentStrings``); an unbalanced bracket is
    an error."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ContentError(f"a ')' closes no bracket in {text!r}")
            if depth == 0:
                out.append(text[start + 1:i])
        elif depth == 0 and not ch.isspace():
            raise ContentError(f"{text!r}: {ch!r} outside the brackets")
    if depth:
        raise ContentError(f"a '(' is not closed in {text!r}")
    return out


def parse(text: str, lenient: bool = False) -> Content:
    """The sentence ``text`` says; ``ContentError`` if it is not one (``lenient``: SKIP,
    as the platform reads an agent's bad talk)."""
    try:
        return _made(_parse(text))
    except ContentError:
        if lenient:
            return SKIP
        raise


def _one(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ContentError(f"{value!r} is not a {what} ({', '.join(allowed)})")
    return value


def _parse(text: str) -> Content:
    s = text.strip()
    if s == SKIP_TEXT:
        return Content("SKIP")
    if s == OVER_TEXT:
        return Content("OVER")
    for name, pattern in _PATTERNS:
        m = pattern.match(s)
        if m is None:
            continue
        g = m.groups()
        subject = _agent(g[0])
        if name == "agree":
            return Content(g[1], subject, talk_type=_one(g[2], TALK_TYPES, "talk type"),
                           talk_day=int(g[3]), talk_id=int(g[4]))
        if name == "estimate":
            return Content(g[1], subject, _agent(g[2]) or ANY,
                           role=_one(g[3], ROLES, "role"))
        if name == "divined":
            return Content(g[1], subject, _agent(g[2]) or ANY,
                           result=_one(g[3], SPECIES, "species"))
        if name == "attack":
            return Content(g[1], subject, _agent(g[2]) or ANY)
        if name == "request":
            inner = tuple(_parse(x) for x in _brackets(g[3]))
            _count(g[1], len(inner))
            return Content("OPERATOR", subject, _agent(g[2]) or ANY, operator=g[1],
                           contents=inner)
        if name == "because":
            inner = tuple(_parse(x) for x in _brackets(g[2]))
            _count(g[1], len(inner))
            target = ANY
            if g[1] == "REQUEST":  # (version 2: the request's target is its sentence's subject)
                target = inner[0].subject or ANY
            return Content("OPERATOR", subject, target, operator=g[1], contents=inner)
        inner = tuple(_parse(x) for x in _brackets(g[2]))
        _count("DAY", len(inner))
        return Content("OPERATOR", subject, operator="DAY", contents=inner, day=int(g[1]))
    if s.lower() in ("over", "skip"):
        raise ContentError(f"{s!r}: Over and Skip are written so, a capital and three small "
                           "letters")
    if s.count("(") != s.count(")"):
        raise ContentError(f"{s!r}: a '(' is not closed" if s.count("(") > s.count(")")
                           else f"{s!r}: a ')' closes no bracket")
    word = re.match(_SUBJECT + r"(\S*)", s)
    head = word.group(2) if word else ""
    if head not in FORMS:
        raise ContentError(f"{s!r}: {head!r} is not a topic or an operator of Protocol 3.6")
    raise ContentError(f"{s!r} is not a sentence of Protocol 3.6: {head} is written "
                       f"'{FORMS[head]}'")


def valid(text: str) -> bool:
    """``Content.validate``."""
    try:
        parse(text)
    except ContentError:
        return False
    return True
