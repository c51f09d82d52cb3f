"""The MAW ruleset, rule by rule (design document §1.2)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import start

from maw.engine import (
    Attack,
    Chat,
    EndPhase,
    Leaderboard,
    Phase,
    Room,
    Team,
    Unvote,
    Vote,
    apply,
    chance_action,
    legal_actions,
    new_game,
    outcome,
    play,
    ruleset,
    split,
    view,
)
from maw.engine.events import (
    Chatted,
    Executed,
    GameOver,
    Murdered,
    NoExecution,
    NoMurder,
    Revote,
    RoleAssigned,
    RoleRevealed,
    VoteCast,
)
from maw.engine.rules import opening_events
from maw.errors import ConfigError, IllegalActionError

# seats A..F: B and E are the wolves
DEAL = "VWVVWV"


def run(state, *actions):
    events = []
    for a in actions:
        state, ev = apply(state, a)
        events.extend(ev)
    return state, events


@pytest.mark.parametrize("n", range(3, 31))
def test_one_third_are_werewolves_at_least_one(n):
    state = new_game(ruleset("maw"), [f"p{i}" for i in range(n)], random.Random(n))
    wolves = sum(r.name == "Werewolf" for r in state.roles)
    assert wolves == max(1, n // 3)


def test_fewer_than_three_players_is_a_config_error():
    with pytest.raises(ConfigError, match="needs 3 to 200 players"):
        new_game(ruleset("maw"), ["a", "b"], random.Random(1))


def test_duplicate_names_are_refused():
    with pytest.raises(ConfigError, match="unique"):
        new_game(ruleset("maw"), ["a", "b", "a"], random.Random(1))


def test_wolves_know_each_other_and_villagers_know_only_themselves():
    state = start("maw", DEAL)
    assigned = {e.player: e for e in opening_events(state) if isinstance(e, RoleAssigned)}
    assert assigned["B"].pack == ("B", "E") and assigned["B"].audience == {"B"}
    assert assigned["A"].pack == ()
    assert dict(view(state, "B").known_roles) == {"B": "Werewolf", "E": "Werewolf"}
    assert dict(view(state, "A").known_roles) == {"A": "Villager"}


def test_first_phase_is_day_and_the_village_is_open():
    state = start("maw", DEAL)
    assert (state.day, state.phase) == (1, Phase.DAY)
    assert Chat("A", Room.VILLAGE) in legal_actions(state, "A")


def test_a_phase_is_one_string_with_its_value_and_name_as_an_enum_has_them():
    import copy
    import pickle

    for phase in Phase:
        assert type(phase.value) is str and phase.value == phase == str(phase)
        assert phase.name == phase.value.upper() and Phase(phase.value) is phase
        assert pickle.loads(pickle.dumps(phase)) is phase is copy.deepcopy(phase)
    assert Phase.register("day") is Phase.DAY and Phase.DAY.value == "day"
    with pytest.raises(AttributeError, match="shared value"):
        Phase.DAY.value = "night"  # type: ignore[misc]
    assert Phase.DAY.value == "day"


def test_every_action_in_the_table_pickles_by_name_the_made_ones_included():
    import pickle

    import maw.engine.werewolf  # noqa: F401 - the Witch's potions, made by night_action
    from maw.engine.actions import SPEC_OF, night_action

    made = night_action("mend")  # (made, not registered: still found by its name)
    for cls in (*SPEC_OF, made):
        fields = {f: "Ann" for f in getattr(cls, "__dataclass_fields__", {})}
        action = cls(**fields)
        assert pickle.loads(pickle.dumps(action)) == action, cls


def test_a_majority_executes_at_once_and_ends_the_day():
    state = start("maw", DEAL)
    state, ev = run(state, Vote("A", "B"), Vote("C", "B"), Vote("D", "B"))
    assert state.phase is Phase.DAY  # 3 of 6 is not more than half
    state, ev = run(state, Vote("F", "B"))
    assert [e.player for e in ev if isinstance(e, Executed)] == ["B"]
    assert state.phase is Phase.NIGHT and not state.alive[1]


def test_votes_are_public_and_may_change_or_be_withdrawn():
    state = start("maw", DEAL)
    state, ev = run(state, Vote("A", "B"))
    assert ev == [VoteCast(1, "execute", "A", "B")]  # audience None: everyone sees it
    state, _ = run(state, Vote("A", "C"))
    assert dict(view(state, "F").votes) == {"A": "C"}
    state, ev = run(state, Unvote("A"))
    assert dict(view(state, "F").votes) == {} and ev[0].target is None
    with pytest.raises(IllegalActionError, match="no vote to withdraw"):
        apply(state, Unvote("A"))


def test_timeout_executes_the_most_voted():
    state = start("maw", DEAL)
    state, ev = run(state, Vote("A", "B"), Vote("C", "B"), Vote("D", "F"), EndPhase())
    assert [e.player for e in ev if isinstance(e, Executed)] == ["B"]


def test_no_votes_no_execution():
    state, ev = run(start("maw", DEAL), EndPhase())
    assert any(isinstance(e, NoExecution) and e.reason == "no votes" for e in ev)
    assert all(state.alive) and state.phase is Phase.NIGHT


def test_a_tie_at_timeout_executes_nobody_by_default():
    state, ev = run(start("maw", DEAL), Vote("A", "B"), Vote("C", "D"), EndPhase())
    assert any(isinstance(e, NoExecution) and e.reason == "tie" for e in ev)
    assert all(state.alive)


def test_tie_policy_random_executes_one_of_the_tied():
    picked = set()
    for seed in range(20):
        state = start("maw", DEAL, seed=seed, tie="random")
        for a in (Vote("A", "B"), Vote("C", "D")):
            state, _ = apply(state, a)
        state, ev = play(state, EndPhase())
        picked.update(e.player for e in ev if isinstance(e, Executed))
    assert picked == {"B", "D"}  # both happen over 20 seeds, nothing else does


def test_tie_policy_revote_votes_again_then_picks_at_random():
    state = start("maw", DEAL, tie="revote")
    state, ev = run(state, Vote("A", "B"), Vote("C", "D"), EndPhase())
    assert [e.tied for e in ev if isinstance(e, Revote)] == [("B", "D")]
    assert state.phase is Phase.DAY and state.vote_round == 1 and not view(state, "A").votes
    state, ev = run(state, Vote("A", "C"), Vote("C", "F"), EndPhase())
    assert state.pending == "execute"
    assert {state.names[t] for t in state.candidates} == {"C", "F"}
    state, ev = apply(state, chance_action(state))
    assert [e.player for e in ev if isinstance(e, Executed)][0] in {"C", "F"}


def test_tie_policy_runoff_votes_again_between_the_tied_alone_then_nobody():
    state = start("maw", DEAL, tie="runoff")
    state, ev = run(state, Vote("A", "B"), Vote("C", "D"), EndPhase())
    assert [(e.tied, e.runoff) for e in ev if isinstance(e, Revote)] == [(("B", "D"), True)]
    assert state.phase is Phase.DAY and state.vote_round == 1 and not view(state, "A").votes
    # only the tied may be named, by everyone (the tied too, for the other)
    assert {a.target for a in legal_actions(state, "A") if isinstance(a, Vote)} == {"B", "D"}
    assert {a.target for a in legal_actions(state, "B") if isinstance(a, Vote)} == {"D"}
    with pytest.raises(IllegalActionError, match=r"C is not in the runoff \(between B, D\)"):
        apply(state, Vote("A", "C"))
    state, ev = run(state, Vote("A", "B"), Vote("C", "D"), EndPhase())
    assert [(e.reason, e.tied) for e in ev if isinstance(e, NoExecution)] == [("tie", ("B", "D"))]
    assert not state.pending and all(state.alive) and state.phase is Phase.NIGHT
    assert state.runoff == ()


def test_a_runoff_that_decides_executes():
    state = start("maw", DEAL, tie="runoff")
    state, _ = run(state, Vote("A", "B"), Vote("C", "D"), EndPhase())
    state, ev = run(state, Vote("A", "B"), Vote("C", "B"), Vote("D", "B"), EndPhase())
    assert [(e.player, e.votes) for e in ev if isinstance(e, Executed)] == [("B", 3)]
    # the same by a majority, at once (MAW's day)
    state = start("maw", DEAL, tie="runoff")
    state, _ = run(state, Vote("A", "B"), Vote("C", "D"), EndPhase())
    state, ev = run(state, *(Vote(p, "D") for p in "ABCE"))
    assert [e.player for e in ev if isinstance(e, Executed)] == ["D"]
    assert state.phase is Phase.NIGHT


def test_runoff_is_for_the_day_s_vote_only():
    with pytest.raises(ConfigError, match="attack_tie: runoff is for the day's vote"):
        ruleset("aiwolf-9", attack_tie="runoff")


@pytest.mark.parametrize("key,value,least", [
    ("max_days", "-1", 0), ("talks_per_day", "-1", 0),
    ("whispers_per_day", "-2", 0), ("max_chat_length", "0", 1), ("seer", "-1", 0)])
def test_a_number_option_below_its_least_is_refused(key, value, least):
    with pytest.raises(ConfigError, match=f"ruleset option {key}: at least {least}, got"):
        ruleset("maw", **{key: value})
    assert getattr(ruleset("maw", **{key: str(least)}), key) == least


def test_the_executed_role_is_hidden_from_the_village_and_told_to_the_wolves():
    state = start("maw", DEAL)
    state, ev = run(state, Vote("A", "C"), Vote("B", "C"), Vote("D", "C"), Vote("E", "C"))
    assert not any(isinstance(e, RoleRevealed) and e.audience is None for e in ev)
    reveal = [e for e in ev if isinstance(e, RoleRevealed)]
    assert reveal and reveal[0].player == "C" and reveal[0].audience == {"B", "E"}
    assert "C" not in view(state, "A").known_roles
    assert view(state, "B").known_roles["C"] == "Villager"


def night(state):
    """End day 1 with no execution."""
    state, _ = apply(state, EndPhase())
    assert state.phase is Phase.NIGHT
    return state


def test_only_werewolves_act_at_night_and_only_on_non_wolves():
    state = night(start("maw", DEAL))
    assert legal_actions(state, "A") == ()
    targets = {a.target for a in legal_actions(state, "B") if isinstance(a, Attack)}
    assert targets == {"A", "C", "D", "F"}
    with pytest.raises(IllegalActionError, match="cannot attack"):
        apply(state, Attack("A", "C"))
    with pytest.raises(IllegalActionError, match="E is not a legal target"):
        apply(state, Attack("B", "E"))


def test_a_unanimous_wolf_vote_murders_and_ends_the_night():
    state = night(start("maw", DEAL))
    state, ev = run(state, Attack("B", "C"))
    assert state.phase is Phase.NIGHT
    state, ev = run(state, Attack("E", "C"))
    assert [e.player for e in ev if isinstance(e, Murdered)] == ["C"]
    assert (state.day, state.phase) == (2, Phase.DAY)


def test_no_unanimity_by_timeout_no_murder():
    state = night(start("maw", DEAL))
    state, ev = run(state, Attack("B", "C"), Attack("E", "D"), EndPhase())
    assert any(isinstance(e, NoMurder) for e in ev) and all(state.alive)


def test_the_pack_is_split_while_two_wolves_attack_different_players():
    # (a host ends a phase early only once nobody who must agree disagrees)
    day = start("maw", DEAL)
    state = night(day)
    assert not split(day) and not split(state)  # (nobody has picked)
    state, _ = run(state, Attack("B", "C"))
    assert not split(state)  # (one pick: the other wolf has not chosen)
    state, _ = run(state, Attack("E", "D"))
    assert split(state)
    state, _ = run(state, Attack("E", "C"))  # (E follows: the murder, and the day)
    assert state.phase is Phase.DAY and not split(state)
    aiwolf = start("aiwolf-5", "SWPVV")
    while aiwolf.phase is not Phase.NIGHT:
        aiwolf, _ = apply(aiwolf, EndPhase())
    assert not split(aiwolf)  # (one wolf there, and a tied attack vote is drawn)


def test_the_hideout_is_for_wolves_and_its_talk_reaches_only_them():
    state = night(start("maw", DEAL))
    with pytest.raises(IllegalActionError, match="may not enter the Hideout"):
        apply(state, Chat("A", Room.HIDEOUT, "let me in"))
    with pytest.raises(IllegalActionError, match="Village is closed"):
        apply(state, Chat("A", Room.VILLAGE, "hello?"))
    state, ev = run(state, Chat("B", Room.HIDEOUT, "C tonight"))
    assert ev == [Chatted(1, Room.HIDEOUT, "B", "C tonight", frozenset({"B", "E"}))]


def test_dead_players_cannot_act():
    state = start("maw", DEAL)
    state, _ = run(state, *(Vote(p, "C") for p in "ABDE"))
    state, _ = run(state, EndPhase())  # night passes
    assert legal_actions(state, "C") == ()
    for action in (Vote("C", "A"), Chat("C", Room.VILLAGE, "boo")):
        with pytest.raises(IllegalActionError, match="C is dead"):
            apply(state, action)
    with pytest.raises(IllegalActionError, match="C is dead"):
        apply(state, Vote("A", "C"))


def test_chat_text_must_fit():
    state = start("maw", DEAL, max_chat_length=10)
    with pytest.raises(IllegalActionError, match="at most 10 characters"):
        apply(state, Chat("A", Room.VILLAGE, "x" * 11))
    with pytest.raises(IllegalActionError, match="needs text"):
        apply(state, Chat("A", Room.VILLAGE, "   "))


def test_illegal_action_error_says_where():
    state = night(start("maw", DEAL))
    with pytest.raises(IllegalActionError, match=r"\(day 1, night\)"):
        apply(state, Vote("A", "B"))


def kill_all(state, victims, wolves=("B", "E")):
    """Murder ``victims`` one per night with no executions."""
    for v in victims:
        state = night(state) if state.phase is Phase.DAY else state
        for w in wolves:
            if state.alive[state.seat[w]] and not state.is_over:
                state, _ = apply(state, Attack(w, v))
    return state


def test_werewolves_win_when_no_villager_lives_and_score_the_initial_villagers():
    state = kill_all(start("maw", DEAL), ["A", "C", "D", "F"])
    out = outcome(state)
    assert out.winner is Team.WEREWOLVES and out.termination.value == "no villager lives"
    assert dict(out.points) == {"A": 0, "B": 4, "C": 0, "D": 0, "E": 4, "F": 0}


def test_villagers_win_when_no_wolf_lives_and_score_the_living_villagers():
    state = kill_all(start("maw", DEAL), ["A"])  # day 2 begins; A is dead
    state, _ = run(state, *(Vote(p, "B") for p in "CDF"))  # 3 of 5: B executed at once
    state, _ = run(state, EndPhase())  # the night passes with no murder
    state, ev = run(state, *(Vote(p, "E") for p in "CDF"))
    out = outcome(state)
    assert out.winner is Team.VILLAGE and [e for e in ev if isinstance(e, GameOver)]
    assert dict(out.points) == {"A": 3, "B": 0, "C": 3, "D": 3, "E": 0, "F": 3}
    with pytest.raises(IllegalActionError, match="game is over"):
        apply(state, EndPhase())


def test_parity_is_an_option():
    # 1 wolf among 4: after one murder it is 1 wolf vs 2 humans; after two, parity
    state = kill_all(start("maw", "WVVV", win="parity"), ["B", "C"], wolves=("A",))
    assert outcome(state).termination.value == "werewolves reached parity"
    state = kill_all(start("maw", "WVVV"), ["B", "C"], wolves=("A",))
    assert not state.is_over


def test_max_days_ends_in_a_draw():
    state = start("maw", DEAL, max_days=2)
    for _ in range(4):
        state, _ = apply(state, EndPhase())
    out = outcome(state)
    assert out.winner is None and out.termination.value == "day limit reached"
    assert set(out.points.values()) == {0}


def test_a_game_where_nobody_acts_ends_in_a_draw_at_the_default_limit():
    state = start("maw", DEAL)
    steps = 0
    while not state.is_over:
        state, _ = apply(state, EndPhase())
        steps += 1
    assert outcome(state).winner is None and state.day == 2 * 6 + 5
    assert steps == 2 * (2 * 6 + 5)
    state = start("maw", DEAL, max_days=0)  # no limit
    for _ in range(200):
        state, _ = apply(state, EndPhase())
    assert not state.is_over


def test_leaderboard_accumulates_rounds():
    board = Leaderboard()
    board.record({"a": 4, "b": 0}, winners=["a"])
    board.record({"a": 0, "b": 3}, winners=["b"])
    board.record({"a": 2, "b": 0}, winners=["a"])
    assert board.standings() == [("a", 6), ("b", 3)]
    assert board.rounds == 3 and board.wins == {"a": 2, "b": 1}


def test_same_seed_same_game():
    def game(seed):
        state = new_game(ruleset("maw"), list("ABCDEFG"), random.Random(seed))
        return state.roles, state.seed
    assert game(5) == game(5)
    assert len({game(s) for s in range(10)}) > 1
    assert Counter(r.name for r in game(5)[0]) == {"Villager": 5, "Werewolf": 2}


# ---------------------------------------------------------------- votes_open=talk


def test_under_votes_open_talk_the_votes_open_once_everyone_has_spoken_or_passed():
    from maw.engine import OpenVotes, Pass, may_pass
    from maw.engine.events import Passed, VotesOpened

    s = start("maw", DEAL, votes_open="talk")
    assert not view(s, "A").votes_open
    assert legal_actions(s, "A") == (Chat("A", Room.VILLAGE),)  # no vote yet
    with pytest.raises(IllegalActionError, match="votes open once every living player"):
        apply(s, Vote("A", "B"))
    s, events = run(s, Chat("A", Room.VILLAGE, "I trust nobody."), Pass("B"))
    assert [type(e) for e in events] == [Chatted, Passed]
    assert events[1].audience == frozenset({"B"})  # a pass is nobody else's business
    assert not may_pass(s, "A") and not may_pass(s, "B") and may_pass(s, "C")
    with pytest.raises(IllegalActionError, match="has had its turn"):
        apply(s, Pass("A"))
    # a player who passed may still talk
    assert Chat("B", Room.VILLAGE) in legal_actions(s, "B")
    s, events = run(s, Pass("C"), Chat("D", Room.VILLAGE, "Hm."), Pass("E"))
    assert not s.ballot and not any(isinstance(e, VotesOpened) for e in events)
    s, events = run(s, Chat("F", Room.VILLAGE, "Let us vote."))
    assert isinstance(events[-1], VotesOpened) and events[-1].by == "talk"
    assert events[-1].audience is None and view(s, "A").votes_open
    assert Vote("A", "B") in legal_actions(s, "A")
    with pytest.raises(IllegalActionError, match="no turn to pass"):
        apply(s, Pass("A"))
    with pytest.raises(IllegalActionError, match="not closed"):
        apply(s, OpenVotes())
    # the document's rules hold from here: a majority executes at once
    s, events = run(s, Vote("A", "B"), Vote("C", "B"), Vote("D", "B"), Vote("F", "B"))
    assert any(isinstance(e, Executed) and e.player == "B" for e in events)
    s, _ = run(s, Attack("E", "A"))  # the night; the next day the votes are closed again
    assert s.phase is Phase.DAY and not s.ballot


def test_the_host_may_open_the_votes_before_everyone_spoke_and_the_dead_need_not_speak():
    from maw.engine import OpenVotes, Pass
    from maw.engine.events import VotesOpened

    s = start("maw", DEAL, votes_open="talk")
    s, events = run(s, OpenVotes())
    assert events == [VotesOpened(1, "host")] and s.ballot
    s = start("maw", DEAL, votes_open="talk")
    s, _ = run(s, OpenVotes(), Vote("A", "C"), Vote("B", "C"), Vote("D", "C"), Vote("E", "C"))
    s, _ = run(s, Attack("B", "A"), Attack("E", "A"))  # C executed, A murdered
    assert s.day == 2 and not s.ballot
    s, events = run(s, Pass("B"), Pass("D"), Pass("E"), Chat("F", Room.VILLAGE, "So."))
    assert isinstance(events[-1], VotesOpened), "only the living had to speak"


def test_votes_open_talk_is_an_option_with_a_clear_error_and_changes_nothing_by_default():
    with pytest.raises(ConfigError, match="votes_open.*start, talk"):
        ruleset("maw", votes_open="later")
    s = start("maw", DEAL)
    assert s.ballot and view(s, "A").votes_open
    assert Vote("A", "B") in legal_actions(s, "A")


# ---------------------------------------------------------------- announce_votes=false


def test_silent_votes_are_the_voters_own_until_the_result_tells_who_voted_for_whom():
    from maw.engine.describe import rules_text
    from maw.engine.events import VotesRevealed

    s = start("maw", DEAL, announce_votes=False)
    s, events = run(s, Vote("A", "B"), Vote("C", "D"), Unvote("C"))
    assert [(e.voter, e.target, e.audience) for e in events if isinstance(e, VoteCast)] == [
        ("A", "B", frozenset({"A"})), ("C", "D", frozenset({"C"})),
        ("C", None, frozenset({"C"}))]
    assert view(s, "A").votes == {"A": "B"} and view(s, "D").votes == {}
    s, events = run(s, Vote("C", "B"), Vote("D", "B"), Vote("F", "B"))  # a majority
    [tally] = [e for e in events if isinstance(e, VotesRevealed)]
    assert tally.audience is None and ("A", "B") in tally.votes  # (told to all, at last)
    assert any(isinstance(e, Executed) and e.player == "B" for e in events)
    assert "one secret vote" in rules_text(ruleset("maw", announce_votes=False), 6)
    # announced, the document's way, by default; the option is MAW's alone
    s, events = run(start("maw", DEAL), Vote("A", "B"))
    assert events[0].audience is None and view(s, "D").votes == {"A": "B"}
    assert "one public vote" in rules_text(ruleset("maw"), 6)
    with pytest.raises(ConfigError, match="announce_votes"):
        ruleset("aiwolf-5", announce_votes=False)
