"""werewolf-12, AutoWerewolf's game, in the engine: the night's steps (the pack, the Seer
and the Guard, then the Witch told the victim), the Hunter's shot, the Village Idiot, the
side-elimination win and the ruleset's variants."""

from __future__ import annotations

import random

import pytest

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
from maw.engine.actions import ACTIONS, Badge, Explode, First, Run, Tear, Withdraw
from maw.engine.events import (
    BadgePassed,
    Chatted,
    Executed,
    Exploded,
    Murdered,
    NightResult,
    NoExecution,
    NoMurder,
    PhaseStarted,
    Ran,
    Revote,
    SheriffElected,
    Shot,
    Spared,
    SpeakingOrder,
)
from maw.engine.roles import GUARD, HUNTER, IDIOT, SEER, VILLAGER, WEREWOLF, WITCH
from maw.engine.state import Termination
from maw.errors import ConfigError, IllegalActionError
from maw.records.schema import recipients

Save, Poison, Shoot = (ACTIONS[a].cls for a in ("save", "poison", "shoot"))
NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]
WOLVES = NAMES[:4]
# Ann-Dan wolves, Eve-Hal villagers, Ivy the Seer, Jo the Witch, Kim the Hunter, Lu the
# Guard (role set A) or the Village Idiot (B)
DEAL = [WEREWOLF] * 4 + [VILLAGER] * 4 + [SEER, WITCH, HUNTER]


def game(role_set: str = "A", **options):
    """A game with the deal above (no sheriff and a free talk unless asked: they are
    tested alone)."""
    options.setdefault("sheriff", False)
    options.setdefault("speaking_order", False)
    rules = ruleset("werewolf-12", role_set=role_set, **options)
    return new_game(rules, NAMES, random.Random(1),
                    roles=DEAL + [GUARD if role_set == "A" else IDIOT])


STEPS = (Phase.LAST_WORDS, Phase.BADGE, Phase.CANDIDACY, Phase.CAMPAIGN, Phase.ELECTION)


def go(state, action):
    """``play``, then let the timer end the public steps that follow (last words, ...)."""
    state, events = play(state, action)
    events = list(events)
    while state.phase in STEPS:
        state, more = play(state, EndPhase())
        events += more
    return state, events


def living(state, *but: str) -> list[str]:
    return [n for n in NAMES if state.alive[state.seat[n]] and n not in but]


def night(state, victim: str | None, divine: str | None = None, guard: str | None = None):
    """The night's first step: the pack attacks ``victim``, the Seer divines, the Guard
    guards; returns the state (the Witch's step, or the day) and the events."""
    assert state.phase is Phase.NIGHT
    events: list = []
    if victim is not None:
        for wolf in WOLVES:
            if state.alive[state.seat[wolf]]:
                state, ev = play(state, Attack(wolf, victim))
                events += ev
    if state.phase is Phase.NIGHT and state.alive[state.seat["Ivy"]]:
        state, ev = play(state, Divine("Ivy", divine or living(state, "Ivy")[0]))
        events += ev
    if guard is not None:
        state, ev = play(state, Guard("Lu", guard))
        events += ev
    if state.phase is Phase.NIGHT:  # the timer, for whoever did not choose
        state, ev = go(state, EndPhase())
        events += ev
    return state, events


def to_vote(state):
    assert state.phase is Phase.DAY
    state, _ = play(state, EndPhase())
    assert state.phase is Phase.VOTE
    return state


def execute(state, target: str):
    """Every living voter votes ``target`` (``target`` itself another)."""
    state = to_vote(state)
    events: list = []
    for i, name in enumerate(NAMES):
        if state.phase is Phase.VOTE and state.alive[i] and i not in state.exposed:
            other = target if name != target else living(state, target)[0]
            state, ev = go(state, Vote(name, other))
            events += ev
    return state, events


def test_the_game_opens_at_night_and_the_witch_alone_learns_the_victim():
    state = game()
    assert (state.day, state.phase) == (0, Phase.NIGHT)
    assert any(isinstance(a, Attack) and a.target == "Bob" for a in legal_actions(state, "Ann"))
    state, events = night(state, "Eve", guard="Ivy")
    assert state.phase is Phase.WITCH
    step = [e for e in events if isinstance(e, PhaseStarted) and e.phase == "witch"]
    assert step and step[0].audience == {"Jo"}
    told = [e for e in events if isinstance(e, NightResult)]
    assert [(e.actor, e.target, e.audience) for e in told] == [("Jo", "Eve", {"Jo"})]
    assert (0, "attacked", "Eve", "") in view(state, "Jo").results
    for other in ("Eve", "Ivy", "Ann"):
        assert view(state, other).phase == "witch"  # (the view is the engine's, not sent)
        assert not any(k == "attacked" for _d, k, _t, _v in view(state, other).results)
    # the pack's night goes on: its Hideout stays open (a refusal would tell it the
    # Witch's step is on)
    state, events = play(state, Chat("Ann", Room.HIDEOUT, "did it work?"))
    assert [e.speaker for e in events if isinstance(e, Chatted)] == ["Ann"]
    assert Save("Jo", "Eve") in legal_actions(state, "Jo")
    assert Save("Jo", "Fay") not in legal_actions(state, "Jo")  # only the victim
    assert legal_actions(state, "Ivy") == ()


