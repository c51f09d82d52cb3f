"""``maw train --algo beliefs``: the rule player's belief ratios fitted to rule games
(``maw.policies.fitted``)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from maw.engine import Ruleset
from maw.engine.roles import Ability, role_named
from maw.errors import MawError
from maw.policies import make_decider
from maw.policies.beliefs import HAND, Ratios, Tally
from maw.policies.fitted import HELD_OUT, Fitted, Record, fit, fitted_decider, judge
from maw.policies.rule import RuleDecider
from maw.simulate import play_game


class _Witnessed(Tally):
    """A tally that hands what it weighs to ``sink`` (a share ``keep`` of the times)."""

    def __init__(self, sink: Callable[[tuple], None], keep: Callable[[], bool],
                 me: str, players, ratios: Ratios = HAND) -> None:
        super().__init__(me, players, ratios)
        self.sink, self.keep = sink, keep

    def probabilities(self, wolves, human, wolf, murdered, living):
        if self.keep():
            seen = self.features(wolves, human, wolf, murdered, living)
            if seen is not None:
                self.sink(seen)
        return super().probabilities(wolves, human, wolf, murdered, living)


def collect(rules: Ruleset, players: int, games: int, seed: int, keep: float = 0.1,
            progress: Callable[[int], None] | None = None) -> list[list[Record]]:
    """Rule games' village evidence as weighed, a list a game: each weighing's features,
    the hypotheses that hold, and the index of the true pack."""
    names = [f"P{i + 1:02d}" for i in range(players)]
    chance = random.Random(seed)
    out: list[list[Record]] = []
    for g in range(games):
        seen: list[tuple] = []

        def witnessed(name: str, rng: random.Random, sink=seen.append) -> RuleDecider:
            decider = make_decider("rule", name, rng)
            assert isinstance(decider, RuleDecider)
            decider.tally_kind = partial(_Witnessed, sink, lambda: chance.random() < keep)
            return decider

        record = play_game(rules, names, dict.fromkeys(names, witnessed), seed + g)
        pack = frozenset(n for n, r in record.roles.items() if role_named(r).pack)
        game = []
        for features, holds, packs in seen:
            true = [i for i, p in enumerate(packs) if p == pack]
            if true and holds[true[0]]:
                game.append((features, holds, true[0]))
        out.append(game)
        if progress is not None:
            progress(g + 1)
    return out


# the Witch's poison thresholds tried (above 1: never), the rule player's first
POISON_AT = (0.9, 0.95, 0.99, 1.01)


def village_wins(rules: Ruleset, players: int, fitted: Fitted, seeds: range) -> int:
    """The games of ``seeds`` a village of ``fitted`` wins against rule werewolves."""
    names = [f"P{i + 1:02d}" for i in range(players)]

    def village(name: str, rng: random.Random) -> RuleDecider:
        return fitted_decider(name, rng, fitted)
    return sum(play_game(rules, names, "rule", seed=s,
                         teams={"village": village, "werewolves": "rule"}).winner == "village"
               for s in seeds)


def choose_poison(rules: Ruleset, players: int, fitted: Fitted, seeds: range,
                  progress: Callable[[int], None] | None = None) -> None:
    """Set ``fitted``'s Witch threshold to the one of ``POISON_AT`` whose village wins
    most of ``seeds`` (the rule player's where none wins more), if the game deals a
    Witch."""
    if not any(Ability.POISON in r.abilities for r in rules.roles_for(players)):
        return
    for i, at in enumerate(POISON_AT):
        fitted.poison_search[str(at)] = village_wins(
            rules, players, replace(fitted, poison_at=at), seeds)
        if progress is not None:
            progress(i + 1)
    best = max(POISON_AT, key=lambda at: (fitted.poison_search[str(at)], at == POISON_AT[0]))
    fitted.poison_at = best


def train_beliefs(rules: Ruleset, players: int, games: int, seed: int, out: Path,
                  command: str = "", keep: float = 0.1,
                  progress: Callable[[int], None] | None = None,
                  search: int = 0, searched: Callable[[int], None] | None = None) -> Fitted:
    """Play ``games`` rule games, fit the ratios on the first 80%, judge them on the
    rest; with ``search`` (games), choose the Witch's threshold on that many more
    (:func:`choose_poison`); and save the file at ``out``."""
    if games < 5:
        raise MawError(f"--games: at least 5 to fit and judge on, got {games}")
    t0 = time.monotonic()
    per_game = collect(rules, players, games, seed, keep, progress)
    cut = games - max(1, int(games * HELD_OUT))
    train = [r for game in per_game[:cut] for r in game]
    test = [r for game in per_game[cut:] for r in game]
    ratios = fit(train, seed=seed)
    hand_ll, hand_p, _ = judge(test, HAND)
    fit_ll, fit_p, _ = judge(test, ratios)
    fitted = Fitted(rules.name, players, ratios, games, len(train) + len(test),
                    round(time.monotonic() - t0, 1), command,
                    {"records": len(test), "log_likelihood_hand": round(hand_ll, 4),
                     "log_likelihood_fitted": round(fit_ll, 4),
                     "p_true_hand": round(hand_p, 4), "p_true_fitted": round(fit_p, 4)})
    if search:
        choose_poison(rules, players, fitted, range(seed + games, seed + games + search),
                      searched)
    fitted.seconds = round(time.monotonic() - t0, 1)
    fitted.save(out)
    return fitted
