"""A worker's logins kept from game to game (``maw.hosting.logins``): the next game's
agents start on the logins of the game before, a message of the game before is dropped
as stale, a login the server dropped is made again, and a worker ends at its runner's stop
line even while its stdin stays open."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spade.message import Message

from maw import engine
from maw.agents.base import GAME, MawAgent
from maw.hosting.logins import Logins
from maw.hosting.plan import GameRequest, plan_game
from maw.protocol import messages as m
from maw.records.audit import audit_records
from maw.records.log import GameLog

REPO = Path(__file__).resolve().parents[2]


async def play(server, tmp_path: Path, seed: int, logins: Logins, watch=None) -> list[dict]:
    from maw.hosting.game import run_game

    request = GameRequest(players=6, rules=engine.ruleset("maw"), seed=seed,
                          roster=str(REPO / "agents" / "rule.toml"),
                          xmpp=f"localhost:{server.port}", log_dir=tmp_path / str(seed),
                          day_seconds=5, night_seconds=3, early_end=True)
    plan = await plan_game(request)
    result = await run_game(plan.config, plan.seats, server, timeout=120, logins=logins,
                            watch=watch)
    return [json.loads(x) for x in result.log_path.read_text().splitlines()]


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_the_next_game_starts_on_the_logins_of_the_game_before(server, tmp_path):
    logins = Logins()
    first = await play(server, tmp_path, 1, logins)
    made = logins.logins
    assert made == 16 and logins.reused == 0  # (the GameMaster, 3 rooms, 6 x 2 per seat)
    old = {name: k.client for name, k in logins.kept.items()}
    assert all(k.owner is None for k in logins.kept.values())  # (between games: nobody's)

    # game 2: the same names on the same clients; a message game 1's GameMaster (a
    # killed agent's behaviour, waking late) sends one of game 2's players is dropped
    player = next(n for n in logins.kept if "-p-" in n)
    stale_sender = MawAgent(logins.jid("gm", "localhost"), "x")
    stale_sender.game = "an-old-game"
    sent: list[asyncio.Task] = []

    def watch(record: dict) -> None:
        if record["kind"] == "started":
            sent.append(asyncio.get_running_loop().create_task(stale_sender.send_body(
                None, player, m.Narration(day=1, text="A line of the game before."))))

    second = await play(server, tmp_path, 2, logins, watch)
    await asyncio.gather(*sent)
    assert (logins.logins, logins.reused) == (made, 16)
    assert {name: k.client for name, k in logins.kept.items()} == old
    assert all(k.client.is_connected() for k in logins.kept.values())
    stale = [r for r in second if r["kind"] == "stale"]
    assert [(r["agent"], r["type"], r["game"]) for r in stale] == [
        (player, "narration", "an-old-game")]
    for log in (first, second):
        audit = audit_records(log)
        assert audit.ok, audit.violations
        assert any(r["kind"] == "outcome" for r in log)
    # every message of game 2 is between game 2's agents, tagged with game 2
    names = {n.split("@")[0] for n in logins.kept}
    for r in second:
        if r["kind"] == "msg":
            for jid in [r["sender"], *([r["to"]] if isinstance(r["to"], str) else r["to"])]:
                assert jid.split("@")[0] in names, jid

    # a login the server dropped (a node restarted) is made again, the others kept
    lost = logins.kept[player].client
    lost.abort()
    for _ in range(50):
        if not lost.is_connected():
            break
        await asyncio.sleep(0.05)
    third = await play(server, tmp_path, 3, logins)
    assert (logins.logins, logins.reused) == (made + 1, 31)
    assert logins.kept[player].client is not lost
    assert audit_records(third).ok
    await logins.close()
    assert not logins.kept


def test_a_message_tagged_with_another_game_is_dropped_and_logged(tmp_path):
    agent = MawAgent("maw-wtest-p-ann@localhost", "x")
    agent.game_log = GameLog(tmp_path / "log.jsonl")
    msg = Message(to=str(agent.jid), sender="maw-wtest-gm@localhost",
                  metadata={"type": "narration", GAME: "game-1"})
    assert agent.admit(msg)  # (an agent of no kept login reads no tag)
    agent.game = "game-2"
    assert not agent.admit(msg) and agent.stale == 1
    msg.set_metadata(GAME, "game-2")
    assert agent.admit(msg)
    agent.game_log.close()
    records = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [(r["kind"], r["game"]) for r in records] == [("stale", "game-1")]


def test_a_worker_ends_at_the_stop_line_while_its_stdin_stays_open(tmp_path):
    """A process forked from the runner (the embedded server's hashers) holds the pipe
    to a worker's stdin open: the end of stdin never comes, the stop line does."""
    from maw.tournament.worker import STOP

    read, write = os.pipe()
    held = os.dup(write)  # (the forked process's copy)
    worker = subprocess.Popen([sys.executable, "-m", "maw.tournament.worker", "--log-dir",
                               str(tmp_path)], stdin=read, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    os.close(read)
    try:
        assert "ready" in worker.stdout.readline()
        os.write(write, b'{"not an order"\n')
        assert "bad order" in worker.stdout.readline()
        os.write(write, STOP + b"\n")
        os.close(write)
        assert worker.wait(timeout=60) == 0
    finally:
        os.close(held)
        if worker.poll() is None:
            worker.kill()
