"""Pulled messages (design document, Table 12: "retrieve unread messages ... purges the
chatLog of read messages"): a room drops the lines every reader has read, archiving them
first, and a real game's players pull, so each room's archive holds every line once."""

from __future__ import annotations

import json

import pytest

from maw import engine
from maw.agents.chatroom import ChatRoomAgent
from maw.hosting.plan import GameRequest, plan_game
from maw.protocol import messages as m
from maw.records.log import GameLog


def line(i: int, text: str) -> m.ChatLine:
    return m.ChatLine(index=i, speaker="Ann", text=text, day=1)


def archived(folder) -> list[int]:
    return [json.loads(x)["index"] for f in sorted(folder.glob("*.jsonl"))
            for x in f.read_text().splitlines()]


def test_the_lines_every_reader_has_read_leave_the_log_for_the_archive(tmp_path):
    room = ChatRoomAgent("village@localhost", "x", "Village", "gm@localhost", GameLog(None),
                         tmp_path)
    room.readers = {"Ann": "ann@localhost", "Bo": "bo@localhost"}
    room.chat_log = [line(i, f"line {i}") for i in range(4)]
    room.pulled("Ann", 3)
    assert room.base == 0 and len(room.chat_log) == 4  # (Bo has read none of it)
    room.pulled("Bo", 2)
    assert room.base == 2 and [x.index for x in room.chat_log] == [2, 3]
    assert archived(tmp_path) == [0, 1]
    room.pulled("Bo", 1)  # (an older index: what was read stays read)
    assert room.base == 2
    room.pulled("Bo", 9)  # (past the log: Ann has still to read line 3)
    assert room.base == 3 and [x.index for x in room.chat_log] == [3]
    room.archive()  # (the phase's close: the rest)
    assert archived(tmp_path) == [0, 1, 2, 3]


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_players_pull_and_each_room_archives_every_line_once(server, tmp_path):
    from maw.hosting.game import run_game

    request = GameRequest(players=6, rules=engine.ruleset("maw"), seed=11, policy="rule",
                          xmpp=f"localhost:{server.port}", log_dir=tmp_path,
                          day_seconds=5, night_seconds=3, early_end=True)
    plan = await plan_game(request)
    result = await run_game(plan.config, plan.seats, server, timeout=120)
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    pulls = [r for r in records if r["kind"] == "msg" and r["type"] == "get_new_messages"]
    assert {r["sender"] for r in pulls} >= {r["jid"] for r in records if r["kind"] == "join"}
    pushed: dict[str, set[int]] = {}
    for r in records:
        if r["kind"] == "msg" and r["type"] == "new_messages":
            body = r["body"]
            pushed.setdefault(body["room_name"], set()).update(
                x["index"] for x in body["messages"])
    assert len(pushed.get("Village", ())) >= 3  # (the rule players talk by day)
    folder = result.log_path.with_suffix("")
    for room, indices in pushed.items():
        kept = [json.loads(x)["index"] for f in sorted(folder.glob(f"*-{room}.jsonl"))
                for x in f.read_text().splitlines()]
        assert len(kept) == len(set(kept)) and set(kept) >= indices, room
