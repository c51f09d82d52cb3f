"""The AIWolf bridge: agents built on aiwolf-nlp-common's client (``tests/aiwolf/aiwolf_agent.py``,
as AIWolf's own sample agent is) join ``maw game --aiwolf K`` over its WebSocket endpoint
and play whole games with MAW's rule players and a person, on the embedded server and on
ejabberd; the protocol's faults end as aiwolf-nlp-server ends them, and the game goes on."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from stand_ins import person

from maw.engine import new_game, ruleset
from maw.hosting.xmpp import free_port

pytestmark = pytest.mark.xmpp

AGENT = str(Path(__file__).with_name("aiwolf_agent.py"))
ACTION_REQUESTS = {"TALK", "WHISPER", "VOTE", "DIVINE", "GUARD", "ATTACK"}


def maw(*args: str) -> list[str]:
    return [sys.executable, "-m", "maw", *args]


def host(tmp_path, players: int, agents: int, port: int, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        maw("game", "--ruleset", f"aiwolf-{players}", "--players", str(players),
            "--aiwolf", str(agents), "--aiwolf-port", str(port), "--policy", "rule",
            "--log-dir", str(tmp_path), "--lobby-seconds", "120", "--aiwolf-timeout", "1",
            *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def agent(tmp_path, port: int, name: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, AGENT, "--url", f"ws://127.0.0.1:{port}/ws", "--name", name,
         "--log", str(tmp_path / f"{name}.jsonl"), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait_line(proc: subprocess.Popen, pattern: str, seconds: float = 60) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if re.search(pattern, line):
            return line
    proc.kill()
    raise AssertionError(f"no line like {pattern!r}: {proc.stderr.read()[-2000:]}")


def packets(tmp_path, name: str) -> list[dict]:
    return [json.loads(x) for x in (tmp_path / f"{name}.jsonl").read_text().splitlines()]


def records(tmp_path) -> list[dict]:
    log = next(tmp_path.glob("game-*.jsonl"))
    return [json.loads(x) for x in log.read_text().splitlines()]


def dealing(players: int, names: list[str], roles: set[str], people: int = 1) -> int:
    """A seed whose deal gives the players ``names`` (the AIWolf agents) ``roles``."""
    rules = ruleset(f"aiwolf-{players}")
    everyone = names + ["Alice"] * people + ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus",
                                             "Hal", "Ivy"][:players - len(names) - people]
    for seed in range(1, 2000):
        state = new_game(rules, sorted(everyone), random.Random(f"{seed}:1"))
        if roles <= {state.role_of(n).name for n in names}:
            return seed
    raise AssertionError(f"no seed deals {roles} to {names}")


def play_with(tmp_path, game: subprocess.Popen, port: int, names: list[str]) -> list[dict]:
    """Agents ``names`` play ``game`` to its end; the game's events."""
    bots = [agent(tmp_path, port, n, "--seed", str(i)) for i, n in enumerate(names)]
    _out, err = game.communicate(timeout=300)
    if game.returncode != 0:  # (what the agents said too: once, under load, none joined)
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
        said = {n: (bot.communicate(timeout=10)[1] or "")[-800:]
                for n, bot in zip(names, bots, strict=True)}
        raise AssertionError(f"{err[-3000:]}\nthe agents (exit, stderr): " + "; ".join(
            f"{n} {bot.returncode}: {said[n]!r}" for n, bot in zip(names, bots, strict=True)))
    for bot in bots:
        bot.wait(timeout=60)
    return [r["data"] | {"event": r["event"]} for r in records(tmp_path)
            if r["kind"] == "event"]


