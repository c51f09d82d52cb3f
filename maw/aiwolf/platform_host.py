"""The AIWolf 0.6 platform's TCP protocol, the server's side: agents built for the
platform (the Protocol division's: Java jars on ``ClientStarter``, aiwolfpy agents) take
seats at MAW's table, as ``AIWolfServer``'s ``TcpipServer`` seats them.

Each agent that connects is asked NAME and ROLE (its answer is read and ignored: MAW
deals the roles), then plays its seat through the NLP bridge's decider
(:class:`maw.aiwolf.bridge.AiwolfDecider`) over a :class:`maw.aiwolf.link.Link` whose
packets this module writes as the platform's (:func:`encode`): agents by index
(``Agent[NN]`` by seat order), ``gameInfo`` with the seat's view on INITIALIZE,
DAILY_INITIALIZE, WHISPER, the night's requests, VOTE and FINISH, and the talk as diffs
(``talkHistory``, ``whisperHistory``) on TALK, WHISPER and DAILY_FINISH, as the platform
sends them. Its answers are read as the platform reads them (:func:`decode`): a target as
``{"agentIdx":N}`` (anything else: no target), a talk as a Protocol 3.6 sentence, ``Over``
or ``Skip`` (anything else is a ``Skip``, the platform's ``validateUtterance``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

from maw.aiwolf.link import DEFAULT_LIMITS, Limits
from maw.aiwolf.platform import protocol_line
from maw.aiwolf.server import Seating
from maw.errors import MawError
from maw.policies import protocol36 as p36

log = logging.getLogger("maw.aiwolf")
_TARGET = re.compile(r'\{"agentIdx":(\d+)\}')  # (org.aiwolf.common.net.DataConverter)
TARGETED = frozenset({"VOTE", "ATTACK", "DIVINE", "GUARD"})
# the requests that carry the seat's whole state (the platform sends it with these, and
# with a WHISPER after an execution: the pack must know who is dead before it plans)
WITH_INFO = frozenset({"INITIALIZE", "DAILY_INITIALIZE", "FINISH", "WHISPER", *TARGETED})
MAX_LINE = 64 * 1024


def _empty(request: str) -> dict[str, Any]:
    return {"gameInfo": None, "gameSetting": None, "request": request,
            "talkHistory": None, "whisperHistory": None}


def game_setting(s: dict[str, Any]) -> dict[str, Any]:
    """An aiwolf-nlp-common ``setting`` (the bridge's) as the platform's ``gameSetting``."""
    return {
        "enableNoAttack": s["attack_vote"].get("allow_no_target", False),
        "enableNoExecution": False, "enableRoleRequest": False,
        "maxAttackRevote": s["attack_vote"]["max_count"] - 1,
        "maxRevote": s["vote"]["max_count"] - 1,
        "maxSkip": s["talk"].get("max_skip", 0),
        "maxTalk": s["talk"]["max_count"]["per_agent"],
        "maxTalkTurn": s["talk"]["max_count"]["per_agent"],
        "maxWhisper": s["whisper"]["max_count"]["per_agent"],
        "maxWhisperTurn": s["whisper"]["max_count"]["per_agent"],
        "playerNum": s["agent_count"], "randomSeed": 0,
        "roleNumMap": {**dict.fromkeys(("FREEMASON", "ANY", "FOX"), 0),
                       **s["role_num_map"]},
        "talkOnFirstDay": False, "timeLimit": s["timeout"]["action"],
        "validateUtterance": True, "votableInFirstDay": False,
        "voteVisible": s.get("vote_visibility", True), "whisperBeforeRevote": False,
    }


class Wire:
    """One agent's connection in the platform's form: :meth:`send_text` takes the bridge's
    packet (JSON text) and writes the platform's line; :meth:`decode` reads its answer."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write
        self.players: tuple[str, ...] = ()  # the seats, in the platform's index order
        self.request = ""  # the last request sent
        self.roles: list[str] = []  # existingRoleList
        self.day_talk: dict[str, list[dict]] = {"TALK": [], "WHISPER": []}

    def index(self, name: str | None) -> int:
        return self.players.index(name) + 1 if name in self.players else -1

    def send_text(self, text: str) -> object:
        packet = json.loads(text)
        self.request = packet["request"]
        line = json.dumps(self.encode(packet), separators=(",", ":"))
        log.debug("-> %s %s", self.players and packet.get("info", {}).get("agent"), line)
        return self.write(line + "\n")

    def encode(self, packet: dict[str, Any]) -> dict[str, Any]:
        """The bridge's packet (aiwolf-nlp-common's form) as the platform sends it."""
        request = packet["request"]
        out = _empty(request)
        info = packet.get("info")
        if info is not None and not self.players:
            self.players = tuple(info["status_map"])
        if packet.get("setting") is not None:
            s = packet["setting"]
            self.roles = sorted(r for r, n in s["role_num_map"].items() if n)
            if request == "INITIALIZE":
                out["gameSetting"] = game_setting(s)
        if request == "DAILY_INITIALIZE":
            self.day_talk = {"TALK": [], "WHISPER": []}
        for key, room, field in (("talk_history", "TALK", "talkHistory"),
                                 ("whisper_history", "WHISPER", "whisperHistory")):
            said = [self._talk(t) for t in packet.get(key) or []]
            self.day_talk[room].extend(said)
            if request not in WITH_INFO or said:
                out[field] = said
        if request in WITH_INFO and info is not None:
            out["gameInfo"] = self._info(info)
        return out

    def _talk(self, t: dict[str, Any]) -> dict[str, Any]:
        # what MAW's own players said in words reaches a platform agent as the Protocol 3.6
        # sentence of its first claim, or Skip (the platform lets no other text through)
        text = "Skip" if t.get("skip") else "Over" if t.get("over") else protocol_line(
            t["text"], t["agent"], self.players)
        return {"agent": self.index(t["agent"]), "day": t["day"], "idx": t["idx"],
                "text": text, "turn": t["turn"]}

    def _judge(self, j: dict | None) -> dict | None:
        return None if j is None else {"agent": self.index(j["agent"]), "day": j["day"],
                                       "result": j["result"], "target": self.index(j["target"])}

    def _votes(self, votes: list[dict] | None) -> list[dict]:
        return [{"agent": self.index(v["agent"]), "day": v["day"],
                 "target": self.index(v["target"])} for v in votes or []]

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        me = self.index(info["agent"])
        status = {str(self.index(p)): s for p, s in info["status_map"].items()}
        living = [k for k, s in status.items() if s == "ALIVE"]
        left = info.get("remain_count")
        attacked = self.index(info.get("attacked_agent"))
        return {
            "agent": me, "attackVoteList": self._votes(info.get("attack_vote_list")),
            "attackedAgent": -1, "cursedFox": -1, "day": info["day"],
            "divineResult": self._judge(info.get("divine_result")),
            "executedAgent": self.index(info.get("executed_agent")),
            "existingRoleList": self.roles, "guardedAgent": -1,
            "lastDeadAgentList": [attacked] if attacked > 0 else [],
            "latestAttackVoteList": [], "latestExecutedAgent": -1,
            "latestVoteList": self._votes(info.get("vote_list")),
            "mediumResult": self._judge(info.get("medium_result")),
            "remainTalkMap": {k: left if left is not None else 0 for k in living},
            # (a wolf's only, as the platform sends it: a villager has no whispers)
            "remainWhisperMap": {str(me): left if left is not None else 0}
            if info.get("role_map", {}).get(info["agent"]) == "WEREWOLF" else {},
            "roleMap": {str(self.index(p)): r for p, r in info.get("role_map", {}).items()},
            "statusMap": status, "talkList": list(self.day_talk["TALK"]),
            "voteList": self._votes(info.get("vote_list")),
            "whisperList": list(self.day_talk["WHISPER"]),
        }

    def decode(self, line: str) -> str:
        """An answer as the platform reads it, in the bridge's form (a target's seat name,
        a line, ``Over``, ``Skip``)."""
        line = line.rstrip("\r\n")
        log.debug("<- %s: %s", self.request, line)
        if self.request in TARGETED:
            m = _TARGET.search(line)
            idx = int(m.group(1)) if m else 0
            return self.players[idx - 1] if 0 < idx <= len(self.players) else ""
        if self.request in ("TALK", "WHISPER"):
            if line in ("Over", "Skip"):
                return line
            return line if line and p36.valid(line) else "Skip"
        return line


class TcpEndpoint(Seating):
    """Serves the platform's TCP protocol on ``host:port`` until :meth:`stop`;
    :meth:`gather` waits for the seats."""

    kind = "AIWolf platform agent"

    def __init__(self, host: str, port: int, seats: int, limits: Limits = DEFAULT_LIMITS,
                 reserved: Iterable[str] = (), say: Callable[[str], None] = lambda s: None
                 ) -> None:
        super().__init__(host, port, seats, limits, reserved, say)
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"tcp://{self.host}:{self.port}"

    async def start(self) -> None:
        try:
            self.server = await asyncio.start_server(self._serve, self.host, self.port,
                                                     limit=MAX_LINE)
        except OSError as exc:
            raise MawError(f"the AIWolf platform agents' server cannot listen on "
                           f"{self.host}:{self.port}: {exc.strerror or exc}") from None

    async def stop(self) -> None:
        for w in list(self.writers):
            w.close()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        try:
            await self._talk(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # (a broken connection or a line over MAX_LINE: its link is told below)
        finally:
            self.writers.discard(writer)
            writer.close()

    async def _ask(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   request: str) -> str | None:
        writer.write((json.dumps(_empty(request), separators=(",", ":")) + "\n").encode())
        await writer.drain()
        try:
            line = await asyncio.wait_for(reader.readline(), self.limits.response)
        except TimeoutError:
            return None
        return line.decode("utf-8", "replace").rstrip("\r\n") if line else None

    async def _talk(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.full.is_set():
            return
        name = await self._ask(reader, writer, "NAME")
        if name is None or await self._ask(reader, writer, "ROLE") is None or \
                self.full.is_set():
            return  # (never answered: no seat)

        def write(text: str) -> None:
            writer.write(text.encode("utf-8"))

        wire = Wire(write)
        link = self.seat(name, wire.send_text, writer.close)
        why = "disconnected"
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                link.heard(wire.decode(line.decode("utf-8", "replace")))
        except ValueError:
            why = f"sent a line over {MAX_LINE} bytes"
        except ConnectionError as exc:
            why = f"its connection broke: {exc}"
        link.gone(why)
