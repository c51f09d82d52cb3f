"""A person at a server's Hall (``maw play`` with no ``--lobby``): the list of games,
``/create``, ``/join``, ``/leave``, ``/ready``; when the person's game starts, its lobby
and the name to join it with (``maw.hosting.players.run_person`` then plays it).

The console is the game's own (``maw.terminal.screen``: a terminal, or plain lines)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from typing import Any

from spade.message import Message

from maw.agents.base import MawAgent
from maw.agents.guards import Guarded
from maw.agents.toolkit import cancel_and_wait
from maw.agents.transport import bare, of_types
from maw.errors import MawError
from maw.hosting.connect import bind_container, check_server, start_agents, stop_agents
from maw.hosting.xmpp import Address
from maw.protocol import messages as m
from maw.protocol.messages import Body, check_name
from maw.server.hall import hall_jid
from maw.server.tables import listing

ANSWERS = ("games", "refuse", "game_starts", "not_understood")
FIRST_ANSWER = 3.0  # seconds before the person is told the Hall is slow to answer
HALL_WAIT = 20.0  # seconds in all a Hall has to answer before the server is taken for one
# without (a loaded machine took over 3 s, and the person was sent to a lobby by mistake)
BOUNCES = 2  # requests the server bounces (no Hall online) before it is taken for one without
BOUNCE_AGAIN = 1.0  # seconds before asking again after a bounce (a Hall that is starting)

HELP = """At the Hall:
  /games                         the list again
  /create [RULESET] [PLAYERS] [fill=rule|random] [day=S] [night=S] [wait=S] [aiwolf=K]
                                 open a game and sit at it (AI players of fill take the
                                 seats nobody takes when its wait is over; aiwolf=K
                                 keeps K seats for AIWolf agents: maw aiwolf-client
                                 --game ID)
  /join ID                       sit at game ID
  /leave ID                      stand up from game ID
  /ready, /unready               say you are (not) ready: a game starts when everyone
                                 seated is, or when its wait is over
  /quit                          leave"""


class NoHall(MawError):
    """No Hall answers at a server (``maw play`` joins its lobby ``main`` instead)."""


# what ``heard`` gets when the server bounces a request to the Hall (no Hall online)
NO_HALL = m.NotUnderstood(reason="the Hall is not online: the server bounced the request")


class Hears(Guarded):
    async def handle(self, msg: Message, body: Body) -> None:
        agent: HallClient = self.agent
        if bare(msg.sender) == agent.hall:
            agent.heard.put_nowait(body)


class HallClient(MawAgent):
    """The person's agent at the Hall: what the Hall says comes out of ``heard``."""

    def __init__(self, jid: str, password: str, hall: str) -> None:
        super().__init__(jid, password)
        self.hall = hall
        self.heard: asyncio.Queue[Body] = asyncio.Queue()
        self.hears = Hears()

    async def setup(self) -> None:
        # the Hall follows this client's presence (to free its seat if it goes); nobody else
        self.presence.on_subscribe = self._asked
        self.add_behaviour(self.hears, of_types(*ANSWERS))
        self.add_catch_all(ANSWERS)

    def _asked(self, jid: str) -> None:
        if bare(jid) == self.hall:
            self.presence.approve_subscription(bare(jid))

    def bounced(self, jid: str) -> None:
        """The server bounced a request to the Hall: no Hall is online there (a ``maw
        game`` host has none). Either server says so at once (neither keeps messages)."""
        if bare(jid) == self.hall:
            self.heard.put_nowait(NO_HALL)

    async def ask(self, body: Body) -> None:
        await self.send_body(self.hears, self.hall, body)


