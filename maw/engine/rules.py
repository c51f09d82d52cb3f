"""The transitions: ``new_game``, ``legal_actions``, ``apply``, ``outcome``, and what a
player may do now (``open_room``, ``messages_left``).

Everything here is a pure function of its arguments. Chance (roles dealt, a pick among
the tied) is explicit: ``new_game`` takes a seeded ``random.Random``; a tie that the
rules settle at random leaves the state waiting for a :class:`Resolve` action, which
:func:`chance_action` draws deterministically from the game's seed (or a log supplies).
What differs between the shapes of a day is the game's flow (``maw.engine.flows``);
the resolution of votes and nights is shared (``maw.engine.resolution``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from types import MappingProxyType

from maw.engine import (  # noqa: F401 - register the shipped nights, flows
    abilities,
    compiled,
    flows,
    rlerewolf,
    werewolf,
    werewolf_sizes,
)
from maw.engine.actions import (
    ACTIONS,
    NIGHT_ACTIONS,
    SPEC_OF,
    Abort,
    ActionSpec,
    AnyAction,
    Chat,
    EndPhase,
    OpenVotes,
    Over,
    Pass,
    Resolve,
    Room,
    Unvote,
    Vote,
    Whisper,
    night_spec,
)
from maw.engine.dayflow import FLOWS, flow_of
from maw.engine.events import (
    Event,
    GameStarted,
    PhaseStarted,
    RoleAssigned,
    VoteCast,
    Whispered,
)
from maw.engine.names import DAY, HIDEOUT_ROOM, OVER, VILLAGE_ROOM
from maw.engine.resolution import (
    NOBODY,
    bad_text,
    changed,
    choose,
    enter,
    finish,
    night_abilities,
    open_votes,
    pass_turn,
    public_phase,
    replaced,
    resolve,
    talk,
    talk_budget,
    where,
)
from maw.engine.roles import Role
from maw.engine.rulesets import Ruleset
from maw.engine.scoring import points
from maw.engine.state import GameState, Outcome, Termination
from maw.errors import ConfigError, IllegalActionError

__all__ = ["NOBODY", "actors", "apply", "chance_action", "legal_actions", "listen_as",
           "may_pass", "messages_left",
           "new_game", "opening_events", "open_room", "outcome", "play"]


# ---------------------------------------------------------------- setting up


def new_game(rules: Ruleset, names: Iterable[str], rng: random.Random,
             roles: Iterable[Role] | None = None) -> GameState:
    """Deal roles to ``names`` with ``rng`` and open the first phase.

    ``roles`` fixes the deal instead (seat order; it must be the ruleset's roles for that
    many players, in any order): for replaying a recorded game and for tests.

    Raises:
        ConfigError: wrong number of players for the ruleset, bad/duplicate names, or a
            fixed deal that is not the ruleset's; ``MAW_ENGINE=compiled`` without a build.
    """
    compiled.refuse()  # (MAW_ENGINE=compiled, and no build: no game in the other engine)
    names = tuple(names)
    for name in names:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ConfigError(f"bad player name {name!r}: names are non-empty, unpadded text")
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise ConfigError(f"player names must be unique; repeated: {', '.join(dupes)}")
    deck = list(rules.roles_for(len(names)))
    _playable(rules, deck)
    if roles is None:
        rng.shuffle(deck)
    else:
        fixed = list(roles)
        key = lambda r: r.name  # noqa: E731
        if sorted(fixed, key=key) != sorted(deck, key=key):
            raise ConfigError(
                f"roles {sorted(r.name for r in fixed)} are not those of ruleset "
                f"{rules.name!r} for {len(names)} players: {sorted(r.name for r in deck)}")
        deck = fixed
    n = len(names)
    state = GameState(
        rules=rules, names=names, seat=MappingProxyType({x: i for i, x in enumerate(names)}),
        roles=tuple(deck), pack=frozenset(x for x, r in zip(names, deck, strict=True) if r.pack),
        alive=(True,) * n, day=rules.first_day, phase=DAY,
        vote_round=0, votes=(NOBODY,) * n, chosen=(None,) * n, spoken=(0,) * n,
        done=(False,) * n, candidates=(), pending="", deaths=(), vote_log=(), results=(),
        executed_today=NOBODY, termination=None, winner=None, seed=rng.getrandbits(64),
        uses=MappingProxyType({}),
    )
    events: list[Event] = []
    return enter(state, rules.first_day, DAY, events)


def _playable(rules: Ruleset, deck: list[Role]) -> None:
    """Refuse a deal with a role whose power the ruleset's day never offers (a Witch
    dealt in ``maw``, whose potions need werewolf-12's night step): it would be a
    Villager told it had a power."""
    flow = FLOWS[rules.flow]
    phases = {p.value for pair in flow.next_phase.items() for p in pair}
    for role in {r.name: r for r in deck}.values():
        never = [a for a in sorted(role.abilities) if not night_spec(a).phases & phases]
        if role.shoots and not flow.shots:
            never.append("shot")
        if never:
            raise ConfigError(f"ruleset {rules.name!r} cannot deal the {role.name}: no step of "
                              f"its day offers its {' or '.join(never)}")


def opening_events(state: GameState) -> tuple[Event, ...]:
    """The events that start a game from ``new_game``'s state: roles and the first phase."""
    pack = tuple(n for n, r in zip(state.names, state.roles, strict=True) if r.pack)
    events: list[Event] = [GameStarted(state.rules.name, state.names)]
    for name, role in zip(state.names, state.roles, strict=True):
        events.append(RoleAssigned(name, role.name, pack if role.pack else (),
                                   audience=frozenset((name,))))
    events.append(PhaseStarted(state.day, state.phase.value, state.vote_round, state.living()))
    return tuple(events)


