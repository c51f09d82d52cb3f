"""werewolf-12 at other sizes: ``werewolf-6`` to ``werewolf-16``, AutoWerewolf's game
(``maw.engine.werewolf``) with its role sets scaled, one ruleset a size, as the
aiwolf-5|9|13|15 family is (a name says its table; the ``werewolf-12`` name stays the
seed's game, its options and its games unchanged).

The seed's twelve are 4 Werewolves, 4 Villagers and 4 powers (Seer, Witch, Hunter, and a
Guard in role set A or a Village Idiot in B). At N players :func:`composition` keeps its
proportions: a third are werewolves (rounded), and of the village the powers are at most
half, kept in the seed's order (the Seer, the Witch, the Hunter, then the set's own) while
they fit, so that the plain villagers are never fewer than the powers: under side
elimination the smaller of the two is the pack's way to win. Below 6 players the village
would have one power, which the pack kills on night 0 to win at dawn. Above 16 the powers
stop growing and the village's side of plain villagers only grows: no longer the seed's
game. At 12 the rule deals the seed's table itself (``tests/engine/test_werewolf_sizes.py``).

``benchmarks/compose.py --werewolf`` plays each size with rule players and reports the
village's win rate (``benchmarks/README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from maw.engine.roles import Role
from maw.engine.rulesets import register_ruleset, role_counts, ruleset_kind
from maw.engine.werewolf import OPTIONS, ROLE_SETS, _role_set

SIZES = range(6, 17)
POWERS = {"A": ("seer", "witch", "hunter", "guard"), "B": ("seer", "witch", "hunter", "idiot")}


def composition(players: int, role_set: str = "A") -> tuple[Role, ...]:
    """The roles dealt to ``players`` in role set ``role_set`` (the seed's proportions)."""
    wolves = max(1, round(players / 3))
    village = players - wolves
    powers = POWERS[role_set][:min(4, village // 2)]
    return role_counts(ww=wolves, vil=village - len(powers), **dict.fromkeys(powers, 1))


def _adjust(players: int) -> Callable[[dict[str, Any]], None]:
    def adjust(changes: dict[str, Any]) -> None:
        """werewolf-12's checks; a role set deals this size's composition of it."""
        _role_set(changes)
        if "role_set" in changes:
            changes["roles"] = composition(players, changes["role_set"])
    return adjust


assert all(composition(12, s) == roles for s, roles in ROLE_SETS.items())  # (the seed's)

_SEED = ruleset_kind("werewolf-12").base("")
for _n in SIZES:
    if _n != 12:
        register_ruleset(replace(_SEED, name=f"werewolf-{_n}", roles=composition(_n),
                                 min_players=_n, max_players=_n),
                         own=OPTIONS, adjust=_adjust(_n))
