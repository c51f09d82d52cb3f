"""``maw bench``: one seat rated against a frozen pool of MAW's reference agents, as the
NeurIPS 2025 MindGames arena rates a new agent against its MG-Ref pool.

The pool is MAW's own pinned agents: ``random``, ``rule``, ``hybrid`` (the hybrid agent's
strategy, speaking its template lines) and ``learned`` (the tables shipped in
``agents/policies/``, where there is one for the ruleset, size and side); where asked,
``llm``: the design document's LLM player on the embedded model. Everything is played on
the engine (``maw.simulate``), so a bench of hundreds of games of engine agents takes
seconds; a game with a model in it (an ``llm`` or ``hybrid`` candidate from a roster, or
the ``llm`` pool agent) takes the model's time, its players thinking asynchronously
(``maw.simulate.aplay_game``).

1. **The pool's ratings.** ``calibration`` games with every seat a pool agent drawn by the
   seed; each agent has an OpenSkill rating (Plackett-Luce, a team game per game) as a
   villager and another as a werewolf. They are then frozen.
2. **The schedule.** Game ``i`` has seed ``seed + i``; the candidate sits on the
   village side in even games and the werewolves' in odd ones, on each seat of that side
   in turn; every other seat is a pool agent drawn by the game's seed. The same seeds,
   seats and opponents for every candidate: two candidates' figures are head to head.
3. **The candidate's rating**, per side: updated after each game against the frozen
   ratings of the others (only the candidate's rating moves), so it sits on the pool's
   scale; with its win rate and the 95% Wilson interval.

The same command gives the same figures run to run: every draw comes from the seeds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maw.engine import Ruleset, new_game
from maw.errors import MawError
from maw.hosting.seats import Seat
from maw.policies import Decider, decider_kind
from maw.simulate import GameRecord, aplay_game, play_game
from maw.tournament.report import wilson

POOL = ("random", "rule", "hybrid", "learned")
KNOWN = (*POOL, "llm")  # (llm: the embedded model, where asked)
POLICIES = Path(__file__).resolve().parent.parent / "hosting" / "rosters" / "policies"
# the learned tables shipped, by (ruleset, players, side)
LEARNED = {("aiwolf-5", 5, "village"): "aiwolf5-village.json",
           ("aiwolf-5", 5, "werewolves"): "aiwolf5-werewolves.json",
           ("maw", 6, "village"): "maw6-village.json",
           ("aiwolf-15", 15, "village"): "aiwolf15-village.json",
           ("werewolf-12", 12, "village"): "werewolf12-village.json"}
SIDES = ("village", "werewolves")


Policy = str | Callable[[str, random.Random], Decider]


def seat_policy(seat: Seat) -> Policy:
    """A roster seat as a game's policy: its decider's name, or (a seat with a model) a
    factory of its decider under the game's seat name."""
    if seat.llm is None or not decider_kind(seat.decider).needs_model:
        return seat.decider
    from maw.hosting.seats import deciders

    def make(name: str, rng: random.Random, role: str | None = None) -> Decider:
        """(``role``: the seat's own, dealt: its roster group's model settings)"""
        return deciders(dataclasses.replace(seat, name=name), rng.getrandbits(32))(0, role)
    make.takes_role = True  # type: ignore[attr-defined]
    return make


def thinks(policy: Policy) -> bool:
    return not isinstance(policy, str)


def reference(agent: str, rules: Ruleset, players: int, side: str) -> Policy | None:
    """The decider a pool agent plays on ``side`` (``None``: it has none there)."""
    if agent == "llm":
        from maw.hosting.roster import LLMSpec

        return seat_policy(Seat("llm", "llm", llm=LLMSpec()))
    if agent != "learned":
        return agent
    file = LEARNED.get((rules.name, players, side))
    return f"learned:{POLICIES / file}" if file else None


def learned_tables() -> str:
    """Where the ``learned`` pool agent has a table: ruleset, players and side."""
    return "; ".join(f"{r} {n} {side}" for r, n, side in LEARNED)


def plays(agent: str, rules: Ruleset, players: int) -> bool:
    """Does the pool agent play a side of this game (``learned``: only where it has a
    table)?"""
    return any(reference(agent, rules, players, s) for s in SIDES)


def names_of(players: int) -> list[str]:
    from maw.hosting.seats import default_seats

    return [s.name for s in default_seats(players)]


def sides_of(rules: Ruleset, names: list[str], seed: int) -> dict[str, str]:
    """Each seat's side in game ``seed``, as ``play_game`` will deal it."""
    state = new_game(rules, names, random.Random(seed))
    return {n: r.team.value for n, r in zip(names, state.roles, strict=True)}


