"""A player in its own process: an AI player (``maw player``) or a person (``maw play``)
joins a lobby on a running server and plays until the final scores."""

from __future__ import annotations

import asyncio
import random
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maw.agents.base import GameLog, MawAgent, link
from maw.agents.model_interface import ModelInterfaceAgent
from maw.agents.player import PlayerAgent
from maw.errors import MawError
from maw.hosting.connect import (
    ConnectionWatch,
    bind_container,
    check_server,
    reconnect,
    start_agents,
    stop_agents,
)
from maw.hosting.seats import Seat, completion_for, deciders
from maw.hosting.xmpp import Address, lobby_jid
from maw.policies.memory import SetMemory


@dataclass
class PlayerResult:
    name: str | None
    roles: list[str] = field(default_factory=list)
    results: list = field(default_factory=list)  # the EndGame bodies of each round
    final: bool = False  # saw the final scores (the game ended normally)
    lines: list[str] = field(default_factory=list)


async def run_player(address: Address, lobby: str, seat: Seat, *, seed: int = 0,
                     on_line: Callable[[str], None] | None = None,
                     join_seconds: float = 60.0, timeout: float | None = None,
                     log_dir: Path | None = None, reconnect_seconds: float = 30.0,
                     say: Callable[[str], None] | None = None) -> PlayerResult:
    """One AI player in this process: join ``lobby`` on the server at ``address`` and play
    until the final scores (or the GameMaster goes away). A lost connection is tried
    again for ``reconnect_seconds`` (``say`` hears it, in a line), then the seat is
    taken back."""
    rng = random.Random(seed)
    tag = secrets.token_hex(4)

    def interface(jid: str, game_log: GameLog) -> MawAgent:
        return ModelInterfaceAgent(jid, secrets.token_hex(8), seat.name,
                                   deciders(seat, rng.getrandbits(64)), game_log,
                                   seat.max_wait, rng.getrandbits(32), address.port,
                                   pace=seat.pace,
                                   memory=SetMemory() if seat.set_memory else None)

    log = log_dir / f"player-{seat.name}-{tag}.jsonl" if log_dir else None
    return await _play(address, lobby, seat.name.lower(), tag, interface, log, on_line,
                       join_seconds, timeout, push_news=False,
                       reconnect_seconds=reconnect_seconds, say=say, rename=False,
                       completion=completion_for(seat))


async def run_person(address: Address, lobby: str, console, *, name: str | None = None,
                     join_seconds: float = 60.0, timeout: float | None = None,
                     log_dir: Path | None = None, reconnect_seconds: float = 30.0,
                     say: Callable[[str], None] | None = None) -> PlayerResult:
    """A person in this process: a PlayerAgent and a UserInterfaceAgent reading
    ``console``; returns when the game ends or the person types /quit."""
    from maw.agents.user_interface import UserInterfaceAgent
    from maw.terminal.commands import TEXT

    tag = secrets.token_hex(4)
    holder: list[UserInterfaceAgent] = []

    def interface(jid: str, game_log: GameLog) -> MawAgent:
        ui = UserInterfaceAgent(jid, secrets.token_hex(8), console, game_log, name,
                                address.port, commands=TEXT)
        holder.append(ui)
        return ui

    log = log_dir / f"person-{tag}.jsonl" if log_dir else None
    return await _play(address, lobby, "person", tag, interface, log, None, join_seconds,
                       timeout, push_news=True, quit_event=lambda: holder[0].quit,
                       reconnect_seconds=reconnect_seconds, say=say)