# ---------------------------------------------------------------- what may be done


def open_room(state: GameState) -> Room | None:
    """The room the rules have open now, if any (who may speak in it is another matter)."""
    return flow_of(state).room(state.phase)


def messages_left(state: GameState, player: str) -> int | None:
    """How many more messages ``player`` may send in the open room this phase: ``None``
    for no limit, 0 if it may not speak there at all."""
    s = state.seat[player]
    room = open_room(state)
    flow = flow_of(state)
    if state.phase in flow.steps:  # a step's one speech (last words, a candidate's)
        return int(any(type(a) is Chat for a in flow.legal(state, s)))
    if room is None or not state.alive[s] or state.pending or \
            (room is HIDEOUT_ROOM and not state.roles[s].pack):
        return 0
    limit = state.rules.talks_per_day if room is VILLAGE_ROOM else state.rules.whispers_per_day
    if limit is None:
        return None if talk_budget(state, s, room) else 0
    return (limit - state.spoken[s]) if talk_budget(state, s, room) else 0


def _may_target(state: GameState, s: int, t: int, spec: ActionSpec) -> bool:
    """May seat ``s`` target seat ``t`` with the action of ``spec`` now?"""
    if spec.night is not None:
        if spec.night.may_target is not None:
            return spec.night.may_target(state, s, t)
        return state.alive[t] and t != s
    if not state.alive[t]:
        return False
    return t != s or state.rules.self_vote  # (a vote)


def _targets(state: GameState, s: int, spec: ActionSpec) -> list[int]:
    """The seats ``s`` may target with ``spec``'s action: :func:`_may_target` over every
    seat, its common cases written out (this runs at every turn of every game)."""
    night, alive = spec.night, state.alive
    if night is not None and night.may_target is not None:
        may = night.may_target
        return [t for t in range(len(alive)) if may(state, s, t)]
    itself = night is None and state.rules.self_vote  # (a vote for oneself)
    return [t for t, a in enumerate(alive) if a and (t != s or itself)]


