"""``maw aiwolf-client``: one of MAW's deciders plays in AIWolf games, run by an
aiwolf-nlp-server or by MAW's own endpoint (``maw game --aiwolf``), over
aiwolf-nlp-common's ``Client``, as the contest's sample agent does.

Each packet updates what the agent knows (:class:`Seen`: its role and pack, the living,
the deaths, the votes, its results and the talk), which becomes the decider's own
``PlayerView``; a request's legal actions are built as the AIWolf rules allow them
(a vote for any living player, self included where the setting says so; a divination,
guard or attack on another living player; the pack never attacks its own). The talk
heard is given to the decider as chat lines. A decider that does not speak answers
``Over``; a decider that does not choose a target answers nothing a server can match,
which the server ignores (no vote). After FINISH the server closes the socket; the client
connects again for the next game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType

from aiwolf_nlp_common.client import Client
from aiwolf_nlp_common.packet import Packet, Request

from maw.aiwolf.bridge import ROLES
from maw.engine import (
    Action,
    Attack,
    Chat,
    Divine,
    Guard,
    Over,
    PlayerView,
    Room,
    Vote,
    role_named,
    ruleset,
)
from maw.engine.events import Chatted, GameStarted
from maw.errors import MawError
from maw.policies.base import AsyncDecider, Decider
from maw.policies.memory import SetMemory

log = logging.getLogger("maw.aiwolf")
MAW_ROLE = {v.value: k for k, v in ROLES.items()}
PHASES = {Request.TALK: "day", Request.VOTE: "vote", Request.WHISPER: "whisper",
          Request.DIVINE: "night", Request.GUARD: "night", Request.ATTACK: "night"}
TARGETS: dict[Request, type] = {Request.VOTE: Vote, Request.DIVINE: Divine,
                                Request.GUARD: Guard, Request.ATTACK: Attack}


@dataclass
class Seen:
    """What the agent knows of its game, from the packets so far."""

    me: str = ""
    players: tuple[str, ...] = ()
    living: tuple[str, ...] = ()
    roles: dict[str, str] = field(default_factory=dict)  # role_map: MAW role names
    deaths: list[tuple[int, str, str]] = field(default_factory=list)
    votes: list[tuple[int, str, int, tuple[tuple[str, str], ...]]] = field(
        default_factory=list)
    results: list[tuple[int, str, str, str]] = field(default_factory=list)
    agents: int = 0
    self_vote: bool = True
    talked: int = 0  # talk entries already given to the decider
    whispered: int = 0

    def learn(self, p: Packet) -> None:
        if p.setting is not None:
            self.agents = p.setting.agent_count
            self.self_vote = p.setting.vote.allow_self_vote
        i = p.info
        if i is None:
            return
        self.me = i.agent
        self.players = tuple(i.status_map)
        self.living = tuple(a for a, s in i.status_map.items() if s.value == "ALIVE")
        self.roles = {a: MAW_ROLE[r.value] for a, r in i.role_map.items()}
        dead = {w for _d, w, _c in self.deaths}
        for who, cause in ((i.executed_agent, "executed"), (i.attacked_agent, "murdered")):
            if who and who not in dead:
                self.deaths.append((i.day - 1, who, cause))
        for votes, kind in ((i.vote_list, "execute"), (i.attack_vote_list, "attack")):
            if votes:
                rec = (votes[0].day, kind, 0, tuple((v.agent, v.target) for v in votes))
                if rec not in self.votes:
                    self.votes.append(rec)
        for judge, kind in ((i.divine_result, "divine"), (i.medium_result, "medium")):
            if judge is not None:
                found = (judge.day, kind, judge.target, judge.result.value.lower())
                if found not in self.results:
                    self.results.append(found)

    def rules_name(self) -> str:
        name = f"aiwolf-{self.agents}"
        try:
            ruleset(name)
        except MawError:
            raise MawError(f"a game of {self.agents} players: MAW's deciders play "
                           "aiwolf-5, 9, 13 and 15") from None
        return name

    def view(self, request: Request, day: int, remain: int | None) -> PlayerView:
        me = self.me
        role = self.roles.get(me, "Villager")
        pack = tuple(a for a, r in self.roles.items() if r == "Werewolf") \
            if role == "Werewolf" else ()
        room = {Request.TALK: "Village", Request.WHISPER: "Hideout"}.get(request)
        return PlayerView(
            player=me, role=role, team=role_named(role).team.value, alive=me in self.living,
            ruleset=self.rules_name(), day=day, phase=PHASES.get(request, "day"),
            vote_round=0, players=self.players, living=self.living,
            deaths=tuple(self.deaths), known_roles=MappingProxyType(dict(self.roles)),
            pack=pack, room=room, messages_left=None if remain is None else remain + 1,
            votes=MappingProxyType({}), vote_history=tuple(self.votes),
            results=tuple(self.results), winner=None)

    def legal(self, request: Request) -> tuple[Action, ...]:
        me = self.me
        if request in (Request.TALK, Request.WHISPER):
            room = Room.VILLAGE if request is Request.TALK else Room.HIDEOUT
            return (Chat(me, room, ""), Over(me, room))
        kind = TARGETS.get(request)
        if kind is None:
            return ()
        others = [a for a in self.living if a != me or (kind is Vote and self.self_vote)]
        if kind is Attack:
            others = [a for a in others if self.roles.get(a) != "Werewolf"] or others
        return tuple(kind(me, a) for a in others)


def answer(action: Action | None, request: Request) -> str:
    """The text sent back: a line, ``Over``, or a target's name."""
    if request in (Request.TALK, Request.WHISPER):
        if isinstance(action, Chat) and action.text.strip():
            return action.text.replace("\n", " ")
        return "Over"
    return getattr(action, "target", "") or ""


