"""The claims of the rules texts about the day: the talk, the vote and its ties
(tests/engine/test_rules_claims.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from claims_games import (
    Ctx,
    Game,
    Step,
    claim,
    living,
    seen,
)

from maw.engine import EndPhase, Phase, Vote, legal_actions
from maw.engine.events import (
    Chatted,
    Executed,
    NoExecution,
    Overed,
    Passed,
    Revote,
    Spared,
    VoteCast,
    VotesOpened,
    VotesRevealed,
    Whispered,
)

# ---------------------------------------------------------------- the day's talk


@claim("talk", r"Each day everyone talks in the Village(?: \(at most (?P<k>\d+) messages "
               r"each\))?(?P<over>, saying Over when done)?")
def _talk(ctx: Ctx, m: re.Match) -> Iterator[str]:
    limit = int(m["k"]) if m["k"] else None
    overs = 0
    for g in ctx.games:
        said: Counter = Counter()
        done: set[tuple[int, str]] = set()
        for phase, _r, e in g.events:
            if isinstance(e, Overed) and e.room.value == "Village" and phase == "day":
                overs += 1
                done.add((e.day, e.player))
            if not isinstance(e, Chatted) or e.room.value != "Village" or phase != "day":
                continue
            said[e.day, e.speaker] += 1
            if limit is not None and said[e.day, e.speaker] > limit:
                yield f"{g}, day {e.day}: {e.speaker} says {said[e.day, e.speaker]} messages"
            if (e.day, e.speaker) in done:
                yield f"{g}, day {e.day}: {e.speaker} talks after saying Over"
    if bool(overs) != bool(m["over"]):
        yield f"players say Over {overs} times"


@seen("talk")
def _talked(ctx: Ctx) -> str:
    return "talk in the Village" if any(g.of(Chatted) for g in ctx.games) else ""


@claim("votes_open", r"The votes open once every living player has spoken or passed \(or when "
                     r"the talk's share of the day is over\)\.")
def _votes_open(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step in g.steps:
            if step.before.phase is Phase.DAY and not step.before.ballot and any(
                    isinstance(e, VoteCast) for e in step.events):
                yield f"{g}, day {step.before.day}: a vote before the votes open"
            for e in step.events:
                if isinstance(e, VotesOpened) and e.by == "talk":
                    s = step.after
                    if not all(sp or dn for sp, dn, a in zip(s.spoken, s.done, s.alive,
                                                              strict=True) if a):
                        yield f"{g}, day {e.day}: the votes open before all spoke or passed"


@seen("votes_open")
def _seen_votes_open(ctx: Ctx) -> str:
    return "votes that open after the talk" if any(
        g.of(VotesOpened, Passed) for g in ctx.games) else ""


@claim("whisper", r"By day a living player may also whisper a line to one other living player, "
                  r"which nobody else hears \(at most (?P<k>\d+) whispers a day\)\.")
def _whisper(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        sent = Counter((e.day, e.speaker) for e in g.of(Whispered))
        if sent and max(sent.values()) > int(m["k"]):
            yield f"{g}: {max(sent.values())} whispers in a day"
        for phase, _r, e in g.events:
            if isinstance(e, Whispered) and (e.audience != {e.speaker, e.target} or
                                             phase != "day" or e.speaker == e.target):
                yield f"{g}: {e} in the {phase}"
    if not any(g.of(Whispered) for g in ctx.games):
        yield "nobody ever whispers"


@seen("whisper")
def _seen_whisper(ctx: Ctx) -> str:
    return "whispers" if any(g.of(Whispered) for g in ctx.games) else ""


@claim("length", r"A message is cut after (?P<b>\d+) characters, spaces not counted(?:; what "
                 r"follows your first mention of another player \(@Name\) may have (?P<m>\d+) "
                 r"more)?\.")
def _length(ctx: Ctx, m: re.Match) -> Iterator[str]:
    base, more = int(m["b"]), int(m["m"] or 0)
    cuts = 0
    for g in ctx.games:
        for step in g.steps:
            wrote = getattr(step.action, "text", None)
            for e in step.events:
                if not isinstance(e, Chatted) or wrote is None:
                    continue
                letters = len("".join(e.text.split()))
                at = e.text.find("@")
                room = base + (more if at >= 0 and len("".join(e.text[:at].split())) <= base
                               else 0)
                if letters > room or not wrote.startswith(e.text):
                    yield f"{g}: {wrote!r} is said as {e.text!r}"
                cuts += e.text != wrote
    if not cuts:
        yield "no message is ever cut"


# ---------------------------------------------------------------- the day's vote


def counted(step: Step, reveal: VotesRevealed) -> dict[str, float]:
    """The votes of a revealed vote, each target's count (the sheriff's 1.5)."""
    state = step.before
    sheriff = state.names[state.sheriff] if state.sheriff >= 0 else ""
    out: dict[str, float] = {}
    for voter, target in reveal.votes:
        if target in living(state):
            out[target] = out.get(target, 0) + (1.5 if voter == sheriff else 1)
    return out


def day_votes(g: Game) -> Iterator[tuple[Step, VotesRevealed, dict[str, float], list]]:
    """Each counted execution vote: its step, the votes, their counts, what followed."""
    for step in g.steps:
        for i, e in enumerate(step.events):
            if isinstance(e, VotesRevealed) and e.kind == "execute":
                yield step, e, counted(step, e), list(step.events[i + 1:])


def outcome(after: list) -> object | None:
    return next((e for e in after if isinstance(e, Executed | Spared | NoExecution | Revote)),
                None)


@claim("vote", r"(?:[Tt]he player with the most votes|the most voted) is executed"
               r"(?: \(no votes: nobody)?")
def _most_votes(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step, _e, counts, after in day_votes(g):
            top = max(counts.values(), default=0)
            tied = [t for t, c in counts.items() if c == top]
            got = outcome(after)
            if not counts:
                if not (isinstance(got, NoExecution) and got.reason == "no votes"):
                    yield f"{g}, day {step.before.day}: no votes, then {got}"
            elif len(tied) == 1 and not (isinstance(got, Executed | Spared) and (
                    got.player, got.votes) == (tied[0], top)):
                yield f"{g}, day {step.before.day}: {counts}, then {got}"


@seen("vote")
def _seen_vote(ctx: Ctx) -> str:
    return "executions" if any(g.of(Executed) for g in ctx.games) else ""


@claim("vote", r"When the day's time runs out,")
def _timer(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step in g.steps:
            if isinstance(step.action, EndPhase) and step.before.phase is Phase.DAY and not \
                    step.before.pending and not any(isinstance(e, VotesRevealed)
                                                    for e in step.events):
                yield f"{g}, day {step.before.day}: the day ends uncounted"


@claim("vote", r"Each living player has one public vote, which it may change or withdraw; "
               r"(?P<self>a vote for oneself is not allowed|it may vote for itself)\.")
def _public_vote(ctx: Ctx, m: re.Match) -> Iterator[str]:
    changes = withdrawals = selves = 0
    for g in ctx.games:
        for _phase, _round, e in g.events:
            if isinstance(e, VoteCast) and e.kind == "execute":
                if e.audience is not None:
                    yield f"{g}: {e.voter}'s vote is told to {e.audience} alone"
                withdrawals += e.target is None
                selves += e.voter == e.target
        for step in g.steps:
            if isinstance(step.action, Vote) and step.before.votes[
                    step.before.seat[step.action.actor]] >= 0:
                changes += 1
    if not changes or not withdrawals:
        yield f"votes changed {changes} times, withdrawn {withdrawals} times"
    if (selves > 0) != (m["self"] == "it may vote for itself"):
        yield f"{selves} votes for oneself"


@claim("vote", r"As soon as a majority of the living vote for the same player, that player is "
               r"executed\.")
def _majority(ctx: Ctx, m: re.Match) -> Iterator[str]:
    early = 0
    for g in ctx.games:
        for step in g.steps:
            if not isinstance(step.action, Vote):
                continue
            s = step.before
            t = s.seat[step.action.target]
            votes = list(s.votes)
            votes[s.seat[step.action.actor]] = t
            n = sum(1 for i, v in enumerate(votes) if v == t and s.alive[i])
            executed = any(isinstance(e, Executed | Spared) for e in step.events)
            early += executed
            if executed != (2 * n > sum(s.alive)):
                yield f"{g}, day {s.day}: {n} of {sum(s.alive)} vote {step.action.target}, " \
                      f"executed: {executed}"
    if not early:
        yield "no majority ever executes at once"


@claim("vote", r"[Tt]hen each living player casts one secret vote(?: for (?P<whom>another|any) "
               r"living player)?, and the votes are shown to all")
def _secret_vote(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        cast: Counter = Counter()
        for _p, vround, e in g.events:
            if isinstance(e, VoteCast) and e.kind == "execute":
                cast[e.day, vround, e.voter] += 1
                if e.audience != {e.voter} or cast[e.day, vround, e.voter] > 1:
                    yield f"{g}, day {e.day}: {e.voter}'s vote {e.target} (to {e.audience})"
            if isinstance(e, VotesRevealed) and e.kind == "execute" and e.audience is not None:
                yield f"{g}, day {e.day}: the votes are shown to {e.audience} alone"
        for step in g.steps:  # (every living player may vote, but a spared Idiot)
            s = step.after
            if s.phase is Phase.VOTE and step.before.phase is not Phase.VOTE:
                for i, name in enumerate(s.names):
                    may = any(isinstance(a, Vote) for a in legal_actions(s, name))
                    if may != (s.alive[i] and i not in s.exposed):
                        yield f"{g}, day {s.day}: {name} may vote: {may}"
    if m["whom"]:
        yield from self_votes(ctx, m["whom"] == "any")


def self_votes(ctx: Ctx, allowed: bool) -> Iterator[str]:
    selves = sum(1 for g in ctx.games for e in g.of(VoteCast)
                 if e.kind == "execute" and e.voter == e.target)
    if (selves > 0) != allowed:
        yield f"{selves} votes for oneself"


@claim("vote", r"Votes for oneself are (?P<ok>allowed|not allowed)\.")
def _self_vote(ctx: Ctx, m: re.Match) -> Iterator[str]:
    yield from self_votes(ctx, m["ok"] == "allowed")


# ---------------------------------------------------------------- ties


def _tie_none(ctx: Ctx, g: Game, step: Step, tied: list[str], after: list) -> Iterator[str]:
    got = outcome(after)
    if not (isinstance(got, NoExecution) and got.reason == "tie" and set(got.tied) == set(tied)):
        yield f"{g}, day {step.before.day}: a tie of {tied}, then {got}"


def _tie_random(ctx: Ctx, g: Game, step: Step, tied: list[str], after: list) -> Iterator[str]:
    got = outcome(after)
    if not (isinstance(got, Executed | Spared) and got.player in tied):
        yield f"{g}, day {step.before.day}: a tie of {tied}, then {got}"


def _tie_again(ctx: Ctx, g: Game, step: Step, tied: list[str], after: list, runoff: bool,
               last) -> Iterator[str]:
    s = step.before
    got = outcome(after)
    if s.vote_round == 0:
        if not (isinstance(got, Revote) and set(got.tied) == set(tied)
                and got.runoff == runoff and step.after.vote_round == 1
                and all(v < 0 for v in step.after.votes)):
            yield f"{g}, day {s.day}: a tie of {tied}, then {got}"
            return
        for i, name in enumerate(step.after.names):  # who may vote, for whom
            if step.after.alive[i] and i not in step.after.exposed:
                whom = {a.target for a in legal_actions(step.after, name)
                        if isinstance(a, Vote)}
                allowed = (set(tied) if runoff else living(step.after)) - (
                    set() if ctx.rules.self_vote else {name})
                if whom != allowed:
                    yield f"{g}, day {s.day}: {name} may vote for {whom} after a tie of {tied}"
    else:
        yield from last(ctx, g, step, tied, after)


TIES = {  # what each tie rule the texts tell does, for the day's vote ...
    "nobody is executed": _tie_none,
    "one of the tied is executed at random": _tie_random,
    "everyone votes once more, for any living player, and if that vote ties too one of its "
    "tied is executed at random":
        lambda *a: _tie_again(*a, runoff=False, last=_tie_random),
    "everyone votes once more, for one of the tied alone, and if they tie again nobody is "
    "executed":
        lambda *a: _tie_again(*a, runoff=True, last=_tie_none),
}


@claim("tie", r"on a tie (?P<tie>" + "|".join(map(re.escape, TIES)) + ")")
def _tie(ctx: Ctx, m: re.Match) -> Iterator[str]:
    rule = TIES[m["tie"]]
    for g in ctx.games:
        for step, _e, counts, after in day_votes(g):
            top = max(counts.values(), default=0)
            tied = [t for t, c in counts.items() if c == top]
            if len(tied) > 1:
                yield from rule(ctx, g, step, tied, after)


@seen("tie")
def _seen_tie(ctx: Ctx) -> str:
    return "tied votes" if any(len([c for c in counts.values() if c == max(counts.values())])
                               > 1 for g in ctx.games for _s, _e, counts, _a in day_votes(g)
                               ) else ""
