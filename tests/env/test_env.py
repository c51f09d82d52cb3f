"""maw.env: MAW's engine as a PettingZoo AEC environment, checked by PettingZoo's own
``api_test`` for every ruleset, and for what the API test cannot see: the seats the
learner does not play, reproducible episodes, masks that hold exactly the legal actions,
observations that hold nothing hidden."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from maw.engine import legal_actions, ruleset
from maw.engine.rulesets import RULESET_NAMES
from maw.env import Rewards, env, raw_env

SIZES = {"maw": 6, "aiwolf-5": 5, "aiwolf-9": 9, "aiwolf-13": 13, "aiwolf-15": 15,
         "werewolf-12": 12, "rlerewolf": 5, **{f"werewolf-{n}": n for n in range(6, 17) if n != 12}}


def test_every_ruleset_has_a_size_here():
    assert set(SIZES) == set(RULESET_NAMES)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_pettingzoos_api_test_passes(name):
    api_test(env(ruleset_name=name, players=SIZES[name]), num_cycles=200)


def play(e, seed: int, rng: random.Random) -> list[str]:
    """An episode of masked random actions; the transcript."""
    e.reset(seed=seed)
    for _agent in e.agent_iter():
        obs, _reward, done, cut, _info = e.last()
        if done or cut:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return e.unwrapped.lines


@pytest.mark.parametrize("name", ["aiwolf-5", "werewolf-12"])
def test_a_step_plays_the_same_whatever_was_observed_before_it(name):
    """A step plays what its index stands for in the state it is taken in: an agent's
    observed mask is reused only for that agent in that state. The same indices (masked
    ones, and a tenth out of the mask), replayed observing everyone before each step, the
    mover before every other step, or no one, play the same games with the same rewards."""
    rng = random.Random(3)

    def episode(seed: int, observe: str, indices: list[int | None]) -> tuple:
        e = env(ruleset_name=name, players=SIZES[name])
        e.reset(seed=seed)
        raw, rewards = e.unwrapped, []
        for k, agent in enumerate(e.agent_iter()):
            if observe == "mover":
                obs, _reward, done, cut, _ = e.last()
                legal = np.flatnonzero(obs["action_mask"])
                indices.append(None if done or cut else int(rng.choice(legal))
                               if rng.random() < 0.9 else rng.randrange(len(legal) + 9))
            elif observe == "everyone":
                for other in raw.possible_agents:
                    raw.observe(other)
            elif observe == "sometimes" and k % 2:  # (the next step's state is another)
                raw.observe(agent)
            e.step(indices[k])
            rewards.append((agent, dict(raw.rewards)))
        return list(raw.lines), rewards

    for seed in range(4):
        indices: list[int | None] = []
        mover = episode(seed, "mover", indices)
        for observe in ("everyone", "sometimes", "none"):
            assert episode(seed, observe, indices) == mover, observe


@pytest.mark.parametrize("learn", ["village", "werewolves"])
def test_one_side_learns_against_rule_players(learn):
    e = env(ruleset_name="aiwolf-5", learn=learn, opponents="rule")
    rng = random.Random(1)
    for seed in range(20):
        e.reset(seed=seed)
        raw = e.unwrapped
        teams = {n: raw.state_.role_of(n).team.value for n in raw.possible_agents}
        assert raw.agents and all(teams[a] == learn for a in raw.agents)
        assert set(raw.others) == {n for n in teams if teams[n] != learn}
        ends = {}
        for agent in e.agent_iter():
            obs, reward, done, cut, info = e.last()
            if done:
                ends[agent] = (reward, info)
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        winner = next(iter(ends.values()))[1]["winner"]
        assert winner in ("village", "werewolves")
        for _agent, (reward, info) in ends.items():  # the last reward says the outcome
            assert info["team"] == learn
            assert (reward >= 20 - 10) if winner == learn else (reward <= -20 + 10)


def test_the_same_seed_and_actions_replay_the_same_episode():
    runs = [play(env(ruleset_name="maw", players=6), 7, random.Random(3)) for _ in range(2)]
    assert runs[0] == runs[1] and any("executed" in line for line in runs[0])
    other = play(env(ruleset_name="maw", players=6), 8, random.Random(3))
    assert other != runs[0]


def test_the_mask_is_exactly_the_engines_legal_actions():
    e = raw_env(ruleset_name="werewolf-12", players=12)
    e.reset(seed=2)
    rng = random.Random(0)
    seen_kinds: set[str] = set()
    for agent in e.agent_iter(3000):
        obs, _r, done, _c, _i = e.last()
        if done:
            e.step(None)
            continue
        legal = legal_actions(e.state_, agent)
        mask, chosen = e.layout.mask(legal)
        assert np.array_equal(obs["action_mask"], mask)
        # every legal action but free text has its index; every index is legal
        assert {type(a) for a in chosen.values()} | {"Whisper"} >= {
            type(a) for a in legal if type(a).__name__ != "Whisper"}
        seen_kinds |= {type(a).__name__ for a in chosen.values()}
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert {"Attack", "Divine", "Vote", "Chat"} <= seen_kinds


def test_an_observation_holds_nothing_hidden():
    e = raw_env(ruleset_name="aiwolf-5")
    e.reset(seed=4)
    villager = next(a for a in e.agents if e.state_.role_of(a).name == "Villager")
    wolf = next(a for a in e.agents if e.state_.role_of(a).name == "Werewolf")
    n = len(e.possible_agents)
    roles = len(e.layout.roles)

    def known_wolves(agent: str) -> np.ndarray:
        obs = e.observe(agent)["observation"]
        start = n + roles + n  # me, my role, alive
        return obs[start:start + n]

    assert not known_wolves(villager).any()  # a villager knows no wolf
    assert known_wolves(wolf)[e.possible_agents.index(wolf)] == 1.0  # a wolf knows itself
    mine = e.observe(villager)["observation"][n:n + roles]
    assert mine[e.layout.roles.index("Villager")] == 1.0 and mine.sum() == 1.0


def test_rewards_are_pluggable_and_a_forbidden_action_costs_and_does_nothing():
    e = raw_env(ruleset_name="aiwolf-5", rewards=Rewards(invalid=-99.0, wait=0.0))
    e.reset(seed=1)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    forbidden = int(np.flatnonzero(mask == 0)[0])
    before = e.state_
    e.step(forbidden)
    assert e._cumulative_rewards[agent] == -99.0 and e.state_.day == before.day


def test_a_ruleset_and_size_it_cannot_deal_fail_at_once():
    with pytest.raises(Exception, match="players"):
        env(ruleset_name="aiwolf-5", players=6)
    with pytest.raises(Exception, match="learn"):
        env(ruleset_name="aiwolf-5", learn="nobody")
    with pytest.raises(Exception, match="unknown decider"):
        env(ruleset_name="aiwolf-5", opponents="genius")
    assert ruleset("maw").name == "maw"


def _answer(label: str) -> str:
    """A model's JSON answer naming the choice ``label``."""
    import json

    kind, _, rest = label.partition(" ")
    if kind == "chat:":
        return json.dumps({"action": "chat", "text": rest})
    return json.dumps({"action": kind, "target": rest} if rest else {"action": kind})


