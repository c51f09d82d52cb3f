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
