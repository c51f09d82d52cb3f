"""The game loop of a game without clocks (``maw simulate``, training, benchmarks): who
is asked next, and when a phase's timer would have run out.

The phase timer is modelled by rounds: in each round every living player (in a random
order, drawn from the game's ``rng``) may act once; a phase that the rules have not ended
after ``rounds_per_phase`` rounds, or in which nobody acted in a round, ends by
:class:`EndPhase`. A day spoken in turns (werewolf-12) times each speaker's turn so: its
rounds start again at each speaker.

:func:`game_loop` is a generator, so that whoever chooses (a decider, an awaited LLM, an
oracle) stays above the engine: it yields ``(player, state, legal actions)`` whenever a
player is to choose, is sent the choice (``None``: nothing), and returns the final state
with the count of actions played and refused. It is one of the modules a build compiles
(``maw.engine.compiled``): every turn of every simulated game passes through it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator

from maw.engine.actions import AnyAction, Chat, EndPhase
from maw.engine.events import Event
from maw.engine.names import OVER
from maw.engine.rules import actors, legal_actions, listen_as, opening_events, play
from maw.engine.state import GameState
from maw.errors import IllegalActionError, MawError

__all__ = ["Turn", "game_loop"]

# what the loop yields: the player to choose, the state it chooses in, its legal actions
Turn = tuple[str, GameState, tuple[AnyAction, ...]]


def _offered(action: AnyAction, legal: tuple[AnyAction, ...]) -> bool:
    """Is ``action`` one of ``legal`` itself (the very object; a chat's text is its
    actor's, so a chat is checked)?"""
    if type(action) is Chat:
        return False
    for a in legal:
        if a is action:
            return True
    return False


def _shuffle(rng: random.Random, x: list[str]) -> None:
    """``rng.shuffle(x)`` for a ``random.Random`` that keeps the standard library's
    ``shuffle`` and ``_randbelow`` (see :func:`game_loop`): the same algorithm, which draws
    below ``i + 1`` with ``getrandbits``, so the same order from the same stream, compiled
    with the loop: the order of every round of every simulated game is drawn here."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def game_loop(state: GameState, rng: random.Random, seed: int, rounds_per_phase: int = 3,
              max_steps: int = 100_000,
              heard: Callable[[tuple[Event, ...]], None] | None = None,
              ending: Callable[[GameState], None] | None = None,
              ) -> Generator[Turn, AnyAction | None, tuple[GameState, int, int]]:
    """Play ``state`` to its end, asking the players in turn (see the module docstring).

    ``rng`` orders each round; ``seed`` names the game in the error of one that does not
    end. ``heard(events)`` is told every event, in order, the opening ones first.
    ``ending(state)`` is told, once a phase has ended, the state it ended in: before the
    timer that ends it is played, or after an action ended it (and ``heard`` was told
    that action's events), the state before that action. Returns ``(final state, actions
    played, actions refused as illegal)``.

    Raises:
        MawError: the game did not end in ``max_steps`` actions.
    """
    # (a generator with a shuffle or a draw of its own, or a shuffle set on it, shuffles
    # its own way; random.Random's subclasses with their own random() draw otherwise too)
    kind = type(rng)
    draw = kind._randbelow is random.Random._randbelow  # type: ignore[attr-defined]
    standard = draw and kind.shuffle is random.Random.shuffle and "shuffle" not in vars(rng)
    if heard is not None:
        heard(opening_events(state))
    invalid = steps = 0
    over = OVER
    while state.phase is not over:
        day, phase, vote_round = state.day, state.phase, state.vote_round
        turn, ballot = state.turn, state.ballot
        moved = False  # the rules ended the phase (or the game), or a speaker's turn
        for _ in range(rounds_per_phase):
            acted = False
            order = list(actors(state))
            if standard:
                _shuffle(rng, order)
            else:
                rng.shuffle(order)
            for name in order:
                legal = legal_actions(state, name)
                if not legal:  # an earlier action this round closed this player's turn
                    continue
                action = yield name, state, legal
                if action is None:  # a listen: a pass while the talk comes first, a
                    action = listen_as(state, name)  # turn given up (werewolf-12)
                    if action is None:
                        continue
                before = state
                try:  # (an offered action, the very object, is legal: not checked again)
                    state, happened = play(state, action, _offered(action, legal))
                except IllegalActionError:
                    invalid += 1
                    continue
                steps += 1
                acted = True
                if heard is not None:
                    heard(happened)
                new_phase = state.phase is not phase or state.day != day or \
                    state.vote_round != vote_round
                # (a day spoken in turns, werewolf-12's, moves on a speaker at a time: each
                # speaker's turn has its own rounds, as each has its own timer in a game
                # over XMPP, and as maw.env asks)
                if new_phase or state.turn != turn or state.ballot != ballot:
                    moved = True
                    if ending is not None and new_phase:
                        ending(before)
                    break
            if moved or not acted:
                break
        if not moved and state.phase is not over:
            if ending is not None:
                ending(state)
            state, happened = play(state, EndPhase())
            if heard is not None:
                heard(happened)
        if steps > max_steps:
            raise MawError(f"game {seed} did not end in {max_steps} actions")
    return state, steps, invalid
