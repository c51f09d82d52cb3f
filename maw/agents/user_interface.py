"""UserInterfaceAgent: a person answers the player's ``get_input``.

Design document §3.3. The player pushes everything it hears (``news``) so the person sees
it the moment it arrives; a ``get_input`` for an action is held until the person does
something (a newer one replaces it: the player asks again when the phase changes).

Where the person is, is not this agent's business: a :class:`Console` shows lines and
yields what the person typed (``maw play`` gives a terminal, tests a scripted one), and
:class:`Commands` says what a typed line means (``maw.terminal.commands``: plain text is
chat, ``/vote NAME``..., ``/who``, ``/role``, ``/help`` are answered here, ``/quit`` leaves).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from spade.behaviour import CyclicBehaviour

from maw.agents.base import GameLog, MawAgent
from maw.agents.guards import Guarded
from maw.agents.transport import bare, of_types
from maw.engine.actions import ACTIONS
from maw.protocol import heard as h
from maw.protocol import messages as m
from maw.protocol import render


def phase_of(view: dict[str, Any] | None) -> tuple:
    """What tells one phase from the next: day, phase, revote."""
    v = view or {}
    return (v.get("day"), v.get("phase"), v.get("vote_round"))


class Console(Protocol):
    """Where the person is. It may also have ``update(**status)``: the player's name, role,
    pack, view, the seconds left in the phase and the options offered, for a status bar
    (the terminal) or buttons (a web page); and ``heard(record)``, to be given what the
    player heard as records (``maw.protocol.heard``) rather than as lines."""

    def show(self, line: str) -> None: ...

    async def read(self) -> str | None:
        """The next line the person typed; ``None`` when the input is closed."""


@dataclass
class Parsed:
    """What a typed line means: an action for the player, or something local."""

    action: m.Body | None = None
    local: str | None = None  # help, who, role, score, quit
    error: str | None = None


class Commands(Protocol):
    """What a person's typed line means (``maw.terminal.commands.TEXT``)."""

    def help(self, view: dict[str, Any] | None = None) -> str:
        """The commands of the person's role in its game (``view``: what it sees)."""

    def parse(self, text: str, options: list[m.Option],
              players: Sequence[str] = ()) -> Parsed: ...


