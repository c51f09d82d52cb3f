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


class Encoded(Message):
    """A message this process encoded, with the body it was encoded from. SPADE's
    container hands a message between two agents of one process over as this very object
    (no server in between), so :func:`decode` takes that body as it is instead of
    validating its JSON again: a 75-player game spent a fifth of its time there. A message
    that came through a server is a new ``Message``, decoded in full."""

    __slots__ = ("encoded_from",)


def encode(body: Body, to: str, thread: str | None = None) -> Message:
    return encode_all(body, [to], thread)[0]


def encode_all(body: Body, tos: list[str], thread: str | None = None) -> list[Message]:
    """``body`` as one message to each of ``tos``, its JSON written once."""
    text = body.model_dump_json(exclude_none=False)
    out = []
    for to in tos:
        msg = Encoded(to=str(to), body=text, thread=thread)
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
    if isinstance(msg, Encoded):  # (from an agent of this process, in memory)
        _check_size(msg.body)  # (the same limit as on the wire)
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
