"""werewolf-12, AutoWerewolf's game (``../shared/seeds/autowerewolf-design.txt``), as one
shape of day: the night first (the pack's attack, the Seer, the Guard, the Hideout open),
then the Witch's step, told the pack's victim; at dawn the night resolves. On day 1 a
sheriff is elected (candidacy, the candidates' speeches, a vote of the others; 1.5 votes
from then on). Then the talk and the vote.

After deaths come steps of their own, in this order: a Hunter who died (not poisoned)
shoots; a sheriff who died passes the badge or tears it; the executed, and the first
night's dead, say their last words; then the game goes on where it was going. The
Witch's and the Hunter's steps are known to them alone, so that whether they come tells
the others nothing; the rest are public.

The flow handles the actions of its own steps (:meth:`WerewolfFlow.why_not`,
:meth:`~WerewolfFlow.legal`, :meth:`~WerewolfFlow.act`): the core asks it first.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import ClassVar

from maw.engine import resolution as r
from maw.engine import werewolf_night, werewolf_text
from maw.engine.actions import (
    Action,
    Badge,
    Chat,
    Explode,
    First,
    Over,
    Room,
    Run,
    Shoot,
    Tear,
    Vote,
    Withdraw,
    night_spec,
)
from maw.engine.dayflow import register_flow
from maw.engine.events import (
    BadgePassed,
    Chatted,
    Event,
    Exploded,
    NightResult,
    Overed,
    PhaseStarted,
    Ran,
    SheriffElected,
    Shot,
    SpeakingOrder,
    VoteCast,
)
from maw.engine.flows import AiwolfFlow
from maw.engine.rulesets import (
    Flow,
    Ruleset,
    TiePolicy,
    WinCondition,
    register_ruleset,
    role_counts,
)
from maw.engine.state import Death, GameState, Phase, Result
from maw.engine.table import clockwise, neighbours, round_from
from maw.errors import ConfigError

NOBODY = r.NOBODY
# the steps this flow runs itself: their actions are its own
STEPS = frozenset({Phase.HUNT, Phase.BADGE, Phase.LAST_WORDS, Phase.CANDIDACY,
                   Phase.CAMPAIGN, Phase.ELECTION, Phase.ORDER, Phase.DAY})
OWN = (Shoot, Badge, First, Tear, Run, Withdraw, Explode)  # the actions only it takes


@register_flow
class WerewolfFlow(AiwolfFlow):
    """See the module docstring."""

    flow: ClassVar[Flow | str] = Flow.WEREWOLF
    next_phase = MappingProxyType({Phase.DAY: Phase.VOTE, Phase.VOTE: Phase.NIGHT,
                                   Phase.NIGHT: Phase.DAY, Phase.WITCH: Phase.DAY})
    # (the Hideout stays open in the Witch's step: for the pack the night goes on, and a
    # chat refused there would tell it the step is on)
    rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, Phase.NIGHT: Room.HIDEOUT,
                              Phase.WITCH: Room.HIDEOUT,
                              Phase.LAST_WORDS: Room.VILLAGE, Phase.CAMPAIGN: Room.VILLAGE})

    steps = STEPS
    shots = True

    def rules_text(self, rules: Ruleset, players: int) -> str:
        """werewolf-12's rules, told from its options (``maw.engine.werewolf_text``)."""
        return werewolf_text.rules_text(rules, players)

    def owns(self, state: GameState, action: object) -> bool:
        return state.phase in STEPS or isinstance(action, OWN)

    def extra(self, state: GameState, s: int) -> tuple[Action, ...]:
        """A living werewolf may explode by day (``self_explode``): in its turn to speak,
        in a day of turns (else every wolf would be asked again at every speech)."""
        rules = state.rules
        if not (rules.self_explode and state.phase is Phase.DAY and state.alive[s] and
                state.roles[s].pack):
            return ()
        if rules.speaking_order and not (state.turn < len(state.order) and
                                         state.order[state.turn] == s):
            return ()
        return (Explode(state.names[s]),)

    def usable_tonight(self, state: GameState, abilities: frozenset[str]
                       ) -> frozenset[str]:
        return abilities  # (the first night too)

    def skips(self, state: GameState, day: int, phase: Phase) -> bool:
        return phase in (Phase.DAY, Phase.VOTE) and day == state.rules.first_day

    # ------------------------------------------------------------ who acts

    def actors(self, state: GameState) -> tuple[str, ...]:
        names, phase, alive = state.names, state.phase, state.alive
        seats = range(len(names))
        if phase in STEPS:
            return tuple(names[i] for i in seats if self.legal(state, i))
        if phase is Phase.VOTE:
            return tuple(names[i] for i in seats
                         if alive[i] and state.votes[i] == NOBODY and i not in state.exposed)
        if phase is Phase.WITCH:  # the Witch, and the pack in its Hideout
            return tuple(names[i] for i in seats if (
                state.votes[i] == NOBODY and _may_act(state, i)) or (
                alive[i] and state.roles[i].pack and r.talk_budget(state, i, Room.HIDEOUT)))
        if phase is Phase.NIGHT:  # who chooses, and the pack in its Hideout
            return tuple(names[i] for i, (a, role) in enumerate(zip(
                alive, state.roles, strict=True)) if a and (
                (state.votes[i] == NOBODY and r.night_abilities(state, i)) or
                (role.pack and r.talk_budget(state, i, Room.HIDEOUT))))
        return super().actors(state)

    def gives_up(self, state: GameState, s: int) -> Action | None:
        """In a day of turns, the speaker's "listen" gives its turn up (an ``Over``)."""
        if state.phase is Phase.DAY and state.rules.speaking_order and \
                state.turn < len(state.order) and state.order[state.turn] == s:
            return Over(state.names[s], Room.VILLAGE)
        return None

    def legal(self, state: GameState, s: int) -> tuple[Action, ...]:
        """The actions of seat ``s`` in one of this flow's own steps."""
        names, phase, alive = state.names, state.phase, state.alive
        me = names[s]
        if phase is Phase.HUNT:
            return tuple(Shoot(me, t) for t in _others(names, alive, s)) \
                if s == state.shooter else ()
        if phase is Phase.BADGE:
            return (*(Badge(me, t) for t in _others(names, alive, s)), Tear(me)) \
                if s == state.sheriff else ()
        if phase is Phase.LAST_WORDS:
            if s in state.speakers and not state.spoken[s] and not state.done[s]:
                return (Chat(me, Room.VILLAGE), Over(me, Room.VILLAGE))
            return ()
        # (a speech is one message; Over says one is done, before or after it)
        if not alive[s]:
            return ()
        if phase is Phase.DAY:  # the talk (in turns, or free), and a werewolf's explosion
            if state.rules.speaking_order:
                mine = state.turn < len(state.order) and state.order[state.turn] == s
            else:
                mine = r.talk_budget(state, s, Room.VILLAGE)
            talk = (Chat(me, Room.VILLAGE), Over(me, Room.VILLAGE)) if mine else ()
            return (*talk, *self.extra(state, s))
        if phase is Phase.ORDER:
            return tuple(First(me, names[t]) for t in neighbours(state, s)) \
                if s == state.sheriff else ()
        if phase is Phase.CANDIDACY:
            return () if s in state.ran else (Run(me),)
        if phase is Phase.CAMPAIGN:
            if s not in state.running:
                return ()
            speech = () if state.spoken[s] or state.done[s] else (Chat(me, Room.VILLAGE),)
            over = () if state.done[s] else (Over(me, Room.VILLAGE),)
            return (*speech, *over, Withdraw(me))
        if phase is Phase.ELECTION:
            if s in state.ran or state.votes[s] != NOBODY:
                return ()
            return tuple(Vote(me, names[t]) for t in sorted(state.running))
        return ()

    def why_not(self, state: GameState, s: int, action: object) -> str | None:
        """Why seat ``s`` may not take ``action`` in one of this flow's steps (or a
        werewolf's explosion by day)."""
        if type(action) is Explode:
            if not state.rules.self_explode:
                return "werewolves may not explode in this game (self_explode=off)"
            if state.phase is not Phase.DAY or not state.alive[s]:
                return f"no explosion during the {r.public_phase(state)}"
            if not state.roles[s].pack:
                return f"{state.names[s]} is not a werewolf"
            return None
        if action in self.legal(state, s):
            return None
        if type(action) is Chat and Chat(state.names[s], action.room) in self.legal(state, s):
            return r.bad_text(state, action.text)
        if not state.alive[s] and state.phase not in (Phase.HUNT, Phase.BADGE,
                                                        Phase.LAST_WORDS):
            return f"{state.names[s]} is dead"
        target = getattr(action, "target", None)
        if isinstance(target, str) and target not in state.seat:
            return f"{target!r} is not a player in this game"
        if isinstance(target, str) and not state.alive[state.seat[target]]:
            return f"{target} is dead"
        return f"{state.names[s]} may not {type(action).__name__.lower()} now"

    def act(self, state: GameState, s: int, action: object, events: list[Event]
            ) -> GameState:
        """Apply an action of one of this flow's steps (``why_not`` said yes)."""
        names, kind = state.names, type(action)
        if kind is Shoot:
            t = state.seat[action.target]  # type: ignore[attr-defined]
            state = state._replace(alive=r.replaced(state.alive, t, False), shooter=NOBODY,
                                   deaths=state.deaths + (Death(state.day, t, "shot"),),
                                   revealed=state.revealed | {s})
            events.append(Shot(state.day, names[s], names[t]))
            return r.check_end(state, events) or self.after_deaths(state, [t], events)
        if kind is Badge or kind is Tear:
            t = state.seat[action.target] if kind is Badge else NOBODY  # type: ignore[attr-defined]
            events.append(BadgePassed(state.day, names[s], names[t] if t != NOBODY else ""))
            return self.next_step(state._replace(sheriff=t), events)
        if kind is Chat or kind is Over:
            if kind is Chat:
                state = state._replace(spoken=r.replaced(state.spoken, s, state.spoken[s] + 1))
                events.append(Chatted(state.day, Room.VILLAGE, names[s], action.text))  # type: ignore
            else:
                state = state._replace(done=r.replaced(state.done, s, True))
                events.append(Overed(state.day, Room.VILLAGE, names[s]))
            if state.phase is Phase.DAY:
                return self.talked(state, s, events)
            talkers = state.speakers if state.phase is Phase.LAST_WORDS else state.running
            if all(state.spoken[i] or state.done[i] for i in talkers):
                return self.end_phase(state, events)
            return state
        if kind is First:
            first = state.seat[action.target]  # type: ignore[attr-defined]
            return self.day_in_turns(state, s, first, events)
        if kind is Run:
            events.append(Ran(state.day, names[s]))
            state = state._replace(ran=state.ran | {s}, running=state.running | {s})
            if all(i in state.ran for i, a in enumerate(state.alive) if a):
                return self.end_phase(state, events)  # all run: nobody is left to vote
            return state
        if kind is Withdraw:
            events.append(Ran(state.day, names[s], withdrawn=True))
            state = state._replace(running=state.running - {s})
            if all(state.spoken[i] or state.done[i] for i in state.running):
                return self.end_phase(state, events)
            return state
        if kind is Vote:
            t = state.seat[action.target]  # type: ignore[attr-defined]
            state = state._replace(votes=r.replaced(state.votes, s, t))
            events.append(VoteCast(state.day, "sheriff", names[s], names[t],
                                   frozenset((names[s],))))
            if all(state.votes[i] != NOBODY for i in self.electors(state)):
                return self.end_phase(state, events)
            return state
        if kind is Explode:
            state = state._replace(alive=r.replaced(state.alive, s, False),
                                   deaths=state.deaths + (Death(state.day, s, "exploded"),),
                                   revealed=state.revealed | {s})
            events.append(Exploded(state.day, names[s]))
            # the day ends at once, with no vote: on to the night (after the steps a
            # death brings, a sheriff's badge)
            state = state._replace(resume=Phase.NIGHT)
            return r.check_end(state, events) or self.after_deaths(state, [s], events)
        raise AssertionError(f"not an action of werewolf-12's steps: {action!r}")

    # ------------------------------------------------------------ the day's talk

    def day_in_turns(self, state: GameState, sheriff: int, first: int,
                     events: list[Event]) -> GameState:
        """The day opens with its speaking order: from ``first`` round the table (away
        from the sheriff, who speaks last), or without a sheriff from the seat after the
        last death."""
        n = len(state.names)
        if sheriff != NOBODY:
            step = 1 if clockwise(state, sheriff, first) else -1
            order = round_from(state, first, step, sheriff)
        else:
            after = state.deaths[-1].seat + 1 if state.deaths else 0
            order = round_from(state, after % n, 1, NOBODY)
        state = r.enter(state, state.day, Phase.DAY, events)
        events.append(SpeakingOrder(state.day, tuple(state.names[i] for i in order)))
        return state._replace(order=order, turn=0)

    def talked(self, state: GameState, s: int, events: list[Event]) -> GameState:
        """A speech of the day (or an Over): the next speaker's turn, or, everyone done,
        the vote."""
        if state.rules.speaking_order:
            turn = state.turn + 1
            while turn < len(state.order) and not state.alive[state.order[turn]]:
                turn += 1
            state = state._replace(turn=turn)
            return r.advance(state, events) if turn >= len(state.order) else state
        if any(r.talk_budget(state, i, Room.VILLAGE) for i, a in enumerate(state.alive) if a):
            return state
        return r.advance(state, events)

    def open_day(self, state: GameState, day: int, events: list[Event]) -> GameState:
        """A new day: its speaking order first (the sheriff's choice, if there is one)."""
        rules = state.rules
        if 0 < r.day_limit(state) <= day - rules.first_day:
            return r.finish(state._replace(day=day - 1), r.Termination.DAY_LIMIT, events)
        if not rules.speaking_order:
            return r.enter(state, day, Phase.DAY, events)
        state = state._replace(day=day, order=(), turn=0)
        if state.sheriff != NOBODY and state.alive[state.sheriff] and \
                neighbours(state, state.sheriff):
            return self.open(state, Phase.ORDER, events)
        return self.day_in_turns(state, NOBODY, NOBODY, events)

    def electors(self, state: GameState) -> list[int]:
        return [i for i, a in enumerate(state.alive) if a and i not in state.ran]

    def voters(self, state: GameState) -> list[int]:
        return [i for i, a in enumerate(state.alive) if a and i not in state.exposed]

    # ------------------------------------------------------------ the phases' ends

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
            return werewolf_night.dawn(state, state.attack, events)
        return super().after_night_choice(state, t, events)

    def end_phase(self, state: GameState, events: list[Event]) -> GameState:
        phase = state.phase
        if phase is Phase.WITCH:
            return werewolf_night.dawn(state, state.attack, events)
        if phase is Phase.HUNT:  # no shot
            return self.next_step(state._replace(shooter=NOBODY), events)
        if phase is Phase.BADGE:  # the timer: the badge is lost
            events.append(BadgePassed(state.day, state.names[state.sheriff], ""))
            return self.next_step(state._replace(sheriff=NOBODY), events)
        if phase is Phase.LAST_WORDS:
            return self.next_step(state._replace(speakers=()), events)
        if phase is Phase.ORDER:  # the timer: from the sheriff's left (the next seat)
            h = state.sheriff
            left = next(t for t in neighbours(state, h) if clockwise(state, h, t))
            return self.day_in_turns(state, h, left, events)
        if phase is Phase.CANDIDACY:
            if not state.running or not self.electors(state):
                return self.elected(state, NOBODY, events)
            return self.open(state, Phase.CAMPAIGN, events)
        if phase is Phase.CAMPAIGN:
            if not state.running or not self.electors(state):
                return self.elected(state, NOBODY, events)
            if len(state.running) == 1:  # unopposed
                return self.elected(state, next(iter(state.running)), events)
            return self.open(state, Phase.ELECTION, events)
        if phase is Phase.ELECTION:
            counts = r.tally(state, self.electors(state), lambda t: t in state.running)
            top = max(counts.values(), default=0)
            tied = [t for t, c in counts.items() if c == top]
            return self.elected(state, tied[0] if len(tied) == 1 else NOBODY, events)
        return super().end_phase(state, events)

    def elected(self, state: GameState, t: int, events: list[Event]) -> GameState:
        names = state.names
        votes = tuple((names[i], names[v]) for i, v in enumerate(state.votes)
                      if v != NOBODY) if state.phase is Phase.ELECTION else ()
        events.append(SheriffElected(state.day, names[t] if t != NOBODY else "", votes))
        state = state._replace(sheriff=t, elected=True, running=frozenset())
        return self.open(state, Phase.DAY, events)

    def open(self, state: GameState, phase: Phase, events: list[Event],
             audience: frozenset[str] | None = None) -> GameState:
        """Open a step of the same day (the votes and the talk counts afresh)."""
        if phase is Phase.DAY:
            return self.open_day(state, state.day, events)
        n = len(state.names)
        state = state._replace(phase=phase, vote_round=0, votes=(NOBODY,) * n,
                               chosen=(None,) * n, spoken=(0,) * n, done=(False,) * n,
                               ballot=True, turn=0, runoff=())
        events.append(PhaseStarted(state.day, phase.value, 0, state.living(), (), audience))
        return state

    # ------------------------------------------------------------ the night's steps

    def night_decided(self, state: GameState, target: int, events: list[Event]) -> GameState:
        """The pack's victim is known: the Witch's step, if a Witch may act tonight, told
        the victim (``night_steps``: not one the Guard protected first)."""
        n = len(state.names)
        tonight = tuple((i, ability, t) for i, (t, ability) in enumerate(zip(
            state.votes, state.chosen, strict=True))
            if t != NOBODY and state.alive[i] and ability is not None)
        told = werewolf_night.told(state, target, tonight)
        step = state._replace(phase=Phase.WITCH, victim=told, attack=target, tonight=tonight,
                              vote_round=0, votes=(NOBODY,) * n, chosen=(None,) * n)
        witches = [i for i in range(n) if _may_act(step, i)]
        if not witches:
            return werewolf_night.dawn(state, target, events)
        names = state.names
        audience = frozenset(names[i] for i in witches)
        events.append(PhaseStarted(state.day, Phase.WITCH.value, 0, state.living(), (),
                                   audience))
        if told != NOBODY:
            results = step.results + tuple(Result(state.day, "attacked", i, told, "")
                                           for i in witches)
            step = step._replace(results=results)
            for i in witches:
                events.append(NightResult(state.day, names[i], "save", names[told],
                                          "attacked", frozenset((names[i],))))
        return step

    # ------------------------------------------------------------ after deaths

    def after_deaths(self, state: GameState, seats: list[int], events: list[Event]
                     ) -> GameState:
        """``seats`` died: the steps they are owed (a Hunter's shot, a sheriff's badge,
        last words), then the phase the game was going to."""
        causes = {d.seat: d.cause for d in state.deaths}
        resume = state.resume
        if resume is None:
            resume = Phase.NIGHT if state.phase is Phase.VOTE else Phase.DAY
        first_night = state.day == state.rules.first_day and resume is Phase.DAY
        shooters = tuple(x for x in seats if state.roles[x].shoots
                         and causes.get(x) not in ("poisoned", "exploded"))
        speakers = tuple(x for x in seats if causes.get(x) == "executed" or (
            first_night and causes.get(x) in ("murdered", "poisoned")))
        state = state._replace(resume=resume, shooters=state.shooters + shooters,
                               speakers=state.speakers + speakers)
        return self.next_step(state, events)

    def next_step(self, state: GameState, events: list[Event]) -> GameState:
        names = state.names
        if state.shooters:
            h, rest = state.shooters[0], state.shooters[1:]
            state = state._replace(shooter=h, shooters=rest)
            return self.open(state, Phase.HUNT, events, frozenset((names[h],)))
        if state.sheriff != NOBODY and not state.alive[state.sheriff] and \
                state.phase is not Phase.BADGE:
            return self.open(state, Phase.BADGE, events)
        if state.speakers and state.phase is not Phase.LAST_WORDS:
            speakers = state.speakers
            state = self.open(state, Phase.LAST_WORDS, events)
            return state._replace(speakers=speakers)
        nxt = state.resume or Phase.DAY
        state = state._replace(resume=None, shooter=NOBODY, speakers=())
        day = state.day + (nxt is Phase.DAY)
        if nxt is Phase.DAY and state.rules.sheriff and not state.elected:
            n = len(names)
            state = state._replace(day=day, running=frozenset(), ran=frozenset(),
                                   executed_today=NOBODY, whispered=(0,) * n)
            return self.open(state, Phase.CANDIDACY, events)
        if nxt is Phase.DAY:
            return self.open_day(state, day, events)
        return r.enter(state, day, nxt, events)


