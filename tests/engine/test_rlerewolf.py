"""``rlerewolf`` (``maw.engine.rlerewolf``): RLereWolf's game, its deals by Table 6.1 and
its ratios, played from 5 to 75 players."""

from __future__ import annotations

from collections import Counter

import pytest

from maw.engine import RULESET_NAMES, ruleset
from maw.engine.describe import rules_text
from maw.engine.rlerewolf import SIZES
from maw.errors import ConfigError
from maw.simulate import simulate

# the dissertation's Table 6.1: players, villagers, guards, seers, werewolves (it prints 8
# werewolves at 55, which with its 38 + 5 + 3 makes 54 players; its ratio gives the 9)
PRINTED = [(5, 2, 1, 1, 1), (15, 11, 1, 1, 2), (20, 14, 2, 1, 3), (35, 25, 3, 2, 5),
           (55, 38, 5, 3, 9), (75, 51, 7, 5, 12)]


@pytest.mark.parametrize("row", PRINTED)
def test_the_sweeps_sizes_deal_table_6_1(row):
    n, villagers, guards, seers, wolves = row
    roles = Counter(r.name for r in ruleset("rlerewolf").roles_for(n))
    assert roles == {"Villager": villagers, "Bodyguard": guards, "Seer": seers,
                     "Werewolf": wolves}
    assert f"{n} players: {wolves} Werewol" in rules_text(ruleset("rlerewolf"), n)


def test_other_sizes_deal_the_ratios_and_a_size_outside_is_refused():
    assert "rlerewolf" in RULESET_NAMES and SIZES == tuple(r[0] for r in PRINTED)
    for n, (guards, seers, wolves) in ((6, (1, 1, 1)), (30, (3, 2, 5)), (60, (6, 4, 10))):
        roles = Counter(r.name for r in ruleset("rlerewolf").roles_for(n))
        assert (roles["Bodyguard"], roles["Seer"], roles["Werewolf"]) == (guards, seers, wolves)
        assert sum(roles.values()) == n
    for n in (4, 76):
        with pytest.raises(ConfigError, match="needs 5 to 75 players"):
            ruleset("rlerewolf").roles_for(n)
    with pytest.raises(ConfigError, match="takes no roles"):
        ruleset("rlerewolf", roles="ww:2")


def test_games_end_at_each_end_of_the_range_and_a_tie_still_executes():
    rules = ruleset("rlerewolf")
    assert rules.tie.value == "random"
    small = simulate(rules, 5, "rule", 40, seed=1)
    assert small.games == 40 and small.draws == 0 and small.invalid_actions == 0
    large = simulate(rules, 75, "random", 2, seed=1)
    assert large.games == 2 and large.draws == 0
    assert large.days / 2 < 75  # (someone dies every day: no stall)
