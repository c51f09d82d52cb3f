"""The GameMaster's FSM states (design document §3.6.1): Setup -> AssignRoles -> DayPhase
-> DayPhaseVoteCount -> NightPhase -> NightPhaseVoteCount -> ... -> EndPhase (->
AssignRoles for the next round). They only sequence phases and run the timers: every
rule is the engine's."""

from __future__ import annotations

import asyncio
import random

from spade.behaviour import State

from maw import engine
from maw.agents.moderator import Moderator, record_fields
from maw.errors import MawError
from maw.protocol import messages as m


class GMState(State):
    @property
    def gm(self) -> Moderator:
        return self.agent

    async def on_start(self) -> None:
        self.gm.game_log.write("state", agent="GameMaster", state=type(self).__name__[:-5],
                               round=self.gm.round)


class SetupState(GMState):
    """Wait until the expected number of players joined the lobby."""

    async def run(self) -> None:
        gm = self.gm
        try:
            await asyncio.wait_for(gm.lobby_full.wait(), gm.config.lobby_seconds)
        except asyncio.TimeoutError:
            raise MawError(f"only {len(gm.seats)} of {gm.config.players} players joined "
                           f"within {gm.config.lobby_seconds:.0f} s") from None
        self.set_next_state("AssignRoles")


class AssignRolesState(GMState):
    """Deal roles for a round, tell each player its role, open the first phase."""

    async def run(self) -> None:
        gm = self.gm
        gm.round += 1
        for seat in gm.seats.values():
            seat.acted = False
        # roles are dealt to the names in sorted order, not in the order they joined: the
        # same seed deals the same roles whatever the network did
        names = sorted(gm.seats)
        rng = random.Random(f"{gm.config.seed}:{gm.round}")
        gm.state = engine.new_game(gm.config.rules, names, rng)
        gm.history, gm.stand_ins = [], {}
        gm.game_log.write("round", round=gm.round, roles={n: r.name for n, r in zip(
            names, gm.state.roles, strict=True)}, ruleset=gm.config.rules.name,
            options=dict(engine.changed_options(gm.config.rules)))
        opening = engine.opening_events(gm.state)
        for e in opening:
            gm.game_log.write("event", round=gm.round, event=type(e).__name__,
                              data=record_fields(e))
            gm.on_event(e)
        gm.heard(opening)
        for seat in gm.seats.values():  # gone before this round: a stand-in from the start
            if seat.gone:
                gm.substitute(seat.name)
        start = m.StartGame(total_players=len(names), players=names, round=gm.round,
                            rounds=gm.config.rounds, ruleset=gm.config.rules.name)
        await gm.send_bodies(self, [seat.jid for seat in gm.seats.values()], start)
        for name, role in zip(names, gm.state.roles, strict=True):
            pack = sorted(gm.state.pack) if role.pack else []
            await gm.send_body(self, gm.seats[name].jid,
                               m.AssignRole(role=role.name, pack=pack, round=gm.round))
        await gm.open_phase(self)
        gm.follow_presence()
        self.set_next_state(_next_fsm_state(gm))


ELECTION = (engine.Phase.CANDIDACY, engine.Phase.CAMPAIGN, engine.Phase.ELECTION)


def _next_fsm_state(gm: Moderator) -> str:
    """The FSM state that runs the engine's phase now (``PHASE_STATES``' own)."""
    s = gm.state
    assert s is not None
    if s.is_over:
        return "EndPhase"
    for name, cls in PHASE_STATES.items():
        if cls.runs(s.phase):
            return name
    # (a phase no state runs would spin the FSM between a count and a phase state)
    raise MawError(f"no GameMaster state runs the {s.phase} phase")


class PhaseState(GMState):
    """Run engine phases until the FSM's part of the day is over: each phase ends by the
    rules (an action) or by its timer (with ``early_end``, also when everyone who may act
    said "listen", unless players who must agree do not yet: ``engine.split``; with
    ``ready_end``, a day once everyone has voted and is done); under ``votes_open=talk``
    the day's votes open after a share of it."""

    parts: tuple[engine.Phase, ...] = ()
    count_state = ""

    @classmethod
    def runs(cls, phase: engine.Phase) -> bool:
        return phase in cls.parts

    async def run(self) -> None:
        gm = self.gm
        while gm.state is not None and not gm.state.is_over and self.runs(gm.state.phase):
            before = gm.marker()
            gm.phase_began()
            while gm.marker() == before:
                seen = gm.changes.version  # (before looking: no change can be missed)
                if gm.aborting is not None:
                    await gm.publish(self, gm.apply(engine.Abort()), before)
                    break
                if gm.stand_ins and await gm.stand_ins_act(self):
                    continue  # (what it did may have ended the phase)
                actors = engine.actors(gm.state)
                if gm.config.ready_end and gm.all_voted_and_done():
                    break  # (a game with people: everyone has voted and is done)
                if gm.config.early_end and not (actors and gm.waiting_for(actors)) \
                        and not engine.split(gm.state):
                    # (everyone who may act is idle: in a replay, once it has taken the
                    # recorded game's moves of the phase, as a timer would)
                    if await gm.held("end"):
                        continue
                    break
                left = gm.seconds_left()
                if left <= 0 and await gm.held("end"):
                    continue
                if left <= 0:
                    break
                if not gm.state.ballot:  # votes_open=talk: open them after a share of the day
                    until = left - (1 - gm.config.talk_share) * gm.phase_seconds()
                    if until <= 0 and await gm.held("votes"):
                        continue
                    if until <= 0:
                        await gm.publish(self, gm.apply(engine.OpenVotes()), before)
                        break
                    left = min(left, until)
                paced = gm.stand_ins_wait() if gm.stand_ins else None
                if paced is not None:  # a stand-in waits for its pace: wake it then
                    left = min(left, paced + 0.01)
                await gm.changes.wait(seen, left)
            if gm.marker() == before:
                for name in gm.idled():  # (it let this phase run out too: away now)
                    await gm.send_body(self, gm.seats[name].jid, m.Away(
                        round=gm.round, decider=gm.config.substitute or "",
                        phases=gm.config.idle_phases))
                events = gm.apply(engine.EndPhase())
                await gm.publish(self, events, before)
        self.set_next_state(self.count_state)


