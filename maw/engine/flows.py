"""The shapes of a game day, one class each, the way python-chess makes a variant a class.

A :class:`~maw.engine.dayflow.DayFlow` says what differs between shapes: which phase follows
which, which room each phase opens, when votes and night choices may change, when a phase
is decided, which phases are skipped, who may still act. The shared core
(``maw.engine.resolution``) asks the game's flow, found by its ruleset's ``flow``; a new
shape of day (the 12-player game) is one new class here, registered with
:func:`~maw.engine.dayflow.register_flow`.

* :class:`MawFlow` — design document §1.2: Day (the Village talks, public votes that may
  change, an early majority executes) then Night (the Hideout talks, the pack must agree).
* :class:`AiwolfFlow` — the AIWolf contest: Talk, then one private vote each, then the
  wolves' Whisper, then the Night (one choice each: attack, divine, guard); nobody attacks
  or guards on the first night.
"""

from __future__ import annotations

from types import MappingProxyType

from maw.engine import resolution as r
from maw.engine.actions import Room, night_spec
from maw.engine.dayflow import DayFlow, register_flow
from maw.engine.events import Event, NightResult, PhaseStarted, RoleRevealed
from maw.engine.rulesets import Flow, VotesOpen
from maw.engine.state import GameState, Phase, Result

NOBODY = r.NOBODY


class CoreFlow(DayFlow):
    """The defaults of the shipped flows: a night resolves at once, then the next phase."""

    def night_decided(self, state: GameState, target: int, events: list[Event]) -> GameState:
        return r.finish_night(state, target, events)

    def after_deaths(self, state: GameState, seats: list[int], events: list[Event]
                     ) -> GameState:
        return r.advance(state, events)


@register_flow
class MawFlow(CoreFlow):
    flow = Flow.MAW
    next_phase = MappingProxyType({Phase.DAY: Phase.NIGHT, Phase.NIGHT: Phase.DAY})
    rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, Phase.NIGHT: Room.HIDEOUT})
    vote_phase = Phase.DAY
    choices_change = True
    over = False
    wolves_learn_executed = True
    no_over = "MAW has no Over: a player who has nothing to say just listens"

    def public_votes(self, phase: Phase) -> bool:
        return phase is Phase.DAY

    def talk_first(self, state: GameState, phase: Phase) -> bool:
        return phase is Phase.DAY and state.rules.votes_open is VotesOpen.TALK

    def after_talk(self, state: GameState, s: int, room: Room, events: list[Event]
                   ) -> GameState:
        """The votes open once every living player has spoken or passed."""
        if state.ballot or state.phase is not Phase.DAY:
            return state
        if all(spoke or passed for spoke, passed, a in zip(
                state.spoken, state.done, state.alive, strict=True) if a):
            return r.open_votes(state, "talk", events)
        return state

    def actors(self, state: GameState) -> tuple[str, ...]:
        if state.phase is Phase.DAY:
            return state.living()
        # the pack (in its Hideout), and whoever else acts at night (a Seer)
        return tuple(n for i, (n, a, role) in enumerate(zip(
            state.names, state.alive, state.roles, strict=True))
            if a and (role.pack or r.night_abilities(state, i)))

    def after_vote(self, state: GameState, t: int, events: list[Event]) -> GameState:
        """A majority of the living executes at once."""
        alive = state.alive
        count = sum(1 for i, v in enumerate(state.votes) if v == t and alive[i])
        if 2 * count > sum(alive):
            events.append(r.reveal_votes(state, "execute"))
            return r.execute(state, t, count, events)
        return state

    @staticmethod
    def pack_target(state: GameState) -> int:
        """The player every living wolf attacks (NOBODY: the pack does not agree)."""
        alive, roles, votes = state.alive, state.roles, state.votes
        wolves = [i for i, a in enumerate(alive) if a and roles[i].pack]
        target = votes[wolves[0]] if wolves else NOBODY
        return NOBODY if any(votes[w] != target for w in wolves) else target

    def after_night_choice(self, state: GameState, t: int, events: list[Event]) -> GameState:
        """The pack murders once every living wolf attacks the same player (and everyone
        else who acts at night has chosen: a Seer's divination, say)."""
        target = self.pack_target(state)
        if target == NOBODY:
            return state
        alive, roles = state.alive, state.roles
        if any(state.chosen[i] is None and r.night_abilities(state, i)
               for i, a in enumerate(alive) if a and not roles[i].pack):
            return state
        return r.finish_night(r.close_attack_vote(state, events), target, events)

    def end_phase(self, state: GameState, events: list[Event]) -> GameState:
        if state.phase is Phase.DAY:
            return r.resolve_execution(state, events)
        # by the timer: a unanimous pack murders (a Seer who never chose is not waited
        # for), else nobody dies
        target = self.pack_target(state)
        return r.finish_night(r.close_attack_vote(state, events), target, events)

    def at_night(self, state: GameState, events: list[Event]) -> GameState:
        if state.executed_today != NOBODY:  # the pack learns who it lost, or who it won
            x = state.executed_today
            events.append(RoleRevealed(state.names[x], state.roles[x].name, state.pack))
        return state


