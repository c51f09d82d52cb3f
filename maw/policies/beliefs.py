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

import copy
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from functools import lru_cache
from itertools import combinations

import numpy as np

from maw.engine.roles import role_named
from maw.policies.base import rules_of

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


@dataclass(frozen=True)
class Ratios:
    """The likelihood ratios' logarithms a :class:`Tally` weighs with: the hand-chosen
    ones above (``HAND``), or ones fitted to games by maximum likelihood
    (``maw.policies.fitted``). A hypothesis' score is each count of :meth:`Tally.features`
    times its field, in that order."""

    villager_votes_wolf: float = math.log(VILLAGER_VOTES_WOLF)  # a vote (or word) on a wolf
    claimed_werewolf: float = math.log(CLAIMED_WEREWOLF)  # a result "X is a werewolf"
    claimed_human: float = math.log(CLAIMED_HUMAN)  # a result "X is human"
    wolf_voted_victim: float = math.log(WOLF_VOTED_VICTIM)  # had voted for the murdered
    pack_together: float = math.log(PACK_TOGETHER)  # two on the same target in one vote
    wolf_on_packmate: float = math.log(WOLF_VOTES_WOLF) - math.log(VILLAGER_VOTES_WOLF)
    wolf_accuses_wolf: float = math.log(WOLF_ACCUSES_WOLF)
    wolf_defends_wolf: float = math.log(WOLF_DEFENDS_WOLF)
    victim_accused_pack: float = math.log(VICTIM_ACCUSED_PACK)

    def vector(self) -> np.ndarray:
        return np.array([getattr(self, f.name) for f in fields(self)])

    @classmethod
    def of(cls, values: Iterable[float]) -> Ratios:
        return cls(*map(float, values))


HAND = Ratios()


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
    tally = Tally(me, players)
    for votes in evidence.votes:
        tally.vote(votes)
    tally.add(evidence)
    return tally.probabilities(wolves, human, wolf, evidence.murdered, evidence.living)


