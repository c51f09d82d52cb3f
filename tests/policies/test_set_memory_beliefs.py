"""A game set's memory (maw.policies.memory): what a player learns of the others from one
game to the next, and how it weighs a claim in the next."""

from __future__ import annotations

import math
import random

import pytest

from maw.engine import new_game, ruleset
from maw.engine.view import view
from maw.policies import make_decider
from maw.policies.claims import Claim
from maw.policies.memory import PRIOR_GAMES, SetMemory
from maw.simulate import play_game

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"]


def test_a_finished_game_is_counted_by_side_and_claim():
    memory = SetMemory()
    memory.learn("Ann", {"Bob": "Seer", "Cid": "Seer", "Ann": "Seer"},
                 {"Ann": "Seer", "Bob": "Werewolf", "Cid": "Seer", "Dan": "Villager"})
    memory.learn("Ann", {"Bob": "Seer"},
                 {"Ann": "Villager", "Bob": "Werewolf", "Cid": "Possessed", "Dan": "Werewolf"})
    assert memory.learnt == 2 and "Ann" not in memory.games  # (not itself)
    assert memory.games == {"Bob": [2, 0], "Cid": [0, 2], "Dan": [1, 1]}
    assert memory.claims == {("Bob", "Seer"): [2, 0], ("Cid", "Seer"): [0, 1]}
    assert memory.weighed == 3
    # everyone's rates first (Jeffreys: half a count on each side): 2 Seer claims in 3
    # games as a wolf (Bob 2, Dan 1), 1 in 3 as a human (Cid 2, Dan 1)
    assert memory.everyones("Seer") == pytest.approx((2.5 / 4, 1.5 / 4))
    assert memory.everyones("Medium") == pytest.approx((0.5 / 4, 0.5 / 4))
    # then each player's own games, everyone's counting as PRIOR_GAMES of its own
    k = PRIOR_GAMES
    assert memory.ratio("Bob", "Seer") == pytest.approx(
        ((2 + k * 2.5 / 4) / (2 + k)) / ((0 + k * 1.5 / 4) / (0 + k)))
    assert memory.ratio("Cid", "Seer") == pytest.approx(
        ((0 + k * 2.5 / 4) / (0 + k)) / ((1 + k * 1.5 / 4) / (2 + k)))
    assert memory.ratio("Dan", "Seer") == pytest.approx(
        ((0 + k * 2.5 / 4) / (1 + k)) / ((0 + k * 1.5 / 4) / (1 + k)))
    # nobody it has never played with, and no claim, is weighed
    assert memory.ratio("Zed", "Seer") == 1.0
    assert memory.log_ratios({"Bob": "Medium"})["Bob"] == pytest.approx(
        math.log(((k * 0.5 / 4) / (2 + k)) / ((k * 0.5 / 4) / k)))


@pytest.mark.parametrize("seed", range(5))
def test_players_who_play_alike_are_weighed_more_alike_and_a_liar_still_stands_out(seed):
    """Ten seats that claim the Seer only as the Seer, and one that also fakes it as a
    wolf. By each one's own games alone (Jeffreys' prior), the honest seats' weights
    differ by chance, most early in the set: how often each was dealt the wolf and the
    Seer. Started from everyone's rates, they differ about half as much after 10 games,
    and after 60 the liar is weighed far above every honest seat."""
    memory = SetMemory()
    rng = random.Random(seed)
    seats = [f"S{i}" for i in range(10)] + ["Liar"]

    def spread(logs: list[float]) -> float:
        mean = sum(logs) / len(logs)
        return math.sqrt(sum((x - mean) ** 2 for x in logs) / len(logs))

    for game in range(1, 61):
        wolves = set(rng.sample(seats, 2))
        seer = rng.choice([s for s in seats if s not in wolves])
        claimed = {seer: "Seer"}
        if "Liar" in wolves:
            claimed["Liar"] = "Seer"
        memory.learn("Me", claimed, {s: "Werewolf" if s in wolves else
                                     "Seer" if s == seer else "Villager" for s in seats})
        honest = [math.log(memory.ratio(s, "Seer")) for s in seats[:10]]
        if game == 10:
            alone = []
            for s in seats[:10]:
                (as_wolf, as_human), (_, claims) = memory.games[s], memory.claims.get(
                    (s, "Seer"), [0, 0])
                alone.append(math.log((0.5 / (as_wolf + 1)) / ((claims + 0.5) / (as_human + 1))))
            assert spread(honest) < 0.7 * spread(alone)
    assert math.log(memory.ratio("Liar", "Seer")) > max(honest) + 1.0