@register_flow
class AiwolfFlow(CoreFlow):
    flow = Flow.AIWOLF
    next_phase = MappingProxyType({Phase.DAY: Phase.VOTE, Phase.VOTE: Phase.WHISPER,
                                   Phase.WHISPER: Phase.NIGHT, Phase.NIGHT: Phase.DAY})
    rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, Phase.WHISPER: Room.HIDEOUT})
    vote_phase = Phase.VOTE
    choices_change = False
    over = True
    wolves_learn_executed = False

    def usable_tonight(self, state: GameState, abilities: frozenset[str]
                       ) -> frozenset[str]:
        if state.day > state.rules.first_day:
            return abilities
        # the first night: only what may be (the Seer's divination; no attack, no guard)
        return frozenset(a for a in abilities if night_spec(a).night.first_night)  # type: ignore[union-attr]

    def skips(self, state: GameState, day: int, phase: Phase) -> bool:
        rules = state.rules
        first = day == rules.first_day
        wolves = sum(1 for a, role in zip(state.alive, state.roles, strict=True)
                     if a and role.pack)
        return (phase is Phase.DAY and first and not rules.day0_talk) or \
            (phase is Phase.VOTE and first) or (phase is Phase.WHISPER and wolves < 2)

    def actors(self, state: GameState) -> tuple[str, ...]:
        names, alive, roles, phase = state.names, state.alive, state.roles, state.phase
        seats = range(len(names))
        if phase is Phase.DAY:
            return tuple(names[i] for i in seats
                         if alive[i] and r.talk_budget(state, i, Room.VILLAGE))
        if phase is Phase.VOTE:
            return tuple(names[i] for i in seats if alive[i] and state.votes[i] == NOBODY)
        if phase is Phase.WHISPER:
            return tuple(names[i] for i in seats
                         if alive[i] and roles[i].pack and r.talk_budget(state, i, Room.HIDEOUT))
        return tuple(names[i] for i in seats
                     if state.votes[i] == NOBODY and r.night_abilities(state, i))

    def after_vote(self, state: GameState, t: int, events: list[Event]) -> GameState:
        """The vote is counted once every living player has voted."""
        if all(v != NOBODY for v, a in zip(state.votes, state.alive, strict=True) if a):
            return r.resolve_execution(state, events)
        return state

    def after_night_choice(self, state: GameState, t: int, events: list[Event]) -> GameState:
        """The night is resolved once everyone who acts tonight has chosen."""
        if all(state.votes[i] != NOBODY for i in range(len(state.alive))
               if r.night_abilities(state, i)):
            return r.resolve_night(state, events)
        return state

    def after_talk(self, state: GameState, s: int, room: Room, events: list[Event]
                   ) -> GameState:
        """The talk ends by itself once nobody may speak (only this speaker changed)."""
        if r.talk_budget(state, s, room):
            return state
        roles, alive = state.roles, state.alive
        if not any(r.talk_budget(state, i, room) for i in range(len(alive))
                   if alive[i] and (room is Room.VILLAGE or roles[i].pack)):
            return r.advance(state, events)
        return state

    def end_phase(self, state: GameState, events: list[Event]) -> GameState:
        if state.phase is Phase.VOTE:
            return r.resolve_execution(state, events)
        if state.phase is Phase.NIGHT:
            return r.resolve_night(state, events)
        return r.advance(state, events)

    def at_night(self, state: GameState, events: list[Event]) -> GameState:
        if not any(r.night_abilities(state, i) for i in range(len(state.names))):
            return r.resolve_night(state, events)
        return state