def _why_illegal(state: GameState, action: AnyAction) -> str | None:
    """Why ``action`` may not be applied now, or ``None`` if it may."""
    actor = getattr(action, "actor", None)
    s = state.seat.get(actor) if isinstance(actor, str) else None
    if s is None:
        return f"{actor!r} is not a player in this game"
    kind = type(action)
    flow = flow_of(state)
    if flow.owns(state, action):  # a step of the flow's own (werewolf-12's), or its action
        return flow.why_not(state, s, action)
    if not state.alive[s]:
        return f"{actor} is dead"
    role, phase = state.roles[s], state.phase
    if kind is Chat or kind is Over:
        room: Room = action.room  # type: ignore[union-attr]
        if flow.room(phase) is not room:
            return f"the {room} is closed"
        if room is HIDEOUT_ROOM and not role.pack:
            return f"{actor} may not enter the Hideout"
        if kind is Over and not flow.over:
            return flow.no_over
        if not talk_budget(state, s, room):
            return f"{actor} has no messages left in the {room} this phase"
        if kind is Chat:
            return bad_text(state, action.text)  # type: ignore[union-attr]
        return None
    if kind is Whisper:
        return _why_not_whisper(state, s, action)  # type: ignore[arg-type]
    if kind is Pass:
        if not flow.talk_first(state, phase) or state.ballot:
            return "there is no turn to pass: the votes are open"
        if state.spoken[s] or state.done[s]:
            return f"{actor} has had its turn"
        return None
    if not state.ballot and (kind is Unvote or kind is Vote):
        return "the votes open once every living player has spoken or passed"
    if kind is Unvote:
        if not (phase is flow.vote_phase and flow.choices_change):
            return "votes can be withdrawn only during a MAW day"
        if state.votes[s] == NOBODY:
            return f"{actor} has no vote to withdraw"
        return None
    spec = SPEC_OF.get(kind)
    if spec is None or not spec.target:
        return f"{kind.__name__} is not a player action"
    if spec.ability is None:  # a vote
        if kind is not Vote:  # (another flow's: a werewolf-12 Hunter's shot, say)
            return f"no {spec.name} in this game now"
        if phase is not flow.vote_phase:
            return f"no execution vote during the {public_phase(state)}"
        if s in state.exposed:
            return f"{actor}, revealed as the {role.name}, may no longer vote"
        if not flow.choices_change and state.votes[s] != NOBODY:
            return f"{actor} has already voted"
    else:
        if phase.value not in spec.phases:
            return f"no {spec.name} during the {public_phase(state)}"
        if spec.ability not in role.abilities:
            return f"{actor} cannot {spec.name}"
        if spec.ability not in night_abilities(state, s):
            return f"{actor} cannot {spec.name} tonight"
        if not flow.choices_change and state.votes[s] != NOBODY:
            return f"{actor} has already chosen tonight"
    target = action.target  # type: ignore[union-attr]
    t = state.seat.get(target) if isinstance(target, str) else None
    if t is None:
        return f"{target!r} is not a player in this game"
    if not _may_target(state, s, t, spec):
        if t == s:
            return f"{actor} may not {spec.name} {actor}: not oneself"
        if not state.alive[t]:
            return f"{target} is dead"
        return f"{target} is not a legal target"
    if state.runoff and spec.ability is None and t not in state.runoff:
        tied = ", ".join(state.names[x] for x in state.runoff)
        return f"{target} is not in the runoff (between {tied})"
    if flow.choices_change and state.votes[s] == t:
        return f"{actor} already votes for {target}"
    return None


WHISPERS = 5  # whispers a player may send a day (whisper=on): a whisper is not a flood


def _why_not_whisper(state: GameState, s: int, action: Whisper) -> str | None:
    """Why seat ``s`` may not whisper ``action`` now (the dead neither send nor receive)."""
    rules = state.rules
    if not rules.whisper:
        return "there are no whispers in this game (the maw ruleset's whisper=on)"
    if state.phase is not DAY:
        return "whispers are for the day"
    if state.whispered[s] >= WHISPERS:
        return f"{state.names[s]} has whispered {WHISPERS} times today"
    t = state.seat.get(action.target) if isinstance(action.target, str) else None
    if t is None:
        return f"{action.target!r} is not a player in this game"
    if t == s:
        return f"{state.names[s]} may not whisper to itself"
    if not state.alive[t]:
        return f"{action.target} is dead: the dead hear no whispers"
    return bad_text(state, action.text, "a whisper")


def legal_actions(state: GameState, player: str) -> tuple[AnyAction, ...]:
    """Every action ``player`` may take now (chat listed once, with empty text)."""
    s = state.seat.get(player)
    if s is None or state.phase is OVER or state.pending:
        return ()
    names, phase, flow, role = state.names, state.phase, flow_of(state), state.roles[s]
    if phase in flow.steps:  # a step of the flow's own: the dead may act in some
        return tuple(flow.legal(state, s))
    if not state.alive[s]:
        return ()
    acts: list[AnyAction] = []
    room = flow.room(phase)
    if room is not None and (room is VILLAGE_ROOM or role.pack) and talk_budget(state, s, room):
        acts.append(offer(Chat, player, room))
        if flow.over:
            acts.append(offer(Over, player, room))
    if state.rules.whisper and phase is DAY and state.whispered[s] < WHISPERS:
        row = offers(Whisper, player, names)
        acts.extend([row[t] for t in range(len(names)) if t != s and state.alive[t]])
    mine = state.votes[s]
    if phase is flow.vote_phase and state.ballot and s not in state.exposed:
        vote = SPEC_OF[Vote]
        targets = _targets(state, s, vote)
        if state.runoff:  # (tie=runoff: between the tied alone)
            targets = [t for t in targets if t in state.runoff]
        row = offers(Vote, player, names)
        if flow.choices_change:
            acts.extend([row[t] for t in targets if t != mine])
            if mine != NOBODY:
                acts.append(Unvote(player))
        elif mine == NOBODY:
            acts.extend([row[t] for t in targets])
    elif phase is not flow.vote_phase and (flow.choices_change or mine == NOBODY):
        for ability in sorted(night_abilities(state, s)):
            kind = NIGHT_ACTIONS[ability]
            spec = SPEC_OF[kind]
            row = offers(kind, player, names)
            acts.extend([row[t] for t in _targets(state, s, spec) if t != mine])
    acts.extend(flow.extra(state, s))
    return tuple(acts)


