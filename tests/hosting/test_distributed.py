"""The distributed topology on a real ejabberd started from ejabberd.yml: the GameMaster and
the rooms in one process (``maw game --remote``) and every player in its own
(``maw player``), so every message between the players and the game crosses the server."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import time

import pytest
from hostile import RawClient

from maw.hosting.connect import port_open
from maw.hosting.xmpp import Address, free_port
from maw.records.schema import recipients

pytestmark = pytest.mark.xmpp

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def maw(*args: str) -> list[str]:
    return [sys.executable, "-m", "maw", *args]


def read_log(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def host(ejabberd, lobby: str, tmp_path, *extra: str, xmpp: str | None = None
         ) -> subprocess.Popen:
    return subprocess.Popen(
        maw("game", "--players", "6", "--remote", "6", "--lobby", lobby, "--seed", "4",
            "--xmpp", xmpp or f"{ejabberd.host}:{ejabberd.port}",
            "--log-dir", str(tmp_path / "gm"),
            "--early-end",
            "--day-seconds", "10", "--night-seconds", "5", "--lobby-seconds", "120", *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def join(ejabberd, lobby: str, name: str, out_dir, decider: str = "rule") -> subprocess.Popen:
    out = (out_dir / f"{name}.out").open("w")
    return subprocess.Popen(
        maw("player", "--name", name, "--lobby", lobby, "--decider", decider,
            "--xmpp", f"{ejabberd.host}:{ejabberd.port}", "--join-seconds", "60",
            "--log-dir", str(out_dir / "players")),
        stdout=out, stderr=subprocess.STDOUT, text=True)


@pytest.mark.ejabberd
def test_maw_game_plays_on_ejabberd(ejabberd, tmp_path):
    proc = subprocess.run(maw("game", "--players", "6", "--seed", "3", "--early-end",
        "--day-seconds", "10",
                              "--policy", "rule",
                              "--xmpp", f"{ejabberd.host}:{ejabberd.port}",
                              "--log-dir", str(tmp_path)),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "Game over" in proc.stdout and "leaderboard" in proc.stdout
    log = next(tmp_path.glob("*.jsonl"))
    rep = subprocess.run(maw("replay", str(log)), capture_output=True, text=True, timeout=60)
    assert rep.returncode == 0 and "Game over" in rep.stdout


@pytest.mark.parametrize("server", [pytest.param("ejabberd", marks=pytest.mark.ejabberd),
                                    "embedded"])
def test_every_player_in_its_own_process_plays_a_full_game(server, request, tmp_path):
    """On ejabberd, and on the pyjabber that ``maw game`` embeds (which needed two fixes
    for clients in other processes: see maw.hosting.xmpp.EmbeddedServer)."""
    if server == "ejabberd":
        address = request.getfixturevalue("ejabberd")
        gm = host(address, "procs", tmp_path)
    else:
        address = Address("127.0.0.1", free_port(), False)
        gm = host(None, "procs", tmp_path, xmpp=f"embedded:{address.port}")
        end = time.monotonic() + 60
        while not port_open("127.0.0.1", address.port) and time.monotonic() < end:
            time.sleep(0.1)
    players = [join(address, "procs", n, tmp_path) for n in NAMES]
    try:
        out, err = gm.communicate(timeout=240)
        codes = [p.wait(timeout=60) for p in players]
    finally:
        for p in [gm, *players]:
            p.kill()
    assert gm.returncode == 0, err
    assert "Game over" in out and "absent" not in out
    assert codes == [0] * 6
    records = read_log(next((tmp_path / "gm").glob("*.jsonl")))
    roles = next(r for r in records if r["kind"] == "round")["roles"]
    joins = {r["player"]: r["jid"] for r in records if r["kind"] == "join"}
    assert sorted(joins) == NAMES
    assert len(set(joins.values())) == 6  # six clients, each with its own JID
    for name in NAMES:
        text = (tmp_path / f"{name}.out").read_text()
        # each process learnt its own role over the server, and the result
        assert f"You are a {roles[name]}" in text, text
        assert re.search(rf"^{name}: round 1: \w+ won", text, re.M), text
        # and no player process ever heard the Hideout unless it is a wolf
        if roles[name] != "Werewolf":
            assert "[Hideout]" not in text
    actions = [r for r in records if r["kind"] == "action"]
    assert {r["data"].get("actor") for r in actions} >= set(NAMES)
    # what the GameMaster and the rooms sent alike to the players went as one stanza the
    # server fanned out, where it can (ejabberd.yml's mod_multicast; pyjabber has none),
    # each player taking its copy on its own proof (a wrong one is logged as forged)
    service = next((r["service"] for r in records if r["kind"] == "multicast"), None)
    fanned = re.search(r"of which (\d+) stanzas the server fanned out", out)
    if server == "ejabberd":
        assert service and fanned and int(fanned.group(1)) > 10, out
    else:
        assert service is None and fanned is None
    heard = [r for log in (tmp_path / "players").glob("*.jsonl") for r in read_log(log)]
    assert heard and not [r for r in records + heard if r["kind"] == "forged"]


@pytest.mark.ejabberd
def test_many_players_share_a_process(ejabberd, tmp_path):
    """Six players in two ``maw player`` processes of three (one interpreter for three):
    each joins with agents of its own and plays to the end, and a process prints each of
    its players' result; a name given twice is refused at once."""
    gm = host(ejabberd, "shared", tmp_path)
    groups = [NAMES[:3], NAMES[3:]]
    files = [tmp_path / f"group{i}.out" for i in range(len(groups))]
    procs = [subprocess.Popen(
        maw("player", *[a for n in group for a in ("--name", n)], "--lobby", "shared",
            "--xmpp", f"{ejabberd.host}:{ejabberd.port}", "--join-seconds", "60"),
        stdout=f.open("w"), stderr=subprocess.STDOUT, text=True)
        for group, f in zip(groups, files, strict=True)]
    try:
        out, err = gm.communicate(timeout=240)
        for p, f in zip(procs, files, strict=True):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail(f"a player process did not end after the game:\n{f.read_text()[-3000:]}"
                            f"\nhost:\n{out[-2000:]}\n{err[-2000:]}")
    finally:
        for p in [gm, *procs]:
            p.kill()
    assert gm.returncode == 0, err
    assert "Game over" in out and "absent" not in out
    records = read_log(next((tmp_path / "gm").glob("*.jsonl")))
    joins = {r["player"]: r["jid"] for r in records if r["kind"] == "join"}
    assert sorted(joins) == NAMES and len(set(joins.values())) == 6
    for proc, f, group in zip(procs, files, groups, strict=True):
        text = f.read_text()
        assert proc.returncode == 0, text
        for name in group:
            assert re.search(rf"^{name}: round 1: \w+ won", text, re.M), text
            assert f"{name} | " in text
    twice = subprocess.run(maw("player", "--name", "Ann", "--name", "ann", "--xmpp",
                               f"{ejabberd.host}:{ejabberd.port}"),
                           capture_output=True, text=True, timeout=60)
    assert twice.returncode == 2 and "--name given twice" in twice.stderr