async def _play(address: Address, lobby: str, label: str, tag: str,
                make_interface: Callable[[str, GameLog], MawAgent], log: Path | None,
                on_line: Callable[[str], None] | None, join_seconds: float,
                timeout: float | None, push_news: bool,
                quit_event: Callable[[], asyncio.Event] | None = None,
                reconnect_seconds: float = 30.0,
                say: Callable[[str], None] | None = None,
                rename: bool = True,
                completion: Callable[[Any, list[str]], dict] | None = None) -> PlayerResult:
    if say is None:
        def say(line: str) -> None:
            print(f"maw: {line}", file=sys.stderr, flush=True)
    bind_container()
    check_server(address)
    if address.embedded:
        raise MawError("a player joins a running server: give --xmpp HOST:PORT")
    domain = address.domain
    game_log = GameLog(log)
    ui_jid = f"maw-ui-{label}-{tag}@{domain}"
    interface = make_interface(ui_jid, game_log)
    player = PlayerAgent(f"maw-p-{label}-{tag}@{domain}", secrets.token_hex(8), ui_jid,
                         lobby_jid(lobby, domain), {}, game_log, address.port,
                         join_seconds=join_seconds, push_news=push_news, rename=rename,
                         completion=completion)
    if on_line is not None:
        player.on_line = on_line
    link(player, interface)
    agents: list[MawAgent] = [interface, player]
    result = PlayerResult(None)
    knocking: asyncio.Task | None = None
    try:
        await start_agents([interface], address)  # the player asks it for a name at once
        await start_agents([player], address)
        if push_news:  # (a person who mistyped the lobby waited a minute in silence)
            knocking = asyncio.create_task(_still_knocking(player, lobby, join_seconds, say))
        watch = ConnectionWatch(agents)
        ended = asyncio.create_task(player.fsm.join())
        waits = [ended]
        if quit_event is not None:
            waits.append(asyncio.create_task(quit_event().wait()))
        end = asyncio.get_running_loop().time() + (timeout or 1e9)
        done: set = set()
        try:
            while not done:
                lost = asyncio.create_task(watch.lost.wait())
                left = end - asyncio.get_running_loop().time()
                done, _ = await asyncio.wait([*waits, lost], timeout=max(0.0, left),
                                             return_when=asyncio.FIRST_COMPLETED)
                lost.cancel()
                if not done:
                    raise MawError(f"the game did not end in {timeout:.0f} s")
                if lost not in done:
                    break
                # a host stops its server once the game is over: the final scores may
                # still be on their way through the player's behaviours (on a loaded
                # machine, for more than 3 s: two players of a CI run had seen the end
                # and then called the lost connection an error)
                done, _ = await asyncio.wait([ended], timeout=3.0)
                if done or player.game_over:
                    break
                where = f"{address.host}:{address.port}"
                say(f"lost the connection to the XMPP server at {where}; reconnecting "
                    f"for up to {reconnect_seconds:.0f} s")
                watch.stop()
                if not (await reconnect(agents, address, reconnect_seconds)
                        and await player.rejoin(reconnect_seconds)):
                    raise MawError(f"lost the connection to the XMPP server at {where}; "
                                   "the game goes on without this player")
                watch.rearm()
                game_log.write("rejoined", player=player.seat_name, jid=str(player.jid.bare))
                say(f"reconnected to {where}: back in the game as {player.seat_name}")
        finally:
            watch.stop()
            for t in waits:
                t.cancel()
        code = player.fsm.exit_code if player.fsm.is_done() else None
        if isinstance(code, BaseException):
            raise MawError(str(code)) from code
        result.name = player.seat_name
        result.roles = list(player.roles)
        result.results = list(player.results)
        result.final = player.game_over  # (the final scores, or the last round's end)
        return result
    finally:
        if knocking is not None:
            knocking.cancel()
        await stop_agents(agents)
        game_log.close()


LOBBY_SILENT_SECONDS = 10.0  # a person knocking at a lobby is told after this long


async def _still_knocking(player: PlayerAgent, lobby: str, join_seconds: float,
                          say: Callable[[str], None]) -> None:
    """Tell a person whose lobby has not answered in ``LOBBY_SILENT_SECONDS`` (a host
    still starting answers within seconds), once."""
    await asyncio.sleep(LOBBY_SILENT_SECONDS)
    left = join_seconds - LOBBY_SILENT_SECONDS
    if player.token is None and left >= 1:
        say(f"no answer from the lobby {lobby!r} yet: still asking for {left:.0f} s (is "
            "its name right? Ctrl-C stops)")
