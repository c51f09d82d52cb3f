"""An aiohttp application listening on a port, started on the running loop: the one
start-up of MAW's HTTP servers (the web observer's pages, the AIWolf agents' WebSocket)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from maw.errors import MawError


async def listen(app: web.Application, host: str, port: int, what: str,
                 **options: Any) -> web.AppRunner:
    """Serve ``app`` on ``host:port`` until the returned runner's ``cleanup()``. A port
    that cannot be listened on is a ``MawError`` naming ``what`` serves there (and
    nothing is left half-started)."""
    runner = web.AppRunner(app, handle_signals=False, **options)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        await runner.cleanup()
        raise MawError(f"{what} cannot listen on {host}:{port}: "
                       f"{exc.strerror or exc}") from None
    return runner
