"""Neural learned players (``learned:FILE.npz``, ``maw.policies.neural``): the network
plays from exactly the observation the environment gives its agents, without PyTorch;
``maw train --algo ppo`` (sb3-contrib's MaskablePPO, the ``.[rl]`` extra) trains one and
exports it so that numpy chooses what the trained model chooses."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from maw.engine import legal_actions, ruleset, view
from maw.env import raw_env
from maw.env.aec import adviser_stream
from maw.errors import ConfigError, MawError
from maw.policies import make_decider
from maw.policies.neural import Network, NeuralDecider, network_at
from maw.simulate import play_game


def random_network(inputs: int, outputs: int, seed: int = 0, **meta) -> Network:
    rng = np.random.default_rng(seed)
    shapes = [(16, inputs), (outputs, 16)]
    return Network(tuple(rng.normal(0, 0.5, s).astype(np.float32) for s in shapes),
                   tuple(rng.normal(0, 0.1, s[0]).astype(np.float32) for s in shapes),
                   {"beliefs": True, "players": 5, "ruleset": "aiwolf-5", **meta})


@pytest.mark.parametrize("name, players, advice", [("aiwolf-5", 5, False), ("maw", 6, False),
                                                   ("werewolf-12", 12, True)])
def test_the_player_reads_exactly_what_the_environment_gives_its_agents(name, players,
                                                                        advice):
    e = raw_env(ruleset_name=name, players=players, learn="all", beliefs=True, advice=advice)
    inputs = e.observation_space(e.possible_agents[0])["observation"].shape[0]
    outputs = e.action_space(e.possible_agents[0]).n
    net = random_network(inputs, outputs, advice=advice, joined=e.layout.joined)
    told = {}  # (advised) how often the advice was each kind of action
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(3):
        deciders: dict[str, NeuralDecider] = {}
        hear = e._hear

        def heard(events, hear=hear, deciders=deciders):
            hear(events)
            for ev in events:
                for d in deciders.values():
                    if ev.audience is None or d.player in ev.audience:
                        d.observe(ev)
        e._hear = heard
        deciders.update({n: NeuralDecider(n, adviser_stream(seed, n), net)
                         for n in e.possible_agents})
        e.reset(seed=seed)
        # (the game's opening, before the deciders existed: told again, as a seat is told)
        from maw.engine import opening_events

        for ev in opening_events(e.state_):
            for d in deciders.values():
                if ev.audience is None or d.player in ev.audience:
                    d.observe(ev)
        for agent in e.agent_iter():
            obs, _, done, cut, _ = e.last()
            if done or cut:
                e.step(None)
                continue
            legal = legal_actions(e.state_, agent)
            mine = deciders[agent].observation(view(e.state_, agent), legal)
            assert np.array_equal(mine, obs["observation"]), (seed, agent)
            checked += 1
            if advice:  # the rule player's choice: one of its legal actions, or none
                advised = np.flatnonzero(mine[-outputs:])
                assert len(advised) == 1 and obs["action_mask"][advised[0]] == 1
                kind = "line" if advised[0] == e.layout.line else \
                    type(e.layout.action(int(advised[0]), agent)).__name__
                told[kind] = told.get(kind, 0) + 1
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        e._hear = hear
    assert checked > 20
    if advice:  # (the advice varies: votes, the rule player's lines, nights' choices, none)
        assert {"NoneType", "Vote", "line", "Divine"} <= set(told), told


def test_a_network_file_round_trips_and_a_bad_one_is_refused(tmp_path):
    net = random_network(10, 4, seed=3, team="village")
    path = tmp_path / "p.npz"
    net.save(path)
    back = Network.load(path)
    assert back.meta == net.meta
    x = np.linspace(-1, 1, 10, dtype=np.float32)
    assert np.allclose(back.logits(x), net.logits(x))
    (tmp_path / "bad.npz").write_text("not a network")
    with pytest.raises(ConfigError, match="not a learned player's network"):
        Network.load(tmp_path / "bad.npz")


def test_a_network_for_another_size_says_so_and_a_good_one_plays_the_same_game_again(
        tmp_path):
    e = raw_env(ruleset_name="aiwolf-5", beliefs=True)
    inputs = e.observation_space("Ann")["observation"].shape[0]
    path = tmp_path / "v.npz"
    random_network(inputs, e.action_space("Ann").n, seed=5).save(path)
    names = ["Ann", "Bob", "Cid", "Dee", "Eve"]
    first = play_game(ruleset("aiwolf-5"), names, "rule", 7,
                      teams={"village": f"learned:{path}"})
    again = play_game(ruleset("aiwolf-5"), names, "rule", 7,
                      teams={"village": f"learned:{network_at(path) and path}"})
    assert (first.winner, first.days) == (again.winner, again.days)
    with pytest.raises(ConfigError, match="trained for 5 players of aiwolf-5"):
        play_game(ruleset("aiwolf-9"), [*names, "Fay", "Gil", "Hal", "Ivy"], "rule", 7,
                  teams={"village": f"learned:{path}"})
    assert isinstance(make_decider(f"learned:{path}", "Ann", random.Random(0)),
                      NeuralDecider)


def test_ppo_trains_a_team_and_numpy_chooses_what_the_trained_model_chooses(tmp_path,
                                                                            monkeypatch):
    pytest.importorskip("sb3_contrib", reason="the rl extra: pip install -e '.[rl]'")
    import tempfile

    from sb3_contrib import MaskablePPO

    from maw.env.ppo import TeamEnv, train

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    out = tmp_path / "w.npz"
    meta = train("aiwolf-5", "werewolves", 1024, out, checkpoint=512, seed=2,
                 opponents=("rule", "random"), seats=1, command="maw first")
    assert list(scratch.glob("SB3-*")) == []  # (no SB3-date-time folder left behind)
    assert meta["steps"] == 1024 and meta["games"] > 0 and meta["team"] == "werewolves"
    assert meta["seats"] == 1
    assert out.exists() and out.with_suffix(".zip").exists()
    model = MaskablePPO.load(out.with_suffix(".zip"), device="cpu")
    net = Network.load(out)
    env = TeamEnv("aiwolf-5", 5, "werewolves", ("rule",), seed=9)
    obs, _ = env.reset()
    for _ in range(60):
        mask = env.action_masks()
        theirs, _ = model.predict(obs, action_masks=mask, deterministic=True)
        logits = np.where(mask, net.logits(obs), -np.inf)
        assert int(np.argmax(logits)) == int(theirs)
        obs, _, done, _, _ = env.step(int(theirs))
        if done:
            obs, _ = env.reset()
    # (steps come in whole rollouts of 1024: 512 more is one more rollout)
    again = train("aiwolf-5", "werewolves", 512, out, checkpoint=0, seed=2, resume=True,
                  command="maw more")
    assert again["steps"] == 2048 and again["games"] > meta["games"]
    assert again["command"] == "maw first && maw more"  # (the resume's alone, before)


def test_self_play_trains_the_sides_in_turns_each_against_the_others_earlier_checkpoints(
        tmp_path):
    pytest.importorskip("sb3_contrib", reason="the rl extra: pip install -e '.[rl]'")
    from maw.env.ppo import self_play

    league = tmp_path / "league"
    metas = self_play("aiwolf-5", 256, league, 2, players=5, seats=1, checkpoint=0,
                      rollout=256, imitation=300)
    assert [(m["round"], m["team"]) for m in metas] == [
        (1, "village"), (1, "werewolves"), (2, "village"), (2, "werewolves")]
    def ckpt(side, k):
        return f"learned:{league / f'{side}-{k}.npz'}"
    assert [m["opponents"] for m in metas] == [
        ["rule"], ["rule", ckpt("village", 1)],
        ["rule", ckpt("werewolves", 1)], ["rule", ckpt("village", 1), ckpt("village", 2)]]
    assert metas[2]["steps"] == metas[3]["steps"] == 512  # (round 2 trained on round 1)
    # (round 1 started each side from the rule player; round 2 from round 1)
    assert [m.get("imitation", {}).get("steps") for m in metas] == [300, 300, 300, 300]
    assert [Network.load(league / f"{s}-2.npz").meta["imitation"]["steps"]
            for s in ("village", "werewolves")] == [300, 300]
    one, two = Network.load(league / "village-1.npz"), Network.load(league / "village-2.npz")
    assert any(not np.array_equal(a, b) for a, b in zip(one.weights, two.weights, strict=True))
    assert Network.load(league / "werewolves.npz").meta == \
        Network.load(league / "werewolves-2.npz").meta
    with pytest.raises(MawError, match="already holds networks"):
        self_play("aiwolf-5", 1024, league, 1)
    refused = subprocess.run([sys.executable, "-m", "maw", "train", "--team", "both", "--out",
                              str(tmp_path / "t.json")], capture_output=True, text=True)
    assert refused.returncode == 2 and "--team both is self-play" in refused.stderr


def test_the_teacher_names_the_rule_players_choice_and_imitation_starts_from_it(tmp_path,
                                                                                capsys):
    import copy

    from maw.policies import claims

    e = raw_env("aiwolf-5", 5, learn="village", beliefs=True, teach=True)
    checked = later = 0
    for seed in range(6):
        e.reset(seed=seed)
        while e.agents and not all(e.terminations.values()):
            agent = e.agent_selection
            state = e.state_
            legal = legal_actions(state, agent)
            stamp = (state.day, state.phase, state.vote_round)
            at, queued = e.advisers[agent].queued
            pending = list(queued) if at == stamp else []
            mine = e.advisers[agent].rule
            shared = getattr(mine, "_unweighed", None)  # (a view: frozen, shared)
            theirs = copy.deepcopy(mine, {id(shared): shared}).decide(view(state, agent),
                                                                       legal)
            index = e.teacher(agent)
            assert e.observe(agent)["action_mask"][index] == 1
            named = e.layout.action(index, agent)
            if pending:  # the rest of a line of several claims, one a turn
                assert index == pending[0]
                later += 1
            elif theirs is None or type(theirs).__name__ != "Chat":
                assert named == theirs
                checked += 1
            else:  # a line: its first claim now, the others queued in order
                said = claims.parse(agent, theirs.text, state.names)
                if said:
                    assert claims.parse(agent, named.text, state.names) == said[:1]
                    assert len(e.advisers[agent].queued[1]) == len(said) - 1
            e.step(index)
    assert checked > 20 and later > 0
    with pytest.raises(ConfigError, match="teach=True"):
        raw_env("aiwolf-5", 5, learn="village", beliefs=True).teacher("P01")
    pytest.importorskip("sb3_contrib", reason="the rl extra: pip install -e '.[rl]'")
    from maw.env.ppo import train

    told: list[tuple[str, int, int]] = []
    meta = train("aiwolf-5", "werewolves", 256, tmp_path / "w.npz", checkpoint=0,
                 seats=1, imitation=2000, rollout=256,
                 imitating=lambda *a: told.append(a))
    assert meta["imitation"]["steps"] == 2000 and meta["imitation"]["games"] > 100
    # its progress: the rule player's steps (every 256 and the last), then each epoch
    assert told == [("play", n, 2000) for n in (*range(256, 2000, 256), 2000)] + [
        ("fit", e, 30) for e in range(1, 31)]
    from maw.cli.train import imitation_lines

    lines = imitation_lines(0.0)
    for step in told * 2:  # (as self-play does, one side after the other)
        lines(*step)
    shown = [x.split("]")[0] for x in capsys.readouterr().out.splitlines()]
    assert len(shown) == 2 * (8 + 5) and shown[7] == shown[20] == \
        "[imitating: the rule player plays (steps): 2000/2000"
    assert shown[12] == shown[-1] == "[imitating: fitting its choices (epochs): 30/30"
    assert meta["imitation"]["agreement"] > 0.5  # (most turns offer several actions)
    assert meta["games"] < meta["imitation"]["games"]  # (imitation's games apart)
    with pytest.raises(ConfigError, match="not with --resume"):
        train("aiwolf-5", "werewolves", 1024, tmp_path / "w.npz", resume=True, imitation=10)
    refused = subprocess.run([sys.executable, "-m", "maw", "train", "--team", "village",
                              "--imitate", "100", "--out", str(tmp_path / "t.json")],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "for --algo ppo" in refused.stderr
    # the command's own lines (no terminal): imitation's stages, then PPO's steps, counted
    # in whole rollouts of 1024 (one step asked is one rollout)
    out = tmp_path / "cli.npz"
    ran = subprocess.run([sys.executable, "-m", "maw", "train", "--algo", "ppo", "--ruleset",
                          "aiwolf-5", "--team", "village", "--seats", "1", "--imitate", "300",
                          "--steps", "1", "--out", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    said = [x.split("]")[0] for x in ran.stdout.splitlines() if x.startswith("[")]
    assert said[0] == "[imitating: the rule player plays (steps): 256/300"
    assert "[imitating: fitting its choices (epochs): 30/30" in said
    assert said[-1] == "[1024/1024" and Network.load(out).meta["steps"] == 1024


def test_an_advised_network_starts_as_the_rule_player_and_plays_from_its_advice(tmp_path):
    """``--advice``: the observation holds the rule player's choice, imitation copies it,
    and the numpy player then takes it where the environment's agent would."""
    refused = subprocess.run([sys.executable, "-m", "maw", "train", "--team", "village",
                              "--advice", "--out", str(tmp_path / "t.json")],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "for --algo ppo" in refused.stderr
    pytest.importorskip("sb3_contrib", reason="the rl extra: pip install -e '.[rl]'")
    from maw.env.ppo import train

    out = tmp_path / "a.npz"
    meta = train("aiwolf-5", "village", 256, out, checkpoint=0, seats=1, imitation=3000,
                 rollout=256, advice=True)
    net = Network.load(out)
    assert meta["advice"] is True and net.meta["advice"] is True
    assert meta["imitation"]["agreement"] > 0.95  # (one input to copy)
    assert meta["imitation"]["spread"] == 0.2
    e = raw_env("aiwolf-5", 5, learn="village", beliefs=True, advice=True)
    same = asked = 0
    likely: list[float] = []  # how likely the advice is, where there is a choice
    for seed in range(100, 110):  # games it did not learn from
        e.reset(seed=seed)
        while e.agents and not all(e.terminations.values()):
            agent = e.agent_selection
            obs = e.observe(agent)
            advice = int(np.flatnonzero(obs["observation"][-e.layout.size:])[0])
            logits = np.where(obs["action_mask"].astype(bool),
                              net.logits(obs["observation"]), -np.inf)
            same += int(np.argmax(logits)) == advice
            asked += 1
            if obs["action_mask"].sum() > 1:
                p = np.exp(logits - logits.max())
                likely.append(float(p[advice] / p.sum()))
            e.step(advice)
    assert asked > 100 and same / asked > 0.9
    # the rest of its choice spread over the others (so that PPO tries them), not all of it
    assert 0.5 < float(np.median(likely)) < 0.97
    with pytest.raises(MawError, match="with the rule player's advice"):
        train("aiwolf-5", "village", 256, out, seats=1, resume=True)


def test_a_network_that_follows_its_advice_plays_the_rule_players_games_move_for_move():
    """The advice is what the rule player in that seat would do, drawing from the seat's
    own stream: a network that takes it plays the very games the rule player plays.
    (The adviser's rule player once drew from a stream seeded alike in every game: it
    never ran for sheriff on a draw, and the werewolves it advised lost 2.9 points.)"""
    e = raw_env(ruleset_name="werewolf-12", players=12, learn="werewolves", beliefs=False,
                advice=True)
    inputs = e.observation_space(e.possible_agents[0])["observation"].shape[0]
    size = e.layout.size
    head = np.zeros((size, inputs), np.float32)
    head[:, inputs - size:] = np.eye(size, dtype=np.float32)  # (its logits: the advice)
    net = Network((head,), (np.zeros(size, np.float32),),
                  {"beliefs": False, "advice": True, "joined": e.layout.joined,
                   "players": 12, "ruleset": "werewolf-12"})
    rules = ruleset("werewolf-12")
    names = [f"P{i + 1:02d}" for i in range(12)]
    for seed in range(3):
        games = []
        for side in ("rule", lambda n, r: NeuralDecider(n, r, net)):
            events: list = []
            play_game(rules, names, "rule", seed=seed, events=events,
                      teams={"werewolves": side, "village": "rule"})
            games.append([repr(x) for x in events])
        assert games[0] == games[1], seed


def test_the_anchor_pulls_a_policy_back_to_its_demonstrations(tmp_path):
    """``--anchor``: between PPO's updates, steps on the imitation's loss bring a policy
    that strayed back to the rule player's choices."""
    refused = subprocess.run([sys.executable, "-m", "maw", "train", "--algo", "ppo",
                              "--team", "village", "--anchor", "-1", "--out",
                              str(tmp_path / "t.npz")], capture_output=True, text=True)
    assert refused.returncode == 2 and "--anchor W: a weight" in refused.stderr
    pytest.importorskip("sb3_contrib", reason="the rl extra: pip install -e '.[rl]'")
    import torch
    from sb3_contrib import MaskablePPO

    from maw.env.ppo import TeamEnv, train

    with pytest.raises(ConfigError, match="give --imitate too"):
        train("aiwolf-5", "village", 256, tmp_path / "n.npz", anchor=1.0)
    out = tmp_path / "a.npz"
    meta = train("aiwolf-5", "village", 512, out, checkpoint=0, seats=1, imitation=1500,
                 rollout=256, advice=True, anchor=1.0)
    assert meta["anchor"] == 1.0
    env = TeamEnv("aiwolf-5", 5, "village", seed=7, seats=1, advice=True)
    model = MaskablePPO.load(out.with_suffix(".zip"), env=env, device="cpu")
    from maw.env.ppo import Demonstrations

    demos = Demonstrations.play(env, 600)

    def agreement() -> float:
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(demos.seen),
                                                 action_masks=demos.masks)
            picked = dist.distribution.probs.argmax(dim=1).numpy()
        return float((picked == demos.acts).mean())
    assert agreement() > 0.9  # (PPO's two updates did not take it from its teacher)
    with torch.no_grad():  # a policy that strayed: its action head scrambled
        head = model.policy.action_net
        head.weight.copy_(torch.randn(head.weight.shape, generator=torch.Generator()
                                      .manual_seed(0)))
    strayed = agreement()
    assert strayed < 0.6
    demos.anchor(model.policy, 40, 1.0, torch.Generator().manual_seed(0))
    assert agreement() > strayed + 0.25


