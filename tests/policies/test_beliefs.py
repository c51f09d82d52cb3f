"""What a rule player believes about who the wolves are (maw.policies.beliefs), and what
that belief is worth in play against fixed opponents."""

from __future__ import annotations

import pytest

from maw.engine import ruleset
from maw.policies.beliefs import Evidence, wolf_probabilities
from maw.simulate import simulate

PLAYERS = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"]


def believe(evidence=None, human=(), wolf=(), wolves=2, me="Ann", players=PLAYERS):
    return wolf_probabilities(me, players, wolves, set(human), set(wolf),
                              evidence or Evidence())


def test_without_evidence_every_other_player_is_equally_suspect():
    p = believe()
    assert set(p) == set(PLAYERS) - {"Ann"}
    assert all(v == pytest.approx(2 / 5) for v in p.values())
    assert sum(p.values()) == pytest.approx(2)


def test_what_the_player_knows_for_certain_is_certain():
    p = believe(human={"Bob", "Cid"}, wolf={"Dan"})
    assert p["Bob"] == p["Cid"] == 0 and p["Dan"] == 1
    assert p["Eve"] == pytest.approx(0.5) and p["Fay"] == pytest.approx(0.5)


def test_a_vote_weighed_by_hand():
    # Bob and Cid vote for Eve; Ann (me) knows nothing else. The six packs of two and
    # their weights: {Bob, Cid} together 1.6; {Bob, Eve} and {Cid, Eve} a wolf on its
    # packmate 0.1 and a villager on a wolf 1.3; {Dan, Eve} two villagers on a wolf
    # 1.3 * 1.3; {Bob, Dan} and {Cid, Dan} 1.
    w = {"BC": 1.6, "BE": 0.13, "CE": 0.13, "DE": 1.69, "BD": 1.0, "CD": 1.0}
    total = sum(w.values())
    p = believe(Evidence(votes=[[("Bob", "Eve"), ("Cid", "Eve")]]),
                players=["Ann", "Bob", "Cid", "Dan", "Eve"])
    for name, letter in (("Bob", "B"), ("Cid", "C"), ("Dan", "D"), ("Eve", "E")):
        expected = sum(v for k, v in w.items() if letter in k) / total
        assert p[name] == pytest.approx(expected), name
    assert sum(p.values()) == pytest.approx(2)


def test_the_murdered_pointed_at_the_pack():
    p = believe(Evidence(votes=[[("Fay", "Eve")]], murdered=["Fay"]),
                human={"Fay"})
    assert p["Eve"] > p["Bob"] == pytest.approx(p["Cid"])


def test_an_accused_packmate_is_less_likely():
    p = believe(Evidence(accusations=[("Bob", "Cid")] * 3))
    assert p["Bob"] == pytest.approx(p["Cid"])
    assert p["Bob"] < p["Dan"]


def test_impossible_or_too_many_hypotheses_give_no_belief():
    assert believe(wolves=0) is None
    assert believe(human={"Bob", "Cid", "Dan", "Eve"}) is None  # one free seat, two wolves
    many = [f"P{i}" for i in range(60)]
    assert believe(me="P0", players=many, wolves=15) is None


@pytest.mark.parametrize("name, players", [("maw", 6), ("aiwolf-5", 5)])
def test_rule_villagers_beat_random_villagers_against_the_same_rule_wolves(name, players):
    # 300 games on the same seeds (the same roles on the same seats): only the village's
    # deciders differ. benchmarks/teams.py gives the figures with their intervals.
    games = 300
    rule = simulate(ruleset(name), players, "rule", games, seed=1, village="rule",
                    werewolves="rule")
    rand = simulate(ruleset(name), players, "rule", games, seed=1, village="random",
                    werewolves="rule")
    assert rule.village_wins > rand.village_wins + games // 20


