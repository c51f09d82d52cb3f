"""What a player believes about who the werewolves are: a probability for each player.

Every hypothesis of who the pack is that fits what the player knows for certain (its own
role, the pack if it belongs to it, divinations and readings, murder victims: the pack
never murders its own) is weighed by how well it explains what the player saw:

* a wolf rarely votes for (or accuses) a packmate, and the pack tends to move together:
  two players on the same target in one vote are likelier to be packmates, and so are
  a player and whoever it defends;
* the game goes on, so at least one wolf lives;
* the pack murders whoever accuses it: a victim's own votes and accusations point at the
  pack, and those who voted for the victim (a villager) are a little more suspect.

The weights are likelihood ratios chosen by hand and checked by play (benchmarks/README.md):
they make a village that reasons beat one that does not, not a calibrated model. The
belief in a player is the share of the weight of the hypotheses that make it a wolf. With
too many hypotheses to list (large villages) there is no belief (``None``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

import numpy as np

from maw.engine.roles import role_named

MAX_HYPOTHESES = 50_000

# likelihood ratios: how much likelier an observation is if the hypothesis holds
WOLF_VOTES_WOLF = 0.1  # a wolf votes to execute a packmate
VILLAGER_VOTES_WOLF = 1.3  # a villager votes (or speaks) against a wolf
PACK_TOGETHER = 1.6  # two wolves on the same target in one vote
WOLF_ACCUSES_WOLF = 0.3  # a wolf accuses a packmate in words
VICTIM_ACCUSED_PACK = 2.0  # the murdered villager had voted for or accused a wolf
WOLF_VOTED_VICTIM = 1.3  # a wolf had voted for (or accused) the villager the pack murdered
WOLF_DEFENDS_WOLF = 1.5  # a wolf speaks up for a packmate
CLAIMED_WEREWOLF = 2.0  # someone says the target is a werewolf (a divination or reading)
CLAIMED_HUMAN = 0.6  # someone says the target is human


@dataclass
class Evidence:
    """What a player saw, by kind (names only)."""

    votes: list[list[tuple[str, str]]] = field(default_factory=list)  # one list a vote
    accusations: list[tuple[str, str]] = field(default_factory=list)  # speaker, target
    murdered: list[str] = field(default_factory=list)
    defences: list[tuple[str, str]] = field(default_factory=list)  # speaker, defended
    living: list[str] | None = None  # while the game goes on, a wolf is among them
    results: list[tuple[str, str, str]] = field(default_factory=list)  # claimed: by, on, species


def wolf_probabilities(me: str, players: Iterable[str], wolves: int, human: set[str],
                       wolf: set[str], evidence: Evidence) -> dict[str, float] | None:
    """P(werewolf) for every player but ``me`` (``None``: too many hypotheses)."""
    others = [p for p in players if p != me]
    if wolves <= 0 or wolves > len(others):
        return None
    free = [p for p in others if p not in human and p not in wolf]
    need = wolves - len(wolf & set(others))
    if need < 0 or need > len(free):
        return None
    if math.comb(len(free), need) > MAX_HYPOTHESES:
        return None
    # the score of a pack is a sum of terms on one member, on two, and one "any of"
    # term per murder: gathered once, so that each hypothesis costs a few additions
    log = math.log
    one: dict[str, float] = dict.fromkeys(others, 0.0)
    two: dict[frozenset[str], float] = {}

    def pair(a: str, b: str, w: float) -> None:
        if a != b:
            key = frozenset((a, b))
            two[key] = two.get(key, 0.0) + w

    accused_by: dict[str, set[str]] = {}
    for votes in evidence.votes:
        on: dict[str, list[str]] = {}
        for v, t in votes:
            accused_by.setdefault(v, set()).add(t)
            on.setdefault(t, []).append(v)
            if t in one:  # a wolf voted by a villager, or by a packmate
                one[t] += log(VILLAGER_VOTES_WOLF)
                pair(v, t, log(WOLF_VOTES_WOLF) - log(VILLAGER_VOTES_WOLF))
        for voters in on.values():
            for a, b in combinations(voters, 2):
                pair(a, b, log(PACK_TOGETHER))
    for s, t in evidence.accusations:
        accused_by.setdefault(s, set()).add(t)
        pair(s, t, log(WOLF_ACCUSES_WOLF))
    for s, t in evidence.defences:
        pair(s, t, log(WOLF_DEFENDS_WOLF))
    for _s, t, species in evidence.results:
        if t in one:
            one[t] += log(CLAIMED_WEREWOLF if species == "werewolf" else CLAIMED_HUMAN)
    anyof: list[set[str]] = []
    for victim in evidence.murdered:
        anyof.append(accused_by.get(victim, set()))
        for p in others:
            if victim in accused_by.get(p, set()):
                one[p] += log(WOLF_VOTED_VICTIM)
    known = wolf & set(others)
    # each hypothesis is the known wolves and ``need`` of the ``free``: scored at once
    n = len(free)
    pick = _hypotheses(n, need)  # H x need indices into free
    base = sum(one[k] for k in known) + sum(
        two.get(frozenset(ab), 0.0) for ab in combinations(sorted(known), 2))
    solo = np.array([one[f] + sum(two.get(frozenset((f, k)), 0.0) for k in known)
                     for f in free])
    duo = np.zeros((n, n))
    for i, a in enumerate(free):
        for j, b in enumerate(free):
            if i != j:
                duo[i, j] = two.get(frozenset((a, b)), 0.0)
    score = np.full(len(pick), base) + solo[pick].sum(axis=1)
    for i, j in combinations(range(need), 2):
        score += duo[pick[:, i], pick[:, j]]
    for accused in anyof:
        if accused & known:
            score += log(VICTIM_ACCUSED_PACK)
        else:
            hit = np.array([f in accused for f in free])
            score += log(VICTIM_ACCUSED_PACK) * hit[pick].any(axis=1)
    if evidence.living is not None and not known & set(evidence.living):
        # the game goes on, so the pack is not all dead
        alive = np.array([f in evidence.living for f in free])
        score = np.where(alive[pick].any(axis=1), score, -np.inf)
        if not np.isfinite(score).any():
            return None
    w = np.exp(score - score.max())
    mass = np.bincount(pick.ravel(), weights=np.repeat(w, need), minlength=n) / w.sum()
    out = dict.fromkeys(others, 0.0)
    out.update({p: 1.0 for p in known})
    out.update({f: float(m) for f, m in zip(free, mass, strict=True)})
    return out


@lru_cache(maxsize=64)
def _hypotheses(n: int, k: int) -> np.ndarray:
    """Every way to choose ``k`` of ``n`` (rows of indices); one empty row for k = 0."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.intp)
    return np.array(list(combinations(range(n), k)), dtype=np.intp)


