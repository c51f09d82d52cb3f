"""The claims of werewolf-12's rules text about the table and the night: the seats, the
night's steps, the Seer, the Guard, the Witch, who dies at dawn, the Hunter
(tests/engine/test_rules_claims.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from claims_games import Ctx, Game, alternation, claim, living, public_phases, seen
from claims_night import victim
from claims_setup import guard_limits
from claims_setup import seer as divined

from maw.engine import ACTIONS, legal_actions
from maw.engine.events import (
    Acted,
    Divined,
    Guarded,
    Murdered,
    NightResult,
    PhaseStarted,
    Shot,
    SpeakingOrder,
    VoteCast,
    VotesRevealed,
)

Save, Poison = (ACTIONS[a].cls for a in ("save", "poison"))


@claim("order", r"The players sit round a table in the order in which they are listed\.")
def _seating(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step in g.steps:
            for e in step.events:
                if isinstance(e, SpeakingOrder):
                    yield from _round(g, step.after, e.order)


def _round(g: Game, s, order: tuple[str, ...]) -> Iterator[str]:
    """``order`` goes round the table (its last, the sheriff, apart) one way."""
    seats = [s.seat[n] for n in order]
    if s.sheriff >= 0 and order[-1] == s.names[s.sheriff]:
        seats = seats[:-1]
    alive = [i for i, a in enumerate(s.alive) if a and (s.sheriff < 0 or i != s.sheriff)]
    for way in (1, -1):
        ring = alive[::way]
        at = ring.index(seats[0]) if seats and seats[0] in ring else 0
        if seats == (ring[at:] + ring[:at]):
            return
    yield f"{g}, day {s.day}: the turns {order} do not go round the table"


@claim("start", r"The game starts with night 0; after it, each day \(day 1, 2 and so on\) is "
                r"followed by its night\.")
def _night0(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        if public_phases(g)[0] != (0, "night"):
            yield f"{g} starts with {public_phases(g)[0]}"
        yield from alternation(g)


# ---------------------------------------------------------------- the night's steps


def nights(g: Game) -> Iterator[tuple[int, list]]:
    """Each night's events (by its day), in order."""
    by: dict[int, list] = {}
    for phase, _r, e in g.events:
        if phase in ("night", "witch") and hasattr(e, "day"):
            by.setdefault(e.day, []).append(e)
    yield from sorted(by.items())


@claim("night", r"Meanwhile")
def _meanwhile(ctx: Ctx, m: re.Match) -> Iterator[str]:
    """The Seer and the Guard choose in the pack's step, not the Witch's."""
    for g in ctx.games:
        for phase, _r, e in g.events:
            if (isinstance(e, Guarded) or isinstance(e, VoteCast) and e.kind == "divine") \
                    and phase != "night":
                yield f"{g}, night {e.day}: {e} in the {phase}"


@claim("seer", r"the Seer chooses one player and learns at dawn whether that player is a "
               r"werewolf or human")
def _seer(ctx: Ctx, m: re.Match) -> Iterator[str]:
    yield from divined(ctx, m)
    for g in ctx.games:  # (learnt at dawn: with the night's deaths)
        for step in g.steps:
            if any(isinstance(e, Divined) for e in step.events) and not any(
                    type(e).__name__ in ("Murdered", "NoMurder") for e in step.events):
                yield f"{g}, night {step.before.day}: a divination before dawn"


@claim("guard", r"the Guard protects one player from the attack, (?P<self>never itself|itself "
                r"too)(?P<repeat>, and never the same player two nights running)?")
def _guard(ctx: Ctx, m: re.Match) -> Iterator[str]:
    yield from guard_limits(ctx, itself=m["self"] == "itself too", repeat=not m["repeat"])


@claim("witch", r"Then the Witch, while she lives and has a potion she may use, is told whom "
                r"the werewolves attack \(if anyone(?P<unless>, and unless the Guard protected "
                r"them)?\) and may either save that player or poison "
                r"any living player but herself, never both in one night: each potion serves "
                r"once a game, and (?P<self>she may save herself on the first night only|she "
                r"may never save herself)\.")
def _witch(ctx: Ctx, m: re.Match) -> Iterator[str]:
    first_night_self = m["self"].endswith("first night only")
    for g in ctx.games:
        used: Counter = Counter()
        for step in g.steps:
            if any(isinstance(e, VotesRevealed) and e.kind == "attack" for e in step.events) \
                    and not any(type(e).__name__ == "Revote" for e in step.events):
                yield from _witch_step(g, step, used, first_night_self, bool(m["unless"]))
            for e in step.events:
                if isinstance(e, Acted) and e.action in ("save", "poison"):
                    used[e.action] += 1
        nightly = Counter(e.day for e in g.of(Acted) if e.action in ("save", "poison"))
        if (nightly and max(nightly.values()) > 1) or (used and max(used.values()) > 1):
            yield f"{g}: potions {dict(used)}, by night {dict(nightly)}"


