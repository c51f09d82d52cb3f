"""A rule player whose beliefs weigh what it saw by likelihood ratios fitted to games.

The rule player's beliefs (``maw.policies.beliefs``) weigh every hypothesis of who the
pack is by a few likelihood ratios chosen by hand: how much likelier a vote on a player
is if it is a wolf, two voters on one target if they are packmates, a claimed result if
it is true... Those ratios are the parameters of a log-linear model of the pack given
the evidence (a conditional logit over the hypotheses, ``Tally.features``): this module
fits them by maximum likelihood to what the village's players saw in games, the true
pack known at each game's end.

``maw train --algo beliefs`` (``maw.env.fit_beliefs``) plays rule games of a ruleset,
takes a sample of every village player's evidence as it weighed it (``keep``: a share of
the weighings, since one phase's are much alike), and fits the ratios by gradient ascent
(Adam) from the hand's, on the first 80% of the games; it reports the log-likelihood and
the mean probability of the true pack on the last 20%, by hand and fitted. The file
(JSON, ``maw-beliefs-1``) plays as ``learned:FILE``: the rule player, every choice its
own, with the fitted ratios.

Sharper beliefs reach 0.9 more often, the P(werewolf) at which the rule Witch poisons:
with werewolf-12's fitted ratios a village that poisoned there won less than one that
waited for surer beliefs. Where the ruleset has a Witch the trainer also chooses that
threshold by play (``POISON_AT``, each on the same games, after the fit's), the rule
player's unless another wins more.

A file fitted to one ruleset plays in any (its ratios weigh the same kinds of evidence),
but it was fitted to that ruleset's rule players: a wolf that never votes for a packmate
makes such a vote nearly impossible for a pack. Against other players the ratios may be
too sure; the hand's are the default for that reason.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from maw.errors import ConfigError, MawError
from maw.policies.beliefs import HAND, Ratios
from maw.policies.rule import RuleDecider

FORMAT = "maw-beliefs-1"
HELD_OUT = 0.2  # the share of the games, the last, the fit is judged on


@dataclass
class Fitted:
    """A fitted model's file: the ratios, how they were made, how well they do."""

    ruleset: str
    players: int
    ratios: Ratios = HAND
    games: int = 0
    records: int = 0
    seconds: float = 0.0
    command: str = ""
    # on the held-out games: mean log-likelihood of the true pack, and its mean
    # probability, by hand and fitted
    held_out: dict[str, float] = field(default_factory=dict)
    # the P(werewolf) at which its Witch poisons (above 1: never), chosen by play where
    # the ruleset has a Witch (``None``: the rule player's); the village's wins of each
    # threshold tried, on games of their own
    poison_at: float | None = None
    poison_search: dict[str, int] = field(default_factory=dict)

    def save(self, path: Path) -> None:
        data = {"format": FORMAT, **asdict(self)}
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        tmp.replace(path)  # (a kill mid-write leaves no half a file)

    @classmethod
    def read(cls, path: Path, data: dict) -> Fitted:
        try:
            poison_at = data.get("poison_at")
            if poison_at is not None and (isinstance(poison_at, bool) or not isinstance(
                    poison_at, int | float) or not 0 < poison_at < math.inf):
                raise ValueError(f"'poison_at' must be a number above 0, got {poison_at!r}")
            return cls(data["ruleset"], int(data["players"]), _ratios(data["ratios"]),
                       int(data["games"]), int(data["records"]), float(data["seconds"]),
                       data.get("command", ""), dict(data.get("held_out", {})),
                       None if poison_at is None else float(poison_at),
                       dict(data.get("poison_search", {})))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{path}: a fitted beliefs file ({FORMAT}) with a bad "
                              f"field: {exc}") from None


def _ratios(data: object) -> Ratios:
    """A file's ratios: every field of :class:`Ratios`, each a finite number."""
    names = [f.name for f in fields(Ratios)]
    if not isinstance(data, dict) or sorted(data) != sorted(names):
        raise ValueError(f"'ratios' must name exactly {', '.join(names)}")
    values = []
    for name in names:
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not math.isfinite(value):
            raise ValueError(f"ratio {name!r} must be a finite number, got {value!r}")
        values.append(float(value))
    return Ratios.of(values)


_FITTED: dict[Path, Fitted | None] = {}


def fitted_at(path: str) -> Fitted | None:
    """The fitted beliefs at ``path``, read once; ``None`` when the file is JSON of
    another kind (a table)."""
    p = Path(path).expanduser().resolve()
    if p not in _FITTED:
        try:
            data = json.loads(p.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None  # (the table's loader says what is wrong)
        _FITTED[p] = Fitted.read(p, data) if isinstance(data, dict) and \
            data.get("format") == FORMAT else None
    return _FITTED[p]


def fitted_decider(player: str, rng: random.Random, fitted: Fitted) -> RuleDecider:
    """The rule player, its beliefs weighed by ``fitted``'s ratios."""
    decider = RuleDecider(player, rng)
    decider.ratios = fitted.ratios
    if fitted.poison_at is not None:
        decider.poison_at = fitted.poison_at
    return decider


# ---------------------------------------------------------------- fitting

Record = tuple[np.ndarray, np.ndarray, int]  # features, hypotheses that hold, the true one


def judge(records: list[Record], ratios: Ratios) -> tuple[float, float, np.ndarray]:
    """The mean log-likelihood of the true packs under ``ratios``, the mean probability
    of the true pack, and the log-likelihood's gradient."""
    w = ratios.vector()
    total = p_true = 0.0
    grad = np.zeros_like(w)
    for features, holds, true in records:
        score = np.where(holds, features @ w, -np.inf)
        top = score.max()
        weight = np.exp(score - top)
        z = weight.sum()
        weight /= z
        total += score[true] - top - math.log(z)
        p_true += weight[true]
        grad += features[true] - weight @ features
    n = max(1, len(records))
    return total / n, p_true / n, grad / n


def fit(records: list[Record], start: Ratios = HAND, steps: int = 300, batch: int = 2000,
        rate: float = 0.05, seed: int = 0) -> Ratios:
    """The ratios of greatest likelihood, by Adam on batches of ``records`` from
    ``start`` (the hand's)."""
    if not records:
        raise MawError("no evidence to fit: the games gave the village nothing to weigh")
    rng = np.random.default_rng(seed)
    w = start.vector().astype(float)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, steps + 1):
        pick = rng.choice(len(records), min(batch, len(records)), replace=False)
        _, _, g = judge([records[i] for i in pick], Ratios.of(w))
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w += rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return Ratios.of(w)
