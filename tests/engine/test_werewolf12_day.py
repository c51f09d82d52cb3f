"""werewolf-12's day in the engine: last words, the sheriff's election and badge, the
day's turns, explosions, a tie's runoff, and the rule players' reading of it all."""

from __future__ import annotations

import random

import pytest
from werewolf12_game import (
    NAMES,
    WOLVES,
    Poison,
    Shoot,
    elect,
    execute,
    game,
    go,
    living,
    night,
    rule_learns,
    to_candidacy,
    to_vote,
    vote_all,
)

from maw.engine import (
    Attack,
    Chat,
    Divine,
    EndPhase,
    Guard,
    Over,
    Phase,
    Room,
    Vote,
    legal_actions,
    new_game,
    play,
    ruleset,
    view,
)
from maw.engine.actions import Badge, Explode, First, Run, Tear, Withdraw
from maw.engine.events import (
    BadgePassed,
    Chatted,
    Executed,
    Exploded,
    NoExecution,
    Ran,
    Revote,
    SheriffElected,
    SpeakingOrder,
)
from maw.engine.roles import VILLAGER, WEREWOLF
from maw.errors import IllegalActionError


def test_a_tie_gets_one_runoff_between_the_tied_and_a_second_tie_executes_nobody():
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, EndPhase())
    state = to_vote(state)
    # Ann 5, Bob 5, Cid 1 (ten living voters and Eve dead)
    first = {"Bob": "Cid", **dict.fromkeys(["Cid", "Dan", "Fay", "Gus", "Hal"], "Ann"),
             **dict.fromkeys(["Ann", "Ivy", "Jo", "Kim", "Lu"], "Bob")}
    state, events = vote_all(state, first.get)
    assert [(e.tied, e.runoff) for e in events if isinstance(e, Revote)] == [(("Ann", "Bob"), True)]
    assert (state.phase, state.vote_round) == (Phase.VOTE, 1)
    assert {a.target for a in legal_actions(state, "Fay")} == {"Ann", "Bob"}
    assert {a.target for a in legal_actions(state, "Ann")} == {"Bob"}  # (not herself)
    with pytest.raises(IllegalActionError, match="not in the runoff"):
        play(state, Vote("Fay", "Cid"))
    # five and five again (Cid lets the timer run): nobody is executed
    second = {**dict.fromkeys(["Cid", "Dan", "Fay", "Gus", "Bob"], "Ann"),
              **dict.fromkeys(["Ann", "Ivy", "Jo", "Kim", "Lu"], "Bob")}
    state, events = vote_all(state, second.get)
    state, ev = go(state, EndPhase())
    events += ev
    assert [(e.reason, e.tied) for e in events if isinstance(e, NoExecution)] == [
        ("tie", ("Ann", "Bob"))]
    assert (state.day, state.phase) == (1, Phase.NIGHT) and state.alive.count(False) == 1


def test_a_runoff_that_decides_executes_and_the_sheriff_weighs_in_it():
    state = elect(to_candidacy(), "Ivy")
    state = to_vote(state)
    # Ann 4, Bob 4, Cid 2.5 (the sheriff Ivy's 1.5 and Ann's vote), Dan 1
    first = {"Ann": "Cid", "Ivy": "Cid", "Bob": "Dan",
             **dict.fromkeys(["Fay", "Gus", "Hal", "Jo"], "Ann"),
             **dict.fromkeys(["Cid", "Dan", "Kim", "Lu"], "Bob")}
    state, events = vote_all(state, first.get)
    assert [e.tied for e in events if isinstance(e, Revote)] == [("Ann", "Bob")]
    # the runoff: five against five, and the sheriff's half vote decides (Lu lets the
    # timer run)
    second = {**dict.fromkeys(["Ivy", "Fay", "Gus", "Hal", "Bob"], "Ann"),
              **dict.fromkeys(["Cid", "Dan", "Jo", "Kim", "Ann"], "Bob")}
    state, events = vote_all(state, second.get)
    state, ev = go(state, EndPhase())
    executed = [(e.player, e.votes) for e in events + ev if isinstance(e, Executed)]
    assert executed == [("Ann", 5.5)]


