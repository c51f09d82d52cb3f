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

from maw.errors import ConfigError, MawError

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


def _drop_upload_folder() -> None:
    """pyjabber's file-upload module makes a temporary folder when it is imported and
    never removes it: one ``pyjabber_xep0363_*`` left in the temp directory by every
    start of the embedded server. MAW turns the upload plugin off, so the folder stays
    empty: remove it at once (an ``rmdir``: a folder with anything in it stays)."""
    from pyjabber.plugins.xep_0363 import upload_server

    with contextlib.suppress(OSError):
        os.rmdir(upload_server.TEMP_DIR)


def _patch_pyjabber_stream_restart() -> None:
    """Fix a race in pyjabber 0.4.5 that stalls a client for good.

    After STARTTLS (and SASL) the client restarts its stream with a new <stream:stream>
    header. pyjabber's parser treats a stream header as a new stream only while its element
    stack is empty, and empties the stack only when its queue consumer gets round to the
    restart: a header that arrives sooner (TLS 1.3 sends it right behind the handshake; it
    happens with a few clients connecting at once from other processes) is taken for a
    child element and then thrown away, and the server never answers. Here a stream header
    always starts a new stream, and the late reset no longer clears it.

    Also: what a client writes after its stream has ended (a stanza still queued as it
    disconnects, a whitespace keep-alive) made the parser raise, and asyncio printed a
    "Fatal error on SSL protocol" traceback on the host's terminal as a game ended. Such
    an element now closes that connection quietly, and whitespace is ignored.
    """
    from pyjabber.network.parsers.XMLParser import XMLParser

    if getattr(XMLParser, "_maw_patched", False):
        return
    start_element = XMLParser.startElementNS
    reset_stack = XMLParser.reset_stack
    characters = XMLParser.characters
    end_element = XMLParser.endElementNS

    def startElementNS(self, name, qname, attrs):  # noqa: N802 - SAX's name
        if name == ("http://etherx.jabber.org/streams", "stream"):
            self._stack.clear()
        elif not self._stack and type(self) is XMLParser:  # outside any stream
            with contextlib.suppress(Exception):
                self._transport.close()
            return None
        return start_element(self, name, qname, attrs)

    def text(self, content: str) -> None:
        if self._stack or type(self) is not XMLParser:
            characters(self, content)

    def endElementNS(self, name, qname):  # noqa: N802 - SAX's name
        if self._stack or "stream" in name or type(self) is not XMLParser:
            end_element(self, name, qname)

    def reset(self) -> None:
        if type(self) is not XMLParser:  # the server-to-server parsers keep their logic
            reset_stack(self)

    XMLParser.startElementNS = startElementNS
    XMLParser.characters = text
    XMLParser.endElementNS = endElementNS
    XMLParser.reset_stack = reset
    XMLParser._maw_patched = True


# RFC 6120 4.9.3.9: the stream error ejabberd answers a client stanza with a forged sender
INVALID_FROM = (b"<stream:error><invalid-from xmlns='urn:ietf:params:xml:ns:xmpp-streams'/>"
                b"<text xmlns='urn:ietf:params:xml:ns:xmpp-streams'>the from address of a "
                b"stanza must be your own (RFC 6120 8.1.2.1)</text></stream:error>"
                b"</stream:stream>")
log = logging.getLogger("maw.hosting.xmpp")


# PBKDF2 iterations of the embedded server's password hashes (RFC 7677's least for SCRAM)
EMBEDDED_HASH_ITERATIONS = 4096


def _patch_pyjabber_hash_cost() -> None:
    """Make pyjabber 0.4.5 hash a password with ``EMBEDDED_HASH_ITERATIONS`` rounds of
    PBKDF2-SHA256, not 100,000.

    It hashes each password at its registration and again at every login: 26 ms of CPU
    each here, 32 a game of six (16 agents), most of what a tournament's game costs its
    server. Those rounds slow down whoever cracks a stolen password database; the embedded
    server keeps its database in memory, for one process, on loopback, and MAW's accounts'
    passwords are random (``secrets``, or ``stable_password`` for a lobby's fixed JID). A
    stored hash says its rounds, so a login checks against what was stored.
    """
    from pyjabber.features.SASL.SASL import SASL

    if getattr(SASL, "_maw_hash_cost", False):
        return
    hash_ = SASL._hash_scram_async

    async def cheaper(self, password: str, salt: bytes, iterations: int) -> str:
        return await hash_(self, password, salt, min(iterations, EMBEDDED_HASH_ITERATIONS))

    SASL._hash_scram_async = cheaper
    SASL._maw_hash_cost = True


