"""Logins kept across games: a tournament worker's agents stay logged in to the XMPP
server from one game to the next (``maw.tournament.worker``).

A game hosted with :class:`Logins` names its agents by the worker, not by the game
(``maw-w1a2b3-gm``, ``maw-w1a2b3-p-ann``...), so the same names come back in the next
game, and each name's XMPP client, once logged in, is kept: the next game's agent of that
name starts on it (``SpadeAgent.start_on``) without a connection, a TLS handshake, a SASL
exchange or a registration, which were most of the CPU a rule game cost the server and the
worker (``benchmarks/README.md``, "Workers that keep their agents").

What keeps one game's messages from another's agents, now that the names are the same:

- the game's agents are new objects, each game (their state, their behaviours), and a
  kept client hands what it receives to its name's agent of the game now playing
  (:meth:`Kept.route`); between games, to nobody;
- every message an agent of a kept-login game sends carries its game's tag
  (``maw.agents.base.GAME``), and an agent drops, counts and logs (``stale``) one whose
  tag is another game's: a behaviour of the game before, killed but not yet woken, may
  still send once;
- a game with seats for players from elsewhere (``remote``) is not hosted this way: their
  clients would not know the tag.

A client found disconnected (the server restarted, a node of a cluster went away) is
dropped and its name logs in afresh, registering again if the server forgot it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from maw.agents.base import MawAgent


@dataclass
class Kept:
    """A client logged in as one name, and the agent of the game now playing that name."""

    client: Any  # (SPADE's XMPPClient: maw.agents.transport.Client)
    presence: Any  # (SPADE's PresenceManager, handed to each game's agent)
    owner: MawAgent | None = None
    games: int = 0  # games it served

    def route(self, stanza: Any) -> None:
        """What the client received, to its name's agent of the game now playing."""
        if self.owner is not None:
            self.owner._message_received(stanza)


@dataclass
class Logins:
    """A worker's kept logins, by JID. ``prefix`` names its agents (one per worker
    process: two workers never share a name)."""

    prefix: str = field(default_factory=lambda: f"maw-w{secrets.token_hex(3)}")
    kept: dict[str, Kept] = field(default_factory=dict)
    _passwords: dict[str, str] = field(default_factory=dict)
    logins: int = 0  # logins made (each game's reused ones are not)
    reused: int = 0  # agents started on a kept login

    def jid(self, local: str, domain: str) -> str:
        return f"{self.prefix}-{local.lower()}@{domain}"

    def password(self, jid: str) -> str:
        """``jid``'s password: the same for as long as this worker lives."""
        return self._passwords.setdefault(jid, secrets.token_hex(8))

    def take(self, agent: MawAgent) -> Kept | None:
        """The live login of ``agent``'s name, now routed to ``agent``; ``None`` if there
        is none (a dead one is dropped)."""
        name = str(agent.jid.bare)
        kept = self.kept.get(name)
        if kept is None:
            return None
        if not kept.client.is_connected():
            del self.kept[name]
            with contextlib.suppress(Exception):
                kept.client.abort()
            return None
        kept.owner = agent
        kept.games += 1
        self.reused += 1
        return kept

    def keep(self, agent: MawAgent) -> None:
        """Keep the login ``agent`` just made: from now on its client's messages go to
        whichever agent has its name (SPADE's own handler, bound to ``agent``, is taken
        off)."""
        client = agent.client
        kept = Kept(client, agent.presence, agent, games=1)
        client.del_event_handler("message", agent._message_received)
        client.add_event_handler("message", kept.route)
        self.kept[str(agent.jid.bare)] = kept
        self.logins += 1

    def release(self, agent: MawAgent) -> bool:
        """``agent``'s game is over: its login stays, routed to nobody. False if its name
        has no kept login (it was stopped the usual way)."""
        kept = self.kept.get(str(agent.jid.bare))
        if kept is None or kept.owner is not agent:
            return False
        kept.owner = None
        return True

    async def close(self, wait: float = 1.0) -> None:
        """Log every kept client out, all at once (the worker ends): each waits up to
        ``wait`` seconds for the server to close its stream (one after the other, a
        worker's 16 took longer than its runner waits for it to exit)."""
        kept, self.kept = list(self.kept.values()), {}

        async def out(k: Kept) -> None:
            with contextlib.suppress(Exception):  # (its keepalive ping: connect.silence)
                k.client.plugin["xep_0199"].disable_keepalive()
            with contextlib.suppress(Exception):
                k.presence.set_unavailable()
                await asyncio.wait_for(k.client.disconnect(wait=wait), wait + 1.0)
        await asyncio.gather(*(out(k) for k in kept))
