"""maw report's ratings on made-up tournaments whose answer is known."""

from __future__ import annotations

import json
import time

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
                row.update(name=name, agent="rule", role="Villager", team=team, cost=None,
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


def test_ratings_by_side_tell_a_good_wolf_from_a_poor_villager(tmp_path):
    games = []
    for i in range(16):  # Ann wins every game as a wolf and loses every one as a villager
        wolf = i % 2 == 0
        teams = {"Ann": "werewolves" if wolf else "village", "Bob": "village",
                 "Cid": "village" if wolf else "werewolves", "Dee": "werewolves"}
        games.append(("werewolves", teams))
    by_side = tournament(tmp_path / "s.db", games).ratings(by_side=True)
    ann = {r["side"]: r for r in by_side if r["player"] == "Ann"}
    assert ann["werewolves"]["games"] == ann["village"]["games"] == 8
    assert ann["werewolves"]["mu"] > 25 > ann["village"]["mu"]
    # one rating a side: every player's games add up to its games
    assert sum(r["games"] for r in by_side if r["player"] == "Bob") == 16


def test_a_priced_roster_gives_the_cost_of_a_game(tmp_path):
    teams = {"Ann": "village", "Bob": "werewolves"}
    report = tournament(tmp_path / "c.db", [("village", teams)] * 4)
    assert report.llm_cost()["priced"] is False
    results = Results(tmp_path / "c.db")
    with results.db:
        results.db.execute("UPDATE players SET tokens = 20000, llm_calls = 10, cost = 0.012 "
                           "WHERE name = 'Ann'")
    results.close()
    cost = Report(tmp_path / "c.db").llm_cost()
    assert cost["priced"] and cost["cost"] == pytest.approx(0.012)
    assert "cost 0.0120 a game" in " ".join(Report(tmp_path / "c.db").notes())


def test_the_printed_report_keeps_brackets_as_text(tmp_path, capsys):
    """"the roster's [llm]" printed as "the roster's " (rich took it for markup)."""
    games = [("village", {"Ann": "village", "Bob": "werewolves"})] * 3
    tournament(tmp_path / "b.db", games)
    results = Results(tmp_path / "b.db")
    with results.db:
        results.db.execute("UPDATE players SET tokens = 20000, llm_calls = 10 "
                           "WHERE name = 'Ann'")
    results.close()
    Report(tmp_path / "b.db").print()
    out = capsys.readouterr().out
    assert "give price_per_million in the roster's [llm] for the cost" in " ".join(out.split())


def test_prices_come_from_the_roster_for_its_model_seats(tmp_path):
    from maw.hosting.roster import load_roster
    from maw.tournament.runner import prices_of

    path = tmp_path / "r.toml"
    path.write_text('[llm]\nbackend = "scripted"\nprice_per_million = 0.5\n'
                    '[[player]]\nname = "Ann"\ndecider = "llm"\n'
                    '[[player]]\nname = "Bob"\ndecider = "hybrid"\nprice_per_million = 2.0\n'
                    '[[player]]\nname = "Cid"\ndecider = "rule"\n')
    assert prices_of(load_roster(path), ("Ann", "Bob", "Cid")) == {"Ann": 0.5, "Bob": 2.0}


def test_the_html_report_holds_every_table_and_lays_out_in_a_browser(tmp_path, browser):
    import html as html_lib

    from page_layout import LAYOUT, at_size

    from maw.tournament.page import write_html

    games = [("village" if i % 3 else "werewolves",
              {"Ann": "village", "Bob": "village", "Cid": "werewolves"}) for i in range(9)]
    report = tournament(tmp_path / "h.db", games)
    page = write_html(report, tmp_path / "report.html")
    text = page.read_text()
    for sec in report.sections():
        assert f"<h2>{html_lib.escape(sec.title)}</h2>" in text
    try:
        for width, height in ((1280, 800), (390, 844)):
            at_size(browser, width, height)
            browser.get(page.as_uri())
            time.sleep(0.5)
            assert browser.execute_script(LAYOUT) == []
            # no table is cut: each fits its box, on a phone too (its cells wrap)
            assert browser.execute_script(
                "return [...document.querySelectorAll('.scroll')]"
                ".filter(e => e.scrollWidth > e.clientWidth + 1)"
                ".map(e => e.parentElement.querySelector('h2').innerText)") == []
            images = browser.execute_script(
                "return [...document.images].map(i => i.complete && i.naturalWidth)")
            assert images and all(images)  # the charts are in the page, and they load
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("days", [[3, 3, 3, 3], [2, 3, 3, 5]])
def test_the_game_length_chart_has_one_bar_per_whole_day(days):
    """Whole days on the axis (all games 3 days long once gave one block over 2.6 to 3.4),
    a bar for each, as high as the games that lasted that long."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from maw.tournament.charts import game_lengths

    fig, ax = plt.subplots()
    try:
        game_lengths(ax, days)
        fig.canvas.draw()
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
        labels = [t.get_text() for t in ax.get_xticklabels()]
        bars = {p.get_x() + p.get_width() / 2: p.get_height() for p in ax.patches}
    finally:
        plt.close(fig)
    assert ticks == list(range(min(days) - 1, max(days) + 2))
    assert labels == [str(d) for d in ticks]
    assert bars == {d: days.count(d) for d in ticks}


def test_retries_and_each_kind_of_fallback_are_counted_from_the_log_to_the_report(tmp_path):
    from maw.records.metrics import game_metrics

    def llm(player, outcome, t, **more):
        return {"kind": "llm", "t": t, "player": player, "calls": 1, "tokens": 10,
                "seconds": 0.1, "outcome": outcome, **more}

    gone = [{"error": "no OpenAI-compatible server answers", "wait": 0.5}]
    records = [
        {"kind": "round", "t": 0.0, "round": 1, "roles": {"Ann": "Villager",
                                                          "Bob": "Werewolf"}},
        llm("Ann", "legal", 1.0, retries=gone * 2),
        llm("Ann", "fallback", 2.0, retries=gone * 3, fallback_decider="random",
            exception="BackendUnavailable(...)"),
        llm("Bob", "fallback", 3.0, fallback_decider="listen"),
        llm("Bob", "fallback", 4.0, fallback_decider="rule"),
        {"kind": "outcome", "t": 5.0, "winner": "village", "reason": "", "day": 1}]
    players = {p.name: p for p in game_metrics(records, {}).players}
    assert (players["Ann"].retries, players["Ann"].fallbacks,
            players["Ann"].fallback_random) == (5, 1, 1)
    assert (players["Bob"].fallback_listen, players["Bob"].fallback_rule) == (1, 1)
    tournament(tmp_path / "f.db", [("village", {"Ann": "village", "Bob": "werewolves"})] * 2)
    results = Results(tmp_path / "f.db")
    with results.db:
        for p in players.values():
            results.db.execute(
                "UPDATE players SET llm_calls = 2, retries = ?, fallbacks = ?, "
                "fallback_rule = ?, fallback_random = ?, fallback_listen = ? WHERE name = ?",
                (p.retries, p.fallbacks, p.fallback_rule, p.fallback_random,
                 p.fallback_listen, p.name))
    results.close()
    report = Report(tmp_path / "f.db")
    cost = report.llm_cost()
    assert cost["retries"] == 5 and cost["fallback_random"] == 1 and cost["fallbacks"] == 3
    assert ("5.0 retried, 0.0 repaired, 3.0 fallbacks (rule 1.0, random 1.0, listen 1.0)"
            in " ".join(report.notes()))


def test_votes_are_the_ballots_counted_not_every_change_on_the_way():
    """A player that changes its vote casts one ballot a vote round: a random player
    asked at every news cast 2,095 votes in one game, and "votes on wolves" took each
    change for a trial (47% (47-48%))."""
    from maw.records.metrics import game_metrics

    def vote(t, voter, target):
        return {"kind": "action", "t": t, "action": "Vote",
                "data": {"actor": voter, "target": target}}

    roles = {"Ann": "Villager", "Bob": "Werewolf", "Cid": "Villager"}
    records = [
        {"kind": "round", "t": 0.0, "round": 1, "roles": roles},
        *(vote(1.0 + i / 10, "Ann", ("Bob", "Cid")[i % 2]) for i in range(9)),  # 9 changes
        vote(2.0, "Cid", "Bob"), vote(2.1, "Bob", "Ann"),
        {"kind": "event", "t": 3.0, "event": "VotesRevealed",
         "data": {"day": 1, "kind": "execute", "vote_round": 0,
                  "votes": [["Ann", "Bob"], ["Bob", "Ann"], ["Cid", "Bob"]]}},
        {"kind": "event", "t": 3.1, "event": "VotesRevealed",  # (a pack's: not counted)
         "data": {"day": 1, "kind": "attack", "vote_round": 0, "votes": [["Bob", "Ann"]]}},
        {"kind": "outcome", "t": 5.0, "winner": "village", "reason": "", "day": 1}]
    players = {p.name: p for p in game_metrics(records, {}).players}
    assert (players["Ann"].votes, players["Ann"].wolf_votes) == (1, 1)
    assert (players["Cid"].votes, players["Cid"].wolf_votes) == (1, 1)
    assert (players["Bob"].votes, players["Bob"].wolf_votes) == (1, 0)


def test_a_report_whose_games_logs_are_gone_says_its_calibration_lacks_them(tmp_path, capsys):
    """``--plots`` left the calibration chart out without a word when the database's log
    paths pointed nowhere (a results folder moved)."""
    from maw.cli import main

    db = tmp_path / "moved.db"
    tournament(db, [("village", {"Ann": "village", "Bob": "werewolves"})] * 50).db.close()
    assert main(["report", str(db), "--plots", str(tmp_path / "plots")]) == 0
    err = capsys.readouterr().err
    assert "50 of 50 games' logs are gone" in err and "so there is none" in err, err
    assert "reading 50 games' logs" in err  # (a long read says so first)
    assert not (tmp_path / "plots" / "calibration.png").exists()


def test_a_folder_of_game_logs_is_ranked_as_one_set_and_a_broken_log_is_named(tmp_path,
                                                                            capsys):
    """``maw report DIR``: every game log under a folder (``--log-dir``'s, a server's day
    folders) counts, each game once; a player's own log has no outcome and adds none; a
    log that cannot be read is left out by name, not the whole report."""
    from maw.cli import main
    from maw.engine import ruleset
    from maw.records.log import GameLog
    from maw.simulate import play_game

    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
    won: dict[str, int] = dict.fromkeys(names, 0)
    wins: dict[str, int] = {}
    for seed in range(7):  # real games, written as the game master writes their outcome
        game = play_game(ruleset("maw"), names, "rule", seed)
        folder = tmp_path / "logs" / ("2026-12-08" if seed % 2 else "")
        log = GameLog(folder / f"game-{seed}.jsonl")
        log.write("started", agents=8, seconds=0.1, ruleset="maw", seed=seed, players=6,
                  remote=0, lobby="lobby", wall=time.time())
        log.write("outcome", round=1, winner=game.winner, reason="", day=game.days,
                  points=game.points, roles=game.roles, absent=[])
        log.close()
        wins[game.winner or "nobody"] = wins.get(game.winner or "nobody", 0) + 1
        for n, role in game.roles.items():
            from maw.engine.roles import role_named

            won[n] += game.winner == role_named(role).team.value
    player = GameLog(tmp_path / "logs" / "player-Ann-1a2b.jsonl")  # (a seat's own log)
    player.write("msg", sender="ann@localhost", to="gm@localhost", type="vote", body={})
    player.close()
    (tmp_path / "logs" / "cut.jsonl").write_text('{"kind": "outcome", "t": 1\n')
    rooms = tmp_path / "logs" / "game-1"  # (a game's chat rooms' archives: no game log)
    rooms.mkdir()
    (rooms / "round1-day1-Village.jsonl").write_text(
        '{"type": "line", "index": 0, "speaker": "Bob", "text": "Hi.", "day": 1}\n')
    assert main(["report", str(tmp_path / "logs")]) == 0
    out = capsys.readouterr().out
    assert "7 game(s) from a folder of logs" in out, out
    assert f"the logs under {tmp_path / 'logs'}\n" in out
    for n in names:
        row = next(line for line in out.splitlines() if line.startswith(f"│ {n} "))
        assert [c.strip() for c in row.split("│")[2:4]] == ["7", str(won[n])], row
    assert "won: " + ", ".join(f"{t} {k} of 7" for t, k in sorted(wins.items())) in out
    assert [line for line in out.splitlines() if line.startswith("left out")] == [
        line for line in out.splitlines() if "cut.jsonl:1: not a MAW game log" in line]
    # a folder with no game in it, and one with no log at all, say so
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "holds no game log (*.jsonl)" in capsys.readouterr().err