_MEMORY_DBS: list = []  # the connection that keeps each embedded server's database


def _patch_pyjabber_memory_db() -> None:
    """Keep pyjabber 0.4.5's in-memory database (its accounts) for the server's life.

    pyjabber keeps its accounts in SQLite's ``:memory:``, a database that lives and dies
    with its one connection (SQLAlchemy's ``StaticPool``). SQLAlchemy drops a connection
    whose query was cancelled (its state is unknown), and a client that disconnects while
    the server registers or logs it in has that query cancelled: the next query opened a
    new, empty database, and from then on every registration failed with "no such table:
    credentials", unanswered, so every later agent waited out its connection attempts (a
    CI run lost its last two games this way; a tournament's worker killed while its agents
    logged in stalled the server). Here the database is a named in-memory one with a
    shared cache, held open by a connection of its own: a connection made anew finds the
    same accounts. It still lives in memory only, and goes with the process.
    """
    import sqlite3

    import pyjabber.db.database as database

    if getattr(database, "_maw_memory", False):
        return
    create = database.create_async_engine

    def create_async_engine(url, **kwargs):
        if url == "sqlite+aiosqlite:///:memory:":
            name = f"file:maw-pyjabber-{secrets.token_hex(8)}?mode=memory&cache=shared"
            _MEMORY_DBS.append(sqlite3.connect(name, uri=True, check_same_thread=False))
            url = f"sqlite+aiosqlite:///{name}&uri=true"
        return create(url, **kwargs)

    database.create_async_engine = create_async_engine
    database._maw_memory = True


def _patch_pyjabber_iq_failures() -> None:
    """Make an IQ that one of pyjabber 0.4.5's plugins fails on cost only that IQ.

    pyjabber answers a client's IQs inside the loop that reads everything that client
    sends, and an exception there ended that loop: from then on nothing the client sent
    was routed, silently, while its connection stayed up. Its service discovery raises on
    every ``disco#items`` (it awaits a function that returns bytes), so a GameMaster that
    looked for a multicast service (``MawAgent.find_multicast``) could still hear but no
    longer speak: a person knocking at the lobby was never answered. Here such an IQ is
    answered with ``internal-server-error`` (RFC 6120 8.3.3.4), as a server should, and
    the client's stream goes on.
    """
    from xml.etree import ElementTree as ET

    from pyjabber.plugins.PluginManager import PluginManager

    if getattr(PluginManager, "_maw_iq_failures", False):
        return
    feed = PluginManager.feed

    async def feed_guarded(self, element):
        try:
            return await feed(self, element)
        except Exception as exc:  # (not CancelledError: the connection is going)
            log.warning("pyjabber failed on an IQ of %s: %r", self._jid, exc)
            if element.attrib.get("type") not in ("get", "set"):
                return None
            iq = ET.Element("iq", attrib={"type": "error", "id": element.attrib.get("id", ""),
                                          "to": str(self._jid)})
            if element.attrib.get("to"):
                iq.set("from", element.attrib["to"])
            error = ET.SubElement(iq, "error", attrib={"type": "cancel"})
            ET.SubElement(error, "internal-server-error",
                          attrib={"xmlns": "urn:ietf:params:xml:ns:xmpp-stanzas"})
            return ET.tostring(iq)

    PluginManager.feed = feed_guarded
    PluginManager._maw_iq_failures = True


def _patch_pyjabber_senders() -> None:
    """Make pyjabber 0.4.5 prove every client stanza's sender, as RFC 6120 (8.1.2.1)
    requires and ejabberd does.

    pyjabber stamps a stanza's ``from`` only when it has none and otherwise routes
    whatever the client wrote: a seated player posing as the GameMaster opened the Hideout
    to itself. Here a client stanza whose ``from`` is neither the connection's full JID
    nor its bare JID closes that client's stream with ``invalid-from`` (as ejabberd does),
    and nothing of it is routed. Server-to-server streams are not affected: MAW closes the
    embedded server's server-to-server port (``EmbeddedServer.start``).
    """
    from pyjabber.stream.handlers.StanzaHandler import StanzaHandler

    if getattr(StanzaHandler, "_maw_senders", False):
        return
    feed = StanzaHandler.feed

    async def feed_checked(self, element) -> None:
        claimed = element.attrib.get("from")
        own = self._jid
        if claimed is not None and own is not None and type(self) is StanzaHandler and \
                claimed.lower() not in (str(own).lower(), own.bare().lower()):
            log.warning("closed the stream of %s: a stanza claimed to be from %s", own,
                        claimed[:100])
            with contextlib.suppress(Exception):
                self._transport.write(INVALID_FROM)
                self._transport.close()
            return
        await feed(self, element)

    StanzaHandler.feed = feed_checked
    StanzaHandler._maw_senders = True