def test_a_rule_player_whose_suspect_is_not_in_the_runoff_votes_between_the_tied():
    """It stood by the vote it had announced, which the runoff's ballot leaves out: it
    listened, and a runoff of 12 players was decided by 5 (a werewolf-12 game over XMPP)."""
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, EndPhase())
    state = to_vote(state)
    first = {"Bob": "Cid", **dict.fromkeys(["Cid", "Dan", "Fay", "Gus", "Hal"], "Ann"),
             **dict.fromkeys(["Ann", "Ivy", "Jo", "Kim", "Lu"], "Bob")}
    state, _ = vote_all(state, first.get)
    assert state.runoff
    d = rule_learns(state, "Gus")
    d.wolf.add("Cid")  # its prime suspect, for whom it had said it votes: not in the runoff
    d.said = (state.day, "Cid")
    action = d.decide(view(state, "Gus"), legal_actions(state, "Gus"))
    assert isinstance(action, Vote) and action.target in ("Ann", "Bob")


def test_without_the_runoff_a_tie_executes_nobody_at_once():
    state, _ = night(game(tie="none"), "Eve", guard="Fay")
    state, _ = go(state, EndPhase())
    state = to_vote(state)
    first = {"Bob": "Cid", **dict.fromkeys(["Cid", "Dan", "Fay", "Gus", "Hal"], "Ann"),
             **dict.fromkeys(["Ann", "Ivy", "Jo", "Kim", "Lu"], "Bob")}
    state, events = vote_all(state, first.get)
    assert not any(isinstance(e, Revote) for e in events)
    assert [e.tied for e in events if isinstance(e, NoExecution)] == [("Ann", "Bob")]
    assert state.phase is Phase.NIGHT


def test_the_first_nights_dead_say_last_words_and_later_nights_dead_do_not():
    state = game()
    for wolf in WOLVES:
        state, _ = play(state, Attack(wolf, "Eve"))
    state, _ = play(state, Divine("Ivy", "Ann"))
    state, _ = play(state, Guard("Lu", "Fay"))
    state, _ = play(state, EndPhase())  # the Witch lets it be
    assert state.phase is Phase.LAST_WORDS and state.speakers == (4,)
    assert legal_actions(state, "Eve") == (Chat("Eve", Room.VILLAGE), Over("Eve", Room.VILLAGE))
    assert legal_actions(state, "Fay") == ()  # the living listen
    assert view(state, "Eve").room == "Village" and view(state, "Fay").room is None
    state, events = play(state, Chat("Eve", Room.VILLAGE, "It was Ann, I am sure."))
    assert [e.speaker for e in events if isinstance(e, Chatted)] == ["Eve"]
    assert (state.day, state.phase) == (1, Phase.DAY)  # she spoke: on to the day
    with pytest.raises(IllegalActionError, match="Eve is dead"):
        play(state, Chat("Eve", Room.VILLAGE, "and another thing"))
    # an executed player speaks; the second night's victim does not
    state, _ = execute(state, "Gus")  # (``execute`` lets the timer end the last words)
    state, _ = night(state, "Fay", guard="Hal")
    assert state.phase is Phase.WITCH
    state, _ = play(state, EndPhase())
    assert (state.day, state.phase) == (2, Phase.DAY)


