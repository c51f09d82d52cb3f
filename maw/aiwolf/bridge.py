"""An AIWolf contest agent in a MAW seat: a decider whose choices come over the agent's
WebSocket (:class:`maw.aiwolf.link.Link`), so the seat is a MAW player like any other
(its PlayerAgent and interface over XMPP) and the agent sees the server side of
aiwolf-nlp-server's protocol (``../shared/aiwolf-nlp-protocol.md``).

Each time the seat is asked, the agent first gets the packets that are due (INITIALIZE,
DAILY_FINISH of a day gone, DAILY_INITIALIZE of a new one), then the request for what the
seat may do now: TALK while it may speak in the Village, WHISPER in the Hideout, then
DAILY_FINISH and VOTE, DIVINE, GUARD or ATTACK, once each. With the ruleset's
``talk_mode=freeform`` (the 2026 group chat) the talk is TALK_PHASE_START (WHISPER_...),
then every line the agent sends unasked, every line said reaching it as TALK_BROADCAST
(``new_talk``), and TALK_PHASE_END when the phase is over. Its answer becomes the action:
a line (cut to the ruleset's length), ``Over`` or ``Skip`` (no skips are allowed, so a
skip ends its talk, as in every shipped config), a target by its exact name (an unknown
or illegal one is ignored: no vote, as the server ignores it). FINISH with every role
comes from the host when the game is over (:func:`finish_packet`).

The packets carry only what the seat's own view holds (``maw.engine.view``): its role,
its pack, its results, public deaths and votes. Not sent: a profile (MAW has none), and
packets to a dead seat until FINISH (a dead player is asked nothing in MAW).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Hashable
from typing import Any

from aiwolf_nlp_common.packet.request import Request
from aiwolf_nlp_common.packet.role import Role as AiwolfRole

from maw.aiwolf.link import Limits, Link
from maw.engine import Action, Chat, Event, Over, PlayerView, Room, Ruleset
from maw.engine.actions import SPEC_OF
from maw.engine.events import Chatted
from maw.engine.rulesets import TalkMode, TiePolicy
from maw.errors import ConfigError
from maw.policies.base import AsyncDecider, max_chat, rules_of

ROLES = {"Werewolf": AiwolfRole.WEREWOLF, "Possessed": AiwolfRole.POSSESSED,
         "Seer": AiwolfRole.SEER, "Bodyguard": AiwolfRole.BODYGUARD,
         "Villager": AiwolfRole.VILLAGER, "Medium": AiwolfRole.MEDIUM}
# the seat's target actions and their requests (the night's, and the day's vote)
REQUESTS = {"vote": Request.VOTE, "divine": Request.DIVINE, "guard": Request.GUARD,
            "attack": Request.ATTACK}
SKIPS = ("Skip", "ForceSkip", "Over", "")
ROOMS = {"day": Room.VILLAGE, "whisper": Room.HIDEOUT}  # the phases with a talk


def aiwolf_role(name: str) -> str:
    """A MAW role's AIWolf name; ``ConfigError`` for a role AIWolf has not."""
    try:
        return ROLES[name].value
    except KeyError:
        raise ConfigError(f"an AIWolf agent cannot play a game with a {name}: AIWolf's "
                          f"roles are {', '.join(ROLES)}") from None


