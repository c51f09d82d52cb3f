"""Every AIWolf contest log replays through the engine to the same results."""

from __future__ import annotations

import pytest
from conftest import DATA

from maw.aiwolf.replay import parse, replay
from maw.errors import ReplayError

LOGS = sorted((DATA / "aiwolf-logs").rglob("*.log"))
# the AIWolf 0.6 platform's own server, its Java sample players (their README says how)
PLATFORM = sorted((DATA / "aiwolf-platform-logs").glob("*.log"))


def test_all_122_logs_are_present():
    assert len(LOGS) == 122


@pytest.mark.parametrize("path", LOGS, ids=[f"{p.parent.name}/{p.name}" for p in LOGS])
def test_log_replays_to_the_same_results(path):
    report = replay(path)
    assert report.agrees, "\n".join(report.problems)
    assert report.checks >= 3
    # the only accepted quirk: pre-v0.4 servers ran a night after a decided execution
    assert all("after the execution had decided the game" in q for q in report.quirks)


@pytest.mark.parametrize("path", PLATFORM, ids=[p.name for p in PLATFORM])
def test_a_platform_log_replays_to_the_same_results(path):
    assert len(PLATFORM) == 7
    report = replay(path)
    assert report.agrees, "\n".join(report.problems)
    assert report.checks >= 3
    # (the 0.6 platform too runs the night after an execution that decided the game)
    assert all("after the execution had decided the game" in q for q in report.quirks)


def test_replay_notices_a_wrong_winner(tmp_path):
    path = LOGS[0]
    lines = path.read_text().splitlines()
    last = lines[-1].split(",")
    last[-1] = "VILLAGER" if last[-1] == "WEREWOLF" else "WEREWOLF"
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(lines[:-1] + [",".join(last)]))
    report = replay(bad)
    assert not report.agrees and "winner" in report.problems[-1]


def test_replay_notices_a_wrong_execution(tmp_path):
    path = next(p for p in LOGS if ",execute," in p.read_text())
    lines = path.read_text().splitlines()
    i = next(i for i, ln in enumerate(lines) if ",execute," in ln)
    day, _, idx, role = lines[i].split(",")[:4]
    votes = [ln for ln in lines if ln.startswith(f"{day},vote,")]
    voted = {ln.split(",")[3] for ln in votes}
    other = next(str(k) for k in range(1, 20) if str(k) not in voted and str(k) != idx)
    lines[i] = f"{day},execute,{other},{role}"
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(lines))
    assert not replay(bad).agrees


def test_a_file_that_is_not_a_log_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.log"
    bad.write_text("hello,world\n")
    with pytest.raises(ReplayError, match="not a game log line"):
        parse(bad)