def test_the_sheriff_is_elected_by_those_who_did_not_stand():
    state = to_candidacy()
    state, _ = play(state, EndPhase())  # Eve's last words: she says nothing
    assert (state.day, state.phase) == (1, Phase.CANDIDACY)
    assert Run("Ivy") in legal_actions(state, "Ivy") and legal_actions(state, "Eve") == ()
    for name in ("Ivy", "Ann", "Bob"):
        state, events = play(state, Run(name))
        assert [(e.player, e.audience) for e in events if isinstance(e, Ran)] == [(name, None)]
    state, _ = play(state, EndPhase())
    assert state.phase is Phase.CAMPAIGN
    assert legal_actions(state, "Fay") == ()  # the others listen
    state, _ = play(state, Withdraw("Bob"))
    state, _ = play(state, Chat("Ivy", Room.VILLAGE, "I am the Seer: Ann is a werewolf."))
    with pytest.raises(IllegalActionError):
        play(state, Chat("Ivy", Room.VILLAGE, "and again"))  # one speech
    state, _ = play(state, Chat("Ann", Room.VILLAGE, "Ivy lies."))
    assert state.phase is Phase.ELECTION  # every candidate has spoken
    assert legal_actions(state, "Bob") == ()  # he stood: he does not vote
    assert set(legal_actions(state, "Fay")) == {Vote("Fay", "Ivy"), Vote("Fay", "Ann")}
    events: list = []
    for name in ("Cid", "Dan", "Fay", "Gus", "Hal", "Jo", "Kim", "Lu"):
        state, ev = play(state, Vote(name, "Ann" if name in ("Cid", "Dan") else "Ivy"))
        events += ev
    elected = [e for e in events if isinstance(e, SheriffElected)]
    assert [(e.sheriff, e.audience) for e in elected] == [("Ivy", None)]
    assert state.sheriff == state.seat["Ivy"] and state.phase is Phase.DAY


@pytest.mark.parametrize("how", ["tie", "all run", "nobody runs"])
def test_no_sheriff_on_a_tie_or_when_all_or_none_stand(how):
    state = to_candidacy()
    state, _ = play(state, EndPhase())
    alive = living(state)
    runners = {"tie": ["Ivy", "Ann"], "all run": alive, "nobody runs": []}[how]
    events: list = []
    for name in runners:
        state, ev = play(state, Run(name))
        events += ev
    if state.phase is Phase.CANDIDACY:
        state, ev = play(state, EndPhase())
        events += ev
    if how == "tie":
        state, _ = play(state, EndPhase())  # the speeches' timer
        voters = [n for n in alive if n not in runners]
        for i, name in enumerate(voters[:8]):
            state, ev = play(state, Vote(name, runners[i % 2]))
            events += ev
        state, ev = play(state, EndPhase())
        events += ev
    elected = [e for e in events if isinstance(e, SheriffElected)]
    assert [e.sheriff for e in elected] == [""] and state.sheriff == -1
    assert state.phase is Phase.DAY


def test_the_sheriffs_vote_counts_one_and_a_half():
    state = elect(to_candidacy(), "Ivy")
    state = to_vote(state)
    events: list = []
    # Ann: the sheriff and four (5.5); Bob: five (5); without the badge, a tie
    ann = ["Ivy", "Fay", "Gus", "Hal", "Jo"]
    for name in living(state):
        target = "Ann" if name in ann else "Cid" if name == "Bob" else "Bob"
        state, ev = play(state, Vote(name, target))
        events += ev
    executed = [e for e in events if isinstance(e, Executed)]
    assert [(e.player, e.votes) for e in executed] == [("Ann", 5.5)]
    # the transcript counts as the rules do: the tally says 5.5, as the execution does
    from maw.protocol.render import event_text

    lines = [line for e in events if (line := event_text(e))]
    assert "   Day 1, the votes (the sheriff Ivy's counts 1.5): Ann 5.5 (Fay, Gus, Hal, Ivy, " \
           "Jo); Bob 5 (Ann, Cid, Dan, Kim, Lu); Cid 1 (Bob)" in lines, lines
    assert "** Ann is executed (5.5 votes)" in lines


