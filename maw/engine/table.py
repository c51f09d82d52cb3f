"""The seats round the table, for a game whose talk goes in turns (werewolf-12): who sits
next to whom among the living, and the order of a round."""

from __future__ import annotations

from maw.engine.resolution import NOBODY
from maw.engine.state import GameState


def neighbours(state: GameState, s: int) -> list[int]:
    """The living players to the left (next in seat order) and right of seat ``s``."""
    n, alive = len(state.names), state.alive
    left = next((t for k in range(1, n) if alive[t := (s + k) % n]), s)
    right = next((t for k in range(1, n) if alive[t := (s - k) % n]), s)
    return sorted({left, right} - {s})


def round_from(state: GameState, first: int, step: int, last: int) -> tuple[int, ...]:
    """The living, round the table from ``first`` by ``step``, ``last`` at the end."""
    n = len(state.names)
    seats = [(first + step * k) % n for k in range(n)]
    order = [t for t in seats if state.alive[t] and t != last]
    return (*order, last) if last != NOBODY and state.alive[last] else tuple(order)


def clockwise(state: GameState, s: int, t: int) -> bool:
    """Is ``t`` the first living seat after ``s`` in seat order?"""
    n = len(state.names)
    return next(x for k in range(1, n) if state.alive[x := (s + k) % n]) == t
