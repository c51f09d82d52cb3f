"""The claims of werewolf-12's rules text about its day: the sheriff, the badge, the turns
to speak, explosions, the Idiot, last words and the steps after deaths
(tests/engine/test_rules_claims.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from claims_games import Ctx, Game, claim, living, seen

from maw.engine import EndPhase, Phase, Vote, legal_actions
from maw.engine.events import (
    BadgePassed,
    Chatted,
    Executed,
    Exploded,
    Overed,
    PhaseStarted,
    Ran,
    SheriffElected,
    Spared,
    SpeakingOrder,
    VoteCast,
    VotesRevealed,
)

# ---------------------------------------------------------------- the sheriff


def election(g: Game) -> tuple[list, SheriffElected | None]:
    """Day 1's election: its events in order, and its result."""
    out = [(p, e) for p, _r, e in g.events if p in ("candidacy", "campaign", "election")]
    result = next((e for e in g.of(SheriffElected)), None)
    return out, result


@claim("sheriff", r"On day 1, before its talk, the village elects a sheriff: any living player "
                  r"may stand; each candidate speaks once and may stand down; then everyone who "
                  r"did not stand votes for one of the candidates left, and the one with the "
                  r"most votes is sheriff\.")
def _elected(ctx: Ctx, m: re.Match) -> Iterator[str]:
    withdrawn = 0
    for g in ctx.games:
        events, result = election(g)
        if not events:
            continue
        day1 = next(e.phase for e in g.phases() if e.audience is None and e.day == 1)
        if day1 != "candidacy" or any(e.day != 1 for _p, e in events if hasattr(e, "day")):
            yield f"{g}: the election is not the start of day 1"
        ran = {e.player for _p, e in events if isinstance(e, Ran) and not e.withdrawn}
        left = ran - {e.player for _p, e in events if isinstance(e, Ran) and e.withdrawn}
        withdrawn += len(ran) - len(left)
        spoke = Counter(e.speaker for p, e in events if isinstance(e, Chatted)
                        and p == "campaign")
        if any(n > 1 for n in spoke.values()) or set(spoke) - ran:
            yield f"{g}: the campaign's speeches {dict(spoke)}"
        votes = {e.voter: e.target for _p, e in events if isinstance(e, VoteCast)
                 and e.kind == "sheriff"}
        if set(votes) & ran or set(votes.values()) - left:
            yield f"{g}: sheriff votes {votes} (stood: {ran}, left: {left})"
        counts = Counter(votes.values())
        top = [t for t, c in counts.items() if c == max(counts.values())] if counts else []
        if len(left) > 1 and votes and len(top) == 1 and result.sheriff != top[0]:
            yield f"{g}: {counts}, then sheriff {result.sheriff!r}"
    if not withdrawn:
        yield "no candidate ever stands down"
    for g in ctx.games:  # (any living player may stand)
        for step in g.steps:
            s = step.after
            if s.phase is Phase.CANDIDACY and step.before.phase is not Phase.CANDIDACY:
                if {n for n in s.living() if any(type(a).__name__ == "Run"
                                                 for a in legal_actions(s, n))} != living(s):
                    yield f"{g}: not every living player may stand"


@claim("sheriff", r"There is no sheriff if nobody or everyone stands, or if the vote ties; a lone "
                  r"candidate is sheriff without a vote\.")
def _no_sheriff(ctx: Ctx, m: re.Match) -> Iterator[str]:
    cases: Counter = Counter()
    for g in ctx.games:
        events, result = election(g)
        if result is None:
            continue
        ran = {e.player for _p, e in events if isinstance(e, Ran) and not e.withdrawn}
        left = ran - {e.player for _p, e in events if isinstance(e, Ran) and e.withdrawn}
        alive = next(living(st.after) for st in g.steps if st.after.phase is Phase.CANDIDACY)
        counts = Counter(t for _v, t in result.votes)
        top = max(counts.values(), default=0)
        tie = list(counts.values()).count(top) > 1
        case = ("nobody" if not ran else "everyone" if ran >= alive else "lone"
                if len(left) == 1 else "tie" if tie else "")
        cases[case] += 1
        if case in ("nobody", "everyone", "tie") and result.sheriff:
            yield f"{g}: {case} ({sorted(ran)}), yet {result.sheriff} is sheriff"
        if case == "lone" and (result.sheriff, result.votes) != (next(iter(left)), ()):
            yield f"{g}: {left} alone, then {result}"
    for case in ("everyone", "lone", "tie"):
        if not cases[case]:
            yield f"never a case of {case}"


@seen("sheriff")
def _seen_sheriff(ctx: Ctx) -> str:
    return "a sheriff" if any(e.sheriff for g in ctx.games for e in g.of(SheriffElected)) else ""