class UserInterfaceAgent(MawAgent):
    def __init__(self, jid: str, password: str, console: Console, game_log: GameLog,
                 name: str | None = None, port: int = 5222,
                 commands: Commands | None = None) -> None:
        super().__init__(jid, password, port=port)
        self.console = console
        self.commands = commands
        self.game_log = game_log
        self.wanted_name = name
        self.pending: tuple[Any, m.GetInput] | None = None  # (the request, its body)
        self.view: dict[str, Any] | None = None
        self.options: list[m.Option] = []
        # typed while the player was not asking, with the phase it was typed in
        self.queued: list[tuple[m.Body, tuple]] = []
        self.role_name: str | None = None
        self.pack: list[str] = []
        self.seat_name = name
        self.quit = asyncio.Event()
        self.hinted: tuple[tuple, set[str]] = ((), set())  # (a phase, the commands told)
        # the last answer sent: (its question's thread, the action, the phase it was for)
        self.answered: tuple[str | None, m.Body, tuple] | None = None

    async def setup(self) -> None:
        self.add_behaviour(Requests(), of_types("get_input", "news", "cancel"))
        self.add_behaviour(Keyboard())
        self.add_catch_all(("get_input", "news", "cancel"))

    def take_queued(self) -> m.Body | None:
        """The first action typed in this phase while nobody asked; the older ones are
        too late (the person is told) and dropped."""
        while self.queued:
            action, typed_in = self.queued.pop(0)
            if typed_in == phase_of(self.view):
                return action
            what = "message" if action.type == "chat" else f"/{action.type}"
            self.console.show(f"! too late for your {what}: that phase is over")
        return None

    def offered(self) -> list[dict[str, Any]]:
        """The actions the player may take now (a web page's buttons), each with the
        command a person types for it (from the engine's table: the page keeps no list
        of its own)."""
        out = []
        for o in self.options:
            spec = ACTIONS.get(o.action)
            command = None
            if spec is not None and not spec.text:  # (a chat or a whisper is typed)
                command = spec.usage.replace("NAME", o.target) if spec.target and o.target \
                    else spec.usage
            out.append({**o.model_dump(), "command": command})
        return out

    def status(self, **status: Any) -> None:
        update = getattr(self.console, "update", None)
        if update is not None:
            update(**status)

    def show_hint(self) -> None:
        hint = self.hint()
        if hint is not None:
            self.console.show(hint)

    def hint(self) -> str | None:
        """What the person may now do to another player, told once a phase as it comes
        (a night's "/divine NAME", the day's "/vote NAME" once the votes open): the
        person at the night's first line had only "Day 1, night" to go on."""
        if (self.view or {}).get("alive") is False:
            return None
        phase = phase_of(self.view)
        if self.hinted[0] != phase:
            self.hinted = (phase, set())
        usages = []
        for o in self.options:
            spec = ACTIONS.get(o.action)
            if spec is not None and spec.target and not spec.text and \
                    spec.usage not in self.hinted[1] and spec.usage not in usages:
                usages.append(spec.usage)
        if not usages:
            return None
        self.hinted[1].update(usages)
        return f"(you may now: {', '.join(usages)}; /help for all)"

    def who(self) -> str:
        v = self.view or {}
        alive = ", ".join(v.get("living", [])) or "?"
        votes = v.get("votes") or {}
        shown = "; ".join(f"{a} -> {b}" for a, b in votes.items()) or "none yet"
        return f"alive: {alive}\nvotes: {shown}"

    def role(self) -> str:
        v = self.view or {}
        me = v.get("player") or self.seat_name or "?"
        pack = list(v.get("pack") or self.pack)  # (all of it, as the role's news says)
        mates = f" (the pack: {', '.join(pack)})" if pack else ""
        return f"you are {me}, a {v.get('role') or self.role_name or '?'}{mates}"


class Requests(Guarded):
    """Shows news at once; keeps the latest get_input for the keyboard to answer. Only its
    own player may speak to it (with proof: the player is its authority)."""

    async def handle(self, msg, body: m.Body) -> None:
        agent: UserInterfaceAgent = self.agent
        if agent.authorities and bare(msg.sender) not in agent.authorities:
            agent.game_log.write("refused", sender=bare(msg.sender),
                                 reason="not this interface's player")
            return
        seen = getattr(body, "view", None)
        view = h.view_data(seen) if seen else None
        if isinstance(body, m.News):
            agent.role_name, agent.pack = body.role, list(body.pack)
            if view:
                agent.view, agent.options = view, list(body.options)
                asked = agent.pending
                if asked is not None and asked[1].purpose == "action" and \
                        phase_of(view) != phase_of(h.view_data(asked[1].view)
                                                   if asked[1].view else None):
                    # a new phase: what the person types now answers its question (the
                    # player's next one), not the last phase's (which the rules refuse)
                    agent.pending = None
            agent.status(role=body.role, pack=list(body.pack), view=view,
                         seconds=body.seconds, options=agent.offered())
            # (a console that draws the records itself, a web page, gets them as they are)
            heard = getattr(agent.console, "heard", None)
            for record in body.heard:
                if heard is not None:
                    heard(record)
                else:
                    agent.console.show(render.heard(record))
            agent.show_hint()  # (after the news: the phase's line, then what it offers)
            return
        if isinstance(body, m.Cancel):  # the question is moot (a new phase, the votes open)
            if agent.pending is not None and agent.pending[0].thread == msg.thread:
                agent.pending = None
            elif agent.answered is not None and agent.answered[0] == msg.thread:
                # withdrawn as the answer went: the player never took it, so it goes with
                # the next question (a vote typed the moment the votes opened was lost);
                # in a phase over by then, the person is told it came too late
                agent.queued.insert(0, agent.answered[1:])
                agent.answered = None
            return
        if not isinstance(body, m.GetInput):
            return
        if body.purpose == "name":
            if agent.wanted_name is None:
                for record in body.heard:  # e.g. "the name 'Ann' is taken"
                    agent.console.show(render.heard(record))
                agent.console.show("Your name?")
                agent.pending = (msg, body)
                return
            name, agent.wanted_name = agent.wanted_name, None
            agent.seat_name = name
            agent.status(name=name)
            await agent.send_body(self, str(msg.sender.bare), m.NameChoice(name=name),
                                  msg.thread)
            return
        if view:
            agent.view = view
        agent.options = list(body.options)
        agent.status(view=view, seconds=body.seconds, options=agent.offered())
        action = agent.take_queued()
        if action is not None:
            agent.answered = (msg.thread, action, phase_of(agent.view))
            await agent.send_body(self, str(msg.sender.bare), action, msg.thread)
            return
        agent.pending = (msg, body)