@register_flow
class WerewolfFlow(AiwolfFlow):
    """werewolf-12, AutoWerewolf's game: night first (the pack's attack, the Seer, the
    Guard, with the Hideout open), then the Witch's step, told the pack's victim; at dawn
    the night resolves; a Hunter who died shoots in a step of its own; then the talk and
    the vote. The Witch's and the Hunter's steps are known to them alone: whether they
    come tells the others nothing."""

    flow = Flow.WEREWOLF
    next_phase = MappingProxyType({Phase.DAY: Phase.VOTE, Phase.VOTE: Phase.NIGHT,
                                   Phase.NIGHT: Phase.DAY, Phase.WITCH: Phase.DAY,
                                   Phase.HUNT: Phase.DAY})
    rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, Phase.NIGHT: Room.HIDEOUT})

    def usable_tonight(self, state: GameState, abilities: frozenset[str]
                       ) -> frozenset[str]:
        return abilities  # (the first night too)

    def skips(self, state: GameState, day: int, phase: Phase) -> bool:
        return phase in (Phase.DAY, Phase.VOTE) and day == state.rules.first_day

    def following(self, state: GameState) -> Phase:
        if state.phase is Phase.HUNT and state.resume is not None:
            return state.resume
        return self.next_phase[state.phase]

    def actors(self, state: GameState) -> tuple[str, ...]:
        names, phase = state.names, state.phase
        if phase is Phase.HUNT:
            return (names[state.shooter],)
        if phase is Phase.VOTE:
            return tuple(names[i] for i, a in enumerate(state.alive)
                         if a and state.votes[i] == NOBODY and i not in state.exposed)
        if phase is Phase.WITCH:
            return tuple(names[i] for i in range(len(names))
                         if state.votes[i] == NOBODY and _may_act(state, i))
        if phase is Phase.NIGHT:  # who chooses, and the pack in its Hideout
            return tuple(names[i] for i, (a, role) in enumerate(zip(
                state.alive, state.roles, strict=True)) if a and (
                (state.votes[i] == NOBODY and r.night_abilities(state, i)) or
                (role.pack and r.talk_budget(state, i, Room.HIDEOUT))))
        return super().actors(state)

    def voters(self, state: GameState) -> list[int]:
        return [i for i, a in enumerate(state.alive) if a and i not in state.exposed]

    def after_vote(self, state: GameState, t: int, events: list[Event]) -> GameState:
        """The vote is counted once every living player who may vote has."""
        if all(state.votes[i] != NOBODY for i in self.voters(state)):
            return r.resolve_execution(state, events)
        return state

    def after_talk(self, state: GameState, s: int, room: Room, events: list[Event]
                   ) -> GameState:
        if room is Room.HIDEOUT:  # the night ends by its choices, not its talk
            return state
        return super().after_talk(state, s, room, events)

    def after_night_choice(self, state: GameState, t: int, events: list[Event]) -> GameState:
        if state.phase is Phase.WITCH:  # one potion a night: the Witch has chosen
            if any(state.chosen[i] is None and _may_act(state, i)
                   for i, a in enumerate(state.alive) if a):
                return state
            return r.finish_night(state, state.victim, events)
        return super().after_night_choice(state, t, events)

    def end_phase(self, state: GameState, events: list[Event]) -> GameState:
        if state.phase is Phase.WITCH:
            return r.finish_night(state, state.victim, events)
        if state.phase is Phase.HUNT:  # no shot
            return self.resume(state, events)
        return super().end_phase(state, events)

    def night_decided(self, state: GameState, target: int, events: list[Event]) -> GameState:
        """The pack's victim is known: the Witch's step, if a Witch may act tonight."""
        n = len(state.names)
        tonight = tuple((i, ability, t) for i, (t, ability) in enumerate(zip(
            state.votes, state.chosen, strict=True))
            if t != NOBODY and state.alive[i] and ability is not None)
        step = state._replace(phase=Phase.WITCH, victim=target, tonight=tonight,
                              vote_round=0, votes=(NOBODY,) * n, chosen=(None,) * n)
        witches = [i for i in range(n) if _may_act(step, i)]
        if not witches:
            return r.finish_night(state, target, events)
        names = state.names
        audience = frozenset(names[i] for i in witches)
        events.append(PhaseStarted(state.day, Phase.WITCH.value, 0, state.living(), (),
                                   audience))
        if target != NOBODY:
            results = step.results + tuple(Result(state.day, "attacked", i, target, "")
                                           for i in witches)
            step = step._replace(results=results)
            for i in witches:
                events.append(NightResult(state.day, names[i], "save", names[target],
                                          "attacked", frozenset((names[i],))))
        return step

    def after_deaths(self, state: GameState, seats: list[int], events: list[Event]
                     ) -> GameState:
        """A Hunter among the dead (not poisoned) shoots first, in a step of its own."""
        causes = {d.seat: d.cause for d in state.deaths}
        hunters = [x for x in seats if state.roles[x].shoots and causes.get(x) != "poisoned"]
        if hunters:
            resume = state.resume if state.phase is Phase.HUNT else \
                Phase.NIGHT if state.phase is Phase.VOTE else Phase.DAY
            h, n = hunters[0], len(state.names)
            state = state._replace(phase=Phase.HUNT, shooter=h, resume=resume, vote_round=0,
                                   votes=(NOBODY,) * n, chosen=(None,) * n)
            events.append(PhaseStarted(state.day, Phase.HUNT.value, 0, state.living(), (),
                                       frozenset((state.names[h],))))
            return state
        if state.phase is Phase.HUNT:
            return self.resume(state, events)
        if state.phase in (Phase.NIGHT, Phase.WITCH):  # dawn: the day
            return r.enter(state, state.day + 1, Phase.DAY, events)
        return r.advance(state, events)

    def resume(self, state: GameState, events: list[Event]) -> GameState:
        nxt = state.resume or Phase.DAY
        state = state._replace(shooter=NOBODY, resume=None)
        return r.enter(state, state.day + (nxt is Phase.DAY), nxt, events)


def _may_act(state: GameState, s: int) -> bool:
    """Has seat ``s`` a night action with a target it may name now (a Witch whose save
    is left has nobody to save on a night without a victim)?"""
    for ability in r.night_abilities(state, s):
        night = night_spec(ability).night
        assert night is not None
        ok = night.may_target or (lambda st, i, t: st.alive[t] and t != i)
        if any(ok(state, s, t) for t in range(len(state.names))):
            return True
    return False
