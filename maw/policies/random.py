"""A random legal action, like RLereWolf's Dummy agent."""

from __future__ import annotations

from typing import Any

from maw.engine import Action, Chat, PlayerView, Room, Whisper
from maw.policies.base import Decider, register_decider
from maw.policies.beliefs import uniform

_LINES = (
    "Good morning, everyone.",
    "I have a bad feeling about this.",
    "Who do you all suspect?",
    "I am just a simple villager.",
    "Let us not rush our vote.",
    "Something about this village is off.",
)


# the turns it takes in a phase where it is asked at every news (a hosted game), as
# ``maw simulate`` gives every player (its ``rounds_per_phase``); then it listens
TURNS = 3


class RandomDecider(Decider):
    """Picks uniformly among the legal actions; chats a stock line. Given its view (a
    hosted game, which asks again at every news), it takes ``TURNS`` turns a phase in the
    Village and then listens: else it voted, unvoted and chatted until every phase's
    timer ran out (7,474 actions and a 22 MB log in one three-day game)."""

    needs_view = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._phase: tuple | None = None
        self._turns = 0

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        if not legal:
            return None
        if view is not None and view.room != Room.HIDEOUT:  # (a pack that must agree on
            # its victim tries on: each try is news to the others; a revote, or the votes
            # opened after the talk, are turns anew)
            phase = (view.day, view.phase, view.vote_round, view.votes_open)
            if phase != self._phase:
                self._phase, self._turns = phase, 0
            if self._turns >= TURNS:
                return None
            self._turns += 1
        action = legal[int(self.rng.random() * len(legal))]
        if type(action) is Chat:
            return Chat(action.actor, action.room, self.rng.choice(_LINES))
        if type(action) is Whisper:
            return Whisper(action.actor, action.target, self.rng.choice(_LINES))
        return action

    def beliefs(self, view: PlayerView) -> dict[str, float] | None:
        return uniform(view)  # it knows what it was told, and guesses nothing


register_decider("random", RandomDecider, stand_in=True)
