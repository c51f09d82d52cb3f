"""The codec between message bodies and ``spade.Message``.

The body is JSON; the metadata carries ``performative`` (FIPA) and ``type`` as strings so
that SPADE ``Template``s can route on them. Anything that does not decode raises
:class:`ProtocolError`, which the receiver answers with ``not-understood``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from spade.message import Message

from maw.errors import ProtocolError
from maw.protocol import messages
from maw.protocol.messages import Body, NotUnderstood

MAX_BODY = 64 * 1024  # bytes; a longer body is refused unread


class _Json:
    """The JSON text of one body, written when it is first read and shared by every
    message of that body (a room's line to 75 players is written once, if at all)."""

    __slots__ = ("body", "text")

    def __init__(self, body: Body) -> None:
        self.body = body
        self.text: str | None = None

    def get(self) -> str:
        if self.text is None:
            self.text = self.body.model_dump_json()
        return self.text


class Encoded(Message):
    """A message this process encoded, with the body it was encoded from. SPADE's
    container hands a message between two agents of one process over as this very object
    (no server in between), so :func:`decode` takes that body as it is instead of
    validating its JSON again (a 75-player game spent a fifth of its time there), and its
    JSON text is written only if something reads it: the server's stanza, a proof (only
    a message that leaves the process carries one), a log. A 75-player game wrote 280 MB
    of its players' questions to their interfaces, each with the player's whole view,
    that no one read. A message that came through a server is a new ``Message``, decoded
    in full. Its ``body`` set anew (a test's tampering) is a text like any other's."""

    __slots__ = ("encoded_from", "_json")
    _json: _Json | None
    encoded_from: Body

    @property
    def body(self) -> str | None:
        json = self._json
        return json.get() if json is not None else self._body

    @body.setter
    def body(self, text: str | None) -> None:
        self._json = None
        Message.body.fset(self, text)

    @property
    def in_memory(self) -> bool:
        """Still the very body it was encoded from (not a text set since)."""
        return self._json is not None


def encode(body: Body, to: str, thread: str | None = None) -> Message:
    return encode_all(body, [to], thread)[0]


def encode_all(body: Body, tos: list[str], thread: str | None = None) -> list[Message]:
    """``body`` as one message to each of ``tos``, its JSON written once, when first
    read."""
    text = _Json(body)
    out = []
    for to in tos:
        msg = Encoded(to=str(to), thread=thread)
        msg._json = text
        msg.encoded_from = body
        msg.set_metadata("performative", body.PERFORMATIVE)
        msg.set_metadata("type", body.type)
        out.append(msg)
    return out


def _check_size(text: str | None) -> str:
    if not text:
        raise ProtocolError("empty body")
    if len(text.encode("utf-8", "replace")) > MAX_BODY:
        raise ProtocolError(f"body of {len(text)} characters is over the {MAX_BODY} byte limit")
    return text


def decode_body(text: str | None) -> Any:  # (one of messages.BODIES, by its type)
    text = _check_size(text)
    try:
        return messages.ADAPTER.validate_json(text)  # (read now: the table may grow)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "body"
        if first.get("type") == "json_invalid":
            raise ProtocolError(f"malformed JSON: {first.get('msg')}") from exc
        raise ProtocolError(f"{where}: {first.get('msg')}") from exc


def decode(msg: Message) -> Any:
    """The body of ``msg``; raises :class:`ProtocolError` if it is not a MAW message."""
    if isinstance(msg, Encoded) and msg.in_memory:  # (from an agent of this process)
        # (no size limit: it guards the wire, and a body made here is of fields that
        # have bounds of their own, such as a line's 2,000 characters)
        body = msg.encoded_from
    else:
        body = decode_body(msg.body)
    declared = msg.get_metadata("type")
    if declared and declared != body.type:
        raise ProtocolError(f"metadata type {declared!r} does not match body type "
                            f"{body.type!r}")
    return body


def not_understood(msg: Message, error: Exception) -> Message:
    """The reply to a message that did not decode."""
    reply = encode(NotUnderstood(reason=str(error)[:500]), str(msg.sender.bare), msg.thread)
    return reply
