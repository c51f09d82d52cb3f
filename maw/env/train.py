"""``maw train``: a learned player's table, from engine games against fixed opponents
(``maw.policies.learned`` is the player; this is its training)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from maw.engine import Ruleset
from maw.errors import ConfigError
from maw.policies.base import Decider
from maw.policies.learned import HALF_LIFE, LearnedDecider, Table, then


def train(rules: Ruleset, team: str, games: int, out: Path, *, players: int | None = None,
          opponents: str = "rule", seed: int = 0, resume: bool = False,
          checkpoint: int = 1000, explore: float = 0.2, counterfactual: int = 0,
          seats: int = 1, progress: Callable[[int, Table], None] | None = None,
          command: str = "") -> Table:
    """Play ``games`` engine games of ``rules``, ``team``'s seats learning against
    ``opponents``; save
    the table to ``out`` every ``checkpoint`` games and at the end (``resume``: start
    from ``out``'s table). Game ``i`` uses seed ``(seed, i)`` counted from the games the
    table already has, so a resumed run goes on where it stopped.

    ``counterfactual`` K: one seat of the team learns (beside rule teammates),
    and not from the game's result (one seat of many moves it too little to be seen
    through the luck of the rest): each of its choices is tried with every option, the
    game played again to it and on K times with fresh random streams, the same K for
    every option (``maw.env.counterfactual``); each option's mean result is its return,
    and its mean result less the rule option's its paired advantage (a table with them
    plays safe: ``maw.policies.learned``). ``seats`` S: the table plays S of the team's
    seats, drawn each game from its seed (the rest rule players), one of them trying its
    choices: with S the team's size, a table for every seat of a side learns beside
    copies of itself."""
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
    table.command = then(table.command if resume else "", command)
    names = [f"P{i:02d}" for i in range(n)]
    playing: list[LearnedDecider] = []

    rate = [explore]  # explores less as it goes (by the game's number: a resumed run too)

    def factory(player: str, rng: random.Random) -> Decider:
        d = LearnedDecider(player, rng, table, rate[0])
        playing.append(d)
        return d

    if counterfactual:
        return _counterfactual(rules, team, games, out, table, names, opponents, seed,
                               checkpoint, counterfactual, progress, seats)
    from maw.policies.base import DECIDERS, register_decider

    register_decider("learned-training", factory)
    start = table.games
    try:
        for i in range(start, start + games):
            rate[0] = max(0.02, explore * 0.5 ** (i / HALF_LIFE))
            playing.clear()
            rec = play_game(rules, names, opponents, hash((seed, i)) & 0xFFFFFFFF,
                            teams={team: "learned-training"})
            ret = _result(rec, team)
            for d in playing:
                for key, option in d.visits:
                    table.add(key, option, ret)
            _played(table, out, start, checkpoint, progress)
    finally:
        DECIDERS.pop("learned-training", None)
    table.save(out)
    return table


def _counterfactual(rules: Ruleset, team: str, games: int, out: Path, table: Table,
                    names: list[str], opponents: str, seed: int, checkpoint: int, k: int,
                    progress: Callable[[int, Table], None] | None, seats: int = 1
                    ) -> Table:
    """``train`` with ``counterfactual`` K (see there)."""
    from maw.env.counterfactual import drawn_seats, play
    from maw.policies.base import make_decider

    team_seats: list[LearnedDecider] = []  # (the table's seats of the game being played)
    chosen: list[str] = []  # (its players: drawn each game; the first tries its choices)
    forced: dict[int, int] = {}

    def table_seat(player: str, rng: random.Random, role: str | None = None) -> Decider:
        if player not in chosen:
            return make_decider("rule", player, rng)
        d = LearnedDecider(player, rng, table)
        if player == chosen[0]:
            d.forced = forced
        team_seats.append(d)
        return d
    table_seat.takes_role = True  # type: ignore[attr-defined]

    def tried() -> LearnedDecider:
        return next(d for d in team_seats if d.player == chosen[0])

    def past(t: int) -> Callable[[], bool]:
        return lambda: len(tried().visits) > t  # (the seat has made choice t)

    start = table.games
    for i in range(start, start + games):
        s = hash((seed, i)) & 0xFFFFFFFF
        team_seats.clear()
        forced.clear()
        chosen[:] = drawn_seats(rules, names, s, team, seats)
        play(rules, names, opponents, s, {team: table_seat})
        seat = tried()
        learned = []  # (the table changes once the game's choices are all tried: each is
        # tried under the table that made the game)
        for t, ((key, _), groups) in enumerate(zip(seat.visits, seat.offered, strict=True)):
            if len(groups) < 2:
                continue
            value: dict[int, float] = {}
            for group in groups:
                total = 0.0
                for j in range(k):
                    team_seats.clear()
                    forced.clear()
                    forced[t] = group[0]
                    total += _result(play(rules, names, opponents, s, {team: table_seat},
                                          past(t), (s, t, j)), team)
                value.update((option, total / k) for option in group)
            learned += [(key, option, v, v - value[0]) for option, v in value.items()]
        for key, option, v, advantage in learned:
            table.add(key, option, v)
            table.add_paired(key, option, advantage)
        _played(table, out, start, checkpoint, progress)
    table.save(out)
    return table


def _result(rec, team: str) -> float:
    """A game's return to ``team``: +1 won, -1 lost, 0 a draw."""
    return 1.0 if rec.winner == team else -1.0 if rec.winner else 0.0


def _played(table: Table, out: Path, start: int, checkpoint: int,
            progress: Callable[[int, Table], None] | None) -> None:
    """One more game learned: counted, told, and saved at a checkpoint."""
    table.games += 1
    if progress is not None:
        progress(table.games - start, table)
    if checkpoint and table.games % checkpoint == 0:
        table.save(out)
