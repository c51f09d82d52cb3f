"""MAW's engine as a PettingZoo AEC environment (``from maw.env import env, raw_env``).

One game an episode. The engine's phases are simultaneous; the environment asks their
actors one at a time, in an order shuffled each round (``order="seats"``: the seats'),
once a round (at most ``rounds`` rounds a phase, or a speaker's turn of a day spoken in
turns, as ``maw simulate`` does), then ends the phase as its timer would. Each agent is a
seat; the seats the learner does not play (``learn="village"`` or ``"werewolves"``) are
played by ``opponents`` (a registered decider: ``rule``, ``random``...), inside the
environment.

An agent sees only its own view (``maw.engine.view``) and what it heard said, as
structured facts (``maw.env.spaces``); its action mask holds exactly the engine's legal
actions. Chance (ties) is the engine's seeded pick: ``reset(seed=S)`` replays the same
game for the same actions. A dead agent is asked only what the rules still give it (a
Hunter's shot, a sheriff's badge), and stays in the episode until the game ends, so that
the last rewards (a win or a loss) reach every seat.

``text=True`` is the variant for language models: at its turn an agent's ``info`` also
holds ``"prompt"``, the messages an LLM player is sent (the rules, its role, then the turn
prompt of ``maw/prompts/turn.md`` with what it heard since its last turn), and
``"choices"``, the label of each index its mask allows; ``answer(agent, text)`` turns a
model's JSON answer into that index (the same legal choices, whatever the model says).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from maw.engine import (
    Action,
    Attack,
    Chat,
    EndPhase,
    GameState,
    Ruleset,
    Team,
    action_name,
    legal_actions,
    listen_as,
    new_game,
    opening_events,
    play,
    ruleset,
    view,
)
from maw.engine.events import Chatted, Event, VotesRevealed
from maw.engine.rules import actors
from maw.engine.state import Phase, default_names
from maw.env.rewards import Rewards
from maw.env.spaces import Adviser, Heard, Layout, observation_size, observe
from maw.errors import ConfigError, IllegalActionError
from maw.llm.answers import parse
from maw.llm.decider import LLMDecider
from maw.llm.llm import LLM
from maw.policies.base import Decider, make_decider, max_chat
from maw.protocol.render import event_text


def adviser_stream(seed: int, player: str) -> random.Random:
    """The stream of the rule player that advises (and teaches) ``player`` in the episode
    of ``seed``: one of its own, apart from the game's (whose draws stay the same), as a
    rule player in that seat has one."""
    return random.Random(f"{seed}:adviser:{player}")


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped environment
    """See the module docstring. ``ruleset``/``players``/``rule_options``: the game;
    ``learn``: whose seats are agents (``seats``: only that many of them, drawn each game,
    the rest of their side played by ``teammates``); ``opponents``: the decider of the
    others;
    ``beliefs``: add the rule player's beliefs (P(werewolf) per seat) to each
    observation; ``rewards``: the scheme (RLereWolf's by default); ``teach``: a rule
    player also reads each agent's seat, for ``teacher`` (imitation); ``advice``: add
    what that rule player would do now (``maw.policies.observation.Adviser``) to the
    observation of the agent to act."""

    metadata = {"render_modes": ["human", "ansi"], "name": "maw_werewolf_v0",
                "is_parallelizable": False}

    def __init__(self, ruleset_name: str = "aiwolf-5", players: int | None = None,
                 learn: str = "all", opponents: str = "rule", beliefs: bool = False,
                 rewards: Rewards | None = None, rounds: int = 3,
                 render_mode: str | None = None, text: bool = False,
                 seats: int | None = None, teammates: str = "rule", teach: bool = False,
                 order: str = "shuffled", advice: bool = False,
                 **rule_options: Any) -> None:
        super().__init__()
        self.rules: Ruleset = ruleset(ruleset_name, **rule_options)
        n = players if players is not None else self.rules.min_players
        self.rules.roles_for(n)  # (a size the ruleset cannot deal fails now)
        if learn not in ("all", "village", "werewolves"):
            raise ConfigError(f"learn={learn!r}: all, village or werewolves")
        self.learn, self.opponents, self.with_beliefs = learn, opponents, beliefs
        if seats is not None and seats < 1:
            raise ConfigError(f"seats={seats}: at least 1")
        self.seats, self.teammates = seats, teammates
        self.teach = teach  # (each agent's seat also read by a rule player: ``teacher``)
        self.advice = advice  # (and its choice in the observation)
        if order not in ("shuffled", "seats"):
            raise ConfigError(f"order={order!r}: shuffled or seats")
        self.order = order
        for name in (opponents, teammates):  # (an unknown one fails now)
            make_decider(name, "check", random.Random(0))
        self.scheme = rewards or Rewards()
        self.rounds = rounds
        self.render_mode = render_mode
        self.possible_agents = list(default_names(n))
        self.layout = Layout(tuple(self.possible_agents), joined=self.rules.speaking_order,
                             advised=advice)
        self._action_space = spaces.Discrete(self.layout.size)
        size = observation_size(n, self.layout, beliefs, advice)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.layout.size,), np.int8)})
        self.state_: GameState | None = None
        # the last observed mask's actions: (state, agent, advised line, index -> action)
        self._offer: tuple[GameState, str, Chat | None, dict[int, Action]] | None = None
        self.said: list[Event] = []  # every event of the game, in order (``lines``)
        self.text = text

    # ------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.seed_ = seed if seed is not None else random.randrange(2**31)
        rng = random.Random(self.seed_)
        names = self.possible_agents
        self.state_ = state = new_game(self.rules, names, rng)
        team = {n: r.team.value for n, r in zip(names, state.roles, strict=True)}
        self.agents = [n for n in names if self.learn == "all" or team[n] == self.learn]
        side = set(self.agents)
        if self.seats is not None and self.seats < len(self.agents):
            picked = set(rng.sample(self.agents, self.seats))
            self.agents = [n for n in self.agents if n in picked]
        self.others: dict[str, Decider] = {
            n: make_decider(self.teammates if n in side else self.opponents, n,
                            random.Random(rng.getrandbits(64)))
            for n in names if n not in self.agents}
        self.helpers: dict[str, Decider] = {}  # the rule players whose beliefs are added
        if self.with_beliefs:
            self.helpers = {n: make_decider("rule", n, random.Random(0)) for n in self.agents}
        # (apart from the helpers: a rule player that decides keeps what it said, which
        # its beliefs weigh; the beliefs of the observation are those of one that does not)
        self.advisers: dict[str, Adviser] = {
            n: Adviser(n, adviser_stream(self.seed_, n))
            for n in self.agents} if self.teach or self.advice else {}
        self.advised: tuple[int, str, int] | None = None  # (step, agent, its advice)
        self.heard = {n: Heard.empty() for n in names}
        # (text=True) each agent's prompt writer, and the lines it heard since its turn
        self.writers = {n: _writer(n) for n in self.agents} if self.text else {}
        self.unread: dict[str, list[str]] = {n: [] for n in self.writers}
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.said = []
        self.marker: tuple | None = None
        self.acted: set[str] = set()
        self.round = 0
        self.turns = random.Random(rng.getrandbits(64))  # (the order of each round)
        self.queue_: list[str] = []
        self.steps = 0
        self._hear(opening_events(state))
        self._advance()
        for a in self.rewards:  # (what the opponents' first moves earned is not an agent's)
            self.rewards[a] = 0.0
            self._cumulative_rewards[a] = 0.0

    def _hear(self, events: tuple[Event, ...] | list[Event]) -> None:
        state = self.state_
        assert state is not None
        hearers: list[Decider | Adviser] = [*self.others.values(), *self.helpers.values(),
                                            *self.advisers.values()]
        for e in events:
            for d in hearers:
                if e.audience is None or d.player in e.audience:
                    d.observe(e)
            if type(e) is Chatted:
                for name in self.heard:
                    if e.audience is None or name in e.audience:
                        self.heard[name].hear(e.speaker, e.text, state.names)
            elif type(e) is VotesRevealed:
                self._reward_votes(e)
            self.said.append(e)
            if self.unread or self.render_mode == "human":  # (else written when read)
                line = event_text(e)
                if line:
                    for name, unread in self.unread.items():
                        if e.audience is None or name in e.audience:
                            unread.append(line)
                    if self.render_mode == "human":
                        print(line)

    def _reward_votes(self, e: VotesRevealed) -> None:
        """RLereWolf's vote reward: its target the most voted, or behind it by rank."""
        counts: dict[str, int] = {}
        for _voter, target in e.votes:
            counts[target] = counts.get(target, 0) + 1
        ranked = sorted(set(counts.values()), reverse=True)
        for voter, target in e.votes:
            if voter in self.rewards:
                self.rewards[voter] += self.scheme.vote(ranked.index(counts[target]))

    def _play(self, action, offered: bool = False) -> None:
        """Play ``action`` (``offered``: one of the actions listed to its actor now, the
        very object, not a chat: the engine need not check it again)."""
        before = self.state_
        assert before is not None
        self.state_, events = play(before, action, offered)
        self._hear(events)
        after = self.state_
        if not self.rewards:
            return
        if after.day > before.day:  # (RLereWolf's "day passed": the game's motion)
            for a in after.living():
                if a in self.rewards:
                    self.rewards[a] += self.scheme.day_passed
        if after.alive != before.alive:
            for a in set(before.living()) - set(after.living()):
                if a in self.rewards:
                    self.rewards[a] += self.scheme.death

    def _advance(self) -> None:
        """Play on (the opponents, the timers) until an agent is to act or the game ends."""
        while True:
            state = self.state_
            assert state is not None
            if state.phase is Phase.OVER:
                self._finish()
                return
            marker = (state.day, state.phase, state.vote_round, state.turn, state.ballot)
            if marker != self.marker:
                self.marker, self.acted, self.round = marker, set(), 0
                self.queue_ = self._ordered(state)
            now = set(actors(state))
            waiting = [n for n in self.queue_ if n in now and n not in self.acted
                       and any(legal_actions(state, n))]
            if not waiting:
                self.round += 1
                if self.round >= self.rounds or not self.acted:
                    self._play(EndPhase())
                else:
                    self.acted = set()
                    self.queue_ = self._ordered(state)
                    # (a round where nobody chose anything: the phase is over)
                    if not any(legal_actions(state, n) for n in actors(state)):
                        self._play(EndPhase())
                continue
            name = waiting[0]
            if name in self.agents:
                self.agent_selection = name
                if self.text:
                    self._prompt(name)
                return
            self.acted.add(name)
            d = self.others[name]
            legal = legal_actions(state, name)
            action = d.decide(view(state, name) if d.needs_view else None, legal)
            if action is None:
                action = listen_as(state, name)
                if action is None:
                    continue
            try:
                self._play(action, type(action) is not Chat and any(a is action for a in legal))
            except IllegalActionError:
                continue

    def _ordered(self, state: GameState) -> list[str]:
        """A round's order of asking: shuffled, as a game's players come in no fixed order
        (``maw.simulate``, a server), or (``order="seats"``) the seats'."""
        names = list(state.names)
        if self.order == "shuffled":
            self.turns.shuffle(names)
        return names

    def _finish(self) -> None:
        state = self.state_
        assert state is not None
        winner = state.winner.value if state.winner else None
        for a in self.agents:
            team = state.role_of(a).team.value
            self.rewards[a] += self.scheme.end(winner, team)
            self.terminations[a] = True
            self.infos[a] = {"winner": winner, "team": team, "role": state.role_of(a).name}
        self._accumulate_rewards()
        self.agent_selection = self.agents[0] if self.agents else ""

    def _prompt(self, agent: str) -> None:
        """(text=True) The agent's prompt and its choices' labels, into its info."""
        state = self.state_
        assert state is not None
        v = view(state, agent)
        legal = legal_actions(state, agent)
        writer = self.writers[agent]
        if not writer.started:
            writer._start(v)
        text, _schema, _ = writer.turn_prompt(v, self.unread[agent], legal)
        self.unread[agent] = []
        _, chosen = self.layout.mask(legal)
        labels = {0: "listen"} | {k: _label(a) for k, a in sorted(chosen.items())}
        self.infos[agent] = {"prompt": [*writer.llm.context, {"role": "user", "content": text}],
                             "choices": labels}

    def answer(self, agent: str, text: str) -> int:
        """(text=True) The index of the legal action a model's JSON answer names, as an
        LLM player's answer is read (``maw.llm.decider.parse``); a chat is the claim it
        makes (its first statement in the claims grammar). ``ValueError`` says why an
        answer names nothing legal."""
        state = self.state_
        assert state is not None
        legal = legal_actions(state, agent)
        action = parse(text, agent, legal, max_chat(view(state, agent)))
        index = self.index_of(agent, action, legal)
        if index is None:
            assert isinstance(action, Chat)
            raise ValueError(f"{action.text!r} makes no claim the action space has "
                             "(I am the ROLE. / NAME is a werewolf. / NAME is human. / "
                             "I suspect NAME.)")
        return index

    def index_of(self, agent: str, action: Action | None,
                 legal: tuple[Action, ...] | None = None) -> int | None:
        """The index of ``agent``'s legal ``action`` now (0: nothing; a chat: the first
        claim it makes), ``None`` for a chat that makes no claim the space has."""
        state = self.state_
        assert state is not None
        if action is None:
            return 0
        if legal is None:
            legal = legal_actions(state, agent)
        _, chosen = self.layout.mask(legal)
        if isinstance(action, Chat):
            said = self.layout.claim_indices(agent, action.text, chosen)
            return said[0] if said else None
        return self.layout.index_of(action, chosen)

    def teacher(self, agent: str) -> int:
        """(teach=True) The index of what a rule player reading ``agent``'s seat would do
        now (``Adviser``: it remembers its choice as its own: play it)."""
        if not self.teach:
            raise ConfigError("teacher: the environment needs teach=True")
        return self._advice(agent)

    def _advice(self, agent: str) -> int:
        """The adviser's index for the agent to act, asked once a step (its teacher's
        and its observation's alike)."""
        if self.advised is None or self.advised[:2] != (self.steps, agent):
            state = self.state_
            assert state is not None
            index = self.advisers[agent].index(view(state, agent),
                                               legal_actions(state, agent), self.layout)
            self.advised = (self.steps, agent, index)
        return self.advised[2]

    def _line(self, agent: str) -> Chat | None:
        """(advice=True) The rule player's line, where its advice to ``agent`` is one."""
        if not self.advice:
            return None
        self._advice(agent)  # (asked once a step: its line is this step's)
        return self.advisers[agent].line

    # ------------------------------------------------------------ the API

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state_
        assert state is not None
        v = view(state, agent)
        belief = None
        if self.with_beliefs and agent in self.helpers and v.alive:
            belief = self.helpers[agent].beliefs(v)
        # (a dead Hunter shoots, a dead sheriff passes the badge: the engine says who acts)
        acting = state.phase is not Phase.OVER and agent == self.agent_selection
        advice = self._advice(agent) if self.advice and acting else None
        obs = observe(v, self.layout, self.heard[agent], belief, self.with_beliefs, advice,
                      self.advice)
        if not acting:
            mask = np.zeros(self.layout.size, dtype=np.int8)
            mask[0] = 1
        else:
            line = self._line(agent)
            mask, chosen = self.layout.mask(legal_actions(state, agent), line)
            self._offer = (state, agent, line, chosen)  # (what step plays, if in this state)
        return {"observation": obs, "action_mask": mask}

    def _chosen(self, state: GameState, agent: str) -> dict[int, Action]:
        """The engine action each legal index of ``agent`` stands for now: the observed
        mask's, where it was observed in this very state (an agent's turn observes, then
        steps), else worked out."""
        line = self._line(agent)
        offer = self._offer
        if offer is not None and offer[0] is state and offer[1] == agent and offer[2] is line:
            return offer[3]
        return self.layout.mask(legal_actions(state, agent), line)[1]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        state = self.state_
        assert state is not None
        self._cumulative_rewards[agent] = 0.0
        for a in self.rewards:
            self.rewards[a] = 0.0
        self.acted.add(agent)
        chosen = self._chosen(state, agent)
        self.steps += 1
        index = int(action) if action is not None else 0
        if index and index not in chosen:  # an action the mask forbids
            named = self.layout.action(index, agent)
            target = getattr(named, "target", None)
            dead = target is not None and target in state.names and \
                target not in state.living()
            self.rewards[agent] += self.scheme.dead_target if dead else self.scheme.invalid
        elif index:
            picked = chosen[index]
            if isinstance(picked, Attack) and state.role_of(picked.target).team is \
                    Team.WEREWOLVES:
                self.rewards[agent] += self.scheme.cannibalism
            self._play(picked, type(picked) is not Chat)
        else:
            self.rewards[agent] += self.scheme.wait
            move = listen_as(state, agent)
            if move is not None:
                self._play(move)
        assert self.state_ is not None
        if self.state_.phase is Phase.OVER:
            self._finish()
            return
        self._advance()  # (its end of the game, if it comes, gives the last rewards)
        if self.state_.phase is not Phase.OVER:
            self._accumulate_rewards()

    @property
    def lines(self) -> list[str]:
        """The game's transcript so far, a line per event that has one (every event's, as
        the referee sees them)."""
        return [line for e in self.said if (line := event_text(e))]

    def render(self) -> str | None:
        text = "\n".join(self.lines)
        if self.render_mode == "ansi":
            return text
        return None

    def close(self) -> None:
        self.state_ = None


def _writer(name: str) -> LLMDecider:
    """An LLM player's prompt writer with no model behind it (it is never asked)."""
    return LLMDecider(name, random.Random(0), LLM(backend=None))  # type: ignore[arg-type]


def _label(action: Action) -> str:
    """An action as a model would name it: "vote Bob", "chat: I am the Seer."."""
    if isinstance(action, Chat):
        return f"chat: {action.text}"
    target = getattr(action, "target", None)
    return f"{action_name(action)} {target}" if target else action_name(action)


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's own are (an action out of range fails; the
    order of calls is checked)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


Factory = Callable[..., AECEnv]
