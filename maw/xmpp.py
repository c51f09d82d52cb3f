"""The XMPP server: SPADE's embedded pyjabber in-process, or a running one (ejabberd)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from dataclasses import dataclass

from maw.errors import ConfigError, MawError


@dataclass(frozen=True)
class Address:
    host: str
    port: int
    embedded: bool

    def __str__(self) -> str:
        return f"{self.host}:{self.port}" + (" (embedded)" if self.embedded else "")


def parse_address(text: str, default_port: int = 5222) -> Address:
    """``embedded`` or ``HOST:PORT`` (port optional)."""
    if text in ("embedded", ""):
        return Address("localhost", default_port, True)
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"bad XMPP address {text!r}: use 'embedded' or HOST:PORT")
    return Address(host, int(port), False)


def port_open(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host if host != "localhost" else "127.0.0.1", port)) == 0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedServer:
    """pyjabber in this process (always on host ``localhost``: 0.0.0.0 drops messages)."""

    def __init__(self, port: int = 5222) -> None:
        self.port = port
        self._task: asyncio.Task | None = None
        self._server = None

    async def start(self) -> None:
        if port_open("127.0.0.1", self.port):
            raise MawError(f"port {self.port} is in use: is another XMPP server running? "
                           "Use --xmpp HOST:PORT to play on it")
        import loguru
        from pyjabber.server import Server
        from pyjabber.server_parameters import Parameters

        loguru.logger.remove()  # pyjabber logs through loguru; keep the terminal for the game
        for noisy in ("spade", "sqlalchemy", "sqlalchemy.pool", "slixmpp"):
            logging.getLogger(noisy).setLevel(logging.CRITICAL)
        # without the upload plugin pyjabber opens no admin page on the fixed port 9090,
        # so two servers (or a test run beside a game) can coexist
        plugins = [p for p in Parameters().plugins if p != "urn:xmpp:http:upload:0"]
        params = Parameters(host="localhost", client_port=self.port, server_port=free_port(),
                            database_in_memory=True, plugins=plugins)
        self._server = Server(params)
        self._task = asyncio.create_task(self._server.start())
        waiter = asyncio.create_task(self._server.ready.wait())
        done, _ = await asyncio.wait({self._task, waiter}, timeout=20,
                                     return_when=asyncio.FIRST_COMPLETED)
        # pyjabber's start() installs SIGINT/SIGTERM handlers that raise SystemExit inside
        # the event loop, which can hang the process; give Ctrl-C and kill back to Python
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if waiter not in done:
            waiter.cancel()
            if self._task in done and self._task.exception():
                raise MawError(f"the embedded XMPP server failed: {self._task.exception()}")
            raise MawError("the embedded XMPP server did not start in 20 s")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        with contextlib.suppress(Exception):
            import pyjabber.AppConfig as pyjabber_config

            pool = pyjabber_config.app_config.process_pool_exe  # type: ignore[union-attr]
            pool.shutdown(wait=False, cancel_futures=True)