def test_scores_on_hand_computed_cases():
    from maw.policies.beliefs import brier, flat, log_loss

    belief = {"Bob": 0.8, "Cid": 0.2, "Dee": 0.0}
    # (0.8 - 1)^2 + (0.2 - 0)^2 + 0 over 3
    assert brier(belief, {"Bob"}) == pytest.approx(0.08 / 3)
    assert brier(belief, {"Cid"}) == pytest.approx((0.64 + 0.64) / 3)
    import math
    assert log_loss(belief, {"Bob"}) == pytest.approx(
        -(math.log(0.8) + math.log(0.8) + math.log(1 - 1e-6)) / 3)
    # the uniform guess keeps the certainties and spreads the rest evenly
    assert flat(belief) == {"Bob": 0.5, "Cid": 0.5, "Dee": 0.0}
    assert flat({"Bob": 1.0, "Cid": 0.0}) == {"Bob": 1.0, "Cid": 0.0}


def test_the_uniform_prior_knows_what_the_player_was_told():
    from conftest import start

    from maw.engine import view
    from maw.policies.beliefs import uniform

    s = start("maw", "VWVVWV")
    assert uniform(view(s, "A")) == {n: pytest.approx(2 / 5) for n in "BCDEF"}
    assert uniform(view(s, "B")) == {"A": 0, "C": 0, "D": 0, "E": 1, "F": 0}
    s5 = start("aiwolf-5", "SWPVV")
    assert uniform(view(s5, "A")) == {n: pytest.approx(1 / 4) for n in "BCDE"}


def test_evidence_counted_as_it_comes_gives_the_beliefs_of_counting_it_at_once():
    # a rule player counts each vote and each line heard once, as the game goes: in any
    # order and in any pieces, the same counts, so exactly the same beliefs
    from maw.policies.beliefs import Tally

    votes = [[("Bob", "Eve"), ("Cid", "Eve"), ("Dan", "Bob"), ("Eve", "Bob"), ("Fay", "Eve")],
             [("Bob", "Dan"), ("Cid", "Dan"), ("Dan", "Cid")]]
    whole = Evidence(votes=votes, accusations=[("Dan", "Fay"), ("Cid", "Bob")],
                     murdered=["Fay"], defences=[("Bob", "Cid")],
                     living=["Ann", "Bob", "Cid", "Dan", "Eve"],
                     results=[("Cid", "Dan", "werewolf")])
    at_once = wolf_probabilities("Ann", PLAYERS, 2, {"Fay"}, set(), whole)
    tally = Tally("Ann", PLAYERS)
    tally.vote(votes[1])
    tally.add(Evidence(accusations=whole.accusations[:1]))
    today = tally.copy()  # (a vote still open is counted on a copy)
    today.vote([("Bob", "Fay")])
    tally.add(whole)  # only what is new since the last look
    tally.vote(votes[0])
    assert tally.probabilities(2, {"Fay"}, set(), whole.murdered, whole.living) == at_once
    assert today.probabilities(2, {"Fay"}, set(), [], None) != \
        tally.probabilities(2, {"Fay"}, set(), [], None)


def test_hypotheses_as_bit_masks_and_as_rows_say_the_same_and_large_villages_use_rows():
    # a pack is a bit mask where the village has under 63 free players (one numpy AND per
    # question), its rows of indices past that: both must tell the same packs apart
    import random

    from maw.policies.beliefs import _any_of, _hypotheses

    rng = random.Random(3)
    free = [f"P{i}" for i in range(20)]
    pick, _cells, packs = _hypotheses(20, 3)
    assert packs is not None
    for _ in range(20):
        names = set(rng.sample(free, rng.randint(0, 6)))
        assert (_any_of(free, names, pick, packs) == _any_of(free, names, pick, None)).all()
    assert _hypotheses(70, 1)[2] is None  # (2**69 does not fit in int64)
    village = [f"P{i}" for i in range(71)]
    # the murdered P1 had voted for P2: the one wolf is likelier P2 than anyone else
    p = believe(Evidence(votes=[[("P1", "P2")]], murdered=["P1"], living=village[2:]),
                human={"P1"}, wolves=1, me="P0", players=village)
    assert p is not None and p["P1"] == 0
    assert p["P2"] == max(p.values()) > p["P3"] > 0
    assert sum(p.values()) == pytest.approx(1)


