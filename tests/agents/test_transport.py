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


async def test_a_roster_request_the_server_fails_is_not_left_to_the_garbage_collector():
    """SPADE's client asks for its roster at session start and never looks at the answer:
    pyjabber's ``internal-server-error`` for it was told to the loop, when collected, as
    "Future exception was never retrieved" (CI run 57), which a person's terminal shows."""
    import gc

    from slixmpp.exceptions import IqError

    from maw.agents.transport import Client

    client = Client("ann@localhost", "pw", False, True)
    loop = asyncio.get_running_loop()
    asked: list[asyncio.Future] = []

    def get_roster(*_, **__) -> asyncio.Future:
        asked.append(loop.create_future())
        return asked[-1]

    client.send_presence = lambda *_, **__: None  # (no stream: nothing to send on)
    client.get_roster = get_roster
    client.event("session_start")  # (its handlers, as slixmpp runs them)
    await asyncio.sleep(0)
    assert len(asked) == 1
    answer = client.Iq()
    answer["type"] = "error"
    answer["error"]["condition"] = "internal-server-error"
    asked[0].set_exception(IqError(answer))
    await asyncio.sleep(0)
    gc.collect()  # (earlier garbage first)
    told: list[dict] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: told.append(context))
    try:
        del asked[:], client
        gc.collect()
        await asyncio.sleep(0.05)
    finally:
        loop.set_exception_handler(before)
    assert told == []
