"""One room open at a time (design document §2: at dawn the Hideout closes, then the
Village opens; at dusk the other way round): in a real game's log, the GameMaster sends a
room ``open_room`` only once every other room has answered its ``close_room``."""

from __future__ import annotations

import json

import pytest

from maw import engine
from maw.hosting.plan import GameRequest, plan_game


def rooms_open(records: list[dict], gm: str) -> list[tuple[str, set[str]]]:
    """Each ``open_room`` the GameMaster sent, with the rooms open (answered) then."""
    opened: set[str] = set()
    asked: dict[str, str] = {}  # room -> what it was last asked (open_room, close_room)
    out = []
    for r in records:
        if r["kind"] != "msg":
            continue
        if r["sender"] == gm and r["type"] in ("open_room", "close_room"):
            asked[r["to"]] = r["type"]
            if r["type"] == "open_room":
                out.append((r["to"], set(opened)))
        elif r["to"] == gm and r["type"] == "agree" and r["sender"] in asked:
            (opened.add if asked.pop(r["sender"]) == "open_room" else opened.discard)(
                r["sender"])
    return out


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_the_hideout_closes_before_the_village_opens_and_the_other_way_round(
        server, tmp_path):
    from maw.hosting.game import run_game

    request = GameRequest(players=7, rules=engine.ruleset("maw"), seed=4, policy="rule",
                          xmpp=f"localhost:{server.port}", log_dir=tmp_path,
                          day_seconds=5, night_seconds=3, early_end=True)
    plan = await plan_game(request)
    result = await run_game(plan.config, plan.seats, server, timeout=120)
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    gm = next(r["lobby"] for r in records if r["kind"] == "started")
    opens = rooms_open(records, gm)
    days = max(r.get("day", 0) for r in records if r["kind"] == "timer")
    assert len(opens) >= 2 * days - 1  # (every dawn and every dusk)
    assert {room.split("@")[0].rsplit("-", 1)[1] for room, _ in opens} == {"village",
                                                                           "hideout"}
    assert all(not others for _, others in opens), opens
