"""``maw train --algo ppo``: a neural learned player, trained with sb3-contrib's
MaskablePPO (the ``.[rl]`` extra: PyTorch's CPU build) over the environment, and exported
to numpy (``maw.policies.neural``: ``learned:FILE.npz`` plays it without PyTorch).

One team learns (``team``: its every seat plays the one network, each from its own view,
as PettingZoo's own MaskablePPO tutorial plays its agents; with ``seats=1``, one seat
drawn each game, beside rule teammates), against opponents drawn each game from
``opponents`` (``rule``, ``random``, ``learned:FILE``: an earlier network). A team whose
every seat is the one network can win by a convention among its seats (in aiwolf-5 a
village that all came out as the Idiot, a role the game lacks, won every game against the
rule werewolves, who never do); one seat among rule players has to play well alone. To
MaskablePPO the team is one agent acting one seat at a time: a step's observation and mask
are those of the seat to act, and its reward the team's (the mean of its seats' rewards
that step, RLereWolf's table: ``maw.env.rewards``), so the end's +20 or -20 reaches every
step that led to it. Observations carry the rule player's beliefs (``beliefs=True``) and,
with ``advice``, what the rule player would do now (``maw.policies.observation.Adviser``):
imitation then copies one input, and PPO learns where to do otherwise. ``anchor`` holds PPO
near what it imitated (``Demonstrations.anchor``: DAPG's demonstration term, Rajeswaran et
al. 2018), where PPO's updates on a game whose win one seat moves by a point or two are a
walk on noise.

``train`` saves the model (``FILE.zip``, for ``resume``) and the network (``FILE.npz``)
every ``checkpoint`` steps and at the end. ``self_play`` trains both sides in turns, each
against the given opponents and every earlier checkpoint of the other side (a league, as
fictitious self-play keeps one: a side that learned to beat only the latest other side
meets the older ones too).
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from maw.engine import ruleset as make_ruleset
from maw.env.aec import raw_env
from maw.env.rewards import Rewards
from maw.errors import ConfigError, MawError
from maw.policies.learned import then
from maw.policies.neural import Network

NET = [64, 64]  # the hidden layers (small: numpy plays it in microseconds)
ROLLOUT = 1024  # steps collected between two updates
SPREAD = 0.2  # (advised) the share of an imitated choice spread over the legal actions
ANCHOR_BATCHES = 8  # (--anchor) batches of 256 demonstrations between two updates


class TeamEnv(gymnasium.Env):
    """The environment as one agent: ``team``'s seats, one at a time (module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, ruleset_name: str, players: int | None, team: str,
                 opponents: tuple[str, ...] = ("rule",), seed: int = 0,
                 rewards: Rewards | None = None, seats: int | None = None,
                 advice: bool = False) -> None:
        if team not in ("village", "werewolves"):
            raise ConfigError(f"team {team!r}: village or werewolves")
        if not opponents:
            raise ConfigError("give at least one opponent")
        self.aec = raw_env(ruleset_name, players, learn=team, opponents=opponents[0],
                           beliefs=True, rewards=rewards, seats=seats, advice=advice)
        self.team, self.opponents = team, opponents
        self.rng = random.Random(seed)
        self.games = 0
        self.wins = 0
        space = self.aec.observation_space(self.aec.possible_agents[0])
        self.observation_space = space["observation"]  # type: ignore[index]
        self.action_space = self.aec.action_space(self.aec.possible_agents[0])

    def _seat(self) -> tuple[np.ndarray, dict]:
        obs = self.aec.observe(self.aec.agent_selection)
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"], {}

    def action_masks(self) -> np.ndarray:
        return self._mask

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.aec.opponents = self.rng.choice(self.opponents)
        while True:
            self.aec.reset(seed=self.rng.randrange(2**31))
            if self.aec.agents and not self._over():
                return self._seat()

    def tally(self) -> tuple[int, int]:
        """The games ended and won so far, counted again from 0."""
        games, wins = self.games, self.wins
        self.games = self.wins = 0
        return games, wins

    def _over(self) -> bool:
        return all(self.aec.terminations.values()) if self.aec.terminations else True

    def step(self, action):
        self.aec.step(int(action))
        reward = sum(self.aec.rewards.values()) / max(1, len(self.aec.rewards))
        if self._over():
            self.games += 1
            winner = next(iter(self.aec.infos.values()), {}).get("winner")
            self.wins += winner == self.team
            obs = np.zeros(self.observation_space.shape, dtype=np.float32)
            self._mask = np.ones(self.action_space.n, dtype=bool)
            return obs, reward, True, False, {"winner": winner}
        obs, info = self._seat()
        return obs, reward, False, False, info


