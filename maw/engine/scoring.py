"""Points across rounds: the leaderboard of design document §1.2.4."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


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