class Tally:
    """What ``me`` saw, counted: how often each kind of evidence was seen on a player or
    on a pair. A hypothesis' score is each count times its ratio's logarithm, so the
    order in which evidence comes changes nothing, and a player adds only what is new
    since its last look (:meth:`add`, :meth:`vote`)."""

    def __init__(self, me: str, players: Iterable[str], ratios: Ratios = HAND) -> None:
        self.ratios = ratios
        self.others = [p for p in players if p != me]
        self.seat = {p: i for i, p in enumerate(self.others)}  # (``me``: in no hypothesis)
        m = len(self.others)
        self.voted_wolf = np.zeros(m)  # times voted for (a wolf voted by a villager)
        self.said = np.zeros((2, m))  # claimed a werewolf, claimed human
        # a pair's counts, both ways ([a, b] and [b, a] alike: the ratios are symmetric):
        # votes between the two (a vote on a wolf, by a villager or by a packmate),
        # accusations, defences; on the same target in one vote
        self.voted, self.accused, self.defended, self.same = np.zeros((4, m, m))
        self.accused_by: dict[str, set[str]] = {}  # whom each has voted for or accused
        self.seen = [0, 0, 0]  # accusations, defences, results of an Evidence added
        # each player's own log-ratio from outside the game (a set's memory: 0 for none)
        self.prior = np.zeros(m)
        # the counts weighed, on one player and on a pair: kept until one of theirs changes
        self._one: np.ndarray | None = None
        self._two: np.ndarray | None = None

    def vote(self, votes: Iterable[tuple[str, str]]) -> None:
        """One execution vote's (voter, target) pairs."""
        seat = self.seat
        on: dict[str, list[int]] = {}  # target -> the seats that voted for it
        for v, t in votes:
            self.accused_by.setdefault(v, set()).add(t)
            i, j = seat.get(v), seat.get(t)
            if j is not None:
                self.voted_wolf[j] += 1
                if i is not None and i != j:
                    self.voted[i, j] += 1
                    self.voted[j, i] += 1
            if i is not None:
                on.setdefault(t, []).append(i)
        for group in on.values():
            for a, b in combinations(group, 2):
                self.same[a, b] += 1
                self.same[b, a] += 1
        self._one = self._two = None

    def add(self, evidence: Evidence) -> None:
        """The accusations, defences and claimed results of ``evidence`` not added yet
        (its lists only grow); its votes are :meth:`vote`'s."""
        self.heard(evidence.accusations, evidence.defences, evidence.results)

    def heard(self, accusations: list[tuple[str, str]], defences: list[tuple[str, str]],
              results: list[tuple[str, str, str]]) -> None:
        """:meth:`add`, from the lists themselves (which only grow)."""
        seat, (a, d, r) = self.seat, self.seen
        if (a, d, r) == (len(accusations), len(defences), len(results)):
            return
        if (a, d) != (len(accusations), len(defences)):
            self._two = None
        if r != len(results):
            self._one = None
        for s, t in accusations[a:]:
            self.accused_by.setdefault(s, set()).add(t)
            if s in seat and t in seat and s != t:
                self.accused[seat[s], seat[t]] += 1
                self.accused[seat[t], seat[s]] += 1
        for s, t in defences[d:]:
            if s in seat and t in seat and s != t:
                self.defended[seat[s], seat[t]] += 1
                self.defended[seat[t], seat[s]] += 1
        for _s, t, species in results[r:]:
            if t in seat:
                self.said[int(species != "werewolf"), seat[t]] += 1
        self.seen = [len(accusations), len(defences), len(results)]

    def lean(self, log_ratios: dict[str, float]) -> None:
        """Each named player's own log-likelihood ratio of being a wolf, from outside
        the game (``maw.policies.memory``), in place of what was there."""
        prior = np.zeros(len(self.others))
        for name, value in log_ratios.items():
            if name in self.seat:
                prior[self.seat[name]] = value
        if not np.array_equal(prior, self.prior):
            self.prior, self._one = prior, None

    def copy(self) -> Tally:
        out = copy.copy(self)
        for name in ("voted_wolf", "said", "voted", "accused", "defended", "same", "prior"):
            setattr(out, name, getattr(self, name).copy())
        out.accused_by = {k: set(v) for k, v in self.accused_by.items()}
        return out

    def probabilities(self, wolves: int, human: set[str], wolf: set[str],
                      murdered: list[str], living: list[str] | None
                      ) -> dict[str, float] | None:
        """P(werewolf) for every other player, given the pack's size, who is certainly
        human or a wolf, the murdered and (while the game goes on) the living."""
        others, seat = self.others, self.seat
        if wolves <= 0 or wolves > len(others):
            return None
        free = [p for p in others if p not in human and p not in wolf]
        known = wolf & set(others)
        need = wolves - len(known)
        if need < 0 or need > len(free):
            return None
        if math.comb(len(free), need) > MAX_HYPOTHESES:
            return None
        anyof = [self.accused_by.get(victim, set()) for victim in murdered]
        one, two = self._weigh()
        on_victim = self._on_victim(murdered)
        if on_victim.any():  # had voted for or accused a murdered villager
            one = one + on_victim * self.ratios.wolf_voted_victim
        # each hypothesis is the known wolves and ``need`` of the ``free``: scored at once
        n = len(free)
        pick, cells, packs = _hypotheses(n, need)
        free_at = [seat[f] for f in free]
        solo = one[free_at]
        base = 0.0
        if known:
            at = [seat[k] for k in sorted(known)]
            base = float(one[at].sum()) + sum(float(two[i, j]) for i, j in combinations(at, 2))
            solo = solo + two[free_at][:, at].sum(axis=1)
        # a pack's score, its terms added in order: its free wolves' own scores, the
        # known wolves', then each pair's (``cells``, a row a term, index into ``terms``;
        # numpy adds the rows of a sum over axis 0 one after the other: a test holds it)
        terms = np.concatenate((solo, (base,), two.take(free_at, 0).take(free_at, 1).ravel()))
        score = terms[cells].sum(axis=0)
        victim_accused_pack = self.ratios.victim_accused_pack
        for accused in anyof:  # the murdered had accused a wolf
            if accused & known:
                score += victim_accused_pack
            elif accused:  # (+ the ratio where it holds: the same sum as adding 0 elsewhere)
                np.add(score, victim_accused_pack, out=score,
                       where=_any_of(free, accused, pick, packs))
        if living is not None and not known & set(living):
            # the game goes on, so the pack is not all dead
            alive = _any_of(free, set(living), pick, packs)
            if not alive.any():
                return None
            if not alive.all():
                score = np.where(alive, score, -np.inf)
        w = np.exp(score - score.max())
        mass = np.bincount(pick.ravel(), weights=np.repeat(w, need), minlength=n) / w.sum()
        out = dict.fromkeys(others, 0.0)
        out.update({p: 1.0 for p in known})
        out.update(zip(free, mass.tolist(), strict=True))
        return out

    def _weigh(self) -> tuple[np.ndarray, np.ndarray]:
        """The counts' scores on one player and on a pair (each kept until one of its
        counts changes: a line heard changes only a pair's)."""
        r = self.ratios
        if self._one is None:
            self._one = self.voted_wolf * r.villager_votes_wolf + \
                self.said[0] * r.claimed_werewolf + self.said[1] * r.claimed_human + \
                self.prior
        if self._two is None:
            self._two = self.same * r.pack_together + self.voted * r.wolf_on_packmate + \
                self.accused * r.wolf_accuses_wolf + self.defended * r.wolf_defends_wolf
        return self._one, self._two

    def _on_victim(self, murdered: list[str]) -> np.ndarray:
        """How many of the murdered each other player had voted for or accused (once
        per murdered villager)."""
        count = np.zeros(len(self.others))
        for victim in murdered:
            for p, targets in self.accused_by.items():
                if victim in targets and p in self.seat:
                    count[self.seat[p]] += 1
        return count

    def features(self, wolves: int, human: set[str], wolf: set[str],
                 murdered: list[str], living: list[str] | None
                 ) -> tuple[np.ndarray, np.ndarray, list[frozenset[str]]] | None:
        """What :meth:`probabilities` weighs, one hypothesis a row: the counts each of
        :class:`Ratios`' fields multiplies (a hypothesis' score is a row times
        ``ratios.vector()``, plus the set's memory's ``prior``), whether the hypothesis
        can hold (a wolf lives while the game goes on), and each hypothesis' pack (the
        known wolves with it). ``None`` where :meth:`probabilities` gives none (too many
        hypotheses, a pack that does not fit, none that holds). For fitting
        the ratios (``maw.policies.fitted``): slower than :meth:`probabilities`, and a
        test holds the two to the same beliefs."""
        others, seat = self.others, self.seat
        free = [p for p in others if p not in human and p not in wolf]
        known = sorted(wolf & set(others))
        need = wolves - len(known)
        if wolves <= 0 or wolves > len(others) or need < 0 or need > len(free) or \
                math.comb(len(free), need) > MAX_HYPOTHESES:
            return None
        pick, _cells, _packs = _hypotheses(len(free), need)
        packs = np.array([seat[f] for f in free], dtype=np.intp)[pick]
        if known:
            packs = np.hstack([np.tile([seat[k] for k in known], (len(packs), 1)), packs])
        columns = [v[packs].sum(axis=1) for v in
                   (self.voted_wolf, self.said[0], self.said[1], self._on_victim(murdered))]
        pairs = list(combinations(range(packs.shape[1]), 2))
        for counts in (self.same, self.voted, self.accused, self.defended):
            columns.append(sum((counts[packs[:, i], packs[:, j]] for i, j in pairs),
                               np.zeros(len(packs))))
        accusers = np.zeros(len(packs))
        for victim in murdered:
            accused = self.accused_by.get(victim, set())
            if accused:
                accusers += np.array([p in accused for p in others])[packs].any(axis=1)
        columns.append(accusers)
        holds = np.ones(len(packs), dtype=bool)
        if living is not None and not set(known) & set(living):
            holds = np.array([p in living for p in others])[packs].any(axis=1)
            if not holds.any():
                return None
        names = np.array(others, dtype=object)
        return np.stack(columns, axis=1), holds, [frozenset(names[row]) for row in packs]