def setting(rules: Ruleset, n: int, limits: Limits, talk_seconds: float = 0.0
            ) -> dict[str, Any]:
    """The packet's ``setting``, from the ruleset (aiwolf-nlp-server's keys; a freeform
    talk's ``duration`` is the day's length)."""
    roles = rules.roles_for(n)
    counts = dict.fromkeys((r.value for r in AiwolfRole), 0)
    for r in roles:
        counts[aiwolf_role(r.name)] += 1
    wolves = sum(1 for r in roles if r.pack)
    votes = 2 if rules.tie is TiePolicy.REVOTE else 1
    attacks = 2 if rules.attack_tie is TiePolicy.REVOTE else 1
    length: dict[str, Any] = {"count_in_word": False, "count_spaces": True,
                              "per_talk": rules.max_chat_length}
    if rules.base_length:  # (the contests' cut: spaces not counted)
        length = {"count_in_word": False, "count_spaces": False,
                  "base_length": rules.base_length, "mention_length": rules.mention_length}
    talk = rules.talks_per_day or 0  # (None: no limit, which AIWolf cannot say)
    whisper = (rules.whispers_per_day or 0) if wolves >= 2 else 0
    out: dict[str, Any] = {
        "agent_count": n, "role_num_map": counts, "vote_visibility": True,
        "talk": {"max_count": {"per_agent": talk, "per_day": talk * n},
                 "max_length": length, "max_skip": 0},
        "whisper": {"max_count": {"per_agent": whisper, "per_day": whisper * wolves},
                    "max_length": length, "max_skip": 0},
        "vote": {"max_count": votes, "allow_self_vote": rules.self_vote},
        "attack_vote": {"max_count": attacks, "allow_self_vote": False,
                        "allow_no_target": False},
        "timeout": {"action": int(limits.action * 1000),
                    "response": int(limits.response * 1000)},
    }
    if rules.max_days is not None:
        out["max_day"] = rules.max_days
    if rules.talk_mode is TalkMode.FREEFORM:
        for kind in ("talk", "whisper"):
            out[kind]["duration"] = int(talk_seconds * 1000)
    return out


def info(view: PlayerView, game_id: str) -> dict[str, Any]:
    """The packet's ``info``: the seat's view, as the server builds it (what happened the
    day and night before; ``role_map`` the seat itself, and its pack)."""
    last = view.day - 1
    out: dict[str, Any] = {"game_id": game_id, "day": view.day, "agent": view.player}
    for day, kind, target, species in view.results:
        if day == last and kind in ("divine", "medium"):
            out[f"{kind}_result"] = {"day": day, "agent": view.player if kind == "divine"
                                     else target, "target": target,
                                     "result": species.upper()}
    for day, who, cause in view.deaths:
        if day == last and cause == "executed":
            out["executed_agent"] = who
        elif day == last and cause == "murdered":
            out["attacked_agent"] = who
    for day, kind, _round, votes in view.vote_history:
        if day == last and votes:
            key = "vote_list" if kind == "execute" else "attack_vote_list"
            out[key] = [{"day": day, "agent": v, "target": t} for v, t in votes]
    out["status_map"] = {p: "ALIVE" if p in view.living else "DEAD" for p in view.players}
    out["role_map"] = {p: aiwolf_role(r) for p, r in view.known_roles.items()}
    return out


def finish_packet(game_id: str, day: int, roles: dict[str, str],
                  living: tuple[str, ...], agent: str) -> dict[str, Any]:
    """FINISH: the game's end, every role shown."""
    return {"request": Request.FINISH.value, "info": {
        "game_id": game_id, "day": day, "agent": agent,
        "status_map": {p: "ALIVE" if p in living else "DEAD" for p in roles},
        "role_map": {p: aiwolf_role(r) for p, r in roles.items()}}}