@pytest.mark.parametrize("choice", ["pass", "tear", "timer"])
def test_a_dead_sheriff_passes_the_badge_or_tears_it(choice):
    state = elect(to_candidacy(), "Ivy")
    state, _ = execute(state, "Gus")
    state, _ = night(state, "Ivy", guard="Hal")
    state, _ = play(state, EndPhase())  # the Witch lets it be
    assert state.phase is Phase.BADGE and not state.alive[state.seat["Ivy"]]
    acts = legal_actions(state, "Ivy")
    assert Tear("Ivy") in acts and Badge("Ivy", "Fay") in acts and Badge("Ivy", "Gus") not in acts
    action = {"pass": Badge("Ivy", "Fay"), "tear": Tear("Ivy"), "timer": EndPhase()}[choice]
    state, events = play(state, action)
    passed = [e for e in events if isinstance(e, BadgePassed)]
    assert [(e.sheriff, e.target) for e in passed] == [("Ivy", "Fay" if choice == "pass" else "")]
    assert state.sheriff == (state.seat["Fay"] if choice == "pass" else -1)
    assert state.phase is Phase.DAY and state.day == 2


def test_a_werewolf_explodes_and_the_day_ends_with_no_vote():
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, EndPhase())
    assert state.phase is Phase.DAY
    assert Explode("Ann") in legal_actions(state, "Ann")
    assert Explode("Fay") not in legal_actions(state, "Fay")
    with pytest.raises(IllegalActionError, match="Fay is not a werewolf"):
        play(state, Explode("Fay"))
    state, events = play(state, Explode("Ann"))
    assert [(e.player, e.audience) for e in events if isinstance(e, Exploded)] == [("Ann", None)]
    assert not state.alive[state.seat["Ann"]]
    assert (state.day, state.phase) == (1, Phase.NIGHT)  # no vote, no last words
    assert view(state, "Fay").known_roles["Ann"] == "Werewolf"  # everyone saw it
    off = game(self_explode=False)
    off, _ = night(off, "Eve", guard="Fay")
    off, _ = go(off, EndPhase())
    assert Explode("Ann") not in legal_actions(off, "Ann")
    with pytest.raises(IllegalActionError, match="self_explode=off"):
        play(off, Explode("Ann"))


def test_the_days_speeches_go_round_from_the_side_the_sheriff_chooses():
    state = elect(to_candidacy(speaking_order=True), "Ivy")
    # Ivy (seat 8) chooses a neighbour: Hal (7) or Jo (9); nobody else acts
    assert set(legal_actions(state, "Ivy")) == {First("Ivy", "Hal"), First("Ivy", "Jo")}
    assert legal_actions(state, "Fay") == ()
    state, events = play(state, First("Ivy", "Hal"))
    away = ["Hal", "Gus", "Fay", "Dan", "Cid", "Bob", "Ann", "Lu", "Kim", "Jo"]  # (Eve died)
    told = [e for e in events if isinstance(e, SpeakingOrder)]
    assert [(e.order, e.audience) for e in told] == [((*away, "Ivy"), None)]
    assert state.phase is Phase.DAY
    # one speech each, in turn: only the speaker may talk (a werewolf may still explode)
    for i, name in enumerate([*away, "Ivy"]):
        for other in ("Fay", "Kim", "Ann"):
            if other != name:  # (a werewolf explodes in its own turn only)
                assert legal_actions(state, other) == ()
        if name == "Ann":
            assert Explode("Ann") in legal_actions(state, "Ann")
        with pytest.raises(IllegalActionError):
            play(state, Chat("Gus" if name != "Gus" else "Fay", Room.VILLAGE, "out of turn"))
        action = Over(name, Room.VILLAGE) if i % 3 == 2 else Chat(name, Room.VILLAGE, "hm")
        state, _ = play(state, action)
    assert state.phase is Phase.VOTE  # everyone has had a turn


