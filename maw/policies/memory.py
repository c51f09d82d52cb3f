"""What a player learns of the others over a game set, to use in the set's next games.

The AIWolf regulation plays sets of 100 games among the same agents, under the same names
(``Agent[01]`` ... in every game), each game's roles dealt anew; an agent instance lives
through the set and may learn how each opponent plays. MAW's game sets are ``maw game
--rounds N`` and ``maw aiwolf-client``'s sets. With ``--set-memory`` (off by default: a
game is then what it is alone, as every benchmark assumes) a rule player, and the rule
layer under a learned, hybrid or LLM player, keeps one :class:`SetMemory` for the set.

What it keeps is what every player may know once a game is over (the roles are told to
all at the end): for each other player, how many finished games it played as a werewolf
and as a human, and in how many of each it came out as each role. In a later game, a
player who comes out as a role ``r`` weighs the hypotheses that make it a werewolf by

    P(comes out as r | werewolf) / P(comes out as r | human)

each estimated from its own games and, as if they were ``PRIOR_GAMES`` more of its own,
from everyone's (how often anyone came out as ``r`` as a werewolf and as a human, with
half a count added to each side: Jeffreys' prior). A player never seen is not weighed at
all, and one game moves little. An agent whose wolves fake the Seer and whose villagers
never do is suspected when it claims the Seer; one whose only Seer claims were true is
believed.

Everyone's rate is where a player's own starts because a player's own games are few: with
Jeffreys' prior alone, of two seats that play alike and never claimed the Seer as wolves,
the one dealt the wolf twice as often was weighed twice as likely to tell the truth. In
15-player games a set's memory so chose between the real Seer and the Possessed by
chance, more strongly than the game's own evidence did, and the village executed its Seer
on day 1 in 141 of 500 games against 71 without a memory (aiwolf-15,
benchmarks/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from maw.engine.roles import role_named
from maw.errors import MawError


class RuleLayer(Protocol):
    """What the memory reads and sets in a decider's rule layer (``RuleDecider``)."""

    player: str
    claimed: dict[str, str]  # player -> the role it came out as
    set_memory: SetMemory | None


class Remembering(Protocol):
    """A decider, as the memory sees it (``Decider.rule_layer``)."""

    def rule_layer(self) -> RuleLayer | None: ...


R = TypeVar("R", bound=Remembering)

# a player's own games are weighed against everyone's as if everyone's were this many of
# its own: until it has played about as many, it is judged mostly as the others are
PRIOR_GAMES = 10.0


@dataclass
class SetMemory:
    """One player's memory of the others over a set (see the module docstring)."""

    # name -> [games as a werewolf, games as a human]
    games: dict[str, list[int]] = field(default_factory=dict)
    # (name, role it came out as) -> [such games as a werewolf, as a human]
    claims: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    learnt: int = 0  # the games learnt from

    @property
    def weighed(self) -> int:
        """The claims learnt from (a claimant's role, once a game)."""
        return sum(sum(counts) for counts in self.claims.values())

    def learn(self, me: str, claimed: Mapping[str, str], roles: Mapping[str, str]) -> None:
        """One finished game: ``claimed`` (player -> the role it came out as, as ``me``
        heard it) and ``roles`` (every player's role, told to all at the end)."""
        for name, role in roles.items():
            if name == me:
                continue
            try:
                side = 0 if role_named(role).pack else 1
            except MawError:  # a role this MAW does not know: nothing to learn of it
                continue
            self.games.setdefault(name, [0, 0])[side] += 1
            came_out = claimed.get(name)
            if came_out is not None:
                self.claims.setdefault((name, came_out), [0, 0])[side] += 1
        self.learnt += 1

    def ratio(self, name: str, role: str) -> float:
        """How much likelier ``name`` comes out as ``role`` as a werewolf than as a human,
        by what the set showed (1.0: nothing known)."""
        games = self.games.get(name)
        if games is None:
            return 1.0
        wolf, human = self.claims.get((name, role), (0, 0))
        every_wolf, every_human = self.everyones(role)
        return ((wolf + PRIOR_GAMES * every_wolf) / (games[0] + PRIOR_GAMES)) / \
            ((human + PRIOR_GAMES * every_human) / (games[1] + PRIOR_GAMES))

    def everyones(self, role: str) -> tuple[float, float]:
        """How often anyone came out as ``role`` in its games as a werewolf and as a
        human (half a count added to each side): where each player's own rate starts."""
        wolf = human = 0
        for (_name, came_out), (w, h) in self.claims.items():
            if came_out == role:
                wolf, human = wolf + w, human + h
        wolves = sum(g[0] for g in self.games.values())
        humans = sum(g[1] for g in self.games.values())
        return (wolf + 0.5) / (wolves + 1.0), (human + 0.5) / (humans + 1.0)

    def log_ratios(self, claimed: Mapping[str, str]) -> dict[str, float]:
        """The logarithm of :meth:`ratio` for each player's claim in this game."""
        return {name: math.log(self.ratio(name, role)) for name, role in claimed.items()}

    def lend(self, decider: R) -> R:
        """Give ``decider``'s rule layer this memory (a decider with none learns nothing
        and uses nothing); ``decider`` itself, for chaining."""
        layer = decider.rule_layer()
        if layer is not None:
            layer.set_memory = self
        return decider

    def learn_from(self, decider: Remembering | None, roles: Mapping[str, str]) -> None:
        """:meth:`learn` from a finished game's decider (what its rule layer heard)."""
        layer = decider.rule_layer() if decider is not None else None
        if layer is not None and roles:
            self.learn(layer.player, layer.claimed, roles)
