"""SPADE's private surface, as MAW uses it: what to re-check at a SPADE upgrade (the
reason ``spade==4.1.4`` is pinned). Each item replaces or reads something SPADE does not
offer as its API; at an upgrade, read each one's original in the new SPADE:

- :class:`Client` copies ``spade.xmpp_client.XMPPClient.__init__`` (to give it a TLS
  context that loads no certificates) and replaces ``spade.agent.XMPPClient``; its
  ``session_start`` replaces SPADE's (to retrieve a failed roster request);
- :meth:`SpadeAgent.dispatch` replaces ``Agent.dispatch`` (no trace, no task a message);
- :attr:`SpadeAgent.client` wraps ``Agent.client``'s slot (to connect where the server
  is, whatever the JID's domain);
- :meth:`SpadeAgent._message_received` wraps slixmpp's handler SPADE registers (a bounced
  stanza is news about its recipient, not a message);
- ``traces`` is replaced by a store that keeps nothing (:class:`_NoTraces`);
- :func:`receive` and :class:`FirstIn` read a behaviour's (or its FSM's) ``queue``
  before awaiting;
- :class:`OfTypes` is a ``Template`` whose ``match`` reads the ``type`` metadata;
- :meth:`SpadeAgent.submit` replaces ``Agent.submit`` to keep its behaviours' tasks
  (``end_tasks``);
- :meth:`SpadeAgent.start_on` and :meth:`SpadeAgent.stop_kept` copy
  ``Agent._async_start`` and ``Agent._async_stop`` less the connection (a kept login).

What MAW adds on top (proofs, the rate limit, the typed send) is ``maw.agents.base``;
the behaviours that guard an agent are ``maw.agents.guards``.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import ssl
import time
from collections.abc import Callable, Iterable
from typing import Any

import spade.agent
from slixmpp import ClientXMPP
from spade.agent import Agent
from spade.behaviour import CyclicBehaviour, FSMBehaviour
from spade.message import Message
from spade.template import Template
from spade.trace import TraceStore
from spade.xmpp_client import XMPPClient

log = logging.getLogger("maw.agents")


def unverified_tls() -> ssl.SSLContext:
    """A TLS context that verifies no certificate and loads none (0.1 ms to make)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class Client(XMPPClient):
    """SPADE's XMPP client (``spade.xmpp_client.XMPPClient`` of spade 4.1.4, its
    ``__init__`` given a TLS context), which SPADE's agents of this process make.

    slixmpp makes each client a TLS context and loads the system's certificate authorities
    into it, twice: 43 ms of CPU a client, to verify nothing when SPADE's
    ``verify_security`` is off, as it is for MAW's agents (the server is the game's own,
    its certificate made by it). A game makes 16 clients, a tournament's worker 16 a game.
    So those clients get a context that loads nothing (0.1 ms); a client that verifies
    gets slixmpp's, as before."""

    def __init__(self, jid, password, verify_security, auto_register):
        ClientXMPP.__init__(self, jid, password,
                            ssl_context=None if verify_security else unverified_tls())
        # (from here, what spade 4.1.4's XMPPClient.__init__ does after the same call)
        self.logger = logging.getLogger("spade.Agent")
        self.enable_direct_tls = False
        self.add_event_handler("session_start", self.session_start)
        self.register_plugin("xep_0199")  # ping; its keepalive (maw.hosting.connect.silence)
        if auto_register:  # in-band registration
            self.add_event_handler("register", self.register)
            self.register_plugin("xep_0077")
        self.plugin["xep_0199"].enable_keepalive(interval=55)
        self.register_plugin("xep_0363")

    def session_start(self, event) -> None:
        """SPADE's: the client's presence, then a request for its roster, whose answer
        SPADE never looks at. An error answer (pyjabber's ``internal-server-error`` when
        its roster store fails, as under a fuzz test's load) was then left to the garbage
        collector, which told it to the loop as "Future exception was never retrieved"
        (CI run 57): a person's terminal shows that. It is retrieved and logged here."""
        self.send_presence()
        self.get_roster().add_done_callback(_roster_answered)