def test_a_speaker_who_listens_gives_up_its_turn_and_the_next_one_speaks():
    """A "listen" in one's turn is that turn given up (an Over), not the day's talk
    ended: the host ends a phase early once everyone who may act is idle, and in a day of
    turns the speaker alone may act (a game on the embedded model lost eight speeches of
    nine so, to one model's "listen")."""
    from maw.engine import listen_as

    state = elect(to_candidacy(speaking_order=True), "Ivy")
    state, _ = play(state, First("Ivy", "Hal"))
    assert listen_as(state, "Hal") == Over("Hal", Room.VILLAGE)
    assert listen_as(state, "Gus") is None  # (not its turn: no move)
    state, events = play(state, listen_as(state, "Hal"))
    assert state.phase is Phase.DAY and legal_actions(state, "Gus")[:1] == (
        Chat("Gus", Room.VILLAGE),)
    # every speaker listening: each turn goes in order, then the votes
    while state.phase is Phase.DAY:
        speaker = state.names[state.order[state.turn]]
        state, _ = play(state, listen_as(state, speaker))
    assert state.phase is Phase.VOTE
    assert listen_as(state, "Gus") is None  # (a listen at the vote is no vote)


def test_a_headless_day_of_turns_goes_on_past_a_speaker_with_nothing_to_say():
    """``maw.simulate``: a decider that answers nothing in its turn (a model's
    "listen", a learned player's wait) passes its turn; the others still speak."""
    from maw.engine.events import Chatted, Overed, PhaseStarted, SpeakingOrder
    from maw.policies.base import Decider
    from maw.simulate import play_game

    class Quiet(Decider):  # the rule player, but silent in the day's turns
        def __init__(self, player, rng):
            from maw.policies.base import make_decider
            super().__init__(player, rng)
            self.rule = make_decider("rule", player, rng)

        def observe(self, event):
            self.rule.observe(event)

        def decide(self, view, legal):
            if any(type(a) is Over for a in legal) and view.phase == "day":
                return None
            return self.rule.decide(view, legal)

    names = [f"P{i + 1:02d}" for i in range(12)]
    events: list = []
    quiet = names[0]
    policy = {n: (Quiet if n == quiet else "rule") for n in names}
    play_game(ruleset("werewolf-12"), names, policy, seed=1, events=events)
    turns = 0
    for k, e in enumerate(events):
        if type(e) is not SpeakingOrder or quiet not in e.order:
            continue
        after = e.order[e.order.index(quiet) + 1:]
        heard = set()
        for later in events[k + 1:]:
            if type(later) is PhaseStarted:
                break
            if type(later) in (Chatted, Overed):
                heard.add(getattr(later, "speaker", None) or getattr(later, "player", None))
        assert set(after) <= heard, (e.day, sorted(set(after) - heard))
        turns += 1
    assert turns >= 1


@pytest.mark.parametrize("sheriff", [True, False])
def test_the_speaking_order_by_default(sheriff):
    state = to_candidacy(speaking_order=True)
    if sheriff:
        state = elect(state, "Ivy")
        state, events = play(state, EndPhase())  # the sheriff's timer: from its left
        expected = ("Jo", "Kim", "Lu", "Ann", "Bob", "Cid", "Dan", "Fay", "Gus", "Hal", "Ivy")
    else:  # no sheriff: from the seat after the last death (Eve's)
        state, _ = play(state, EndPhase())  # last words
        state, events = play(state, EndPhase())  # nobody stands
        expected = ("Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu", "Ann", "Bob", "Cid", "Dan")
    assert [e.order for e in events if isinstance(e, SpeakingOrder)] == [expected]
    assert state.phase is Phase.DAY and state.order == tuple(state.seat[n] for n in expected)


