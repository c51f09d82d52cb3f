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
* ``maw.engine.werewolf`` — werewolf-12, AutoWerewolf's game (its own module: its steps).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import ClassVar

from mypy_extensions import mypyc_attr

from maw.engine import describe as d
from maw.engine import resolution as r
from maw.engine.actions import Room, night_spec
from maw.engine.dayflow import DayFlow, register_flow
from maw.engine.events import Event, RoleRevealed
from maw.engine.names import DAY, HIDEOUT_ROOM, NIGHT, VILLAGE_ROOM, VOTE, WHISPER
from maw.engine.rulesets import (
    Flow,
    Ruleset,
    TiePolicy,
    VotesOpen,
    WinCondition,
    register_ruleset,
    role_counts,
)
from maw.engine.state import GameState, Phase, living_names

NOBODY = r.NOBODY


# (each open to subclasses in plain Python, werewolf-12's among them, when this module is
# compiled: maw.engine.compiled; registered after the class, as a class decorator would
# make mypyc build a Python class)
@mypyc_attr(allow_interpreted_subclasses=True)
class CoreFlow(DayFlow):
    """The defaults of the shipped flows: a night resolves at once, then the next phase."""

    def night_decided(self, state: GameState, target: int, events: list[Event]) -> GameState:
        return r.finish_night(state, target, events)

    def after_deaths(self, state: GameState, seats: list[int], events: list[Event]
                     ) -> GameState:
        return r.advance(state, events)


@mypyc_attr(allow_interpreted_subclasses=True)
class MawFlow(CoreFlow):
    flow: ClassVar[Flow | str] = Flow.MAW
    next_phase = MappingProxyType({Phase.DAY: Phase.NIGHT, Phase.NIGHT: Phase.DAY})
    rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, Phase.NIGHT: Room.HIDEOUT})
    vote_phase = Phase.DAY
    choices_change = True
    over = False
    wolves_learn_executed = True
    no_over = "MAW has no Over: a player who has nothing to say just listens"

    def rules_text(self, rules: Ruleset, players: int) -> str:
        """The design document's game (§1.2), as its options make it."""
        out = [*d.deal(rules, players), *d.powers(rules, players), *d.guarding(rules, players),
               "The game starts with day 1, and each day is followed by a night.",
               "Each day everyone talks in the Village."]
        if rules.votes_open is VotesOpen.TALK:
            out.append("The votes open once every living player has spoken or passed (or "
                       "when the talk's share of the day is over).")
        itself = "it may vote for itself" if rules.self_vote else \
            "a vote for oneself is not allowed"
        out += [f"Each living player has one public vote, which it may change or withdraw; "
                f"{itself}." if rules.announce_votes else
                "Each living player has one secret vote, which it may change or withdraw: "
                f"nobody else hears of it until the day's result tells who voted for whom; "
                f"{itself}.",
                "As soon as a majority of the living vote for the same player, that player is "
                "executed.",
                "When the day's time runs out, the player with the most votes is executed (no "
                f"votes: nobody); on a tie {d.tie('execute', rules.tie)}."]
        if rules.whisper:
            out.append("By day a living player may also whisper a line to one other living "
                       "player, which nobody else hears (at most 5 whispers a day).")
        victim = "a werewolf too" if rules.attack_wolves else "never a werewolf"
        guarded = ", and is not protected" if d.protected(rules, players) else ""
        out += ["The executed player's role is told to the werewolves alone; nobody else "
                "learns the role of anyone who dies.",
                "Each night, the first one included, the werewolves talk in the Hideout and "
                f"each votes for a victim ({victim}), and may change that vote: the victim "
                "dies only if every living werewolf votes for the same player before the "
                f"night ends{guarded}.",
                d.win(rules, players), *d.draw(rules, players)]
        return " ".join(out)

    def public_votes(self, phase: Phase) -> bool:
        return phase is DAY

    def talk_first(self, state: GameState, phase: Phase) -> bool:
        return phase is DAY and state.rules.votes_open is VotesOpen.TALK

    def after_talk(self, state: GameState, s: int, room: Room, events: list[Event]
                   ) -> GameState:
        """The votes open once every living player has spoken or passed."""
        if state.ballot or state.phase is not DAY:
            return state
        if all(spoke or passed for spoke, passed, a in zip(
                state.spoken, state.done, state.alive, strict=True) if a):
            return r.open_votes(state, "talk", events)
        return state

    def actors(self, state: GameState) -> tuple[str, ...]:
        if state.phase is DAY:
            return living_names(state.names, state.alive)
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

    def split(self, state: GameState) -> bool:
        """By night, two living wolves attack different players."""
        if state.phase is not NIGHT:
            return False
        alive, roles, votes = state.alive, state.roles, state.votes
        picks = {votes[i] for i, a in enumerate(alive) if a and roles[i].pack}
        picks.discard(NOBODY)
        return len(picks) > 1

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
        if state.phase is DAY:
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