@pytest.mark.parametrize("kills", [True, False])
def test_a_guard_and_a_save_on_the_same_victim(kills):
    state = game(same_guard_same_save_kills=kills)
    state, _ = night(state, "Eve", guard="Eve")
    state, events = go(state, Save("Jo", "Eve"))
    assert state.phase is Phase.DAY and state.day == 1
    assert state.alive[state.seat["Eve"]] is not kills
    assert any(isinstance(e, Murdered) for e in events) is kills


def test_a_save_alone_saves_and_a_guard_alone_guards():
    state, _ = night(game(), "Eve", guard="Fay")
    state, events = go(state, Save("Jo", "Eve"))
    assert all(state.alive) and any(isinstance(e, NoMurder) for e in events)
    state, _ = night(game(), "Eve", guard="Eve")
    state, events = go(state, EndPhase())  # the Witch keeps her potions
    assert all(state.alive)


def test_the_witch_uses_one_potion_a_night_and_each_once_a_game():
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, Save("Jo", "Eve"))
    assert state.phase is Phase.DAY  # one potion: her step ends with it
    state, _ = execute(state, "Gus")
    state, _ = night(state, "Fay", guard="Eve")
    acts = legal_actions(state, "Jo")
    assert acts and not any(isinstance(a, Save) for a in acts)  # the save is spent
    state, events = go(state, Poison("Jo", "Ann"))
    assert not state.alive[state.seat["Ann"]] and not state.alive[state.seat["Fay"]]
    state, _ = execute(state, "Hal")
    state, _ = night(state, "Ivy", guard="Kim")
    assert state.phase is Phase.DAY  # no potion left: no Witch's step, Ivy dies
    assert not state.alive[state.seat["Ivy"]]


def test_a_poisoning_looks_like_a_murder_to_all_but_the_witch():
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, Poison("Jo", "Bob"))
    assert {(n, c) for _d, n, c in view(state, "Jo").deaths} == {("Eve", "murdered"),
                                                                 ("Bob", "poisoned")}
    for other in ("Ann", "Ivy", "Kim"):
        assert {(n, c) for _d, n, c in view(state, other).deaths} == {
            ("Eve", "murdered"), ("Bob", "murdered")}


@pytest.mark.parametrize("allowed", [True, False])
def test_the_witch_saves_herself_on_the_first_night_only_by_the_variant(allowed):
    state, _ = night(game(witch_self_heal_n1=allowed), "Jo", guard="Fay")
    assert state.phase is Phase.WITCH
    assert (Save("Jo", "Jo") in legal_actions(state, "Jo")) is allowed
    state, _ = go(state, EndPhase())
    if allowed:  # never on a later night
        state = game(witch_self_heal_n1=True)
        state, _ = night(state, "Eve", guard="Fay")
        state, _ = go(state, EndPhase())
        state, _ = execute(state, "Gus")
        state, _ = night(state, "Jo", guard="Kim")
        assert state.phase is Phase.WITCH
        assert Save("Jo", "Jo") not in legal_actions(state, "Jo")


def test_a_murdered_hunter_shoots_in_a_step_of_its_own():
    state, _ = night(game(), "Kim", guard="Fay")
    state, events = go(state, EndPhase())  # the Witch lets it be
    assert state.phase is Phase.HUNT and not state.alive[state.seat["Kim"]]
    step = [e for e in events if isinstance(e, PhaseStarted) and e.phase == "hunt"]
    assert step and step[0].audience == {"Kim"}
    acts = legal_actions(state, "Kim")
    assert Shoot("Kim", "Ann") in acts and all(isinstance(a, Shoot) for a in acts)
    assert Shoot("Kim", "Kim") not in acts
    with pytest.raises(IllegalActionError, match="Eve may not shoot now"):
        play(state, Shoot("Eve", "Ann"))
    state, events = go(state, Shoot("Kim", "Ann"))
    shot = [e for e in events if isinstance(e, Shot)]
    assert [(e.hunter, e.target, e.audience) for e in shot] == [("Kim", "Ann", None)]
    assert not state.alive[state.seat["Ann"]]
    assert (state.day, state.phase) == (1, Phase.DAY)
    assert view(state, "Eve").known_roles["Kim"] == "Hunter"  # the shot showed it
    assert (1, "Ann", "shot") in view(state, "Eve").deaths or \
        (0, "Ann", "shot") in view(state, "Eve").deaths


