"""The server's page's side of its Hall (``maw.web.hall``, ``maw.web.server.hall_form``):
what its forms type for a person, and what the list links to as games run and end."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from maw.errors import MawError
from maw.protocol.messages import TableInfo
from maw.web.hall import HallWatch
from maw.web.server import hall_form


def test_the_forms_type_a_join_or_a_create_for_the_named_person():
    assert hall_form({}) == (None, [])  # (no name: the seat asks for it)
    assert hall_form({"name": " Wes ", "join": "3", "ready": "1"}) == (
        "Wes", ["/join 3", "/ready 3"])
    assert hall_form({"name": "Wes", "join": "3"}) == ("Wes", ["/join 3"])
    assert hall_form({"name": "Wes", "create": "1", "ruleset": "aiwolf-5", "players": "5",
                      "fill": "random", "day": "30", "night": "", "wait": "12.5"}) == (
        "Wes", ["/create aiwolf-5 5 fill=random day=30 wait=12.5"])
    assert hall_form({"name": "Wes", "create": "1", "aiwolf": "2"})[1] == ["/create aiwolf=2"]


@pytest.mark.parametrize("query, why", [
    ({"name": "Wes Ley"}, "bad name"),
    ({"name": "Wes", "join": "one"}, "join: a game's number, not 'one'"),
    ({"name": "Wes", "create": "1", "ruleset": "maw 6 fill=random"}, "create: letters"),
])
def test_a_bad_field_is_refused_in_a_line(query, why):
    with pytest.raises(MawError, match=why):
        hall_form(query)


def table(id: int, state: str = "running") -> SimpleNamespace:
    return SimpleNamespace(id=id, ruleset="maw", players=6, result="village won", state=state)


def test_the_list_links_a_running_game_live_then_its_replay(tmp_path):
    watch = HallWatch(tmp_path)
    infos = [TableInfo(id=1, ruleset="maw", players=6, fill="rule", people=["Ann"],
                       state="running", lobby="t1-1")]
    watch.listing(lambda: infos)
    feed = watch.begin(table(1))
    feed({"t": 0.0, "kind": "started"})
    [row] = watch.tables()
    assert row["live"] and row["replay"] is None and "lobby" not in row
    observer = watch.observer(1)
    watcher = observer.watch()
    log = tmp_path / "2026-11-28" / "game-abc.jsonl"
    watch.end(table(1, "finished"), log)
    [row] = watch.tables()
    assert not row["live"] and row["replay"] == "2026-11-28/game-abc.jsonl"
    assert watch.observer(1) is None and observer.over
    frames = []
    while (item := watcher.queue.get_nowait()) is not None:
        frames.append(item.decode())
    assert frames[-1].startswith("event: end") and "game-abc.jsonl" in frames[-1]


def test_a_game_that_left_no_log_under_the_archive_has_no_replay(tmp_path):
    watch = HallWatch(tmp_path / "archive")
    watch.begin(table(2))
    watch.end(table(2, "failed"), None)
    watch.begin(table(3))
    watch.end(table(3, "finished"), tmp_path / "elsewhere" / "game-x.jsonl")
    assert watch.replays == {} and watch.observers == {}