@claim("sheriff_weight", r"The sheriff's vote counts 1\.5 in the day's vote\.")
def _weight(ctx: Ctx, m: re.Match) -> Iterator[str]:
    halves = 0
    for g in ctx.games:
        for step in g.steps:
            sheriff = step.before.names[step.before.sheriff] if step.before.sheriff >= 0 else ""
            for i, e in enumerate(step.events):
                if not isinstance(e, VotesRevealed) or e.kind != "execute":
                    continue
                done = next((x for x in step.events[i:] if isinstance(x, Executed | Spared)),
                            None)
                if done is None:
                    continue
                n = sum(1.5 if v == sheriff else 1 for v, t in e.votes if t == done.player)
                halves += n != int(n)
                if done.votes != n:
                    yield f"{g}, day {e.day}: {done.player} executed with {done.votes}, " \
                          f"counted {n} (sheriff {sheriff!r})"
    if not halves:
        yield "the sheriff's half vote never counts"


@seen("sheriff_weight")
def _seen_weight(ctx: Ctx) -> str:
    return _seen_sheriff(ctx)


@claim("badge", r"When the sheriff dies, it passes the badge to a living player, who is sheriff "
                r"from then on, or tears it \(as it does if it does neither in time\), and then "
                r"nobody is sheriff for the rest of the game\.")
def _badge(ctx: Ctx, m: re.Match) -> Iterator[str]:
    kinds: Counter = Counter()
    for g in ctx.games:
        torn = False
        for step in g.steps:
            b, s = step.before, step.after
            if torn and s.sheriff >= 0:
                yield f"{g}, day {s.day}: a sheriff after the badge was torn"
            if b.sheriff >= 0 and b.alive[b.sheriff] and not s.alive[b.sheriff] and \
                    not s.is_over and not any(isinstance(e, PhaseStarted) and e.phase in (
                        "badge", "hunt") for e in step.events):
                yield f"{g}, day {s.day}: the sheriff dies, and no badge step comes"
            for e in step.events:
                if not isinstance(e, BadgePassed):
                    continue
                kinds["timer" if isinstance(step.action, EndPhase) else
                      "tear" if not e.target else "pass"] += 1
                if e.target and (not s.alive[s.seat[e.target]] or s.sheriff != s.seat[e.target]):
                    yield f"{g}: the badge passes to {e.target}"
                if not e.target:
                    if s.sheriff >= 0:
                        yield f"{g}: a torn badge leaves a sheriff"
                    torn = True
    for kind in ("pass", "tear", "timer"):
        if not kinds[kind]:
            yield f"no badge is ever passed by {kind}"


@seen("badge")
def _seen_badge(ctx: Ctx) -> str:
    return "badges passed" if any(g.of(BadgePassed) for g in ctx.games) else ""


# ---------------------------------------------------------------- the day


@claim("talk", r"Each day the living speak once each \(one message, or a pass\), in turn round "
                r"the table: (?P<how>the sheriff chooses which of its two neighbours speaks "
                r"first, the turns go round away from the sheriff, and the sheriff speaks last; "
                r"with no sheriff the turns start|the turns start) from the seat after the last "
                r"player to die\.")
def _turns(ctx: Ctx, m: re.Match) -> Iterator[str]:
    chose = 0
    for g in ctx.games:
        for step in g.steps:
            order = next((e.order for e in step.events if isinstance(e, SpeakingOrder)), None)
            if order is None:
                continue
            s = step.after
            if set(order) != living(s) or len(order) != len(set(order)):
                yield f"{g}, day {s.day}: the turns {order} are not the living's"
            if s.sheriff >= 0:
                sheriff = s.names[s.sheriff]
                chose += type(step.action).__name__ == "First"
                near = {n for n in (_next(s, s.sheriff, 1), _next(s, s.sheriff, -1))}
                if order[-1] != sheriff or order[0] not in near:
                    yield f"{g}, day {s.day}: the sheriff {sheriff}'s turns {order}"
            else:
                last = s.deaths[-1].seat if s.deaths else -1
                if order[0] != _next(s, last, 1):
                    yield f"{g}, day {s.day}: the turns {order} after {s.deaths[-1:]}"
        for day, turns in _speeches(g).items():
            if len(turns) != len(set(turns)):
                yield f"{g}, day {day}: speeches {turns}"
    if m["how"].startswith("the sheriff") and not chose:
        yield "no sheriff ever chooses who speaks first"


def _next(s, seat: int, way: int) -> str:
    n = len(s.names)
    return next(s.names[t] for k in range(1, n + 1) if s.alive[t := (seat + way * k) % n])


def _speeches(g: Game) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for phase, _r, e in g.events:
        if phase == "day" and isinstance(e, Chatted | Overed) and e.room.value == "Village":
            out.setdefault(e.day, []).append(getattr(e, "speaker", None) or e.player)
    return out


@seen("order")
def _seen_order(ctx: Ctx) -> str:
    return "turns to speak" if any(g.of(SpeakingOrder) for g in ctx.games) else ""


@claim("explode", r"(?P<when>In its turn to speak|During the day's talk) a werewolf may instead "
                  r"explode: it shows everyone it is a werewolf and dies, and the day ends at "
                  r"once with no vote\.")
