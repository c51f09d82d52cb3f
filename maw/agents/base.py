"""What every MAW agent shares, on top of SPADE (``maw.agents.transport``): a game log,
typed sending and decoding of bodies, proofs of who sent what, each sender's rate, and
the catch-all that answers ``not-understood`` (its behaviours: ``maw.agents.guards``).
Every agent writes the game log (``maw.records.log``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Iterable
from typing import Any

from spade.behaviour import CyclicBehaviour
from spade.message import Message

from maw.agents.guards import BURST, RATE, SENDERS, NotUnderstood, Throttle
from maw.agents.transport import FirstIn, SpadeAgent, bare, of_types, receive
from maw.protocol import ProtocolError, decode, encode_all, not_understood
from maw.protocol import messages as m
from maw.protocol.codec import Encoded
from maw.protocol.convert import compact_options
from maw.protocol.messages import Body
from maw.protocol.proof import MID, PROOFS, new_key, proof_for, proven, sign
from maw.records.log import NULL_LOG, GameLog

log = logging.getLogger("maw.agents")
# the metadata that tags a message with its game, where agents' names outlive their games
# (a worker's kept logins, ``maw.hosting.logins``): another game's message is dropped
GAME = "maw-game"

class MawAgent(SpadeAgent):
    """A SPADE agent with a game log and typed send.

    ``server_host``, when set, is where the agent connects, whatever its JID's domain: SPADE
    connects to the domain itself, but the server of a domain ``localhost`` may be elsewhere
    (``127.0.0.1``, or the ``ejabberd`` container of the docker demo). It and SPADE's
    ``xmpp_port`` are set as the agent starts (``maw.hosting.connect.start_agents``).
    """

    game_log: GameLog = NULL_LOG
    sent = 0  # messages sent (a message to each recipient), for the benchmarks
    multicasts = 0  # of those, the stanzas that went to many at once (XEP-0033)
    # the server's multicast service (XEP-0033), where it has one (``find_multicast``): a
    # message sent alike to recipients outside this process is one stanza there
    multicast: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # bare JID -> the key this agent shares with it: what goes there is signed
        self.keys: dict[str, bytes] = {}
        # the JIDs whose messages this agent takes only with their proof (maw.protocol.proof)
        self.authorities: set[str] = set()
        self.forged = 0  # messages dropped for a missing or wrong proof
        self.failures = 0  # messages whose handling raised (logged, answered, survived)
        self.throttled = 0  # messages dropped for coming too fast from their sender
        self.trusted: frozenset[str] = frozenset()  # the host's own agents: no rate limit
        # sender -> [tokens, when last seen, dropped, when last told]
        self.buckets: dict[str, list[float]] = {}
        self.notices: asyncio.Queue = asyncio.Queue()  # (sender, dropped): to refuse
        # the ids of the multicast messages taken (each once: ``maw.protocol.proof``)
        self.taken: dict[str, None] = {}

    # the game this agent plays, where its name outlives the game (``GAME``): None else
    game: str | None = None
    stale = 0  # messages dropped for another game's tag

    def admit(self, msg: Message) -> bool:
        """Every message goes through here first (from the server or, in one process,
        from SPADE's container): one tagged with another game than this agent's (its
        name served that game too) is dropped and logged; one that claims to come from
        an authority of this agent but lacks its proof is dropped and logged, unanswered
        (its real sender is unknown); one from a sender over its rate is dropped."""
        if self.game is not None and (tag := msg.get_metadata(GAME)) and tag != self.game:
            self.stale += 1
            self.game_log.write("stale", agent=bare(self.jid), sender=bare(msg.sender),
                                type=str(msg.get_metadata("type"))[:40], game=str(tag)[:40])
            return False
        sender = bare(msg.sender)
        if sender in self.authorities:
            if isinstance(msg, Encoded) and msg.in_memory:
                return True  # (encoded in this process, handed over in memory: ``post``)
            if (key := self.keys.get(sender)) is None or not proven(msg, key):
                self.forged += 1
                self.game_log.write("forged", agent=bare(self.jid), sender=sender,
                                    type=str(msg.get_metadata("type"))[:40])
                return False
            if mid := msg.get_metadata(MID):  # a multicast's: taken once
                if mid in self.taken:
                    return False
                self.taken[mid] = None
                if len(self.taken) > 10_000:  # (the oldest go: a copy comes at once)
                    del self.taken[next(iter(self.taken))]
            return True
        return sender in self.trusted or not self.too_fast(sender)

    def too_fast(self, sender: str) -> bool:
        """Whether ``sender`` (not an authority: those are proven) is over its rate: the
        message is dropped, counted, and once a second the sender is refused with the
        reason and the log says how many were dropped."""
        now = time.monotonic()
        bucket = self.buckets.get(sender)
        if bucket is None:
            if len(self.buckets) >= SENDERS:  # forget the senders that have been quiet
                self.buckets = {s: b for s, b in self.buckets.items() if now - b[1] < 60}
            bucket = self.buckets[sender] = [BURST, now, 0.0, 0.0]
        bucket[0] = min(BURST, bucket[0] + (now - bucket[1]) * RATE)
        bucket[1] = now
        if bucket[0] >= 1.0:
            bucket[0] -= 1.0
            return False
        bucket[2] += 1
        self.throttled += 1
        if now - bucket[3] >= 1.0:
            bucket[3] = now
            self.game_log.write("throttled", agent=bare(self.jid), sender=sender,
                                dropped=int(bucket[2]))
            self.notices.put_nowait((sender, int(bucket[2])))
        return True

    def bounced_stanza(self, sender: str, condition: str) -> None:
        self.game_log.write("bounced", sender=sender, condition=condition)
        self.bounced(sender)

    async def send_body(self, behaviour: CyclicBehaviour, to: str, body: Body,
                        thread: str | None = None) -> None:
        await self.send_bodies(behaviour, [to], body, thread)

    async def send_bodies(self, behaviour: CyclicBehaviour, tos: list[str], body: Body,
                          thread: str | None = None) -> None:
        """``body`` to each of ``tos`` in turn, a message each, logged once: a message
        sent alike to many (a room's line to its readers, an event to every player) is one
        record whose ``to`` is the list (``maw.records.schema.recipients``), not a copy per
        recipient (a 75-player game's log held 476,578 records)."""
        if not tos:
            return
        self.game_log.write("msg", sender=bare(self.jid), to=tos[0] if len(tos) == 1 else
                            list(tos), type=body.type, body=logged_body(body))
        far: list[Message] = []  # for agents outside this process
        container = self.container
        for msg in encode_all(body, tos, thread):
            self.sent += 1
            if self.multicast and not container.has_agent(str(msg.to)):
                far.append(msg)
            else:
                await self.post(behaviour, msg)
        if len(far) > 1:
            self.send_multicast(far)
        elif far:
            await self.post(behaviour, far[0])

    async def post(self, behaviour: CyclicBehaviour, msg: Message) -> None:
        """Send ``msg``: in memory to an agent of this process (SPADE's container), else
        sealed, through the server. A message encoded here and handed over in memory
        needs no proof: no server stands between, and nothing from outside the process
        becomes an ``Encoded`` message (its JSON is then never written: a proof covers
        the text). SPADE's ``CyclicBehaviour.send`` less its trace, which named the
        behaviour by formatting it at every message (1% of a 75-player game) for a
        store MAW keeps empty."""
        container = self.container
        if self.game is not None:
            msg.set_metadata(GAME, self.game)
        if isinstance(msg, Encoded) and msg.in_memory and container.has_agent(str(msg.to)):
            msg.sender = bare(self.jid)
        else:
            self.seal(msg)
        await container.send(msg, behaviour)
        msg.sent = True

    def send_multicast(self, msgs: list[Message]) -> None:
        """``msgs`` (one body, one thread, a recipient each) as one stanza to the server's
        multicast service, which hands each recipient its copy (XEP-0033; the recipients
        as ``bcc``: none learns who else got it), with each keyed recipient's proof."""
        first = msgs[0]
        one = Message(to=self.multicast, body=first.body, thread=first.thread)
        for name in ("performative", "type"):
            one.set_metadata(name, first.get_metadata(name))
        if self.game is not None:
            one.set_metadata(GAME, self.game)
        one.sender = bare(self.jid)
        one.set_metadata(MID, secrets.token_hex(12))
        proofs = [proof_for(one, key, bare(each.to)) for each in msgs
                  if (key := self.keys.get(bare(each.to))) is not None]
        if proofs:
            one.set_metadata(PROOFS, " ".join(proofs))
        stanza = one.prepare(self.client)
        for each in msgs:
            stanza["addresses"].add_address(atype="bcc", jid=str(each.to))
        stanza.send()
        self.multicasts += 1

    async def find_multicast(self, timeout: float = 3.0) -> str | None:
        """The server's multicast service (XEP-0033), if it has one (ejabberd with the
        project's ``ejabberd.yml``): ``multicast`` is set to it; else it stays ``None``
        and a message to many is a message to each."""
        client = self.client
        for plugin in ("xep_0030", "xep_0033"):
            client.register_plugin(plugin)
        disco = client.plugin["xep_0030"]
        try:
            items = await disco.get_items(jid=self.jid.domain, timeout=timeout)
            for jid, *_ in items["disco_items"]["items"]:
                info = await disco.get_info(jid=jid, timeout=timeout)
                if "http://jabber.org/protocol/address" in info["disco_info"]["features"]:
                    self.multicast = str(jid)
                    break
        except Exception as exc:  # (no answer, an error: no multicast, said once)
            log.info("%s: no multicast service (%r)", bare(self.jid), exc)
        return self.multicast

    def seal(self, msg: Message) -> Message:
        """Set the sender of ``msg`` and sign it, if this agent shares a key with its
        recipient."""
        msg.sender = bare(self.jid)
        key = self.keys.get(bare(msg.to))
        if key is not None:
            sign(msg, key)
        return msg

    async def handler_failed(self, behaviour: CyclicBehaviour, msg: Message | None,
                             exc: Exception) -> None:
        """Handling ``msg`` raised: log it, answer a request with ``refuse``, go on."""
        self.failures += 1
        kind = str(msg.get_metadata("type"))[:40] if msg is not None else None
        sender = bare(msg.sender) if msg is not None else None
        log.warning("%s: handling %s from %s failed: %r", bare(self.jid), kind, sender, exc)
        self.game_log.write("handler_error", agent=bare(self.jid), behaviour=type(
            behaviour).__name__, type=kind, sender=sender, error=repr(exc)[:500])
        if msg is None or not sender or msg.get_metadata("performative") not in (
                "request", "query-if"):
            return
        with contextlib.suppress(Exception):  # (the answer itself must not fail the guard)
            await self.send_body(behaviour, sender, m.Refuse(
                reason=f"{kind} could not be handled: {type(exc).__name__}"), msg.thread)

    def decode_or_none(self, msg: Message) -> Body | None:
        try:
            return decode(msg)
        except ProtocolError as exc:
            self.game_log.write("refused", sender=str(msg.sender), reason=str(exc))
            self._pending_nu.append(not_understood(msg, exc))
            return None

    async def receive_body(self, behaviour: CyclicBehaviour, timeout: float,
                           inbox: FirstIn | None = None) -> tuple[Message, Body] | None:
        """The next message (``inbox``'s order, if given) and its body; one that does not
        decode is answered with ``not-understood`` and skipped (``None``), as is a quiet
        ``timeout``."""
        msg = await (inbox.receive(behaviour, timeout) if inbox is not None
                     else receive(behaviour, timeout))
        if msg is None:
            return None
        body = self.decode_or_none(msg)
        if body is None:
            await self.flush_not_understood(behaviour)
            return None
        return msg, body

    async def flush_not_understood(self, behaviour: CyclicBehaviour) -> None:
        while self._pending_nu:
            self.sent += 1
            await self.post(behaviour, self._pending_nu.pop(0))

    def add_catch_all(self, known: Iterable[str]) -> None:
        """Answer everything no other behaviour takes with ``not-understood``, and a
        sender over its rate with why its messages are dropped."""
        self.add_behaviour(Throttle())
        self._pending_nu: list[Message] = []
        self.add_behaviour(NotUnderstood(), ~of_types(*known))


def logged_body(body: Body) -> dict[str, Any]:
    """``body`` as its message's log record keeps it: no secret, nothing another record
    holds, and the options offered as ``compact_options`` (action -> its targets: a
    75-player game's options were 17 MB of its log)."""
    out = body.model_dump(exclude=SECRET_FIELDS | LOGGED_APART.get(body.type, set()))
    options = getattr(body, "options", None)
    if isinstance(options, list) and "options" in out:
        out["options"] = compact_options(options)
    return out


SECRET_FIELDS = {"view", "token", "key"}  # not in the game log: a log is shared, a key not
# fields a message's log record leaves out because other records hold them: a player's
# question to its interface is its ``input`` record (what it may do), what it had heard
# is in the records of the messages sent to it, and what its model was told (the chat
# completion, its role's prompt among it) is in its model's call records
LOGGED_APART = {"get_input": {"heard", "options", "completions"}}


def link(a: MawAgent, b: MawAgent, key: bytes | None = None) -> bytes:
    """``a`` and ``b`` share a new (or the given) key: each signs what it sends the other,
    and takes from the other only what is signed (a player and its interface)."""
    key = key or new_key()
    a.keys[bare(b.jid)] = key
    a.authorities.add(bare(b.jid))
    b.keys[bare(a.jid)] = key
    b.authorities.add(bare(a.jid))
    return key


