"""Hosting the observer: beside a live game (``maw game --web``), or over an archive of
logs (``maw web LOGDIR``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from maw.errors import MawError
from maw.hosting.xmpp import Address
from maw.web.archive import Archive
from maw.web.follow import TournamentWatch
from maw.web.hall import HallWatch
from maw.web.observer import Observer
from maw.web.seats import SeatDesk
from maw.web.server import WebServer, make_app, web_address

T = TypeVar("T")


async def watched(game: Callable[[Callable[[dict], None]], Awaitable[T]], where: str,
                  spectator: bool = False, title: str = "",
                  say: Callable[[str], None] = print,
                  archive: Path | None = None, seats: int = 0,
                  address: Address | None = None, lobby: str | None = None,
                  after: Callable[[T], None] | None = None,
                  linger: float | None = None) -> T:
    """Run ``game`` (given the observer's record listener) with the page served on
    ``where``; when it ends, every watcher is shown the rest of the game. ``seats`` people
    may take a seat of ``lobby`` on the XMPP server at ``address`` from the browser, each
    by its own secret link. With ``after``, it is given the game's result, and the page
    stays up (the finished game, to replay) until the task is cancelled (Ctrl-C), or for
    ``linger`` seconds; else the server stops with the game."""
    host, port = web_address(where)
    observer = Observer(spectator, title)
    folder = None
    if archive is not None:  # (the game's log goes there: its replay is in the archive)
        archive.mkdir(parents=True, exist_ok=True)
        folder = Archive(archive)
    desk = None
    if seats:
        if address is None or lobby is None:
            raise MawError("browser seats need the game's server and lobby")
        desk = SeatDesk(seats, address, lobby)
    server = WebServer(make_app(observer, folder, desk), host, port)
    await server.start()
    say(f"web observer: {server.url}"
        + (" (the spectator switch shows roles and minds)" if spectator else
           " (roles and minds show when the game is over; --web-spectator shows them live)"))
    if desk is not None:
        say(f"  {seats} seat(s) for people in the browser, one link each (keep it secret):")
        for secret in desk.seats:
            say(f"    {server.url}seat/{secret}")
    result = None
    try:
        try:
            result = await game(observer.feed)
        except Exception as exc:  # the page says why there is no game
            observer.end(why=str(exc))
            raise
        finally:
            if not observer.over:  # (the game ended, or was interrupted)
                observer.end(replay=_replay_id(folder, result))
            if desk is not None:
                await asyncio.sleep(0.5)  # (the seats' players take the final scores)
                await desk.stop()
        if after is not None:
            after(result)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # a Ctrl-C came as the game ended, and something on the game's way out
                # ate it: it closes the page now, as it would have a moment later
                raise asyncio.CancelledError
            if linger is not None:
                if linger > 0:
                    say(f"the game is over; its page stays up at {server.url} for "
                        f"{linger:.0f} s to replay it")
                    await asyncio.sleep(linger)
                return result
            say(f"the game is over; its page stays up at {server.url} to replay it "
                "(Ctrl-C stops)")
            await asyncio.Event().wait()
        return result
    finally:
        await server.stop()


def _replay_id(folder: Archive | None, result: object) -> str | None:
    """The game's id in the archive the page serves (its log's path under the folder)."""
    path = getattr(result, "log_path", None)
    if folder is None or path is None:
        return None
    try:
        return Path(path).resolve().relative_to(folder.folder).as_posix()
    except ValueError:
        return None


async def serve_archive(folder: Path, where: str, say: Callable[[str], None] = print) -> None:
    """Serve the games under ``folder`` for replay until interrupted."""
    archive = Archive(folder)
    host, port = web_address(where)
    server = WebServer(make_app(None, archive), host, port)
    await server.start()
    say(f"maw web: {len(archive.games())} game(s) in {folder}; open {server.url} "
        "(Ctrl-C stops)")
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop(drain=0)


async def hall_site(address: Address, folder: Path, where: str, watch: HallWatch,
                    say: Callable[[str], None] = print) -> WebServer:
    """The page of a server that hosts games (``maw server --web``): its games as they
    change (``watch``, which the server tells), with forms to create and join them,
    each running game live, and the archive of past games; ``/hall`` gives whoever opens
    it a seat at the Hall in the browser (the list, /create, /join, /ready; then the
    game). Started; the caller stops it."""
    folder.mkdir(parents=True, exist_ok=True)
    host, port = web_address(where)
    server = WebServer(make_app(None, Archive(folder), SeatDesk(0, address, None),
                                hall=watch), host, port)
    await server.start()
    say(f"maw server: its page is {server.url} (the games, to join or watch; past games)")
    return server


async def watched_tournament(run: Callable[[TournamentWatch], Awaitable[T]], where: str,
                             games: int, results, log_dir: Path, spectator: bool = False,
                             say: Callable[[str], None] = print) -> T:
    """Run a tournament (``run`` given the watch the runner tells of each game) with the
    page served on ``where``: the game started last, live; the standings; past games."""
    host, port = web_address(where)
    watch = TournamentWatch(spectator, games)
    log_dir.mkdir(parents=True, exist_ok=True)
    app = make_app(lambda: watch.live, Archive(log_dir), standings=results.standings,
                   live_id=lambda: watch.live_id)
    server = WebServer(app, host, port)
    await server.start()
    say(f"web observer: {server.url} (the game started last, live; the standings; "
        "past games to replay)")
    try:
        return await run(watch)
    finally:
        await watch.stop()
        await server.stop()