# every action offered so far, by (kind, actor, what), and every row of them, by (kind,
# actor, the game's names); each emptied when it reaches its bound
_OFFERED: dict[tuple[type, str, object], AnyAction] = {}
_ROWS: dict[tuple[type, str, tuple[str, ...]], tuple[AnyAction, ...]] = {}
_OFFERS_KEPT = 8192


def offer(kind: type, actor: str, what: object) -> AnyAction:
    """The action ``kind(actor, what)`` offered to a player: actions are frozen values, so
    one object serves every turn that offers it (making one anew was a tenth of a random
    game's time: every turn of every game lists its player's actions). A plain dict
    rather than ``lru_cache``: a lookup at every offer, and a game's offers are few."""
    key = (kind, actor, what)
    action = _OFFERED.get(key)
    if action is None:
        if len(_OFFERED) >= _OFFERS_KEPT:  # (a server of many games: the bound holds)
            _OFFERED.clear()
        action = _OFFERED[key] = kind(actor, what)
    return action


def offers(kind: type, actor: str, names: tuple[str, ...]) -> tuple[AnyAction, ...]:
    """``offer(kind, actor, name)`` for every one of a game's ``names``, in seat order,
    made once: a turn that offers a vote or a night target takes its targets from one
    row (one lookup a turn, not one a target)."""
    key = (kind, actor, names)
    row = _ROWS.get(key)
    if row is None:
        if len(_ROWS) >= _OFFERS_KEPT:
            _ROWS.clear()
        row = _ROWS[key] = tuple([offer(kind, actor, name) for name in names])
    return row


def possible_actions(rules: Ruleset, role: Role) -> tuple[ActionSpec, ...]:
    """The actions of the table a player of ``role`` may ever be offered in a game of
    ``rules``, in the table's order (a person's ``/help``): those of the phases its flow
    has, a night action only with its ability, each as its ``who`` says."""
    flow = FLOWS[rules.flow]
    phases = {p.value for p in (*flow.next_phase, *flow.next_phase.values(), *flow.steps)}
    out = []
    for spec in ACTIONS.values():
        if spec.ability is not None:
            ok = spec.ability in role.abilities
        else:
            ok = bool(spec.phases & phases) and (
                spec.who is None or bool(spec.who(rules, role, flow)))
        if ok:
            out.append(spec)
    return tuple(out)


def may_pass(state: GameState, player: str) -> bool:
    """May ``player`` let its turn to speak go now (its "listen" is then a :class:`Pass`)?"""
    s = state.seat.get(player)
    return s is not None and not state.ballot and not state.pending and \
        state.phase is not OVER and state.alive[s] and \
        not state.spoken[s] and not state.done[s]


def listen_as(state: GameState, player: str) -> AnyAction | None:
    """The move ``player``'s "listen" (no action) stands for now, or ``None`` for none: a
    :class:`Pass` while the talk comes first (:func:`may_pass`), or a flow's own, such as
    werewolf-12's speaker giving up its turn (an ``Over``: in a day of turns the speaker
    is the only one who may act, and a host that ends a phase once everyone who may act is
    idle ended the whole day's talk at the first speaker with nothing to say)."""
    if may_pass(state, player):
        return Pass(player)
    s = state.seat.get(player)
    if s is None or state.phase is OVER or state.pending or not state.alive[s]:
        return None
    return flow_of(state).gives_up(state, s)