def _roster_answered(future: asyncio.Future) -> None:
    """Retrieve a roster request's failure, which no one waits for, and log it."""
    if not future.cancelled() and (error := future.exception()) is not None:
        log.debug("the server did not give a roster: %r", error)


spade.agent.XMPPClient = Client  # (the client Agent._async_start makes)


class OfTypes(Template):
    """A template matching a message whose metadata ``type`` is one of ``types``.

    It matches what SPADE's OR of one template per type matched, with one set lookup:
    SPADE's OR evaluates both of its sides, so every message was matched against every
    type of every behaviour (about 50 template matches a message, 13% of a game's CPU)."""

    def __init__(self, types: Iterable[str]) -> None:
        super().__init__()
        self.types = frozenset(types)

    def match(self, message: Message) -> bool:
        return message.get_metadata("type") in self.types


def of_types(*types: str) -> Template:
    """A template matching any of ``types`` in the metadata."""
    if not types:
        raise ValueError("a template of no types matches nothing")
    return OfTypes(types)


class _NoTraces(TraceStore):
    """SPADE's store of the messages an agent sent, keeping none: MAW does not read it
    (its game log keeps what was sent), and each send stamped the time and moved the 1000
    it held (up to 1000 for each of a 75-player game's 153 agents)."""

    def append(self, event: Message, category: str | None = None) -> None:
        pass


class SpadeAgent(Agent):
    """A SPADE agent with what MAW changes of SPADE's own (see the module docstring).

    ``server_host``, when set, is where the agent connects, whatever its JID's domain: SPADE
    connects to the domain itself, but the server of a domain ``localhost`` may be elsewhere
    (``127.0.0.1``, or the ``ejabberd`` container of the docker demo). It and SPADE's
    ``xmpp_port`` are set as the agent starts (``maw.hosting.connect.start_agents``).
    """

    server_host: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.traces = _NoTraces(0)  # (SPADE's kept each agent's last 1000 messages sent)
        self.last_heard: dict[str, float] = {}  # bare JID -> when it last sent us anything
        self.tasks: set[asyncio.Task] = set()  # its behaviours' (``submit``), while they run

    def submit(self, coro) -> asyncio.Task:
        """SPADE's ``Agent.submit`` (each behaviour's task), keeping the task: a behaviour
        killed at the agent's stop goes on waiting for its next message until its receive
        times out (up to 30 s), and kept the agent, its game and its log alive that long;
        ``end_tasks`` ends them at once."""
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def end_tasks(self) -> None:
        """Cancel what is left of its behaviours (the agent has stopped)."""
        for task in list(self.tasks):
            task.cancel()

    async def start_on(self, client: Any, presence: Any) -> None:
        """Start on ``client``, already logged in as this agent's JID (a worker's kept
        login, ``maw.hosting.logins``), with its ``presence`` manager: SPADE's
        ``Agent._async_start`` less making, connecting and registering a client."""
        Agent.client.__set__(self, client)  # (not the setter: its connect is set already)
        self.presence = presence
        presence.agent = self
        await self._hook_plugin_after_connection()
        await self.setup()
        self._alive.set()
        for behaviour in self.behaviours:
            if not behaviour.is_running:
                behaviour.set_agent(self)
                if isinstance(behaviour, FSMBehaviour):
                    for state in behaviour.get_states().values():
                        state.set_agent(self)
                behaviour.start()

    def stop_kept(self) -> None:
        """Stop, leaving the client logged in (for the next game's agent of this name):
        SPADE's ``Agent._async_stop`` less its disconnect and its presence."""
        for behaviour in self.behaviours:
            behaviour.kill()
        self._alive.clear()

    def admit(self, msg: Message) -> bool:
        """Whether ``msg`` may reach the behaviours (``maw.agents.base``: its proof, its
        sender's rate)."""
        return True

    def dispatch(self, msg: Message) -> list[CyclicBehaviour]:
        """Every message goes through here (from the server or, in one process, from
        SPADE's container). Returns the behaviours that took it, each into its queue at
        once."""
        if not self.admit(msg):
            return []
        # SPADE's Agent.dispatch, less what it does for every message and MAW never reads:
        # a debug line formatted whether or not it is logged, a trace of the message (its
        # behaviour named by formatting it), and two tasks a behaviour to queue it (one to
        # run ``enqueue``, which makes one to ``put`` into a queue that has no bound): a
        # 75-player game queues 400,000 messages, and the order they came in is kept
        taken = [b for b in self.behaviours if b.match(msg)]
        for b in taken:
            b.queue.put_nowait(msg)
        if not taken:
            kind = msg.get_metadata("type")
            # (a refusal nobody takes answers what this agent no longer waits for: a
            # move sent as the phase or the game ended, refused as too late)
            log.log(logging.DEBUG if kind == "refuse" else logging.WARNING,
                    "%s: no behaviour takes a %s from %s", bare(self.jid), kind, bare(msg.sender))
        return taken

    @property
    def client(self):  # noqa: D102 - SPADE's own attribute, kept in its slot
        return Agent.client.__get__(self, Agent)

    @client.setter
    def client(self, value) -> None:
        server = self.server_host
        if value is not None and server:
            connect = value.connect

            def connect_to_server(host=None, port=5222, *args, **kwargs):
                return connect(server, port, *args, **kwargs)

            value.connect = connect_to_server
        Agent.client.__set__(self, value)

    def _message_received(self, msg):
        """A stanza of type ``error`` is the server bouncing one of ours (the recipient is
        offline, or gone): it is news about that recipient, not a message to answer. A
        ``groupchat`` one is a room's (``maw.server.hall``), not a message of the game."""
        if msg["type"] == "error":  # (slixmpp raises "message" for one with a body: both
            # servers bounce a message with its body, so every bounce of MAW's comes here)
            self.bounced_stanza(str(msg["from"].bare), msg["error"]["condition"])
            return []
        if msg["type"] == "groupchat":  # (a multi-user chat room's: never MAW's protocol;
            return []                    # an agent in a room reads it by the room's events)
        self.last_heard[str(msg["from"].bare).lower()] = time.monotonic()
        return super()._message_received(msg)

    def bounced_stanza(self, sender: str, condition: str) -> None:
        """The server bounced a stanza of ours to ``sender`` (``condition``)."""
        self.bounced(sender)

    def bounced(self, jid: str) -> None:
        """``jid`` could not be reached: the server bounced a message to it (either server:
        ``maw.hosting.pyjabber_fixes._patch_pyjabber_offline_messages``)."""