@dataclasses.dataclass
class Demonstrations:
    """The rule player's play of a team's steps: what each step saw, its mask, the rule
    player's choice and the return that followed."""

    seen: np.ndarray
    masks: np.ndarray
    acts: np.ndarray
    returns: np.ndarray

    @classmethod
    def play(cls, env: TeamEnv, steps: int, gamma: float = 0.99,
             progress: Callable[[int], None] | None = None) -> Demonstrations:
        """``steps`` of ``env``'s steps as the rule player reading each seat would play
        them (``raw_env.teacher``); ``progress(done)`` every 256 steps and at the end."""
        env.aec.teach = True  # (from the next game on, a rule player reads each learning seat)
        obs, _ = env.reset()
        steps_: list[tuple[np.ndarray, np.ndarray, int, float, bool]] = []
        for _ in range(steps):
            mask = env.action_masks()
            a = env.aec.teacher(env.aec.agent_selection)
            a = a if mask[a] else 0
            after, r, done, _, _ = env.step(a)
            steps_.append((obs, mask, a, r, done))
            obs = env.reset()[0] if done else after
            if progress is not None and (len(steps_) % 256 == 0 or len(steps_) == steps):
                progress(len(steps_))
        env.aec.teach = False
        returns, g = np.zeros(len(steps_), dtype=np.float32), 0.0
        for i in range(len(steps_) - 1, -1, -1):
            g = steps_[i][3] + gamma * g * (not steps_[i][4])
            returns[i] = g
        return cls(np.array([t[0] for t in steps_], dtype=np.float32),
                   np.array([t[1] for t in steps_]),
                   np.array([t[2] for t in steps_]), returns)

    def loss(self, policy, k, spread: float = 0.0):
        """The values of steps ``k`` (a tensor of indices) and the policy's cross-entropy
        to their choices (``spread``: ``fit``'s)."""
        import torch

        i = k.numpy()
        seen, masks = torch.as_tensor(self.seen[i]), self.masks[i]
        logps = policy.get_distribution(seen, action_masks=masks).distribution.logits
        fit = -logps.gather(1, torch.as_tensor(self.acts[i]).long()[:, None]).mean()
        if spread:
            legal = torch.as_tensor(masks, dtype=torch.float32)
            evenly = (logps * legal).sum(1) / legal.sum(1)
            fit = (1 - spread) * fit - spread * evenly.mean()
        return policy.predict_values(seen), fit

    def anchor(self, policy, batches: int, weight: float, gen, spread: float = 0.0) -> None:
        """``batches`` steps of the policy's own optimizer on the choices' cross-entropy
        (times ``weight``), batches drawn at random: between PPO's updates, a pull back to
        the teacher (DAPG's demonstration term), so that PPO's updates on noise do not
        walk the policy away from it."""
        import torch

        for _ in range(batches):
            k = torch.randint(len(self.acts), (256,), generator=gen)
            _, fit = self.loss(policy, k, spread)
            policy.optimizer.zero_grad()
            (weight * fit).backward()
            policy.optimizer.step()

    def fit(self, policy, epochs: int = 30,
            progress: Callable[[int], None] | None = None, spread: float = 0.0) -> float:
        """Fit ``policy`` to the choices (cross-entropy under the mask) and its value to the
        returns; how often the policy's likeliest action is then the rule player's.
        ``progress(epochs done)`` after each epoch. ``spread``: that share of each
        choice's target is spread evenly over the legal actions (label smoothing), so that
        a policy that copies its teacher still tries the others now and then, as PPO
        needs to learn where they do better."""
        import torch

        x, y = torch.as_tensor(self.seen), torch.as_tensor(self.acts)
        ret = torch.as_tensor(self.returns)
        optim = torch.optim.Adam(policy.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(0)
        for epoch in range(epochs):
            order = torch.randperm(len(x), generator=gen)
            for i in range(0, len(x), 256):
                k = order[i:i + 256]
                values, fit = self.loss(policy, k, spread)
                loss = fit + 0.5 * torch.nn.functional.mse_loss(values.flatten(), ret[k])
                optim.zero_grad()
                loss.backward()
                optim.step()
            if progress is not None:
                progress(epoch + 1)
        with torch.no_grad():
            dist = policy.get_distribution(x, action_masks=self.masks)
            return float((dist.distribution.probs.argmax(dim=1) == y).float().mean())


def imitate(model, env: TeamEnv, steps: int, epochs: int = 30, gamma: float = 0.99,
            progress: Callable[[str, int, int], None] | None = None,
            spread: float = 0.0) -> tuple[dict[str, Any], Demonstrations]:
    """Start ``model`` from the rule player: play ``steps`` of the team's steps as the rule
    player reading each seat would, then fit the policy to those choices and the value to
    the returns they earned (``Demonstrations``), so that PPO improves on the rule player
    rather than finding it again from nothing. Returns how well the policy then agrees
    with it and the games it took (not counted as the training's), and the
    demonstrations (for ``Demonstrations.anchor``). ``progress(stage,
    done, total)``: ``"play"`` in steps, then ``"fit"`` in epochs; ``spread``: ``fit``'s."""
    demos = Demonstrations.play(env, steps, gamma, progress and (
        lambda done: progress("play", done, steps)))
    games, wins = env.tally()
    agree = demos.fit(model.policy, epochs, progress and (
        lambda done: progress("fit", done, epochs)), spread)
    return {"steps": steps, "games": games, "wins": wins, "epochs": epochs,
            "agreement": round(agree, 4), **({"spread": spread} if spread else {})}, demos


def export(model, path: Path, meta: dict[str, Any]) -> Network:
    """The policy half of ``model`` (its hidden layers and action head) as a ``Network``,
    saved to ``path``."""
    import torch

    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    net = Network(tuple(x.weight.detach().cpu().numpy() for x in layers),
                  tuple(x.bias.detach().cpu().numpy() for x in layers),
                  {**meta, "activation": "tanh"})
    net.save(path)
    return net


def train(ruleset_name: str, team: str, steps: int, out: Path, *, players: int | None = None,
          opponents: tuple[str, ...] = ("rule",), seed: int = 0, resume: bool = False,
          checkpoint: int = 20_000, progress: Callable[[int, dict], None] | None = None,
          command: str = "", seats: int | None = None,
          rewards: Rewards | None = None, imitation: int = 0,
          rollout: int = ROLLOUT, advice: bool = False, anchor: float = 0.0,
          imitating: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Train ``team``'s network for ``steps`` more environment steps (rounded up to whole
    rollouts of ``rollout`` steps, ``ROLLOUT`` unless a test asks fewer); the network at
    ``out`` (``.npz``) and the model beside it (``.zip``). ``imitation``: a new network
    first learns the rule player's choices over that many steps (``imitate``, reporting
    to ``imitating``); ``advice``: its observation holds the rule player's choice (the
    network's ``meta`` says ``"advice"``); ``anchor``: (with ``imitation``) between PPO's
    updates, that weight of the imitation's cross-entropy on its demonstrations
    (``Demonstrations.anchor``). Returns what the network's ``meta`` says of its
    training."""
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import Logger
    except ImportError:
        raise MawError("maw train --algo ppo needs the rl extra: pip install -e '.[rl]' "
                       "(PyTorch's CPU build and sb3-contrib)") from None
    if out.suffix != ".npz":
        raise ConfigError(f"--out {out}: a network is a .npz file")
    if anchor and not imitation:
        raise ConfigError("--anchor holds PPO to an imitation's demonstrations: give "
                          "--imitate too")
    rules = make_ruleset(ruleset_name)
    n = players if players is not None else rules.min_players
    rules.roles_for(n)
    saved = out.with_suffix(".zip")
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # (a small network: threads cost more than they give)
    env = TeamEnv(rules.name, n, team, opponents, seed, seats=seats, rewards=rewards,
                  advice=advice)
    before: dict[str, Any] = {}
    if resume:
        if not saved.exists():
            raise MawError(f"--resume: {saved} (the model to train further) is missing")
        before = Network.load(out).meta if out.exists() else {}
        if (before.get("ruleset"), before.get("team"), before.get("players")) != \
                (rules.name, team, n):
            raise MawError(f"{out} learned {before.get('team')} on {before.get('ruleset')} "
                           f"with {before.get('players')} players, not {team} on "
                           f"{rules.name} with {n}")
        if bool(before.get("joined")) != env.aec.layout.joined:
            raise MawError(f"{out} was trained without the joined claims (a coming-out and "
                           f"its result in one line) {rules.name} now has: train it anew")
        if bool(before.get("advice")) != advice:
            was = "with" if before.get("advice") else "without"
            raise MawError(f"{out} was trained {was} the rule player's advice: --resume it "
                           f"{was} --advice")
        model = MaskablePPO.load(saved, env=env, device="cpu")
    else:
        model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", n_steps=rollout,
                            batch_size=min(256, rollout), gamma=0.99, ent_coef=0.01, verbose=0,
                            policy_kwargs={"net_arch": NET})
    demos: Demonstrations | None = None
    if imitation:
        if resume:
            raise ConfigError("--imitate starts a new network: not with --resume")
        before["imitation"], demos = imitate(model, env, imitation, progress=imitating,
                                             spread=SPREAD if advice else 0.0)
    t0, done_before = time.monotonic(), int(before.get("steps", 0))
    seconds_before = float(before.get("seconds", 0.0))

    def meta() -> dict[str, Any]:
        took = time.monotonic() - t0
        return {"ruleset": rules.name, "players": n, "team": team, "beliefs": True,
                "seats": seats, "rewards": dataclasses.asdict(rewards or Rewards()),
                "algo": "MaskablePPO", "net": NET, "opponents": list(opponents),
                "order": env.aec.order, "joined": env.aec.layout.joined, "advice": advice,
                "steps": done_before + int(model.num_timesteps - start),
                "seconds": round(seconds_before + took, 1),
                "games": int(before.get("games", 0)) + env.games,
                "training_wins": int(before.get("training_wins", 0)) + env.wins,
                **({"imitation": before["imitation"]} if "imitation" in before else {}),
                **({"anchor": anchor} if anchor else {}),
                "seed": seed, "command": then(before.get("command", ""), command)}

    start = model.num_timesteps

    gen = torch.Generator().manual_seed(seed)

    class Save(BaseCallback):
        def _on_rollout_end(self) -> None:  # (before each update of PPO)
            if anchor and demos is not None:
                demos.anchor(model.policy, ANCHOR_BATCHES, anchor, gen,
                             SPREAD if advice else 0.0)

        def _on_step(self) -> bool:
            done = self.model.num_timesteps - start
            if progress is not None:
                progress(done, {"games": env.games, "wins": env.wins})
            if checkpoint and done % checkpoint == 0:
                model.save(saved)
                export(model, out, meta())
            return True

    # a logger that writes nothing: SB3's own makes an empty folder in the temporary
    # directory (SB3-date-time) at every learn, one a training run, a hundred a sweep
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(total_timesteps=steps, callback=Save(), reset_num_timesteps=False)
    model.save(saved)
    return export(model, out, meta()).meta


def self_play(ruleset_name: str, steps: int, folder: Path, rounds: int, *,
              players: int | None = None, opponents: tuple[str, ...] = ("rule",),
              seed: int = 0, seats: int | None = None, rewards: Rewards | None = None,
              checkpoint: int = 20_000, command: str = "",
              progress: Callable[[str, int, dict], None] | None = None,
              rollout: int = ROLLOUT, imitation: int = 0, advice: bool = False,
              anchor: float = 0.0,
              imitating: Callable[[str, int, int], None] | None = None
              ) -> list[dict[str, Any]]:
    """Both sides learn in turns, ``rounds`` times, ``steps`` steps a side a round: the
    village against ``opponents`` and the werewolves' checkpoints of the rounds before, then
    the werewolves against ``opponents`` and every village checkpoint so far. In
    ``folder``: ``village.npz`` and ``werewolves.npz`` (the latest, their models beside
    them) and ``{side}-{round}.npz`` (each round's checkpoint, kept). Returns each
    checkpoint's ``meta``, in order. ``imitation``: round 1 starts each side from the rule
    player (``imitate``), over that many steps, reporting to ``imitating`` as ``train``;
    ``advice`` and ``anchor`` (round 1) as ``train``'s."""
    if rounds < 1:
        raise ConfigError("--rounds must be at least 1")
    if folder.suffix:
        raise ConfigError(f"--out {folder}: self-play writes a folder of networks")
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.glob("*.npz")):
        raise MawError(f"{folder} already holds networks: give an empty folder")
    done: list[dict[str, Any]] = []
    for r in range(1, rounds + 1):
        for team, other in (("village", "werewolves"), ("werewolves", "village")):
            last = r if team == "werewolves" else r - 1
            earlier = tuple(f"learned:{folder / f'{other}-{k}.npz'}" for k in range(1, last + 1))

            def told(n: int, s: dict, team: str = team, r: int = r) -> None:
                if progress is not None:
                    progress(f"round {r}/{rounds}, {team}", n, s)
            meta = train(ruleset_name, team, steps, folder / f"{team}.npz", players=players,
                         opponents=(*opponents, *earlier), seed=seed + 1000 * r + len(done),
                         resume=r > 1, checkpoint=checkpoint, progress=told,
                         command=command, seats=seats, rewards=rewards, rollout=rollout,
                         imitation=imitation if r == 1 else 0, imitating=imitating,
                         advice=advice, anchor=anchor if r == 1 else 0.0)
            Network.load(folder / f"{team}.npz").save(folder / f"{team}-{r}.npz")
            done.append({**meta, "round": r})
    return done


def describe(meta: dict[str, Any]) -> str:
    """A network's training, in a line."""
    return json.dumps({k: meta[k] for k in ("ruleset", "players", "team", "steps", "seconds",
                                            "games") if k in meta})
