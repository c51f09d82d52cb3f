"""Rewards: RLereWolf's scheme by default (its dissertation's Table 4.5), pluggable.

* a vote (an execution or an attack vote) for the most voted player: +1; for the one
  ranked ``r`` below it: ``r`` times ``rank_penalty`` (RLereWolf's "incorrect vote
  multiplier", -0.5);
* waiting (doing nothing when asked): +0.5;
* the end: +20 to every seat of the winning team, -20 to the others, dead or alive (a
  draw: 0);
* an action the mask forbids: -35 (RLereWolf's "incorrect action"), and nothing happens.

Give ``maw.env.env(rewards=Rewards(...))`` other values, or a subclass with other rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rewards:
    top_vote: float = 1.0
    rank_penalty: float = -0.5
    wait: float = 0.5
    win: float = 20.0
    loss: float = -20.0
    invalid: float = -35.0

    def vote(self, rank: int) -> float:
        """A vote for the player ranked ``rank`` in the tally (0: the most voted)."""
        return self.top_vote if rank == 0 else rank * self.rank_penalty

    def end(self, winner: str | None, team: str) -> float:
        """The last reward of a seat of ``team`` (``winner``: ``None`` for a draw)."""
        if winner is None:
            return 0.0
        return self.win if winner == team else self.loss