def bare(jid: object) -> str:
    """The bare JID of ``jid`` (a slixmpp JID or a string), lower case."""
    value = getattr(jid, "bare", None)
    if value is not None:
        return str(value).lower()
    return str(jid).partition("/")[0].lower()  # (a string with its resource, too)


async def receive(behaviour: CyclicBehaviour, timeout: float) -> Message | None:
    """``behaviour.receive(timeout)``, without the task and the timer SPADE's makes for
    it (``asyncio.wait_for``) when a message is already waiting: most are, in a large game
    (10% of a 75-player game's time went to waiting for what had come)."""
    get = behaviour.receive  # (an FSM's state receives through its FSM's: its queue)
    queue = getattr(getattr(get, "__self__", behaviour), "queue", None)
    if queue is not None and not queue.empty():
        return queue.get_nowait()
    return await get(timeout=timeout)


class FirstIn:
    """A behaviour's messages with some senders' first: of the messages waiting, those
    ``first`` picks are taken before the others, which keep their order. A room flooded
    by an outsider (at the rate the guards allow) still takes the GameMaster's commands
    at once: behind a backlog, a close or a verdict waited past the host's patience on a
    loaded machine, and the game ended in an error."""

    def __init__(self, first: Callable[[Message], bool]) -> None:
        self.first = first
        self.urgent: collections.deque[Message] = collections.deque()
        self.rest: collections.deque[Message] = collections.deque()

    async def receive(self, behaviour: CyclicBehaviour, timeout: float) -> Message | None:
        get = behaviour.receive
        queue = getattr(getattr(get, "__self__", behaviour), "queue", None)
        while queue is not None and not queue.empty():
            msg = queue.get_nowait()
            (self.urgent if self.first(msg) else self.rest).append(msg)
        if self.urgent:
            return self.urgent.popleft()
        if self.rest:
            return self.rest.popleft()
        return await get(timeout=timeout)