@pytest.mark.ejabberd
def test_a_killed_player_process_does_not_stall_the_game(ejabberd, tmp_path):
    victim = "Eve"
    gm = host(ejabberd, "kill", tmp_path)
    players = {n: join(ejabberd, "kill", n, tmp_path) for n in NAMES}
    try:
        seen = ""
        end = time.monotonic() + 120
        while "Day 1" not in seen and time.monotonic() < end:
            time.sleep(0.05)
            seen = (tmp_path / f"{victim}.out").read_text()
        assert "Day 1" in seen, seen
        players[victim].send_signal(signal.SIGKILL)
        out, err = gm.communicate(timeout=240)
        others = [p.wait(timeout=60) for n, p in players.items() if n != victim]
    finally:
        for p in [gm, *players.values()]:
            p.kill()
    assert gm.returncode == 0, err
    assert "Game over" in out
    absent = re.search(r"absent \(never acted, or left\): (.*)", out)
    assert absent and victim in absent.group(1).split(", "), out
    assert others == [0] * 5
    records = read_log(next((tmp_path / "gm").glob("*.jsonl")))
    assert any(r["kind"] == "gone" and r["player"] == victim for r in records)
    assert sum(r["kind"] == "outcome" for r in records) == 1


# ---------------------------------------------------------------- a raw client on ejabberd


