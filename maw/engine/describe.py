"""The rules of a game in plain English (what the prompts and the screen tell players).

Each shape of day writes its own rules (:meth:`maw.engine.dayflow.DayFlow.rules_text`),
from the same ruleset and options the engine applies; :func:`rules_text` asks the game's
flow, and a flow with no text of its own is an error, never another game's rules. The
pieces every text shares (the deal, the powers, ties, the win, the draw) are here.
``tests/engine/test_rules_claims.py`` checks every sentence against engine games.
"""

from __future__ import annotations

from collections import Counter

from maw.engine.actions import night_spec
from maw.engine.dayflow import FLOWS
from maw.engine.roles import Ability, Role, Team, role_named
from maw.engine.rulesets import Ruleset, TiePolicy, WinCondition
from maw.errors import ConfigError

_TIE = {
    ("execute", TiePolicy.NONE): "nobody is executed",
    ("execute", TiePolicy.RANDOM): "one of the tied is executed at random",
    ("execute", TiePolicy.REVOTE): "everyone votes once more, for any living player, and if "
                                   "that vote ties too one of its tied is executed at random",
    ("execute", TiePolicy.RUNOFF): "everyone votes once more, for one of the tied alone, and "
                                   "if they tie again nobody is executed",
    ("attack", TiePolicy.NONE): "nobody is attacked",
    ("attack", TiePolicy.RANDOM): "one of the tied is attacked at random",
    ("attack", TiePolicy.REVOTE): "the werewolves vote once more, and if that vote ties too "
                                  "one of its tied is attacked at random",
}


def tie(kind: str, policy: TiePolicy) -> str:
    """What a tie of the ``kind`` vote ("execute", "attack") does under ``policy``."""
    return _TIE[kind, policy]


def sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def _plural(role: str, k: int) -> str:
    if k == 1:
        return f"1 {role}"
    return f"{k} " + ("Werewolves" if role == "Werewolf" else f"{role}s")


def dealt(rules: Ruleset, players: int) -> list[Role]:
    """The roles of the deal, once each: the werewolves first, the villagers last."""
    names = sorted({r.name for r in rules.roles_for(players)},
                   key=lambda r: (r != "Werewolf", r == "Villager", r))
    return [role_named(r) for r in names]


def deal(rules: Ruleset, players: int) -> list[str]:
    """Who is dealt what, and who knows whom."""
    roles = Counter(r.name for r in rules.roles_for(players))
    listed = ", ".join(_plural(r.name, roles[r.name]) for r in dealt(rules, players))
    return [f"{players} players: {listed}.",
            "The werewolves know each other; nobody else knows anyone's role."]


def powers(rules: Ruleset, players: int) -> list[str]:
    """The dealt roles' powers, as the roles state them (``Role.power``)."""
    said = [r.power for r in dealt(rules, players) if r.power]
    return [sentence("; ".join(said))] if said else []


def protected(rules: Ruleset, players: int) -> bool:
    """May a dealt role keep the night's victim alive (a night action that ``protects``:
    a Bodyguard's guard, a Witch's save, a registered one's)?"""
    return any(night_spec(a).night.protects  # type: ignore[union-attr]
               for r in dealt(rules, players) for a in r.abilities)


def guarding(rules: Ruleset, players: int) -> list[str]:
    """Whom the dealt roles that guard (a Bodyguard) may protect, by the options."""
    guards = [f"the {r.name}" for r in dealt(rules, players) if Ability.GUARD in r.abilities]
    if not guards:
        return []
    who = _and(guards)
    if rules.guard_self_guard:
        rule = "may protect itself" + ("" if rules.guard_repeat else
                                       ", but never the same player two nights running")
    else:
        rule = "may not protect itself" if rules.guard_repeat else \
            "may protect neither itself nor the same player two nights running"
    return [sentence(f"{who} {rule}")]


def win(rules: Ruleset, players: int) -> str:
    village = "The village wins as soon as no werewolf lives; the werewolves win as soon as "
    if rules.win is WinCondition.PARITY:
        return village + "the living werewolves are at least as many as the living humans."
    if rules.win is WinCondition.SIDE:
        side = [r for r in dealt(rules, players) if r.team is Team.VILLAGE and not r.pack]
        plain = _and([f"every {r.name}" for r in side if not r.power]) or "every Villager"
        special = _and([f"the {r.name}" for r in side if r.power])
        return village + (f"{plain} is dead, or {special} are all dead." if special else
                          f"{plain} is dead, or no villager with a power lives (none is "
                          "dealt here: at the first execution or dawn).")
    return village + "nobody on the village's side lives."


def _and(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}" \
        if items else ""


def draw(rules: Ruleset, players: int) -> list[str]:
    """When a game nobody wins ends (none: no limit)."""
    limit = rules.max_days if rules.max_days is not None else 2 * players + 5
    if not limit:
        return []
    return [f"If no side has won by the dawn of day {rules.first_day + limit}, the game is "
            "a draw."]


def rules_text(rules: Ruleset, players: int) -> str:
    """The rules of ``rules`` for a game of ``players``, as its day flow tells them.

    Raises:
        ConfigError: the ruleset's flow has no rules text of its own.
    """
    flow = FLOWS.get(rules.flow)
    if flow is None:
        name = str(getattr(rules.flow, "value", rules.flow))
        raise ConfigError(f"ruleset {rules.name!r}: no day flow is registered for its flow "
                          f"{name!r}, so its rules cannot be told")
    cls = type(flow)
    if "rules_text" not in vars(cls):
        raise ConfigError(f"ruleset {rules.name!r}: its day flow {cls.__name__} writes no "
                          f"rules text of its own ({cls.__name__}.rules_text), and another "
                          "game's rules would be wrong for it")
    return flow.rules_text(rules, players)