def split(state: GameState) -> bool:
    """Do players who must agree still disagree (MAW's pack, on its victim)? A host that
    ends a phase early once everyone who may act is idle waits while they do: over XMPP
    two wolves that pick at once each answer "listen" before hearing the other's pick, and
    the night ended with no murder (30% of nights in rule games) although the one that
    follows was about to follow. Its timer still ends it."""
    return state.phase is not OVER and flow_of(state).split(state)


def actors(state: GameState) -> tuple[str, ...]:
    """The players who have at least one legal action now, in seat order."""
    if state.phase is OVER or state.pending:
        return ()
    return flow_of(state).actors(state)


# ---------------------------------------------------------------- transitions


def apply(state: GameState, action: AnyAction, offered: bool = False
          ) -> tuple[GameState, tuple[Event, ...]]:
    """Apply one action; return the new state and what happened. ``offered``: the caller
    vouches that ``action`` is one of ``legal_actions(state, its actor)`` itself (the very
    object, not a chat, whose text is the actor's), so its legality is not checked again (a
    game loop over deciders that choose among the offered actions; a tenth of a random
    game).

    Raises:
        IllegalActionError: the rules forbid ``action`` now (the message says why).
    """
    events: list[Event] = []
    kind = type(action)
    if kind is Resolve:
        return resolve(state, action, events), tuple(events)  # type: ignore[arg-type]
    if state.phase is OVER:
        raise IllegalActionError(f"the game is over ({where(state)})")
    if kind is Abort:  # (even while chance is to pick: the game ends as it is)
        return finish(changed(state, pending="", candidates=()), Termination.ABORTED,
                      events), tuple(events)
    if state.pending:
        raise IllegalActionError(
            f"chance must first pick among {', '.join(state.names[t] for t in state.candidates)}"
            f" ({where(state)})")
    if kind is EndPhase:
        return flow_of(state).end_phase(state, events), tuple(events)

    if kind is OpenVotes:
        if state.ballot or not flow_of(state).talk_first(state, state.phase):
            raise IllegalActionError(f"the votes are not closed ({where(state)})")
        return open_votes(state, "host", events), tuple(events)
    reason = None if offered else _why_illegal(state, action)
    if reason is not None:
        raise IllegalActionError(f"{reason} ({where(state)})")
    s = state.seat[action.actor]  # type: ignore[union-attr]
    flow = flow_of(state)
    if flow.owns(state, action):  # a step of the flow's own, or an action of its own
        state = flow.act(state, s, action, events)
    elif kind is Chat or kind is Over:
        state = talk(state, s, action, events)  # type: ignore[arg-type]
    elif kind is Pass:
        state = pass_turn(state, s, events)
    elif kind is Whisper:
        t = state.seat[action.target]  # type: ignore[union-attr]
        state = changed(state, whispered=replaced(state.whispered, s, state.whispered[s] + 1))
        names = state.names
        events.append(Whispered(state.day, names[s], names[t], action.text,  # type: ignore
                                frozenset((names[s], names[t]))))
    elif kind is Unvote:
        state = changed(state, votes=replaced(state.votes, s, NOBODY))
        events.append(VoteCast(state.day, "execute", state.names[s], None,
                               None if state.rules.announce_votes
                               else frozenset((state.names[s],))))
    else:
        state = choose(state, s, state.seat[action.target], action, events)  # type: ignore
    return state, tuple(events)


def chance_action(state: GameState) -> Resolve:
    """Chance's pick among the tied, drawn from the game's seed: replays are identical."""
    if not state.pending:
        raise IllegalActionError(f"there is nothing for chance to pick ({where(state)})")
    rng = random.Random(f"{state.seed}:{state.day}:{state.pending}:{state.vote_round}")
    return Resolve(state.names[rng.choice(state.candidates)])


def play(state: GameState, action: AnyAction, offered: bool = False
         ) -> tuple[GameState, tuple[Event, ...]]:
    """:func:`apply`, then let chance settle any tie it left (what a referee does)."""
    state, events = apply(state, action, offered)
    while state.pending:
        state, more = apply(state, chance_action(state))
        events += more
    return state, events


def outcome(state: GameState) -> Outcome | None:
    """How the game ended, or ``None`` while it goes on."""
    if state.termination is None:
        return None
    return Outcome(
        winner=state.winner, termination=state.termination, day=state.day,
        roles=MappingProxyType({n: r.name for n, r in zip(state.names, state.roles,
                                                          strict=True)}),
        points=MappingProxyType(dict(points(state))),
        living=state.living(),
    )
