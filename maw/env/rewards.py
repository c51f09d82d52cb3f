"""Rewards: RLereWolf's whole table by default (its dissertation's Table 4.5), each term a
field, pluggable.

==========================  =======  ==============================================
RLereWolf's result          reward   in MAW's environment
==========================  =======  ==============================================
Day Passed                  -1.0     ``day_passed``: each learning seat alive when a
                                     new day begins
Vote                        +1.0     ``top_vote``: a vote (an execution or an attack
                                     vote) for the most voted player
Wait                        +0.5     ``wait``: doing nothing when asked
Incorrect Vote Multiplier   -0.5     ``rank_penalty``: a vote for the player ranked
                                     ``r`` below the most voted: ``r`` times it
Death                       -5.0     ``death``: the seat dies (executed, attacked,
                                     shot, poisoned...)
Victory                     +20.0    ``win``: every seat of the winning team, dead
                                     or alive
Lost                        -20.0    ``loss``: every seat of the other team (a draw:
                                     neither)
Werewolf Cannibalism        -7.5     ``cannibalism``: a werewolf's attack vote on a
                                     werewolf
Dead Player Targeted        -35.0    ``dead_target``: an action naming a dead player
                                     (the mask forbids it, and nothing happens)
Incorrect Action            -35.0    ``invalid``: any other action the mask forbids
                                     (nothing happens)
==========================  =======  ==============================================

Give ``maw.env.env(rewards=Rewards(...))`` other values (``Rewards.only_votes()``: the
six terms MAW had before the whole table), or a subclass with other rules.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Rewards:
    top_vote: float = 1.0
    rank_penalty: float = -0.5
    wait: float = 0.5
    win: float = 20.0
    loss: float = -20.0
    invalid: float = -35.0
    day_passed: float = -1.0
    death: float = -5.0
    cannibalism: float = -7.5
    dead_target: float = -35.0

    @classmethod
    def only_votes(cls) -> Rewards:
        """The votes, waits, the end and forbidden actions alone (no day passed, death
        or cannibalism; a dead target is any forbidden action's)."""
        return cls(day_passed=0.0, death=0.0, cannibalism=0.0, dead_target=-35.0)

    @classmethod
    def parse(cls, settings: list[str]) -> Rewards:
        """RLereWolf's table with ``TERM=VALUE`` settings over it (``maw train --reward``);
        ``ConfigError`` names the terms for an unknown one."""
        from maw.errors import ConfigError

        terms = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, float] = {}
        for item in settings:
            key, eq, value = item.partition("=")
            if not eq or key.strip() not in terms:
                raise ConfigError(f"--reward {item!r}: TERM=VALUE, a term of "
                                  f"{', '.join(sorted(terms))}")
            try:
                values[key.strip()] = float(value)
            except ValueError:
                raise ConfigError(f"--reward {item!r}: {value!r} is not a number") from None
        return cls(**values)

    def vote(self, rank: int) -> float:
        """A vote for the player ranked ``rank`` in the tally (0: the most voted)."""
        return self.top_vote if rank == 0 else rank * self.rank_penalty

    def end(self, winner: str | None, team: str) -> float:
        """The last reward of a seat of ``team`` (``winner``: ``None`` for a draw)."""
        if winner is None:
            return 0.0
        return self.win if winner == team else self.loss
