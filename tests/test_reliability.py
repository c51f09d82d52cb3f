"""A lost XMPP server: the processes notice and say so.

The server (``maw server``, a process of its own) is killed in the middle of a game with
a person in ``maw play`` (another process): ``maw play`` exits at once with one line
saying the connection is lost (before, it printed nothing and sat until its input
closed); the host says the server went away, logs it, and its own players finish the
game in memory."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from maw.hosting.xmpp import free_port, port_open


def maw(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "maw", *args], text=True, **kwargs)


def test_a_killed_server_is_noticed_by_the_person_and_the_host(tmp_path):
    port = free_port()
    server = maw("server", "--port", str(port), stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)
    host = play = None
    try:
        end = time.monotonic() + 30
        while not port_open("127.0.0.1", port):
            assert server.poll() is None and time.monotonic() < end
            time.sleep(0.1)
        host = maw("game", "--players", "6", "--humans", "1", "--policy", "rule",
                   "--xmpp", f"127.0.0.1:{port}", "--lobby", "lost", "--lobby-seconds", "60",
                   "--day-seconds", "6", "--night-seconds", "3", "--log-dir", str(tmp_path),
                   "--quiet", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(2)
        play = maw("play", "--name", "Quinn", "--xmpp", f"127.0.0.1:{port}", "--lobby",
                   "lost", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
        seen: list[str] = []
        while not any("You are a" in x for x in seen):  # dealt a role: the game is on
            line = play.stdout.readline()
            assert line or play.poll() is None, (seen, play.stderr.read())
            seen.append(line)
        server.send_signal(signal.SIGKILL)
        server.wait()
        killed = time.monotonic()
        play.stdout.read()  # (until it exits)
        assert play.wait(timeout=30) == 2
        noticed = time.monotonic() - killed
        err = play.stderr.read().strip().splitlines()
        assert err == [f"maw play: error: lost the connection to the XMPP server at "
                       f"127.0.0.1:{port}; the game goes on without this player"], err
        assert noticed < 10, noticed
        out, host_err = host.communicate(timeout=120)
        assert host.returncode == 0, host_err[-2000:]
        assert f"maw game: the XMPP server at 127.0.0.1:{port} went away" in host_err
        assert "Summary:" in out
        records = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text()
                   .splitlines()]
        assert any(r["kind"] == "server_lost" for r in records)
        assert next(r for r in records if r["kind"] == "outcome")["absent"] == ["Quinn"]
    finally:
        for p in (play, host, server):
            if p is not None and p.poll() is None:
                p.kill()


def test_a_player_that_quits_is_noticed_at_once_and_a_stand_in_takes_its_seat(tmp_path):
    """On the embedded server a killed client was never noticed (it bounces nothing):
    now the server tells the GameMaster it went offline (presence), and with
    ``--substitute rule`` a rule player plays the seat from the next phase on."""
    port = free_port()
    host = player = None
    try:
        host = maw("game", "--players", "6", "--remote", "1", "--policy", "rule",
                   "--substitute", "rule", "--xmpp", f"embedded:{port}", "--lobby", "quit",
                   "--day-seconds", "4", "--night-seconds", "2", "--log-dir", str(tmp_path),
                   "--seed", "6", "--quiet", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        end = time.monotonic() + 30
        while not port_open("127.0.0.1", port):
            assert host.poll() is None and time.monotonic() < end
            time.sleep(0.1)
        player = maw("player", "--name", "Zed", "--xmpp", f"127.0.0.1:{port}", "--lobby",
                     "quit", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        while True:  # dealt a role: the game is on
            line = player.stdout.readline()
            assert line, "the player never got its role"
            if "Day 1" in line:
                break
        # (the GameMaster follows a player's presence once the player has agreed to it,
        # a few milliseconds after it joined)
        time.sleep(1)
        player.send_signal(signal.SIGKILL)
        player.wait()
        killed = time.time()
        out, err = host.communicate(timeout=120)
        assert host.returncode == 0, err[-2000:]
        assert err.strip() == ""  # (no chatter from the presence stanzas)
    finally:
        for p in (player, host):
            if p is not None and p.poll() is None:
                p.kill()
    records = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    started = next(r for r in records if r["kind"] == "started")
    gone = next(r for r in records if r["kind"] == "gone")
    assert gone["player"] == "Zed" and gone["why"] == "offline"
    noticed = started["wall"] + gone["t"] - started["t"] - killed
    assert noticed < 2, noticed  # (the server saw the connection close)
    took = next(r for r in records if r["kind"] == "substituted")
    assert took["player"] == "Zed" and took["decider"] == "rule"
    later = records[records.index(took):]
    # from the next phase on, the seat acts (it voted or attacked) and the game ends
    phase = next(i for i, r in enumerate(later) if r["kind"] == "event"
                 and r["event"] == "PhaseStarted")
    assert any(r["kind"] == "action" and r["data"].get("actor") == "Zed"
               for r in later[phase:]), "the stand-in never acted"
    assert not any(r["kind"] == "action" and r["data"].get("actor") == "Zed"
                   for r in later[:phase])
    outcome = next(r for r in records if r["kind"] == "outcome")
    assert "Zed" in outcome["absent"]
    from maw.records.audit import audit_records

    assert audit_records(records).ok