@lru_cache(maxsize=64)
def _hypotheses(n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every way to choose ``k`` of ``n``: as rows of indices (one empty row for k = 0), as
    the cells of their score terms, a row a term and a column a choice (each chosen one's
    own score, at 0 to n-1; the known wolves', at n; each pair's, at n + 1 + i * n + j:
    ``Tally.probabilities``), and as bit masks (bit i: index i chosen; ``None`` past 62)."""
    if k == 0:
        pick = np.zeros((1, 0), dtype=np.intp)
    else:
        pick = np.array(list(combinations(range(n), k)), dtype=np.intp)
    packs = None
    if n < 63:
        packs = np.zeros(len(pick), dtype=np.int64)
        for column in pick.T:
            packs |= np.left_shift(1, column).astype(np.int64)
    pairs = [n + 1 + pick[:, i] * n + pick[:, j] for i, j in combinations(range(k), 2)]
    cells = np.vstack([*pick.T, np.full(len(pick), n, dtype=np.intp), *pairs])
    return pick, cells, packs


def _any_of(free: list[str], names: set[str], pick: np.ndarray,
            packs: np.ndarray | None) -> np.ndarray:
    """For each hypothesis (``_hypotheses``' rows), whether it makes one of ``names`` a
    wolf."""
    if packs is None:
        return np.array([f in names for f in free], dtype=bool)[pick].any(axis=1)
    mask = 0
    for i, f in enumerate(free):
        if f in names:
            mask |= 1 << i
    return (packs & mask) != 0


def pack_size(view) -> int:
    """How many werewolves the player's game dealt (its ruleset, for its size)."""
    rules = rules_of(view)
    return sum(1 for r in rules.roles_for(len(view.players)) if r.pack)


def murders_prove_human(view) -> bool:
    """Whether a player found dead in the night was certainly human: not where the pack
    may kill its own (werewolf-12's ``self_knife``) or a Witch's poison, which shows as a
    murder to all but her, may kill a werewolf (the rule player then takes only a night's
    single death for the pack's victim)."""
    from maw.engine.roles import Ability

    rules = rules_of(view)
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
