"""The claims of the rules texts about the game as a whole: the deal and the roles' powers,
what comes first, whose role is shown, the win and the draw (tests/engine/test_rules_claims.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from claims_games import (
    NIGHTTIME,
    Ctx,
    Game,
    alternation,
    claim,
    guards,
    living,
    public_phases,
    seen,
    wolves,
)

from maw.engine.events import (
    Acted,
    AttackBlocked,
    Chatted,
    Divined,
    Executed,
    GameOver,
    Guarded,
    MediumResult,
    Murdered,
    RoleAssigned,
    RoleRevealed,
    Spared,
)
from maw.engine.state import Termination

# ---------------------------------------------------------------- the deal


@claim("deal", r"(?P<n>\d+) players: (?P<deal>[^.]+)\.")
def _deal(ctx: Ctx, m: re.Match) -> Iterator[str]:
    said = Counter()
    for item in m["deal"].split(", "):
        k, role = item.split(" ", 1)
        said[{"Werewolves": "Werewolf"}.get(role, role[:-1] if int(k) > 1 else role)] += int(k)
    for g in ctx.games:
        dealt = Counter(e.role for e in g.of(RoleAssigned))
        if int(m["n"]) != len(g.names) or dealt != said:
            yield f"{g} deals {dict(dealt)} to {len(g.names)}"


@claim("deal", r"The werewolves know each other; nobody else knows anyone's role\.")
def _knowledge(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        pack = tuple(sorted(g.of_role("Werewolf")))
        for e in g.of(RoleAssigned):
            told = tuple(sorted(e.pack))
            if e.audience != {e.player} or told != (pack if e.role == "Werewolf" else ()):
                yield f"{g}: {e.player}, a {e.role}, is told the pack {told}"


@seen("deal")
def _dealt(ctx: Ctx) -> str:
    return "a deal of roles"


# ---------------------------------------------------------------- powers (Role.power)


@claim("seer", r"[Ee]ach night the Seer learns whether one player is a werewolf or human")
def seer(ctx: Ctx, m: re.Match) -> Iterator[str]:
    nights = set()
    for g in ctx.games:
        for e in g.of(Divined):
            nights.add(e.day)
            truth = "werewolf" if g.role(e.target) == "Werewolf" else "human"
            if e.species != truth or g.role(e.seer) != "Seer" or e.audience != {e.seer}:
                yield f"{g}, night {e.day}: {e.seer} learns {e.target} is {e.species}"
        per_night = Counter((e.seer, e.day) for e in g.of(Divined))
        if per_night and max(per_night.values()) > 1:
            yield f"{g}: a Seer learns twice in a night"
    if ctx.rules.first_day not in nights:
        yield "no Seer ever divines on the first night"


@seen("seer")
def _seen_seer(ctx: Ctx) -> str:
    return "divinations" if any(g.of(Divined) for g in ctx.games) else ""


@claim("medium", r"[Tt]he Medium learns whether each player executed while it lives was a "
                 r"werewolf")
def _medium(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for step in g.steps:
            for e in step.events:
                if not isinstance(e, Executed):
                    continue
                mediums = [n for n in g.of_role("Medium") if n in living(step.after)]
                told = [r for r in step.events if isinstance(r, MediumResult)]
                truth = "werewolf" if g.role(e.player) == "Werewolf" else "human"
                if [(r.medium, r.target, r.species) for r in told] != [
                        (x, e.player, truth) for x in mediums]:
                    yield f"{g}, day {e.day}: the Medium's reading of {e.player}: {told}"


@seen("medium")
def _seen_medium(ctx: Ctx) -> str:
    return "a Medium's readings" if any(g.of(MediumResult) for g in ctx.games) else ""


@claim("possessed", r"[Tt]he Possessed is a human on the werewolves' side, unknown to them")
def _possessed(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        for p in g.of_role("Possessed"):
            if any(p in e.pack for e in g.of(RoleAssigned)):
                yield f"{g}: the pack is told of the Possessed"
            if any(e.target == p and e.species != "human" for e in g.of(Divined)):
                yield f"{g}: the Possessed is divined a werewolf"
            over = g.of(GameOver)[0]
            if (dict(over.points)[p] > 0) != (over.winner == "werewolves"):
                yield f"{g}: the Possessed scores {dict(over.points)[p]} when {over.winner} win"


@claim("guard", r"[Ee]ach night the (?P<who>Bodyguard|Guard) protects one player from the "
                r"attack")
def _protects(ctx: Ctx, m: re.Match) -> Iterator[str]:
    """An attack on the guarded is blocked (a Witch's save blocks it too; saved as well, the
    player dies under same_guard_same_save_kills)."""
    blocked = 0
    for g in ctx.games:
        guarded = guards(g)
        potions = {(e.day, e.action, e.target) for e in g.of(Acted)}
        for e in g.of(AttackBlocked, Murdered):
            target = e.target if isinstance(e, AttackBlocked) else e.player
            saved = (e.day, "save", target) in potions
            if isinstance(e, AttackBlocked):
                blocked += 1
                ok = (e.day, target) in guarded or saved
            else:
                ok = (e.day, target) not in guarded or (e.day, "poison", target) in potions or (
                    saved and ctx.rules.same_guard_same_save_kills)
            if not ok:
                yield f"{g}, night {e.day}: {type(e).__name__} {target}, guarded"
    if not blocked:
        yield "no attack is ever blocked by a guard"


@seen("guard")
def _seen_guard(ctx: Ctx) -> str:
    return "guards" if any(g.of(Guarded) for g in ctx.games) else ""


@claim("guard", r"The (?P<who>Bodyguard|Guard) may (?P<rule>not protect itself|protect neither "
                r"itself nor the same player two nights running|protect itself(?:, but never "
                r"the same player two nights running)?)\.")
def _guarding(ctx: Ctx, m: re.Match) -> Iterator[str]:
    yield from guard_limits(ctx, itself=m["rule"].startswith("protect itself"),
                            repeat="two nights" not in m["rule"])


def guard_limits(ctx: Ctx, itself: bool, repeat: bool) -> Iterator[str]:
    selves = repeats = 0
    for g in ctx.games:
        last: dict[str, tuple[int, str]] = {}
        final = {(e.day, e.bodyguard): e for e in g.of(Guarded)}  # (MAW's may change)
        for e in final.values():
            selves += e.target == e.bodyguard
            prev = last.get(e.bodyguard)
            repeats += prev is not None and prev == (e.day - 1, e.target)
            last[e.bodyguard] = (e.day, e.target)
    if (selves > 0) != itself:
        yield f"a guard protects itself {selves} times"
    if (repeats > 0) != repeat:
        yield f"a guard protects the same player two nights running {repeats} times"


@claim("idiot", r"[Tt]he Village Idiot survives its first execution, revealed, and may no longer "
                r"vote")
def _idiot_power(ctx: Ctx, m: re.Match) -> Iterator[str]:
    from claims_w12_day import idiot

    yield from idiot(ctx, m)


@seen("idiot")
def _seen_idiot(ctx: Ctx) -> str:
    return "an Idiot spared" if any(g.of(Spared) for g in ctx.games) else ""


# ---------------------------------------------------------------- the order of a game


@claim("start", r"The game starts with day 1, and each day is followed by a night\.")
def _maw_start(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        if public_phases(g)[0] != (1, "day"):
            yield f"{g} starts with {public_phases(g)[0]}"
        yield from alternation(g)


@claim("start", r"The game starts with day 0, which has talk but no vote; then come its night "
                r"and the days and nights in turn\.")
def _aiwolf_day0(ctx: Ctx, m: re.Match) -> Iterator[str]:
    talked = False
    for g in ctx.games:
        phases = public_phases(g)
        if phases[0] != (0, "day") or (0, "vote") in phases:
            yield f"{g} starts {phases[:3]}"
        talked = talked or any(e.day == 0 and e.room.value == "Village" for e in g.of(Chatted))
        yield from alternation(g)
    if not talked:
        yield "nobody ever talks on day 0"


@claim("start", r"The game starts with night 0 \(day 0 has neither talk nor vote\); then come "
                r"the days and nights in turn\.")
def _aiwolf_night0(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        phases = public_phases(g)
        if phases[0][0] != 0 or phases[0][1] not in NIGHTTIME or (0, "day") in phases or (
                0, "vote") in phases:
            yield f"{g} starts {phases[:3]}"
        yield from alternation(g)


@seen("start")
def _started(ctx: Ctx) -> str:
    return "a first phase"


# ---------------------------------------------------------------- roles, the win, the draw


@claim("roles", r"The executed player's role is told to the werewolves alone; nobody else "
                r"learns the role of anyone who dies\.")
def _maw_reveal(ctx: Ctx, m: re.Match) -> Iterator[str]:
    for g in ctx.games:
        executed = {e.player for e in g.of(Executed)}
        told = {e.player for e in g.of(RoleRevealed)}
        pack = set(g.of_role("Werewolf"))
        for e in g.of(RoleRevealed):
            if e.player not in executed or e.audience != pack or e.role != g.role(e.player):
                yield f"{g}: {e}"
        over = g.end.day
        missed = {e.player for e in g.of(Executed) if e.day < over} - told
        if missed:
            yield f"{g}: the pack is never told the roles of {missed}"
        for step in g.steps:  # (but a spared Idiot's, which its power says)
            shown = {step.after.names[i] for i in step.after.revealed - step.before.revealed}
            if shown - {e.player for e in step.events if isinstance(e, Spared)}:
                yield f"{g}: the roles of {shown} are shown to everyone"


@claim("roles", r"Nobody's role is revealed when they die(?:; only (?P<what>[^.]+) shows? a "
                r"role to everyone)?\.")
def _no_reveal(ctx: Ctx, m: re.Match) -> Iterator[str]:
    shown = set(m["what"].replace(" and ", ", ").split(", ")) if m["what"] else set()
    showing = {"a Hunter's shot": "shot", "a werewolf's explosion": "exploded",
               "an Idiot's survival": "spared"}
    kinds: Counter = Counter()
    for g in ctx.games:
        if g.of(RoleRevealed):
            yield f"{g}: {g.of(RoleRevealed)[0]}"
        for step in g.steps:
            for i in step.after.revealed - step.before.revealed:
                name = step.after.names[i]
                how = next((k for k, kind, who in (
                    ("shot", "Shot", "hunter"), ("exploded", "Exploded", "player"),
                    ("spared", "Spared", "player")) if any(
                        type(e).__name__ == kind and getattr(e, who) == name
                        for e in step.events)), None)
                kinds[how] += 1
                if how is None or how not in {showing[x] for x in shown}:
                    yield f"{g}, day {step.after.day}: {name}'s role is shown ({how})"
    for what in shown:
        if not kinds[showing[what]]:
            yield f"{what} never shows a role"


@seen("roles")
def _seen_roles(ctx: Ctx) -> str:
    return "deaths" if any(g.of(Executed, Murdered) for g in ctx.games) else ""


def _condition(cond: str, g: Game):
    """The werewolves' win the text tells, as a test of a state (or None: unknown)."""
    if cond in ("nobody on the village's side lives", "no villager lives"):
        return lambda s: not any(a and r.team.value == "village"
                                 for a, r in zip(s.alive, s.roles, strict=True))
    if cond == "the living werewolves are at least as many as the living humans":
        return lambda s: sum(a and r.pack for a, r in zip(s.alive, s.roles, strict=True)) >= \
            sum(a and not r.pack for a, r in zip(s.alive, s.roles, strict=True))
    side = re.fullmatch(r"every (?P<plain>\w+) is dead, or (?P<special>.+) are all dead", cond)
    if side:
        special = re.findall(r"the (\w+)", side["special"])

        def gone(s, roles):
            return not any(a and r.name in roles for a, r in zip(s.alive, s.roles, strict=True))
        return lambda s: gone(s, {side["plain"]}) or gone(s, set(special))
    return None


