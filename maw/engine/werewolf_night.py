"""werewolf-12's night steps in a configured order (``night_steps``): AutoWerewolf's seed
orders them "Seer → Wolves → Witch → Guard/Hunter", "or configured order per group".

The engine asks the pack, the Seer and the Guard together (none of them is told anything
by another's choice), then the Witch, told the pack's victim; at dawn each choice
resolves. What the order of the steps changes is what a later step sees of an earlier
one, and so it is a permutation of the four roles' steps with two consequences:

* the Guard's step before the Witch's: she is not told of a victim the Guard protected
  (nothing to save), where after it (the seed's order) she is told the victim all the
  same;
* the Seer's step after the werewolves' (or the Witch's): a Seer their attack (or her
  poison) kills that night learns nothing, where before it (the seed's order) she learns
  her answer, which she may still give in her last words.

The werewolves' step always comes before the Witch's: she is told their victim, and a
Witch before them would have nobody to save.
"""

from __future__ import annotations

from typing import Any

from maw.engine import resolution as r
from maw.engine.roles import Ability
from maw.engine.rulesets import Ruleset
from maw.engine.state import GameState
from maw.errors import ConfigError

NOBODY = r.NOBODY
STEPS = ("seer", "wolves", "witch", "guard")  # the seed's order, the default


def check(changes: dict[str, Any]) -> None:
    """``night_steps`` names each of the four steps once, the werewolves before the Witch."""
    if "night_steps" not in changes:
        return
    steps = tuple(x.lower() for x in changes["night_steps"])
    if sorted(steps) != sorted(STEPS) or steps.index("wolves") > steps.index("witch"):
        raise ConfigError(f"bad value {','.join(changes['night_steps'])!r} for ruleset option "
                          "'night_steps' (seer, wolves, witch and guard, each once, wolves "
                          f"before witch; default {','.join(STEPS)})")
    changes["night_steps"] = steps


def before(rules: Ruleset, first: str, then: str) -> bool:
    """Does the step ``first`` take effect before the step ``then``?"""
    steps = rules.night_steps or STEPS
    return steps.index(first) < steps.index(then)


def told(state: GameState, target: int, tonight: tuple[tuple[int, str, int], ...]) -> int:
    """Whom the Witch is told the pack attacks: its victim, unless the Guard's step comes
    first and protected it."""
    if before(state.rules, "guard", "witch") and any(
            ability == Ability.GUARD and t == target for _i, ability, t in tonight):
        return NOBODY
    return target


def dawn(state: GameState, target: int, events: list) -> GameState:
    """The night resolves; first, a Seer whose step comes after the werewolves' (or the
    Witch's) and whom their attack (or her poison) kills learns nothing."""
    rules = state.rules
    fatal = {cause for cause, step in (("murdered", "wolves"), ("poisoned", "witch"))
             if before(rules, step, "seer")}
    if fatal:
        trial, _chosen = r.resolved(state, target, [])  # (whom the night kills)
        void = {i for i in trial.dying if trial.causes.get(i, "murdered") in fatal}
        if void:
            state = _unchosen(state, void, Ability.DIVINE)
    return r.finish_night(state, target, events)


def _unchosen(state: GameState, seats: set[int], ability: str) -> GameState:
    """``state`` without the ``ability`` choices of ``seats`` (in this step or earlier)."""
    tonight = tuple(c for c in state.tonight if not (c[0] in seats and c[1] == ability))
    gone = [i for i in seats if state.chosen[i] == ability]
    votes, chosen = list(state.votes), list(state.chosen)
    for i in gone:
        votes[i], chosen[i] = NOBODY, None
    return state._replace(tonight=tonight, votes=tuple(votes), chosen=tuple(chosen))
