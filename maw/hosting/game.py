"""Games over XMPP.

``run_game`` hosts one: the server (embedded or not), the GameMaster, the two rooms and, per
AI seat, a PlayerAgent with its ModelInterfaceAgent; the other ``remote`` seats are taken by
players that join the lobby from other processes (``maw.hosting.players``: ``maw player``,
a person's ``maw play``, a docker container). Everything is started, run to the end, and
stopped.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from maw.agents.base import GameLog, MawAgent, link
from maw.agents.chatroom import ChatRoomAgent
from maw.agents.gamemaster import GameConfig, GameMasterAgent, Refresh, share_host_key
from maw.agents.model_interface import ModelInterfaceAgent
from maw.agents.narration import Narration
from maw.agents.player import PlayerAgent
from maw.agents.transport import bare
from maw.errors import MawError
from maw.hosting.connect import (
    RECONNECT_SECONDS,
    ConnectionWatch,
    bind_container,
    check_server,
    keep_connected,
    start_agents,
    stop_agents,
)
from maw.hosting.logins import Logins
from maw.hosting.seats import (  # noqa: F401 - the seats' names, where a game's are
    DEFAULT_NAMES,
    Seat,
    check_backends,
    completion_for,
    deciders,
    default_seats,
    seats_from_roster,
)
from maw.hosting.xmpp import (
    Address,
    EmbeddedServer,
    lobby_jid,
    stable_password,
)
from maw.policies.memory import SetMemory
from maw.records.model_calls import recording


@dataclass
class GameResult:
    log_path: Path | None
    outcomes: list = field(default_factory=list)
    standings: list[tuple[str, int]] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    seconds: float = 0.0
    startup_seconds: float = 0.0
    messages: int = 0  # messages the hosted agents sent (one to each recipient)
    multicasts: int = 0  # stanzas that carried a message to many (the server's fan-out)
    llm: dict[str, dict] = field(default_factory=dict)  # per LLM player: calls, tokens...
    unanswered: list[str] = field(default_factory=list)  # model seats never answered
    time_split: dict[str, float] = field(default_factory=dict)  # maw.records.accounting
    aiwolf: list[dict] = field(default_factory=list)  # AIWolf agents' requests, latencies


def config_record(config: GameConfig) -> dict:
    """What the log keeps of a game's configuration: enough to play it again
    (``maw game --replay-llm``)."""
    from maw.engine import changed_options

    return {"rounds": config.rounds, "day_seconds": config.day_seconds,
            "night_seconds": config.night_seconds, "early_end": config.early_end,
            "ready_end": config.ready_end, "talk_share": config.talk_share,
            "substitute": config.substitute, "idle_phases": config.idle_phases,
            "options": dict(changed_options(config.rules))}


def seat_record(seat: Seat) -> dict:
    """An AI seat as the log keeps it (its model's settings, never an API key)."""
    return {"name": seat.name, "decider": seat.decider, "max_wait": seat.max_wait,
            "persona": seat.persona, "prompts": seat.prompts,
            "llm": seat.llm.model_dump() if seat.llm is not None else None,
            **({"team": seat.team} if seat.team else {}),
            **({"set_memory": True} if seat.set_memory else {})}


def log_path(config: GameConfig) -> Path | None:
    if config.log_dir is None:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return config.log_dir / f"game-{stamp}-{config.rules.name}-seed{config.seed}.jsonl"


# how long a game cut short (Ctrl-C) has to tell the players who joined from elsewhere
STOP_TELLING_SECONDS = 3.0


async def run_game(config: GameConfig, seats: list[Seat], address: Address,
                   on_event: Callable[[object], None] | None = None,
                   game_id: str | None = None, timeout: float | None = None,
                   remote: int = 0, lobby: str | None = None,
                   watch: Callable[[dict], None] | None = None,
                   say: Callable[[str], None] | None = None,
                   on_gm: Callable[[GameMasterAgent], None] | None = None,
                   narration: Narration | None = None,
                   logins: Logins | None = None) -> GameResult:
    """Play ``config.rounds`` rounds: ``seats`` are AI players hosted here, and ``remote``
    more seats wait for players joining the lobby (named ``lobby``, so they can find it).
    ``watch`` is given every record of the game log as it is written (the web observer);
    ``say`` is told, in one line, if the XMPP server goes away during the game; ``on_gm``
    is given the GameMaster (to end the game: ``abort``); ``narration``, the narrating
    moderator's (``maw.hosting.seats.narration_of``); ``logins``, a worker's logins kept
    from game to game (``maw.hosting.logins``: every seat hosted here, no lobby)."""
    if remote < 0 or len(seats) + remote != config.players:
        raise MawError(f"{len(seats)} AI seats and {remote} remote seats do not make a "
                       f"{config.players}-player game")
    if remote and not lobby:
        raise MawError("remote players need a lobby name to join")
    if logins is not None and (remote or lobby):
        raise MawError("kept logins are for games whose every seat is hosted here")
    config.rules.roles_for(config.players)
    gid = game_id or secrets.token_hex(3)

    def jid(local: str) -> str:
        if logins is not None:
            return logins.jid(local, address.domain)
        return f"maw-{gid}-{local.lower()}@{address.domain}"

    def password(of: str) -> str:
        return logins.password(of) if logins is not None else secrets.token_hex(8)

    if lobby:
        gm_jid = lobby_jid(lobby, address.domain)
        gm_password = stable_password(gm_jid)
    else:
        gm_jid = jid("gm")
        gm_password = password(gm_jid)
    bind_container()
    check_server(address)
    # (the log first: one that cannot be written is said whatever the server's port)
    path = log_path(config)
    game_log = GameLog(path)
    server = None
    if address.embedded:
        server = EmbeddedServer(address.port)
        try:
            await server.start()
        except BaseException:
            game_log.discard()
            raise
        game_log.restart_clock()  # (its clock starts with the game, not the server)
    if watch is not None:
        game_log.listeners.append(watch)
    replayed = {s.llm.model for s in seats if s.llm is not None and s.llm.backend == "recorded"}
    recordings = []
    if replayed:  # a replay times each answer from its own phases (maw.records.model_calls)
        recordings = [recording(Path(p), fresh=True) for p in sorted(replayed)]
        game_log.listeners += [r.hear for r in recordings]
    village, hideout, lobby_room = jid("village"), jid("hideout"), jid("lobby-room")
    rooms = {"Village": village, "Hideout": hideout}
    archive = path.with_suffix("") if path else None
    # (each agent is given the server's address as it starts: ``start_agents``)
    gm = GameMasterAgent(gm_jid, gm_password, config, village, hideout, game_log,
                         on_event=on_event, lobby_room=lobby_room, narration=narration)
    room_agents = [ChatRoomAgent(room, password(room), name, gm_jid, game_log, archive)
                   for room, name in ((village, "Village"), (hideout, "Hideout"),
                                      (lobby_room, "Lobby"))]
    share_host_key(gm, room_agents)
    if recordings:  # its phases end on the recorded answers, not on a loaded machine's lag
        async def hold(phase: tuple[int, int, str], step: str) -> None:
            for short in await asyncio.gather(*(r.hold(phase, step) for r in recordings)):
                if short is not None:  # (the timer goes on without what never came)
                    game_log.write("replay_hold", **short)
        gm.hold = hold
    if on_gm is not None:
        on_gm(gm)
    first: list[MawAgent] = [*room_agents, gm]
    players: list[MawAgent] = []
    rng = random.Random(f"{config.seed}:deciders")
    for seat in seats:
        ui_jid, player_jid = jid(f"ui-{seat.name}"), jid(f"p-{seat.name}")
        interface = ModelInterfaceAgent(ui_jid, password(ui_jid), seat.name,
                                        deciders(seat, rng.getrandbits(64)), game_log,
                                        seat.max_wait, rng.getrandbits(32),
                                        pace=seat.pace,
                                        memory=SetMemory() if seat.set_memory else None)
        player = PlayerAgent(player_jid, password(player_jid), str(interface.jid), gm_jid,
                             rooms, game_log, completion=completion_for(seat))
        interface.context_dir = archive  # its model's conversation, beside the log
        link(player, interface)
        first.append(interface)
        players.append(player)
        # (a person may reach the lobby before the host's own players do)
        gm.reserved[seat.name] = bare(player.jid)
    agents = first + players
    hosted = frozenset(bare(a.jid) for a in agents)
    tag = f"{gid}:{secrets.token_hex(4)}" if logins is not None else None
    for a in agents:  # (the rate limits are for clients from outside the host)
        a.trusted = hosted
        a.game = tag  # (names that outlive the game: its messages carry its tag)
    result = GameResult(path)
    t0 = time.monotonic()
    connection: ConnectionWatch | None = None
    started = False
    try:
        # everyone a player talks to first, then the players
        await start_agents(first, address, logins)
        if remote and not address.embedded:
            # what goes alike to players of other processes is one stanza, where the
            # server fans it out (XEP-0033: ejabberd with the project's ejabberd.yml)
            found = await asyncio.gather(*(a.find_multicast() for a in (gm, *room_agents)))
            game_log.write("multicast", service=found[0])
        await start_agents(players, address, logins)
        result.startup_seconds = time.monotonic() - t0
        started = True
        where = f"{address.host}:{address.port}"
        connection = ConnectionWatch([gm], on_lost=None if say is None else lambda: say(
            f"the XMPP server at {where} went away: the players hosted here play on (they "
            f"share this process); reconnecting for up to {RECONNECT_SECONDS:.0f} s for "
            "those who joined from elsewhere"))
        keeper = asyncio.create_task(keep_connected(
            connection, agents, address, say,
            # (then every player is sent its options: what was sent meanwhile is lost)
            back=lambda: gm.add_behaviour(Refresh())))
        game_log.write("started", agents=len(agents), seconds=result.startup_seconds,
                       ruleset=config.rules.name, seed=config.seed, players=config.players,
                       remote=remote, lobby=gm_jid, wall=time.time(),
                       config=config_record(config), seats=[seat_record(s) for s in seats])
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
            if isinstance(code, MawError):  # (a lobby that never filled: say just that)
                raise MawError(str(code)) from code
            raise MawError(f"the GameMaster stopped: {code}") from (
                code if isinstance(code, BaseException) else None)
        result.seconds = time.monotonic() - t1
        for a in agents:
            if isinstance(a, ModelInterfaceAgent):
                a.log_unfinished()
                a.save_context()
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
        result.multicasts = sum(a.multicasts for a in agents)
        for a in agents:
            if isinstance(a, ModelInterfaceAgent) and a.usage()["calls"]:
                result.llm[a.player_name] = a.usage()
            elif isinstance(a, ModelInterfaceAgent) and a.never_answered():
                result.unanswered.append(a.player_name)
        if path is not None:
            from maw.records.accounting import read_log, time_split

            result.time_split = time_split(read_log(path))
        return result
    except asyncio.CancelledError:  # (Ctrl-C: no summary comes, so say where the log is)
        if path is not None and say is not None:
            say(f"the game was cut short; its log so far: {path}")
        raise
    finally:
        if remote and started and not gm.done.is_set() and gm.is_alive():
            # cut short (Ctrl-C, an error): those who joined from elsewhere are told the
            # game is over, not left to reconnect to a host that is gone (a person was
            # told "the game goes on without this player")
            # (they have been told once their clients leave, as they do at an end)
            gm.abort("the host stopped the game")
            until = time.monotonic() + STOP_TELLING_SECONDS
            while time.monotonic() < until and not (gm.done.is_set() and gm.all_left()):
                await asyncio.sleep(0.05)
        if connection is not None:
            connection.close()  # (stopping the agents disconnects them: no loss)
            keeper.cancel()
        try:  # (a Ctrl-C while the agents stop: the log and the server still close)
            await stop_agents(agents, logins)
        finally:
            game_log.close()
            if server is not None:
                await server.stop()


