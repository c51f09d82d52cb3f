"""UserInterfaceAgent: a person at a terminal answers the player's ``get_input``.

Design document §3.3. The player pushes every line it hears (``news``) so the person sees
messages the moment they arrive; a ``get_input`` for an action is held until the person
types something (a newer one replaces it: the player asks again when the phase changes).
What the person types is parsed by :func:`parse_command`: plain text is chat, ``/vote
NAME``, ``/unvote``, ``/attack NAME``, ``/divine NAME``, ``/guard NAME``, ``/over``,
``/pass``; ``/who``, ``/role``, ``/help`` are answered locally; ``/quit`` leaves.

The terminal itself is a :class:`Console` (``maw play`` gives a prompt_toolkit one; tests
give a scripted one): it shows lines and yields what the person typed.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, Protocol

from spade.behaviour import CyclicBehaviour

from maw.agents.base import GameLog, Guarded, MawAgent, bare, of_types
from maw.engine.actions import ACTIONS
from maw.protocol import messages as m
from maw.protocol import render
from maw.terminal.screen import phase_of

# the players' actions come from the engine's table; the rest is the terminal's own
LOCAL = (("/pass", "nothing to do now"), ("/who", "who is alive, and the votes so far"),
         ("/role", "your role"), ("/help", "this text"), ("/quit", "leave the game"))
TARGETED = tuple(name for name, spec in ACTIONS.items() if spec.target)
UNTARGETED = tuple(name for name, spec in ACTIONS.items() if not spec.target and name != "chat")


def _help() -> str:
    entries = [(s.usage, s.help) for name, s in ACTIONS.items() if name != "chat"] + list(LOCAL)
    lines = ["Type a message to say it in the open room. Commands:"]
    lines += [f"  {usage:<14} {what}" for usage, what in entries]
    return "\n".join(lines)


HELP = _help()


class Console(Protocol):
    """A terminal. It may also have ``update(**status)``: the player's name, role, pack,
    view and the seconds left in the phase, for a status bar (``maw.terminal.screen``)."""

    def show(self, line: str) -> None: ...

    async def read(self) -> str | None:
        """The next line the person typed; ``None`` when the input is closed."""


@dataclass
class Parsed:
    """What a typed line means: an action for the player, or something local."""

    action: m.Body | None = None
    local: str | None = None  # help, who, role, quit
    error: str | None = None


def parse_command(text: str, options: list[m.Option]) -> Parsed:
    """Parse one typed line against the options the person has now. Names match without
    regard to case; an action the options do not offer is sent anyway when it names a
    target (the GameMaster's refusal says why), but a command that cannot be understood
    is answered here."""
    text = text.strip()
    if not text:
        return Parsed()
    if not text.startswith("/"):
        room = next((o.room for o in options if o.action == "chat"), None)
        if room is None:
            return Parsed(error="you cannot speak now (no room is open to you)")
        return Parsed(action=m.Chat(message=text, room=room))
    word, _, rest = text[1:].partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("help", "who", "role", "quit"):
        return Parsed(local=word)
    if word == "pass":
        return Parsed(action=m.Listen())
    if word in UNTARGETED:
        return Parsed(action=m.ACTION_TYPES[word]())
    if word in TARGETED:
        if not rest:
            legal = [o.target for o in options if o.action == word and o.target]
            hint = f": {', '.join(legal)}" if legal else ""
            return Parsed(error=f"/{word} needs a name{hint}")
        legal = {o.target.lower(): o.target for o in options
                 if o.action == word and o.target}
        target = legal.get(rest.lower(), rest)
        if len(target) > 20:
            return Parsed(error=f"no player is called {target!r}")
        return Parsed(action=m.ACTION_TYPES[word](target=target))
    return Parsed(error=f"unknown command /{word}; /help lists them")


class UserInterfaceAgent(MawAgent):
    def __init__(self, jid: str, password: str, console: Console, game_log: GameLog,
                 name: str | None = None, port: int = 5222) -> None:
        super().__init__(jid, password, port=port)
        self.console = console
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

    def status(self, **status: Any) -> None:
        update = getattr(self.console, "update", None)
        if update is not None:
            update(**status)

    def who(self) -> str:
        v = self.view or {}
        alive = ", ".join(v.get("living", [])) or "?"
        votes = v.get("votes") or {}
        shown = "; ".join(f"{a} -> {b}" for a, b in votes.items()) or "none yet"
        return f"alive: {alive}\nvotes: {shown}"

    def role(self) -> str:
        v = self.view or {}
        me = v.get("player") or self.seat_name or "?"
        pack = [p for p in (v.get("pack") or self.pack) if p != me]
        mates = f" (the pack: {', '.join(pack)})" if pack else ""
        return f"you are {me}, a {v.get('role') or self.role_name or '?'}{mates}"


class Requests(Guarded):
    """Shows news at once; keeps the latest get_input for the keyboard to answer. Only its
    own player may speak to it (with proof: the player is its authority)."""

    async def handle(self, msg, body: m.Body) -> None:
        agent: UserInterfaceAgent = self.agent  # type: ignore[assignment]
        if agent.authorities and bare(msg.sender) not in agent.authorities:
            agent.game_log.write("refused", sender=bare(msg.sender),
                                 reason="not this interface's player")
            return
        view = body.view.model_dump() if getattr(body, "view", None) else None
        if isinstance(body, m.News):
            agent.role_name, agent.pack = body.role, list(body.pack)
            if view:
                agent.view, agent.options = view, list(body.options)
            agent.status(role=body.role, pack=list(body.pack), view=view,
                         seconds=body.seconds)
            for record in body.heard:
                agent.console.show(render.heard(record))
            return
        if isinstance(body, m.Cancel):  # the phase ended: nothing to answer any more
            if agent.pending is not None and agent.pending[0].thread == msg.thread:
                agent.pending = None
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
        agent.status(view=view, seconds=body.seconds)
        action = agent.take_queued()
        if action is not None:
            await agent.send_body(self, str(msg.sender.bare), action, msg.thread)
            return
        agent.pending = (msg, body)


class Keyboard(CyclicBehaviour):
    """Reads what the person types and answers the held request with it."""

    async def run(self) -> None:
        agent: UserInterfaceAgent = self.agent  # type: ignore[assignment]
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
        parsed = parse_command(text, agent.options)
        if parsed.error:
            agent.console.show(f"! {parsed.error}")
            if parsed.error.startswith("unknown command"):
                agent.console.show(HELP)
            return
        if parsed.local == "help":
            agent.console.show(HELP)
        elif parsed.local == "who":
            agent.console.show(agent.who())
        elif parsed.local == "role":
            agent.console.show(agent.role())
        elif parsed.local == "quit":
            agent.console.show("You leave the game.")
            agent.quit.set()
            self.kill()
        if parsed.action is None:
            return
        if (agent.view or {}).get("alive") is False:
            agent.console.show("! you are dead: you can watch the game, not act in it")
            return
        if pending is None:
            agent.queued.append((parsed.action, phase_of(agent.view)))
            agent.console.show("(it goes out when it is your turn)")
            return
        agent.pending = None
        msg = pending[0]
        with contextlib.suppress(Exception):
            agent.game_log.write("typed", text=text, action=parsed.action.type)
        await agent.send_body(self, str(msg.sender.bare), parsed.action, msg.thread)