def test_a_poisoned_hunter_does_not_shoot():
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, Poison("Jo", "Kim"))
    assert (state.day, state.phase) == (1, Phase.DAY)  # straight to the day: no shot
    assert legal_actions(state, "Kim") == ()


def test_an_executed_hunter_shoots_then_the_night_comes():
    state, _ = night(game(), "Eve", guard="Fay")
    state, _ = go(state, EndPhase())
    state, _ = execute(state, "Kim")
    assert state.phase is Phase.HUNT and state.day == 1
    state, _ = go(state, EndPhase())  # the timer: no shot
    assert (state.day, state.phase) == (1, Phase.NIGHT)
    assert sum(state.alive) == 10


def vote_all(state, pick):
    """Every living voter votes ``pick(name)`` (``None``: does not vote)."""
    events: list = []
    for i, name in enumerate(NAMES):
        target = pick(name)
        if state.phase is Phase.VOTE and state.alive[i] and target is not None:
            state, ev = go(state, Vote(name, target))
            events += ev
    return state, events


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


def test_the_village_idiot_survives_its_first_execution_and_votes_no_more():
    state, _ = night(game("B"), "Eve")
    state, _ = go(state, EndPhase())
    state, events = execute(state, "Lu")
    spared = [e for e in events if isinstance(e, Spared)]
    assert [(e.player, e.role, e.audience) for e in spared] == [("Lu", "Idiot", None)]
    assert state.alive[state.seat["Lu"]] and state.phase is Phase.NIGHT
    assert view(state, "Ann").known_roles["Lu"] == "Idiot"  # everyone knows now
    state, _ = night(state, "Fay")
    state, _ = go(state, EndPhase())
    state = to_vote(state)
    assert not any(isinstance(a, Vote) for a in legal_actions(state, "Lu"))
    with pytest.raises(IllegalActionError, match="may no longer vote"):
        play(state, Vote("Lu", "Ann"))
    # executed a second time, it dies (the vote counts without it)
    for name in NAMES:
        i = state.seat[name]
        if state.phase is Phase.VOTE and state.alive[i] and name != "Lu":
            state, _ = play(state, Vote(name, "Lu"))
    assert not state.alive[state.seat["Lu"]]


def test_the_guard_never_guards_the_same_player_two_nights_running():
    state, _ = night(game(), "Eve", guard="Ivy")
    state, _ = go(state, EndPhase())
    state, _ = execute(state, "Gus")
    assert Guard("Lu", "Ivy") not in legal_actions(state, "Lu")
    assert Guard("Lu", "Fay") in legal_actions(state, "Lu")
    assert Guard("Lu", "Lu") not in legal_actions(state, "Lu")
    assert Guard("Lu", "Lu") in legal_actions(game(guard_self_guard=True), "Lu")
    # guard_repeat=on: the same player again
    state, _ = night(game(guard_repeat=True), "Eve", guard="Ivy")
    state, _ = go(state, EndPhase())
    state, _ = execute(state, "Gus")
    assert Guard("Lu", "Ivy") in legal_actions(state, "Lu")


def test_the_werewolves_win_when_a_whole_side_is_dead():
    # the four plain villagers die: the werewolves win with the Seer, Witch, Hunter alive
    state = game()
    for victim, executed in (("Eve", "Fay"), ("Gus", "Hal")):
        state, _ = night(state, victim, guard="Ivy" if victim == "Eve" else "Jo")
        state, _ = go(state, EndPhase())
        if state.phase is Phase.OVER:
            break
        state, _ = execute(state, executed)
    assert state.phase is Phase.OVER and state.termination is Termination.SIDE_ELIMINATED
    assert state.winner.value == "werewolves"
    # the same deaths under total elimination: the game goes on
    state = game(win="elimination")
    for victim, executed in (("Eve", "Fay"), ("Gus", "Hal")):
        state, _ = night(state, victim, guard="Ivy" if victim == "Eve" else "Jo")
        state, _ = go(state, EndPhase())
        state, _ = execute(state, executed)
    assert state.phase is not Phase.OVER


def test_the_pack_may_knife_one_of_its_own():
    state, _ = night(game(), "Bob", guard="Eve")
    state, _ = go(state, EndPhase())
    assert not state.alive[state.seat["Bob"]]
    state = game(self_knife=False)
    assert not any(isinstance(a, Attack) and a.target == "Bob"
                   for a in legal_actions(state, "Ann"))