def pack_size(view) -> int:
    """How many werewolves the player's game dealt (its ruleset, for its size)."""
    from maw.engine import ruleset

    rules = ruleset(view.ruleset, **dict(view.rule_options))
    return sum(1 for r in rules.roles_for(len(view.players)) if r.pack)


def murders_prove_human(view) -> bool:
    """Whether a player found dead in the night was certainly human: not where the pack
    may kill its own (werewolf-12's ``self_knife``) or a Witch's poison, which shows as a
    murder to all but her, may kill a werewolf (the rule player then takes only a night's
    single death for the pack's victim)."""
    from maw.engine import ruleset
    from maw.engine.roles import Ability

    rules = ruleset(view.ruleset, **dict(view.rule_options))
    return not rules.self_knife and not any(
        Ability.POISON in r.abilities for r in rules.roles_for(len(view.players)))


def uniform(view) -> dict[str, float]:
    """The uniform prior: what the player knows for certain (itself, its pack, the roles
    it was told), and for everyone else the same share of the wolves it cannot place."""
    others = [p for p in view.players if p != view.player]
    known = {p: float(role_named(r).pack) for p, r in view.known_roles.items()
             if p != view.player}
    if view.pack:
        return {p: float(p in view.pack) for p in others}
    left = [p for p in others if p not in known]
    wolves = pack_size(view) - sum(known.values())
    share = max(0.0, wolves) / len(left) if left else 0.0
    return {p: known.get(p, share) for p in others}


def flat(belief: dict[str, float]) -> dict[str, float]:
    """The uniform guess that knows what ``belief`` is certain of: its 0s and 1s kept, the
    rest of its probability mass spread evenly (the baseline its score is set beside)."""
    free = [n for n, p in belief.items() if p not in (0.0, 1.0)]
    mass = sum(belief[n] for n in free)
    return {n: mass / len(free) if n in free else p for n, p in belief.items()}


def brier(belief: dict[str, float], wolves: set[str]) -> float:
    """The mean squared error of ``belief`` against the truth (0 is perfect)."""
    return sum((p - (n in wolves)) ** 2 for n, p in belief.items()) / len(belief)


def log_loss(belief: dict[str, float], wolves: set[str], eps: float = 1e-6) -> float:
    """The mean negative log-likelihood of the truth under ``belief`` (clipped)."""
    total = 0.0
    for n, p in belief.items():
        p = min(1 - eps, max(eps, p))
        total -= math.log(p if n in wolves else 1 - p)
    return total / len(belief)
