"""The AIWolf 0.6 platform's TCP protocol, the agent's side: one of MAW's deciders plays a
game set on an ``AIWolfServer`` (the contest's Protocol division), as the platform's own
Java client (``org.aiwolf.common.net.TcpipClient``) does.

The server sends one JSON packet a line (``request``, ``gameInfo``, ``gameSetting``,
``talkHistory``, ``whisperHistory``); the agent answers the requests that take an answer
with one line: its name (NAME), ``none`` (ROLE: no role asked for), a Protocol 3.6
sentence, ``Over`` or ``Skip`` (TALK, WHISPER), or ``{"agentIdx": N}`` (VOTE, ATTACK,
DIVINE, GUARD). A packet without ``gameInfo`` (a TALK's, a VOTE's) stands for the last
one that had it, with the talk heard since added (the server sends the talk as diffs).
The same connection lasts the whole set; the server closes it after the last FINISH.

:class:`Translator` reads each packet as the aiwolf-nlp-common packet it stands for, so
:class:`maw.aiwolf.client.Player` plays both divisions; agents are ``Agent[NN]`` (the
platform's own names, which the Protocol 3.6 sentences use). What the decider says is
read for its claims (``maw.policies.claims``) and said in Protocol 3.6; a line that claims
nothing is a ``Skip``, as the platform would make it (its ``validateUtterance``).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any

from aiwolf_nlp_common.packet import Packet, Request

from maw.aiwolf.client import Player
from maw.errors import MawError
from maw.policies import claims
from maw.policies import protocol36 as p36

# what a request answers with, as the platform's Request.hasReturn says
ANSWERED = frozenset({"NAME", "ROLE", "TALK", "WHISPER", "VOTE", "ATTACK", "DIVINE", "GUARD"})
TARGETED = frozenset({"VOTE", "ATTACK", "DIVINE", "GUARD"})
ROLES = frozenset({"WEREWOLF", "POSSESSED", "SEER", "BODYGUARD", "VILLAGER", "MEDIUM"})


def agent(idx: int) -> str:
    """The platform's name of agent ``idx`` (``Agent[03]``, as its ``Agent.toString``)."""
    return f"Agent[{idx:02d}]"


def index(name: str) -> int:
    """The index of agent ``name`` (``Agent[03]`` -> 3); ``MawError`` for another name."""
    if not (name.startswith("Agent[") and name.endswith("]") and name[6:-1].isdigit()):
        raise MawError(f"{name!r} is not an AIWolf agent (Agent[NN])")
    return int(name[6:-1])


def _judge(j: dict | None) -> dict | None:
    return None if j is None else {"day": j["day"], "agent": agent(j["agent"]),
                                   "target": agent(j["target"]), "result": j["result"]}


def _votes(votes: list[dict] | None) -> list[dict] | None:
    return [{"day": v["day"], "agent": agent(v["agent"]), "target": agent(v["target"])}
            for v in votes] if votes else None


def _roles(roles: dict[str, str]) -> dict[str, str]:
    odd = sorted(set(roles.values()) - ROLES)
    if odd:
        raise MawError(f"the server dealt {', '.join(odd)}: MAW's deciders play "
                       f"{', '.join(sorted(ROLES))}")
    return {agent(int(k)): r for k, r in roles.items()}


def setting(s: dict) -> dict:
    """A 0.6 ``gameSetting`` as an aiwolf-nlp-common setting: the platform lets no agent
    vote for itself (a self-vote is replaced by a random one); a talk's length is free."""
    return {
        "agent_count": s["playerNum"],
        "role_num_map": {r: n for r, n in s["roleNumMap"].items() if n and r in ROLES},
        "vote_visibility": s.get("voteVisible", True),
        "talk_on_first_day": s.get("talkOnFirstDay", False),
        "talk": {"max_count": {"per_agent": s.get("maxTalk", 10),
                               "per_day": s.get("maxTalkTurn", 20)},
                 "max_skip": s.get("maxSkip", 2)},
        "whisper": {"max_count": {"per_agent": s.get("maxWhisper", 10),
                                  "per_day": s.get("maxWhisperTurn", 20)},
                    "max_skip": s.get("maxSkip", 2)},
        "vote": {"max_count": s.get("maxRevote", 1) + 1, "allow_self_vote": False},
        "attack_vote": {"max_count": s.get("maxAttackRevote", 1) + 1,
                        "allow_self_vote": False,
                        "allow_no_target": s.get("enableNoAttack", False)},
        "timeout": {"action": s.get("timeLimit", -1), "response": s.get("timeLimit", -1)},
    }


