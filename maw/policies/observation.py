"""The environment's one action space and its observations, both derived from the engine
(its action table, its roles, its phases) and a player's own view: nothing a player may
not know goes into its observation.

Actions (``Discrete``), in this order:

* 0: nothing (listen, pass, no choice this phase);
* one index for each action of the table without a target or a text (``over``, ``run``,
  ``withdraw``, ``tear``, ``explode``, ``unvote``...);
* N indices for each action with a target (``vote``, ``attack``, ``divine``, ``guard``,
  ``save``, ``poison``, ``shoot``, ``badge``, ``first``), one a seat;
* what a chat may say, in the claims grammar every decider reads
  (``maw.policies.claims``): coming out as a role (one index a role), and "X is a
  werewolf", "X is human", "I suspect X" (N indices each);
* (``joined``: a game whose day is spoken in turns, one line a speaker) a coming-out as a
  role that reports a result (Seer, Medium) joined with one result in one line: "I am the
  Seer. X is a werewolf." (N indices for each such role and species). Where a player
  speaks several times a day it says them in turn;
* (``advised``) the rule player's own line, whole, where its advice is a chat (one index).

A whisper (a free text to one player) has no index.

An observation may also hold the rule player's advice (``Adviser``): the index of what a
rule player reading the same seat would do now, so that a network learns where to do
otherwise rather than the rule player's every tie-break and plan.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache

import numpy as np

from maw.engine import Action, Chat, PlayerView, Room
from maw.engine.actions import ACTIONS, ActionSpec
from maw.engine.roles import ROLES, role_named
from maw.engine.state import SHIPPED_PHASES
from maw.policies import claims
from maw.policies.base import Decider, make_decider

CLAIMS = ("werewolf", "human", "suspect")
SPECIES = ("werewolf", "human")


@dataclass(frozen=True)
class Layout:
    """The action space of a game of ``names`` (seat order); ``joined``: a game whose day
    is spoken in turns (``Ruleset.speaking_order``) also has the joined claims;
    ``advised``: a network that reads the rule player's advice may say its line whole
    (``line``: a line of several claims is one chat, as the rule player says it)."""

    names: tuple[str, ...]
    joined: bool = False
    advised: bool = False

    def __getstate__(self) -> dict[str, object]:  # (pickled: its fields, not what it
        # worked out, which holds the action table's functions)
        return {f.name: getattr(self, f.name) for f in fields(self)}

    # (each part of the space worked out once a layout, not at each of the thousands of
    # indices a mask reads: the registries it reads are filled at import)
    @cached_property
    def plain(self) -> tuple[ActionSpec, ...]:
        return tuple(s for s in ACTIONS.values() if not s.target and not s.text)

    @cached_property
    def targeted(self) -> tuple[ActionSpec, ...]:
        return tuple(s for s in ACTIONS.values() if s.target and not s.text)

    @cached_property
    def roles(self) -> tuple[str, ...]:
        return tuple(sorted(r.name for r in ROLES.values()))

    @cached_property
    def reporting(self) -> tuple[str, ...]:
        """The roles a joined claim comes out as (none unless ``joined``)."""
        if not self.joined:
            return ()
        return tuple(sorted(r.name for r in ROLES.values() if r.reports))

    @cached_property
    def size(self) -> int:
        n = len(self.names)
        return (1 + len(self.plain) + n * len(self.targeted) + len(self.roles)
                + n * len(CLAIMS) + len(self.reporting) * len(SPECIES) * n
                + (1 if self.advised else 0))

    @cached_property
    def line(self) -> int | None:
        """(advised) The index of the rule player's own line."""
        return self.size - 1 if self.advised else None

    def pair(self, said: list[claims.Claim]) -> tuple[claims.Claim, claims.Claim] | None:
        """The joined claim of a line's claims ``said`` (a coming-out as a reporting role
        and its results): the coming-out and the last werewolf found, else the last
        result; ``None`` if there is none, or the space has no joined claims."""
        role = next((c for c in said if c.kind == "role" and c.value in self.reporting), None)
        found = [c for c in said if c.kind == "species"]
        if role is None or not found:
            return None
        wolves = [c for c in found if c.value == "werewolf"]
        return role, (wolves or found)[-1]

    def action(self, index: int, me: str) -> Action | None:
        """The engine action of ``index`` for player ``me`` (``None``: nothing, or the
        rule player's line, which ``mask`` is given); a claim is a chat in the Village (the
        room is fixed when it is played)."""
        n = len(self.names)
        if index == 0 or index == self.line:
            return None
        i = index - 1
        if i < len(self.plain):
            spec = self.plain[i]
            return spec.cls(me, Room.VILLAGE) if spec.room else spec.cls(me)
        i -= len(self.plain)
        if i < n * len(self.targeted):
            return self.targeted[i // n].cls(me, self.names[i % n])
        i -= n * len(self.targeted)
        if i < len(self.roles):
            return Chat(me, Room.VILLAGE, claims.say_role(self.roles[i]))
        i -= len(self.roles)
        if i < n * len(CLAIMS):
            kind, target = CLAIMS[i // n], self.names[i % n]
            text = claims.say_suspect(target) if kind == "suspect" else \
                claims.say_species(target, kind)
            return Chat(me, Room.VILLAGE, text)
        i -= n * len(CLAIMS)
        role, i = self.reporting[i // (len(SPECIES) * n)], i % (len(SPECIES) * n)
        result = claims.say_species(self.names[i % n], SPECIES[i // n])
        return Chat(me, Room.VILLAGE, f"{claims.say_role(role)} {result}")

    @property
    def seat(self) -> dict[str, int]:
        """Each name's seat (its index in a targeted action's block)."""
        return _seats(self.names)

    @cached_property
    def plain_index(self) -> dict[type, int]:
        """The index of each plain action's class."""
        return {s.cls: 1 + i for i, s in enumerate(self.plain)}

    @cached_property
    def targeted_index(self) -> dict[type, int]:
        """The first index (the first seat's) of each targeted action's class."""
        base, n = 1 + len(self.plain), len(self.names)
        return {s.cls: base + i * n for i, s in enumerate(self.targeted)}

    @cached_property
    def claim_texts(self) -> tuple[tuple[int, str], ...]:
        """Every claim's index and its text (the same whoever says it), in order."""
        start = 1 + len(self.plain) + len(self.names) * len(self.targeted)
        out = []
        for k in range(start, self.size - (1 if self.advised else 0)):
            said = self.action(k, "")
            assert isinstance(said, Chat)
            out.append((k, said.text))
        return tuple(out)

    @cached_property
    def claim_slots(self) -> np.ndarray:
        """The claims' indices (``claim_texts``'), as an index array."""
        return np.array([k for k, _text in self.claim_texts], dtype=np.intp)

    @cached_property
    def claim_chats(self) -> dict[tuple[str, Room], dict[int, Chat]]:
        """(filled by ``mask``) Each (speaker, room)'s claims: index -> its chat (a chat is
        a frozen value: every mask of that speaker there hands out the same ones)."""
        return {}

    @staticmethod
    def index_of(action: Action, chosen: dict[int, Action]) -> int:
        """The index of ``action``, not a chat, among ``chosen`` (``mask``'s legal
        actions)."""
        for k, a in chosen.items():
            if a == action:
                return k
        raise ValueError(f"{action!r} has no index")  # pragma: no cover - it is legal

    def claim_indices(self, speaker: str, text: str,
                      chosen: dict[int, Action]) -> list[int | None]:
        """The index of each claim ``speaker``'s line ``text`` makes, in order: the chat of
        ``chosen`` (``mask``'s legal actions) that makes that one claim, ``None`` for a
        claim the space lacks; a coming-out and its result first, as one joined chat,
        where the space has it."""
        space: dict[tuple[claims.Claim, ...], int] = {}
        for k, a in chosen.items():
            if isinstance(a, Chat):
                space.setdefault(claims.parsed(speaker, a.text, self.names), k)
        said = claims.parse(speaker, text, self.names)
        pair = self.pair(said)
        if pair is not None and pair in space:  # (a coming-out and a result: one chat)
            return [space[pair], *(space.get((c,)) for c in said if c not in pair)]
        return [space.get((c,)) for c in said]

    def mask(self, legal: tuple[Action, ...],
             line: Chat | None = None) -> tuple[np.ndarray, dict[int, Action]]:
        """The legal indices (1: legal) and the engine action each stands for (a claim in
        the room where a chat is legal); ``line``: (advised) the rule player's line now,
        one of ``legal``'s chats."""
        seat, plain, targeted = self.seat, self.plain_index, self.targeted_index
        out = np.zeros(self.size, dtype=np.int8)
        out[0] = 1
        chosen: dict[int, Action] = {}
        for action in legal:
            kind = type(action)
            if kind in plain:
                out[plain[kind]] = 1
                chosen[plain[kind]] = action
            elif kind in targeted:
                k = targeted[kind] + seat[getattr(action, "target")]  # noqa: B009
                out[k] = 1
                chosen[k] = action
            elif isinstance(action, Chat):
                said = self.claim_chats.get((action.actor, action.room))
                if said is None:  # (a speaker's claims in a room: the same chats each time)
                    said = self.claim_chats[action.actor, action.room] = {
                        k: Chat(action.actor, action.room, text)
                        for k, text in self.claim_texts}
                out[self.claim_slots] = 1
                chosen.update(said)
        if line is not None and self.line is not None:
            out[self.line] = 1
            chosen[self.line] = line
        return out, chosen


PHASES = SHIPPED_PHASES  # (a shape's own phases are not numbered: a learned player's
# observation has the shipped ones)


class Adviser:
    """What a rule player reading ``player``'s seat would do now, as an index of a
    layout's actions (``index``): the environment's teacher (imitation) and the advice an
    observation may hold. It hears what the seat hears (``observe``) and remembers each
    choice as its own. A chat is the layout's ``line`` where it has one (``line`` holds
    it); else one claim of the space: a line of several ("I am the Seer. Bob is a
    werewolf.") is said one claim a turn, the rest at the seat's next turns of the phase
    (the rule player speaks once a phase), and a line with none is 0."""

    def __init__(self, player: str, rng: random.Random) -> None:
        # (``rng``: the seat's own stream, as a rule player in that seat has: one seeded
        # alike in every game drew alike, never ran for sheriff on a draw, and cost the
        # werewolves it advised 2.9 points of 15.5; with the seat's stream, following the
        # advice is playing the rule player, move for move)
        self.rule: Decider = make_decider("rule", player, rng)
        self.queued: tuple[tuple | None, list[int]] = (None, [])  # (phase, claims to say)
        self.line: Chat | None = None  # (advised) its line, where its advice is a chat

    @property
    def player(self) -> str:
        return self.rule.player

    def observe(self, event) -> None:
        self.rule.observe(event)

    def index(self, view: PlayerView, legal: tuple[Action, ...], layout: Layout) -> int:
        self.line = None
        stamp = (view.day, view.phase, view.vote_round)
        mask, chosen = layout.mask(legal)
        at, queued = self.queued
        while at == stamp and queued:
            k = queued.pop(0)
            if mask[k]:
                return k
        action = self.rule.decide(view, legal)
        if action is None:
            return 0
        if not isinstance(action, Chat):
            return layout.index_of(action, chosen)
        if layout.line is not None:
            self.line = action
            return layout.line
        indices = [k for k in layout.claim_indices(view.player, action.text, chosen)
                   if k is not None]
        self.queued = (stamp, indices[1:])
        return indices[0] if indices else 0


def observation_size(n: int, layout: Layout, beliefs: bool, advice: bool = False) -> int:
    return (n  # me
            + len(layout.roles)  # my role
            + 7 * n  # alive, known wolves, known humans, my results, murdered, executed,
            # sheriff
            + 2 * n * n  # the last execution vote, today's votes so far
            + len(layout.roles) * n  # claimed roles
            + 2 * n * n  # claimed results (by, on), suspicions (by, on)
            + len(PHASES) + 1  # the phase, the day
            + (n if beliefs else 0)
            + (layout.size if advice else 0))  # the rule player's advice


@dataclass
class Heard:
    """What a player heard said, in the claims grammar: claimed roles, claimed results,
    suspicions (by seat)."""

    roles: dict[tuple[int, str], float]
    results: dict[tuple[int, int], float]
    suspects: dict[tuple[int, int], float]

    @classmethod
    def empty(cls) -> Heard:
        return cls({}, {}, {})

    def hear(self, speaker: str, text: str, names: tuple[str, ...]) -> None:
        seat = _seats(names)
        if speaker not in seat:
            return
        s = seat[speaker]
        for c in claims.parse(speaker, text, names):
            if c.kind == "role":
                self.roles[(s, c.value)] = 1.0
            elif c.kind == "species":
                self.results[(s, seat[c.target])] = 1.0 if c.value == "werewolf" else -1.0
            elif c.kind == "suspect":
                self.suspects[(s, seat[c.target])] = 1.0


@lru_cache(maxsize=64)
def _seats(names: tuple[str, ...]) -> dict[str, int]:
    """Each name's seat (one game's names: every line heard asks; not to be changed)."""
    return {name: i for i, name in enumerate(names)}


def observe(view: PlayerView, layout: Layout, heard: Heard,
            belief: dict[str, float] | None, beliefs: bool,
            advice: int | None = None, advised: bool = False) -> np.ndarray:
    """The fixed-size observation of ``view`` (values in [-1, 1]); ``advised``: with the
    rule player's ``advice`` (``Adviser.index``; ``None``: none, when it is not to act).

    Its parts, in order (:func:`observation_size` counts them), written into one vector:
    a part of ``n`` has a value per seat, one of ``n * n`` one per (seat, seat) row by
    row; a later value for the same place wins."""
    names = layout.names
    n = len(names)
    seat = layout.seat
    roles = layout.roles
    out = np.zeros(observation_size(n, layout, beliefs, advised), dtype=np.float32)
    out[seat[view.player]] = 1.0  # me
    at = n
    out[at + roles.index(view.role)] = 1.0  # my role
    at += len(roles)
    for p in view.living:
        out[at + seat[p]] = 1.0
    at += n
    known = {p: role_named(r).pack for p, r in view.known_roles.items()}
    for p, wolf in known.items():  # known wolves, then known humans
        out[at + (0 if wolf else n) + seat[p]] = 1.0
    at += 2 * n
    for _d, _k, t, species in view.results:  # my results
        out[at + seat[t]] = 1.0 if species == "werewolf" else -1.0
    at += n
    for _d, p, c in view.deaths:  # the murdered, then the executed
        if c == "murdered":
            out[at + seat[p]] = 1.0
        elif c == "executed":
            out[at + n + seat[p]] = 1.0
    at += 2 * n
    if view.sheriff:
        out[at + seat[view.sheriff]] = 1.0
    at += n
    executions = [v for _d, k, _r, v in view.vote_history if k == "execute"]
    for voter, target in executions[-1] if executions else ():  # the last execution vote
        out[at + seat[voter] * n + seat[target]] = 1.0
    at += n * n
    for voter, target in view.votes.items():  # today's votes so far
        out[at + seat[voter] * n + seat[target]] = 1.0
    at += n * n
    for (s, role), x in heard.roles.items():  # claimed roles (role, by)
        if role in roles:
            out[at + roles.index(role) * n + s] = x
    at += len(roles) * n
    for table in (heard.results, heard.suspects):  # claimed results, suspicions (by, on)
        for (a, b), x in table.items():
            out[at + a * n + b] = x
        at += n * n
    if view.phase in PHASES:  # (a shape's own phase: none of them)
        out[at + PHASES.index(view.phase)] = 1.0
    at += len(PHASES)
    out[at] = min(view.day / 20.0, 1.0)
    at += 1
    if beliefs:
        for p, x in (belief or {}).items():
            out[at + seat[p]] = float(x)
        at += n
    if advised:
        if advice is not None:
            out[at + advice] = 1.0
        at += layout.size
    assert at == len(out), (at, len(out))  # (every part where observation_size counts it)
    return out