def test_every_phase_is_run_by_exactly_one_gamemaster_state():
    """A phase no FSM state ran spun the GameMaster between a count and a phase state
    (4 GB of log in 18 minutes of an LLM game, at the sheriff's speaking order)."""
    from maw.agents.gamemaster_fsm import PHASE_STATES

    shipped = set(Phase)
    own = Phase.register("a_step_of_a_shape_for_this_test")
    try:
        for phase in [*shipped, own]:
            runners = [name for name, cls in PHASE_STATES.items() if cls.runs(phase)]
            assert len(runners) == (0 if phase is Phase.OVER else 1), (phase, runners)
            # (a shape's own phase is the generic state's; the shipped ones are named)
            assert (runners == ["ShapeStep"]) == (phase not in shipped), (phase, runners)
    finally:
        Phase._all.pop(own.value)  # (the other tests of this process know no such phase)


def test_the_rule_players_beliefs_take_the_twelve_player_events_in():
    # of a night's two dead, one was poisoned and may be a werewolf: neither known human
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, Poison("Jo", "Bob"))
    d = rule_learns(state, "Gus")
    assert "Bob" not in d.human and "Eve" not in d.human
    # a night's only dead is taken for the pack's victim
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, EndPhase())
    assert "Eve" in rule_learns(state, "Gus").human
    # (without a Witch or a knife a night's victim is certainly human, as before)
    maw = new_game(ruleset("maw"), NAMES[:6], random.Random(1),
                   roles=[WEREWOLF, WEREWOLF, VILLAGER, VILLAGER, VILLAGER, VILLAGER])
    while maw.phase is not Phase.NIGHT:  # a day without a vote
        maw, _ = play(maw, EndPhase())
    for wolf in ("Ann", "Bob"):
        maw, _ = play(maw, Attack(wolf, "Eve"))
    assert "Eve" in rule_learns(maw, "Fay").human
    # a Hunter's shot is its accusation; the Hunter itself is known human
    state, _ = night(game(), "Kim", guard="Fay")
    state, _ = go(state, EndPhase())
    state, _ = go(state, Shoot("Kim", "Gus"))
    d = rule_learns(state, "Eve")
    assert ("Kim", "Gus") in d.accusations and "Kim" in d.human
    # a badge passed on is the dead sheriff's trust in its heir
    state = elect(to_candidacy(), "Ivy")
    d = rule_learns(state, "Eve")
    assert d.sheriff == "Ivy"
    state, _ = execute(state, "Gus")
    state, _ = night(state, "Ivy", guard="Hal")
    state, _ = play(state, EndPhase())
    state, _ = play(state, Badge("Ivy", "Fay"))
    d.beliefs(view(state, "Eve"))
    assert ("Ivy", "Fay") in d.defences and d.sheriff == "Fay"


@pytest.mark.parametrize("seed", range(4))
def test_a_headless_game_hears_every_speaker_of_a_day_spoken_in_turns(seed):
    """``maw.simulate`` gives each speaker's turn its own rounds: once it let a day's talk
    end after three speakers (its rounds were the phase's), and werewolf-12 played headless
    (benchmarks, bench, training's evaluation) was a day of three speeches."""
    from maw.engine import ruleset
    from maw.engine.actions import Room
    from maw.engine.events import Chatted, Overed, PhaseStarted, SpeakingOrder
    from maw.simulate import play_game

    events: list = []
    play_game(ruleset("werewolf-12"), [f"P{i + 1:02d}" for i in range(12)], "rule", seed=seed,
              events=events)
    days = 0
    for k, e in enumerate(events):
        if type(e) is not SpeakingOrder:
            continue
        heard: set[str] = set()
        for later in events[k + 1:]:
            if type(later) is PhaseStarted:
                break
            if type(later) is Chatted and later.room is Room.VILLAGE:
                heard.add(later.speaker)
            elif type(later) is Overed and later.room is Room.VILLAGE:
                heard.add(later.player)
        assert heard == set(e.order), (e.day, sorted(set(e.order) - heard))  # (the living)
        days += 1
    assert days >= 1
