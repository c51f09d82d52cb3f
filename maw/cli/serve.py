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
    p = command(sub, "server", "run the embedded XMPP server on its own")
    p.add_argument("--port", type=int, default=5222, help="the client port on localhost")
    p.set_defaults(func=cmd_server)


def cmd_server(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from maw.hosting.xmpp import EmbeddedServer

    async def serve() -> None:
        server = EmbeddedServer(args.port)
        await server.start()
        print(f"maw server: embedded XMPP server on localhost:{args.port} "
              "(Ctrl-C to stop)", flush=True)
        # SIGTERM stops it as Ctrl-C does: through server.stop(), which also ends
        # pyjabber's worker processes (killed outright, they outlive the server)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        try:
            await stop.wait()
        finally:
            await server.stop()

    asyncio.run(serve())
    return 0