def command(line: str, name: str, mine: int | None) -> Body | str:
    """A typed line as a request to the Hall, or what to show instead (a ``str``)."""
    words = line.split()
    head, rest = (words[0].lower(), words[1:]) if words else ("", [])
    if head in ("/games", "/list"):
        return m.ListGames()
    if head == "/create":
        args: dict[str, Any] = {"player_name": name}
        for word in rest:
            key, eq, value = word.partition("=")
            try:
                if eq and key in ("day", "night", "wait"):
                    args[f"{key}_seconds"] = float(value)
                elif eq and key == "aiwolf":
                    if not value.isdigit():
                        return f"{word!r}: aiwolf takes a number of seats"
                    args["aiwolf"] = int(value)
                elif eq and key == "fill":
                    args["fill"] = value
                elif word.isdigit():
                    args["players"] = int(word)
                elif not eq:
                    args["ruleset"] = word
                else:
                    return f"unknown option {word!r}: see /help"
            except ValueError:
                return f"{word!r}: {key} takes a number of seconds"
        return m.CreateGame(**args)
    if head in ("/join", "/leave"):
        if len(rest) != 1 or not rest[0].isdigit():
            return f"{head} takes a game's number: {head} 1"
        game = int(rest[0])
        return m.JoinGame(game=game, player_name=name) if head == "/join" else \
            m.LeaveGame(game=game)
    if head in ("/ready", "/unready"):
        table = int(rest[0]) if rest and rest[0].isdigit() else mine
        if table is None:
            return "you sit at no game: /join one first"
        return m.TableReady(game=table, ready=head == "/ready")
    if head in ("/help", "/?"):
        return HELP
    return f"unknown command {line.strip()!r} (this is the Hall: /help)"


async def connected(address: Address) -> HallClient:
    """A new client of the Hall of the server at ``address``, logged in."""
    bind_container()
    check_server(address)
    client = HallClient(f"maw-hallclient-{secrets.token_hex(4)}@{address.domain}",
                        secrets.token_hex(8), hall_jid(address.domain))
    await start_agents([client], address)
    return client


async def drop_in(address: Address, console, name: str | None) -> tuple[str, str] | None:
    """The person at the server's Hall until their game starts: its lobby and their name
    there; ``None`` if they quit. ``NoHall`` if no Hall answers (a server without one:
    the caller joins a lobby instead)."""
    client = await connected(address)
    try:
        first = await _first_answer(client, address, console.show)
        while name is None:
            console.show("Your name?")
            typed = await console.read()
            if typed is None or typed.strip() == "/quit":
                return None
            try:
                name = check_name(typed.strip())
            except MawError as exc:
                console.show(str(exc))
        update = getattr(console, "update", None)
        if update is not None:  # (a terminal's status bar, a seat page's name)
            update(name=name)
        console.show(f"Welcome to the Hall, {name}. /help for what you can do here.")
        return await _at_the_hall(client, console, name, first)
    finally:
        await stop_agents([client])


async def _first_answer(client: HallClient, address: Address,
                        say: Callable[[str], None] = lambda line: None) -> Body:
    """The Hall's answer to the list of games, asked by ``client``: asked again every
    ``FIRST_ANSWER`` seconds, the wait told (``say``) once; ``NoHall`` if none comes in
    ``HALL_WAIT`` seconds, or as soon as the server has bounced ``BOUNCES`` requests, a
    second apart (no Hall is online there: a ``maw game`` host; once could be a ``maw
    server`` whose Hall is still logging in). (A request or an answer can be lost on the
    way, and asking again costs nothing. The answers CI runs 92 and on 716627d lost were
    the embedded server's fault, fixed there: a failed roster write had ended its routing
    of all the Hall's stanzas, ``maw.hosting.pyjabber_fixes._patch_pyjabber_stanza_failures``.)
    """
    loop = asyncio.get_running_loop()
    end = loop.time() + HALL_WAIT
    told = False
    bounced = 0
    await client.ask(m.ListGames())
    while (left := end - loop.time()) > 0:
        try:
            answer = await asyncio.wait_for(client.heard.get(), min(FIRST_ANSWER, left))
        except asyncio.TimeoutError:
            pass
        else:
            if answer is not NO_HALL:
                return answer
            bounced += 1
            if bounced >= BOUNCES:
                raise NoHall(f"no Hall answers at {address.host}:{address.port} (the server "
                             "has none)")
            await asyncio.sleep(min(BOUNCE_AGAIN, max(0.0, end - loop.time())))
            await client.ask(m.ListGames())
            continue
        if not told:
            say(f"(waiting for the Hall at {address.host}:{address.port} to "
                f"answer, up to {HALL_WAIT - FIRST_ANSWER:.0f} s more)")
            told = True
        await client.ask(m.ListGames())
    raise NoHall(f"no Hall answers at {address.host}:{address.port}")


