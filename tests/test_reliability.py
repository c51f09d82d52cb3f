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