def test_a_role_it_does_not_know_is_skipped():
    memory = SetMemory()
    memory.learn("Ann", {"Bob": "Seer"}, {"Bob": "Alien", "Cid": "Villager"})
    assert memory.games == {"Cid": [0, 1]} and memory.claims == {}


def seer_claim_view(memory: SetMemory | None):
    """Ann, a villager on day 1, who has heard Bob come out as the Seer: her beliefs."""
    rules = ruleset("maw")
    rng = random.Random(1)
    state = new_game(rules, NAMES, rng)
    ann = next(n for n, r in zip(state.names, state.roles, strict=True)
               if r.team == "village")
    bob = next(n for n in NAMES if n != ann)
    decider = make_decider("rule", ann, random.Random(2))
    if memory is not None:
        memory.lend(decider)
    decider.hear_claims(bob, [Claim("role", bob, bob, "Seer")])
    return decider.beliefs(view(state, ann)), bob, ann


def test_a_claimant_whose_claims_were_a_wolfs_is_suspected_and_no_memory_changes_nothing():
    alone, bob, ann = seer_claim_view(None)
    empty, _, _ = seer_claim_view(SetMemory())
    assert empty == alone  # a memory of no game weighs nothing
    liar = SetMemory()
    for _ in range(3):  # Bob claimed the Seer in each of his games as a wolf only
        liar.learn(ann, {bob: "Seer"}, {bob: "Werewolf", "Zed": "Villager"})
        liar.learn(ann, {}, {bob: "Villager"})
    suspected, _, _ = seer_claim_view(liar)
    assert suspected[bob] > alone[bob] + 0.1
    honest = SetMemory()
    for _ in range(3):  # ... as the real Seer only
        honest.learn(ann, {}, {bob: "Werewolf"})
        honest.learn(ann, {bob: "Seer"}, {bob: "Seer"})
    believed, _, _ = seer_claim_view(honest)
    assert believed[bob] < alone[bob] - 0.1
    assert sum(suspected.values()) == pytest.approx(sum(alone.values()))  # (still the pack)


@pytest.mark.parametrize("kind", ["rule", "hybrid", "learned"])
def test_a_set_in_the_simulator_learns_every_game_of_every_seat(kind, tmp_path):
    """Five games of aiwolf-5 by the same players, each seat's memory lent to each game's
    decider (the learned player's through its rule layer) and taught by its end."""
    rules = ruleset("aiwolf-5")
    names = NAMES[:5]
    if kind == "learned":
        from maw.policies.learned import Table

        path = tmp_path / "t.json"
        Table().save(path)
        kind = f"learned:{path}"
    memories = {n: SetMemory() for n in names}
    claims, wolves = 0, []
    for game in range(5):
        made = {}

        def factory(name, rng, made=made):
            made[name] = memories[name].lend(make_decider(kind, name, rng))
            return made[name]

        record = play_game(rules, names, dict.fromkeys(names, factory), seed=game)
        wolves.append({n for n, r in record.roles.items() if r == "Werewolf"})
        for name, decider in made.items():
            assert decider.rule_layer().set_memory is memories[name]
            memories[name].learn_from(decider, record.roles)
            claims += len(decider.rule_layer().claimed)
    for name, memory in memories.items():
        assert memory.learnt == 5 and name not in memory.games
        assert all(sum(g) == 5 for g in memory.games.values())
        # each game's wolf, as dealt, where it was another player
        for other, (as_wolf, _) in memory.games.items():
            assert as_wolf == sum(other in w for w in wolves)
    assert claims > 0 and sum(m.weighed for m in memories.values()) == claims
