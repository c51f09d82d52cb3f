"""The AIWolf 0.6 platform's TCP protocol, the agent's side (``maw.aiwolf.platform``), held
to packets the platform's own server (``AIWolfServer`` 0.6.x, compiled here with javac)
sent to one agent in real games against its Java sample players: a 5-player game dealt a
Seer and one dealt a Werewolf, a 15-player game dealt a Werewolf (whispers, attacks). A
server written from those recordings replays them to ``play_tcp`` over a real socket and
checks each answer as the platform reads it."""

from __future__ import annotations

import json
import re
import socket
import threading
from pathlib import Path

import pytest

from maw.aiwolf.client import Player
from maw.aiwolf.platform import Translator, agent, index, play_tcp, protocol_line, reply
from maw.errors import MawError
from maw.hosting.seats import Seat, deciders
from maw.policies import protocol36 as p36

DATA = Path(__file__).resolve().parents[1] / "data"
GAMES = ["aiwolf-platform-5-seer.jsonl", "aiwolf-platform-5-werewolf.jsonl",
         "aiwolf-platform-15-werewolf.jsonl"]
# how the platform reads a target (org.aiwolf.common.net.DataConverter.toAgent)
TARGET = re.compile(r'\{"agentIdx":(\d+)\}')
ANSWERED = {"NAME", "ROLE", "TALK", "WHISPER", "VOTE", "ATTACK", "DIVINE", "GUARD"}


def packets(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / name).read_text().splitlines() if x.strip()]


def test_agents_are_named_as_the_platform_names_them():
    assert agent(3) == "Agent[03]" and agent(15) == "Agent[15]"
    assert index("Agent[07]") == 7
    with pytest.raises(MawError, match="not an AIWolf agent"):
        index("Bob")


def test_a_packet_without_game_info_stands_for_the_last_one_with_the_talk_added_once():
    t = Translator()
    recorded = packets(GAMES[0])
    seen_talk: list[tuple[int, int]] = []
    for raw in recorded:
        p = t.packet(raw)
        if raw["request"] == "ROLE":
            assert p is None  # (the platform's own: answered "none", no role asked for)
            continue
        assert p.request.value == raw["request"]
        if raw["request"] == "NAME":
            continue
        gi = raw["gameInfo"]
        if gi is not None:  # its own state, in the platform's names
            assert p.info.day == gi["day"] and p.info.agent == agent(gi["agent"])
            assert list(p.info.status_map) == [agent(i) for i in
                                               sorted(map(int, gi["statusMap"]))]
        else:  # (a TALK's, a VOTE's: the last state kept, as TcpipClient keeps it)
            assert p.info is not None and p.info.agent == "Agent[03]"
        for talk in p.talk_history or []:
            seen_talk.append((talk.day, talk.idx))
            assert talk.agent.startswith("Agent[") and talk.over == (talk.text == "Over")
    assert len(seen_talk) == len(set(seen_talk)) > 0  # each line heard once
    # the Seer learns what it divined, as MAW's deciders read results
    judged = [r for r in recorded if r.get("gameInfo") and r["gameInfo"]["divineResult"]]
    assert judged
    result = judged[0]["gameInfo"]["divineResult"]
    assert t.packet(judged[0]).info.divine_result.target == agent(result["target"])
    # the setting as aiwolf-nlp-common reads it: 5 agents, no self-votes on the platform
    first = t.packet(recorded[2])
    assert recorded[2]["request"] == "INITIALIZE"
    assert first.setting.agent_count == 5 and not first.setting.vote.allow_self_vote
    assert {r.value for r in first.setting.role_num_map} == {
        "WEREWOLF", "POSSESSED", "SEER", "VILLAGER"}


def test_a_role_maw_does_not_play_is_a_clear_error():
    raw = packets(GAMES[0])[2]
    raw["gameInfo"]["roleMap"] = {"3": "FOX"}
    with pytest.raises(MawError, match="the server dealt FOX"):
        Translator().packet(raw)
    with pytest.raises(MawError, match="does not know: 'PING'"):
        Translator().packet({"request": "PING"})


def test_words_are_said_in_protocol_3_6_and_targets_as_the_platform_reads_them():
    players = tuple(agent(i) for i in range(1, 6))
    me = "Agent[02]"
    assert protocol_line("I am the Seer.", me, players) == "Agent[02] COMINGOUT Agent[02] SEER"
    assert protocol_line("Agent[04] is a werewolf.", me, players) == \
        "Agent[02] DIVINED Agent[04] WEREWOLF"
    assert protocol_line("I suspect Agent[05].", me, players) == "Agent[02] VOTE Agent[05]"
    assert protocol_line("ESTIMATE Agent[01] WEREWOLF", me, players) == \
        "ESTIMATE Agent[01] WEREWOLF"  # (a sentence already: as it is)
    assert protocol_line("Nice weather today.", me, players) == "Skip"
    assert protocol_line("Over", me, players) == "Over"
    assert reply("VOTE", "Agent[04]", me, players) == '{"agentIdx":4}'
    assert TARGET.fullmatch(reply("DIVINE", "Agent[11]", me, players))
    assert reply("VOTE", "", me, players) == ""  # (no answer: the platform draws one)
    assert reply("TALK", None, me, players) == "Over"