def audit(tmp_path) -> None:
    log = next(tmp_path.glob("game-*.jsonl"))
    done = subprocess.run(maw("audit", str(log)), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("players,agents,server,roles,people", [
    (5, 3, "embedded", {"Seer", "Werewolf"}, 1),
    pytest.param(9, 5, "ejabberd", {"Seer", "Bodyguard", "Werewolf"}, 0,
                 marks=pytest.mark.ejabberd),
])
def test_aiwolf_agents_a_rule_player_and_a_person_play_a_whole_game(
        players, agents, server, roles, people, request, tmp_path):
    """(One game has a person at the table: she says a line, passes and votes, as one
    done with each phase does.)"""
    names = [f"kanolab{i}" for i in range(1, agents + 1)]
    seed = dealing(players, names, roles, people)
    if server == "ejabberd":
        address = request.getfixturevalue("ejabberd")
        xmpp = f"{address.host}:{address.port}"
    else:
        xmpp = f"embedded:{free_port()}"
    port = free_port()
    game = host(tmp_path, players, agents, port, "--humans", str(people), "--xmpp", xmpp,
                "--seed", str(seed), "--day-seconds", "10", "--night-seconds", "6",
                "--early-end")
    bots = [agent(tmp_path, port, n, "--seed", str(i)) for i, n in enumerate(names)]
    if people:
        join = wait_line(game, r"maw play --name NAME (--xmpp \S+ --lobby \S+)")
        wait_line(game, rf"takes seat .* \({agents} of {agents}\)")
        child = person(re.search(r"--xmpp \S+", join).group(0), "Alice")
        child.logfile_read = (tmp_path / "Alice.txt").open("w")  # (what she saw, if it fails)
        try:  # she says her line, passes, and votes: each phase ends once all are done
            living = set(names) | {"Ann"}
            while child.expect([r"Day (\d+), (day|vote)\.", r"(\w+)(?:, who)? was "
                                r"(?:executed|found murdered)", "The game is over"],
                               timeout=300) < 2:
                found = child.match.groups()
                if found[-1] == "day":
                    if found[0] == "1":
                        child.sendline("hello from the only person here")
                    child.sendline("/pass")
                elif found[-1] == "vote":
                    child.sendline(f"/vote {min(living)}")
                else:
                    living.discard(found[0])
            child.expect(pexpect.EOF, timeout=60)
        finally:
            child.close()
    out, err = game.communicate(timeout=300)
    assert game.returncode == 0, err[-3000:]
    for bot in bots:
        bot.wait(timeout=60)
    assert re.search(r"AIWolf kanolab1 \(kanolab1, team kanolab\): \d+ requests, 0 failed", out)
    log = records(tmp_path)
    started = next(r for r in log if r["kind"] == "started")
    assert {s["name"]: s.get("team") for s in started["seats"] if s["decider"] == "aiwolf"} \
        == dict.fromkeys(names, "kanolab")
    events = [r["data"] | {"event": r["event"]} for r in log if r["kind"] == "event"]
    said = {e["speaker"] for e in events if e["event"] == "Chatted"}
    assert set(names) <= said and ("Alice" in said) == bool(people)
    voted = {e["voter"] for e in events if e["event"] == "VoteCast" and e["kind"] == "execute"}
    assert voted & set(names)
    dealt = dict(next(e for e in events if e["event"] == "GameOver")["roles"])
    for n in names:  # each agent's night action, when it lived a night that has it
        if dealt[n] == "Seer":
            assert any(e["event"] == "Divined" and e["seer"] == n for e in events)
        if dealt[n] == "Werewolf":  # (a wolf executed on day 1 never attacks)
            assert any(e["event"] == "VoteCast" and e["kind"] == "attack" and e["voter"] == n
                       for e in events) or not any(e["event"] == "PhaseStarted" and
                                                  e["phase"] == "night" and e["day"] >= 1
                                                  and n in e["living"] for e in events)
    for n in names:
        got = packets(tmp_path, n)
        kinds = [p["request"] for p in got if "request" in p]
        assert kinds[:3] == ["NAME", "INITIALIZE", "DAILY_INITIALIZE"] and kinds[-1] == "FINISH"
        for p in got:  # no packet before FINISH shows a role the agent may not know
            if p.get("request") not in (None, "NAME", "FINISH"):
                wolves = {a for a, r in dealt.items() if r == "Werewolf"}
                may = {n} | (wolves if dealt[n] == "Werewolf" else set())
                assert set(p["role"]) <= may, (n, p)
        assert set(got[-2]["role"]) == set(dealt)  # FINISH: every role
        if dealt[n] == "Bodyguard" and "GUARD" in kinds:
            assert any(e["event"] == "Guarded" and e["bodyguard"] == n for e in events)
        # a day's requests come in aiwolf-nlp-server's order
        order = [k for k in kinds if k in ("DAILY_INITIALIZE", "TALK", "DAILY_FINISH",
                                            "VOTE", "DIVINE", "GUARD", "ATTACK")]
        for a, b in zip(order, order[1:], strict=False):
            assert (a, b) not in {("DAILY_FINISH", "TALK"), ("VOTE", "TALK"),
                                  ("DAILY_INITIALIZE", "VOTE")}, order
    audit(tmp_path)


def test_protocol_faults_end_as_the_aiwolf_server_ends_them_and_the_game_goes_on(tmp_path):
    port = free_port()
    game = host(tmp_path, 9, 8, port, "--xmpp", f"embedded:{free_port()}", "--seed", "2",
                "--day-seconds", "15", "--night-seconds", "8", "--early-end",
                "--aiwolf-errors", "play-on")
    # connected first, it never answers NAME: it never takes a seat
    silent = agent(tmp_path, port, "silent", "--fault", "silent")
    time.sleep(1.0)
    faults = {"late": ["--fault", "late", "--late", "8", "--fault-at", "2"],
              "mute": ["--fault", "mute", "--fault-at", "2"],
              "malformed": ["--fault", "malformed", "--fault-at", "2"],
              "unknown": ["--fault", "unknown", "--fault-at", "1"],
              "drop": ["--fault", "drop", "--fault-at", "2"],
              "flood": ["--fault", "flood", "--fault-at", "2"]}
    bots = [agent(tmp_path, port, n, *a) for n, a in faults.items()]
    bots += [agent(tmp_path, port, "twin"), agent(tmp_path, port, "twin")]  # a name clash
    out, err = game.communicate(timeout=600)
    assert game.returncode == 0, err[-3000:]
    silent.kill()
    for bot in bots:
        bot.wait(timeout=60)
    summary = {m.group(1): m.group(2) for m in
               re.finditer(r"AIWolf (\S+) \(.*?\): (.*)", out)}
    assert set(summary) == {*faults, "twin", "twin2"}  # (silent: no seat)
    assert "in error: answered after the timeout" in summary["late"]
    assert "in error: disconnected" in summary["drop"]
    assert "in error: sent a message over 65536 bytes" in summary["flood"]
    for name in ("mute", "malformed", "unknown", "twin", "twin2"):
        assert "in error" not in summary[name], summary[name]
    assert re.search(r"\b1 failed", summary["mute"])  # its NAME answer kept it in the game
    # (asked its NAME, it never answered; or, come after the seats were taken, it was
    # closed at once: either way, no seat)
    assert packets(tmp_path, "silent")[0].get("request", "NAME") == "NAME"
    assert [p["request"] for p in packets(tmp_path, "mute") if "request" in p].count(
        "NAME") == 2
    assert "Game over" in out
    audit(tmp_path)


def test_maws_own_client_plays_a_whole_game_at_maws_endpoint(tmp_path):
    port = free_port()
    game = host(tmp_path, 5, 2, port, "--xmpp", f"embedded:{free_port()}", "--seed", "6",
                "--day-seconds", "10", "--night-seconds", "5")
    clients = [subprocess.Popen(
        maw("aiwolf-client", "--url", f"ws://127.0.0.1:{port}/ws", "--name", name,
            "--policy", policy),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, policy in (("maw1", "rule"), ("mawrandom", "random"))]
    out, err = game.communicate(timeout=300)
    assert game.returncode == 0, err[-3000:]
    for c in clients:
        said, why = c.communicate(timeout=60)
        assert c.returncode == 0, why
        assert "1 game(s) played" in said and "game 1 over" in said
    assert re.search(r"AIWolf maw1 \(maw1, team maw\): \d+ requests, 0 failed", out)
    events = [r["data"] | {"event": r["event"]} for r in records(tmp_path)
              if r["kind"] == "event"]
    # the rule player spoke and voted as MAW's rule player does, through AIWolf's protocol
    assert any(e["event"] == "Chatted" and e["speaker"] == "maw1" for e in events)
    assert any(e["event"] == "VoteCast" and e["voter"] in ("maw1", "mawrandom")
               for e in events)
    audit(tmp_path)


@pytest.mark.parametrize("args,message", [
    (["game", "--ruleset", "maw", "--aiwolf", "1", "--policy", "rule"],
     "AIWolf agents play AIWolf's game"),
    (["game", "--ruleset", "aiwolf-5", "--players", "5", "--aiwolf", "6"],
     "must add up to at most --players"),
    (["game", "--ruleset", "aiwolf-5", "--players", "5", "--aiwolf", "1", "--rounds", "2",
      "--policy", "rule"], "--rounds 1"),
    (["game", "--ruleset", "aiwolf-5", "--players", "5", "--aiwolf", "1", "--policy",
      "rule", "--aiwolf-port", "x:y"], "--aiwolf-port 'x:y': give PORT"),
    (["aiwolf-client", "--url", "http://127.0.0.1:1/ws", "--name", "a"],
     "give ws://HOST:PORT/ws"),
    (["aiwolf-client", "--url", "ws://127.0.0.1:1/ws", "--name", "a", "--policy", "llm"],
     "unknown --policy 'llm'"),
    (["aiwolf-client", "--url", "ws://127.0.0.1:1/ws", "--name", "a",
      "--connect-seconds", "0.5"], "cannot connect to ws://127.0.0.1:1/ws"),
    # the AIWolf 0.6 platform's agents, over TCP
    (["game", "--ruleset", "aiwolf-5", "--players", "5", "--aiwolf", "1", "--aiwolf-tcp",
      "1", "--policy", "rule"], "give --aiwolf (aiwolf-nlp-server's WebSocket) or"),
    (["game", "--ruleset", "maw", "--aiwolf-tcp", "1", "--policy", "rule"],
     "AIWolf agents play AIWolf's game"),
    (["game", "--ruleset", "aiwolf-5", "--players", "5", "--aiwolf-tcp", "1", "--policy",
      "rule", "--aiwolf-tcp-port", "x:y"], "--aiwolf-tcp-port 'x:y': give PORT"),
    (["aiwolf-client", "--tcp", "nowhere", "--name", "a"], "--tcp 'nowhere': give HOST:PORT"),
    (["aiwolf-client", "--tcp", "127.0.0.1:1", "--name", "a", "--connect-seconds", "0.5"],
     "cannot connect to 127.0.0.1:1"),
    (["aiwolf-client", "--tcp", "127.0.0.1:1", "--url", "ws://127.0.0.1:1/ws", "--name",
      "a"], "not allowed with argument"),
])
def test_bad_aiwolf_options_get_one_line(args, message):
    done = subprocess.run(maw(*args), capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("players", [5, 9, 13, 15])
def test_a_game_exported_as_an_aiwolf_log_replays_to_the_same_result(players, tmp_path):
    done = subprocess.run(
        maw("game", "--ruleset", f"aiwolf-{players}", "--players", str(players), "--policy",
            "rule", "--seed", str(players), "--xmpp", f"embedded:{free_port()}",
            "--day-seconds", "10", "--night-seconds", "5", "--log-dir", str(tmp_path)),
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    log = next(tmp_path.glob("game-*.jsonl"))
    out = tmp_path / "contest.log"
    exported = subprocess.run(maw("export", "--aiwolf", str(log), "--out", str(out)),
                              capture_output=True, text=True, timeout=60)
    assert exported.returncode == 0, exported.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    kinds = {ln.split(",")[1] for ln in lines}
    assert {"status", "talk", "vote", "execute", "divine", "result"} <= kinds
    # the attack's lines, if the pack attacked: a wolf alive at a night >= 1 does (the
    # game's timing is not seeded: aiwolf-5's one wolf, executed on day 1, never does)
    events = [r["data"] | {"event": r["event"]} for r in records(tmp_path)
              if r["kind"] == "event"]
    wolves = {n for n, role in next(e for e in events if e["event"] == "GameOver")["roles"]
              if role == "Werewolf"}
    attacked = any(e["event"] == "VoteCast" and e["kind"] == "attack" for e in events)
    assert attacked or not any(e["event"] == "PhaseStarted" and e["phase"] == "night"
                               and e["day"] >= 1 and wolves & set(e["living"])
                               for e in events)
    if attacked:
        assert {"attackVote", "attack"} <= kinds
    winner = re.search(r"round 1: (\w+) won", done.stdout).group(1)
    assert lines[-1].split(",")[-1] == {"village": "VILLAGER", "werewolves": "WEREWOLF"}[winner]
    replayed = subprocess.run([sys.executable, "-m", "maw.aiwolf.replay", str(out)],
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0 and "1 of 1 games agree" in replayed.stdout, \
        replayed.stdout
    # ... and in the AIWolf 0.6 platform's own form: the same lines, a status without team
    platform = tmp_path / "platform.log"
    exported = subprocess.run(maw("export", "--aiwolf", str(log), "--out", str(platform),
                                  "--platform"), capture_output=True, text=True, timeout=60)
    assert exported.returncode == 0, exported.stderr
    plines = platform.read_text(encoding="utf-8").splitlines()
    assert [x for x in plines if ",status," not in x] == [x for x in lines
                                                          if ",status," not in x]
    status = [x.split(",") for x in plines if ",status," in x]
    assert len(status) == len([x for x in lines if ",status," in x])
    assert all(len(f) == 6 and f[4] in ("ALIVE", "DEAD") for f in status)
    replayed = subprocess.run([sys.executable, "-m", "maw.aiwolf.replay", str(platform)],
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0 and "1 of 1 games agree" in replayed.stdout, \
        replayed.stdout


def test_export_refuses_what_is_not_an_aiwolf_game(tmp_path):
    done = subprocess.run(
        maw("game", "--players", "5", "--policy", "rule", "--seed", "1", "--early-end",
            "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path)),
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    log = next(tmp_path.glob("game-*.jsonl"))
    for target, message in ((log, "a game of maw: an AIWolf log holds a game of an aiwolf-*"),
                            (tmp_path / "none.jsonl", "no log at")):
        bad = subprocess.run(maw("export", "--aiwolf", str(target)), capture_output=True,
                             text=True, timeout=60)
        assert bad.returncode != 0 and message in bad.stderr and "Traceback" not in bad.stderr


def test_the_freeform_talk_is_a_group_chat(tmp_path):
    """talk_mode=freeform (the 2026 Speak-Anytime track): TALK_PHASE_START, the agents'
    lines unasked, each line said reaching everyone as TALK_BROADCAST, TALK_PHASE_END."""
    port = free_port()
    names = ["free1", "free2", "free3"]
    game = host(tmp_path, 5, 3, port, "--xmpp", f"embedded:{free_port()}", "--seed", "3",
                "--rule", "talk_mode=freeform", "--day-seconds", "8", "--night-seconds", "5")
    events = play_with(tmp_path, game, port, names)
    lines = [(e["day"], e["speaker"], e["text"]) for e in events if e["event"] == "Chatted"
             and e["room"] == "Village"]
    for n in names:
        got = [p for p in packets(tmp_path, n) if "request" in p]
        kinds = [p["request"] for p in got]
        assert "TALK" not in kinds
        assert kinds.count("TALK_PHASE_START") >= 1
        assert kinds.count("TALK_PHASE_START") == kinds.count("TALK_PHASE_END") or \
            kinds[-1] == "FINISH"
        # every line said on day 0 reached it, its own and the others', in order
        heard = [(p["new"]["day"], p["new"]["agent"], p["new"]["text"]) for p in got
                 if p["request"] == "TALK_BROADCAST"]
        day0 = [x for x in lines if x[0] == 0]
        assert [x for x in heard if x[0] == 0] == day0
        assert {n} <= {s for _d, s, _t in day0}
    audit(tmp_path)


def test_agents_talk_in_rounds_in_one_shuffled_order_a_day(tmp_path):
    """The turn-based talk: the agents are shuffled once a day; each round each of them
    gets one TALK in that order (MAW's rule players talk freely in between)."""
    port = free_port()
    names = [f"r{i}" for i in range(1, 6)]
    game = host(tmp_path, 9, 5, port, "--xmpp", f"embedded:{free_port()}", "--seed", "4",
                "--day-seconds", "20", "--night-seconds", "5")
    events = play_with(tmp_path, game, port, names)
    orders = []
    for day in sorted({e["day"] for e in events if "day" in e}):
        said = [(e.get("speaker") or e.get("player"), e["event"] == "Overed") for e in events
                if e["event"] in ("Chatted", "Overed") and e["day"] == day
                and e["room"] == "Village" and (e.get("speaker") or e.get("player")) in names]
        if not said:
            continue
        order = list(dict.fromkeys(s for s, _ in said))
        expected, out_ = [], set()
        it = iter(said)
        while len(expected) < len(said):  # round after round, in the day's order
            for s in order:
                if s not in out_ and len(expected) < len(said):
                    step = next(it)
                    expected.append(step[0])
                    if step[1]:
                        out_.add(s)
        assert [s for s, _ in said] == expected, (day, said)
        orders.append(order)
    assert len(orders) >= 2 and len({tuple(o) for o in orders}) >= 2  # shuffled anew


def test_too_many_agents_in_error_abort_the_game_as_the_server_does(tmp_path):
    """One agent in error of five ends an aiwolf-nlp-server game (max_continue_error_ratio
    0.2), nobody winning; the others still get FINISH."""
    port = free_port()
    game = host(tmp_path, 5, 3, port, "--xmpp", f"embedded:{free_port()}", "--seed", "3",
                "--day-seconds", "8", "--night-seconds", "5")
    bots = [agent(tmp_path, port, "ok1"), agent(tmp_path, port, "ok2"),
            agent(tmp_path, port, "drop", "--fault", "drop", "--fault-at", "4")]
    out, err = game.communicate(timeout=300)
    assert game.returncode == 0, err[-3000:]
    for bot in bots:
        bot.wait(timeout=60)
    assert "round 1: a draw, nobody won" in out and "the game was aborted" in out
    log = records(tmp_path)
    aborted = [r for r in log if r["kind"] == "aborted"]
    assert len(aborted) == 1 and "drop" in aborted[0]["why"]
    over = [r for r in log if r["kind"] == "event" and r["event"] == "GameOver"]
    assert over[0]["data"]["winner"] is None
    for name in ("ok1", "ok2"):
        assert [p["request"] for p in packets(tmp_path, name) if "request" in p][-1] == "FINISH"
    audit(tmp_path)


def test_the_contests_length_limits_cut_every_line():
    """base_length and mention_length (aiwolf-nlp-server's; the INLG contest's 125): spaces
    do not count, and what follows the first @mention of another player has its own."""
    from maw.engine import Chat, EndPhase, Room, play
    from maw.engine.resolution import cut

    names = ("Ann", "Bob", "Cid", "Dee", "Eve")
    assert cut("a b c d e f", names, 3, 0) == "a b c"
    assert cut("abc @Bob defghij", names, 3, 4) == "abc @Bob"
    assert cut("abc @Bob de fg", names, 3, 7) == "abc @Bob de f"  # (the mention counts)
    assert cut("abcdef @Bob long", names, 3, 10) == "abc"  # (cut before the mention)
    assert cut("ab @Zed cdefg", names, 3, 10) == "ab @"  # (not a player: no budget)
    rules = ruleset("aiwolf-5", base_length=5, mention_length=6)
    state = new_game(rules, list(names), random.Random(1))
    state, events = play(state, Chat("Ann", Room.VILLAGE, "I am the Seer @Bob is a wolf"))
    assert [e.text for e in events if type(e).__name__ == "Chatted"] == ["I am th"]
    state, events = play(state, Chat("Bob", Room.VILLAGE, "hi @Ann you lie"))
    assert [e.text for e in events if type(e).__name__ == "Chatted"] == ["hi @Ann yo"]
    assert play(state, EndPhase())[0].day == 0
    with pytest.raises(Exception, match="option of the aiwolf"):
        ruleset("maw", base_length=125)