class AiwolfDecider(AsyncDecider):
    """A seat played by the AIWolf agent on ``link``, in the game ``game_id`` (see the
    module docstring). ``rng`` is unused: the agent decides."""

    def __init__(self, player: str, rng: random.Random, link: Link, game_id: str,
                 round_: int = 1) -> None:
        super().__init__(player, rng)
        self.link = link
        self.game_id = game_id
        self.round = round_  # its game's number in a set (MAW's round)
        self.started = False
        self.day_open: int | None = None  # the day of the last DAILY_INITIALIZE
        self.day_closed: int | None = None  # the day of the last DAILY_FINISH
        self.history: dict[Room, list[dict]] = {Room.VILLAGE: [], Room.HIDEOUT: []}
        self.sent = {Room.VILLAGE: 0, Room.HIDEOUT: 0}  # the history already sent
        self.spoken = {Room.VILLAGE: 0, Room.HIDEOUT: 0}  # answers given today
        self.over: set[tuple[int, Room]] = set()  # (day, room) where it said Over
        self.asked: set[Hashable] = set()  # the target requests answered
        self.chat_open: tuple[int, Room] | None = None  # freeform: the open group chat
        self.last: PlayerView | None = None
        self.outbox: list[dict] = []  # the group chat's lines heard, not yet sent
        self.talks: dict[Hashable, asyncio.Future] = {}  # the TALKs asked, by key

    def observe(self, event: Event) -> None:
        if type(event) is not Chatted:
            return
        e: Chatted = event
        talks = self.history[e.room]
        turn = sum(1 for t in talks if t["agent"] == e.speaker and t["day"] == e.day)
        talk = {"idx": len(talks), "day": e.day, "turn": turn, "agent": e.speaker,
                "text": e.text, "skip": False, "over": False}
        talks.append(talk)
        if self.chat_open == (e.day, e.room) and self.last is not None:
            # the group chat: every line goes to every one in it as it is said
            request = Request.TALK_BROADCAST if e.room is Room.VILLAGE \
                else Request.WHISPER_BROADCAST
            key = "new_talk" if e.room is Room.VILLAGE else "new_whisper"
            packet = self._packet(request, self.last)
            packet[key] = {**talk, "time": int(time.time() * 1000)}
            self.outbox.append(packet)  # (sent before anything else the seat sends)

    # ------------------------------------------------------------ packets

    def _rules(self, view: PlayerView) -> Ruleset:
        return rules_of(view)

    def _diff(self, room: Room) -> list[dict]:
        talks = self.history[room]
        new, self.sent[room] = talks[self.sent[room]:], len(talks)
        return new

    def _packet(self, request: Request, view: PlayerView, **more: Any) -> dict[str, Any]:
        packet: dict[str, Any] = {"request": request.value, "info": info(view, self.game_id)}
        packet["info"].update(more.pop("extra", {}))
        packet.update(more)
        return packet

    async def _catch_up(self, view: PlayerView) -> None:
        """The packets due before a request: INITIALIZE once, a day's DAILY_FINISH and
        the next day's DAILY_INITIALIZE."""
        link, rules = self.link, self._rules(view)
        before, self.last = self.last or view, view  # (packets of a past phase: its view)
        while self.outbox:  # the lines heard in the group chat, in order, before its end
            await link.notify(self.outbox.pop(0))
        if not self.started:
            self.started = True
            if link.before_game is not None:  # (a game set: the last game's FINISH first)
                await link.before_game(link, self.round)
            await link.notify(self._packet(Request.INITIALIZE, view, setting=setting(
                rules, len(view.players), link.limits, link.talk_seconds)))
        if self.chat_open is not None and self.chat_open != (view.day, ROOMS.get(view.phase)):
            await self._end_chat(before)
        if self.day_open is not None and self.day_open < view.day and \
                self.day_closed != self.day_open:
            await self._finish_day(before)
        if self.day_open != view.day:
            self.day_open = view.day
            for room in self.history:  # (the diffs start again with each day)
                self.history[room] = [t for t in self.history[room] if t["day"] == view.day]
                self.sent[room] = 0
                self.spoken[room] = 0
            await link.notify(self._packet(
                Request.DAILY_INITIALIZE, view,
                setting=setting(rules, len(view.players), link.limits, link.talk_seconds)))

    async def _finish_day(self, view: PlayerView) -> None:
        self.day_closed = self.day_open
        more: dict[str, Any] = {"talk_history": self._diff(Room.VILLAGE)}
        if view.pack:
            more["whisper_history"] = self._diff(Room.HIDEOUT)
        await self.link.notify(self._packet(Request.DAILY_FINISH, view, **more))

    # ------------------------------------------------------------ deciding

    async def adecide(self, view: PlayerView, legal: tuple[Action, ...],
                      heard: list[str]) -> Action | None:
        if self.link.error is not None:
            return None
        await self._catch_up(view)
        chats = {a.room: a for a in legal if isinstance(a, Chat)}
        freeform = self._rules(view).talk_mode is TalkMode.FREEFORM
        for room in (Room.VILLAGE, Room.HIDEOUT):
            if room in chats and (view.day, room) not in self.over:
                if freeform:
                    return await self._chat(view, room, legal)
                return await self._talk(view, room, legal)
        targets = [a for a in legal if SPEC_OF[type(a)].name in REQUESTS]
        if not targets:
            return None
        kind = SPEC_OF[type(targets[0])].name
        key = (kind, view.day, view.phase, view.vote_round)
        if key in self.asked:
            return None  # one request a vote, as the server sends
        if self.day_closed != view.day:
            await self._finish_day(view)
        packet = self._packet(REQUESTS[kind], view)
        if kind == "attack":
            packet["whisper_history"] = self._diff(Room.HIDEOUT)
        answer = await self.link.ask(key, packet)
        self.asked.add(key)
        if answer is None:
            return None
        return next((a for a in targets if SPEC_OF[type(a)].name == kind
                     and getattr(a, "target", None) == answer.strip()), None)

    async def _chat(self, view: PlayerView, room: Room, legal: tuple[Action, ...]
                    ) -> Action | None:
        """The freeform talk: the group chat opens once (TALK_PHASE_START), then each line
        the agent sends is said; ``Over`` ends its talk."""
        if self.chat_open != (view.day, room):
            self.chat_open = (view.day, room)
            self.link.open_chat()
            start = Request.TALK_PHASE_START if room is Room.VILLAGE \
                else Request.WHISPER_PHASE_START
            await self.link.notify(self._packet(start, view))
        line = await self.link.said()
        if line is None:
            return None
        return self._line(view, room, line, legal)

    async def _end_chat(self, view: PlayerView) -> None:
        assert self.chat_open is not None
        room = self.chat_open[1]
        self.chat_open = None
        self.link.close_chat()
        end = Request.TALK_PHASE_END if room is Room.VILLAGE else Request.WHISPER_PHASE_END
        await self.link.notify(self._packet(end, view))

    def _line(self, view: PlayerView, room: Room, answer: str, legal: tuple[Action, ...]
              ) -> Action | None:
        """A line the agent sent: said, or ``Over``/``Skip`` (no skips allowed: the
        same), which ends its talk for the day."""
        text = answer.strip()
        if text in SKIPS:
            self.over.add((view.day, room))
            over = Over(self.player, room)
            return over if over in legal else None
        return Chat(self.player, room, text[:max_chat(view)])

    async def _talk(self, view: PlayerView, room: Room, legal: tuple[Action, ...]
                    ) -> Action | None:
        """One TALK (WHISPER): in its turn among the game's agents, if they talk in rounds
        (:mod:`maw.aiwolf.rounds`); asked again before the answer came, the same one."""
        request = Request.TALK if room is Room.VILLAGE else Request.WHISPER
        key = (request.value, view.day, self.spoken[room])
        task = self.talks.get(key)
        if task is None:
            task = self.talks[key] = asyncio.ensure_future(self._turn(view, room, request, key))
        answer = await asyncio.shield(task)
        self.spoken[room] += 1
        if answer is None:  # failed: a skip of this turn (the server's ForceSkip)
            return None
        return self._line(view, room, answer, legal)

    async def _turn(self, view: PlayerView, room: Room, request: Request,
                    key: Hashable) -> str | None:
        rounds = self.link.rounds
        phase = (view.day, room)
        if rounds is not None:
            taking = view.pack if room is Room.HIDEOUT else view.living
            await rounds.turn(phase, self.player,
                              [s for s in rounds.seats if s in taking and s in view.living])
        answer: str | None = None
        rules = self._rules(view)
        per = rules.talks_per_day if room is Room.VILLAGE else rules.whispers_per_day
        left = [x for x in (view.messages_left, per and per - self.spoken[room])
                if x is not None]
        remain = max(0, min(left) - 1) if left else 0
        try:
            # (counted down before the request is sent, as the server does)
            extra = {"remain_count": remain, "remain_skip": 0}
            history = "talk_history" if room is Room.VILLAGE else "whisper_history"
            packet = self._packet(request, view, extra=extra, **{history: self._diff(room)})
            answer = await self.link.ask(key, packet)
        finally:
            if rounds is not None:
                out = answer is None and self.link.error is not None or remain == 0 or (
                    answer is not None and answer.strip() in SKIPS)
                await rounds.answered(phase, self.player, out)
        return answer