class ReplayServer:
    """A platform server written from a recording: it sends the recorded packets one a
    line and reads an answer after each request that takes one, as TcpipServer does."""

    def __init__(self, recorded: list[list[dict]]) -> None:
        self.recorded = recorded
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.answers: list[tuple[dict, str | None]] = []  # every packet, its answer
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn, conn.makefile("r", encoding="utf-8") as lines:
            for game, recorded in enumerate(self.recorded):
                for raw in recorded:
                    if game and raw["request"] in ("NAME", "ROLE"):
                        continue  # (asked once a set)
                    conn.sendall((json.dumps(raw) + "\n").encode())
                    self.answers.append((raw, lines.readline().rstrip("\n") if
                                         raw["request"] in ANSWERED else None))
        self.sock.close()


@pytest.mark.parametrize("policy", ["rule", "random"])
def test_a_maw_decider_plays_a_recorded_game_set_and_every_answer_is_one_the_platform_takes(
        policy):
    sets = [packets(g) for g in GAMES]
    server = ReplayServer(sets)
    finished: list[str] = []

    def new_decider(game: int, me: str, role: str | None):
        return deciders(Seat(me, policy), 5)(game, role)

    player = Player("maw", new_decider, finished.append)
    times: list[tuple[str, float]] = []
    played = play_tcp(f"127.0.0.1:{server.port}", player, None, connect_seconds=5,
                      timed=lambda r, s: times.append((r, s)))
    server.thread.join(10)
    assert played == 3 and len(finished) == 3  # one connection, the whole set
    assert [f.split(":")[1].strip() for f in finished] == [
        "Agent[03] was a Seer", "Agent[04] was a Werewolf", "Agent[08] was a Werewolf"]
    assert len(times) == sum(a is not None for _, a in server.answers)
    state: dict = {}
    kinds = set()
    for raw, answer in server.answers:
        if raw.get("gameInfo"):
            state = raw["gameInfo"]
        r = raw["request"]
        kinds.add(r)
        if answer is None:
            continue
        if r == "NAME":
            assert answer == "maw"
        elif r == "ROLE":
            assert answer == "none"
        elif r in ("TALK", "WHISPER"):
            # a Protocol 3.6 sentence of this agent's, or Over or Skip: never free text
            assert answer in ("Over", "Skip") or p36.valid(answer), answer
        else:
            found = TARGET.fullmatch(answer)
            assert found, f"{r}: {answer!r}"
            target, me = int(found.group(1)), state["agent"]
            assert state["statusMap"][str(target)] == "ALIVE" and target != me
            if r == "ATTACK":  # the pack does not attack its own
                assert state["roleMap"].get(str(target)) != "WEREWOLF"
    assert {"TALK", "WHISPER", "VOTE", "ATTACK", "DIVINE"} <= kinds


def test_with_set_memory_the_player_learns_each_game_of_the_set_from_its_finish():
    """``maw aiwolf-client --set-memory``: FINISH tells every role; the next game's decider
    is lent what the set's games so far showed."""
    from maw.policies.memory import SetMemory

    server = ReplayServer([packets(g) for g in GAMES])
    made = []

    def new_decider(game: int, me: str, role: str | None):
        made.append(deciders(Seat(me, "rule"), 5)(game, role))
        return made[-1]

    memory = SetMemory()
    player = Player("maw", new_decider, memory=memory)
    assert play_tcp(f"127.0.0.1:{server.port}", player, None, connect_seconds=5) == 3
    server.thread.join(10)
    assert memory.learnt == 3 and all(d.rule_layer().set_memory is memory for d in made)
    # every other agent of the set, once a game it played in: 4 + 4 + 14
    finishes = [p for g in GAMES for p in packets(g) if p["request"] == "FINISH"]
    wolves: dict[str, int] = {}
    for f, me in zip(finishes, ("Agent[03]", "Agent[04]", "Agent[08]"), strict=True):
        for idx, role in f["gameInfo"]["roleMap"].items():
            name = f"Agent[{int(idx):02d}]"
            if name != me:
                wolves[name] = wolves.get(name, 0) + (role == "WEREWOLF")
    assert sum(map(sum, memory.games.values())) == 4 + 4 + 14
    assert {n: g[0] for n, g in memory.games.items()} == wolves


def test_a_server_that_is_not_there_is_a_clear_error():
    free = socket.create_server(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    player = Player("maw", lambda *a: None)
    with pytest.raises(MawError, match=f"cannot connect to 127.0.0.1:{port}"):
        play_tcp(f"127.0.0.1:{port}", player, connect_seconds=0.5)
    with pytest.raises(MawError, match="give HOST:PORT"):
        play_tcp("nowhere", player)