# design document §1.2: any size from 3, a third of the table werewolves (options deal
# Seers and other roles from the villagers)
register_ruleset(Ruleset(name="maw", flow=Flow.MAW, roles=None, min_players=3,
                         max_players=200), own=("seer", "roles", "whisper", "announce_votes"))


@mypyc_attr(allow_interpreted_subclasses=True)
class AiwolfFlow(CoreFlow):
    flow: ClassVar[Flow | str] = Flow.AIWOLF
    next_phase = MappingProxyType({Phase.DAY: Phase.VOTE, Phase.VOTE: Phase.WHISPER,
                                   Phase.WHISPER: Phase.NIGHT, Phase.NIGHT: Phase.DAY})
    rooms = MappingProxyType({Phase.DAY: Room.VILLAGE, Phase.WHISPER: Room.HIDEOUT})
    vote_phase = Phase.VOTE
    choices_change = False
    over = True
    wolves_learn_executed = False

    def rules_text(self, rules: Ruleset, players: int) -> str:
        """The AIWolf contest's game, in the variant and options of ``rules``."""
        out = [*d.deal(rules, players), *d.powers(rules, players), *d.guarding(rules, players)]
        if rules.day0_talk:
            out.append("The game starts with day 0, which has talk but no vote; then come "
                       "its night and the days and nights in turn.")
        else:
            out.append("The game starts with night 0 (day 0 has neither talk nor vote); then "
                       "come the days and nights in turn.")
        limit = (f" (at most {rules.talks_per_day} messages each)"
                 if rules.talks_per_day is not None else "")
        itself = "allowed" if rules.self_vote else "not allowed"
        out += [f"Each day everyone talks in the Village{limit}, saying Over when done; then "
                "each living player casts one secret vote, and the votes are shown to all.",
                "The player with the most votes is executed (no votes: nobody; on a tie "
                f"{d.tie('execute', rules.tie)}).",
                f"Votes for oneself are {itself}."]
        if rules.base_length:
            mention = (f"; what follows your first mention of another player (@Name) may "
                       f"have {rules.mention_length} more" if rules.mention_length else "")
            out.append(f"A message is cut after {rules.base_length} characters, spaces not "
                       f"counted{mention}.")
        whispers = (f" (at most {rules.whispers_per_day} messages each)"
                    if rules.whispers_per_day is not None else "")
        wolf = ("a vote for a werewolf is not counted" if rules.attack_wolves
                else "never a werewolf")
        out.append(f"Each night the werewolves first whisper in the Hideout{whispers}, while "
                   f"two or more of them live, then each votes for a victim ({wolf}), and the "
                   "player with the most votes is attacked (on a tie "
                   f"{d.tie('attack', rules.attack_tie)}).")
        guards = d.guarding(rules, players)
        out.append("The attacked player dies unless guarded." if guards else
                   "The attacked player dies unless protected." if d.protected(rules, players)
                   else "The attacked player dies.")
        never = sorted({a for role in rules.roles_for(players) for a in role.abilities
                        if not night_spec(a).night.first_night})  # type: ignore[union-attr]
        if never:
            out.append(f"There is no {' and no '.join(never)} on the first night.")
        out += ["Nobody's role is revealed when they die.", d.win(rules, players),
                *d.draw(rules, players)]
        return " ".join(out)

    def usable_tonight(self, state: GameState, abilities: frozenset[str]
                       ) -> frozenset[str]:
        if state.day > state.rules.first_day:
            return abilities
        # the first night: only what may be (the Seer's divination; no attack, no guard)
        return frozenset(a for a in abilities if night_spec(a).night.first_night)  # type: ignore[union-attr]

    def skips(self, state: GameState, day: int, phase: Phase) -> bool:
        rules = state.rules
        first = day == rules.first_day
        if phase is WHISPER:  # the pack talks if two or more of it live
            return sum(1 for a, role in zip(state.alive, state.roles, strict=True)
                       if a and role.pack) < 2
        return (phase is DAY and first and not rules.day0_talk) or \
            (phase is VOTE and first)

    def actors(self, state: GameState) -> tuple[str, ...]:
        names, alive, roles, phase = state.names, state.alive, state.roles, state.phase
        seats = range(len(names))
        if phase is DAY:
            return tuple(names[i] for i in seats
                         if alive[i] and r.talk_budget(state, i, VILLAGE_ROOM))
        if phase is VOTE:
            return tuple(names[i] for i in seats if alive[i] and state.votes[i] == NOBODY)
        if phase is WHISPER:
            return tuple(names[i] for i in seats
                         if alive[i] and roles[i].pack and r.talk_budget(state, i, HIDEOUT_ROOM))
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
                   if alive[i] and (room is VILLAGE_ROOM or roles[i].pack)):
            return r.advance(state, events)
        return state

    def end_phase(self, state: GameState, events: list[Event]) -> GameState:
        if state.phase is VOTE:
            return r.resolve_execution(state, events)
        if state.phase is NIGHT:
            return r.resolve_night(state, events)
        return r.advance(state, events)

    def at_night(self, state: GameState, events: list[Event]) -> GameState:
        if not any(r.night_abilities(state, i) for i in range(len(state.names))):
            return r.resolve_night(state, events)
        return state


