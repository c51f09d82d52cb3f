"""Engine games for the rules-text claims (tests/engine/test_rules_claims.py): seeded games of
random legal play, every step kept (the state before and after, the action, its events),
and the questions the claims' checks ask of them."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from maw.engine import (
    Chat,
    EndPhase,
    GameState,
    Pass,
    Phase,
    Ruleset,
    Whisper,
    actors,
    legal_actions,
    may_pass,
    new_game,
    opening_events,
    play,
)
from maw.engine.events import Event, Guarded, PhaseStarted

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou",
         "Max", "Ned", "Oli")
LINES = ("Good morning, everyone.", "I suspect @{o} of being a werewolf, truly I do.",
         "Let us not rush our vote.", "Something about this village is off.")


@dataclass
class Step:
    """One move of a game: ``action`` (``EndPhase``: a timer) took ``before`` to
    ``after`` and told ``events``."""

    before: GameState
    action: object
    events: tuple[Event, ...]
    after: GameState


@dataclass
class Game:
    rules: Ruleset
    start: GameState
    opening: tuple[Event, ...]
    number: int = 0  # which of its config's games (for the messages)
    steps: list[Step] = field(default_factory=list)

    def __str__(self) -> str:
        return f"game {self.number}"

    @property
    def names(self) -> tuple[str, ...]:
        return self.start.names

    @property
    def end(self) -> GameState:
        return self.steps[-1].after if self.steps else self.start

    def role(self, name: str) -> str:
        return self.start.roles[self.start.seat[name]].name

    def of_role(self, role: str) -> list[str]:
        return [n for n in self.names if self.role(n) == role]

    @cached_property
    def events(self) -> list[tuple[str, int, Event]]:
        """Every event, with the phase (and vote round) it happened in: the last phase
        started before it, whoever it was told to."""
        out, phase, vround = [], "", 0
        for e in self.all_events():
            if isinstance(e, PhaseStarted):
                phase, vround = e.phase, e.vote_round
            out.append((phase, vround, e))
        return out

    def all_events(self) -> Iterator[Event]:
        yield from self.opening
        for step in self.steps:
            yield from step.events

    def of(self, *kinds: type) -> list[Event]:
        """The events of these kinds, in order."""
        if len(kinds) == 1:
            return self._by_kind.get(kinds[0], [])
        return [e for _p, _r, e in self.events if isinstance(e, kinds)]

    @cached_property
    def _by_kind(self) -> dict[type, list[Event]]:
        out: dict[type, list[Event]] = {}
        for _p, _r, e in self.events:
            out.setdefault(type(e), []).append(e)
        return out

    def phases(self) -> list[PhaseStarted]:
        return [e for _p, _r, e in self.events if isinstance(e, PhaseStarted)]


def play_game(rules: Ruleset, players: int, seed: int, number: int = 0) -> Game:
    """A game of random legal play: each round every actor (in a random order) takes one
    of its legal actions (of a kind drawn first, listening one of the kinds); a phase
    nobody ends in three rounds ends by its timer, as ``maw simulate``'s does."""
    rng = random.Random(seed)
    state = new_game(rules, NAMES[:players], rng)
    game = Game(rules, state, opening_events(state), number)
    while not state.is_over:
        mark = (state.day, state.phase, state.vote_round)
        moved = False
        for _ in range(3):
            acted = False
            order = list(actors(state))
            rng.shuffle(order)
            for name in order:
                legal = legal_actions(state, name)
                if not legal:
                    continue
                # a kind of action (listening one of them), then one of that kind: a chat
                # is as likely as a vote, however many targets the vote has
                kinds: dict[type, list] = {}
                for a in legal:
                    kinds.setdefault(type(a), []).append(a)
                pick = int(rng.random() * (len(kinds) + 1))
                if pick == len(kinds):  # listens
                    if not may_pass(state, name):
                        continue
                    action: object = Pass(name)
                else:
                    some = list(kinds.values())[pick]
                    action = some[int(rng.random() * len(some))]
                    if type(action) is Chat or type(action) is Whisper:
                        other = state.names[int(rng.random() * len(state.names))]
                        line = LINES[int(rng.random() * len(LINES))].format(o=other)
                        action = Chat(name, action.room, line) if type(action) is Chat \
                            else Whisper(name, action.target, line)
                after, events = play(state, action)  # type: ignore[arg-type]
                game.steps.append(Step(state, action, events, after))
                state, acted = after, True
                if (state.day, state.phase, state.vote_round) != mark or state.is_over:
                    moved = True
                    break
            if moved or not acted:
                break
        if not moved and not state.is_over:
            after, events = play(state, EndPhase())
            game.steps.append(Step(state, EndPhase(), events, after))
            state = after
    return game


def games(rules: Ruleset, players: int, n: int, seed: int = 1) -> list[Game]:
    return [play_game(rules, players, seed * 1_000_003 + i, i) for i in range(n)]


def is_phase(state: GameState, *phases: Phase) -> bool:
    return state.phase in phases


# ---------------------------------------------------------------- the claims' registry

@dataclass
class Ctx:
    """What a claim is checked against: the ruleset, its games, and the match's words."""

    rules: Ruleset
    players: int
    games: list[Game]


@dataclass(frozen=True)
class Claim:
    topic: str
    pattern: re.Pattern[str]
    check: Callable[[Ctx, re.Match[str]], Iterator[str]]


CLAIMS: list[Claim] = []
# what in the games shows a topic the text must then tell: topic -> (ctx -> what, or "")
SEEN: dict[str, Callable[[Ctx], str]] = {}


def claim(topic: str, pattern: str):
    """Register ``check`` for the words ``pattern`` finds in a sentence of a rules text:
    ``check(ctx, match)`` yields what the games show against them."""
    def register(check):
        CLAIMS.append(Claim(topic, re.compile(pattern), check))
        return check
    return register


def seen(topic: str):
    """Register what in the games shows ``topic`` (a rule the text must then tell)."""
    def register(show):
        SEEN[topic] = show
        return show
    return register


def first(problems: Iterator[str], k: int = 3) -> list[str]:
    """The first ``k`` of a check's problems (one game's breach is enough to show)."""
    out = []
    for p in problems:
        out.append(p)
        if len(out) == k:
            break
    return out


# ---------------------------------------------------------------- what the checks ask

DAYTIME = {"day", "vote", "candidacy", "campaign", "election", "order"}
NIGHTTIME = {"whisper", "night", "witch"}


def wolves(state: GameState) -> set[str]:
    return {n for n, r in zip(state.names, state.roles, strict=True) if r.pack}


def living(state: GameState) -> set[str]:
    return set(state.living())


def public_phases(g: Game) -> list[tuple[int, str]]:
    return [(e.day, e.phase) for e in g.phases() if e.audience is None and not e.vote_round]


def alternation(g: Game) -> Iterator[str]:
    """Days and nights in turn: day d's phases, then night d's, then day d + 1's."""
    last = None
    for day, phase in public_phases(g):
        part = "day" if phase in DAYTIME else "night" if phase in NIGHTTIME else None
        if part is None:  # (a step after deaths: at dawn or after the vote)
            continue
        now = (day, part)
        if last is not None and now != last and now not in (
                (last[0], "night"), (last[0] + 1, "day")):
            yield f"{g}: {last[1]} {last[0]} is followed by {part} {day}"
            return
        last = now


def guards(g: Game) -> set[tuple[int, str]]:
    """(night, player) for each guard's last choice of each night (MAW's may change)."""
    last = {(e.day, e.bodyguard): e.target for e in g.of(Guarded)}
    return {(day, t) for (day, _b), t in last.items()}
