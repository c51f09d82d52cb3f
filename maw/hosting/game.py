"""Games over XMPP.

``run_game`` hosts one: the server (embedded or not), the GameMaster, the two rooms and, per
AI seat, a PlayerAgent with its ModelInterfaceAgent; the other ``remote`` seats are taken by
players that join the lobby from other processes (``run_player``: ``maw player``, a person's
``maw play``, a docker container). Everything is started, run to the end, and stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spade.agent import DisconnectedException
from spade.container import Container

from maw.agents.base import GameLog, MawAgent, link
from maw.agents.chatroom import ChatRoomAgent
from maw.agents.gamemaster import GameConfig, GameMasterAgent, share_host_key
from maw.agents.model_interface import ModelInterfaceAgent
from maw.agents.player import PlayerAgent
from maw.errors import MawError
from maw.hosting.roster import LLMSpec, Roster
from maw.hosting.xmpp import (
    Address,
    EmbeddedServer,
    lobby_jid,
    port_open,
    quiet_logs,
    stable_password,
)
from maw.policies import Decider, make_decider

DEFAULT_NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim",
                 "Lou", "Max", "Ned", "Oli", "Pam", "Quinn", "Ray", "Sue", "Tom"]


@dataclass
class Seat:
    """An AI seat: name, decider and how long it may think before answering; an "llm"
    seat also has its model (``llm``), persona and prompts folder."""

    name: str
    decider: str = "rule"
    max_wait: float = 0.0
    llm: LLMSpec | None = None
    persona: str = ""
    prompts: str | None = None


def seats_from_roster(roster: Roster, players: int, fill: str | None = None) -> list[Seat]:
    """The first ``players`` seats of ``roster``; a roster too short is an error, unless
    ``fill`` names a decider for the seats it lacks."""
    if len(roster.player) < players and fill is None:
        raise MawError(f"the roster seats {len(roster.player)} players, not {players}")
    seats = []
    for p in roster.player[:players]:
        llm = roster.llm_for(p) if p.decider == "llm" else None
        wait = p.max_wait if p.max_wait is not None else (llm.max_wait if llm else 0.0)
        seats.append(Seat(p.name, p.decider, wait, llm, p.persona, roster.prompts))
    taken = {s.name for s in seats}
    spare = (s for s in default_seats(players + len(taken)) if s.name not in taken)
    for _ in range(players - len(seats)):
        seats.append(Seat(next(spare).name, fill or "rule"))
    return seats


async def check_backends(seats: Sequence[Seat]) -> list[str]:
    """Ask every distinct backend of ``seats`` whether it can answer, before any agent
    starts: a roster naming an Ollama server that is not running fails now, saying so."""
    from maw.llm import make_backend

    seen: dict[str, str] = {}
    for seat in seats:
        if seat.llm is None:
            continue
        key = seat.llm.model_dump_json(include={"backend", "model", "base_url", "options"})
        if key not in seen:
            backend = make_backend(seat.llm.backend, **seat.llm.backend_config())
            await backend.check()
            seen[key] = backend.describe()
    return sorted(set(seen.values()))


@dataclass
class GameResult:
    log_path: Path | None
    outcomes: list = field(default_factory=list)
    standings: list[tuple[str, int]] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    seconds: float = 0.0
    startup_seconds: float = 0.0
    messages: int = 0  # messages the hosted agents sent
    llm: dict[str, dict] = field(default_factory=dict)  # per LLM player: calls, tokens...
    time_split: dict[str, float] = field(default_factory=dict)  # maw.records.accounting


def default_seats(n: int, decider: str = "rule") -> list[Seat]:
    names = DEFAULT_NAMES + [f"P{i}" for i in range(len(DEFAULT_NAMES), n)]
    return [Seat(names[i], decider) for i in range(n)]


def log_path(config: GameConfig) -> Path | None:
    if config.log_dir is None:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return config.log_dir / f"game-{stamp}-{config.rules.name}-seed{config.seed}.jsonl"


def deciders(seat: Seat, seed: int) -> Callable[[int], Decider]:
    """A fresh decider for each round of ``seat``, each with its own reproducible stream
    (an LLM seat: a fresh conversation each round, on one backend for the game)."""
    if seat.decider == "llm":
        from maw.llm import LLM, make_backend
        from maw.llm.decider import LLMDecider, Prompts

        spec = seat.llm or LLMSpec()
        backend = make_backend(spec.backend, **spec.backend_config())
        prompts = Prompts(Path(seat.prompts) if seat.prompts else None)

        def new_llm(round_: int) -> Decider:
            # when the model cannot answer (its server is down, its process crashed),
            # the rule player decides that turn
            fallback = make_decider("rule", seat.name, random.Random(f"{seed}:{round_}:rule"))
            return LLMDecider(seat.name, random.Random(f"{seed}:{round_}"),
                              LLM(backend, window=spec.window), prompts, seat.persona,
                              spec.max_chars, spec.temperature, fallback=("rule", fallback))
        return new_llm

    def new(round_: int) -> Decider:
        return make_decider(seat.decider, seat.name, random.Random(f"{seed}:{round_}"))
    return new


def _bind_container() -> None:
    """SPADE's container is a process-wide singleton bound to one event loop: rebind it
    when this game runs in another (a second game, a test)."""
    container = Container()
    if container.loop is not asyncio.get_running_loop():
        container.reset()
    quiet_logs()


# seconds allowed to each attempt: a connection normally takes well under a second, but
# under load (75 players registering at once) PBKDF2 hashing on the server queues up
CONNECT_TRIES = (4.0, 6.0, 10.0, 15.0, 25.0, 40.0)


async def _connect(agent: MawAgent) -> None:
    """Start ``agent``; retry when its stream stalls. pyjabber loses the TLS handshake of a
    client now and then when several connect at once from other processes (it answers
    <proceed> but never completes the handshake), and SPADE would wait forever."""
    for i, seconds in enumerate(CONNECT_TRIES):
        try:
            await asyncio.wait_for(agent.start(auto_register=True), seconds)
            return
        except (asyncio.TimeoutError, DisconnectedException) as exc:
            agent.game_log.write("connect_retry", agent=str(agent.jid), attempt=i + 1,
                                 error=type(exc).__name__)
            stalled = agent.client
            with contextlib.suppress(Exception):
                stalled.abort()
            # SPADE's handlers look up agent.client when they fire: let the stalled
            # client's "disconnected" fire now, not during the next attempt; and do not
            # come back in step with the others that stalled
            await asyncio.sleep(0.2 + random.random())
    raise MawError(f"{agent.jid} could not connect in {len(CONNECT_TRIES)} attempts "
                   f"({sum(CONNECT_TRIES):.0f} s)")


async def _start(agents: Sequence[MawAgent], address: Address) -> None:
    for a in agents:
        a.server_host = address.host
    await asyncio.gather(*(_connect(a) for a in agents))
    for a in agents:
        a.presence.set_available()  # pyjabber drops messages to a JID without it


async def _stop(agents: Sequence[MawAgent]) -> None:
    for a in agents:
        with contextlib.suppress(Exception):
            await a.stop()


def _check_server(address: Address) -> None:
    if not address.embedded and not port_open(address.host, address.port):
        raise MawError(f"no XMPP server answers at {address.host}:{address.port}")


async def run_game(config: GameConfig, seats: list[Seat], address: Address,
                   on_event: Callable[[object], None] | None = None,
                   game_id: str | None = None, timeout: float | None = None,
                   remote: int = 0, lobby: str | None = None) -> GameResult:
    """Play ``config.rounds`` rounds: ``seats`` are AI players hosted here, and ``remote``
    more seats wait for players joining the lobby (named ``lobby``, so they can find it)."""
    if remote < 0 or len(seats) + remote != config.players:
        raise MawError(f"{len(seats)} AI seats and {remote} remote seats do not make a "
                       f"{config.players}-player game")
    if remote and not lobby:
        raise MawError("remote players need a lobby name to join")
    config.rules.roles_for(config.players)
    _bind_container()
    _check_server(address)
    server = None
    if address.embedded:
        server = EmbeddedServer(address.port)
        await server.start()
    path = log_path(config)
    game_log = GameLog(path)
    gid = game_id or secrets.token_hex(3)
    port = address.port

    def jid(local: str) -> str:
        return f"maw-{gid}-{local.lower()}@{address.domain}"

    def password() -> str:
        return secrets.token_hex(8)

    if lobby:
        gm_jid = lobby_jid(lobby, address.domain)
        gm_password = stable_password(gm_jid)
    else:
        gm_jid, gm_password = jid("gm"), password()
    village, hideout = jid("village"), jid("hideout")
    rooms = {"Village": village, "Hideout": hideout}
    archive = path.with_suffix("") if path else None
    gm = GameMasterAgent(gm_jid, gm_password, config, village, hideout, game_log, port,
                         on_event)
    room_agents = [
        ChatRoomAgent(village, password(), "Village", gm_jid, game_log, archive, port),
        ChatRoomAgent(hideout, password(), "Hideout", gm_jid, game_log, archive, port),
    ]
    share_host_key(gm, room_agents)
    first: list[MawAgent] = [*room_agents, gm]
    players: list[MawAgent] = []
    rng = random.Random(f"{config.seed}:deciders")
    for seat in seats:
        interface = ModelInterfaceAgent(jid(f"ui-{seat.name}"), password(), seat.name,
                                        deciders(seat, rng.getrandbits(64)), game_log,
                                        seat.max_wait, rng.getrandbits(32), port)
        player = PlayerAgent(jid(f"p-{seat.name}"), password(), str(interface.jid), gm_jid,
                             rooms, game_log, port)
        link(player, interface)
        first.append(interface)
        players.append(player)
    agents = first + players
    result = GameResult(path)
    t0 = time.monotonic()
    try:
        # everyone a player talks to first, then the players
        await _start(first, address)
        await _start(players, address)
        result.startup_seconds = time.monotonic() - t0
        game_log.write("started", agents=len(agents), seconds=result.startup_seconds,
                       ruleset=config.rules.name, seed=config.seed, players=config.players,
                       remote=remote, lobby=gm_jid, wall=time.time())
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
            raise MawError(f"the GameMaster stopped: {code}") from (
                code if isinstance(code, BaseException) else None)
        result.seconds = time.monotonic() - t1
        for a in agents:
            if isinstance(a, ModelInterfaceAgent):
                a.log_unfinished()
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
        result.messages = sum(a.sent for a in agents)
        for a in agents:
            if isinstance(a, ModelInterfaceAgent) and a.usage()["calls"]:
                result.llm[a.player_name] = a.usage()
        if path is not None:
            from maw.records.accounting import read_log, time_split

            result.time_split = time_split(read_log(path))
        return result
    finally:
        await _stop(agents)
        game_log.close()
        if server is not None:
            await server.stop()


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
                     log_dir: Path | None = None) -> PlayerResult:
    """One AI player in this process: join ``lobby`` on the server at ``address`` and play
    until the final scores (or the GameMaster goes away)."""
    rng = random.Random(seed)
    tag = secrets.token_hex(4)

    def interface(jid: str, game_log: GameLog) -> MawAgent:
        return ModelInterfaceAgent(jid, secrets.token_hex(8), seat.name,
                                   deciders(seat, rng.getrandbits(64)), game_log,
                                   seat.max_wait, rng.getrandbits(32), address.port)

    log = log_dir / f"player-{seat.name}-{tag}.jsonl" if log_dir else None
    return await _play(address, lobby, seat.name.lower(), tag, interface, log, on_line,
                       join_seconds, timeout, push_news=False)


async def run_person(address: Address, lobby: str, console, *, name: str | None = None,
                     join_seconds: float = 60.0, timeout: float | None = None,
                     log_dir: Path | None = None) -> PlayerResult:
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
                       timeout, push_news=True, quit_event=lambda: holder[0].quit)


async def _play(address: Address, lobby: str, label: str, tag: str,
                make_interface: Callable[[str, GameLog], MawAgent], log: Path | None,
                on_line: Callable[[str], None] | None, join_seconds: float,
                timeout: float | None, push_news: bool,
                quit_event: Callable[[], asyncio.Event] | None = None) -> PlayerResult:
    _bind_container()
    _check_server(address)
    if address.embedded:
        raise MawError("a player joins a running server: give --xmpp HOST:PORT")
    domain = address.domain
    game_log = GameLog(log)
    ui_jid = f"maw-ui-{label}-{tag}@{domain}"
    interface = make_interface(ui_jid, game_log)
    player = PlayerAgent(f"maw-p-{label}-{tag}@{domain}", secrets.token_hex(8), ui_jid,
                         lobby_jid(lobby, domain), {}, game_log, address.port,
                         join_seconds=join_seconds, push_news=push_news)
    if on_line is not None:
        player.on_line = on_line
    link(player, interface)
    agents: list[MawAgent] = [interface, player]
    result = PlayerResult(None)
    try:
        await _start([interface], address)  # the player asks it for a name at once
        await _start([player], address)
        waits = [asyncio.create_task(player.fsm.join())]
        if quit_event is not None:
            waits.append(asyncio.create_task(quit_event().wait()))
        done, _ = await asyncio.wait(waits, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        for t in waits:
            t.cancel()
        if not done:
            raise MawError(f"the game did not end in {timeout:.0f} s")
        code = player.fsm.exit_code if player.fsm.is_done() else None
        if isinstance(code, BaseException):
            raise MawError(str(code)) from code
        result.name = player.seat_name
        result.roles = list(player.roles)
        result.results = list(player.results)
        result.final = player.final
        return result
    finally:
        await _stop(agents)
        game_log.close()