@pytest.mark.parametrize(("n", "k"), [(14, 3), (12, 4), (20, 5), (4, 4), (9, 0), (22, 2)])
def test_a_packs_score_adds_its_terms_in_order_and_names_the_right_cells(n, k):
    # a pack's score is its terms added one after the other (each free wolf's own score,
    # the known wolves', each pair's), in one numpy sum over axis 0: numpy adds those rows
    # in order; if a numpy release changed that, the beliefs would move in their last bits
    # and the games with them (the benchmarks' digests would no longer be the same games)
    import itertools

    import numpy as np

    from maw.policies.beliefs import _hypotheses

    rng = np.random.default_rng(n * 10 + k)
    pick, cells, _packs = _hypotheses(n, k)
    solo, base, pair = rng.normal(size=n) * 7, float(rng.normal()), rng.normal(size=(n, n))
    terms = np.concatenate((solo, (base,), pair.ravel()))
    one_by_one = []
    for row in pick:  # each pack's terms, added in order, as the rules add them
        score = 0.0
        for i in row:
            score += solo[i]
        score += base
        for i, j in itertools.combinations(row, 2):
            score += pair[i, j]
        one_by_one.append(score)
    assert terms[cells].sum(axis=0).tolist() == one_by_one


@pytest.mark.parametrize("name,players", [("aiwolf-15", 15), ("maw", 9), ("werewolf-12", 12)])
def test_beliefs_weighed_when_a_turn_needs_them_are_those_weighed_at_every_turn(name,
                                                                                 players):
    # a rule player weighs its beliefs only when a turn looks at them: the same game, and
    # the same beliefs at every phase's end, as a player that weighs them at every turn
    from maw.policies.rule import RuleDecider
    from maw.simulate import play_game

    class AtEveryTurn(RuleDecider):
        def _learn(self, view):
            super()._learn(view)
            self._beliefs, self._unweighed = self._believe(view), None  # weighed now

    names = [f"P{i}" for i in range(players)]
    for seed in range(3):
        games = []
        for kind in (RuleDecider, AtEveryTurn):
            stated, events = [], []
            play_game(ruleset(name), names, dict.fromkeys(names, kind), seed,
                      beliefs=stated, events=events)
            games.append((stated, events))
        assert games[0] == games[1]
        assert any(b for *_, b in games[0][0])


@pytest.mark.parametrize("seed", range(6))
def test_the_features_a_fit_weighs_give_the_beliefs_the_tally_weighs(seed):
    """``Tally.features`` (what ``maw.policies.fitted`` fits) scores each hypothesis as
    ``probabilities`` does, for any ratios: random evidence, known wolves and humans, the
    murdered and the living, on ratios drawn at random."""
    import random

    import numpy as np

    from maw.policies.beliefs import Ratios, Tally

    rng = random.Random(seed)
    players = [f"P{i}" for i in range(9)]
    ratios = Ratios.of(rng.uniform(-3, 3) for _ in range(9))
    tally = Tally("P0", players, ratios)
    others = players[1:]
    for _ in range(3):
        tally.vote([(v, rng.choice(others)) for v in rng.sample(players, 6)])
    tally.heard([(rng.choice(players), rng.choice(others)) for _ in range(5)],
                [(rng.choice(players), rng.choice(others)) for _ in range(3)],
                [(rng.choice(players), rng.choice(others), rng.choice(["werewolf", "human"]))
                 for _ in range(3)])
    murdered = rng.sample(others, 2)
    wolf = {rng.choice([p for p in others if p not in murdered])} if seed % 2 else set()
    human = set(murdered) | {"P0"}
    # the executed too are dead: some packs are then all dead, and cannot hold
    executed = rng.sample([p for p in others if p not in murdered and p not in wolf], 3)
    living = [p for p in players if p not in murdered and p not in executed] \
        if seed % 3 else None
    beliefs = tally.probabilities(3, human, wolf, murdered, living)
    features, holds, packs = tally.features(3, human, wolf, murdered, living)
    assert features.shape == (len(packs), 9) and holds.any()
    assert holds.all() == (living is None or bool(wolf))
    score = np.where(holds, features @ ratios.vector(), -np.inf)
    weight = np.exp(score - score.max())
    weight /= weight.sum()
    assert beliefs == pytest.approx(
        {p: float(sum(w for w, pack in zip(weight, packs, strict=True) if p in pack))
         for p in others})
    assert all(pack >= wolf and not pack & human for pack in packs)
