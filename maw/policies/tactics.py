"""The hybrid agent's tactics as Sato et al. describe them (``hybrid-llm-agent-paper``,
§4.4): rules that recognise a situation of the talk and pick a template line for it (an
:class:`Intent`), which a model may then put in a persona's words (``maw.llm.hybrid``).

The authors' agent (github.com/meiji-yokoyama-lab/AIWolfDial2024) has 14 templates, one
per situation, in ``src/agent/lib/template.py``; the criteria that pick them are in its
``src/agent/main.py`` (``Agent.talk``). :data:`SITUATIONS` maps each to what MAW does
with it. Two are the paper's own subject:

* **counter-CO**: a werewolf that a lone Seer claimant has exposed (divined a werewolf,
  in the open) comes out as the real Seer and calls the accuser a werewolf faking the
  Seer: an exposed wolf with nothing to say is as good as executed;
* **closing the conversation**: the talk's purpose is the vote, so a player ends its talk
  once every other living player has declared or implied its vote, and asks (``@Name``,
  AIWolf's ``>>Agent[x]``) those who have not.

Every line here is a statement of the claims grammar (``claims.py``) with plain words
around it, and every claim it makes on purpose (a lie included) is in its intent's
``allowed``: the gate (``maw.policies.gate``) lets nothing else through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from maw.engine import PlayerView
from maw.engine.roles import role_named
from maw.engine.rulesets import WinCondition
from maw.policies import claims
from maw.policies.base import rules_of

# template.py's 14 constants -> what MAW's hybrid strategy does with each (the report of
# issue 42 lists them; a test checks that each implemented one has its rule)
SITUATIONS: Mapping[str, str] = {
    "OVER": "the talk-ending action once it has closed: Over where the ruleset has one "
            "(AIWolf, werewolf-12), else it listens (MAW has no Over)",
    "SKIP": "not a line: the authors' stop-gap when the model times out; MAW's hybrid "
            "falls back on the template line itself, and a player with nothing to say "
            "listens",
    "GLHF": "greeting: the talk of a day without a vote (AIWolf's day 0)",
    "DAY1_MORNING": "morning: the day's first speaker on the first day of votes, with "
                    "nothing to report, asks for the Seer's result",
    "DAY2_MORNING": "morning: the day's first speaker on a later day (its suspect follows)",
    "DAY1_EVENING": "closing: everyone else has declared or implied a vote",
    "DAY2_EVENING": "closing on the last day (three living: the vote decides the game)",
    "DAY1_ENDING": "closing when more than half of the living vote for it",
    "DAY2_ENDING": "closing on the last day when more than half of the living vote for it",
    "VOTE_INQUIRE": "mention: after its first line, once a day, it asks with @Name the "
                    "living players who have not declared a vote",
    "SEER_DECLARE": "coming out with results: the Seer; the Possessed when it fakes the "
                    "Seer (the authors' criteria: fake_seer)",
    "COUNTER_SEER": "counter-CO: a werewolf exposed by a lone Seer claimant; the Possessed "
                    "against a lone Seer claimant who found a werewolf",
    "WEREWOLF_DECLARE": "the Possessed on the last day of a parity game says it is the "
                        "werewolf and asks to be executed (its death wins the game for "
                        "the wolves)",
    "WEREWOLF_DEAD": "the Possessed's closing after WEREWOLF_DECLARE",
}


@dataclass(frozen=True)
class Intent:
    """What the player means to say: ``text`` in the claims grammar (the template line),
    ``reason`` in plain words, and the claims it makes on purpose (a lie included).
    ``situation`` names the authors' template it comes from (a key of
    :data:`SITUATIONS`; empty for MAW's own lines)."""

    text: str
    reason: str = ""
    allowed: tuple[claims.Claim, ...] = field(default_factory=tuple)
    situation: str = ""

    def template(self) -> str:
        return f"{self.text} {self.reason}".strip()


# ------------------------------------------------------------------ the situations

def first_vote_day(view: PlayerView) -> int:
    """The first day with an execution vote: a game that counts from day 0 (AIWolf,
    werewolf-12) votes first on day 1 (day 0 is talk alone, or a night)."""
    first = rules_of(view).first_day
    return first + 1 if first == 0 else first


def vote_today(view: PlayerView) -> bool:
    """Does today's talk lead to a vote? (Not on AIWolf's day 0, whose talk is a
    greeting.)"""
    return view.day >= first_vote_day(view)


def night_passed(view: PlayerView) -> bool:
    """Could a Seer have a result by now (a night has passed)? MAW's first night follows
    day 1; AIWolf's and werewolf-12's night 0 comes before day 1."""
    return view.day > rules_of(view).first_day


def last_day(view: PlayerView) -> bool:
    """Three living: the day's vote decides the game (the authors' day 2 of five)."""
    return len(view.living) <= 3


def dealt(view: PlayerView, role: str) -> bool:
    """Is ``role`` dealt in this game? (The gate refuses a role the game lacks.)"""
    return any(r.name == role for r in rules_of(view).roles_for(len(view.players)))


def lone_claimant(me: str, role: str, claimed: Mapping[str, str],
                  living: Iterable[str]) -> str | None:
    """The one other living player who came out as ``role``, if exactly one did."""
    alive = set(living)
    rivals = [p for p, r in claimed.items() if r == role and p != me and p in alive]
    return rivals[0] if len(rivals) == 1 else None


