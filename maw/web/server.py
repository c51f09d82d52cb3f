"""The observer's web server (aiohttp): the page, the live game as server-sent events,
and the archive of past games."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from maw.errors import MawError
from maw.listen import listen
from maw.web.archive import Archive
from maw.web.hall import HallWatch
from maw.web.observer import Observer, Watcher
from maw.web.seats import SeatDesk, SeatLink

STATIC = Path(__file__).resolve().parent / "static"


def web_address(text: str, flag: str = "--web") -> tuple[str, int]:
    """``PORT`` (on the loopback) or ``HOST:PORT`` (``flag``: the option it came from)."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise MawError(f"{flag} {text!r}: give PORT or HOST:PORT (e.g. 8080 or 0.0.0.0:8080)")
    return host or "127.0.0.1", number


MAX_TYPED = 2000  # characters a seat page may send at once (a chat is far shorter)


def make_app(observer: Observer | Callable[[], Observer | None] | None = None,
             archive: Archive | None = None, desk: SeatDesk | None = None,
             standings: Callable[[], list] | None = None,
             live_id: Callable[[], int] | None = None,
             hall: HallWatch | None = None) -> web.Application:
    """The page's routes. ``observer``: the live game's (or a function giving the one to
    show now: a tournament's); ``standings``: a tournament's leaderboard so far; ``hall``:
    a server's games (``maw server --web``: its list, each running game live)."""
    app = web.Application()

    def current() -> Observer | None:
        return observer() if callable(observer) else observer

    streams: set[asyncio.Task] = set()
    app["streams"] = streams

    async def index(_request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html",
                                headers={"Cache-Control": "no-cache"})

    from maw.engine.roles import ROLES

    # each role's side, for the page's colours (it keeps no list of roles of its own)
    sides = {role.name: role.team.value for role in ROLES.values()}

    async def info(_request: web.Request) -> web.Response:
        live = current()
        return web.json_response({
            "roles": sides,
            "live": live is not None or callable(observer), "archive": archive is not None,
            "title": live.title if live else "",
            "spectator_allowed": live.may_spectate() if live else False,
            "tournament": standings is not None,
            # seats kept for people (each by its secret link): what a lobby may wait for
            "people": len(desk.seats) if desk is not None and desk.lobby else 0,
            # a server's Hall (maw server --web): /hall gives a seat there
            "hall": hall is not None and desk is not None and desk.lobby is None,
            "live_id": live_id() if live_id else 0,
            "standings": standings() if standings else None})

    async def events(request: web.Request) -> web.StreamResponse:
        live = current()
        if "game" in request.query:  # (one of a server's running games)
            table = request.query["game"]
            live = hall.observer(int(table)) if hall is not None and table.isdigit() \
                else None
            if live is None:
                raise web.HTTPNotFound(text=f"game {table} is not running here")
        if live is None:
            raise web.HTTPNotFound(text="no live game here (yet)")
        try:
            watcher = live.watch(request.query.get("spectator") == "1")
        except PermissionError as exc:
            raise web.HTTPForbidden(text=str(exc)) from None
        return await stream(request, watcher, live.leave)

    def seat_of(request: web.Request) -> SeatLink:
        seat = desk.get(request.match_info["secret"]) if desk is not None else None
        if seat is None:
            raise web.HTTPNotFound(text="no such seat")
        return seat

    async def take_seat(request: web.Request) -> web.Response:
        """A new seat at the server's Hall, by its own secret link; the page's forms say
        who takes it and what they do first (join a game, or create one)."""
        if desk is None or desk.lobby is not None:
            raise web.HTTPNotFound(text="no Hall here: maw server --web has one")
        try:
            name, typed = hall_form(request.query)
        except MawError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        try:
            seat = desk.open_seat(name, typed)
        except ValueError as exc:
            raise web.HTTPServiceUnavailable(text=str(exc)) from None
        raise web.HTTPFound(f"/seat/{seat.secret}")

    async def hall_list(_request: web.Request) -> web.Response:
        if hall is None:
            raise web.HTTPNotFound(text="no Hall here: maw server --web has one")
        from maw.engine.rulesets import RULESETS
        from maw.server.tables import fills

        return web.json_response({"tables": hall.tables(), "rulesets": list(RULESETS),
                                  "fills": list(fills())})

    async def seat_page(request: web.Request) -> web.FileResponse:
        seat_of(request)
        return web.FileResponse(STATIC / "seat.html", headers={"Cache-Control": "no-cache"})

    async def seat_events(request: web.Request) -> web.StreamResponse:
        seat = seat_of(request)
        assert desk is not None
        desk.claim(seat)
        return await stream(request, seat.console.watch(), seat.console.watchers.discard)

    async def seat_say(request: web.Request) -> web.Response:
        seat = seat_of(request)
        if seat.task is None:
            raise web.HTTPConflict(text="open the seat's page first")
        try:
            text = (await request.json())["text"]
        except (ValueError, KeyError, TypeError):
            raise web.HTTPBadRequest(text='send {"text": "..."}') from None
        if not isinstance(text, str) or len(text) > MAX_TYPED:
            raise web.HTTPBadRequest(text=f"text: a string of at most {MAX_TYPED} characters")
        seat.console.type(text)
        return web.Response(status=204)

    async def stream(request: web.Request, watcher: Watcher, leave) -> web.StreamResponse:
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        task = asyncio.current_task()
        if task is not None:
            streams.add(task)
        try:
            while (item := await watcher.queue.get()) is not None:
                await response.write(item)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            leave(watcher)
            if task is not None:
                streams.discard(task)
        return response

    async def games(_request: web.Request) -> web.Response:
        if archive is None:
            return web.json_response({"games": []})
        return web.json_response({"games": [g.as_dict() for g in archive.games()]})

    async def game(request: web.Request) -> web.Response:
        if archive is None:
            raise web.HTTPNotFound(text="no archive here")
        try:
            records = archive.records(request.match_info["id"])
        except KeyError:
            raise web.HTTPNotFound(text="no such game") from None
        return web.json_response({"records": records})

    async def favicon(_request: web.Request) -> web.Response:
        return web.Response(status=204)

    app.router.add_get("/", index)
    app.router.add_get("/favicon.ico", favicon)
    app.router.add_get("/api/info", info)
    app.router.add_get("/events", events)
    app.router.add_get("/api/games", games)
    app.router.add_get("/api/games/{id:.+}", game)
    app.router.add_get("/hall", take_seat)
    app.router.add_get("/api/hall", hall_list)
    app.router.add_get("/seat/{secret}", seat_page)
    app.router.add_get("/seat/{secret}/events", seat_events)
    app.router.add_post("/seat/{secret}/say", seat_say)
    app.router.add_static("/static/", STATIC)
    return app


