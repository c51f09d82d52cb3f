"""`maw play`: a person in a real terminal (a pseudo-terminal driven by pexpect) joins a
lobby hosted by `maw game --humans 1` on a real XMPP server, with five AI players; and the
screen model on its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pexpect
import pytest

from maw.hosting.xmpp import free_port
from maw.terminal.screen import Screen

pytestmark = pytest.mark.xmpp


def maw(*args: str) -> list[str]:
    return [sys.executable, "-m", "maw", *args]


def host(port: int, tmp_path, *extra: str) -> tuple[subprocess.Popen, str]:
    """`maw game --humans 1`, and the `maw play` command it prints for the person."""
    proc = subprocess.Popen(
        maw("game", "--players", "6", "--humans", "1", "--policy", "rule", "--seed", "5",
            "--xmpp", f"embedded:{port}", "--early-end",
                "--day-seconds", "8", "--night-seconds", "4",
            "--lobby-seconds", "90", "--log-dir", str(tmp_path), *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.search(r"maw play --name NAME (--xmpp \S+)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"no join command printed: {proc.stderr.read()}")


def person(xmpp: str, name: str) -> pexpect.spawn:
    env = dict(os.environ, TERM="xterm-256color", PYTHONUNBUFFERED="1")
    return pexpect.spawn(sys.executable, ["-m", "maw", "play", "--name", name,
                                          *xmpp.split()],
                         env=env, encoding="utf-8", timeout=60, dimensions=(50, 220))


def finish(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err[-2000:]
    return out


def test_a_person_plays_a_whole_game_from_the_terminal(tmp_path):
    game, xmpp = host(free_port(), tmp_path)
    assert xmpp.startswith("--xmpp localhost:")
    # "Ann" is an AI player's: the person is asked for another name
    child = person(xmpp, "Ann")
    try:
        child.expect("is taken")
        child.expect("Your name")
        child.sendline("Alice")
        seen = {}
        while len(seen) < 2:  # the role and the start of the round, in either order
            i = child.expect([r"You are an? (\w+)", r"starts with 6 players: ([\w, ]+)\."])
            seen[i] = child.match.group(1)
        role = seen[0]
        others = [n for n in seen[1].split(", ") if n != "Alice"]
        child.expect(r"Day 1, day")
        child.sendline("/role")
        child.expect(f"you are Alice, a {role}")
        child.sendline("hello, I am new here")
        child.expect("Alice: hello, I am new here")
        child.sendline("/vote Zed")
        child.expect("Refused: 'Zed' is not a player")
        child.sendline("/dance")
        child.expect("unknown command /dance")
        child.expect("/vote NAME")  # the help follows
        child.sendline(f"/vote {others[0]}")
        child.expect([f"Alice votes for {others[0]}", "Refused"])
        child.sendline("/who")
        child.expect("alive: ")
        child.expect("The game is over: (village|werewolves) won", timeout=150)
        winner = child.match.group(1)
        child.expect(f"round 1: {winner} won")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    out = finish(game)
    assert f"round 1: {winner} won" in out
    assert "absent" not in out  # the person played: it was asked and answered


def test_ctrl_c_leaves_and_the_game_goes_on(tmp_path):
    game, xmpp = host(free_port(), tmp_path)
    child = person(xmpp, "Alice")
    try:
        child.expect(r"Day 1, day")
        child.sendintr()  # Ctrl-C
        child.expect("You leave the game")
        child.expect("the game goes on without you")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    assert child.exitstatus == 0
    out = finish(game)
    assert "won on day" in out
    assert re.search(r"absent \(never acted, or left\): .*Alice", out)


def test_no_server_at_the_address_is_said_at_once():
    t0 = time.monotonic()
    proc = subprocess.run(maw("play", "--name", "Alice", "--xmpp", f"127.0.0.1:{free_port()}"),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "no XMPP server answers at 127.0.0.1:" in proc.stderr
    assert "Traceback" not in proc.stderr and time.monotonic() - t0 < 15


def test_a_bad_name_is_refused_before_joining():
    proc = subprocess.run(maw("play", "--name", "no spaces", "--xmpp", "127.0.0.1:1"),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "bad name 'no spaces'" in proc.stderr


# ---------------------------------------------------------------- the screen model


VIEW = {"player": "Alice", "role": "Werewolf", "alive": True, "day": 2, "phase": "vote",
        "vote_round": 0, "room": "Village", "living": ["Alice", "Bob", "Cid"],
        "pack": ["Alice", "Bob"], "votes": {"Bob": "Cid", "Alice": "Cid"}}


def test_the_status_bar_shows_phase_time_role_pack_living_and_votes():
    s = Screen(name="Alice")
    assert s.toolbar() == "Alice"
    s.update(view=VIEW, seconds=30)
    bar = s.toolbar(now=s.deadline - 12.4)
    assert bar == ("Alice (Werewolf) | pack: Bob | Day 2 vote in the Village | 12 s left | "
                   "alive: Alice, Bob, Cid | votes: Bob>Cid, Alice>Cid")
    assert s.seconds_left(now=s.deadline + 5) == 0.0


def test_a_new_phase_without_a_time_clears_the_old_time_and_the_dead_watch():
    s = Screen()
    s.update(view=VIEW, seconds=30)
    s.update(view={**VIEW, "phase": "night", "room": "Hideout", "votes": {}})
    assert s.deadline is None and "s left" not in s.toolbar()
    s.update(view={**VIEW, "alive": False, "room": None, "phase": "day", "day": 3},
             seconds=10)
    bar = s.toolbar()
    assert "dead: watching" in bar and "Day 3 day: talk |" in bar
    s.update(view={**VIEW, "phase": "over", "winner": "village"})
    assert s.seconds_left() is None


def test_lines_are_styled_by_who_speaks():
    s = Screen(name="Alice")
    s.update(view=VIEW)
    assert s.style("Alice: hi").style == "green"
    assert s.style("Bob: hi").style == ""
    assert s.style("[GM] Cid was executed.").style == "bold red"
    assert s.style("[GM] Refused: dead").style == "bold red"
    assert s.style("! unknown command /x").style == "bold red"
    assert s.style("[GM] The game is over: village won (x).").style == "bold yellow"
    assert s.style("[GM] Day 2, vote.").style == "bold"
    assert s.style("[Hideout] open for Alice, Bob.").style == "cyan"
    s.update(view={**VIEW, "room": "Hideout"})
    assert s.style("Bob: take Cid").style == "magenta"
