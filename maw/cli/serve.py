"""The commands that serve: ``maw web`` (the archive of past games in a web page) and
``maw server`` (the embedded XMPP server on its own)."""

from __future__ import annotations

import argparse

from maw.cli.options import add_web, command


def add_web_command(sub) -> None:
    p = command(sub, "web", "browse and replay past games in a web page")
    p.add_argument("logdir", metavar="LOGDIR",
                   help="a folder of game logs (maw game's logs/), searched in depth")
    add_web(p, "where to serve the page (127.0.0.1 unless HOST)", default="8080")
    p.set_defaults(func=cmd_web)


def cmd_web(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.web.host import serve_archive

    try:
        asyncio.run(serve_archive(Path(args.logdir), args.web,
                                  say=lambda line: print(line, flush=True)))
    except KeyboardInterrupt:
        pass
    return 0


def add_server(sub) -> None:
    p = command(sub, "server", "host games people drop into (a Hall that lists, creates and "
                "starts them) on the embedded XMPP server, or on --xmpp HOST:PORT")
    p.add_argument("--port", type=int, default=5222, help="the embedded server's client "
                   "port on localhost")
    p.add_argument("--xmpp", default=None, metavar="HOST:PORT",
                   help="host the games on this XMPP server (ejabberd) instead of an "
                        "embedded one")
    p.add_argument("--log-dir", default="logs/server", metavar="DIR",
                   help="the archive: each game's log, a folder a day, and the server's "
                        "own log (default: logs/server)")
    p.add_argument("--no-games", action="store_true",
                   help="only the embedded XMPP server: no Hall, no games")
    add_web(p, "serve a web page: the archive of past games, and /hall, a seat at the Hall "
               "in the browser (127.0.0.1 unless HOST)")
    p.set_defaults(func=cmd_server)


def cmd_server(args: argparse.Namespace) -> int:
    import asyncio
    import contextlib
    import signal
    from pathlib import Path

    from maw.hosting.xmpp import EmbeddedServer, parse_address

    address = parse_address(args.xmpp or f"embedded:{args.port}")

    async def xmpp_only(stop: asyncio.Event) -> None:
        server = EmbeddedServer(args.port)
        await server.start()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        print(f"maw server: embedded XMPP server on localhost:{args.port} "
              "(Ctrl-C to stop)", flush=True)
        try:
            await stop.wait()
        finally:
            await server.stop()

    async def main() -> None:
        # SIGTERM stops it as Ctrl-C does: through server.stop(), which also ends
        # pyjabber's worker processes (killed outright, they outlive the server)
        stop = asyncio.Event()
        if args.no_games:
            if args.web:
                from maw.errors import MawError

                raise MawError("--web serves the Hall's page: without --no-games")
            if not address.embedded:
                from maw.errors import MawError

                raise MawError("--no-games runs the embedded XMPP server alone: give "
                               "--port, not --xmpp")
            await xmpp_only(stop)
            return
        from maw.hosting.xmpp import Address
        from maw.server.host import serve

        def say(line: str) -> None:
            print(line, flush=True)

        site = watch = None
        if args.web:  # (its seats log in as people do, once the server is up)
            from maw.web.hall import HallWatch
            from maw.web.host import hall_site

            where = Address(address.host, address.port, False, address.domain)
            watch = HallWatch(Path(args.log_dir))
            site = await hall_site(where, Path(args.log_dir), args.web, watch, say)
        try:
            await serve(address, Path(args.log_dir), stop, say=say, watch=watch)
        finally:
            if site is not None:
                await site.stop(drain=0)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    return 0
