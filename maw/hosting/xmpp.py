"""The XMPP server: SPADE's embedded pyjabber in-process, or a running one (ejabberd)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from maw.agents.toolkit import cancel_and_wait
from maw.errors import ConfigError, MawError
from maw.hosting import pyjabber_fixes

DOMAIN = "localhost"


@dataclass(frozen=True)
class Address:
    """Where the XMPP server listens. Every JID is on the domain ``localhost`` (pyjabber's
    and ``ejabberd.yml``'s only host) wherever the server runs."""

    host: str
    port: int
    embedded: bool
    domain: str = DOMAIN

    def __str__(self) -> str:
        return f"{self.host}:{self.port}" + (" (embedded)" if self.embedded else "")


def parse_address(text: str, default_port: int = 5222) -> Address:
    """``embedded`` (optionally ``embedded:PORT``) or ``HOST:PORT`` (port optional)."""
    if text in ("embedded", ""):
        return Address("localhost", default_port, True)
    if text.startswith("embedded:"):
        port = text.partition(":")[2]
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"bad XMPP address {text!r}: the port must be 1-65535")
        return Address("localhost", int(port), True)
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"bad XMPP address {text!r}: use 'embedded' or HOST:PORT")
    return Address(host, int(port), False)


def die_with_parent() -> None:
    """In a child process (Linux): be killed when the parent dies, even by SIGKILL."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def pool_worker() -> None:
    """The embedded server's password workers: they die with their parent and leave
    Ctrl-C to it. A terminal's Ctrl-C reaches every process of its group: each idle
    worker printed a KeyboardInterrupt traceback under the host's "interrupted"; the
    parent shuts its pool down as it stops."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def quiet_logs() -> None:
    """SPADE, slixmpp and SQLAlchemy log chatter to the terminal the game is printed on;
    what matters goes to the game log instead."""
    for noisy in ("spade", "sqlalchemy", "sqlalchemy.pool", "slixmpp"):
        logging.getLogger(noisy).setLevel(logging.CRITICAL)
    # slixmpp warns on the root logger of every presence SPADE reads an "ask" of (the
    # GameMaster follows each player's presence)
    root = logging.getLogger()
    if not any(isinstance(f, _NoStanzaChatter) for f in root.filters):
        root.addFilter(_NoStanzaChatter())


class _NoStanzaChatter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Unknown stanza interface")


def lobby_jid(lobby: str, domain: str = DOMAIN) -> str:
    """The GameMaster of the lobby named ``lobby``: a fixed JID players can find."""
    if not lobby or not all(c.isalnum() or c in "-_" for c in lobby):
        raise ConfigError(f"bad lobby name {lobby!r}: use letters, digits, - and _")
    return f"maw-lobby-{lobby.lower()}@{domain}"


def stable_password(jid: str) -> str:
    """The password of an account whose JID is fixed (a lobby): it must be the same on every
    run, because ejabberd keeps accounts. Derived from a local secret: ``MAW_XMPP_SECRET``,
    else a random one kept in ``~/.config/maw/xmpp-secret`` (mode 600)."""
    secret = os.environ.get("MAW_XMPP_SECRET") or _local_secret()
    return hmac.new(secret.encode(), jid.encode(), hashlib.sha256).hexdigest()[:24]


def _local_secret() -> str:
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    path = config / "maw" / "xmpp-secret"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another process may be writing it this very moment
            secret = path.read_text().strip()
            if secret:
                return secret
            time.sleep(0.01)
        raise ConfigError(f"{path} is empty: delete it and try again") from None
    secret = secrets.token_hex(16)
    with os.fdopen(fd, "w") as f:
        f.write(secret + "\n")
    return secret


