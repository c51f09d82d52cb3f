"""werewolf-12, AutoWerewolf's game, in the engine: the night's steps (the pack, the Seer
and the Guard, then the Witch told the victim), the Hunter's shot, the Village Idiot, the
side-elimination win and the ruleset's variants (its day: tests/engine/test_werewolf12_day.py)."""

from __future__ import annotations

import dataclasses

import pytest
from werewolf12_game import (
    NAMES,
    Poison,
    Save,
    Shoot,
    execute,
    game,
    go,
    night,
    to_vote,
)

from maw.engine import (
    Attack,
    Chat,
    EndPhase,
    Guard,
    Over,
    Phase,
    Room,
    Vote,
    legal_actions,
    play,
    ruleset,
    view,
)
from maw.engine.events import (
    Chatted,
    Murdered,
    NightResult,
    NoMurder,
    PhaseStarted,
    Shot,
    Spared,
)
from maw.engine.state import Termination
from maw.errors import ConfigError, IllegalActionError
from maw.records.schema import recipients


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


class QuietInTurn:
    """The rule player, but with nothing to say in the day's turns: it listens."""

    needs_view, asynchronous = True, False

    def __init__(self, player, rng):
        from maw.policies.base import make_decider

        self.player, self.rule = player, make_decider("rule", player, rng)

    def __getattr__(self, name):  # (its beliefs, its rule layer: the rule player's)
        return getattr(self.rule, name)

    def decide(self, view, legal):
        if view.phase == "day" and any(type(a) is Over for a in legal):
            return None
        return self.rule.decide(view, legal)


def _phase_of(log: list, k: int) -> str:
    """The phase the log's record ``k`` falls in."""
    return next(r["data"]["phase"] for r in reversed(log[:k])
                if r["kind"] == "event" and r["event"] == "PhaseStarted")


def _ended_by(log: list, k: int, end: int) -> bool:
    """Did the move logged at ``k`` end its phase (no other move before the next one)?"""
    return not any(r["kind"] == "action" for r in log[k + 1:end])


class LateTalker(QuietInTurn):
    """The rule player, but a wolf whose attack is in says one more line in the Hideout
    (its last, under ``whispers_per_day``)."""

    def decide(self, view, legal):
        chat = next((a for a in legal if type(a) is Chat and a.room is Room.HIDEOUT), None)
        if chat is not None and not any(type(a) is Attack for a in legal):
            return Chat(chat.actor, Room.HIDEOUT, "That is settled, then.")
        return self.rule.decide(view, legal)


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_wolf_that_talks_on_through_the_witchs_step_is_not_told_of_it(
        server, tmp_path):
    """A wolf's last line of the night, said while the Witch's step is on, changes what it
    may do: its new options must not come in a ``phase_change``, which names the step."""
    import json

    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.policies.base import register_decider
    from maw.records.audit import audit_records

    register_decider("late-talker-for-test", LateTalker)  # type: ignore[arg-type]
    rules = ruleset("werewolf-12", whispers_per_day=2)
    config = GameConfig(players=12, rules=rules, seed=3, day_seconds=6, night_seconds=3,
                        early_end=True, log_dir=tmp_path)
    seats = [dataclasses.replace(s, decider="late-talker-for-test") for s in default_seats(12)]
    result = await run_game(config, seats, server, timeout=240)
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    late = [k for k, r in enumerate(log) if r["kind"] == "action" and r["action"] == "Chat"
            and r["data"]["text"] == "That is settled, then." and _phase_of(log, k) == "witch"]
    assert late  # (a wolf spoke in the Witch's step: the case at hand)
    audit = audit_records(log)
    assert audit.ok, audit.violations[:3]


def _quiet_seat():
    from maw.policies.base import register_decider

    register_decider("quiet-in-turn-for-test", QuietInTurn)  # type: ignore[arg-type]
    return "quiet-in-turn-for-test"


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("role_set,seed", [("A", 3), ("B", 5)])
async def test_an_xmpp_game_keeps_the_witchs_and_the_hunters_steps_to_themselves(
        server, tmp_path, role_set, seed):
    import copy
    import dataclasses
    import json

    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import default_seats, run_game
    from maw.records.audit import audit_records

    rules = ruleset("werewolf-12", role_set=role_set)
    config = GameConfig(players=12, rules=rules, seed=seed, day_seconds=6, night_seconds=3,
                        early_end=True, log_dir=tmp_path)
    seats = default_seats(12)
    quiet = seats[0].name  # (listens in its turn to speak: its turn goes, not the day's)
    seats[0] = dataclasses.replace(seats[0], decider=_quiet_seat())
    result = await run_game(config, seats, server, timeout=240)
    assert result.outcomes[0].winner is not None
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    jid = {r["player"]: r["jid"] for r in log if r["kind"] == "join"}
    events = [(r["event"], r["data"]) for r in log if r["kind"] == "event"]
    turns = 0
    for k, (e, d) in enumerate(events):
        if e != "SpeakingOrder" or quiet not in d["order"]:
            continue
        heard = set()
        for later, data in events[k + 1:]:
            if later == "PhaseStarted":
                break
            if later in ("Chatted", "Overed"):
                heard.add(data.get("speaker") or data.get("player"))
        after = d["order"][d["order"].index(quiet) + 1:]
        assert set(after) <= heard, (d["day"], sorted(set(after) - heard))
        turns += 1
    assert turns >= 1
    # no move offered on stale options, so none refused but as too late (a candidate's
    # Over in flight as the last speech ended the campaign): a wolf whose attack began the
    # Witch's step, which it may not know of, kept its attack offered, and was refused
    refused = [r["body"]["reason"] for r in log if r["kind"] == "msg" and r["type"] == "refuse"
               and not r["body"]["reason"].startswith("too late")]
    assert refused == [], refused
    # a candidate's speech is its one: the GameMaster tells it so at once, its options
    # without another (a model asked again with "chat" still offered spoke again, and
    # was refused)
    speeches = 0
    for k, r in enumerate(log):
        if r["kind"] == "event" and r["event"] == "Chatted" and r["data"]["room"] == "Village" \
                and _phase_of(log, k) == "campaign":
            speaker = jid[r["data"]["speaker"]]
            end = next(i for i in range(k, len(log)) if log[i]["kind"] == "event"
                       and log[i]["event"] == "PhaseStarted")
            told = [x for x in log[k:end] if x["kind"] == "msg" and x.get("to") == speaker
                    and x["type"] == "phase_change"]
            if end == k + 1 or not told and _ended_by(log, k, end):
                continue  # (the last speech: the next phase's options come)
            assert [":campaign:" in x["body"]["stamp"] and "chat" not in x["body"]["options"]
                    for x in told] == [True], told
            speeches += 1
    assert speeches >= 2
    audit = audit_records(log)
    assert audit.ok, audit.violations[:3]
    # the GameMaster's FSM went from state to state as the phases came, never spinning
    moves = sum(1 for r in log if r["kind"] == "state" and r.get("agent") == "GameMaster")
    phases = sum(1 for r in log if r["kind"] == "event" and r["event"] == "PhaseStarted")
    assert moves <= 4 * phases + 10, (moves, phases)
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
