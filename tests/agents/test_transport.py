"""What MAW reads of SPADE's behaviours (``maw.agents.transport``), on SPADE's own
behaviour and message classes, without a server."""

from __future__ import annotations

import asyncio

import pytest
from spade.behaviour import CyclicBehaviour
from spade.message import Message

from maw.agents.transport import FirstIn, bare


class Idle(CyclicBehaviour):
    async def run(self) -> None:  # (never started: its queue is what is read)
        return None


async def test_the_gamemasters_messages_waiting_are_taken_before_a_backlog_of_others():
    behaviour = Idle()
    behaviour.queue = asyncio.Queue()  # (as SPADE gives it when an agent adds it)
    inbox = FirstIn(lambda msg: bare(msg.sender) == "gm@localhost")
    sent = [("flood@localhost", "x1"), ("flood@localhost", "x2"), ("gm@localhost", "close"),
            ("flood@localhost", "x3"), ("gm@localhost", "verdict")]
    for sender, body in sent:
        behaviour.queue.put_nowait(Message(to="room@localhost", sender=sender, body=body))
    got = [(await inbox.receive(behaviour, 0.1)).body for _ in sent]
    # the host's, in their order, then the others', in theirs
    assert got == ["close", "verdict", "x1", "x2", "x3"]
    # one that comes while the others wait is sorted as it is read
    behaviour.queue.put_nowait(Message(sender="flood@localhost", body="x4"))
    behaviour.queue.put_nowait(Message(sender="gm@localhost", body="open"))
    assert (await inbox.receive(behaviour, 0.1)).body == "open"
    assert (await inbox.receive(behaviour, 0.1)).body == "x4"
    # nothing waiting: it waits, as the behaviour's own receive does
    assert await inbox.receive(behaviour, 0.05) is None


@pytest.mark.parametrize("jid,expected", [("Ann@Localhost/res", "ann@localhost"),
                                          ("gm@localhost", "gm@localhost")])
def test_a_bare_jid_is_lower_case_without_its_resource(jid, expected):
    from slixmpp import JID

    assert bare(jid) == expected == bare(JID(jid))