@pytest.mark.parametrize("name", ["aiwolf-5", "werewolf-12"])
def test_the_text_variant_prompts_from_the_agents_view_and_reads_answers_into_its_mask(name):
    """text=True: each turn the agent's info holds the LLM player's messages and a label
    for exactly the indices its mask allows; a model's answer naming a label comes back as
    that index; the prompt tells a villager no one else's role; a bad answer says why."""
    e = env(ruleset_name=name, players=SIZES[name], learn="village", text=True)
    api_test(env(ruleset_name=name, players=SIZES[name], text=True), num_cycles=50)
    rng = random.Random(5)
    e.reset(seed=5)
    roles = {n: r.name for n, r in zip(e.unwrapped.possible_agents,
                                       e.unwrapped.state_.roles, strict=True)}
    turns = 0
    for agent in e.agent_iter():
        obs, _reward, done, cut, info = e.last()
        if done or cut:
            e.step(None)
            continue
        turns += 1
        assert sorted(info["choices"]) == np.flatnonzero(obs["action_mask"]).tolist()
        messages = info["prompt"]
        assert [m["role"] for m in messages] == ["system", "system", "user"]
        assert f"as the player {agent}." in messages[0]["content"]
        assert f"Your role: {roles[agent]}" in messages[1]["content"]
        prompt = "\n".join(m["content"] for m in messages)
        for other, role in roles.items():
            if other != agent and role not in ("Villager",):
                assert f"{other} is a {role}" not in prompt
        index = rng.choice(sorted(info["choices"]))
        assert e.unwrapped.answer(agent, _answer(info["choices"][index])) == index
        with pytest.raises(ValueError, match="not JSON"):
            e.unwrapped.answer(agent, "I vote for Bob")
        e.step(index)
    assert turns > 5


