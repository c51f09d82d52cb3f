"""``maw simulate``: many games on the engine alone, no XMPP, as fast as Python allows.

Each game is :func:`maw.engine.loop.game_loop` (the phase timer modelled by rounds of
turns) with a decider in every seat.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import signal
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from maw.engine import Action, GameState, Ruleset, new_game, view
from maw.engine.events import Event
from maw.engine.loop import game_loop
from maw.engine.scoring import points
from maw.errors import MawError
from maw.policies import AsyncDecider, make_decider
from maw.policies.base import Decider


@dataclass
class GameRecord:
    """One simulated game: who won, how long it took, what went wrong."""

    winner: str | None
    days: int
    actions: int
    invalid_actions: int
    points: dict[str, int]
    roles: dict[str, str]


def _deliver(deciders: dict[str, Decider], listeners: list[Decider],
             events: tuple[Event, ...]) -> None:
    for event in events:
        audience = event.audience
        if audience is None:
            for d in listeners:
                d.observe(event)
        else:
            for name in audience:
                d = deciders[name]
                if d in listeners:
                    d.observe(event)


def _deciders(state: GameState, names: list[str], policy, teams, rng) -> dict[str, Decider]:
    policies = policy if isinstance(policy, dict) else dict.fromkeys(names, policy)
    if teams:
        policies = {n: teams.get(r.team.value, policies[n])
                    for n, r in zip(names, state.roles, strict=True)}
    out = {}
    for n, role in zip(names, state.roles, strict=True):
        p, stream = policies[n], random.Random(rng.getrandbits(64))
        if isinstance(p, str):
            out[n] = make_decider(p, n, stream)
        elif getattr(p, "takes_role", False):  # (a roster seat: its group's settings)
            out[n] = p(n, stream, role=role.name)
        else:
            out[n] = p(n, stream)
    return out


def play_game(rules: Ruleset, names: list[str], policy: str | dict, seed: int,
              rounds_per_phase: int = 3, max_steps: int = 100_000,
              teams: dict[str, Any] | None = None,
              beliefs: list | None = None, events: list | None = None) -> GameRecord:
    """Play one game with deciders named by ``policy`` (one name, or one per player: a
    decider's name or a factory ``(player, rng) -> Decider``; one whose ``takes_role`` is
    true is also given the role its player was dealt, ``role=``, as a roster seat takes
    its group's settings), or by ``teams`` (team -> a decider's name or a factory, once
    the roles are dealt: "village", "werewolves"). ``beliefs`` (a list)
    receives, at the end of every phase, each living player's beliefs as its decider
    states them: (player, role, day, phase, {name: P(wolf)}). ``events`` (a list) receives
    every event of the game, in order."""
    rng = random.Random(seed)
    state: GameState = new_game(rules, names, rng)
    deciders = _deciders(state, names, policy, teams, rng)
    game = _game(names, deciders, state, rng, rounds_per_phase, max_steps, seed, beliefs,
                 events)
    try:
        name, at, legal = next(game)
        while True:
            d = deciders[name]
            name, at, legal = game.send(d.decide(view(at, name) if d.needs_view else None,
                                                 legal))
    except StopIteration as done:
        return _record(rules, names, done.value)


async def aplay_game(rules: Ruleset, names: list[str], policy: str | dict, seed: int,
                     rounds_per_phase: int = 3, max_steps: int = 100_000) -> GameRecord:
    """``play_game`` where some deciders think asynchronously (an LLM or hybrid player:
    its ``adecide`` is awaited, with the transcript lines it heard since its last turn as
    its messages); the same loop, the same game for the same decisions."""
    from maw.protocol.render import event_text

    rng = random.Random(seed)
    state: GameState = new_game(rules, names, rng)
    deciders = _deciders(state, names, policy, None, rng)
    heard: list[Event] = []
    unread: dict[str, int] = dict.fromkeys(names, 0)
    game = _game(names, deciders, state, rng, rounds_per_phase, max_steps, seed, None,
                 heard)
    try:
        name, at, legal = next(game)
        while True:
            d = deciders[name]
            if not isinstance(d, AsyncDecider):
                action = d.decide(view(at, name) if d.needs_view else None, legal)
            else:
                lines = [line for e in heard[unread[name]:]
                         if e.audience is None or name in e.audience
                         if (line := event_text(e))]
                unread[name] = len(heard)
                action = await d.adecide(view(at, name), legal, lines)
            name, at, legal = game.send(action)
    except StopIteration as done:
        return _record(rules, names, done.value)


def _game(names: list[str], deciders: dict[str, Decider], state: GameState,
          rng: random.Random, rounds_per_phase: int, max_steps: int, seed: int,
          beliefs: list | None, events: list | None
          ) -> Generator[tuple[str, GameState, tuple], Action | None,
                         tuple[GameState, int, int]]:
    """The game loop (``maw.engine.loop``) of these deciders: it yields (player, state,
    legal actions) whenever a player is to choose, is sent the player's choice (``None``:
    nothing), and returns what :func:`_record` makes the game's record of. The deciders
    that observe hear every event meant for them."""
    listeners = [d for d in deciders.values() if type(d).observe is not Decider.observe]

    def heard(happened: tuple[Event, ...]) -> None:
        if listeners:
            _deliver(deciders, listeners, happened)
        if events is not None:
            events.extend(happened)

    def ending(at: GameState) -> None:
        for name, alive, role in zip(names, at.alive, at.roles, strict=True):
            said = deciders[name].beliefs(view(at, name)) if alive else None
            if said is not None:
                beliefs.append((name, role.name, at.day, at.phase.value, said))  # type: ignore

    return game_loop(state, rng, seed, rounds_per_phase, max_steps,
                     heard if listeners or events is not None else None,
                     ending if beliefs is not None else None)


def _record(rules: Ruleset, names: list[str], ended: tuple[GameState, int, int]
            ) -> GameRecord:
    """The record of a game that :func:`_game` played to its end."""
    state, steps, invalid = ended
    winner = state.winner.value if state.winner else None
    return GameRecord(
        winner=winner, days=state.day - rules.first_day + 1, actions=steps,
        invalid_actions=invalid,
        points=dict(points(state)),
        roles={n: r.name for n, r in zip(names, state.roles, strict=True)},
    )


@dataclass
class Summary:
    games: int = 0
    village_wins: int = 0
    werewolf_wins: int = 0
    draws: int = 0
    days: int = 0
    actions: int = 0
    invalid_actions: int = 0
    seconds: float = 0.0
    hasher: "hashlib._Hash" = field(default_factory=hashlib.sha256)

    def add(self, rec: GameRecord) -> None:
        self.games += 1
        self.days += rec.days
        self.actions += rec.actions
        self.invalid_actions += rec.invalid_actions
        if rec.winner == "village":
            self.village_wins += 1
        elif rec.winner == "werewolves":
            self.werewolf_wins += 1
        else:
            self.draws += 1
        self.hasher.update(f"{rec.winner}:{rec.days}:{rec.actions}:{rec.roles};".encode())

    def as_dict(self) -> dict[str, object]:
        g = max(self.games, 1)
        return {
            "games": self.games, "village_wins": self.village_wins,
            "werewolf_wins": self.werewolf_wins, "draws": self.draws,
            "mean_days": round(self.days / g, 3),
            "mean_actions": round(self.actions / g, 2),
            "ms_per_game": round(1000 * self.seconds / g, 4),
            "invalid_actions": self.invalid_actions,
            # same seed, same games: the digest of every game's result shows it
            "digest": self.hasher.hexdigest()[:16],
        }


def simulate(rules: Ruleset, players: int, policy: str, games: int, seed: int,
             progress=None, village: str | None = None,
             werewolves: str | None = None, parallel: int = 1) -> Summary:
    """Play ``games`` games; game ``i`` uses seed ``(seed, i)`` so any one can be replayed.
    ``village`` and ``werewolves`` give a side its own decider (else ``policy``): the
    same seeds deal the same roles, so a side's strength is measured against fixed
    opponents. ``parallel``: games at a time, in as many processes (the same games, the
    same summary and digest: they are added in order; ``seconds`` is the wall time)."""
    names = [f"P{i + 1:02d}" for i in range(players)]
    teams = {team: p for team, p in (("village", village), ("werewolves", werewolves)) if p}
    summary = Summary()
    start = time.perf_counter()
    if parallel <= 1 or games < 2:
        for i in range(games):
            summary.add(play_game(rules, names, policy, seed=seed * 1_000_003 + i,
                                  teams=teams or None))
            if progress is not None:
                progress(i + 1)
    else:
        for rec in _in_parallel(rules, names, policy, teams or None, seed, games, parallel):
            summary.add(rec)
            if progress is not None:
                progress(summary.games)
    summary.seconds = time.perf_counter() - start
    return summary


def _games(rules: Ruleset, names: list[str], policy: str, teams: dict[str, str] | None,
           seed: int, first: int, stop: int) -> list[GameRecord]:
    """Games ``first`` to ``stop`` - 1 of a run (a worker process's share)."""
    return [play_game(rules, names, policy, seed=seed * 1_000_003 + i, teams=teams)
            for i in range(first, stop)]


def _in_parallel(rules: Ruleset, names: list[str], policy: str,
                 teams: dict[str, str] | None, seed: int, games: int, parallel: int
                 ) -> Iterator[GameRecord]:
    """The run's games in order, played in ``parallel`` processes, a share of them at a
    time (small shares: the progress moves and the last share waits for no long one)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # (forked where the platform can: the workers know every decider and ruleset this
    # process registered, a plugin's too; else spawned, and they import maw's own)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    share = max(1, min(200, games // (parallel * 16)))
    starts = range(0, games, share)
    pool = ProcessPoolExecutor(min(parallel, len(starts)), initializer=_worker,
                               mp_context=multiprocessing.get_context(method))
    try:
        done = pool.map(_games, *zip(*((rules, names, policy, teams, seed, a,
                                        min(a + share, games)) for a in starts),
                                     strict=True))
        for records in done:
            yield from records
    except BrokenProcessPool:
        raise MawError(f"a process of maw simulate --parallel {parallel} died "
                       "(killed, or out of memory); no summary") from None
    finally:  # (ended early, by an error or ^C: the shares not played are not played)
        workers = list(getattr(pool, "_processes", None) or {})
        pool.shutdown(wait=False, cancel_futures=True)
        for pid in workers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)


def _worker() -> None:
    """A worker process leaves ^C to the process that started it (which ends it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