register_flow(MawFlow)
register_flow(AiwolfFlow)


# AIWolf's tables: its roles at each size, and the rules of its two variants
AIWOLF_ROLES = {
    5: role_counts(ww=1, pos=1, seer=1, vil=2),
    9: role_counts(ww=2, pos=1, seer=1, med=1, bg=1, vil=3),
    13: role_counts(ww=3, pos=1, seer=1, med=1, bg=1, vil=6),
    15: role_counts(ww=3, pos=1, seer=1, med=1, bg=1, vil=8),
}
AIWOLF_VARIANTS: dict[str, dict] = {
    # the aiwolf-nlp-server configs that wrote the contest logs: talk on day 0, the vote
    # after the talk, no revote (random among the tied), self-votes allowed, attack votes
    # on wolves discarded, 4 talks per agent per day
    "nlp": dict(
        tie=TiePolicy.RANDOM, attack_tie=TiePolicy.RANDOM, self_vote=True,
        attack_wolves=True, talks_per_day=4, whispers_per_day=4, day0_talk=True,
    ),
    # the 3rd AIWolf competition's regulation: no talk on day 0, one revote on a tie of
    # either vote then random, 10 talks per agent per day
    "2021": dict(
        tie=TiePolicy.REVOTE, attack_tie=TiePolicy.REVOTE, self_vote=False,
        attack_wolves=False, guard_dead=True, talks_per_day=10, whispers_per_day=10,
        day0_talk=False,
    ),
}


def _aiwolf(n: int):
    def make(variant: str) -> Ruleset:
        return Ruleset(name=f"aiwolf-{n}", flow=Flow.AIWOLF, roles=AIWOLF_ROLES[n],
                       min_players=n, max_players=n, first_day=0, win=WinCondition.PARITY,
                       variant=variant, **AIWOLF_VARIANTS[variant])
    return make


for _n in AIWOLF_ROLES:
    register_ruleset(_aiwolf(_n), f"aiwolf-{_n}", variants=tuple(AIWOLF_VARIANTS),
                     own=("talk_mode", "base_length", "mention_length"),
                     family="the aiwolf-* rulesets")
