"""Counterfactual rollouts: one game played again with another choice, the rest of it
played with fresh random streams.

An engine game is its seed and its players' choices (``maw.simulate``): played again from
the same seed it is the same game up to the choice a player now makes otherwise. From
there ``play`` may draw every random stream of the game anew (``reseed``: the game's own,
for the order players are asked in, and each player's), from a key: continuations with
the same key share their randomness (common random numbers), so two choices compared on
the same keys differ by the choice, not by luck. ``maw train --counterfactual K`` learns
from them (``maw.env.train``); ``benchmarks/headroom.py`` measures with them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from maw.engine import Action, Ruleset, new_game, view
from maw.simulate import GameRecord, _deciders, _game, _record


def drawn_seats(rules: Ruleset, names: list[str], seed: int, team: str, k: int
                ) -> list[str]:
    """``k`` of ``team``'s players (all, if it has fewer) in the game of ``seed``, drawn
    from the seed alone: the same for every run of that game. Not its first seats: a side's
    first seat knows that every seat before it is the other side's, which a learner would
    learn to use (a table trained in the village's first seat learned to divine the
    lowest seat on the first night: a werewolf whenever there was one)."""
    state = new_game(rules, names, random.Random(seed))  # (the deal play_game makes)
    mine = [n for n, r in zip(names, state.roles, strict=True) if r.team.value == team]
    return random.Random(f"seats:{seed}").sample(mine, min(k, len(mine)))


def reseed(rng: random.Random, deciders: dict, key: tuple) -> None:
    """Draw every random stream of a game anew from ``key``: ``rng`` (the game's) and
    each player's (a decider's own streams and those of the parts it holds, in seat
    order)."""
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    source = random.Random(int.from_bytes(digest, "big"))
    rng.seed(source.getrandbits(64))
    for name in sorted(deciders):
        stack, seen = [deciders[name]], set()
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            for value in vars(obj).values():
                if isinstance(value, random.Random):
                    value.seed(source.getrandbits(64))
                elif hasattr(value, "__dict__") and not isinstance(value, type):
                    stack.append(value)


def play(rules: Ruleset, names: list[str], policy, seed: int,
         teams: dict | None = None, reseed_when: Callable[[], bool] | None = None,
         key: tuple = (), instead: Callable[..., Action | None] | None = None
         ) -> GameRecord:
    """``maw.simulate.play_game``, except that once ``reseed_when()`` is true after a
    player's choice, the game's random streams are drawn anew from ``key``;
    ``instead(player, state, legal, choice)`` is played in place of each choice (its own,
    or another: an oracle's)."""
    rng = random.Random(seed)
    state = new_game(rules, names, rng)
    deciders = _deciders(state, names, policy, teams, rng)
    game = _game(names, deciders, state, rng, 3, 100_000, seed, None, None)
    try:
        name, at, legal = next(game)
        while True:
            d = deciders[name]
            action = d.decide(view(at, name) if d.needs_view else None, legal)
            if instead is not None:
                action = instead(name, at, legal, action)
            if reseed_when is not None and reseed_when():
                reseed(rng, deciders, key)
                reseed_when = None
            name, at, legal = game.send(action)
    except StopIteration as done:
        return _record(rules, names, done.value)