def _explode(ctx: Ctx, m: re.Match) -> Iterator[str]:
    booms = 0
    for g in ctx.games:
        for step in g.steps:
            e = next((x for x in step.events if isinstance(x, Exploded)), None)
            if e is None:
                continue
            booms += 1
            b, s = step.before, step.after
            i = b.seat[e.player]
            turn = b.turn < len(b.order) and b.order[b.turn] == i
            if g.role(e.player) != "Werewolf" or b.phase is not Phase.DAY or (
                    m["when"].startswith("In its turn") and not turn) or s.alive[i] or \
                    i not in s.revealed or e.audience is not None:
                yield f"{g}, day {b.day}: {e.player} explodes"
            if any(x.day == b.day and x.phase == "vote" for x in g.phases()):
                yield f"{g}, day {b.day}: a vote after {e.player} explodes"
    if not booms:
        yield "no werewolf ever explodes"


@seen("explode")
def _seen_explode(ctx: Ctx) -> str:
    return "explosions" if any(g.of(Exploded) for g in ctx.games) else ""


def idiot(ctx: Ctx, m: re.Match) -> Iterator[str]:
    spared = 0
    for g in ctx.games:
        seen_once: set[str] = set()
        for step in g.steps:
            for e in step.events:
                if isinstance(e, Spared):
                    spared += 1
                    if g.role(e.player) != "Idiot" or e.player in seen_once or \
                            step.after.seat[e.player] not in step.after.revealed:
                        yield f"{g}: {e}"
                    seen_once.add(e.player)
                if isinstance(e, Executed) and g.role(e.player) == "Idiot" and \
                        e.player not in seen_once:
                    yield f"{g}: the Idiot is executed the first time"
                if isinstance(e, VoteCast) and e.voter in seen_once and e.kind == "execute":
                    yield f"{g}: the spared Idiot votes"
            s = step.after
            for name in seen_once & living(s):
                if any(isinstance(a, Vote) for a in legal_actions(s, name)) and \
                        s.phase is Phase.VOTE:
                    yield f"{g}: the spared Idiot may vote"
    if not spared:
        yield "no Idiot is ever spared"


@claim("idiot", r"The Idiot, voted out for the first time, is not executed: everyone is shown it "
                r"is the Idiot, and it lives on but votes no more\.")
def _idiot(ctx: Ctx, m: re.Match) -> Iterator[str]:
    yield from idiot(ctx, m)


# ---------------------------------------------------------------- after deaths


@claim("last_words", r"The executed, and those who die on the first night \(unless shot\), each "
                     r"say last words, one speech, before the game goes on; nobody else does\.")
def _last_words(ctx: Ctx, m: re.Match) -> Iterator[str]:
    steps = (Phase.HUNT, Phase.BADGE, Phase.LAST_WORDS, Phase.OVER)
    for g in ctx.games:
        owed: list[str] = []  # (since the last words: a game that ends owes none)
        given: list[str] = []
        for step in g.steps:
            for d in step.after.deaths[len(step.before.deaths):]:
                if d.cause == "executed" or (d.day == g.rules.first_day and d.cause in (
                        "murdered", "poisoned") and step.before.phase in (
                        Phase.NIGHT, Phase.WITCH)):
                    owed.append(step.after.names[d.seat])
            s = step.after
            if s.phase is Phase.LAST_WORDS and step.before.phase is not Phase.LAST_WORDS:
                speakers = [s.names[i] for i in s.speakers]
                given += speakers
                if sorted(speakers) != sorted(owed):
                    yield f"{g}, day {s.day}: last words for {speakers}, owed to {owed}"
                owed = []
            elif owed and s.phase not in steps:
                yield f"{g}, day {s.day}: the {s.phase} comes, and {owed} said no last words"
                owed = []
        spoke = Counter(e.speaker for p, _r, e in g.events if p == "last_words"
                        and isinstance(e, Chatted))
        if any(n > 1 for n in spoke.values()) or set(spoke) - set(given):
            yield f"{g}: last words {dict(spoke)}"


@seen("last_words")
def _seen_last_words(ctx: Ctx) -> str:
    return "last words" if any(e.phase == "last_words" for g in ctx.games
                               for e in g.phases()) else ""


@claim("after_deaths", r"After deaths, first (?P<steps>.+?), then come the last words\.")
def _after_deaths(ctx: Ctx, m: re.Match) -> Iterator[str]:
    rank = {"hunt": 0, "badge": 1, "last_words": 2}
    told = {"a dead Hunter shoots": "hunt", "a dead sheriff passes or tears the badge": "badge"}
    steps = [told.get(x) for x in m["steps"].split(", then ")]
    if None in steps:
        yield f"no check for {m['steps']!r}"
    pairs = 0
    for g in ctx.games:
        run: list[str] = []
        for e in g.phases():
            if e.phase in rank:
                if run and rank[e.phase] < rank[run[-1]]:
                    yield f"{g}, day {e.day}: {run} then {e.phase}"
                run.append(e.phase)
                pairs += len(set(run)) > 1
            elif not e.vote_round:
                run = []
    if not pairs:
        yield "no two of the steps after deaths ever come together"
