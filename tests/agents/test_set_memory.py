"""A seat of a game set with ``--set-memory``: its interface teaches the memory what the
end of each round told everyone, and lends it to the next round's decider; without the
option every round's decider starts from nothing."""

from __future__ import annotations

import json

import pytest

from maw.agents.knowledge import Knowledge
from maw.agents.model_interface import ModelInterfaceAgent
from maw.engine import PlayerView
from maw.hosting.seats import Seat, deciders
from maw.policies.memory import SetMemory
from maw.protocol import heard as h
from maw.protocol import messages as m
from maw.records.log import GameLog

PLAYERS = ("Ann", "Bob", "Cid", "Dan", "Eve")


def question(round_: int, heard: list) -> m.GetInput:
    view = PlayerView(player="Ann", role="Villager", team="village", alive=True,
                      ruleset="aiwolf-5", day=1, phase="day", players=PLAYERS,
                      living=PLAYERS, room="Village")
    return m.GetInput(purpose="action", view=view, round=round_, heard=heard,
                      options=[m.Option(action="chat", room="Village")])


@pytest.mark.parametrize("memory", [True, False])
def test_the_round_s_end_teaches_the_memory_and_the_next_decider_has_it(tmp_path, memory):
    log = GameLog(tmp_path / "log.jsonl")
    agent = ModelInterfaceAgent("ui-ann@localhost", "pw", "Ann",
                                deciders(Seat("Ann", "rule"), 5), log,
                                memory=SetMemory() if memory else None)
    said = h.Said(day=1, room="Village", speaker="Bob", text="I am the Seer.")
    agent.take_in(question(1, [said]))
    first = agent.decider
    assert first.rule_layer().claimed == {"Bob": "Seer"}
    roles = {"Ann": "Villager", "Bob": "Werewolf", "Cid": "Seer", "Dan": "Possessed",
             "Eve": "Villager"}
    over = h.GameEnded(winner="werewolves", reason="the wolves are as many", roles=roles)
    agent.take_in(question(2, [over]))
    second = agent.decider
    assert second is not first and second.rule_layer().claimed == {}
    log.close()
    records = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    if not memory:
        assert agent.memory is None and second.rule_layer().set_memory is None
        assert not any(r["kind"] == "remembered" for r in records)
        return
    assert second.rule_layer().set_memory is agent.memory
    assert agent.memory.games["Bob"] == [1, 0] and agent.memory.games["Cid"] == [0, 1]
    assert agent.memory.claims == {("Bob", "Seer"): [1, 0]}
    assert [(r["player"], r["round"], r["games"], r["claims"]) for r in records
            if r["kind"] == "remembered"] == [("Ann", 1, 1, 1)]


def test_the_end_of_a_round_is_in_the_next_round_s_first_news():
    """What the interface learns from: a player's unread news keeps the round's end
    until the next round's first question takes it."""
    k = Knowledge(push_news=False)
    k.take(m.StartGame(total_players=5, players=list(PLAYERS), round=1, rounds=2))
    k.unread.clear()
    k.take(m.EndGame(winning_team="village", reason="no wolf is left", round=1,
                     roles={"Ann": "Villager", "Bob": "Werewolf"}, points={}))
    k.take(m.StartGame(total_players=5, players=list(PLAYERS), round=2, rounds=2))
    ended = [r for r in k.unread if isinstance(r, h.GameEnded)]
    assert [r.roles for r in ended] == [{"Ann": "Villager", "Bob": "Werewolf"}]
