"""The claims of the rules texts about the night: the pack's talk and vote, its ties,
who dies, the first night (tests/engine/test_rules_claims.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from claims_games import (
    NIGHTTIME,
    Ctx,
    Game,
    Step,
    claim,
    guards,
    living,
    seen,
    wolves,
)

from maw.engine import Phase
from maw.engine.events import (
    AttackBlocked,
    Chatted,
    Guarded,
    Murdered,
    PhaseStarted,
    Revote,
    VoteCast,
    VotesRevealed,
)

# ---------------------------------------------------------------- the night's attack


def victim(step: Step) -> str | None:
    """Whom the pack's vote attacked, as the step shows it: the Witch is told (werewolf-12),
    or the attack is blocked, or murders; ``None``: nobody."""
    s = step.after
    if s.phase is Phase.WITCH and step.before.phase is not Phase.WITCH:
        return s.names[s.attack] if s.attack >= 0 else None  # (victim: whom she is told)
    for e in step.events:
        if isinstance(e, AttackBlocked):
            return e.target
        if isinstance(e, Murdered):
            return e.player
    return None


def night_votes(g: Game) -> Iterator[tuple[Step, dict[str, int], list]]:
    """Each closed attack vote of the pack (a vote of the most, AIWolf's and werewolf-12's):
    its step, the counts of the votes that count, and what followed."""
    rules = g.rules
    for step in g.steps:
        for i, e in enumerate(step.events):
            if isinstance(e, VotesRevealed) and e.kind == "attack":
                pack = wolves(step.before)
                counts: Counter = Counter(t for _v, t in e.votes if t in living(step.before)
                                          and (rules.self_knife or t not in pack))
                yield step, dict(counts), list(step.events[i + 1:])


@claim("attack", r"the player with the most votes is attacked")
def _most_attacked(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step, counts, _after in night_votes(g):
            top = max(counts.values(), default=0)
            tied = [t for t, c in counts.items() if c == top]
            if len(tied) <= 1 and victim(step) != (tied[0] if tied else None):
                yield f"{g}, night {step.before.day}: {counts}, then {victim(step)} is attacked"


def _attack_tie(ctx, g, step, tied, after, rule: str) -> Iterator[str]:
    got = victim(step)
    revote = next((e for e in after if isinstance(e, Revote)), None)
    if rule == "none" or (rule == "again" and step.before.vote_round == 0):
        if rule == "again" and not (revote and set(revote.tied) == set(tied) and
                                    revote.audience == wolves(step.before)):
            yield f"{g}, night {step.before.day}: a tie of {tied}, then {revote}"
        elif rule == "none" and (got is not None or revote):
            yield f"{g}, night {step.before.day}: a tie of {tied}, then {got} is attacked"
    elif got not in tied or revote:
        yield f"{g}, night {step.before.day}: a tie of {tied}, then {got} is attacked"


ATTACK_TIES = {
    "nobody is attacked": "none",
    "one of the tied is attacked at random": "random",
    "the werewolves vote once more, and if that vote ties too one of its tied is attacked at "
    "random": "again",
}


@claim("attack_tie", r"on a tie (?P<tie>" + "|".join(map(re.escape, ATTACK_TIES)) + ")")
def _attack_ties(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step, counts, after in night_votes(g):
            top = max(counts.values(), default=0)
            tied = [t for t, c in counts.items() if c == top]
            if len(tied) > 1:
                yield from _attack_tie(ctx, g, step, tied, after, ATTACK_TIES[m["tie"]])


@seen("attack_tie")
def _seen_attack_tie(ctx: Ctx) -> str:
    if ctx.rules.name == "maw":
        return ""
    return "tied attack votes" if any(
        len([c for c in counts.values() if c == max(counts.values())]) > 1
        for g in ctx.games for _s, counts, _a in night_votes(g)) else ""


@claim("attack", r"(?:then )?each votes (?P<once>once )?for a victim,? \(?(?P<who>never a "
                 r"werewolf|a werewolf too|a vote for a werewolf is not counted|who may be one "
                 r"of their own|who is not a werewolf)\)?")
def _attack_votes(ctx: Ctx, m: re.Match) -> Iterator[str]:
    on_wolves = 0
    for g in ctx.games:
        pack = set(g.of_role("Werewolf"))
        votes: Counter = Counter()
        for _phase, vround, e in g.events:
            if isinstance(e, VoteCast) and e.kind == "attack":
                on_wolves += e.target in pack
                votes[e.day, vround, e.voter] += 1
                if e.voter not in pack or e.audience != pack:
                    yield f"{g}, night {e.day}: {e.voter} votes to attack, told {e.audience}"
        if m["once"] and votes and max(votes.values()) > 1:
            yield f"{g}: a werewolf votes twice in one night"
    if (on_wolves > 0) != (m["who"] in ("a werewolf too", "a vote for a werewolf is not counted",
                                        "who may be one of their own")):
        yield f"werewolves vote {on_wolves} times to attack a werewolf"


@claim("attack", r", and may change that vote")
def _attack_changes(ctx: Ctx, m: re.Match) -> Iterator[str]:
    if not any(Counter((e.day, e.voter) for e in g.of(VoteCast) if e.kind == "attack")
               .most_common(1)[0][1] > 1 for g in ctx.games if any(
                   e.kind == "attack" for e in g.of(VoteCast))):
        yield "no werewolf ever changes its attack vote"


@claim("attack", r"the victim dies only if every living werewolf votes for the same player before "
                 r"the night ends(?P<guard>, and is not protected)?")
def _unanimity(ctx: Ctx, m: re.Match) -> Iterator[str]:
    murders = 0
    for g in ctx.games:
        guarded = guards(g)
        for step in g.steps:
            reveal = next((e for e in step.events if isinstance(e, VotesRevealed)
                           and e.kind == "attack"), None)
            if reveal is None:
                continue
            pack = wolves(step.before) & living(step.before)
            chosen = {t for v, t in reveal.votes if v in pack}
            voted = {v for v, _t in reveal.votes if v in pack}
            day = step.before.day
            target = next(iter(chosen)) if len(chosen) == 1 and voted == pack else None
            dead = [e.player for e in step.events if isinstance(e, Murdered)]
            murders += bool(dead)
            expect = [target] if target and (day, target) not in guarded else []
            if dead != expect or (m["guard"] is None and target and (day, target) in guarded):
                yield f"{g}, night {day}: the pack votes {reveal.votes}, and {dead} die"
    if not murders:
        yield "nobody is ever murdered"


@claim("first_night", r"Each night, the first one included,")
def _first_night_attack(ctx: Ctx, m: re.Match) -> Iterator[str]:
    night = ctx.rules.first_day
    if not any(e.kind == "attack" and e.day == night for g in ctx.games for e in g.of(VoteCast)):
        yield f"the werewolves never vote to attack on night {night}"
    if not any(e.day == night for g in ctx.games for e in g.of(Murdered)):
        yield f"nobody is ever murdered on night {night}"


@claim("first_night", r"[Tt]here is no (?P<what>attack(?: and no guard)?) on the first night")
def _no_first_night_attack(ctx: Ctx, m: re.Match) -> Iterator[str]:
    night = ctx.rules.first_day
    for g in ctx.games:
        for e in g.of(VoteCast, Murdered, Guarded):
            if e.day != night or isinstance(e, VoteCast) and e.kind != "attack" or (
                    isinstance(e, Guarded) and "guard" not in m["what"]):
                continue
            yield f"{g}, night {night}: {e}"


@seen("first_night")
def _seen_first_night(ctx: Ctx) -> str:
    return "the werewolves' attacks" if any(
        e.kind == "attack" for g in ctx.games for e in g.of(VoteCast)) else ""


@claim("hideout", r"(?:Each night )?the werewolves (?:talk|first whisper) in the Hideout"
                  r"(?: \(at most (?P<k>\d+) messages each\))?(?P<two>, while two or more of "
                  r"them live)?")
def _hideout(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        pack = set(g.of_role("Werewolf"))
        said: Counter = Counter()
        for phase, _r, e in g.events:
            if isinstance(e, Chatted) and e.room.value == "Hideout":
                said[e.day, e.speaker] += 1
                if e.speaker not in pack or e.audience != pack or phase not in NIGHTTIME:
                    yield f"{g}, night {e.day}: {e.speaker} in the Hideout in the {phase}"
                if m["k"] and said[e.day, e.speaker] > int(m["k"]):
                    yield f"{g}, night {e.day}: {e.speaker} whispers {said[e.day, e.speaker]} times"
        if m["two"]:
            opened = next(e for e in g.opening if isinstance(e, PhaseStarted))
            last = (opened.day, opened.phase)
            for step in g.steps:
                for e in step.events:
                    if not isinstance(e, PhaseStarted) or e.audience or e.vote_round:
                        continue
                    pack_alive = len(wolves(step.after) & living(step.after))
                    if e.phase == "whisper" and pack_alive < 2 or e.phase == "night" and (
                            last != (e.day, "whisper")) and pack_alive >= 2:
                        yield f"{g}, night {e.day}: the {e.phase} opens with {pack_alive} wolves"
                    last = (e.day, e.phase)


@seen("hideout")
def _seen_hideout(ctx: Ctx) -> str:
    return "the Hideout's talk" if any(
        e.room.value == "Hideout" for g in ctx.games for e in g.of(Chatted)) else ""


@claim("attack", r"The attacked player dies(?P<g> unless guarded)?\.")
def _dies(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        guarded = guards(g)
        for e in g.of(AttackBlocked, Murdered):
            target = e.target if isinstance(e, AttackBlocked) else e.player
            if isinstance(e, AttackBlocked) != (m["g"] is not None and (e.day, target) in guarded):
                yield f"{g}, night {e.day}: {type(e).__name__} {target}"