ZERO = dict(top_vote=0.0, rank_penalty=0.0, wait=0.0, win=0.0, loss=0.0, invalid=0.0,
            day_passed=0.0, death=0.0, cannibalism=0.0, dead_target=0.0)


def _play_out(e, seed: int, pick) -> tuple[dict[str, float], int]:
    """One episode, each agent choosing ``pick(agent, mask)``: each one's total reward,
    and the day the episode began on."""
    e.reset(seed=seed)
    first = e.state_.day
    total = dict.fromkeys(e.agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, done, cut, _ = e.last()
        total[agent] += reward
        e.step(None if done or cut else pick(agent, obs["action_mask"]))
    return total, first


@pytest.mark.parametrize("name, players", [("aiwolf-5", 5), ("werewolf-12", 12)])
def test_rlerewolfs_day_passed_and_death_terms_follow_the_game(name, players):
    """Day Passed (-1 each day a seat sees begin alive) and Death (-5 when it dies), alone:
    each seat's total is what the game's own record of days and deaths says."""
    rng = np.random.default_rng(3)
    for seed in range(4):
        e = raw_env(ruleset_name=name, players=players,
                    rewards=Rewards(**{**ZERO, "day_passed": -1.0, "death": -5.0}))
        total, first = _play_out(e, seed,
                                 lambda a, mask: int(rng.choice(np.flatnonzero(mask))))
        state = e.state_
        died = {state.names[d.seat]: d.day for d in state.deaths}
        for agent, got in total.items():
            last = died.get(agent, state.day)
            assert got == -(last - first) - (5.0 if agent in died else 0.0), \
                (seed, agent, got, last, died)


def test_cannibalism_and_a_dead_target_cost_what_rlerewolfs_table_says():
    """Werewolf Cannibalism (-7.5: a wolf's attack vote on a wolf) and Dead Player
    Targeted (-35, apart from any other forbidden action's)."""
    e = raw_env(ruleset_name="werewolf-12", players=12,
                rewards=Rewards(**{**ZERO, "cannibalism": -7.5, "dead_target": -35.0,
                                   "invalid": -1.0}))
    seen = {"cannibal": False, "dead": False}
    for seed in range(6):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _, done, cut, _ = e.last()
            if done or cut:
                e.step(None)
                continue
            state, mask = e.state_, obs["action_mask"]
            wolves = [n for n in state.names if state.role_of(n).team.value == "werewolves"]
            dead = [n for n in state.names if n not in state.living()]
            choice = None
            for k in np.flatnonzero(mask):
                a = e.layout.action(int(k), agent)
                if type(a).__name__ == "Attack" and a.target in wolves:
                    choice, kind = int(k), "cannibal"
            if choice is None and dead:
                for k in np.flatnonzero(mask == 0):
                    a = e.layout.action(int(k), agent)
                    if getattr(a, "target", None) in dead:
                        choice, kind = int(k), "dead"
                        break
            if choice is None:
                e.step(int(np.flatnonzero(mask)[0]))
                continue
            e.step(choice)
            assert e._cumulative_rewards[agent] == {"cannibal": -7.5, "dead": -35.0}[kind]
            seen[kind] = True
    assert seen == {"cannibal": True, "dead": True}


def test_one_seat_of_a_side_learns_beside_rule_teammates():
    e = raw_env(ruleset_name="maw", players=6, learn="village", seats=1, teammates="rule")
    drawn = set()
    for seed in range(8):
        e.reset(seed=seed)
        assert len(e.agents) == 1 and e.state_.role_of(e.agents[0]).team.value == "village"
        villagers = [n for n in e.possible_agents
                     if e.state_.role_of(n).team.value == "village"]
        assert set(e.others) == set(e.possible_agents) - set(e.agents)
        assert len(villagers) == 4
        drawn.add(villagers.index(e.agents[0]))
    assert len(drawn) > 1  # (a seat drawn each game)
    with pytest.raises(Exception, match="seats=0"):
        raw_env(ruleset_name="maw", players=6, learn="village", seats=0)


def test_a_reward_term_is_set_by_name_and_an_unknown_one_is_refused():
    r = Rewards.parse(["top_vote=0", " death = -2.5"])
    assert (r.top_vote, r.death, r.win) == (0.0, -2.5, 20.0)
    with pytest.raises(Exception, match="a term of cannibalism, day_passed"):
        Rewards.parse(["victory=20"])
    with pytest.raises(Exception, match="is not a number"):
        Rewards.parse(["win=lots"])
