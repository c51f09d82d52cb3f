"""Balanced MAW games of any size (``--rule roles=auto``): how many werewolves and Seers
N players get, so that rule villages and rule wolves win about as often.

The table was made by ``.venv/bin/python benchmarks/compose.py`` (rule-vs-rule engine
games, seed 1; ``benchmarks/results/compose.json`` keeps each size's win rates): for each
size the Seers follow a simple rule and the werewolves are the count whose village win
rate was nearest 50%. A size between two of the table's takes the nearer one's shares.
MAW's own rule (a third of the players are werewolves, no Seer) is the design document's
and stays the default.
"""

from __future__ import annotations

# players -> (werewolves, seers); the village's win rate in rule games is in
# benchmarks/README.md ("Balanced games of any size")
COMPOSITIONS: dict[int, tuple[int, int]] = {
    5: (1, 0), 6: (1, 0), 7: (1, 1), 8: (3, 1), 9: (3, 1), 10: (4, 1), 12: (4, 1),
    15: (5, 1), 20: (6, 1), 30: (6, 2), 45: (6, 3), 75: (7, 6),
}


def compose(players: int) -> tuple[int, int]:
    """The werewolves and Seers of a balanced game of ``players``."""
    if players in COMPOSITIONS:
        return COMPOSITIONS[players]
    near = min(COMPOSITIONS, key=lambda n: (abs(n - players), n))
    wolves, seers = COMPOSITIONS[near]
    w = max(1, round(wolves * players / near))
    s = round(seers * players / near)
    while players - w - s < 1 + w and w > 1:  # the village starts with a majority
        w -= 1
    return w, s
