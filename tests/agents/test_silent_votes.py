"""Silent votes over XMPP (``--rule announce_votes=off``): each execution vote reaches
its voter alone, the day's result tells everyone who voted for whom, and ``maw audit``
finds no vote sent to anyone else."""

from __future__ import annotations

import json

import pytest

from maw import engine
from maw.engine import parse_options
from maw.hosting.plan import GameRequest, plan_game
from maw.records.audit import audit_records


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_silent_vote_reaches_its_voter_alone_and_the_audit_agrees(server, tmp_path):
    from maw.hosting.game import run_game

    options = ("announce_votes=off",)
    request = GameRequest(players=6, rules=engine.ruleset("maw", **parse_options(list(
        options))), seed=2, policy="rule", xmpp=f"localhost:{server.port}",
        log_dir=tmp_path, day_seconds=5, night_seconds=3, early_end=True,
        rule_options=options)
    plan = await plan_game(request)
    result = await run_game(plan.config, plan.seats, server, timeout=120)
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    seats = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    cast = [r for r in log if r["kind"] == "msg" and r["type"] == "vote_cast"
            and r["body"]["kind"] == "execute"]
    assert cast
    for r in cast:  # (to the voter's own seat, and no other)
        assert r["to"] == seats[r["body"]["voter"]], r
    results = [r for r in log if r["kind"] == "msg" and r["type"] == "vote_result"
               and isinstance(r["to"], list) and len(r["to"]) > 1]
    assert results and any(r["body"].get("votes") for r in results)
    audit = audit_records(log)
    assert audit.ok, audit.violations