def _others(names: tuple[str, ...], alive: tuple[bool, ...], s: int) -> list[str]:
    """The living other than seat ``s`` (a Hunter's targets, a sheriff's heirs)."""
    return [names[t] for t in range(len(names)) if t != s and alive[t]]


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



# AutoWerewolf's table: 4 Werewolves, 4 Villagers, a Seer, a Witch, a Hunter, and a Guard
# (role set A) or a Village Idiot (B); ``role_set`` deals its roles
ROLE_SETS = {"A": role_counts(ww=4, vil=4, seer=1, witch=1, hunter=1, guard=1),
             "B": role_counts(ww=4, vil=4, seer=1, witch=1, hunter=1, idiot=1)}


# the options only the werewolf-* rulesets take
OPTIONS = ("role_set", "witch_self_heal_n1", "guard_self_guard", "same_guard_same_save_kills",
           "self_knife", "self_explode", "sheriff", "speaking_order", "night_steps")


def _role_set(changes: dict) -> None:
    werewolf_night.check(changes)
    if (role_set := str(changes.get("role_set", "A")).upper()) not in ROLE_SETS:
        raise ConfigError(f"bad value {changes['role_set']!r} for ruleset option "
                          "'role_set' (A: a Guard, B: a Village Idiot)")
    if "role_set" in changes:
        changes.update(role_set=role_set, roles=ROLE_SETS[role_set])


register_ruleset(
    Ruleset(name="werewolf-12", flow=Flow.WEREWOLF, roles=ROLE_SETS["A"], min_players=12,
            max_players=12, first_day=0, tie=TiePolicy.RUNOFF, attack_tie=TiePolicy.RANDOM,
            win=WinCondition.SIDE, self_knife=True, talks_per_day=3, whispers_per_day=None,
            day0_talk=False, role_set="A", guard_repeat=False, sheriff=True,
            self_explode=True, speaking_order=True, night_steps=werewolf_night.STEPS),
    own=OPTIONS, adjust=_role_set)
