"""Proof that a message comes from whom it says: an HMAC over the message, keyed by a
secret the two ends share and nobody else holds.

An XMPP server should stamp every stanza's sender (ejabberd does; MAW patches pyjabber to
do it too), but MAW does not rely on it: a room or a player obeys a control message only
when it carries the right proof (``proof`` in the SPADE metadata), so a lax or foreign
server cannot open the Hideout or kill a player either. The keys (docs/security.md):

* the host's key, shared by the GameMaster and its rooms in one process; it never
  crosses the wire;
* each player's key, made by the GameMaster when the player joins and sent to that
  player alone (in ``joined``); the rooms hold it too, for what they push to the player;
* each player's and its interface's pair key, made where both are built.

The proof covers the sender, the recipient (bare JIDs), the thread, the type, the
performative and the body, so it cannot be moved to another message or another
recipient.

A message sent alike to many through the server's multicast (XEP-0033, one stanza the
server copies to each recipient) carries every recipient's proof, shortened to 128 bits
(``proofs``), and an id of its own (``mid``) that the proofs cover: a recipient takes it if
its own proof is among them, and takes a message of that id once. (A recipient sees the
others' proofs of that one message; one that sent it on to them as the sender would have
it dropped as already taken, or taken in place of the same message.)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from spade.message import Message

PROOF = "proof"  # the metadata key
PROOFS = "proofs"  # a multicast message's: each recipient's proof, shortened, space-separated
MID = "mid"  # a multicast message's id, which its proofs cover
SHORT = 32  # hex digits of a proof in ``proofs`` (128 bits)


def new_key() -> bytes:
    return secrets.token_bytes(32)


def _bare(jid: object) -> str:
    bare = getattr(jid, "bare", None)
    return str(bare if bare is not None else jid).lower()


def _canonical(msg: Message) -> bytes:
    parts = (_bare(msg.sender), _bare(msg.to), msg.thread or "",
             msg.get_metadata("type") or "", msg.get_metadata("performative") or "",
             msg.body or "", msg.get_metadata(MID) or "")
    return "\x00".join(parts).encode("utf-8", "surrogatepass")


def sign(msg: Message, key: bytes) -> None:
    """Add the proof of ``msg`` (its sender must be set) under ``key``."""
    msg.set_metadata(PROOF, hmac.new(key, _canonical(msg), hashlib.sha256).hexdigest())


def proven(msg: Message, key: bytes) -> bool:
    """Does ``msg`` carry the proof ``key`` makes (its own, or among a multicast's)?"""
    given = msg.get_metadata(PROOF)
    many = msg.get_metadata(PROOFS)
    if not isinstance(given, str) and not (isinstance(many, str) and msg.get_metadata(MID)):
        return False
    expected = hmac.new(key, _canonical(msg), hashlib.sha256).hexdigest()
    if isinstance(given, str):
        return hmac.compare_digest(given.encode(), expected.encode())
    short = expected[:SHORT].encode()
    return any(hmac.compare_digest(p.encode(), short) for p in many.split()[:1000])


def proof_for(msg: Message, key: bytes, to: str) -> str:
    """The shortened proof of ``msg`` (its sender and ``MID`` set) for recipient ``to``,
    as a multicast carries it in ``PROOFS``."""
    original = msg.to
    msg.to = to
    try:
        return hmac.new(key, _canonical(msg), hashlib.sha256).hexdigest()[:SHORT]
    finally:
        msg.to = original
