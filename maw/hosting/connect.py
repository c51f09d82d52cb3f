"""Starting and stopping agents on an XMPP server, with the retries a stalled handshake
needs."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import time
from collections.abc import Callable, Sequence

from spade.agent import DisconnectedException
from spade.container import Container

from maw.agents.base import MawAgent
from maw.errors import MawError
from maw.hosting.logins import Logins
from maw.hosting.xmpp import Address, quiet_logs


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether a TCP connection to ``host:port`` is accepted within ``timeout`` seconds (a
    port nobody listens on is refused at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        return s.connect_ex((host if host != "localhost" else "127.0.0.1", port)) == 0


def bind_container() -> None:
    """SPADE's container is a process-wide singleton bound to one event loop: rebind it
    when this game runs in another (a second game, a test)."""
    container = Container()
    loop = asyncio.get_running_loop()
    if container.loop is not loop:
        container.reset()
    # SPADE's container puts in uvloop's policy, whose child watcher this loop (not a
    # uvloop one) cannot use: a subprocess started afterwards (a tournament's worker)
    # failed with NotImplementedError
    policy = type(asyncio.get_event_loop_policy()).__module__
    if policy.startswith("uvloop") and not type(loop).__module__.startswith("uvloop"):
        asyncio.set_event_loop_policy(None)
    quiet_logs()


# seconds allowed to each attempt: a connection normally takes well under a second, but
# under load (75 players registering at once) PBKDF2 hashing on the server queues up
CONNECT_TRIES = (4.0, 6.0, 10.0, 15.0, 25.0, 40.0)


async def connect_agent(agent: MawAgent) -> None:
    """Start ``agent``; retry when its stream stalls. pyjabber loses the TLS handshake of a
    client now and then when several connect at once from other processes (it answers
    <proceed> but never completes the handshake), and SPADE would wait forever."""
    for i, seconds in enumerate(CONNECT_TRIES):
        try:
            await asyncio.wait_for(agent.start(auto_register=True), seconds)
            return
        except (asyncio.TimeoutError, DisconnectedException) as exc:
            agent.game_log.write("connect_retry", agent=str(agent.jid), attempt=i + 1,
                                 error=type(exc).__name__)
            stalled = agent.client
            silence(stalled)
            with contextlib.suppress(Exception):
                stalled.abort()
            # SPADE's attempt, cancelled, left its three waiters pending (connected,
            # disconnected, failed_auth): they end now, or the process's exit says "Task
            # was destroyed but it is pending!" for each (a loaded machine's flood test)
            for name in ("connected_event", "disconnected_event", "failed_auth_event"):
                event = getattr(stalled, name, None)
                if isinstance(event, asyncio.Event):
                    event.set()
            # SPADE's handlers look up agent.client when they fire: let the stalled
            # client's "disconnected" fire now, not during the next attempt; and do not
            # come back in step with the others that stalled
            await asyncio.sleep(0.2 + random.random())
    raise MawError(f"{agent.jid} could not connect in {len(CONNECT_TRIES)} attempts "
                   f"({sum(CONNECT_TRIES):.0f} s)")


# agents that log in at the same time: each login costs the server a PBKDF2 hash, and the
# embedded server runs in the game's own process; 75 at once starved the event loop and
# every login timed out, retried and timed out again (405 retries, no game)
CONNECTING_AT_ONCE = 8


async def start_agents(agents: Sequence[MawAgent], address: Address,
                       logins: Logins | None = None) -> None:
    """Connect ``agents``, ``CONNECTING_AT_ONCE`` at a time. One that cannot connect
    fails the start, once every other attempt has ended (none is cancelled half-way
    through a handshake, and no task is left running to die noisily at shutdown).
    With ``logins``, an agent whose name is logged in already starts on that login, and
    the others' new logins are kept (``maw.hosting.logins``)."""
    for a in agents:  # (where each connects is given here, not where it is made)
        a.server_host, a.xmpp_port = address.host, address.port
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    fresh: list[MawAgent] = []

    async def one(agent: MawAgent) -> None:
        kept = logins.take(agent) if logins is not None else None
        if kept is not None:
            await agent.start_on(kept.client, kept.presence)
            return
        async with gate:
            await connect_agent(agent)
        fresh.append(agent)
        if logins is not None:
            logins.keep(agent)
    results = await asyncio.gather(*(one(a) for a in agents), return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        raise failed[0]
    for a in fresh:
        a.presence.set_available()  # pyjabber drops messages to a JID without it


class ConnectionWatch:
    """``lost`` is set when any watched agent loses its connection to the server (the
    stream closes: a killed server is noticed at once, a silent one by the keepalive
    pings), and the loss is logged once per agent (``server_lost``). Watch after the
    agents connected; ``stop`` before they stop (their own disconnect is no loss)."""

    def __init__(self, agents: Sequence[MawAgent],
                 on_lost: Callable[[], None] | None = None) -> None:
        self.lost = asyncio.Event()
        self.on_lost = on_lost  # called once, at the first loss
        self.active = True
        self.who: list[str] = []
        self.handlers = [(a.client, lambda _event, agent=a: self._gone(agent)) for a in agents]
        for client, handler in self.handlers:
            client.add_event_handler("disconnected", handler)

    def note(self, agent: MawAgent) -> None:
        """``agent`` was found disconnected (not told by its client)."""
        self._gone(agent)

    def _gone(self, agent: MawAgent) -> None:
        if not self.active:
            return
        jid = str(agent.jid.bare)
        if jid not in self.who:
            self.who.append(jid)
            agent.game_log.write("server_lost", agent=jid)
        if not self.lost.is_set() and self.on_lost is not None:
            self.on_lost()
        self.lost.set()

    def stop(self) -> None:
        self.active = False

    def close(self) -> None:
        """Stop, and take the watch off the clients (a kept login outlives its game)."""
        self.stop()
        for client, handler in self.handlers:
            client.del_event_handler("disconnected", handler)
        self.handlers = []

    def rearm(self) -> None:
        """Watch again (the agents reconnected): the next loss is news."""
        self.who.clear()
        self.lost.clear()
        self.active = True


# seconds between reconnection attempts: quick at first, then every 4 s
BACKOFF = (0.5, 1.0, 2.0, 4.0)


RECONNECT_SECONDS = 60.0  # how long a host tries to reach a server that went away


async def keep_connected(connection: ConnectionWatch, agents: Sequence[MawAgent],
                         address: Address, say: Callable[[str], None] | None,
                         back: Callable[[], None]) -> None:
    """Each time the server goes away: connect every agent again (with back-off, for
    ``RECONNECT_SECONDS``), then call ``back``; the players who joined from elsewhere
    rejoin their seats themselves."""
    while True:
        while not connection.lost.is_set():
            # (a server shutting down closes its streams one by one: an agent that
            # reconnected to it as it went may drop later, silently)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(connection.lost.wait(), 2.0)
            dropped = next((a for a in agents if not a.client.is_connected()), None)
            if dropped is not None:
                connection.note(dropped)
        connection.stop()
        t0 = time.monotonic()
        if not await reconnect(agents, address, RECONNECT_SECONDS):
            if say is not None:
                say(f"could not reach the XMPP server at {address.host}:{address.port} "
                    f"again in {RECONNECT_SECONDS:.0f} s: the players who joined from "
                    "elsewhere are lost")
            return
        connection.rearm()
        back()
        if say is not None:
            say(f"reconnected to the XMPP server at {address.host}:{address.port} after "
                f"{time.monotonic() - t0:.1f} s")


async def reconnect(agents: Sequence[MawAgent], address: Address, within: float) -> bool:
    """Connect ``agents`` again after their server went away, trying for ``within``
    seconds with back-off (the server may be restarting); their behaviours never
    stopped. A server that lost its accounts (the embedded one keeps them in memory) is
    registered with again. True once every agent is back."""
    end = asyncio.get_running_loop().time() + within
    attempt = 0
    while (left := end - asyncio.get_running_loop().time()) > 0:
        if port_open(address.host, address.port):
            try:
                await asyncio.gather(*(_resume(a, address, min(20.0, left)) for a in agents))
                for a in agents:
                    a.presence.set_available()
                    a.game_log.write("reconnected", agent=str(a.jid.bare), attempt=attempt + 1)
                return True
            except (asyncio.TimeoutError, OSError):
                for a in agents:
                    with contextlib.suppress(Exception):
                        a.client.abort()
        await asyncio.sleep(min(BACKOFF[min(attempt, len(BACKOFF) - 1)],
                                max(0.0, end - asyncio.get_running_loop().time())))
        attempt += 1
    return False


async def _resume(agent: MawAgent, address: Address, timeout: float) -> None:
    """Connect ``agent`` again within ``timeout``: an attempt that stalls (pyjabber loses
    a handshake now and then when many connect at once, as a whole host does after a
    restart) is aborted and tried again after 3 s, as at the start."""
    end = asyncio.get_running_loop().time() + timeout
    while not agent.client.is_connected():
        left = end - asyncio.get_running_loop().time()
        if left <= 0:
            raise asyncio.TimeoutError
        started = asyncio.Event()

        def up(_event, started=started) -> None:
            started.set()

        agent.client.add_event_handler("session_start", up)
        try:
            agent.client.connect(address.host, address.port)
            await asyncio.wait_for(started.wait(), min(3.0, left))
            return
        except asyncio.TimeoutError:
            with contextlib.suppress(Exception):
                agent.client.abort()
            await asyncio.sleep(0.1 + 0.4 * random.random())
        finally:
            agent.client.del_event_handler("session_start", up)


def silence(client) -> None:
    """Stop ``client``'s keepalive ping. SPADE turns it on when it makes the client, and
    nothing turns it off: 55 s later the ping of a client long disconnected times out,
    and slixmpp reconnects it (a long-lived tournament worker piled up every game's
    agents on the server until ejabberd ran out of file descriptors)."""
    with contextlib.suppress(Exception):
        client.plugin["xep_0199"].disable_keepalive()


def end_filters(client) -> None:
    """Cancel a stopped client's outgoing-stanza loop (slixmpp's ``run_filters``, which
    never ends by itself), for ``_cancelled_end`` to wait for. Left running, it was
    cancelled only when the client was garbage collected, with the task then collected
    pending: "Task was destroyed but it is pending!", which a person's terminal
    (prompt_toolkit) showed as an unhandled exception that ate their next line."""
    task = getattr(client, "_run_out_filters", None)
    if task is not None and not task.done():
        task.cancel()


# agents stopping at once: each waits for the server to close its stream (about 0.1 s on
# ejabberd), and one after the other a 75-player game's 151 agents took 19 s to stop
STOPPING_AT_ONCE = 32


async def stop_agents(agents: Sequence[MawAgent], logins: Logins | None = None) -> None:
    """Stop ``agents``, ``STOPPING_AT_ONCE`` at a time; one that fails to stop does not
    keep the others from stopping. An agent on one of ``logins`` stops and leaves its
    login for the next game."""
    gate = asyncio.Semaphore(STOPPING_AT_ONCE)
    # (tasks already being cancelled are not this stop's to wait for: the main task, on
    # Ctrl-C, which may be waiting for this very stop; it kept a seat 5 s)
    already = {t for t in asyncio.all_tasks() if t.cancelling()}

    async def one(agent: MawAgent) -> None:
        if logins is not None and logins.release(agent):
            agent.stop_kept()
            return
        async with gate:
            if agent.client is not None:
                silence(agent.client)
            with contextlib.suppress(Exception):
                await agent.stop()
            end_filters(agent.client)
    await asyncio.gather(*(one(a) for a in agents))
    forget(agents)
    await _cancelled_end(already)


def forget(agents: Sequence[MawAgent]) -> None:
    """End what is left of stopped ``agents``' behaviours and take them out of SPADE's
    container, which keeps every agent made in the process until it ends: each held the
    agent, its game and its log (a long-running host, ``maw server``, grew by about 3 MB a
    game). An agent whose name another has taken since (a kept login's next game) is that
    other's now, and stays."""
    container = Container()
    for agent in agents:
        agent.end_tasks()  # (its killed behaviours, still waiting for a message)
        jid = str(agent.jid)
        if container.has_agent(jid) and container.get_agent(jid) is agent:
            container.unregister(jid)


async def _cancelled_end(before: set[asyncio.Task] | frozenset = frozenset(),
                         seconds: float = 5.0) -> None:
    """Let the tasks being cancelled (a stopped client's stream filters) end before the
    caller goes on, and perhaps closes the loop: on a loaded machine they had not had
    their turn yet, and the closing loop printed "Task was destroyed but it is
    pending!". Tasks in ``before`` were being cancelled already, by others."""
    loop = asyncio.get_running_loop()
    mine = asyncio.current_task()
    end = loop.time() + seconds
    while loop.time() < end:
        left = [t for t in asyncio.all_tasks() if t is not mine and not t.done()
                and t.cancelling() and t not in before]
        if not left:
            return
        await asyncio.wait(left, timeout=0.5)


def check_server(address: Address) -> None:
    if address.embedded:
        return
    try:
        # (a server busy accepting others may drop the first try: the kernel tries
        # again after 1 s, then 3 s; nobody listening is refused at once)
        answers = port_open(address.host, address.port, timeout=5.0)
    except OSError as exc:  # (socket.gaierror: no such host)
        raise MawError(f"cannot reach the XMPP server at {address.host}:{address.port}: "
                       f"{exc.strerror or exc}") from None
    if not answers:
        raise MawError(f"no XMPP server answers at {address.host}:{address.port}")