def test_the_ruleset_and_its_options():
    rules = ruleset("werewolf-12", role_set="b")
    assert sorted(r.name for r in rules.roles_for(12)).count("Idiot") == 1
    assert "Guard" not in [r.name for r in rules.roles_for(12)]
    with pytest.raises(ConfigError, match="role_set"):
        ruleset("werewolf-12", role_set="C")
    with pytest.raises(ConfigError, match="option of the werewolf-12 ruleset"):
        ruleset("maw", witch_self_heal_n1=True)
    with pytest.raises(ConfigError, match="needs 12 players"):
        rules.roles_for(9)
    from maw.engine.describe import rules_text

    text = rules_text(ruleset("werewolf-12"), 12).lower()
    for word in ("witch", "hunter", "guard"):
        assert word in text, text


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("role_set,seed", [("A", 3), ("B", 5)])
async def test_an_xmpp_game_keeps_the_witchs_and_the_hunters_steps_to_themselves(
        server, tmp_path, role_set, seed):
    import copy
    import json

    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.records.audit import audit_records

    rules = ruleset("werewolf-12", role_set=role_set)
    config = GameConfig(players=12, rules=rules, seed=seed, day_seconds=6, night_seconds=3,
                        early_end=True, log_dir=tmp_path)
    result = await run_game(config, default_seats(12), server, timeout=240)
    assert result.outcomes[0].winner is not None
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    audit = audit_records(log)
    assert audit.ok, audit.violations[:3]
    # the GameMaster's FSM went from state to state as the phases came, never spinning
    moves = sum(1 for r in log if r["kind"] == "state" and r.get("agent") == "GameMaster")
    phases = sum(1 for r in log if r["kind"] == "event" and r["event"] == "PhaseStarted")
    assert moves <= 4 * phases + 10, (moves, phases)
    jid = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    roles = next(r for r in log if r["kind"] == "round")["roles"]
    witch = next(n for n, role in roles.items() if role == "Witch")
    events = [(r["event"], r["data"]) for r in log if r["kind"] == "event"]
    steps = [d for e, d in events if e == "PhaseStarted" and d["phase"] in ("witch", "hunt")]
    assert any(d["phase"] == "witch" and d["audience"] == [witch] for d in steps)
    # the Witch acted over the wire (a save or a poison), and each step's phase_change
    # reached its one player
    assert any(r["kind"] == "action" and r["action"] in ("Save", "Poison") for r in log)
    for phase in ("witch", "hunt"):
        told = {to for r in log if r["kind"] == "msg" and r["type"] == "phase_change"
                and r["body"]["new_phase"] == phase for to in recipients(r)}
        allowed = {jid[n] for d in steps if d["phase"] == phase for n in d["audience"]}
        assert told <= allowed, (phase, told - allowed)
    if role_set == "A":
        assert any(e == "Guarded" for e, _ in events)
    # the audit finds a Witch's step told to a villager
    i, msg = next((i, r) for i, r in enumerate(log) if r["kind"] == "msg" and
                  r["type"] == "phase_change" and r["body"]["new_phase"] == "witch")
    villager = next(n for n, role in roles.items() if role == "Villager")
    leak = copy.deepcopy(log)
    leak.insert(i + 1, {**msg, "to": jid[villager]})
    found = audit_records(leak)
    assert not found.ok and "phase_change of a step it may not know of" in str(
        found.violations[0])


# ---------------------------------------------------------------- the public steps

def to_candidacy(**options):
    """A game with a sheriff: night 0 kills Eve, who says her last words; then day 1's
    candidacy."""
    state = game(sheriff=True, **options)
    for wolf in WOLVES:
        state, _ = play(state, Attack(wolf, "Eve"))
    state, _ = play(state, Divine("Ivy", "Ann"))
    state, _ = play(state, Guard("Lu", "Fay"))
    state, _ = play(state, EndPhase())  # the Witch lets it be
    assert state.phase is Phase.LAST_WORDS
    return state


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


def elect(state, sheriff: str):
    """Day 1's election with ``sheriff`` the only candidate (unopposed)."""
    state, _ = play(state, EndPhase())  # last words
    state, _ = play(state, Run(sheriff))
    state, _ = play(state, EndPhase())
    state, events = play(state, Over(sheriff, Room.VILLAGE))
    assert state.sheriff == state.seat[sheriff]
    assert state.phase is (Phase.ORDER if state.rules.speaking_order else Phase.DAY)
    return state


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

    for phase in Phase:
        runners = [name for name, cls in PHASE_STATES.items() if phase in cls.parts]
        assert len(runners) == (0 if phase is Phase.OVER else 1), (phase, runners)


def rule_learns(state, name: str):
    """A rule decider for ``name`` that has seen ``state``'s view."""
    from maw.policies.rule import RuleDecider

    d = RuleDecider(name, random.Random(0))
    d.beliefs(view(state, name))
    return d


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
