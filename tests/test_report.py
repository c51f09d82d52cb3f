"""maw report's ratings on made-up tournaments whose answer is known."""

from __future__ import annotations

import json

import pytest

from maw.tournament.report import Report
from maw.tournament.runner import GAME_COLUMNS, PLAYER_COLUMNS, Results


def tournament(path, games: list[tuple[str | None, dict[str, str]]]):
    """A results database of ``games``: (winner, {player: team})."""
    results = Results(path)
    with results.db:
        for i, (winner, teams) in enumerate(games):
            results.db.execute(
                f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES "
                f"({', '.join('?' * len(GAME_COLUMNS))})",
                (i, i, json.dumps(sorted(teams)), "maw", winner, "", 3, 6, 1.0, 1.0, "", "{}",
                 "now", 0, None))
            for name, team in teams.items():
                row = dict.fromkeys(PLAYER_COLUMNS, 0)
                row.update(name=name, agent="rule", role="Villager", team=team,
                           won=int(team == winner))
                results.db.execute(
                    f"INSERT INTO players (game, {', '.join(PLAYER_COLUMNS)}) VALUES "
                    f"(?, {', '.join('?' * len(PLAYER_COLUMNS))})",
                    (i, *(row[c] for c in PLAYER_COLUMNS)))
    results.close()
    return Report(path)


def test_a_player_who_always_wins_leads_and_uncertainty_shrinks_with_games(tmp_path):
    games = []
    for i in range(12):  # Ann always on the winning side, the others rotate
        others = ["Bob", "Cid", "Dee", "Eve"]
        mate = others[i % 4]
        teams = {"Ann": "village", mate: "village"}
        teams.update({o: "werewolves" for o in others if o != mate})
        games.append(("village", teams))
    ratings = tournament(tmp_path / "a.db", games).ratings()
    assert ratings[0]["player"] == "Ann" and ratings[0]["games"] == 12
    assert all(r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"]) for r in ratings)
    few = tournament(tmp_path / "b.db", games[:2]).ratings()
    sigma = {r["player"]: r["sigma"] for r in few}
    assert ratings[0]["sigma"] < sigma["Ann"]


def test_draws_move_nobody_apart_and_the_order_is_by_mu_minus_three_sigma(tmp_path):
    teams = {"Ann": "village", "Bob": "village", "Cid": "werewolves"}
    ratings = tournament(tmp_path / "d.db", [(None, teams)] * 3).ratings()
    mus = {r["player"]: r["mu"] for r in ratings}
    assert mus["Ann"] == pytest.approx(mus["Bob"])
    ordinals = [r["ordinal"] for r in ratings]
    assert ordinals == sorted(ordinals, reverse=True)