def hall_form(query) -> tuple[str | None, list[str]]:
    """Who fills in the Hall page's forms, and what they typed, in effect: ``/join ID``
    (and ``/ready ID``) or ``/create ...``; no name, nothing typed (the seat asks for it).
    ``MawError`` (one line) for a bad field."""
    from maw.protocol.messages import check_name

    name = query.get("name", "").strip()
    if not name:
        return None, []
    name = check_name(name)
    typed = []
    if query.get("join"):
        game = query["join"]
        if not game.isdigit():
            raise MawError(f"join: a game's number, not {game!r}")
        typed.append(f"/join {game}")
        if query.get("ready"):
            typed.append(f"/ready {game}")
    elif query.get("create"):
        words = ["/create"]
        for key in ("ruleset", "players"):
            if query.get(key):
                words.append(query[key])
        for key in ("fill", "day", "night", "wait", "aiwolf"):
            if query.get(key) and query[key] != "0":
                words.append(f"{key}={query[key]}")
        if any(not w.replace("=", "").replace(".", "").replace("-", "").isalnum()
               for w in words[1:]):
            raise MawError("create: letters, digits and key=value only")
        typed.append(" ".join(words))
    return name, typed


class WebServer:
    """The app on ``host:port``, started and stopped on the running loop."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self.runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    async def start(self) -> None:
        self.runner = await listen(self.app, self.host, self.port, "the web observer",
                                   access_log=None)

    async def stop(self, drain: float = 3.0) -> None:
        """Let the streams send what they hold (the game's end), then stop."""
        streams = self.app["streams"]
        if streams:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.gather(*streams, return_exceptions=True),
                                       drain)
        if self.runner is not None:
            await self.runner.cleanup()