class Translator:
    """0.6 packets as the aiwolf-nlp-common packets they stand for (see the module's
    docstring): the last ``gameInfo`` kept, the talk heard added once."""

    def __init__(self) -> None:
        self.game = 0
        self.info: dict[str, Any] | None = None
        self.remain: dict[str, dict[str, int]] = {}
        self.heard: set[tuple[str, int, int]] = set()  # (TALK or WHISPER, day, idx)

    def packet(self, raw: dict[str, Any]) -> Packet | None:
        """The packet ``raw`` stands for; ``None`` for ROLE (the platform's own request:
        does the agent ask for a role? The caller says no)."""
        request = raw.get("request")
        if request == "ROLE":
            return None
        if request not in Request.__members__:
            raise MawError(f"the server sent a request MAW does not know: {request!r}")
        if request == "INITIALIZE":
            self.game += 1
            self.heard.clear()
        gi = raw.get("gameInfo")
        if gi is not None:
            self.info = self._info(gi)
            self.remain = {"TALK": gi.get("remainTalkMap") or {},
                           "WHISPER": gi.get("remainWhisperMap") or {}}
        info = None
        if self.info is not None:
            info = dict(self.info)
            left = self.remain.get(str(request), {}).get(str(index(info["agent"])))
            info["remain_count"] = left
        out: dict[str, Any] = {"request": request, "info": info}
        if raw.get("gameSetting") is not None:
            out["setting"] = setting(raw["gameSetting"])
        for key, room in (("talk_history", "TALK"), ("whisper_history", "WHISPER")):
            said = raw.get("talkHistory" if room == "TALK" else "whisperHistory")
            out[key] = self._talk(said, room) if said is not None else None
        return Packet.from_dict(out)

    def _info(self, gi: dict[str, Any]) -> dict[str, Any]:
        dead = gi.get("lastDeadAgentList") or []
        executed = gi.get("executedAgent", -1)
        return {
            "game_id": str(self.game), "day": gi["day"], "agent": agent(gi["agent"]),
            "profile": None, "medium_result": _judge(gi.get("mediumResult")),
            "divine_result": _judge(gi.get("divineResult")),
            "executed_agent": agent(executed) if executed >= 0 else None,
            "attacked_agent": agent(dead[0]) if dead else None,
            "vote_list": _votes(gi.get("voteList")),
            "attack_vote_list": _votes(gi.get("attackVoteList")),
            "status_map": {agent(int(k)): s for k, s in sorted(
                gi["statusMap"].items(), key=lambda kv: int(kv[0]))},
            "role_map": _roles(gi.get("roleMap") or {}),
        }

    def _talk(self, said: list[dict], room: str) -> list[dict]:
        out = []
        for t in said:
            key = (room, t["day"], t["idx"])
            if key in self.heard:
                continue
            self.heard.add(key)
            out.append({"idx": t["idx"], "day": t["day"], "turn": t["turn"],
                        "agent": agent(t["agent"]), "text": t["text"],
                        "skip": t["text"] == "Skip", "over": t["text"] == "Over"})
        return out


def protocol_line(line: str, me: str, players: tuple[str, ...]) -> str:
    """What the decider said (``line``: its words, ``Over``, or a target's name) as the
    platform takes it: a Protocol 3.6 sentence as it is; words read for their claims and
    the first said in Protocol 3.6; ``Skip`` for words that claim nothing."""
    if line in ("Over", "Skip") or p36.valid(line):
        return line
    said = claims.parse(me, line, players)
    return claims.say_protocol(said[0], players) if said else "Skip"


def reply(request: str, line: str | None, me: str, players: tuple[str, ...]) -> str:
    """The line sent back for ``request``: ``line`` (MAW's answer to the packet) in the
    platform's form."""
    if request in TARGETED:
        # (no spaces: the platform reads a target with the pattern {"agentIdx":(\d+)},
        # and anything else as no answer, which it replaces with a random target)
        return json.dumps({"agentIdx": index(line)}, separators=(",", ":")) if line else ""
    if request in ("TALK", "WHISPER"):
        return protocol_line(line or "Over", me, players)
    return line or ""


def play_tcp(address: str, player: Player, games: int | None = None,
             connect_seconds: float = 60.0,
             timed: Callable[[str, float], None] = lambda request, seconds: None) -> int:
    """Play the game set of the AIWolf server at ``address`` (``HOST:PORT``) over one
    connection until the server closes it (or after ``games`` games); the games played.
    ``timed(request, seconds)`` hears how long each answer took."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise MawError(f"--tcp {address!r}: give HOST:PORT, e.g. localhost:10000")
    deadline = time.monotonic() + connect_seconds
    while True:
        try:
            sock = socket.create_connection((host, int(port)), timeout=10)
            break
        except OSError as exc:
            if time.monotonic() > deadline:
                raise MawError(f"cannot connect to {address}: {exc}") from None
            time.sleep(0.5)
    sock.settimeout(None)  # (a set's games wait for the other agents: no read limit)
    translator, played = Translator(), 0
    with sock, sock.makefile("r", encoding="utf-8", newline="\n") as lines:
        for text in lines:
            if not text.strip():
                continue
            t0 = time.perf_counter()
            raw = json.loads(text)
            request = raw.get("request")
            packet = translator.packet(raw)
            answer = "none" if packet is None else player.handle(packet)
            if request in ANSWERED:
                if request == "NAME":
                    answer = player.name
                elif request != "ROLE":
                    answer = reply(request, answer, player.seen.me, player.seen.players)
                sock.sendall(((answer or "") + "\n").encode("utf-8"))
                timed(request, time.perf_counter() - t0)
            if request == "FINISH":
                played += 1
                if games is not None and played >= games:
                    break
    return played