@claim("win", r"The village wins (?:as soon as|when) no werewolf lives; the werewolves win "
              r"(?:as soon as|when) (?P<cond>[^.]+)\.")
def _win(ctx: Ctx, m: re.Match) -> Iterator[str]:
    wins: Counter = Counter()
    for g in ctx.games:
        wolf_win = _condition(m["cond"], g)
        if wolf_win is None:
            yield f"no check for the werewolves' win {m['cond']!r}"
            return
        for step in g.steps:
            s = step.after
            if s.alive is step.before.alive and not s.is_over:  # (nobody died)
                continue
            village = not wolves(s) & living(s)
            wolfish = not village and wolf_win(s)
            won = s.winner.value if s.is_over and s.winner else None
            if s.is_over and s.termination in (Termination.DAY_LIMIT, Termination.ABORTED):
                continue
            if won != ("village" if village else "werewolves" if wolfish else None):
                yield f"{g}, day {s.day}: {won} win with {sorted(living(s))} alive"
                break
        wins[g.end.winner] += 1
    if not set(wins) - {None}:
        yield "nobody ever wins"


@seen("win")
def _seen_win(ctx: Ctx) -> str:
    return "a winner"


@claim("draw", r"If no side has won by the dawn of day (?P<d>\d+), the game is a draw\.|After "
               r"(?P<n>\d+) days the game is a draw\.")
def _draw(ctx: Ctx, m: re.Match) -> Iterator[str]:
    dawn = int(m["d"]) if m["d"] else ctx.rules.first_day + int(m["n"])
    for g in ctx.games:
        late = [e for e in g.phases() if e.day >= dawn]
        if late:
            yield f"{g}: day {late[0].day} begins"
        if g.end.termination is Termination.DAY_LIMIT and g.end.day != dawn - 1:
            yield f"{g}: a draw on day {g.end.day}"
        if g.end.termination is None:
            yield f"{g} never ends"


@seen("draw")
def _seen_draw(ctx: Ctx) -> str:
    return "draws" if any(g.end.termination is Termination.DAY_LIMIT for g in ctx.games) else ""
