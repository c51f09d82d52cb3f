"""`maw server` hosts games people drop into: people in real terminals (pexpect) meet at
its Hall, create two games, sit, get ready; both games play at once to the end with AI
players in the empty seats; someone else at the Hall sees them start and end; the archive holds
both logs, each passing the audit, and the server's own log holds every request."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from stand_ins import person

from maw.hosting.xmpp import free_port
from maw.records.audit import audit_records

pytestmark = pytest.mark.xmpp


def server(port: int, log_dir: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "maw", "server", "--port", str(port),
                             "--log-dir", str(log_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "the Hall is maw-hall@" in line:
            return proc
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.stderr.read()[-2000:]}")


def at_hall(port: int, name: str, log: Path) -> pexpect.spawn:
    child = person(f"--xmpp localhost:{port}", name)
    child.logfile_read = (log / f"{name}.txt").open("w")  # (what the person saw)
    child.expect(f"Welcome to the Hall, {name}")
    return child


def test_people_drop_in_create_and_join_two_games_that_play_at_once_to_the_end(tmp_path):
    port, archive = free_port(), tmp_path / "archive"
    host = server(port, archive)
    people: list[pexpect.spawn] = []
    try:
        # someone at the Hall from the start watches the games come and go
        dee = at_hall(port, "Dora", tmp_path)
        people.append(dee)
        dee.expect("no games yet")
        ann = at_hall(port, "Ann", tmp_path)
        people.append(ann)
        ann.expect("no games yet")
        ann.sendline("/create maw 6 day=6 night=3 wait=120")
        ann.expect(r"Ann created game (\d+)")
        first = ann.match.group(1)
        bea = at_hall(port, "Bea", tmp_path)
        people.append(bea)
        bea.expect(rf"game {first}: maw, 6 players .*open: .*Ann")
        bea.sendline("/create aiwolf-5 5 fill=random day=6 night=3 wait=120")
        bea.expect(r"Bea created game (\d+)")
        second = bea.match.group(1)
        cy = at_hall(port, "Cy", tmp_path)
        people.append(cy)
        cy.sendline(f"/join {first}")
        cy.expect(f"Cy joined game {first}")
        cy.sendline("/join 99")
        cy.expect("Refused: there is no game 99")
        ann.expect(f"Cy joined game {first}")  # (every watcher is told)
        for child in (ann, cy, bea):
            child.sendline("/ready")
        # each person is sent to their game's lobby, and plays it to the end there
        for child, game in ((ann, first), (cy, first), (bea, second)):
            child.expect(f"Game {game} starts: joining it as")
        # Dora, at the Hall meanwhile, sees both games running, then the list on request
        dee.expect(rf"game {first}: maw, 6 players .*running: .*Ann.*Cy")
        dee.expect(rf"game {second}: aiwolf-5, 5 players .*running: .*Bea")
        dee.sendline("/games")
        dee.expect(rf"game {second}: aiwolf-5, 5 players .*(running|finished): .*Bea")
        for child in (ann, cy, bea):
            child.expect("The game is over: (village|werewolves) won", timeout=240)
            child.expect(pexpect.EOF, timeout=60)
        dee.expect(f"game {first} is over: (village|werewolves) won", timeout=60)
        dee.sendline("/quit")
        dee.expect("you left the Hall")
        dee.expect(pexpect.EOF, timeout=30)
    finally:
        for child in people:
            child.close(force=True)
        host.send_signal(signal.SIGTERM)
        out, err = host.communicate(timeout=60)
    assert host.returncode == 0, err[-2000:]
    assert re.search(rf"game {first} finished: (village|werewolves) won", out)
    assert re.search(rf"game {second} finished: (village|werewolves) won", out)
    games = sorted(archive.rglob("game-*.jsonl"))
    assert len(games) == 2
    for log in games:
        records = [json.loads(x) for x in log.read_text().splitlines()]
        started = next(r for r in records if r["kind"] == "started")
        assert started["remote"] in (1, 2) and started["players"] in (5, 6)
        assert audit_records(records).ok
    [server_log] = archive.rglob("server-*.jsonl")
    hall = [json.loads(x) for x in server_log.read_text().splitlines()]
    asked = [(r["type"], r["ok"]) for r in hall if r["kind"] == "hall"]
    assert asked.count(("create_game", True)) == 2 and ("join_game", False) in asked
    assert asked.count(("game_starts", True)) == 2


def test_ai_players_are_sent_into_a_servers_game_and_a_bad_seat_is_refused(tmp_path):
    port, archive = free_port(), tmp_path / "archive"
    host = server(port, archive)
    ann = None
    try:
        bad = subprocess.run([sys.executable, "-m", "maw", "player", "--game", "9", "--name",
                              "Zed", "--xmpp", f"localhost:{port}"],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and bad.stderr == (
            "maw player: error: the Hall refused: there is no game 9\n")
        ann = at_hall(port, "Ann", tmp_path)
        ann.sendline("/create maw 5 day=5 night=3 wait=120")
        ann.expect(r"Ann created game (\d+)")
        game = ann.match.group(1)
        zed = subprocess.Popen([sys.executable, "-m", "maw", "player", "--game", game,
                                "--name", "Zed", "--name", "Yan", "--xmpp",
                                f"localhost:{port}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ann.expect(rf"Yan is ready for game {game}")  # (after Zed or before: ready at once)
        ann.sendline("/ready")
        ann.expect(f"Game {game} starts: joining it as Ann")
        ann.expect("The game is over: (village|werewolves) won", timeout=240)
        ann.expect(pexpect.EOF, timeout=60)
        out, err = zed.communicate(timeout=120)
        assert zed.returncode == 0, err[-2000:]
        assert re.search(r"Zed: round 1: (village|werewolves) won", out), out[-1000:]
    finally:
        if ann is not None:
            ann.close(force=True)
        host.send_signal(signal.SIGTERM)
        host.communicate(timeout=60)
    [log] = archive.rglob("game-*.jsonl")
    records = [json.loads(x) for x in log.read_text().splitlines()]
    started = next(r for r in records if r["kind"] == "started")
    assert started["remote"] == 3 and started["players"] == 5  # (Ann, Zed, Yan; 2 AI)