@dataclass
class Side:
    """The candidate on one side: its games, wins and rating (mu, sigma)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    mu: float = 25.0
    sigma: float = 25.0 / 3

    def as_dict(self) -> dict[str, Any]:
        low, high = wilson(self.wins, self.games)
        return {"games": self.games, "wins": self.wins, "draws": self.draws,
                "win_rate": self.wins / self.games if self.games else None,
                "interval": [low, high], "mu": self.mu, "sigma": self.sigma,
                "ordinal": self.mu - 3 * self.sigma}


@dataclass
class Bench:
    """A bench's result: the candidate per side, and the pool's frozen ratings."""

    candidate: str
    ruleset: str
    players: int
    seed: int
    pool: tuple[str, ...]
    sides: dict[str, Side] = field(default_factory=lambda: {s: Side() for s in SIDES})
    frozen: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    calibration: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"candidate": self.candidate, "ruleset": self.ruleset,
                "players": self.players, "seed": self.seed, "pool": list(self.pool),
                "calibration_games": self.calibration,
                "sides": {s: v.as_dict() for s, v in self.sides.items()},
                "pool_ratings": {s: {a: {"mu": mu, "sigma": sg} for a, (mu, sg) in r.items()}
                                 for s, r in self.frozen.items()}}


def _model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def _play(rules: Ruleset, names: list[str], policy: dict[str, Policy], seed: int
          ) -> GameRecord:
    if any(thinks(p) for p in policy.values()):
        return asyncio.run(aplay_game(rules, names, policy, seed))
    return play_game(rules, names, policy, seed)


def _draw(rng: random.Random, pool: tuple[str, ...], rules: Ruleset, players: int,
          side: str) -> tuple[str, Policy]:
    """A pool agent for a seat on ``side``: (its name, its decider)."""
    choices = [(a, d) for a in pool if (d := reference(a, rules, players, side))]
    return rng.choice(choices)


def calibrate(rules: Ruleset, players: int, pool: tuple[str, ...], games: int,
              seed: int) -> dict[str, dict[str, tuple[float, float]]]:
    """The pool's ratings per side from ``games`` games among pool agents only."""
    model = _model()
    rated: dict[tuple[str, str], Any] = {}
    names = names_of(players)
    for i in range(games):
        game_seed = seed + 1_000_003 * (i + 1)  # (not the candidate's seeds)
        sides = sides_of(rules, names, game_seed)
        rng = random.Random(game_seed)
        seats = {n: _draw(rng, pool, rules, players, sides[n]) for n in names}
        record = _play(rules, names, {n: d for n, (_, d) in seats.items()}, game_seed)
        order = sorted(set(sides.values()))
        teams = [[rated.setdefault((seats[n][0], s), model.rating(name=f"{seats[n][0]}\t{s}"))
                  for n in names if sides[n] == s] for s in order]
        ranks = [0.0 if record.winner in (None, s) else 1.0 for s in order]
        for members in model.rate(teams, ranks=ranks):
            for r in members:
                agent, side = str(r.name).split("\t")
                rated[(agent, side)] = r
    out: dict[str, dict[str, tuple[float, float]]] = {s: {} for s in SIDES}
    for (agent, side), r in sorted(rated.items()):
        out.setdefault(side, {})[agent] = (r.mu, r.sigma)
    return out


def bench(rules: Ruleset, players: int, candidate: Policy, games: int, seed: int,
          pool: tuple[str, ...] = POOL, calibration: int = 1000,
          progress: Callable[[int], None] | None = None, label: str = "",
          side: str | None = None) -> Bench:
    """Rate ``candidate`` (a decider's name, e.g. ``rule`` or ``learned:FILE``, or a
    ``seat_policy``) over ``games`` games; see the module docstring. ``side`` (village or
    werewolves): every game on that side, for a player made for one side (a network
    trained as a villager); the schedule's games of that side are the same seeds, seats
    and opponents as in a bench on both sides."""
    unknown = [a for a in pool if a not in KNOWN]
    if unknown or not pool:
        raise MawError(f"unknown pool agent {', '.join(unknown) or '(none)'}: "
                       f"the pool is made of {', '.join(KNOWN)}")
    if side is not None and side not in SIDES:
        raise MawError(f"side {side!r}: village or werewolves")
    if games < (1 if side else 2):
        raise MawError("--games must be at least 2 (a game on each side)" if not side
                       else "--games must be at least 1")
    rules.roles_for(players)
    for s in SIDES:
        if not any(reference(a, rules, players, s) for a in pool):
            raise MawError(f"no pool agent plays the {s} side of {rules.name} with {players} "
                           f"players: the pool {', '.join(pool)} has no table there "
                           f"(learned's: {learned_tables()}); add random, rule or hybrid")
    names = names_of(players)
    result = Bench(label or str(candidate), rules.name, players, seed, pool,
                   calibration=calibration)
    result.frozen = calibrate(rules, players, pool, calibration, seed)
    model = _model()
    mine = {s: model.rating(name=s) for s in SIDES}
    schedule = range(games) if side is None else range(SIDES.index(side), 2 * games, 2)
    for done, i in enumerate(schedule, 1):
        game_seed = seed + i
        want = SIDES[i % 2]
        sides = sides_of(rules, names, game_seed)
        seats = [n for n in names if sides[n] == want]
        me = seats[(i // 2) % len(seats)]
        rng = random.Random(game_seed)
        policy: dict[str, Policy] = {}
        played: dict[str, str] = {}
        for n in names:
            if n == me:
                policy[n] = candidate
                continue
            played[n], policy[n] = _draw(rng, pool, rules, players, sides[n])
        record = _play(rules, names, policy, game_seed)
        tally = result.sides[want]
        tally.games += 1
        tally.wins += record.winner == want
        tally.draws += record.winner is None
        order = sorted(set(sides.values()))
        teams = []
        for s in order:
            team = []
            for n in names:
                if sides[n] != s:
                    continue
                if n == me:
                    team.append(mine[want])
                else:
                    mu, sigma = result.frozen[s].get(played[n], (25.0, 25.0 / 3))
                    team.append(model.rating(mu=mu, sigma=sigma, name=played[n]))
            teams.append(team)
        ranks = [0.0 if record.winner in (None, s) else 1.0 for s in order]
        rated = model.rate(teams, ranks=ranks)
        mine[want] = rated[order.index(want)][[n for n in names if sides[n] == want]
                                              .index(me)]
        tally.mu, tally.sigma = mine[want].mu, mine[want].sigma
        if progress is not None:
            progress(done)
    return result