@pytest.mark.ejabberd
async def test_a_raw_client_cannot_forge_intrude_or_act_when_dead(ejabberd, tmp_path):
    from maw.agents.gamemaster import GameConfig
    from maw.engine import ruleset
    from maw.hosting.game import default_seats, run_game
    from maw.hosting.xmpp import lobby_jid
    from maw.protocol import encode
    from maw.protocol import messages as m

    # seed 1 deals Zed (the raw client) a Villager and Ann and Eve the wolves (roles go
    # to the sorted names); eight players, so the game outlives Zed's death
    # (day 1 holds everything up to Zed's chat and vote: 15 s, for a loaded machine; Zed
    # says "listen" once it has voted, so that early_end may end the day before its timer)
    config = GameConfig(early_end=True, players=8, rules=ruleset("maw"), seed=1,
                        day_seconds=15, night_seconds=3, log_dir=tmp_path, lobby_seconds=60)
    game = asyncio.create_task(run_game(config, default_seats(7), ejabberd, game_id="raw",
                                        timeout=180, remote=1, lobby="raw"))
    lobby = lobby_jid("raw")
    raw = RawClient("maw-raw-zed@localhost", ejabberd)
    await raw.connect()
    mallory = RawClient("maw-raw-mallory@localhost", ejabberd)  # (connected before the day)
    await mallory.connect()
    joined = None
    while joined is None:
        assert not game.done(), game.exception()
        raw.send(lobby, encode(m.JoinLobby(player_name="Zed"), lobby).body, "join_lobby")
        try:
            joined = (await raw.expect("joined", timeout=2))[1]
        except AssertionError:
            continue
    token, rooms = joined["token"], joined["rooms"]
    assert (await raw.expect("assign_role"))[1]["role"] == "Villager"
    day1 = (await raw.expect("phase_change"))[1]["stamp"]

    def action(kind: str, **fields) -> str:
        return json.dumps({"type": kind, "player": "Zed", "token": token, **fields})

    replies = []
    for to, text, mtype in [
        (lobby, "{not json", "vote"),
        (lobby, json.dumps({"type": "teleport"}), "teleport"),
        (lobby, "x" * (100 * 1024), "vote"),
        # a vote in Ann's name without Ann's secret token
        (lobby, json.dumps({"type": "vote", "target": "Bob", "player": "Ann",
                            "token": "0" * 32}), "vote"),
        # a villager writing to the Hideout, with its own valid token
        (rooms["Hideout"], action("chat", message="let me in", room="Hideout"), "chat"),
        # a vote with its own token, but for a phase that is over
        (lobby, action("vote", target="Bob", stamp="1:0:night:0"), "vote"),
    ]:
        raw.send(to, text, mtype)
        replies.append(await raw.expect("not_understood", "refuse"))
    kinds = [k for k, _ in replies]
    assert kinds == ["not_understood", "not_understood", "not_understood", "refuse", "refuse",
                     "refuse"]
    assert "too late" in replies[5][1]["reason"]
    assert "malformed JSON" in replies[0][1]["reason"]
    assert "byte limit" in replies[2][1]["reason"]
    assert "wrong token" in replies[3][1]["reason"]
    # a client forging its sender as Ann: ejabberd closes its stream, nothing reaches the game
    lost = asyncio.Event()
    mallory.xmpp.add_event_handler("disconnected", lambda _: lost.set())
    mallory.send(lobby, json.dumps({"type": "vote", "target": "Bob", "player": "Ann",
                                    "token": "0" * 32}), "vote",
                 forged_from="maw-raw-p-ann@localhost")
    await asyncio.wait_for(lost.wait(), 10)
    # Zed accuses both wolves and votes for one: the AI wolves attack whoever names most
    # of the pack (ties to the last name), so Zed dies the first night; then, dead, it
    # tries to vote and to chat
    raw.send(rooms["Village"], action("chat", message="I suspect Ann. I suspect Eve.",
                                      room="Village"), "chat")
    assert (await raw.expect("agree", "refuse"))[0] == "agree"
    raw.send(lobby, action("vote", target="Ann"), "vote")
    assert (await raw.expect("agree", "refuse"))[0] == "agree"
    raw.send(lobby, action("listen", stamp=day1), "listen")
    killed = await raw.expect("kill", "end_game", timeout=120)
    assert killed[0] == "kill", killed
    raw.send(lobby, action("vote", target="Ann"), "vote")
    dead_vote = await raw.expect("refuse", "agree")
    raw.send(rooms["Village"], action("chat", message="I am back", room="Village"), "chat")
    dead_chat = await raw.expect("refuse", "agree")
    assert dead_vote[0] == "refuse" and "dead" in dead_vote[1]["reason"], dead_vote
    assert dead_chat[0] == "refuse", dead_chat
    result = await game
    raw.xmpp.disconnect()
    assert result.outcomes[0].winner is not None
    records = read_log(result.log_path)
    # of all Zed sent only its one chat and one vote became actions, and the forged vote
    # never reached the game
    actions = [r for r in records if r["kind"] == "action" and r["data"].get("actor") == "Zed"]
    assert [a["action"] for a in actions] == ["Chat", "Vote"]
    assert not [r for r in records if "mallory" in str(r.get("sender", ""))]
    assert not any(r["kind"] == "msg" and r["type"] == "new_messages"
                   and r["body"]["room_name"] == "Hideout"
                   and any("zed" in to for to in recipients(r))
                   for r in records)
