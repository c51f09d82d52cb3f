"""What ``maw game`` will host, from what was asked: the checks, the players (a roster, a
policy, or MAW's own choice), the phase lengths, the game's configuration."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from maw.agents.gamemaster import GameConfig
from maw.engine import Flow, Ruleset, VotesOpen, parse_options
from maw.errors import ConfigError, MawError, PluginError
from maw.hosting.defaults import (
    AIWOLF_DAY,
    AIWOLF_NIGHT,
    HUMAN_DAY,
    HUMAN_NIGHT,
    HUMAN_PACE,
    IDLE_PHASES,
    LLM_DAY,
    LLM_NIGHT,
    RULE_DAY,
    RULE_NIGHT,
)
from maw.hosting.roster import Roster
from maw.hosting.seats import (
    ModelTime,
    Moderator,
    Seat,
    check_backends,
    default_seats,
    moderator_of,
    seats_from_roster,
    time_models,
)
from maw.hosting.xmpp import Address, lobby_jid, parse_address
from maw.policies import decider_kind, stand_ins


@dataclass
class GameRequest:
    """What was asked for (``maw game``'s options)."""

    players: int
    rules: Ruleset
    seed: int = 1
    rounds: int = 1
    day_seconds: float | None = None
    night_seconds: float | None = None
    xmpp: str = "embedded"
    remote: int = 0
    humans: int = 0
    lobby: str = "main"
    roster: str | None = None
    seats: str | None = None
    policy: str | None = None
    lobby_seconds: float = 300.0
    log_dir: Path | None = None
    rule_options: tuple[str, ...] = ()  # the --rule KEY=VALUE given (rules is built from them)
    early_end: bool | None = None  # None: when no person or outside agent plays
    substitute: str | None = None  # the decider that takes over a gone player's seat
    # phases in a row that await it in the open (days) a seat may let run out without a
    # move before its stand-in plays it
    # (None: 2 in a game with people, else never; 0: never)
    idle_phases: int | None = None
    aiwolf: int = 0  # seats for AIWolf agents (maw.hosting.aiwolf seats them)
    set_memory: bool = False  # the AI seats learn of the others from round to round


@dataclass
class GamePlan:
    """What will be hosted: the configuration, the AI seats, where, who joins."""

    config: GameConfig
    seats: list[Seat]
    address: Address
    joining: int
    lobby: str | None
    moderator: Moderator | None = None  # the roster's narrating moderator, if any


def talks(seat: Seat) -> bool:
    """Does the seat's decider speak in words (its games open the votes after the talk)?"""
    return seat.decider != "aiwolf" and decider_kind(seat.decider).talks


def phase_lengths(request: GameRequest, seats: list[Seat],
                  models: Sequence[ModelTime] = ()) -> tuple[float, float]:
    """Day and night seconds: as asked, else long enough for whoever plays; where models
    play, long enough for every player's calls of a phase, each model's in turn
    (``models``: their measured seconds a call), twice as long as they should take. (A
    phase in which everyone is done ends then: a timer that is long costs nothing.)"""
    llm = any(talks(s) for s in seats)
    day, night = (HUMAN_DAY, HUMAN_NIGHT) if request.humans else (
        (AIWOLF_DAY, AIWOLF_NIGHT) if request.aiwolf else
        (LLM_DAY, LLM_NIGHT) if llm else (RULE_DAY, RULE_NIGHT))
    if models:
        day = max(day, _round5(SPARE * max(m.seconds_for(CALLS_A_DAY) for m in models)))
        night = max(night, _round5(SPARE * max(m.seconds_for(CALLS_A_NIGHT)
                                               for m in models)))
    return request.day_seconds or day, request.night_seconds or night


# a talking player's model calls in a phase: by day, what it says on the talk and its
# closing argument (the hybrid agent: each a reading of the talk and a line; a vanilla
# player: a line, its vote and another turn or two); by night, a pack's talk and choice
CALLS_A_DAY, CALLS_A_NIGHT = 4, 2
# the timers: twice as long as the calls should take (a real call is often longer than
# the probe: a longer context, a vanilla player's beliefs of every other player)
SPARE = 2.0


def _round5(seconds: float) -> float:
    return float(5 * math.ceil(seconds / 5))


async def plan_game(r: GameRequest, say: Callable[[str], None] = lambda line: None
                    ) -> GamePlan:
    """Check the request and choose the players; ``say`` hears why they were chosen.
    Raises ``MawError`` (a ``ConfigError``, a ``BackendError``) for anything wrong."""
    r.rules.roles_for(r.players)
    for flag in ("rounds", "day_seconds", "night_seconds"):
        value = getattr(r, flag)
        if value is not None and value <= 0:
            raise MawError(f"--{flag.replace('_', '-')} must be positive")
    address = parse_address(r.xmpp)
    for flag in ("remote", "humans", "aiwolf"):
        if getattr(r, flag) < 0:
            raise MawError(f"--{flag} is a number of seats: 0 or more, got {getattr(r, flag)}")
    if r.remote + r.humans + r.aiwolf > r.players:
        raise MawError("--remote, --humans and --aiwolf must add up to at most --players "
                       f"({r.players})")
    joining = r.remote + r.humans
    lobby = r.lobby if joining else None
    if lobby:
        lobby_jid(lobby)  # a bad name fails now
    if r.roster and r.policy:
        raise MawError("give --roster or --policy, not both")
    if r.seats and not r.roster:
        raise MawError("--seats picks players from a --roster")
    if r.substitute not in (None, *stand_ins()):
        raise MawError(f"unknown --substitute {r.substitute!r}: "
                       f"{' or '.join(stand_ins())} (a stand-in decides at once, no model)")
    if r.idle_phases is not None and r.idle_phases < 0:
        raise MawError(f"--idle-phases must be 0 (never) or more, not {r.idle_phases}")
    if r.policy is not None:
        from maw.policies import check_decider, decider_kind, quiet_deciders

        try:
            quiet = not decider_kind(r.policy).talks
        except PluginError:
            raise
        except ConfigError:
            quiet = False  # (unknown)
        if not quiet:
            raise MawError(f"unknown --policy {r.policy!r}: {', '.join(quiet_deciders())} "
                           "(LLM and hybrid players come from a --roster)")
        check_decider(r.policy, "--policy")
    from maw.hosting.roster import choose_roster, load_roster, roster_path

    roster, fill = roster_path(r.roster) if r.roster else None, None
    if roster is None and r.policy is None and r.players > joining + r.aiwolf:
        roster, why = await choose_roster()
        fill = "rule"  # a shipped roster may seat fewer than --players
        say(f"maw game: no --roster or --policy, so playing with "
            f"{roster or 'rule players'}: {why}")
    ai = r.players - joining - r.aiwolf
    if roster is not None:
        loaded = load_roster(roster)
        if r.seats:
            loaded = pick_seats(loaded, r.seats, roster)
        seats = seats_from_roster(loaded, ai, fill)
        moderator = moderator_of(loaded)
        if any(seat.specs() for seat in seats) or moderator:  # (a server may take seconds)
            say("maw game: asking the roster's models whether they answer...")
        models = await check_backends(seats, moderator)
        if models:
            say(f"maw game: models: {', '.join(models)}")
    else:
        seats, moderator = default_seats(ai, r.policy or "rule"), None
    timed: list[ModelTime] = []
    if r.day_seconds is None or r.night_seconds is None:
        timed = await time_models(seats)
    day, night = phase_lengths(r, seats, timed)
    for m in timed:
        say(f"maw game: {m.model} took {m.seconds:.1f} s for a typical call, "
            f"{m.at_once} at a time, for {m.players} player(s): days of {day:.0f} s "
            f"and nights of {night:.0f} s (a phase in which everyone is done ends then)")
    rules = r.rules
    talkers = any(talks(s) for s in seats)
    if (talkers or r.humans) and rules.flow == Flow.MAW and \
            rules.votes_open is VotesOpen.START and "votes_open" not in parse_options(
                r.rule_options):
        rules = replace(rules, votes_open=VotesOpen.TALK)
        who = "people sit at the table" if r.humans else "language-model players talk"
        say(f"maw game: {who}: the day's votes open once everyone has spoken or passed, "
            "or at half the day (--rule votes_open=start: with the day, as in the design "
            "document)")
    if r.set_memory:
        if r.rounds < 2:
            raise MawError("--set-memory keeps what the players learnt from round to "
                           "round: give --rounds 2 or more")
        for seat in seats:
            seat.set_memory = True
    substitute, pace = r.substitute, None
    if r.humans:
        # a person reads and types: the AI players act at a person's pace, and a person
        # who leaves does not leave a seat nobody plays (a wolf's would block every kill)
        # (a game of short phases, a test's, gets a quicker pace in proportion)
        scale = min(1.0, min(day, night) / HUMAN_NIGHT)
        pace = (HUMAN_PACE[0] * scale, HUMAN_PACE[1] * scale)
        for seat in seats:
            seat.pace = pace
        if substitute is None:
            substitute = "rule"
            say("maw game: a person who leaves is replaced by a rule player from the next "
                "phase on (--substitute random for a random one)")
    idle = r.idle_phases
    if idle is None:
        idle = IDLE_PHASES if r.humans else 0
    if substitute is None:
        idle = 0  # (nobody to play an idle seat)
    if idle:
        say(f"maw game: a player who lets {idle} days in a row run out without a move is "
            f"played by a {substitute} player until it moves again (--idle-phases 0: "
            "never)")
    early_end = r.early_end
    if early_end is None:
        # hosted AI players who all said "listen" would only wait for the timer; a person,
        # or an agent from elsewhere, may still be thinking: their phases run as the
        # design document says. An AIWolf agent's seat is idle only once its request is
        # answered (or failed), and the AIWolf servers do not wait for one that answered
        # nothing they can use (a dead agent divined: no divination, the night goes on)
        early_end = not (r.humans or r.remote)
        if early_end:
            say("maw game: a phase also ends once every player who may act has nothing "
                "more to do (--no-early-end: only by the rules or the timer, as in the "
                "design document)")
    if r.humans:
        say("maw game: a day also ends once every living player has voted and is done "
            "(a person types /ready, or /pass)")
    config = GameConfig(players=r.players, rules=rules, seed=r.seed, rounds=r.rounds,
                        day_seconds=day, night_seconds=night, lobby_seconds=r.lobby_seconds,
                        log_dir=r.log_dir, early_end=early_end, substitute=substitute,
                        pace=pace, ready_end=bool(r.humans),
                        idle_phases=idle)
    return GamePlan(config, seats, address, joining, lobby, moderator)


def pick_seats(roster: Roster, names: str, path: Path, flag: str = "--seats") -> Roster:
    """The roster with only the players ``names`` (comma-separated), in that order
    (``flag``: the option that named them, for the error)."""
    by_name = {p.name: p for p in roster.player}
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    missing = [n for n in wanted if n not in by_name]
    if missing:
        raise MawError(f"{flag}: {', '.join(missing)} not in the roster {path} (it seats "
                       f"{', '.join(by_name)})")
    if len(set(wanted)) != len(wanted):
        raise MawError(f"{flag} names a player twice")
    return roster.model_copy(update={"player": [by_name[n] for n in wanted]})


def replay_plan(log: Path, xmpp: str = "embedded", log_dir: Path | None = None,
                pace: bool = True) -> GamePlan:
    """The game of ``log`` again (``maw game --replay-llm``): its seed, rules, timers and
    AI seats as the log's ``started`` record keeps them, every model answered from the
    log by the ``recorded`` backend (``maw.llm.recorded``)."""
    from maw.engine import ruleset
    from maw.hosting.roster import LLMSpec
    from maw.records.accounting import read_log

    try:
        records = read_log(log)
    except MawError as exc:  # (a ReplayError)
        raise MawError(f"--replay-llm: {exc}") from None
    started = next((r for r in records if r.get("kind") == "started"), None)
    if started is None or not started.get("seats"):
        raise MawError(f"--replay-llm: {log} does not say how its game was set up (no "
                       "'started' record with its seats: a log from before MAW kept them)")
    if started.get("remote"):
        raise MawError(f"--replay-llm: {started['remote']} player(s) of {log} joined from "
                       "elsewhere, and their moves are not in the log: only a game of "
                       "hosted players replays")
    c = started["config"]
    rules = ruleset(started["ruleset"], **c.get("options", {}))
    seats = []
    for s in started["seats"]:
        spec = None
        if s.get("llm") is not None:
            spec = LLMSpec(**{**s["llm"], "backend": "recorded", "model": str(log),
                              "base_url": "", "api_key_env": "",
                              "options": {"pace": pace}})
        seats.append(Seat(s["name"], s["decider"], s["max_wait"], spec, s["persona"],
                          s["prompts"], set_memory=s.get("set_memory", False)))
    config = GameConfig(players=started["players"], rules=rules, seed=started["seed"],
                        rounds=c["rounds"], day_seconds=c["day_seconds"],
                        night_seconds=c["night_seconds"], early_end=c["early_end"],
                        ready_end=c.get("ready_end", False),
                        talk_share=c["talk_share"], substitute=c.get("substitute"),
                        idle_phases=c.get("idle_phases", 0),
                        log_dir=log_dir)
    return GamePlan(config, seats, parse_address(xmpp), 0, None)
