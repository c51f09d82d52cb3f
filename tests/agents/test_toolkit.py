"""The agents' toolkit: deadlines, changes that cannot be missed, requests awaiting answers."""

from __future__ import annotations

import asyncio
import time

from maw.agents.toolkit import Awaiting, Changes, Deadline, cancel_and_wait


def test_a_deadline_counts_down_and_is_zero_once_passed_or_unset():
    d = Deadline()
    assert not d.is_set and d.left() == 0.0
    d.set(10)
    assert d.is_set and 9 < d.left() <= 10
    d.set(-1)
    assert d.left() == 0.0


async def test_a_change_made_between_looking_and_waiting_is_not_missed():
    changes = Changes()
    seen = changes.version
    changes.poke()  # after looking, before waiting: the wait returns at once
    t0 = time.monotonic()
    assert await changes.wait(seen, timeout=5) is True
    assert time.monotonic() - t0 < 1  # (at once: not the 5 s; a loaded machine is slow)
    seen = changes.version
    assert await changes.wait(seen, timeout=0.05) is False  # nothing changed
    later = asyncio.get_running_loop().call_later(0.05, changes.poke)
    assert await changes.wait(seen, timeout=5) is True
    later.cancel()


async def test_an_answer_counts_only_from_whom_the_request_went_to():
    asked: Awaiting[str] = Awaiting()
    future = asked.open("t1", "room@localhost", "chat by Ann")
    assert "t1" in asked and len(asked) == 1
    assert asked.answer("t1", "mallory@localhost", "forged") is None  # not the one asked
    assert asked.answer("t2", "room@localhost", "unasked") is None  # no such request
    assert asked.answer("t1", "room@localhost", "ok") == "chat by Ann"
    assert await future == "ok" and "t1" not in asked
    assert asked.answer("t1", "room@localhost", "again") is None  # answered once only


async def test_an_unanswered_request_times_out_or_is_drained_with_its_context():
    asked: Awaiting[int] = Awaiting()
    future = asked.open("slow", "gm@localhost", 1)
    assert await asked.wait(future, "slow", timeout=0.05) is None
    assert "slow" not in asked
    asked.open("a", "gm@localhost", 2)
    asked.open("b", "gm@localhost", 3)
    assert asked.drain() == [2, 3] and len(asked) == 0


async def test_messages_are_queued_as_they_come_and_taken_in_order_by_an_fsm_state():
    """``MawAgent.dispatch`` queues a message at once (no task), and ``receive`` takes a
    waiting one without a timer; an FSM's state reads its FSM's queue, not its own."""
    from spade.behaviour import FSMBehaviour, State
    from spade.message import Message

    from maw.agents.base import MawAgent
    from maw.agents.transport import receive

    class Step(State):
        async def run(self) -> None: ...

    agent = MawAgent("ann@localhost", "pw")
    fsm, step = FSMBehaviour(), Step()
    fsm.queue, step.queue = asyncio.Queue(), asyncio.Queue()
    fsm.add_state("step", step, initial=True)
    step.receive = fsm.receive  # (what SPADE's FSM does as it runs a state)
    agent.behaviours.append(fsm)
    sent = [Message(to="ann@localhost", sender=f"s{i}@localhost", body=str(i))
            for i in range(3)]
    for msg in sent:
        assert agent.dispatch(msg) == [fsm]
    assert fsm.queue.qsize() == 3 and step.queue.empty()  # (queued before any await)
    assert [await receive(step, 1) for _ in sent] == sent
    t0 = time.monotonic()
    assert await receive(step, 0.2) is None  # nothing waits: SPADE's receive waits
    assert time.monotonic() - t0 >= 0.15
    later = asyncio.get_running_loop().call_later(0.1, agent.dispatch, sent[0])
    assert await receive(step, 5) is sent[0]
    later.cancel()


async def test_an_authority_needs_a_proof_unless_its_message_was_encoded_in_this_process():
    """A message handed over in memory, as ``encode`` made it, comes from an agent of this
    process (nothing from outside becomes one); its text set anew, or a message from the
    server, must carry the sender's proof, or it is dropped as forged."""
    from spade.behaviour import CyclicBehaviour
    from spade.message import Message

    from maw.agents.base import MawAgent
    from maw.protocol import encode
    from maw.protocol import messages as m
    from maw.protocol.proof import new_key, sign

    def wire_copy_of(msg):  # (as the server hands it over: a new message of its text)
        return Message(to=str(msg.to), body=msg.body, thread=msg.thread, metadata={
            k: msg.get_metadata(k) for k in ("type", "performative")})

    class Taker(CyclicBehaviour):
        async def run(self) -> None: ...

    agent = MawAgent("ann@localhost", "pw")
    taker = Taker()
    taker.queue = asyncio.Queue()
    agent.behaviours.append(taker)
    key = agent.keys["gm@localhost"] = new_key()
    agent.authorities.add("gm@localhost")

    def from_gm(msg):
        msg.sender = "gm@localhost"
        return msg

    in_memory = from_gm(encode(m.Vote(target="Bob"), "ann@localhost"))
    assert agent.dispatch(in_memory) == [taker]
    wire = from_gm(wire_copy_of(encode(m.Vote(target="Bob"), "ann@localhost")))
    assert agent.dispatch(wire) == [] and agent.forged == 1  # no proof
    sign(wire, key)
    assert agent.dispatch(wire) == [taker]
    rewritten = from_gm(encode(m.Vote(target="Bob"), "ann@localhost"))
    rewritten.body = '{"type": "vote", "target": "Cid"}'  # (no longer as encoded)
    assert agent.dispatch(rewritten) == [] and agent.forged == 2
    assert [await taker.receive(1) for _ in range(2)] == [in_memory, wire]


async def test_cancel_and_wait_ends_the_tasks_and_leaves_a_cancel_of_the_caller_to_it():
    """``suppress(CancelledError)`` around ``await task`` ate a Ctrl-C that came while a
    host waited for its server's task to end; cancel_and_wait passes it on."""
    ending = asyncio.Event()

    async def slow_to_end():  # (its cleanup takes a while: the caller is cancelled then)
        try:
            await asyncio.sleep(60)
        finally:
            await ending.wait()

    async def broken():
        await asyncio.sleep(0)
        raise RuntimeError("broken")

    # a task's own error or cancellation is not the caller's
    failed = asyncio.create_task(broken())
    await asyncio.sleep(0.01)
    plain = asyncio.create_task(asyncio.sleep(60))
    await cancel_and_wait(plain, failed, None)
    assert plain.cancelled() and failed.done()

    held = asyncio.create_task(slow_to_end())
    await asyncio.sleep(0)
    caller = asyncio.create_task(cancel_and_wait(held))
    await asyncio.sleep(0.01)
    assert not caller.done()  # (waiting for the held task to end)
    caller.cancel()
    try:
        await asyncio.wait_for(caller, 5)
        propagated = False
    except asyncio.CancelledError:
        propagated = True
    assert propagated and caller.cancelled()
    ending.set()
    await asyncio.wait({held}, timeout=5)
    assert held.cancelled()
