"""The time split of a game (maw.records.accounting) on hand-made logs, and on a real one."""

from __future__ import annotations

import pytest

from maw.records.accounting import merge, minus, time_split


def test_merge_and_minus():
    assert merge([(3, 4), (0, 1), (0.5, 2), (5, 5)]) == [(0, 2), (3, 4)]
    assert minus([(0, 10)], [(2, 3), (5, 7), (9, 12)]) == [(0, 2), (3, 5), (7, 9)]
    assert minus([(0, 1), (4, 6)], [(0, 1)]) == [(4, 6)]


def rec(kind, t, **kw):
    return {"kind": kind, "t": t, **kw}


def test_time_split_divides_the_game_into_four_shares():
    records = [
        rec("round", 0.0),
        # Ann is asked at 1, her interface gets it at 1.5, waits 0.5 s, the model runs
        # 2..5, she answers at 5.25
        rec("input", 1.0, player="Ann"),
        rec("llm", 5.0, player="Ann", seconds=3.0),
        rec("turn", 5.25, player="Ann", wait=0.5, seconds=3.75),
        # Bob is asked at 3 while Ann's call runs; his call waits for the lock, runs
        # 5.5..7, he answers at 7
        rec("input", 3.0, player="Bob"),
        rec("llm", 7.0, player="Bob", seconds=1.5),
        rec("turn", 7.0, player="Bob", wait=0.0, seconds=4.0),
        rec("outcome", 10.0),
    ]
    split = time_split(records)
    assert split["game"] == 10.0
    assert split["llm"] == 4.5  # 2..5 and 5.5..7
    assert split["waits"] == 0.5  # 1.5..2
    # open questions 1..5.25 and 3..7, less calls and waits: 1..1.5, 5..5.5
    assert split["overhead"] == 1.0
    assert split["idle"] == 4.0  # 0..1 and 7..10
    assert sum(split[k] for k in ("llm", "waits", "overhead", "idle")) == pytest.approx(10)


def test_no_outcome_no_split():
    assert time_split([rec("round", 0.0), rec("input", 1.0, player="Ann")]) == {}


def test_a_repaired_decision_counts_its_two_calls_where_they_ran():
    # the first call 1..3, then the repair waited for another player's call (3..6) and
    # ran 6..7: the record's total (3 s) ending at its t would put the calls at 4..7
    records = [
        rec("round", 0.0),
        rec("input", 1.0, player="Ann"),
        rec("input", 3.0, player="Bob"),
        rec("llm", 6.0, player="Bob", seconds=3.0, spans=[[3.0, 6.0]]),
        rec("turn", 6.0, player="Bob", wait=0.0, seconds=3.0),
        rec("llm", 7.0, player="Ann", seconds=3.0, spans=[[1.0, 3.0], [6.0, 7.0]]),
        rec("turn", 7.0, player="Ann", wait=0.0, seconds=6.0),
        rec("outcome", 8.0),
    ]
    split = time_split(records)
    assert split["llm"] == 6.0 and split["overhead"] == 0.0 and split["idle"] == 2.0


def test_a_decision_cut_short_by_the_end_of_the_game_still_counts_its_calls():
    from maw.llm.telemetry import summarize

    records = [rec("round", 0.0), rec("input", 1.0, player="Fay"),
               rec("outcome", 9.0),
               # written after the outcome: the call ran 1..8, its repair never finished
               rec("llm", 9.5, player="Fay", calls=1, tokens=10, seconds=7.0,
                   spans=[[1.0, 8.0]], outcome="unfinished")]
    assert time_split(records)["llm"] == 7.0
    totals = summarize([r for r in records if r["kind"] == "llm"])
    assert totals["calls"] == 1 and totals["legal"] + totals["fallback"] == 0


def shown(line: str) -> tuple[float, list[tuple[str, float, float]]]:
    """The game's seconds, and each share's name, seconds and percent, as ``describe``
    wrote them."""
    import re

    game = float(line.split(" s of play: ")[0])
    shares = [(name, float(s), float(p)) for name, s, p in re.findall(
        r"([A-Za-z ]+?) ([\d.]+) s \(([\d.]+)%", line.split(": ", 1)[1])]
    return game, shares


def check_adds_up(split: dict[str, float]) -> str:
    """``describe(split)``: its seconds and percentages add up to the whole and agree with
    each other and with the split (each within its last shown digit)."""
    from maw.records.accounting import describe

    line = describe(split)
    game, shares = shown(line)
    assert [name.strip(", ") for name, _, _ in shares] == [
        "LLM calls", "deliberate waits", "timers and idle", "MAW overhead"]
    digits = len(line.split(" s of play")[0].split(".")[1])
    unit = 10 ** -digits
    assert unit <= max(split["game"], 0.1) / 100 + 1e-12  # (shown to 1% of the game or finer)
    assert game == pytest.approx(split["game"], abs=unit / 2 + 1e-9)
    assert sum(s for _, s, _ in shares) == pytest.approx(game, abs=1e-9)
    assert sum(p for _, _, p in shares) == pytest.approx(100.0, abs=1e-9)
    for (_, s, p), key in zip(shares, ("llm", "waits", "idle", "overhead"), strict=True):
        assert s == pytest.approx(split[key], abs=unit + 1e-9)
        assert p == pytest.approx(100 * split[key] / split["game"], abs=0.1 + 1e-9)
        # a share that is a percent or more of the game never shows as 0 seconds
        assert s > 0 or p < 1
    return line


def test_a_short_games_shares_show_their_seconds_and_add_up():
    # the line that read "timers and idle 0.0 s (31.4%)": a rule game of 0.1 s
    line = check_adds_up({"game": 0.1, "llm": 0.0, "waits": 0.0, "idle": 0.0314,
                          "overhead": 0.0686})
    assert "timers and idle 0.031 s (31.4%)" in line
    # rounded one by one, these shares would add up to 100.1%
    check_adds_up({"game": 10.0, "llm": 3.335, "waits": 3.335, "idle": 3.33, "overhead": 0.0})


def test_a_cut_short_call_is_named_in_the_llm_share():
    records = [rec("round", 0.0), rec("input", 1.0, player="Ann"),
               rec("llm", 4.0, player="Ann", calls=1, tokens=0, seconds=3.0,
                   spans=[[1.0, 4.0]], outcome="cut short"),
               rec("input", 4.0, player="Ann"),
               rec("llm", 6.0, player="Ann", calls=1, tokens=9, seconds=2.0,
                   spans=[[4.0, 6.0]], outcome="legal"),
               rec("turn", 6.0, player="Ann", wait=0.0, seconds=2.0), rec("outcome", 8.0)]
    split = time_split(records)
    assert split["llm"] == 5.0 and split["cut"] == 3.0
    line = check_adds_up(split)
    assert "LLM calls 5.00 s (62.5%; 3.00 s of it in calls a cancel cut short)" in line


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_the_time_line_of_a_real_game_adds_up(server, tmp_path):
    """A real game over XMPP, of rule players that end each phase as soon as all are done
    (a game of well under a second, where one decimal of a second said nothing)."""
    from maw import engine
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.records.accounting import read_log

    config = GameConfig(players=6, rules=engine.ruleset("maw"), seed=2, day_seconds=4,
                        night_seconds=2, log_dir=tmp_path, early_end=True)
    result = await run_game(config, default_seats(6), server, timeout=120)
    split = time_split(read_log(result.log_path))
    assert result.time_split == split  # (what maw game's summary prints)
    assert sum(split[k] for k in ("llm", "waits", "idle", "overhead")) == pytest.approx(
        split["game"], abs=0.002)
    check_adds_up(split)
