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
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from spade.message import Message

PROOF = "proof"  # the metadata key


def new_key() -> bytes:
    return secrets.token_bytes(32)


def _bare(jid: object) -> str:
    bare = getattr(jid, "bare", None)
    return str(bare if bare is not None else jid).lower()


def _canonical(msg: Message) -> bytes:
    parts = (_bare(msg.sender), _bare(msg.to), msg.thread or "",
             msg.get_metadata("type") or "", msg.get_metadata("performative") or "",
             msg.body or "")
    return "\x00".join(parts).encode("utf-8", "surrogatepass")


def sign(msg: Message, key: bytes) -> None:
    """Add the proof of ``msg`` (its sender must be set) under ``key``."""
    msg.set_metadata(PROOF, hmac.new(key, _canonical(msg), hashlib.sha256).hexdigest())


def proven(msg: Message, key: bytes) -> bool:
    """Does ``msg`` carry the proof ``key`` makes?"""
    given = msg.get_metadata(PROOF)
    if not isinstance(given, str):
        return False
    expected = hmac.new(key, _canonical(msg), hashlib.sha256).hexdigest()
    return hmac.compare_digest(given.encode(), expected.encode())
