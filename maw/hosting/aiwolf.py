"""``maw game --aiwolf K``: AIWolf contest agents take K seats (``maw.aiwolf``). The
endpoint listens before the game, the first K agents to answer NAME are seated as
``aiwolf`` players, the game is hosted as any other, and each agent gets FINISH."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Awaitable, Callable

from maw.aiwolf.bridge import aiwolf_role, finish_packet
from maw.aiwolf.link import Limits, Link
from maw.aiwolf.platform_host import TcpEndpoint
from maw.aiwolf.rounds import TalkRounds
from maw.aiwolf.server import Endpoint, Seating
from maw.engine import Flow, Ruleset
from maw.errors import MawError
from maw.hosting.game import GameResult
from maw.hosting.seats import Seat

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def game_id() -> str:
    """A ULID, as aiwolf-nlp-server names its games (48 bits of milliseconds, 80 random)."""
    n = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    return "".join(_CROCKFORD[(n >> (5 * i)) & 31] for i in reversed(range(26)))


def check(rules: Ruleset, players: int, aiwolf: int, rounds: int, tcp: bool = False) -> None:
    """``MawError`` unless AIWolf agents can play this game (``tcp``: the 0.6 platform's
    agents, who play a game set, ``rounds`` games, over one connection)."""
    if aiwolf < 0 or aiwolf > players:
        raise MawError(f"--aiwolf must be between 0 and --players ({players})")
    if rounds != 1 and not tcp:
        raise MawError("aiwolf-nlp-server's agents play one game a connection: --aiwolf with "
                       "--rounds 1 (the 0.6 platform's play a set: --aiwolf-tcp)")
    if rules.flow != Flow.AIWOLF:
        raise MawError(f"AIWolf agents play AIWolf's game: --ruleset aiwolf-5, aiwolf-9, "
                       f"aiwolf-13 or aiwolf-15, not {rules.name}")
    for role in rules.roles_for(players):
        aiwolf_role(role.name)


def abort_at(players: int) -> int:
    """How many agents in error end a game (aiwolf-nlp-server's max_continue_error_ratio
    0.2: 1 of 5 or 9, 2 of 13, 3 of 15)."""
    return max(1, int(players * 0.2))


async def with_aiwolf(run: Callable[..., Awaitable[GameResult]], seats: list[Seat],
                      agents: int, host: str, port: int, limits: Limits, wait: float,
                      say: Callable[[str], None], day_seconds: float = 0.0, seed: int = 0,
                      players: int = 0, abort: bool = True, tcp: bool = False,
                      games: int = 1, endpoint: Seating | None = None) -> GameResult:
    """Seat ``agents`` AIWolf agents beside ``seats``, then ``run`` the game (of days of
    ``day_seconds``: a freeform talk's duration; ``seed`` orders the talk rounds). With
    ``abort``, as many agents in error as end an aiwolf-nlp-server game of ``players``
    end this one, nobody winning. ``run(seats, on_gm)`` plays the game. ``tcp``: the
    agents are the AIWolf 0.6 platform's, over its TCP protocol
    (``maw.aiwolf.platform_host``), not aiwolf-nlp-server's over a WebSocket; they play
    ``games`` games (MAW's rounds) as a game set, each agent in the same seat (and so the
    same ``Agent[NN]``) throughout, each game's FINISH before the next's INITIALIZE.
    ``endpoint``: one already listening (a server's table opens it when it is created, and
    its agents may be seated already); it is stopped at the end like one of its own."""
    if endpoint is None:
        serve = TcpEndpoint if tcp else Endpoint
        endpoint = serve(host, port, agents, limits, [s.name for s in seats], say)
        await endpoint.start()
    else:  # (its agents never take an AI seat's name)
        endpoint.reserved = [*endpoint.reserved, *(s.name for s in seats)]
    say(f"maw game: waiting {wait:.0f} s for {agents} AIWolf agent(s) at {endpoint.url}")
    try:
        links = await endpoint.gather(wait)
        gid = game_id()
        rounds = TalkRounds(random.Random(f"{seed}:aiwolf-rounds"), [x.seat for x in links],
                            patience=limits.action + limits.acceptable)

        masters: list = []  # the game's GameMaster, once it is made
        talks = {1: rounds}  # a set's games: each its own talk rounds

        def in_error(gone: Link) -> None:  # (no more turns for it)
            for talk in talks.values():
                asyncio.ensure_future(talk.leave(gone.seat))
            failed = [x.seat for x in links if x.error is not None]
            if abort and masters and len(failed) >= abort_at(players):
                masters[0].abort(f"{len(failed)} AIWolf agent(s) in error "
                                 f"({', '.join(failed)}): aiwolf-nlp-server ends a game of "
                                 f"{players} at {abort_at(players)}")

        async def before_game(link: Link, number: int) -> None:
            outcomes = masters[0].outcomes if masters else []
            while link.games < number - 1 and link.games < len(outcomes):
                out = outcomes[link.games]
                await link.finish(finish_packet(gid, out.day, dict(out.roles), out.living,
                                                link.seat), last=False)
            if number not in talks:
                talks[number] = TalkRounds(random.Random(f"{seed}:aiwolf-rounds:{number}"),
                                           [x.seat for x in links],
                                           patience=limits.action + limits.acceptable)
            link.rounds = talks[number]

        for x in links:
            x.talk_seconds = day_seconds
            x.rounds = rounds
            x.on_error = in_error
            if games > 1:
                x.before_game = before_game
        seated = [Seat(x.seat, "aiwolf", link=x, team=x.team, game_id=gid) for x in links]
        result = await run(seated + seats, masters.append)
        out = result.outcomes[-1] if result.outcomes else None
        if out is not None:
            await asyncio.gather(*(x.finish(finish_packet(
                gid, out.day, dict(out.roles), out.living, x.seat)) for x in links))
        result.aiwolf = [x.summary() for x in links]
        return result
    finally:
        await endpoint.stop()
