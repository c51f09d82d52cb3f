"""The tables of a game server (``maw.server.tables``): who may sit where, the limits,
and when a game starts; and the Hall's commands as a person types them."""

from __future__ import annotations

import pytest

from maw.errors import MawError
from maw.protocol import messages as m
from maw.server.client import command
from maw.server.tables import MAX_TABLES, Tables, listing


def tables_with_one(wait: float = 60.0) -> tuple[Tables, int]:
    t = Tables(prefix="t1")
    table = t.create("ann@x", "maw", 6, "rule", 30, 15, wait, now=0.0)
    t.join(table.id, "Ann", "ann@x")
    return t, table.id


def test_a_game_starts_when_everyone_seated_is_ready_and_ai_players_fill_the_rest():
    t, gid = tables_with_one()
    t.join(gid, "Bob", "bob@x")
    t.set_ready(gid, "ann@x", True)
    assert t.due(1.0) == []  # (Bob is not ready)
    t.set_ready(gid, "bob@x", True)
    [started] = t.due(2.0)
    assert (started.state, started.lobby, started.free) == ("running", f"t1-{gid}", 4)
    assert t.due(3.0) == []  # (once)
    with pytest.raises(MawError, match="is running"):
        t.join(gid, "Cid", "cid@x")


def test_the_timer_starts_a_table_with_someone_seated_and_closes_an_empty_one():
    t, gid = tables_with_one(wait=10)
    empty = t.create("bob@x", "maw", 6, "random", 30, 15, 10, now=0.0)
    assert t.due(9.9) == []
    [started] = t.due(10.0)
    assert started.id == gid and t.get(empty.id).state == "closed"
    infos = t.listing(11.0)
    assert [(i.id, i.state) for i in infos] == [(gid, "running"), (empty.id, "closed")]


@pytest.mark.parametrize("args, why", [
    (("maw", 6, "llm", 30, 15, 60), "fill must be rule or random"),
    (("maw", 40, "rule", 30, 15, 60), "2 to 15 players"),
    (("maw", 6, "rule", 0.5, 15, 60), "day must be 2 to 600 seconds"),
    (("chess", 6, "rule", 30, 15, 60), "chess"),
    (("aiwolf-5", 6, "rule", 30, 15, 60), "6"),
])
def test_a_game_the_server_cannot_host_is_refused_in_one_line(args, why):
    with pytest.raises(MawError, match=why):
        Tables().create("ann@x", *args, now=0.0)


def test_names_seats_and_the_number_of_games_are_limited_with_clear_refusals():
    t, gid = tables_with_one()
    with pytest.raises(MawError, match="name Ann is taken"):
        t.join(gid, "ann", "other@x")
    assert t.join(gid, "Ann", "ann@x").people == {"Ann": "ann@x"}  # (again: the same)
    other = t.create("bob@x", "maw", 6, "rule", 30, 15, 60, now=0.0)
    with pytest.raises(MawError, match=f"game {gid} already"):
        t.join(other.id, "Ann2", "ann@x")
    with pytest.raises(MawError, match="not a valid name|name"):
        t.join(other.id, "no spaces", "cid@x")
    for i in range(5):
        t.join(other.id, f"P{i}", f"p{i}@x")
    t.join(other.id, "Zed", "z@x")
    with pytest.raises(MawError, match="is full"):
        t.join(other.id, "Late", "late@x")
    while len([x for x in t.tables.values() if x.state == "open"]) < MAX_TABLES:
        t.create("x@x", "maw", 6, "rule", 30, 15, 60, now=0.0)
    with pytest.raises(MawError, match=f"at most {MAX_TABLES} games at once"):
        t.create("x@x", "maw", 6, "rule", 30, 15, 60, now=0.0)


def test_a_client_gone_offline_or_leaving_frees_its_seat_and_its_readiness():
    t, gid = tables_with_one()
    t.join(gid, "Bob", "bob@x")
    t.set_ready(gid, "bob@x", True)
    assert [x.id for x in t.gone("bob@x")] == [gid]
    assert t.get(gid).people == {"Ann": "ann@x"} and t.get(gid).ready == set()
    t.leave(gid, "ann@x")
    assert t.get(gid).people == {}
    with pytest.raises(MawError, match="do not sit at game"):
        t.set_ready(gid, "ann@x", True)


def test_what_a_person_types_at_the_hall():
    assert command("/create aiwolf-5 5 fill=random day=20 wait=30", "Ann", None) == \
        m.CreateGame(ruleset="aiwolf-5", players=5, fill="random", day_seconds=20,
                     wait_seconds=30, player_name="Ann")
    assert command("/join 3", "Ann", None) == m.JoinGame(game=3, player_name="Ann")
    assert command("/ready", "Ann", 3) == m.TableReady(game=3, ready=True)
    assert command("/unready 2", "Ann", 3) == m.TableReady(game=2, ready=False)
    assert command("/ready", "Ann", None) == "you sit at no game: /join one first"
    assert "takes a game's number" in command("/join one", "Ann", None)
    assert "day takes a number" in command("/create day=soon", "Ann", None)
    assert "unknown command" in command("/vote Bob", "Ann", None)
    info = m.TableInfo(id=1, ruleset="maw", players=6, fill="rule", people=["Ann", "Bob"],
                       ready=["Bob"], starts_in=42)
    assert listing([info]) == ["  game 1: maw, 6 players (rule players fill the rest), "
                               "open: Ann, Bob*; starts in 42 s or when all are ready"]


def test_the_hall_drops_a_client_it_could_never_follow_and_frees_its_seat():
    """A client gone before the Hall could follow its presence never sends an
    "unavailable": after ``UNSEEN`` seconds it is dropped, its seat freed; a client whose
    presence the Hall follows stays until it goes offline."""
    from maw.records.log import NULL_LOG
    from maw.server.hall import UNSEEN, HallAgent

    now = [0.0]
    t, gid = tables_with_one()

    async def host(table):  # (no game is started here)
        return None

    hall = HallAgent("maw-hall@localhost", "x", t, host, NULL_LOG, clock=lambda: now[0])
    hall.watchers = {"ann@x": 0.0, "bob@x": 0.0}
    hall._followed("bob@x/res")
    now[0] = UNSEEN - 1
    hall.sweep()
    assert set(hall.watchers) == {"ann@x", "bob@x"}
    now[0] = UNSEEN
    hall.sweep()
    assert set(hall.watchers) == {"bob@x"} and t.get(gid).people == {}
    assert hall.notes.get_nowait() == f"ann went offline: its seat at game {gid} is free"
    hall._unavailable("bob@x/res", None, None)
    assert hall.watchers == {} and hall.followed == set()


def test_the_hall_drops_a_client_whose_list_bounces_at_once_and_frees_its_seat():
    from maw.records.log import NULL_LOG
    from maw.server.hall import HallAgent

    t, gid = tables_with_one()

    async def host(table):  # (no game is started here)
        return None

    hall = HallAgent("maw-hall@localhost", "x", t, host, NULL_LOG, clock=lambda: 0.0)
    hall.watchers = {"ann@x": 0.0, "bob@x": 0.0}
    hall.bounced("ann@x")  # (well before UNSEEN)
    assert set(hall.watchers) == {"bob@x"} and t.get(gid).people == {}
    assert hall.notes.get_nowait() == f"ann went offline: its seat at game {gid} is free"
