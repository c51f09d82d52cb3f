"""The behaviours that guard a MAW agent: :class:`Guarded`, a behaviour no message can end;
:class:`Throttle`, which tells a sender over its rate why its messages are dropped (the
rate: ``RATE`` and ``BURST``, applied by ``MawAgent.too_fast``); and
:class:`NotUnderstood`, which answers what no other behaviour takes. (The proofs of who
sent what are checked as each message arrives: ``MawAgent.admit``.)"""

from __future__ import annotations

from spade.behaviour import CyclicBehaviour
from spade.message import Message

from maw.protocol import ProtocolError, decode, not_understood
from maw.protocol import messages as m
from maw.protocol.messages import Body

# what one sender from outside the host may send one agent: RATE messages a second on
# average, BURST at once (a person sends a few a phase; a flood is dropped before it is
# queued, so the host's memory and time stay bounded), and the most senders whose counts
# are kept. The host's own agents are not limited: a chat loop among instant players made
# a hosted rule player answer 40 "listen"s a second, each of them legitimate
RATE, BURST, SENDERS = 50.0, 200.0, 10_000



class Guarded(CyclicBehaviour):
    """A behaviour that handles one message a run, and that no message can end: SPADE
    ends a behaviour whose ``run`` raises, and one hostile message once ended the
    GameMaster's answers to every player. Subclasses implement ``handle``."""

    receive_timeout = 10.0

    async def run(self) -> None:
        agent = self.agent  # (a MawAgent)
        msg: Message | None = None
        try:
            got = await agent.receive_body(self, timeout=self.receive_timeout)
            if got is None:
                return
            msg, body = got
            await self.handle(msg, body)
        except Exception as exc:
            await agent.handler_failed(self, msg, exc)

    async def handle(self, msg: Message, body: Body) -> None:
        raise NotImplementedError


class Throttle(CyclicBehaviour):
    """Tells a sender that went over its rate why its messages are dropped (once a
    second at most: a refusal for every dropped message would flood it back)."""

    def match(self, message: Message) -> bool:
        # it reads no message (its work comes from ``agent.notices``); with SPADE's
        # default, no template, every message the agent got was queued here too, and
        # never read: a 75-player game's agents held about 400,000 of them
        return False

    async def run(self) -> None:
        agent = self.agent  # (a MawAgent)
        sender, dropped = await agent.notices.get()
        try:
            await agent.send_body(self, sender, m.Refuse(
                reason=f"too many messages: {dropped} dropped so far; at most "
                       f"{RATE:.0f} a second"))
        except Exception as exc:
            await agent.handler_failed(self, None, exc)


class NotUnderstood(CyclicBehaviour):
    async def run(self) -> None:
        msg = await self.receive(timeout=10)
        if msg is None:
            return
        agent = self.agent  # (a MawAgent)
        try:
            await self.answer(msg)
        except Exception as exc:
            await agent.handler_failed(self, msg, exc)

    async def answer(self, msg: Message) -> None:
        if msg.get_metadata("type") == "not_understood":
            return  # never answer a not-understood with one: no ping-pong
        agent = self.agent  # (a MawAgent)
        try:
            decode(msg)
            reason = f"{msg.get_metadata('type')!r} is not a message {agent.jid.bare} takes"
        except ProtocolError as exc:
            reason = str(exc)
        agent.game_log.write("refused", sender=str(msg.sender), reason=reason)
        await self.send(agent.seal(not_understood(msg, ProtocolError(reason))))
