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


def _first_asked(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """Who the loop asks first in a new aiwolf-5 game, with ``rng`` ordering the round,
    and the living in seat order."""
    state = new_game(ruleset("aiwolf-5"), list(default_names(5)), random.Random(3))
    game = loop.game_loop(state, rng, seed=3)
    name, at, _legal = next(game)
    game.close()
    return name, at.living()


def test_a_generator_with_a_shuffle_or_a_draw_of_its_own_orders_the_round_its_own_way():
    class Backwards(random.Random):  # (its own shuffle)
        def shuffle(self, x):
            x.reverse()

    class Low(random.Random):  # (its own draw: always the lowest)
        def _randbelow(self, n):
            return 0

    class Coin(random.Random):  # (its own random(): the standard library draws with it)
        def random(self):
            return 0.0

    name, living = _first_asked(Backwards(3))
    assert name == living[-1]
    for rng in (Low(3), Coin(3)):
        expected = list(living)
        random.Random.shuffle(rng, expected)  # (as the standard library would, with its draw)
        assert _first_asked(rng)[0] == expected[0]
    patched = random.Random(3)  # (a shuffle set on the generator itself)
    patched.shuffle = lambda x: x.reverse()  # type: ignore[method-assign]
    assert _first_asked(patched)[0] == living[-1]
    plain, theirs = random.Random(3), random.Random(3)
    order = list(living)
    theirs.shuffle(order)
    assert _first_asked(plain)[0] == order[0]


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
    kinds = [type(e).__name__ for e in heard]
    assert kinds[0] == "GameStarted" and kinds.count("GameStarted") == 1
    assert kinds[-1] == "GameOver" and kinds.count("GameOver") == 1
    # each phase's last state, once, a phase the loop told of, in the order they started
    started = [(e.day, e.phase, e.vote_round) for e in heard
               if type(e).__name__ == "PhaseStarted"]
    told = [(s.day, s.phase.value, s.vote_round) for s in ended]
    assert told and all(not s.is_over for s in ended) and len(set(told)) == len(told)
    assert all(t in started for t in told)
    assert sorted(told, key=started.index) == told
    # play_game is this loop with a decider in every seat: the same game, told alike
    heard_again: list = []
    game = loop.game_loop(new_game(rules_, names, random.Random(11)), random.Random(5), 11,
                          heard=heard_again.extend)
    rng = random.Random(2)
    try:
        name, at, legal = next(game)
        while True:
            name, at, legal = game.send(rng.choice(legal))
    except StopIteration:
        pass
    assert heard_again == heard
    assert [type(e).__name__ for e in events][0] == "GameStarted" and \
        type(events[-1]).__name__ == "GameOver"


def test_a_game_that_does_not_end_says_which_and_when():
    with pytest.raises(MawError, match="game 4 did not end in 3 actions"):
        play_game(ruleset("aiwolf-5"), list(default_names(5)), "random", seed=4, max_steps=3)


def test_an_event_quick_init_cannot_write_out_keeps_dataclasses_own():
    from maw.engine.events import _quick_init

    @dataclasses.dataclass(frozen=True, slots=True)
    class Made:
        day: int
        seen: tuple = dataclasses.field(default_factory=tuple)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        day: int

        def __post_init__(self):
            if self.day < 0:
                raise ValueError("a day is not negative")

    for kind in (Made, Checked):
        init = kind.__init__
        _quick_init(kind)
        assert kind.__init__ is init
    assert Made(1).seen == ()
    with pytest.raises(ValueError):
        Checked(-1)


def test_a_new_state_of_a_field_it_does_not_have_is_an_error():
    from maw.engine.resolution import changed

    state = new_game(ruleset("maw"), list(default_names(6)), random.Random(1))
    new = changed(state, day=4, vote_round=1)
    assert (new.day, new.phase, new.vote_round, new.names) == (4, state.phase, 1, state.names)
    assert type(new) is type(state) and state.day != 4
    with pytest.raises(ValueError, match="GameState has no field 'nope'"):
        changed(state, nope=1)
    with pytest.raises(ValueError, match="GameState has no field 'nope'"):
        state._replace(nope=1)


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
    rules._OFFERED.clear()  # (caches the whole process shares: none half full here)
    rules._ROWS.clear()
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