class Player:
    """One agent: ``new_decider(game, me, role)`` makes a fresh decider for each game,
    given its name and role in it (a roster seat's model may hang on the role)."""

    def __init__(self, name: str, new_decider: Callable[[int, str, str | None], Decider],
                 say: Callable[[str], None] = lambda line: None,
                 memory: SetMemory | None = None) -> None:
        self.name = name
        self.new_decider = new_decider
        self.say = say
        self.memory = memory  # what it learns of the others over the set (None: nothing)
        self.game = 0
        self.decider: Decider | None = None
        self.seen = Seen()

    def handle(self, p: Packet) -> str | None:
        """The answer to packet ``p`` (``None``: it takes none)."""
        r = p.request
        if r is Request.NAME:
            return self.name
        if r is Request.INITIALIZE:
            self.game += 1
            self.seen = Seen()
            self.seen.learn(p)
            self.decider = self.new_decider(self.game, self.seen.me,
                                            self.seen.roles.get(self.seen.me))
            if self.memory is not None:
                self.memory.lend(self.decider)
            self.decider.observe(GameStarted(self.seen.rules_name(), self.seen.players))
            return None
        self.seen.learn(p)
        self._hear(p)
        if r is Request.FINISH:
            if self.memory is not None:  # (FINISH tells every role)
                self.memory.learn_from(self.decider, self.seen.roles)
            me = self.seen.me
            self.say(f"game {self.game} over: {me} was a {self.seen.roles.get(me)}")
            return None
        if r not in PHASES or self.decider is None:
            return None
        i = p.info
        assert i is not None
        view = self.seen.view(r, i.day, i.remain_count)
        legal = self.seen.legal(r)
        return answer(self._decide(view, legal), r)

    def _hear(self, p: Packet) -> None:
        assert self.decider is not None or p.request is Request.FINISH
        for talks, room in ((p.talk_history, Room.VILLAGE), (p.whisper_history, Room.HIDEOUT)):
            for t in talks or []:
                if self.decider is not None and not (t.skip or t.over):
                    self.decider.observe(Chatted(t.day, room, t.agent, t.text))

    def _decide(self, view: PlayerView, legal: tuple[Action, ...]) -> Action | None:
        assert self.decider is not None
        if isinstance(self.decider, AsyncDecider):
            return asyncio.run(self.decider.adecide(view, legal, []))
        return self.decider.decide(view, legal)


def play(url: str, player: Player, games: int, token: str | None = None,
         connect_seconds: float = 60.0) -> int:
    """Play ``games`` games at ``url``, connecting again after each; the games played."""
    played = 0
    while played < games:
        client = Client(url, token)
        deadline = time.monotonic() + connect_seconds
        while True:
            try:
                client.connect()
                break
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise MawError(f"cannot connect to {url}: {exc}") from None
                time.sleep(0.5)
        finished = False
        try:
            while True:
                try:
                    raw = client.socket.recv()
                except Exception:  # the server closed the socket (after FINISH)
                    break
                if not raw:
                    break
                packet = Packet.from_dict(json.loads(raw))
                reply = player.handle(packet)
                if reply is not None:
                    client.send(reply)
                finished = finished or packet.request is Request.FINISH
        finally:
            client.close()
        if not finished:
            raise MawError(f"the server at {url} closed the connection before the game "
                           f"ended (game {played + 1})")
        played += 1
    return played


def check_url(url: str) -> str:
    if not url.startswith(("ws://", "wss://")):
        raise MawError(f"--url {url!r}: give ws://HOST:PORT/ws (or wss://)")
    return url
