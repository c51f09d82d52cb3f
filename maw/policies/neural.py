"""A neural learned player, played with numpy alone (``learned:FILE.npz``).

``maw train --algo ppo`` (``maw.env.ppo``, the ``.[rl]`` extra: sb3-contrib's MaskablePPO
on PyTorch's CPU build) trains a small network over the environment; its policy half is
exported to plain arrays, so the default install plays it without PyTorch. The player
reads what the environment's agents read (``maw.policies.observation``): its own view,
what it heard said in the claims grammar, and the rule player's beliefs where it was
trained with them, and what the rule player would do now where it was trained with that
advice (``"advice"``: ``maw.policies.observation.Adviser``); of the actions the rules give
it, it takes the one its network ranks first (a deterministic policy: the same game, the
same choices).

The file holds the layers' weights and biases (``w0``, ``b0``, ...; the action head last)
and ``meta``, a JSON text: the ruleset, the players, the team it learned, whether its
observation has beliefs, the activation, and how it was trained.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from maw.engine import Action, Event, PlayerView
from maw.engine.events import Chatted
from maw.errors import ConfigError
from maw.policies.base import Decider, make_decider
from maw.policies.observation import Adviser, Heard, Layout, observe

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


@dataclass(frozen=True)
class Network:
    """A multilayer perceptron's arrays: hidden layers, then the action head (logits)."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def inputs(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def outputs(self) -> int:
        return int(self.weights[-1].shape[0])

    def logits(self, x: np.ndarray) -> np.ndarray:
        act = ACTIVATIONS[self.meta.get("activation", "tanh")]
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = act(w @ x + b)
        return self.weights[-1] @ x + self.biases[-1]

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {"meta": np.array(json.dumps(self.meta))}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(np.float32), b.astype(np.float32)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Network:
        try:
            with np.load(path, allow_pickle=False) as f:
                meta = json.loads(str(f["meta"]))
                layers = sorted(int(k[1:]) for k in f.files if k.startswith("w"))
                weights = tuple(np.asarray(f[f"w{i}"], np.float32) for i in layers)
                biases = tuple(np.asarray(f[f"b{i}"], np.float32) for i in layers)
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"{path}: not a learned player's network ({exc})") from None
        if not weights or any(w.shape[0] != b.shape[0] for w, b in zip(weights, biases,
                                                                        strict=True)):
            raise ConfigError(f"{path}: its layers do not fit together")
        if meta.get("activation", "tanh") not in ACTIVATIONS:
            raise ConfigError(f"{path}: unknown activation {meta.get('activation')!r}")
        return cls(weights, biases, meta)


_LOADED: dict[Path, Network] = {}


def network_at(path: str | Path) -> Network:
    """The network of ``path``, read once a process."""
    key = Path(path).resolve()
    if key not in _LOADED:
        _LOADED[key] = Network.load(key)
    return _LOADED[key]


class NeuralDecider(Decider):
    """Plays ``network``: see the module docstring."""

    def __init__(self, player: str, rng: random.Random, network: Network) -> None:
        super().__init__(player, rng)
        self.network = network
        self.beliefs_on = bool(network.meta.get("beliefs", False))
        self.heard = Heard.empty()
        self.unheard: list[Chatted] = []  # (chats before its first view: seats unknown)
        self.names: tuple[str, ...] | None = None
        self.layout: Layout | None = None
        # the rule player whose beliefs its observation holds (as the environment's)
        self.reader = make_decider("rule", player, random.Random(0))
        # (advised) the rule player whose choice its observation holds, apart from the
        # reader: one that decides keeps what it said, as the environment's adviser does
        self.adviser = Adviser(player, rng) if network.meta.get("advice") else None

    def observe(self, event: Event) -> None:
        self.reader.observe(event)
        if self.adviser is not None:
            self.adviser.observe(event)
        if type(event) is Chatted:
            if self.names is None:
                self.unheard.append(event)
            else:
                self.heard.hear(event.speaker, event.text, self.names)

    def beliefs(self, view: PlayerView) -> dict[str, float] | None:
        return self.reader.beliefs(view)

    def observation(self, view: PlayerView, legal: tuple[Action, ...] = ()) -> np.ndarray:
        """What it reads of ``view`` where ``legal`` are its actions: the environment's
        observation of it (an advised network's adviser is asked, once a turn)."""
        if self.names is None:
            self.names = tuple(view.players)
            self.layout = Layout(self.names, joined=bool(self.network.meta.get("joined")),
                                 advised=self.adviser is not None)
            for e in self.unheard:
                self.heard.hear(e.speaker, e.text, self.names)
            self.unheard = []
        assert self.layout is not None
        belief = self.reader.beliefs(view) if self.beliefs_on and view.alive else None
        advice = None
        if self.adviser is not None and legal:
            advice = self.adviser.index(view, legal, self.layout)
        obs = observe(view, self.layout, self.heard, belief, self.beliefs_on, advice,
                      self.adviser is not None)
        if obs.shape[0] != self.network.inputs:
            raise ConfigError(
                f"the learned network reads {self.network.inputs} numbers; a game of "
                f"{len(view.players)} players gives {obs.shape[0]} (it was trained for "
                f"{self.network.meta.get('players')} players of "
                f"{self.network.meta.get('ruleset')})")
        return obs

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        if not legal or view is None:
            return None
        obs = self.observation(view, legal)
        assert self.layout is not None
        if self.network.outputs != self.layout.size:
            raise ConfigError(
                f"the learned network chooses among {self.network.outputs} actions; its "
                f"game offers {self.layout.size} (joined claims: {self.layout.joined}, as "
                f"its meta says; it was trained for {self.network.meta.get('ruleset')})")
        line = self.adviser.line if self.adviser is not None else None  # (this turn's)
        mask, chosen = self.layout.mask(legal, line)
        logits = self.network.logits(obs)
        logits = np.where(mask.astype(bool), logits, -np.inf)
        return chosen.get(int(np.argmax(logits)))
