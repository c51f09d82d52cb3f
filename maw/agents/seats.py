"""What a game is (:class:`GameConfig`: size, rules, seed, timers, who may stand in) and
the GameMaster's seats at it (:class:`Occupant`, and :class:`StandIn`, a decider playing a
gone player's seat): plain data, below the Moderator that keeps them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from maw import engine
from maw.policies.base import Decider


@dataclass
class GameConfig:
    """What a game is: size, rules, seed, rounds, timers, where logs go."""

    players: int = 6
    rules: engine.Ruleset = field(default_factory=lambda: engine.ruleset("maw"))
    seed: int = 1
    rounds: int = 1
    day_seconds: float = 30.0
    night_seconds: float = 15.0
    lobby_seconds: float = 120.0
    early_end: bool = False  # also end a phase once everyone who may act said "listen"
    # a game with people: a day whose votes are open also ends once every living player
    # has voted and each is done (idle since its news, or a person's /ready)
    ready_end: bool = False
    # a decider ("rule", "random") that takes over the seat of a player whose client is
    # gone, from the next phase on (None: the seat stays empty, and is not waited for)
    substitute: str | None = None
    # with ``substitute``: a seat that lets this many phases in a row that await it in the
    # open (never a night's: ``Moderator.idled``) run to their timer without a move of its
    # own (an action, a line, a listen) is taken as away: the stand-in plays it until its
    # player moves again (0: never)
    idle_phases: int = 0
    talk_share: float = 0.5  # votes_open=talk: the share of a day after which they open
    log_dir: Path | None = None
    # (low, high) seconds: a stand-in acts at a person's pace (people sit at the table)
    pace: tuple[float, float] | None = None


@dataclass
class Occupant:
    """Who sits in a seat, as the GameMaster knows it: the player's name, its client's
    address and the token and key it was given when it joined (``maw.hosting.Seat`` is
    what sits there: a decider and its model)."""

    name: str
    jid: str
    token: str
    key: bytes = b""  # signs what the host sends this player (maw.protocol.proof)
    acted: bool = False
    # its client is offline (the server bounced a message to it, or said so), or it idled
    # (``GameConfig.idle_phases``): a stand-in plays it, and no phase waits for it
    gone: bool = False
    followed: bool = False  # the GameMaster asked to follow its presence
    seen: float = 0.0  # time.monotonic() of its last move (an action, a line, a listen)
    missed: int = 0  # phases in a row that awaited it and ran out without a move of its own


STAND_IN_ACTIONS = 20  # the most a stand-in does in one phase (two would argue forever)


@dataclass
class StandIn:
    """A decider playing a gone player's seat (``GameConfig.substitute``)."""

    decider: Decider
    since: str  # the phase it took over in (it acts from the next one)
    acted: dict[str, int] = field(default_factory=dict)  # actions per phase
    rng: random.Random = field(default_factory=random.Random)  # its pace's waits
    paced: tuple = ()  # the phase of ``ready_at``
    ready_at: float = 0.0  # time.monotonic() before which it does not act (the pace)

    def ready(self, marker: tuple, pace: tuple[float, float] | None, now: float) -> bool:
        """Whether the pace lets it act now (a wait at each phase and after each action,
        as an AI player in a game with people)."""
        if pace is None:
            return True
        if marker != self.paced:
            self.paced, self.ready_at = marker, now + self.rng.uniform(*pace)
        return now >= self.ready_at