def exposed_by(view: PlayerView, claimed: Mapping[str, str],
               said_results: Iterable[tuple[str, str, str]]) -> tuple[str, str] | None:
    """COUNTER_SEER for a werewolf: the lone claimant of a role that reports divinations
    (the Seer) who said in the open that this werewolf is one; ``(accuser, role)``.
    (The authors' agent: one Seer in its seer analysis, who said "black" of it.)"""
    if not view.pack:
        return None
    results = list(said_results)
    for role in sorted({r for r in claimed.values() if role_named(r).reports == "divine"}):
        accuser = lone_claimant(view.player, role, claimed, view.living)
        if accuser is None or accuser in view.pack or not dealt(view, role):
            continue
        if (accuser, view.player, "werewolf") in results:
            return accuser, role
    return None


def black_by(me: str, accuser: str, said_results: Iterable[tuple[str, str, str]]
             ) -> str | None:
    """Whom ``accuser`` called a werewolf (its last such claim), not ``me``: the
    Possessed counters a Seer who found a wolf (one who called the Possessed a wolf lies,
    and is a wolf's fake: left alone)."""
    found = [t for s, t, v in said_results if s == accuser and v == "werewolf"]
    return found[-1] if found and me not in found else None


def sacrifice(view: PlayerView) -> bool:
    """WEREWOLF_DECLARE: the Possessed lives with two others in a parity game that goes
    on, so one is a werewolf and one human; its own execution leaves one wolf to one
    human, which the wolves win."""
    return view.role == "Possessed" and len(view.living) == 3 and \
        view.player in view.living and rules_of(view).win is WinCondition.PARITY


def undeclared(view: PlayerView, declared: Mapping[str, str], done: Iterable[str]
               ) -> list[str]:
    """The other living players who have neither declared nor implied a vote today:
    ``declared`` (a vote claim or a werewolf named, heard today), ``done`` (said Over
    today: the authors take a player who stops talking to have chosen), or a vote cast
    that this player sees."""
    finished = set(done) | set(declared) | set(view.votes)
    return [p for p in view.living if p != view.player and p not in finished]


def against(view: PlayerView, declared: Mapping[str, str]) -> int:
    """How many players declared, or cast, a vote for this player today."""
    votes = {**declared, **view.votes}
    return sum(1 for voter, t in votes.items() if t == view.player and voter != view.player)


# ------------------------------------------------------------------ the lines

def greeting(me: str) -> Intent:
    return Intent(f"Hello everyone, I am {me}. Let us enjoy this game together.",
                  situation="GLHF")


def morning(view: PlayerView, seer: bool) -> Intent:
    """The day's first line (nothing heard yet): on the first day of votes it asks for
    the Seer's result (where a Seer is dealt); later, a greeting its suspect follows."""
    if view.day == first_vote_day(view):
        ask = " First I want to hear what the Seer saw." if seer else \
            " Tell us whom you suspect."
        return Intent("Good morning. We have werewolves to find." + ask,
                      situation="DAY1_MORNING")
    return Intent("Good morning. We still have werewolves to find.",
                  situation="DAY2_MORNING")


def seer_declare(role: str, me: str, found: list[tuple[str, str]]) -> Intent:
    """SEER_DECLARE: a coming-out with results (true, or a Possessed's fake)."""
    lines = [claims.say_role(role), *(claims.say_species(t, s) for t, s in found[-2:])]
    allowed = (claims.Claim("role", me, me, role),
               *(claims.Claim("species", me, t, s) for t, s in found))
    return Intent(" ".join(lines), "", allowed, "SEER_DECLARE")


def counter_seer(me: str, role: str, accuser: str) -> Intent:
    """COUNTER_SEER: "I am the real Seer; my result says the accuser is a werewolf, so it
    fakes the Seer" (the paper's Table 3)."""
    text = (f"{claims.say_role(role)} I am the real one. {claims.say_species(accuser, 'werewolf')} "
            f"{accuser} fakes the {role} to save the wolves.")
    return Intent(text, "", (claims.Claim("role", me, me, role),
                             claims.Claim("species", me, accuser, "werewolf")),
                  "COUNTER_SEER")


def werewolf_declare(me: str) -> Intent:
    return Intent(f"{claims.say_role('Werewolf')} All of you, execute me today.", "",
                  (claims.Claim("role", me, me, "Werewolf"),), "WEREWOLF_DECLARE")


def mention(names: list[str], mine: str | None) -> Intent:
    """VOTE_INQUIRE: the undeclared, asked by name; its own vote first (so two players who
    each wait for the other still both declare)."""
    ask = " ".join(f"@{n}" for n in names)
    vote = f"I vote for {mine}. " if mine else ""
    return Intent(f"{vote}{ask}, you have not said whom you vote for. Whom do you vote "
                  "for?", situation="VOTE_INQUIRE")


def closing(view: PlayerView, mine: str | None, reason: str, votes_on_me: int,
            declared_werewolf: bool) -> Intent:
    """The closing line (DAY1/DAY2_EVENING, DAY1/DAY2_ENDING, WEREWOLF_DEAD): its vote
    and why, then why the talk is over for it."""
    vote = f"I vote for {mine}." if mine else ""
    last = last_day(view)
    if declared_werewolf:
        return Intent("The Werewolf is found, and the game is over for me.",
                      situation="WEREWOLF_DEAD")
    if 2 * votes_on_me > len(view.living):
        if last:
            end = "I am not a werewolf, but my execution looks certain: then the village loses."
        else:
            end = "Most of you vote for me. I am not a werewolf, but I accept the vote."
        return Intent(f"{vote} {end}".strip(), situation="DAY2_ENDING" if last
                      else "DAY1_ENDING")
    if last:
        end = "This may be my last word in this game. I hope the village sees the morning."
    else:
        end = "We have all said where our votes go: no need to talk more today."
    text = f"{vote} {reason}".strip() if mine else ""
    return Intent(f"{text} {end}".strip(), situation="DAY2_EVENING" if last
                  else "DAY1_EVENING")