_LOST_PRESENCES: set[asyncio.Task] = set()  # telling contacts of a lost connection


def _patch_pyjabber_lost_presence() -> None:
    """Make pyjabber 0.4.5 tell a client's contacts that it went offline when its
    connection closes or is lost, as RFC 6121 (4.5.2) requires and ejabberd does.

    pyjabber queues an internal "lost connection" presence for each closed client stream
    (``Presence.put_nowait``) but nothing ever reads that queue, so a player whose process
    died or quit was never noticed on the embedded server: every later phase waited out
    its timer for it. (Its handler for it, ``_handle_lost_connection``, is broken too: it
    calls a coroutine without awaiting it.) Here a lost connection is handled as if the
    client had said ``<presence type='unavailable'/>``, by pyjabber's own handler of that:
    ``unavailable`` goes to every contact subscribed to the client's presence (the
    GameMaster follows each player's).
    """
    from xml.etree.ElementTree import Element

    from pyjabber.features.presence.PresenceFeature import Presence
    from pyjabber.stream.JID import JID

    if getattr(Presence, "_maw_lost", False):
        return
    put_nowait = Presence.put_nowait
    pending = _LOST_PRESENCES

    async def offline(self, jid) -> None:
        try:
            await self._handle_global_presence(jid, Element(
                "presence", attrib={"type": "unavailable", "from": str(jid)}))
        except Exception:  # (a contact's connection closing at the same moment)
            log.exception("pyjabber: the presence of the lost connection of %s", jid)

    def handle_lost(self, value) -> None:
        jid, element = value
        if element.attrib.get("type") != "INTERNAL" or not isinstance(jid, JID):
            put_nowait(self, value)
            return
        task = asyncio.get_running_loop().create_task(offline(self, jid))
        pending.add(task)
        task.add_done_callback(pending.discard)

    Presence.put_nowait = handle_lost
    Presence._maw_lost = True


def _pyjabber_checks_senders() -> bool:
    from pyjabber.stream.handlers.StanzaHandler import StanzaHandler

    return getattr(StanzaHandler, "_maw_senders", False)


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
        _drop_upload_folder()
        _patch_pyjabber_stream_restart()
        _patch_pyjabber_lost_presence()
        _patch_pyjabber_hash_cost()
        _patch_pyjabber_memory_db()
        _patch_pyjabber_iq_failures()
        if self.check_senders:
            _patch_pyjabber_senders()
        elif _pyjabber_checks_senders():
            raise MawError("this process already runs an embedded server that checks "
                           "senders: a lax one needs a process of its own")
        # without the upload plugin pyjabber opens no admin page on the fixed port 9090,
        # so two servers (or a test run beside a game) can coexist
        plugins = [p for p in Parameters().plugins if p != "urn:xmpp:http:upload:0"]
        params = Parameters(host="localhost", client_port=self.port, server_port=free_port(),
                            database_in_memory=True, plugins=plugins)
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
        self._task = asyncio.create_task(server.start())
        waiter = asyncio.create_task(server.ready.wait())
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
            os.cpu_count() or 1, initializer=die_with_parent))
        unused.shutdown(wait=False)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        await self._close_connections()
        while _MEMORY_DBS:  # (its accounts go with it)
            _MEMORY_DBS.pop().close()
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
        for _ in range(3):  # (a closed transport tells its protocol on a later turn, whose
            await asyncio.sleep(0.01)  # lost connection starts a task telling its contacts)
            leftovers = [t for t in asyncio.all_tasks() if t is not mine and (
                t in _LOST_PRESENCES or "pyjabber" in
                getattr(getattr(t.get_coro(), "cr_code", None), "co_filename", ""))]
            if not leftovers:
                break
            for task in leftovers:
                task.cancel()
            await asyncio.wait(leftovers, timeout=2)
