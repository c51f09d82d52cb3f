"""The claims of werewolf-12's rules text about the order of its night's steps
(``night_steps``, when it is not the seed's): the order itself, held to what it changes,
and a Seer killed before her step learning nothing (tests/engine/test_rules_claims.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from claims_games import Ctx, Game, claim, seen

from maw.engine.events import Divined, Guarded, NightResult, PhaseStarted, VoteCast

STEP = {"the Seer's": "seer", "the werewolves'": "wolves", "the Witch's": "witch",
        "the Guard's": "guard"}
CAUSE = {"the werewolves' attack": "murdered", "the Witch's poison": "poisoned"}


def divinations(g: Game) -> Iterator[tuple[int, str, bool, str]]:
    """Each night's divination chosen: (night, Seer, whether she learnt, how she died at
    that dawn: "" if she lives)."""
    chose: dict[tuple[int, str], bool] = {}
    for e in g.of(VoteCast):
        if e.kind == "divine":
            chose[e.day, e.voter] = False
    for e in g.of(Divined):
        chose[e.day, e.seer] = True
    died = {(d.day, g.names[d.seat]): d.cause for d in g.end.deaths}
    for (day, seer), learnt in sorted(chose.items()):
        yield day, seer, learnt, died.get((day, seer), "")


def _seer_void(ctx: Ctx, fatal: set[str]) -> Iterator[str]:
    """A Seer who chose learns, unless she died that night of one of ``fatal``."""
    for g in ctx.games:
        for day, seer, learnt, cause in divinations(g):
            if learnt == (cause in fatal):
                yield f"{g}, night {day}: {seer} ({cause or 'alive'}) learnt: {learnt}"


def _witch_told(ctx: Ctx, guard_first: bool) -> Iterator[str]:
    """The Witch is told a victim the Guard protected only when its step comes after hers."""
    for g in ctx.games:
        guarded = {(e.day, e.target) for e in g.of(Guarded)}
        for step in g.steps:
            if not any(isinstance(e, PhaseStarted) and e.phase == "witch" for e in step.events):
                continue
            s = step.after
            if s.attack < 0 or (s.day, s.names[s.attack]) not in guarded:
                continue
            told = [e.target for e in step.events if isinstance(e, NightResult)]
            if bool(told) == guard_first:
                yield f"{g}, night {s.day}: {s.names[s.attack]} guarded, the Witch told {told}"


@claim("steps", r"The night's steps take effect in this order: (?P<steps>(?:the \w+'s?, )+"
                r"then the \w+'s?)\.")
def _steps(ctx: Ctx, m: re.Match) -> Iterator[str]:
    steps = [STEP[x.removeprefix("then ")] for x in m["steps"].split(", ")]
    ours = [x for x in ctx.rules.night_steps if x in steps]
    if steps != ours:
        yield f"the text's order {steps}, the games' {ours}"
    if "seer" in steps:
        yield from _seer_void(ctx, {cause for cause, step in (("murdered", "wolves"),
                                                              ("poisoned", "witch"))
                                    if step in steps and steps.index(step) <
                                    steps.index("seer")})
    if "guard" in steps and "witch" in steps:
        yield from _witch_told(ctx, steps.index("guard") < steps.index("witch"))


@claim("seer_void", r"A Seer killed that night by (?P<by>.+?) learns nothing\.")
def _void(ctx: Ctx, m: re.Match) -> Iterator[str]:
    yield from _seer_void(ctx, {CAUSE[x] for x in m["by"].split(" or ")})


@seen("seer_void")
def _seen_void(ctx: Ctx) -> str:
    return "a Seer's divination lost" if any(
        not learnt for g in ctx.games for _d, _s, learnt, _c in divinations(g)) else ""
