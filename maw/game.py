"""One game over XMPP: the server (embedded or not), the GameMaster, the two rooms and a
PlayerAgent with its interface per seat, all started, run to the end, and stopped."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from spade.container import Container

from maw.agents.base import GameLog
from maw.agents.chatroom import ChatRoomAgent
from maw.agents.gamemaster import GameConfig, GameMasterAgent
from maw.agents.model_interface import ModelInterfaceAgent
from maw.agents.player import PlayerAgent
from maw.errors import MawError
from maw.policies import make_decider
from maw.xmpp import Address, EmbeddedServer, port_open

DEFAULT_NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim",
                 "Lou", "Max", "Ned", "Oli", "Pam", "Quinn", "Ray", "Sue", "Tom"]


@dataclass
class Seat:
    """An AI seat: name, decider and how long it may think before answering."""

    name: str
    decider: str = "rule"
    max_wait: float = 0.0


@dataclass
class GameResult:
    log_path: Path | None
    outcomes: list = field(default_factory=list)
    standings: list[tuple[str, int]] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    seconds: float = 0.0
    startup_seconds: float = 0.0


def default_seats(n: int, decider: str = "rule") -> list[Seat]:
    names = DEFAULT_NAMES + [f"P{i}" for i in range(len(DEFAULT_NAMES), n)]
    return [Seat(names[i], decider) for i in range(n)]


def log_path(config: GameConfig) -> Path | None:
    if config.log_dir is None:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return config.log_dir / f"game-{stamp}-{config.rules.name}-seed{config.seed}.jsonl"


async def run_game(config: GameConfig, seats: list[Seat], address: Address,
                   on_event: Callable[[object], None] | None = None,
                   game_id: str | None = None, timeout: float | None = None) -> GameResult:
    """Play ``config.rounds`` rounds with ``seats`` on the XMPP server at ``address``."""
    if len(seats) != config.players:
        raise MawError(f"{len(seats)} seats for a {config.players}-player game")
    config.rules.roles_for(config.players)
    # SPADE's container is a process-wide singleton bound to one event loop: rebind it
    # when this game runs in another (a second game, a test)
    container = Container()
    if container.loop is not asyncio.get_running_loop():
        container.reset()
    server = None
    if address.embedded:
        server = EmbeddedServer(address.port)
        await server.start()
    elif not port_open(address.host, address.port):
        raise MawError(f"no XMPP server answers at {address.host}:{address.port}")
    path = log_path(config)
    game_log = GameLog(path)
    gid = game_id or secrets.token_hex(3)
    host, port = address.host, address.port

    def jid(local: str) -> str:
        return f"maw-{gid}-{local.lower()}@{host}"

    def password() -> str:
        return secrets.token_hex(8)

    gm_jid, village, hideout = jid("gm"), jid("village"), jid("hideout")
    rooms = {"Village": village, "Hideout": hideout}
    archive = path.with_suffix("") if path else None
    agents: list = [
        ChatRoomAgent(village, password(), "Village", gm_jid, game_log, archive, port),
        ChatRoomAgent(hideout, password(), "Hideout", gm_jid, game_log, archive, port),
    ]
    gm = GameMasterAgent(gm_jid, password(), config, village, hideout, game_log, port,
                         on_event)
    agents.append(gm)
    rng = random.Random(f"{config.seed}:deciders")
    for seat in seats:
        interface = jid(f"ui-{seat.name}")
        decider = make_decider(seat.decider, seat.name, random.Random(rng.getrandbits(64)))
        agents.append(ModelInterfaceAgent(interface, password(), seat.name, decider, game_log,
                                          seat.max_wait, rng.getrandbits(32), port))
        agents.append(PlayerAgent(jid(f"p-{seat.name}"), password(), interface, gm_jid, rooms,
                                  game_log, port))
    result = GameResult(path)
    t0 = time.monotonic()
    try:
        # everyone a player talks to first, then the players
        first = [a for a in agents if not isinstance(a, PlayerAgent)]
        players = [a for a in agents if isinstance(a, PlayerAgent)]
        for group in (first, players):
            await asyncio.gather(*(a.start(auto_register=True) for a in group))
            for a in group:
                a.presence.set_available()  # pyjabber drops messages to a JID without it
        result.startup_seconds = time.monotonic() - t0
        game_log.write("started", agents=len(agents), seconds=result.startup_seconds,
                       ruleset=config.rules.name, seed=config.seed, players=config.players)
        t1 = time.monotonic()
        done = asyncio.create_task(gm.done.wait())
        fsm_end = asyncio.create_task(gm.fsm.join())
        finished, _ = await asyncio.wait({done, fsm_end}, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        for t in (done, fsm_end):
            t.cancel()
        if not finished:
            raise MawError(f"the game did not finish in {timeout:.0f} s")
        if not gm.done.is_set():
            code = gm.fsm.exit_code
            raise MawError(f"the GameMaster stopped: {code!r}") from (
                code if isinstance(code, BaseException) else None)
        result.seconds = time.monotonic() - t1
        result.outcomes = list(gm.outcomes)
        result.standings = gm.board.standings()
        result.absent = gm.absent()
        # let the players take the final scores, then check every FSM ended well
        await asyncio.sleep(0.05)
        for a in agents:
            fsm = getattr(a, "fsm", None)
            code = fsm.exit_code if fsm is not None and fsm.is_done() else None
            if isinstance(code, BaseException):
                game_log.write("agent_error", agent=str(a.jid), error=repr(code))
        return result
    finally:
        for a in agents:
            with contextlib.suppress(Exception):
                await a.stop()
        game_log.close()
        if server is not None:
            await server.stop()
