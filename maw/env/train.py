"""``maw train``: a learned player's table, from engine games against fixed opponents
(``maw.policies.learned`` is the player; this is its training)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from maw.engine import Ruleset
from maw.errors import ConfigError
from maw.policies.base import Decider
from maw.policies.learned import HALF_LIFE, LearnedDecider, Table


def train(rules: Ruleset, team: str, games: int, out: Path, *, players: int | None = None,
          opponents: str = "rule", seed: int = 0, resume: bool = False,
          checkpoint: int = 1000, explore: float = 0.2,
          progress: Callable[[int, Table], None] | None = None, command: str = "") -> Table:
    """Play ``games`` engine games of ``rules``, ``team``'s seats learning against
    ``opponents``; save
    the table to ``out`` every ``checkpoint`` games and at the end (``resume``: start
    from ``out``'s table). Game ``i`` uses seed ``(seed, i)`` counted from the games the
    table already has, so a resumed run goes on where it stopped."""
    from maw.simulate import play_game

    ruleset_name = rules.name
    n = players if players is not None else rules.min_players
    rules.roles_for(n)
    if team not in ("village", "werewolves"):
        raise ConfigError(f"--team {team!r}: village or werewolves")
    table = Table.load(out) if resume and out.exists() else Table(ruleset_name, team)
    if resume and (table.ruleset, table.team) != (ruleset_name, team):
        raise ConfigError(f"{out} learned {table.team} on {table.ruleset}, not {team} on "
                          f"{ruleset_name}")
    table.command = command or table.command
    names = [f"P{i:02d}" for i in range(n)]
    playing: list[LearnedDecider] = []

    rate = [explore]  # explores less as it goes (by the game's number: a resumed run too)

    def factory(player: str, rng: random.Random) -> Decider:
        d = LearnedDecider(player, rng, table, rate[0])
        playing.append(d)
        return d

    from maw.policies.base import DECIDERS, register_decider

    register_decider("learned-training", factory)
    start = table.games
    try:
        for i in range(start, start + games):
            rate[0] = max(0.02, explore * 0.5 ** (i / HALF_LIFE))
            playing.clear()
            rec = play_game(rules, names, opponents, hash((seed, i)) & 0xFFFFFFFF,
                            teams={team: "learned-training"})
            ret = 1.0 if rec.winner == team else -1.0 if rec.winner else 0.0
            for d in playing:
                for key, option in d.visits:
                    table.add(key, option, ret)
            table.games += 1
            if progress is not None:
                progress(table.games - start, table)
            if checkpoint and table.games % checkpoint == 0:
                table.save(out)
    finally:
        DECIDERS.pop("learned-training", None)
    table.save(out)
    return table
