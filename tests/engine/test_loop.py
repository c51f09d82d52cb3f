"""The game loop without clocks (``maw.engine.loop``) and what makes a turn cheap: the
round's order, the events' constructors, the offered actions made once."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import random
from typing import get_args

import pytest

from maw.engine import Over, Room, Vote, legal_actions, loop, new_game, rules, ruleset
from maw.engine.events import Event, Overed
from maw.engine.state import default_names
from maw.errors import MawError
from maw.simulate import play_game


def test_the_rounds_order_is_the_standard_librarys_shuffle_draw_for_draw():
    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        for n in (0, 1, 2, 3, 5, 9, 15, 40):
            a = [str(i) for i in range(n)]
            b = list(a)
            loop._shuffle(mine, a)
            theirs.shuffle(b)
            assert a == b, (seed, n)
        assert mine.getstate() == theirs.getstate()  # (the same draws, so the same stream)


def test_a_generator_of_its_own_shuffles_its_own_way():
    class Coin(random.Random):  # (a generator with its own random(): its own shuffle)
        shuffled = 0

        def random(self):
            return 0.5

        def shuffle(self, x):
            Coin.shuffled += 1
            x.reverse()

    rules_ = ruleset("aiwolf-5")
    state = new_game(rules_, list(default_names(5)), random.Random(3))
    game = loop.game_loop(state, Coin(3), seed=3)
    name, at, legal = next(game)
    assert Coin.shuffled == 1
    assert name == at.living()[-1]  # the reversed seat order: the last living seat first
    game.close()


def test_the_loop_tells_every_event_and_each_phases_last_state():
    rules_ = ruleset("aiwolf-5")
    names = list(default_names(5))
    events: list = []
    play_game(rules_, names, "random", seed=11, events=events)
    heard, ended = [], []
    state = new_game(rules_, names, random.Random(11))
    game = loop.game_loop(state, random.Random(5), 11, heard=heard.extend, ending=ended.append)
    rng = random.Random(2)
    try:
        name, at, legal = next(game)
        while True:
            # (a chat offered with no text is refused: counted, and the game goes on)
            name, at, legal = game.send(rng.choice(legal))
    except StopIteration as done:
        final, steps, invalid = done.value
    assert final.is_over and steps > 0 and invalid > 0
    assert type(heard[0]).__name__ == "GameStarted" and type(heard[-1]).__name__ == "GameOver"
    # each phase's last state, once: its phase differs from the next one told
    assert ended and all(not s.is_over for s in ended)
    assert len({(s.day, s.phase, s.vote_round) for s in ended}) == len(ended)
    assert len(events) > 0 and type(events[0]).__name__ == "GameStarted"


def test_a_game_that_does_not_end_says_which_and_when():
    with pytest.raises(MawError, match="game 4 did not end in 3 actions"):
        play_game(ruleset("aiwolf-5"), list(default_names(5)), "random", seed=4, max_steps=3)


def test_every_event_is_built_as_its_dataclass_says_and_stays_frozen():
    for kind in get_args(Event):
        params = list(inspect.signature(kind).parameters.values())
        fields = dataclasses.fields(kind)
        assert [p.name for p in params] == [f.name for f in fields], kind
        for p, f in zip(params, fields, strict=True):
            assert p.default is (inspect.Parameter.empty if f.default is dataclasses.MISSING
                                 else f.default), (kind, f.name)
    event = Overed(2, Room.VILLAGE, "Ann")
    assert (event.day, event.room, event.player, event.audience) == (2, Room.VILLAGE, "Ann",
                                                                     None)
    assert event == Overed(day=2, room=Room.VILLAGE, player="Ann", audience=None)
    assert pickle.loads(pickle.dumps(event)) == event and hash(event) == hash(
        Overed(2, Room.VILLAGE, "Ann"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.day = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Overed(2, Room.VILLAGE)  # type: ignore[call-arg]


def test_an_offered_action_is_one_object_turn_after_turn_and_the_offers_stay_bounded(
        monkeypatch):
    rules_ = ruleset("aiwolf-5")
    names = list(default_names(5))
    state = new_game(rules_, names, random.Random(1))
    first = legal_actions(state, names[0])
    again = legal_actions(state, names[0])
    assert first == again and all(a is b for a, b in zip(first, again, strict=True))
    assert any(type(a) is Over for a in first)
    row = rules.offers(Vote, names[0], tuple(names))
    assert [a.target for a in row] == names and row is rules.offers(Vote, names[0],
                                                                     tuple(names))
    monkeypatch.setattr(rules, "_OFFERS_KEPT", 3)
    fresh = tuple(f"Bound{i}" for i in range(5))  # (names no other test offered to)
    for name in fresh:  # (more than the bound: the caches start again, and stay small)
        rules.offers(Vote, name, fresh)
    assert len(rules._ROWS) <= 3 and len(rules._OFFERED) <= 3
    assert rules.offers(Vote, names[0], tuple(names)) == row  # (equal values, made anew)
