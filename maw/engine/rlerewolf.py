"""``rlerewolf``: RLereWolf's game (Velikov's dissertation, the seed
``rlerewolf-dissertation.txt``), 5 to 75 players, for its chapter-6 sweep
(``benchmarks/rlerewolf_sweep.py``).

RLereWolf deals roles by ratio (its Table 4.2: a Guard for every 10 players, a Seer for
every 15, a Werewolf for every 6, at least one of each; the rest Villagers), which gives
every deal of its Table 6.1, the sizes its sweep played (:data:`SIZES`). (At 55 players
that table prints 8 werewolves beside 38 villagers, 5 guards and 3 seers: 54 players; the
ratio's 9 makes the 55.) Its day is MAW's: the
village talks and votes, the most-voted is executed; at night the werewolves choose a
victim together, the Seer learns one player's species, the Guard protects one player.

Where MAW's game stands for RLereWolf's, said plainly: the Guard is MAW's Bodyguard, who
may protect every night (RLereWolf's Guard protects once a game); a tied vote executes
one of the tied at random (the dissertation does not say; without it a table of 75 rule
players ties day after day). Every option of ``maw`` but the deal may still be given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from maw.engine.roles import Role
from maw.engine.rulesets import Flow, Ruleset, TiePolicy, register_ruleset, role_counts

SIZES = (5, 15, 20, 35, 55, 75)  # its sweep's (Table 6.1)


def composition(players: int) -> tuple[Role, ...]:
    """RLereWolf's deal for ``players``, by its ratios."""
    guards, seers, wolves = max(1, players // 10), max(1, players // 15), max(1, players // 6)
    return role_counts(ww=wolves, seer=seers, bg=guards, vil=players - wolves - seers - guards)


@dataclass(frozen=True, slots=True)
class RatioRuleset(Ruleset):
    """A ruleset whose deal grows with the table by RLereWolf's ratios."""

    def roles_for(self, n: int) -> tuple[Role, ...]:
        Ruleset.roles_for(replace(self, roles=()), n)  # (the size check and its message)
        return composition(n)


register_ruleset(RatioRuleset(name="rlerewolf", flow=Flow.MAW, roles=None, min_players=5,
                              max_players=75, tie=TiePolicy.RANDOM),
                 own=("whisper", "announce_votes"))