class Keyboard(CyclicBehaviour):
    """Reads what the person types and answers the held request with it."""

    async def run(self) -> None:
        agent: UserInterfaceAgent = self.agent
        try:
            await self.type_line(agent)
        except Exception as exc:  # one odd line must not end the keyboard
            await agent.handler_failed(self, None, exc)

    async def type_line(self, agent: UserInterfaceAgent) -> None:
        text = await agent.console.read()
        if text is None:
            text = "/quit"
        pending = agent.pending
        if pending is not None and pending[1].purpose == "name":
            name = text.strip()
            try:
                choice = m.NameChoice(name=m.check_name(name))
            except ValueError as exc:
                agent.console.show(str(exc))
                return
            agent.pending = None
            agent.seat_name = name
            agent.status(name=name)
            msg = pending[0]
            await agent.send_body(self, str(msg.sender.bare), choice, msg.thread)
            return
        if agent.commands is None:
            agent.console.show("! this interface takes no typed commands")
            return
        parsed = agent.commands.parse(text, agent.options,
                                      (agent.view or {}).get("players", ()))
        if parsed.error:
            agent.console.show(f"! {parsed.error}")
            if parsed.error.startswith("unknown command"):
                agent.console.show(agent.commands.help(agent.view))
            return
        if parsed.local == "help":
            agent.console.show(agent.commands.help(agent.view))
        elif parsed.local == "who":
            agent.console.show(agent.who())
        elif parsed.local == "role":
            agent.console.show(agent.role())
        elif parsed.local == "score":  # (the GameMaster answers, through the player)
            player = next(iter(agent.authorities), None)
            if player is None:
                agent.console.show("! not in a game yet")
            else:
                await agent.send_body(self, player, m.ShowScore())
        elif parsed.local == "quit":
            agent.console.show("You leave the game.")
            agent.quit.set()
            self.kill()
        if parsed.action is None:
            return
        if (agent.view or {}).get("alive") is False and \
                parsed.action.type not in {o.action for o in agent.options}:  # (a Hunter's shot)
            agent.console.show("! you are dead: you can watch the game, not act in it")
            return
        if isinstance(parsed.action, m.Listen) and parsed.action.ready:
            day = (agent.view or {}).get("phase") in ("day", "vote")
            agent.console.show("(you are ready: " + (
                "the day ends once everyone has voted and is ready" if day else
                "the phase ends once everyone who acts in it is done")
                + "; anything you do now takes it back)")
            me = (agent.view or {}).get("player")
            if not day and any(o.action == "attack" for o in agent.options) and \
                    me not in ((agent.view or {}).get("votes") or {}):
                # (a review's wolf typed /ready for the day just after its vote ended it:
                # it counted for the night, and nobody was murdered, without a word)
                agent.console.show("! you have chosen no victim: the pack must agree on "
                                   "one (/attack NAME), or nobody is murdered tonight")
        if pending is None:
            # (the player asks again as soon as its last answer is through: this goes
            # out then, in the order typed)
            agent.queued.append((parsed.action, phase_of(agent.view)))
            return
        agent.pending = None
        msg = pending[0]
        with contextlib.suppress(Exception):
            agent.game_log.write("typed", text=text, action=parsed.action.type)
        agent.answered = (msg.thread, parsed.action, phase_of(agent.view))
        await agent.send_body(self, str(msg.sender.bare), parsed.action, msg.thread)
