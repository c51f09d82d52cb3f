"""The wire format: pydantic message bodies, FIPA performatives, the spade codec."""

from maw.protocol import messages
from maw.protocol.codec import (
    ProtocolError,
    decode,
    decode_body,
    encode,
    encode_all,
    not_understood,
)

__all__ = ["messages", "ProtocolError", "decode", "decode_body", "encode", "encode_all",
           "not_understood"]