def _witch_step(g: Game, step, used: Counter, first_night_self: bool, unless_guarded: bool
                ) -> Iterator[str]:
    """The pack has chosen (``step``): the Witch's step comes if she may act, told the
    victim (not a guarded one, ``unless_guarded``), and offers what the text says."""
    s, before = step.after, step.before
    begun = any(isinstance(e, PhaseStarted) and e.phase == "witch" for e in step.events)
    attacked = victim(step)
    if unless_guarded and attacked in {e.target for e in g.of(Guarded) if e.day == before.day}:
        attacked = None
    for w in g.of_role("Witch"):
        may_self = first_night_self and before.day == g.rules.first_day
        saves = bool(attacked) and not used["save"] and (attacked != w or may_self)
        if begun != (before.alive[before.seat[w]] and (not used["poison"] or saves)):
            yield f"{g}, night {before.day}: the Witch's step: {begun}, used {dict(used)}, " \
                  f"attacked {attacked}"
        if not begun:
            continue
        told = [(e.actor, e.target, e.audience) for e in step.events
                if isinstance(e, NightResult)]
        if told != ([(w, attacked, {w})] if attacked else []):
            yield f"{g}, night {s.day}: the Witch is told {told}, the victim {attacked}"
        acts = legal_actions(s, w)
        may_save = {a.target for a in acts if isinstance(a, Save)}
        may_poison = {a.target for a in acts if isinstance(a, Poison)}
        if may_save != ({attacked} if saves else set()) or may_poison != (
                set() if used["poison"] else living(s) - {w}):
            yield f"{g}, night {s.day}: the Witch may save {may_save}, poison {may_poison}"


@seen("witch")
def _seen_witch(ctx: Ctx) -> str:
    return "a Witch's step" if any(e.phase == "witch" for g in ctx.games
                                   for e in g.phases()) else ""


@claim("attack", r"At dawn the attacked player dies (?P<unless>unless the Guard protected or the "
               r"Witch saved them|unless the Guard protected them|unless the Witch saved them)"
               r"(?P<both> \(a player both protected and saved dies all the same\))?(?P<poison>"
               r", and the poisoned player dies whatever protects them)?; everyone learns who "
               r"died, but not how\.")
def _dawn(ctx: Ctx, m: re.Match) -> Iterator[str]:
    both_die = m["both"] is not None
    for g in ctx.games:
        attacked: dict[int, str | None] = {}
        for step in g.steps:
            if any(isinstance(e, VotesRevealed) and e.kind == "attack" for e in step.events):
                attacked[step.before.day] = victim(step)
        for day, events in nights(g):
            if day not in attacked:
                continue
            v = attacked[day]
            guarded = {e.target for e in events if isinstance(e, Guarded)}
            saved = {e.target for e in events if isinstance(e, Acted) and e.action == "save"}
            poisoned = {e.target for e in events if isinstance(e, Acted) and e.action == "poison"}
            spared = v in guarded or v in saved
            if v in guarded and v in saved:
                spared = not both_die
            want = ({v} if v and not spared else set()) | poisoned
            dead = {e.player for e in g.of(Murdered) if e.day == day}
            if dead != want:
                yield f"{g}, night {day}: {v} attacked, guarded {guarded}, saved {saved}, " \
                      f"poisoned {poisoned}: {dead} die"
            for e in g.of(Murdered):
                if e.day == day and e.audience is not None:
                    yield f"{g}: {e} is told to some alone"
        for step in g.steps:  # (not how: a poisoning is a murder to all but the Witch)
            for d in step.after.deaths[len(step.before.deaths):]:
                if d.cause == "poisoned":
                    from maw.engine import view

                    other = next(n for n in step.after.names if g.role(n) != "Witch")
                    causes = {(n, c) for _d, n, c in view(step.after, other).deaths}
                    if (step.after.names[d.seat], "murdered") not in causes:
                        yield f"{g}: {other} learns how {step.after.names[d.seat]} died"
                    break


@seen("attack")
def _seen_dawn(ctx: Ctx) -> str:
    return "murders" if any(g.of(Murdered) for g in ctx.games) else ""


# ---------------------------------------------------------------- the Hunter


@claim("hunter", r"When the Hunter dies, unless poisoned, it may shoot one living player, who "
                 r"dies at once; the shot shows everyone that it was the Hunter\.")
def _hunter(ctx: Ctx, m: re.Match) -> Iterator[str]:
    shots = 0
    for g in ctx.games:
        for step in g.steps:
            died = [d for d in step.after.deaths[len(step.before.deaths):]
                    if g.role(step.after.names[d.seat]) == "Hunter"]
            for d in died:
                hunter = step.after.names[d.seat]
                hunts = [e for e in step.events if isinstance(e, PhaseStarted)
                         and e.phase == "hunt"]
                owed = d.cause != "poisoned" and not step.after.is_over
                if bool(hunts) != owed or hunts and hunts[0].audience != {hunter}:
                    yield f"{g}, day {d.day}: the Hunter {d.cause}; its step: {hunts}"
            for e in step.events:
                if isinstance(e, Shot):
                    shots += 1
                    t = step.after.seat[e.target]
                    if not step.before.alive[t] or step.after.alive[t] or e.audience is not \
                            None or step.after.seat[e.hunter] not in step.after.revealed:
                        yield f"{g}: {e}"
    if not shots:
        yield "no Hunter ever shoots"


@seen("hunter")
def _seen_hunter(ctx: Ctx) -> str:
    return "a Hunter's shots" if any(g.of(Shot) for g in ctx.games) else ""