class DayPhaseState(PhaseState):
    parts = (engine.Phase.DAY, engine.Phase.VOTE)
    count_state = "DayPhaseVoteCount"


class NightPhaseState(PhaseState):
    parts = (engine.Phase.WHISPER, engine.Phase.NIGHT)
    count_state = "NightPhaseVoteCount"


class WitchDecisionState(PhaseState):
    """werewolf-12: the Witch, told the pack's victim, saves or poisons (AutoWerewolf's
    "Witch Decision"); only she knows the step is on."""

    parts = (engine.Phase.WITCH,)
    count_state = "NightPhaseVoteCount"


class HunterShotState(PhaseState):
    """werewolf-12: a Hunter who has just died shoots (AutoWerewolf's "Hunter shot"); only
    it knows the step is on."""

    parts = (engine.Phase.HUNT,)
    count_state = "DayPhaseVoteCount"


class SheriffElectionState(PhaseState):
    """werewolf-12, day 1: candidacy, the candidates' speeches, the others' vote
    (AutoWerewolf's "SheriffElection"); and each day, the sheriff's speaking order."""

    parts = (*ELECTION, engine.Phase.ORDER)
    count_state = "DayPhaseVoteCount"


class LastWordsState(PhaseState):
    """werewolf-12: the executed, and the first night's dead, speak once ("LastWords")."""

    parts = (engine.Phase.LAST_WORDS,)
    count_state = "DayPhaseVoteCount"


class BadgeHandoverState(PhaseState):
    """werewolf-12: a sheriff who has just died passes the badge or tears it."""

    parts = (engine.Phase.BADGE,)
    count_state = "DayPhaseVoteCount"


class ShapeStepState(PhaseState):
    """A phase of a game shape's own (``engine.Phase.register``: one the design document's
    FSM never named), run as the others are: until the rules or its timer end it."""

    count_state = "DayPhaseVoteCount"

    @classmethod
    def runs(cls, phase: engine.Phase) -> bool:
        return phase is not engine.Phase.OVER and not any(
            phase in other.parts for other in PHASE_STATES.values() if other is not cls)


class VoteCountState(GMState):
    """The vote was counted by the engine and announced; go on to what comes next."""

    async def run(self) -> None:
        self.set_next_state(_next_fsm_state(self.gm))


class EndPhaseState(GMState):
    """Score the round, announce the leaderboard; next round or the end."""

    async def run(self) -> None:
        gm = self.gm
        assert gm.state is not None
        out = engine.outcome(gm.state)
        assert out is not None
        gm.outcomes.append(out)
        winners = [n for n, r in out.roles.items()
                   if out.winner and engine.role_named(r).team is out.winner]
        gm.board.record(out.points, winners)
        final = gm.round >= gm.config.rounds
        gm.game_log.write("outcome", round=gm.round, winner=out.winner.value if out.winner
                          else None, reason=out.termination.value, day=out.day,
                          points=dict(out.points), roles=dict(out.roles), absent=gm.absent())
        if gm.narration is not None:  # (its summary: before the scores end the game)
            await gm.narration.drain()
        scores = m.Scores(round=gm.round, rounds=gm.config.rounds,
                          leaderboard=gm.board.standings(), final=final)
        await gm.send_bodies(self, [seat.jid for seat in gm.seats.values()], scores)
        await gm.announce(self, scores)
        if final:
            self.next_state = None  # SPADE keeps the last round's choice: end the FSM here
            gm.done.set()
        else:
            self.set_next_state("AssignRoles")


# the FSM's phase states by name, and the engine's phases each runs (every phase but the
# end is run by exactly one: tests/engine/test_werewolf12.py checks it)
PHASE_STATES: dict[str, type[PhaseState]] = {
    "DayPhase": DayPhaseState, "NightPhase": NightPhaseState,
    "WitchDecision": WitchDecisionState, "HunterShot": HunterShotState,
    "SheriffElection": SheriffElectionState, "LastWords": LastWordsState,
    "BadgeHandover": BadgeHandoverState,
    "ShapeStep": ShapeStepState,  # (last: the phases no named state runs)
}
