"""pyjabber's private surface, as MAW patches it: what to re-check at a pyjabber upgrade.

The embedded server (``maw.hosting.xmpp.EmbeddedServer``) is pyjabber 0.4.5 in-process,
and MAW fixes nine of its faults by replacing private methods: each fix below says the
fault, how it showed, and what it replaces. At an upgrade, read each replaced method in
the new pyjabber; ``tests/agents/test_xmpp_game.py`` and ``tests/agents/test_security.py`` show each
fault if a fix stops taking hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets


def apply(check_senders: bool = True) -> None:
    """Every fix (each once a process); ``check_senders``: make the server refuse a
    stanza whose sender is not the client that sent it."""
    _drop_upload_folder()
    _patch_pyjabber_stream_restart()
    _patch_pyjabber_lost_presence()
    _patch_pyjabber_hash_cost()
    _patch_pyjabber_memory_db()
    _patch_pyjabber_cut_queries()
    _patch_pyjabber_iq_failures()
    _patch_pyjabber_offline_messages()  # (before: the failures' guard wraps it too)
    _patch_pyjabber_stanza_failures()
    if check_senders:
        _patch_pyjabber_senders()


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


MEMORY_DBS: list = []  # the connection that keeps each embedded server's database


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
            MEMORY_DBS.append(sqlite3.connect(name, uri=True, check_same_thread=False))
            url = f"sqlite+aiosqlite:///{name}&uri=true"
        return create(url, **kwargs)

    database.create_async_engine = create_async_engine
    database._maw_memory = True


def _patch_pyjabber_cut_queries() -> None:
    """Let a cancel cut no query of pyjabber 0.4.5's database short.

    The database has one connection, shared by every query at once (``StaticPool``), and
    SQLAlchemy closes a connection whose query was cancelled; pyjabber cancels a client's
    queries when it disconnects. Every query running on the connection then failed
    ("Cannot operate on a closed database"): as two people left the Hall for the game they
    had both readied, the other's registration and the game's logins failed, and so did
    every such game ("AuthenticationFailure"; a review, 3 games of 3). Each query (and
    the connection's start, and a transaction's) now runs to its end in a task of its
    own, the cancel reaching its caller only then; the connection goes back to the pool
    once its work is over. Replaces ``DB.connection_async``.
    """
    from pyjabber.db.database import DB

    if getattr(DB, "_maw_cut_queries", False):
        return

    async def connection_async():
        assert DB._engine is not None
        return _WholeQueries(DB._engine.connect())

    DB.connection_async = staticmethod(connection_async)
    DB._maw_cut_queries = True


class _WholeQueries:
    """An ``AsyncConnection`` whose every step runs to its end, whoever is cancelled
    (``_patch_pyjabber_cut_queries``): as pyjabber uses it, ``async with`` it, then
    ``execute``, ``commit`` and ``async with begin()``."""

    def __init__(self, connection) -> None:
        self._connection = connection
        self._work: asyncio.Future | None = None

    async def _whole(self, step):
        self._work = asyncio.ensure_future(step)
        return await asyncio.shield(self._work)

    async def _settled(self) -> None:
        if self._work is not None and not self._work.done():
            await asyncio.wait({self._work})

    async def __aenter__(self) -> _WholeQueries:
        try:
            await self._whole(self._connection.__aenter__())
        except asyncio.CancelledError:  # (started all the same: it goes back at once)
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc) -> None:
        await self._settled()
        await self._connection.__aexit__(*exc)

    def execute(self, *args, **kwargs):
        return self._whole(self._connection.execute(*args, **kwargs))

    def commit(self):
        return self._whole(self._connection.commit())

    def begin(self) -> _WholeTransaction:
        return _WholeTransaction(self, self._connection.begin())


class _WholeTransaction:
    def __init__(self, owner: _WholeQueries, transaction) -> None:
        self._owner = owner
        self._transaction = transaction

    async def __aenter__(self) -> _WholeTransaction:
        await self._owner._whole(self._transaction.__aenter__())
        return self

    async def __aexit__(self, *exc) -> None:
        await self._owner._settled()
        await self._transaction.__aexit__(*exc)


DISCO_ITEMS = "{http://jabber.org/protocol/disco#items}query"


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
            # (the disco#items fault below is known and answered: said only to a debug
            # log; it put four warnings on `maw server`'s screen at every game's start)
            known = isinstance(exc, TypeError) and element.find(DISCO_ITEMS) is not None
            log.log(logging.DEBUG if known else logging.WARNING,
                    "pyjabber failed on an IQ of %s: %r", self._jid, exc)
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


LOCKED_TRIES = 5  # tries of a presence whose roster write found its table locked


def _locked(exc: Exception) -> bool:
    """Is ``exc`` SQLite's "database table is locked" (the shared cache of the in-memory
    database: ``_patch_pyjabber_memory_db``), which passes if tried again?"""
    return "is locked" in str(exc)


def _patch_pyjabber_stanza_failures() -> None:
    """Make a presence or a message that pyjabber 0.4.5 fails on cost only that stanza.

    As with IQs (``_patch_pyjabber_iq_failures``), an exception while pyjabber handled a
    client's presence ended the loop that reads everything that client sends: its
    connection stayed up, and nothing it sent was routed again. The Hall of ``maw serve``
    follows each client's presence, and its subscription's roster write now and then found
    the roster table locked ("database table is locked: roster"): from then on the Hall
    heard every request and its answers reached nobody, so every person after that was
    told "no Hall answers" (CI run 92 and CI on 716627d; under load, a test of it failed
    2 runs of 3). Here a presence whose roster write finds its table locked is tried again, up
    to ``LOCKED_TRIES`` times, and any stanza that still fails is logged and dropped, and
    the client's stream goes on.
    """
    from pyjabber.stream.handlers.StanzaHandler import StanzaHandler

    if getattr(StanzaHandler, "_maw_stanza_failures", False):
        return

    def guarded(handle, what: str, retry: bool):
        async def handle_guarded(self, element) -> None:
            for attempt in range(1, LOCKED_TRIES + 1):
                try:
                    return await handle(self, element)
                except Exception as exc:  # (not CancelledError: the connection is going)
                    if retry and _locked(exc) and attempt < LOCKED_TRIES:
                        await asyncio.sleep(0.02 * attempt)
                        continue
                    log.warning("pyjabber failed on a %s of %s: %r", what, self._jid, exc)
                    return None
        return handle_guarded

    # (a message is routed as it is handled: tried again, it could reach some twice)
    StanzaHandler.handle_pre = guarded(StanzaHandler.handle_pre, "presence", retry=True)
    StanzaHandler.handle_msg = guarded(StanzaHandler.handle_msg, "message", retry=False)
    StanzaHandler._maw_stanza_failures = True


STANZA_ERRORS = "urn:ietf:params:xml:ns:xmpp-stanzas"  # (the namespace of the conditions)


def _online(connections, jid) -> bool:
    """Has ``jid``'s account a connection that is online (any resource: a message to a
    full JID that is gone is not bounced while its account has another, as RFC 6121
    8.5.3.2.1 would deliver it there; MAW's clients have one resource each)?
    pyjabber's ``get_transport_online`` says so too, matching a regular expression against
    every connection for a bare JID (113 us a message among 160 connections; this, 12 us)."""
    peers = getattr(connections, "_peerList", None)
    bare = jid.bare()
    if peers is None:  # (another pyjabber: its own, slower way)
        from pyjabber.stream.JID import JID

        return bool(connections.get_transport_online(JID(bare)))
    return any(c.online and c.jid is not None and c.jid.bare() == bare
               for c in peers.values())


def _patch_pyjabber_offline_messages() -> None:
    """Make pyjabber 0.4.5 bounce a message to a local client that is not online, as the
    project's ejabberd does (``ejabberd.yml``: no offline storage), instead of losing it.

    pyjabber routed such a message to the resources it still took for available (a
    client that had been online: its presence stays "available" after its connection
    closes), that is to none, or kept it for the client's next login (its "message
    persistence", on by default) and handed the kept ones out as the client's stream
    opened, before the client was online: to no connection either (a client that came
    back heard none of them; they would have come last first besides). The sender was
    never told, so a GameMaster learned that a player's client was gone only from its
    presence. Here a message (of any type but ``error`` and ``headline``) to a local
    address with no online connection is answered at once with
    ``<service-unavailable/>`` from that address (RFC 6121 8.5.2.1.1, 8.5.3.2.1), what
    ejabberd sends: MAW's agents read it as news that the recipient is
    gone (``maw.agents.transport``: ``bounced``), on either server. Nothing is kept
    (``EmbeddedServer`` turns the persistence off too), so no message of one game reaches
    a later game's client of the same name.
    """
    from xml.etree import ElementTree as ET

    from pyjabber import AppConfig
    from pyjabber.stream.handlers.StanzaHandler import StanzaHandler
    from pyjabber.stream.JID import JID

    if getattr(StanzaHandler, "_maw_offline", False):
        return
    handle_msg = StanzaHandler.handle_msg

    async def handle_or_bounce(self, element) -> None:
        to = element.attrib.get("to")
        # (never bounce a bounce; a headline is dropped silently, RFC 6121 8.5.2.1.1)
        if not to or element.attrib.get("type") in ("error", "headline"):
            return await handle_msg(self, element)
        jid = JID(to)  # (a server's own address, with no user, raises: the guard logs it)
        host = AppConfig.app_config.host
        if jid.domain in self._ip:  # (the server's address for its name, as pyjabber)
            jid = JID(user=jid.user, domain=host, resource=jid.resource)
        if jid.domain != host or _online(self._connections, jid):
            return await handle_msg(self, element)
        bounce = ET.Element("message", attrib={"from": to, "to": str(self._jid),
                                               "type": "error"})
        if element.attrib.get("id"):
            bounce.attrib["id"] = element.attrib["id"]
        for child in element:  # (the message, as RFC 6120 8.3.1 allows: its thread too)
            bounce.append(child)
        error = ET.SubElement(bounce, "error", attrib={"type": "cancel"})
        ET.SubElement(error, f"{{{STANZA_ERRORS}}}service-unavailable")
        self._transport.write(ET.tostring(bounce))

    StanzaHandler.handle_msg = handle_or_bounce
    StanzaHandler._maw_offline = True


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


LOST_PRESENCES: set[asyncio.Task] = set()  # telling contacts of a lost connection


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
    pending = LOST_PRESENCES

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


def checks_senders() -> bool:
    """Does this process's pyjabber already check senders (``apply(True)`` ran)?"""
    from pyjabber.stream.handlers.StanzaHandler import StanzaHandler

    return getattr(StanzaHandler, "_maw_senders", False)
