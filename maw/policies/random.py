"""A random legal action, like RLereWolf's Dummy agent."""

from __future__ import annotations

from maw.engine import Action, Chat, PlayerView, Whisper
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


class RandomDecider(Decider):
    """Picks uniformly among the legal actions; chats a stock line."""

    needs_view = False

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        if not legal:
            return None
        action = legal[int(self.rng.random() * len(legal))]
        if type(action) is Chat:
            return Chat(action.actor, action.room, self.rng.choice(_LINES))
        if type(action) is Whisper:
            return Whisper(action.actor, action.target, self.rng.choice(_LINES))
        return action

    def beliefs(self, view: PlayerView) -> dict[str, float] | None:
        return uniform(view)  # it knows what it was told, and guesses nothing


register_decider("random", RandomDecider, stand_in=True)
