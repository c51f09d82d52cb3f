"""The night's actions, each one entry of the table of actions with how it works: whom it
may name, who learns it was chosen, and what it does at dawn, in the night's order.

A new night action is one :func:`~maw.engine.actions.register_action` here (or in any
module that imports this one): its class (:func:`~maw.engine.actions.night_action` makes
one), its entry and its resolution. The core (``maw.engine.resolution``) never names an
action: it asks each entry in turn.
"""

from __future__ import annotations

from maw.engine.actions import (
    ActionSpec,
    Attack,
    Divine,
    Guard,
    Night,
    night_action,
    register_action,
)
from maw.engine.events import AttackBlocked, Divined, Guarded, VoteCast
from maw.engine.resolution import NOBODY, Dawn
from maw.engine.roles import Ability
from maw.engine.state import GameState

# where the shipped actions resolve: what is learnt first, then who is protected, then
# the attack (a ruleset's night_order may reorder them)
DIVINE_ORDER, GUARD_ORDER, SAVE_ORDER, ATTACK_ORDER, POISON_ORDER = 10, 20, 25, 30, 40


def _alive_other(state: GameState, s: int, t: int) -> bool:
    return state.alive[t] and t != s


# ---------------------------------------------------------------- the pack's attack


def _attack_target(state: GameState, s: int, t: int) -> bool:
    rules = state.rules
    return state.alive[t] and (rules.attack_wolves or rules.self_knife
                               or not state.roles[t].pack)


def _attack_chosen(state: GameState, s: int, t: int) -> VoteCast:
    return VoteCast(state.day, "attack", state.names[s], state.names[t], state.pack)


def _murder(dawn: Dawn, _s: int, t: int) -> None:
    """The pack's victim dies, unless protected (the pack alone learns it was)."""
    if t == NOBODY:
        return
    if t in dawn.protected and t not in dawn.doomed:
        s = dawn.state
        dawn.events.append(AttackBlocked(s.day, s.names[t], s.pack))
        return
    dawn.kill(t)


# ---------------------------------------------------------------- the Seer's divination


def _divine_chosen(state: GameState, s: int, t: int) -> VoteCast:
    return VoteCast(state.day, "divine", state.names[s], state.names[t],
                    frozenset((state.names[s],)))


def _divine(dawn: Dawn, s: int, t: int) -> None:
    """The Seer learns the target's species."""
    state = dawn.state
    species = state.roles[t].species.value
    dawn.learn(s, "divine", t, species)
    dawn.events.append(Divined(state.day, state.names[s], state.names[t], species,
                               frozenset((state.names[s],))))


# ---------------------------------------------------------------- the Bodyguard's guard


def _guard_target(state: GameState, s: int, t: int) -> bool:
    rules = state.rules
    if t == s and not rules.guard_self_guard:
        return False
    if not rules.guard_repeat and any(  # not the one it protected last night
            r.kind == "guard" and r.seat == s and r.target == t and r.day == state.day - 1
            for r in state.results):
        return False
    return rules.guard_dead or state.alive[t]


def _guard_chosen(state: GameState, s: int, t: int) -> Guarded:
    return Guarded(state.day, state.names[s], state.names[t], frozenset((state.names[s],)))


def _guard(dawn: Dawn, s: int, t: int) -> None:
    """The target cannot be killed by tonight's attack."""
    dawn.protected.add(t)
    dawn.learn(s, "guard", t, "")


# ---------------------------------------------------------------- the Witch's potions
# (werewolf-12: the Witch acts in the night's second step, told the pack's victim)


def _save_target(state: GameState, s: int, t: int) -> bool:
    if t != state.victim or not state.alive[t]:
        return False
    return t != s or (state.rules.witch_self_heal_n1 and state.day == state.rules.first_day)


def _save(dawn: Dawn, _s: int, t: int) -> None:
    """The victim is saved; guarded as well, it dies under same_guard_same_save_kills."""
    if t in dawn.protected and dawn.state.rules.same_guard_same_save_kills:
        dawn.doomed.add(t)
    else:
        dawn.protected.add(t)


def _poison(dawn: Dawn, _s: int, t: int) -> None:
    """The target dies, and no protection helps (a poisoned Hunter does not shoot)."""
    dawn.kill(t, "poisoned")


Save = night_action("save")
Poison = night_action("poison")

register_action(ActionSpec(
    Ability.ATTACK, Attack, Ability.ATTACK, True, False, frozenset({"night"}), "VoteCast",
    "/attack NAME", "choose tonight's victim (werewolf)",
    Night(ATTACK_ORDER, _murder, _attack_chosen, _attack_target, first_night=False,
          collective=True)))
register_action(ActionSpec(
    Ability.DIVINE, Divine, Ability.DIVINE, True, False, frozenset({"night"}), "Divined",
    "/divine NAME", "learn NAME's species at dawn (seer)",
    Night(DIVINE_ORDER, _divine, _divine_chosen, _alive_other)))
register_action(ActionSpec(
    Ability.GUARD, Guard, Ability.GUARD, True, False, frozenset({"night"}), "Guarded",
    "/guard NAME", "protect NAME from tonight's attack (bodyguard)",
    Night(GUARD_ORDER, _guard, _guard_chosen, _guard_target, first_night=False,
          aim="trust", protects=True)))
register_action(ActionSpec(
    Ability.SAVE, Save, Ability.SAVE, True, False, frozenset({"witch"}), "Acted",
    "/save NAME", "save NAME, tonight's victim (witch, once a game)",
    Night(SAVE_ORDER, _save, None, _save_target, aim="trust", protects=True)))
register_action(ActionSpec(
    Ability.POISON, Poison, Ability.POISON, True, False, frozenset({"witch"}), "Acted",
    "/poison NAME", "poison NAME tonight (witch, once a game)",
    Night(POISON_ORDER, _poison, None, _alive_other)))