def port_free(port: int) -> bool:
    """Whether a server of this process may listen on ``port`` of this machine: not where
    another listens (a server that stopped holds nothing: the TIME_WAIT of its closed
    connections does not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedServer:
    """pyjabber in this process (always on host ``localhost``: 0.0.0.0 drops messages).

    What it guarantees (docs/security.md): every stanza's sender is the authenticated
    address of the client that sent it (``check_senders``; off only to test what MAW's
    own proofs do on a lax server), it listens on loopback only, keeps no state on disk
    and offers no server-to-server port.
    """

    def __init__(self, port: int = 5222, check_senders: bool = True) -> None:
        self.port = port
        self.check_senders = check_senders
        self._task: asyncio.Task | None = None
        self._server = None

    async def start(self) -> None:
        if not port_free(self.port):
            raise MawError(f"port {self.port} is in use: is another XMPP server running? "
                           "Use --xmpp HOST:PORT to play on it")
        import loguru
        from pyjabber.server import Server
        from pyjabber.server_parameters import Parameters

        loguru.logger.remove()  # pyjabber logs through loguru; keep the terminal for the game
        quiet_logs()
        pyjabber_fixes.apply(self.check_senders)
        if not self.check_senders and pyjabber_fixes.checks_senders():
            raise MawError("this process already runs an embedded server that checks "
                           "senders: a lax one needs a process of its own")
        # without the upload plugin pyjabber opens no admin page on the fixed port 9090,
        # so two servers (or a test run beside a game) can coexist
        plugins = [p for p in Parameters().plugins if p != "urn:xmpp:http:upload:0"]
        params = Parameters(host="localhost", client_port=self.port, server_port=free_port(),
                            database_in_memory=True, plugins=plugins,
                            message_persistence=False,  # (as ejabberd.yml: no storage)
                            cert_path=await asyncio.to_thread(certificates))
        self._server = Server(params)
        # pyjabber's per-connection PluginManager builds the upload plugin's singleton
        # whether or not the plugin is on, and without the HTTP app that fails inside
        # every client's stanza handler: nothing a client sends after logging in (presence,
        # roster, messages) is ever handled. Agents in one process never noticed (SPADE
        # delivers in memory); any client in another process did. Make the singleton here,
        # with no HTTP app: file upload stays off.
        from pyjabber.plugins.xep_0363.xep_0363 import HTTPFieldUpload

        HTTPFieldUpload(None)
        server = self._server
        assert server is not None
        # (Ctrl-C's handler as it is now: asyncio.run's, which cancels the main task, so
        # that every ``finally`` runs in order; a page's seat is told the host stopped)
        on_int, on_term = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        self._task = asyncio.create_task(server.start())
        waiter = asyncio.create_task(server.ready.wait())
        done, _ = await asyncio.wait({self._task, waiter}, timeout=20,
                                     return_when=asyncio.FIRST_COMPLETED)
        # pyjabber's start() installs SIGINT/SIGTERM handlers that raise SystemExit inside
        # the event loop, which can hang the process; give Ctrl-C and kill back to what
        # handled them before (Python's own, or asyncio.run's: Ctrl-C cancels the main
        # task; the default handler raised KeyboardInterrupt out of the loop, and every
        # task was cancelled at once, a web page's streams before they told the seats)
        signal.signal(signal.SIGINT, on_int if callable(on_int) else
                      signal.default_int_handler)
        signal.signal(signal.SIGTERM, on_term if callable(on_term) else signal.SIG_DFL)
        if waiter not in done:
            waiter.cancel()
            if self._task in done and self._task.exception():
                raise MawError(f"the embedded XMPP server failed: {self._task.exception()}")
            raise MawError("the embedded XMPP server did not start in 20 s")
        # MAW never federates: a server-to-server port would let any local process pose as
        # a server and deliver stanzas in anyone's name
        listener = getattr(self._server, "_server_listener", None)
        if listener is not None:
            listener.close()
        # pyjabber hashes passwords in worker processes that outlive a process killed
        # outright (a SIGKILLed tournament left them behind): the same pool, but workers
        # that die with this process. No worker has started yet (they start on first use).
        from concurrent.futures import ProcessPoolExecutor

        import pyjabber.AppConfig as pyjabber_config

        config = pyjabber_config.app_config
        unused = config.process_pool_exe
        object.__setattr__(config, "process_pool_exe", ProcessPoolExecutor(  # a frozen attrs
            os.cpu_count() or 1, initializer=pool_worker))
        unused.shutdown(wait=False)

    async def stop(self) -> None:
        task, self._task = self._task, None
        try:  # (a Ctrl-C meanwhile is the caller's: it goes on once the server is down)
            await cancel_and_wait(task)
        finally:
            await self._close_connections()
            while pyjabber_fixes.MEMORY_DBS:  # (its accounts go with it)
                pyjabber_fixes.MEMORY_DBS.pop().close()
            with contextlib.suppress(Exception):
                import pyjabber.AppConfig as pyjabber_config

                pool = pyjabber_config.app_config.process_pool_exe
                pool.shutdown(wait=False, cancel_futures=True)

    @staticmethod
    async def _close_connections() -> None:
        """Close every client's connection and let its tasks end before the loop does.
        pyjabber starts a timer task for every stanza it receives and cancels the last
        one; a game that ends under a flood left thousands of them cancelled but not yet
        finished, and the closing loop printed "Task was destroyed but it is pending!"."""
        with contextlib.suppress(Exception):
            from pyjabber.network.ConnectionManager import ConnectionManager

            for client in list(ConnectionManager()._peerList.values()):
                if client.transport is not None:
                    client.transport.close()
        mine = asyncio.current_task()
        # (a closed transport tells its protocol on a later turn, whose lost connection
        # starts a task telling its contacts; on a loaded machine three rounds left a
        # stream's reader pending at exit)
        for _ in range(10):
            await asyncio.sleep(0.01)
            leftovers = [t for t in asyncio.all_tasks() if t is not mine and (
                t in pyjabber_fixes.LOST_PRESENCES or "pyjabber" in
                getattr(getattr(t.get_coro(), "cr_code", None), "co_filename", ""))]
            if not leftovers:
                break
            for task in leftovers:
                task.cancel()
            await asyncio.wait(leftovers, timeout=2)


def certificates() -> str:
    """The folder of localhost's certificate and key for the embedded server, made once
    per user and whole. pyjabber writes its own into its package's folder, the key first
    and the certificate after, so servers starting at once (a fresh install's first
    tests, two games) read one's key with another's certificate: every embedded server
    of that install then failed with "KEY_VALUES_MISMATCH" (a fresh-clone CI run). Here
    the pair is made in a folder of its own under a lock and renamed into place."""
    import fcntl
    import shutil
    import tempfile

    from pyjabber.network import CertGenerator

    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "maw"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # (a home that cannot be written: the machine's temporary folder)
        cache = Path(tempfile.gettempdir()) / f"maw-{os.getuid()}"
        cache.mkdir(parents=True, exist_ok=True)
    folder = cache / "pyjabber-certs"
    if (folder / "localhost_cert.pem").is_file():
        return str(folder)
    with open(cache / "pyjabber-certs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "localhost_cert.pem").is_file():
            made = Path(tempfile.mkdtemp(dir=cache, prefix="certs-"))
            shipped = Path(CertGenerator.__file__).parent / "certs"
            for name in ("ca_cert.pem", "ca_key.pem"):
                shutil.copy(shipped / name, made / name)
            here = os.getcwd()
            try:  # (pyjabber's generator works in the current folder)
                CertGenerator.generate_hostname_cert("localhost", str(made))
            finally:
                os.chdir(here)
            shutil.rmtree(folder, ignore_errors=True)
            made.rename(folder)
    return str(folder)