def test_a_day_spoken_in_turns_offers_a_coming_out_joined_with_its_result(tmp_path):
    """werewolf-12's speaker says one line a day: the space joins a coming-out and one
    result in one chat, and the teacher says the rule Seer's line as that chat."""
    from maw.policies import claims

    assert not raw_env("aiwolf-5", 5).layout.joined  # (the shipped networks' spaces)
    e = raw_env("werewolf-12", 12, learn="village", beliefs=True, teach=True)
    lay, names = e.layout, tuple(e.possible_agents)
    assert lay.joined and lay.reporting == ("Medium", "Seer")
    first = lay.size - len(lay.reporting) * 2 * 12
    e.reset(seed=0)
    legal = legal_actions(e.state_, e.agent_selection)
    _, chosen = lay.mask(legal)
    for k in range(first, lay.size):  # each joined chat: a coming-out and one result
        said = claims.parse(names[0], lay.action(k, names[0]).text, names)
        assert [c.kind for c in said] == ["role", "species"]
        assert lay.pair(said) == tuple(said)
        if k in chosen:  # (a chat is legal now) and the line maps back to it
            assert lay.claim_indices(names[0], chosen[k].text, chosen) == [k]
    joined = 0
    for seed in range(3):
        e.reset(seed=seed)
        while e.agents and not all(e.terminations.values()):
            agent = e.agent_selection
            state = e.state_
            at, queued = e.advisers[agent].queued
            pending = at == (state.day, state.phase, state.vote_round) and queued
            index = e.teacher(agent)
            if index >= first and not pending:
                said = claims.parse(agent, lay.action(index, agent).text, state.names)
                role = state.role_of(agent).name
                assert said[0].value == role == "Seer"  # (its own role, truly)
                found = {(t, s) for _d, k, t, s in view(state, agent).results}
                assert (said[1].target, said[1].value) in found
                joined += 1
            e.step(index)
    assert joined > 0
    # a network trained before the joined claims still plays its own space (its meta
    # has no "joined"); one whose meta and outputs disagree says so
    inputs = e.observation_space(names[0])["observation"].shape[0]
    old = random_network(inputs, first, ruleset="werewolf-12", players=12, team="village")
    e.reset(seed=0)
    agent = e.agent_selection
    legal = legal_actions(e.state_, agent)
    got = NeuralDecider(agent, random.Random(0), old).decide(view(e.state_, agent), legal)
    assert got is None or got in legal
    wrong = random_network(inputs, first, ruleset="werewolf-12", players=12, joined=True)
    with pytest.raises(ConfigError, match="chooses among .* offers"):
        NeuralDecider(agent, random.Random(0), wrong).decide(view(e.state_, agent), legal)
    pytest.importorskip("sb3_contrib", reason="the rl extra: pip install -e '.[rl]'")
    from maw.env.ppo import train

    out = tmp_path / "v.npz"
    old.save(out)
    out.with_suffix(".zip").write_bytes(b"")
    with pytest.raises(MawError, match="without the joined claims"):
        train("werewolf-12", "village", 256, out, players=12, resume=True)


def test_the_shipped_werewolf12_village_network_comes_out_with_a_result_in_one_line():
    from pathlib import Path

    from maw.engine.events import Chatted
    from maw.policies import claims

    path = Path(__file__).parents[2] / "agents" / "policies" / "werewolf12-village.npz"
    assert Network.load(path).meta["joined"] is True
    names = [f"P{i:02d}" for i in range(1, 13)]
    joined = 0
    for seed in range(6):
        events: list = []
        record = play_game(ruleset("werewolf-12"), names, "rule", seed,
                           teams={"village": f"learned:{path}"}, events=events)
        seer = next(n for n, r in record.roles.items() if r == "Seer")
        for e in events:
            if type(e) is Chatted and e.speaker == seer:
                kinds = [c.kind for c in claims.parse(seer, e.text, tuple(names))]
                joined += kinds == ["role", "species"]
    assert joined > 0
