"""Protocol-division agents at MAW's table: ``maw game --aiwolf-tcp K`` serves the AIWolf
0.6 platform's TCP protocol (``maw.aiwolf.platform_host``). Two agents written from the
platform's packets (``tests/aiwolf/platform_agent.py``) and MAW's own platform client
(``maw aiwolf-client --tcp``) play a game set of two games over one connection each,
beside two MAW rule players over XMPP; what each agent is sent is what the platform would
send it, and no more."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from maw.aiwolf.platform_host import Wire, game_setting
from maw.engine import ruleset
from maw.hosting.xmpp import free_port
from maw.policies import protocol36 as p36

pytestmark = pytest.mark.xmpp

AGENT = str(Path(__file__).with_name("platform_agent.py"))


def maw(*args: str) -> list[str]:
    return [sys.executable, "-m", "maw", *args]


def test_the_bridge_packets_go_out_in_the_platforms_form_and_answers_come_back_in_its():
    from maw.aiwolf.bridge import setting
    from maw.aiwolf.link import Limits

    sent: list[str] = []
    wire = Wire(sent.append)
    players = ("Ann", "Bob", "Cid", "Dee", "Eve")
    info = {"game_id": "g", "day": 1, "agent": "Cid",
            "status_map": dict.fromkeys(players, "ALIVE") | {"Eve": "DEAD"},
            "role_map": {"Cid": "SEER"}, "executed_agent": "Eve",
            "divine_result": {"day": 0, "agent": "Cid", "target": "Ann", "result": "HUMAN"}}
    s = setting(ruleset("aiwolf-5"), 5, Limits(action=1))
    wire.send_text(json.dumps({"request": "INITIALIZE", "info": info, "setting": s}))
    first = json.loads(sent[-1])
    assert first["gameSetting"] == game_setting(s)
    assert first["gameSetting"]["playerNum"] == 5 and first["gameSetting"]["validateUtterance"]
    gi = first["gameInfo"]
    assert gi["agent"] == 3 and gi["roleMap"] == {"3": "SEER"}
    assert gi["statusMap"] == {"1": "ALIVE", "2": "ALIVE", "3": "ALIVE", "4": "ALIVE",
                               "5": "DEAD"}
    assert gi["executedAgent"] == 5
    assert gi["divineResult"] == {"agent": 3, "day": 0, "result": "HUMAN", "target": 1}
    # a TALK carries the talk since the last one, no gameInfo; MAW's words as Protocol 3.6
    talk = [{"idx": 0, "day": 1, "turn": 0, "agent": "Ann", "text": "I am the Seer."},
            {"idx": 1, "day": 1, "turn": 0, "agent": "Bob", "text": "VOTE Agent[01]"},
            {"idx": 2, "day": 1, "turn": 0, "agent": "Dee", "text": "Lovely weather."}]
    wire.send_text(json.dumps({"request": "TALK", "info": info, "talk_history": talk}))
    packet = json.loads(sent[-1])
    assert packet["gameInfo"] is None and packet["request"] == "TALK"
    assert [t["text"] for t in packet["talkHistory"]] == [
        "Agent[01] COMINGOUT Agent[01] SEER", "VOTE Agent[01]", "Skip"]
    assert [t["agent"] for t in packet["talkHistory"]] == [1, 2, 4]
    assert wire.decode("Agent[03] DIVINED Agent[01] HUMAN\n") == \
        "Agent[03] DIVINED Agent[01] HUMAN"
    assert wire.decode("I think Ann is nice") == "Skip"  # (the platform's validateUtterance)
    assert wire.decode("Over") == "Over"
    # a VOTE carries the whole state, the day's talk in it; its answer is {"agentIdx":N}
    wire.send_text(json.dumps({"request": "VOTE", "info": info}))
    vote = json.loads(sent[-1])
    assert [t["idx"] for t in vote["gameInfo"]["talkList"]] == [0, 1, 2]
    assert wire.decode('{"agentIdx":2}') == "Bob"
    assert wire.decode('{"agentIdx":9}') == "" and wire.decode("Bob") == ""
    # every line is one JSON packet, as the platform's TcpipClient reads them
    assert all(x.endswith("\n") and x.count("\n") == 1 for x in sent)


def test_platform_agents_and_maws_client_play_a_game_set_at_maws_table(tmp_path):
    port = free_port()
    game = subprocess.Popen(
        maw("game", "--ruleset", "aiwolf-5", "--players", "5", "--aiwolf-tcp", "3",
            "--rounds", "2",
            "--aiwolf-tcp-port", str(port), "--policy", "rule", "--seed", "4",
            "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path),
            "--lobby-seconds", "120", "--aiwolf-timeout", "5"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    names = ["proto1", "proto2"]
    agents = [subprocess.Popen([sys.executable, AGENT, "--tcp", f"127.0.0.1:{port}", "--name",
                                n, "--log", str(tmp_path / f"{n}.jsonl"), "--seed", str(i)],
                               stderr=subprocess.PIPE, text=True)
              for i, n in enumerate(names)]
    client = subprocess.Popen(maw("aiwolf-client", "--tcp", f"127.0.0.1:{port}", "--name",
                                  "mawclient", "--policy", "rule"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = game.communicate(timeout=240)
    assert game.returncode == 0, err[-3000:]
    for a in agents:
        assert a.wait(timeout=30) == 0, a.stderr.read()[-2000:]
    said, client_err = client.communicate(timeout=30)
    assert client.returncode == 0, client_err[-2000:]
    assert "2 game(s) played" in said  # (one connection, the whole set)
    for n in [*names, "mawclient"]:
        team = n.rstrip("0123456789")  # (a team is its name without trailing digits)
        assert re.search(rf"AIWolf {n} \({n}, team {team}\): \d+ requests, 0 failed", out)
    log = [json.loads(x) for x in next(tmp_path.glob("game-*.jsonl")).read_text().splitlines()]
    events = [r["data"] | {"event": r["event"]} for r in log if r["kind"] == "event"]
    games = [dict(e["roles"]) for e in events if e["event"] == "GameOver"]
    assert len(games) == 2
    # the set's ranking, as the regulation ranks one: each player's wins of its games
    overs = [e for e in events if e["event"] == "GameOver"]
    rates = re.search(r"win rates \(95% intervals\): (.*)", out).group(1)
    for n in [*names, "mawclient"]:
        wins = sum((dealt[n] in ("Werewolf", "Possessed")) == (e["winner"] == "werewolves")
                   for e, dealt in zip(overs, games, strict=True))
        assert re.search(rf"\b{n} {wins}/2 \(", rates), (n, wins, rates)
    # ... and maw report ranks the set from its log the same way
    report = subprocess.run(maw("report", str(next(tmp_path.glob("game-*.jsonl")))),
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    assert "A game set of 2 game(s): by player, ranked by win rate" in report.stdout
    for n in [*names, "mawclient"]:
        wins = re.search(rf"\b{n} (\d)/2 \(", rates).group(1)
        assert re.search(rf"│ {n} +│ +2 │ +{wins} │", report.stdout), report.stdout
    lines = {e["speaker"]: e["text"] for e in events if e["event"] == "Chatted"}
    assert all(p36.valid(lines[n]) for n in names if n in lines)  # what they said, as said
    players = sorted(games[0])  # (the platform's Agent[NN]: by seat, the same each game)
    for n in names:
        got = [json.loads(x) for x in (tmp_path / f"{n}.jsonl").read_text().splitlines()]
        kinds = [p["request"] for p in got]
        assert kinds[:4] == ["NAME", "ROLE", "INITIALIZE", "DAILY_INITIALIZE"]
        assert kinds.count("NAME") == 1 and kinds[-1] == "FINISH"  # (asked once a set)
        finish = [i for i, k in enumerate(kinds) if k == "FINISH"]
        assert len(finish) == 2 and kinds[finish[0] + 1] == "INITIALIZE"
        me = players.index(n) + 1
        for dealt, packets in zip(games, (got[:finish[0] + 1], got[finish[0] + 1:]),
                                  strict=True):
            wolves = {str(players.index(a) + 1) for a, r in dealt.items() if r == "Werewolf"}
            may = {str(me)} | (wolves if dealt[n] == "Werewolf" else set())
            for p in packets:
                gi = p["gameInfo"]
                if gi is not None and p["request"] != "FINISH":  # no role it may not know
                    assert gi["agent"] == me and set(gi["roleMap"]) <= may, (n, p)
                for t in (p["talkHistory"] or []) + (gi["talkList"] if gi else []):
                    # only what the platform lets through: Protocol 3.6, Over or Skip
                    assert t["text"] in ("Over", "Skip") or p36.valid(t["text"]), t
            final = packets[-1]["gameInfo"]["roleMap"]  # FINISH: every role of its game
            assert {players[int(k) - 1]: r.capitalize() for k, r in final.items()} == dealt
    done = subprocess.run(maw("audit", str(next(tmp_path.glob("game-*.jsonl")))),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
