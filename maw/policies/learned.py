"""The ``learned`` decider: the rule player, whose every targeted choice (a vote, an
attack, a divination, a guard...) is one of a few options picked by a table learned from
play: tabular Monte-Carlo control over abstract features, as RLereWolf's trainable agent
meant to learn (its dissertation, §5.3), with numpy and nothing else.

For each choice the options are the same targets seen in different ways:

* ``rule``: the rule player's own choice;
* ``belief``: the most likely werewolf by the rule player's beliefs (for a wolf: the least
  likely, the most trusted villager);
* ``crowd``: the target most votes already point at (what the table does);
* ``claimed``: the target most often said to be a werewolf (for a wolf's attack, a
  guard: a player who came out as a role);
* ``claimer``: of the players who came out as a role, the one its beliefs suspect most
  (a wolf: trust least).

The state a choice is made in is a handful of facts any player sees: its role, the kind of
choice, how many live, how many living players came out as a role, whether it was itself
called a werewolf, whether a werewolf was claimed, whether votes are already cast, how
sure its beliefs are, the day. The table holds, per state, the mean return of each
option (+1 a win, -1 a loss; a running mean that forgets the oldest returns, and training
explores less as it goes); the decider takes the best option it can (an option with no
target falls back on ``rule``). A state never seen in training plays the rule player.

A table learned from counterfactual rollouts (``maw train --counterfactual``) also holds,
per state, each option's return less the rule option's in the same rollouts (paired: their
count, sum and sum of squares). Such a table plays safe: it leaves the rule player's
choice only for an option whose paired advantage is above 0 with 97.5% confidence over
all the options the table has tested (:meth:`Table.confidence`: its mean less that many
standard errors, over ``SURE_AFTER`` samples at least), as safe policy improvement does
(Thomas et al. 2015, HCPI; Laroche et al. 2019, SPIBB: keep the baseline where the data
cannot show better). Without it, a state of hundreds of visits took whichever option's
noise was highest, since the options differ by a point or two when they differ at all.
The confidence is over the table as a whole (Bonferroni's correction): at 1.96 standard
errors in each of the 84 tests of aiwolf-15's table, about two options no better than the
rule player's would pass by chance, and one that passed (a villager's vote, +0.011 ±
0.005) cost a village whose every seat took it a point.

``maw train`` makes a table (``maw.env.train``); ``learned:FILE`` plays it anywhere a
decider is named (``maw simulate``, ``maw game --policy``, ``maw aiwolf-client``).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

from maw.engine import Action, Attack, Divine, Event, Guard, PlayerView, Vote
from maw.engine.roles import role_named
from maw.errors import ConfigError
from maw.policies import claims
from maw.policies.base import Decider
from maw.policies.fitted import fitted_at, fitted_decider
from maw.policies.rule import RuleDecider

OPTIONS = ("rule", "belief", "crowd", "claimed", "claimer")
KINDS: dict[type, str] = {Vote: "vote", Attack: "attack", Divine: "divine", Guard: "guard"}
FORMAT = "maw-learned-3"
RECENT = 0.002  # the weight of a new return once an option has had 500
ALPHA = 0.025  # a safe table leaves the rule option when its advantage is above 0 at
SURE_AFTER = 30  # this one-sided level over all the options it tested, each over this many
# paired samples at least (both chosen before any game was played with them: a normal
# approximation's rule of thumb; fewer samples, all alike, would have no error at all)
HALF_LIFE = 4000  # games after which training explores half as often


def then(before: str, command: str) -> str:
    """The commands a learned file was made by: ``before`` (a resumed file's), then
    ``command`` (a resumed run recorded only its own, and the file held all its games)."""
    return " && ".join(c for c in (before, command) if c)


@dataclass
class Table:
    """Per state key, each option's estimated return (``sums``) and visits; a table
    learned from counterfactual rollouts also each option's return less the rule option's
    in the same rollouts (``paired``: count, sum, sum of squares)."""

    ruleset: str = ""
    team: str = ""
    games: int = 0
    sums: dict[str, list[float]] = field(default_factory=dict)
    counts: dict[str, list[int]] = field(default_factory=dict)
    command: str = ""
    paired: dict[str, list[list[float]]] = field(default_factory=dict)
    _tested: int | None = field(default=None, repr=False, compare=False)

    def tested(self) -> int:
        """How many options other than the rule player's have ``SURE_AFTER`` paired
        samples or more: the tests a safe table makes at once."""
        if self._tested is None:
            self._tested = sum(stats[0] >= SURE_AFTER for per in self.paired.values()
                               for stats in per[1:])
        return self._tested

    def confidence(self) -> float:
        """How many standard errors above 0 an option's advantage must be: 97.5% over
        the table's tests together (1.96 for one test, 3.48 for 100)."""
        return NormalDist().inv_cdf(1 - ALPHA / max(1, self.tested()))

    def best(self, key: str, available: list[int]) -> int | None:
        """The option of best estimated return among ``available`` (``None``: never
        seen); in a state with paired returns, the rule option unless another's
        advantage over it is sure (the module's docstring)."""
        counts = self.counts.get(key)
        if counts is None:
            return None
        if key in self.paired:
            sure = {i: self.advantage(key, i) for i in available if i}
            z = self.confidence()
            sure = {i: a for i, a in sure.items() if a[0] - z * a[1] > 0}
            return max(sure, key=lambda i: sure[i][0]) if sure else 0
        values = self.sums[key]
        seen = [i for i in available if counts[i]]
        if not seen:
            return None
        return max(seen, key=lambda i: values[i])

    def add(self, key: str, option: int, ret: float) -> None:
        """One more return of ``option`` in state ``key``: the mean of the first
        ``1 / RECENT`` visits, then a running estimate that forgets the oldest (the
        returns of a policy that has since changed)."""
        values = self.sums.setdefault(key, [0.0] * len(OPTIONS))
        counts = self.counts.setdefault(key, [0] * len(OPTIONS))
        counts[option] += 1
        values[option] += max(1.0 / counts[option], RECENT) * (ret - values[option])

    def add_paired(self, key: str, option: int, advantage: float) -> None:
        """One more paired advantage of ``option`` over the rule option in ``key``."""
        stats = self.paired.setdefault(key, [[0, 0.0, 0.0] for _ in OPTIONS])[option]
        stats[0] += 1
        if option and stats[0] == SURE_AFTER and self._tested is not None:
            self._tested += 1
        stats[1] += advantage
        stats[2] += advantage * advantage

    def advantage(self, key: str, option: int) -> tuple[float, float]:
        """The mean paired advantage of ``option`` in ``key`` and its standard error
        (infinite below ``SURE_AFTER`` samples)."""
        n, total, squares = self.paired[key][option]
        if n < max(2, SURE_AFTER):
            return 0.0, float("inf")
        mean = total / n
        var = max(0.0, (squares - n * mean * mean) / (n - 1))
        return mean, (var / n) ** 0.5

    def save(self, path: Path) -> None:
        data = {"format": FORMAT, "ruleset": self.ruleset, "team": self.team,
                "games": self.games, "options": list(OPTIONS), "command": self.command,
                "table": {k: [self.counts[k], self.sums[k]]
                          for k in sorted(self.counts)}}
        if self.paired:
            data["paired"] = {k: self.paired[k] for k in sorted(self.paired)}
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n")
        tmp.replace(path)  # (a kill mid-write leaves the last checkpoint whole)

    @classmethod
    def load(cls, path: Path) -> Table:
        try:
            data = json.loads(path.read_text())
        except OSError as exc:
            raise ConfigError(f"cannot read the policy {path}: {exc.strerror or exc}") \
                from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ConfigError(f"{path} is not a learned policy (not JSON)") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ConfigError(f"{path} is not a learned policy ({FORMAT})")
        t = cls(data["ruleset"], data["team"], data["games"], command=data.get("command", ""))
        for key, (counts, sums) in data["table"].items():
            t.counts[key], t.sums[key] = list(counts), list(sums)
        for key, stats in data.get("paired", {}).items():
            t.paired[key] = [list(s) for s in stats]
        return t


_TABLES: dict[Path, Table] = {}


def table_at(path: str) -> Table:
    """The policy at ``path``, read once."""
    p = Path(path).expanduser().resolve()
    if p not in _TABLES:
        _TABLES[p] = Table.load(p)
    return _TABLES[p]


class LearnedDecider(Decider):
    """See the module docstring. ``explore``: the chance of a random option (training);
    ``visits`` collects (state key, option) for each choice made, ``offered`` the options
    each had, grouped by the action each takes; ``forced`` (counterfactual training):
    choice i takes option ``forced[i]`` where it is offered."""

    def __init__(self, player: str, rng: random.Random, table: Table,
                 explore: float = 0.0) -> None:
        # (the rule player draws from ``rng`` as it would alone: with a table that never
        # saw a state, the same game; exploring draws from a stream of its own, seeded by
        # the state's integers alone: the state's last item is None, whose hash is its
        # address, so hashing the whole state made every training run another table)
        super().__init__(player, random.Random(hash(rng.getstate()[1])))
        self.rule = RuleDecider(player, rng)
        self.table = table
        self.explore = explore
        self.visits: list[tuple[str, int]] = []
        self.offered: list[list[list[int]]] = []
        self.forced: dict[int, int] = {}
        self.chosen: dict[tuple, int] = {}  # the option taken for each choice
        self.claimed_wolf: dict[str, int] = {}  # target -> times called a werewolf
        self.came_out: set[str] = set()  # who claimed a role

    def observe(self, event: Event) -> None:
        self.rule.observe(event)
        speaker, text = getattr(event, "speaker", None), getattr(event, "text", None)
        if speaker is not None and text is not None and self.rule.players:
            for c in claims.parse(speaker, text, self.rule.players):
                if c.kind == "species" and c.value == "werewolf":
                    self.claimed_wolf[c.target] = self.claimed_wolf.get(c.target, 0) + 1
                elif c.kind == "role":
                    self.came_out.add(speaker)

    def beliefs(self, view: PlayerView) -> dict[str, float] | None:
        return self.rule.beliefs(view)

    def rule_layer(self) -> RuleDecider:
        return self.rule

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        action = self.rule.decide(view, legal)
        kind = KINDS.get(type(action))
        if kind is None or view is None:
            return action
        targets = [a for a in legal if type(a) is type(action)]
        by_target = {getattr(a, "target"): a for a in targets}  # noqa: B009
        picks = self._options(view, kind, getattr(action, "target"), list(by_target))  # noqa: B009
        available = [i for i, t in enumerate(picks) if t is not None]
        # one option a choice: a vote asked for again (MAW's votes may change all day)
        # keeps the option it took, its target following what the option sees now
        moment = (view.day, view.phase, view.vote_round, kind)
        if moment in self.chosen and self.chosen[moment] in available:
            return by_target.get(picks[self.chosen[moment]] or "", action)
        key = self._key(view, kind)
        if self.forced.get(len(self.visits)) in available:
            option = self.forced[len(self.visits)]
        elif self.explore and self.rng.random() < self.explore:
            option = self.rng.choice(available)
        else:
            best = self.table.best(key, available)
            option = 0 if best is None else best
        self.chosen[moment] = option
        self.visits.append((key, option))
        # (the options by the action each takes: two that name one target are one choice)
        same: dict[Action | None, list[int]] = {}
        for i in available:
            same.setdefault(by_target.get(picks[i] or "", action), []).append(i)
        self.offered.append(list(same.values()))
        return by_target.get(picks[option] or "", action)

    def _options(self, view: PlayerView, kind: str, rule: str, targets: list[str]
                 ) -> list[str | None]:
        wolf = bool(view.pack)
        belief = self.rule.beliefs_now or {}
        pool = [t for t in targets if t != self.player]
        if not pool:
            return [rule, None, None, None, None]
        if wolf:
            trusted = [t for t in pool if t not in view.pack]
            by_belief = min(trusted, key=lambda t: belief.get(t, 0.5)) if trusted else None
        else:
            by_belief = max(pool, key=lambda t: belief.get(t, 0.0)) if belief else None
        votes: dict[str, int] = {}
        for t in view.votes.values():
            if t in pool:
                votes[t] = votes.get(t, 0) + 1
        crowd = max(votes, key=lambda t: votes[t]) if votes else None
        if kind in ("attack", "guard"):
            named = [t for t in pool if t in self.came_out and t not in view.pack]
        else:
            named = [t for t in pool if self.claimed_wolf.get(t)]
            named.sort(key=lambda t: -self.claimed_wolf[t])
        out = [t for t in pool if t in self.came_out]
        claimer = (min(out, key=lambda t: belief.get(t, 0.5)) if wolf else
                   max(out, key=lambda t: belief.get(t, 0.0))) if out else None
        return [rule, by_belief, crowd, named[0] if named else None, claimer]

    def _key(self, view: PlayerView, kind: str) -> str:
        belief = self.rule.beliefs_now or {}
        top = max((p for p in belief.values()), default=0.0)
        sure = "sure" if top >= 0.8 else "guess" if top >= 0.5 else "blind"
        claimed = any(t in view.living for t in self.claimed_wolf)
        voted = bool(view.votes)
        day = min(view.day, 3)
        out = min(2, sum(1 for p in self.came_out if p in view.living))
        accused = int(self.player in self.claimed_wolf)
        return (f"{role_named(view.role).name}|{kind}|{len(view.living)}|{out}|{accused}|"
                f"{int(claimed)}|{int(voted)}|{sure}|{day}")


def learned_decider(player: str, rng: random.Random, path: str) -> Decider:
    """``learned:FILE``'s decider: a table (JSON), a network (``.npz``:
    ``maw.policies.neural``), or the rule player with fitted beliefs (JSON of
    ``maw-beliefs-1``: ``maw.policies.fitted``)."""
    if path.endswith(".npz"):
        from maw.policies.neural import NeuralDecider, network_at

        return NeuralDecider(player, rng, network_at(Path(path).expanduser()))
    fitted = fitted_at(path)
    if fitted is not None:
        return fitted_decider(player, rng, fitted)
    return LearnedDecider(player, rng, table_at(path))
