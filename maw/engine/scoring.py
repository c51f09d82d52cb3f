"""Points: what each player scores in a round, and the leaderboard across rounds (design
document §1.2.4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from maw.engine.roles import Team

if TYPE_CHECKING:
    from maw.engine.state import GameState


def points(state: GameState) -> list[tuple[str, int]]:
    """Design document §1.2.4: winning wolves score the initial number of Villagers,
    winning Villagers the number of Villagers still alive; losers score nothing."""
    winner = state.winner
    village = [r.team is Team.VILLAGE for r in state.roles]
    if winner is Team.WEREWOLVES:
        score = sum(village)
    elif winner is Team.VILLAGE:
        score = sum(1 for v, a in zip(village, state.alive, strict=True) if v and a)
    else:
        score = 0
    return [(n, score if r.team is winner else 0)
            for n, r in zip(state.names, state.roles, strict=True)]


@dataclass
class Leaderboard:
    """Points accumulated over rounds, by player name.

    Attributes:
        points: total points per player.
        rounds: rounds recorded.
        wins: rounds each player ended on the winning team.
    """

    points: dict[str, int] = field(default_factory=dict)
    rounds: int = 0
    wins: dict[str, int] = field(default_factory=dict)

    def record(self, points: Mapping[str, int], winners: Iterable[str] = ()) -> None:
        """Add one round's points (every player of the round, even with 0)."""
        for name, p in points.items():
            self.points[name] = self.points.get(name, 0) + p
            self.wins.setdefault(name, 0)
        for name in winners:
            self.wins[name] = self.wins.get(name, 0) + 1
        self.rounds += 1

    def standings(self) -> list[tuple[str, int]]:
        """(name, points), best first; equal points in name order."""
        return sorted(self.points.items(), key=lambda item: (-item[1], item[0]))