async def take_seat(address: Address, game: int, name: str, wait: float = 600.0,
                    say=lambda line: None) -> str:
    """An AI player sent into a server's game (``maw player --game ID``): sit at table
    ``game`` as ``name``, say it is ready, and wait (up to ``wait`` seconds) for the game
    to start; its lobby, to join as ``name``. ``MawError`` (one line) if the Hall refuses
    or never answers."""
    client = await connected(address)
    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    try:
        for ask in (m.JoinGame(game=game, player_name=name),
                    m.TableReady(game=game, ready=True)):
            await client.ask(ask)
            try:
                answer = await asyncio.wait_for(client.heard.get(), HALL_WAIT)
            except asyncio.TimeoutError:
                raise NoHall(f"no Hall answers at {address.host}:{address.port}") from None
            if answer is NO_HALL:
                raise NoHall(f"no Hall answers at {address.host}:{address.port} (the server "
                             "has none)")
            if isinstance(answer, m.Refuse | m.NotUnderstood):
                raise MawError(f"the Hall refused: {answer.reason}")
            if isinstance(answer, m.GameStarts):
                return answer.lobby
        say(f"{name} sits at game {game}, ready")
        while (left := end - loop.time()) > 0:
            try:
                heard = await asyncio.wait_for(client.heard.get(), left)
            except asyncio.TimeoutError:
                break
            if isinstance(heard, m.GameStarts) and heard.game == game:
                return heard.lobby
            if heard is NO_HALL:
                raise MawError(f"the Hall at {address.host}:{address.port} is gone")
            if isinstance(heard, m.Games) and any(
                    t.id == game and t.state not in ("open", "running") for t in heard.tables):
                raise MawError(f"game {game} ended before it started")
        raise MawError(f"game {game} did not start in {wait:.0f} s")
    finally:
        await stop_agents([client])


async def aiwolf_url(address: Address, game: int) -> str:
    """Where AIWolf agents connect to take game ``game``'s seats for them, asked of the
    Hall of the server at ``address`` (``maw aiwolf-client --game``); ``MawError``, one
    line, if it has none open."""
    client = await connected(address)
    try:
        answer = await _first_answer(client, address)  # (asked again if lost, as a person's)
        table = next((t for t in getattr(answer, "tables", []) if t.id == game), None)
        if table is None:
            raise MawError(f"there is no game {game}")
        if not table.aiwolf:
            raise MawError(f"game {game} has no seats for AIWolf agents (/create it with "
                           "aiwolf=K)")
        if table.state != "open" or not table.aiwolf_url:
            raise MawError(f"game {game} is {table.state}: its AIWolf seats are closed")
        return table.aiwolf_url
    finally:
        await stop_agents([client])


async def _at_the_hall(client: HallClient, console, name: str,
                       first: Body) -> tuple[str, str] | None:
    mine: int | None = None
    pending: Body | None = first
    reading: asyncio.Task | None = None
    hearing: asyncio.Task | None = None
    try:
        while True:
            if pending is not None:
                body, pending = pending, None
                if isinstance(body, m.Games):
                    if body.note:
                        console.show(f"* {body.note}")
                    for line in listing(body.tables):
                        console.show(line)
                    mine = next((t.id for t in body.tables if t.state == "open"
                                 and name in t.people), None)
                elif isinstance(body, m.GameStarts):
                    console.show(f"Game {body.game} starts: joining it as {body.player_name}")
                    return body.lobby, body.player_name
                elif body is NO_HALL:
                    console.show("The Hall is not online now (it stopped?): /quit to leave")
                elif isinstance(body, (m.Refuse, m.NotUnderstood)):
                    console.show(f"Refused: {body.reason}")
                continue
            reading = reading or asyncio.ensure_future(console.read())
            hearing = hearing or asyncio.ensure_future(client.heard.get())
            done, _ = await asyncio.wait({reading, hearing},
                                         return_when=asyncio.FIRST_COMPLETED)
            if hearing in done:
                pending, hearing = hearing.result(), None
                continue
            typed, reading = reading.result(), None
            if typed is None or typed.strip() in ("/quit", "/exit"):
                return None
            if not typed.strip():
                continue
            what = command(typed, name, mine)
            if isinstance(what, str):
                console.show(what)
            else:
                await client.ask(what)
    finally:
        if any(t is not None and not t.done() for t in (reading, hearing)):
            _stop_reading(console)
        await cancel_and_wait(reading, hearing)


def _stop_reading(console) -> None:
    """End a prompt the terminal is showing (the game's own screen comes next)."""
    session = getattr(console, "session", None)
    app = getattr(session, "app", None)
    if app is not None and app.is_running:
        with contextlib.suppress(Exception):
            app.exit(result="")
