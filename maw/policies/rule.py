"""A rule-based player: suspicion scores from votes, claims and results.

* Every player keeps a suspicion score per other player. Claimed werewolf results raise
  the target's score, claimed human results lower it; a claim that contradicts what the
  player knows for certain (its own role, its divinations, a murder victim) marks the
  claimant as a liar; votes for someone known to be human are suspicious.
* By day it says what it knows once per phase (coming out as Seer or Medium with its
  results, or naming its prime suspect and why), then votes for the one it named, unless
  another has become clearly more suspect: then it says so before it moves its vote. Its
  words vary (``maw.policies.voice``), its statements stay in the claims grammar.
* Werewolves never vote to attack a werewolf; by night they follow a packmate's choice
  (so MAW's unanimity is reached) or pick the most dangerous villager: a claimed Seer or
  Medium first, then whoever suspects the pack most.
* A Seer divines its prime suspect it has not yet divined, and acts on what it found;
  a Bodyguard guards the most trusted claimed Seer or Medium; the Possessed claims Seer
  and calls a villager a werewolf.
* werewolf-12: a Witch saves the pack's victim (unless she knows it for a werewolf) and
  poisons only a player she is sure of (a known werewolf, or one her beliefs put at 90%
  or more); a Hunter shoots its prime suspect. A player stands for sheriff when it has
  results to tell (a Seer), else now and then; it elects, and passes a badge to, the one
  it trusts most (a werewolf, a packmate).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from maw.engine import (
    Action,
    Attack,
    Chat,
    Divine,
    Event,
    Guard,
    Over,
    PlayerView,
    Unvote,
    Vote,
)
from maw.engine.actions import ACTIONS, SPEC_OF
from maw.engine.events import Chatted, GameStarted
from maw.engine.roles import report_kinds, reporters, role_named, valued
from maw.errors import MawError
from maw.policies import beliefs, claims, voice
from maw.policies.base import Decider, max_chat, register_decider
from maw.policies.memory import SetMemory

_LIAR = 10.0
# the night actions it has a tactic of its own for (the Witch's, by name: registered in
# maw.engine.abilities)
_TACTICS = (Attack, Divine, Guard, ACTIONS["save"].cls, ACTIONS["poison"].cls)
Save, Poison, Shoot = ACTIONS["save"].cls, ACTIONS["poison"].cls, ACTIONS["shoot"].cls
Run, Badge, First = ACTIONS["run"].cls, ACTIONS["badge"].cls, ACTIONS["first"].cls
_RUN = 0.2  # how often a player with nothing to report stands for sheriff
_SURE = 0.9  # the P(werewolf) at which a Witch poisons


# how much more suspect another player must be to move a vote cast (or promised): every
# vote cast moves the beliefs a little, and a vote that follows them flip-flops
_STICK = 0.5
_MOVES = 1  # the most times a day it moves a vote once cast or promised (no endless churn)


class RuleDecider(Decider):
    """See the module docstring."""

    def __init__(self, player: str, rng: random.Random) -> None:
        super().__init__(player, rng)
        self.suspicion: dict[str, float] = {}
        self.human: set[str] = {player}  # known for certain not to be a werewolf
        self.wolf: set[str] = set()  # known for certain to be a werewolf
        self.claimed: dict[str, str] = {}  # player -> role it came out as
        self.against: dict[str, set[str]] = {}  # player -> those it accused or voted
        self.spoke_in: tuple[int, str] | None = None
        self.fake_seen: set[str] = set()
        self.players: tuple[str, ...] = ()
        self.deaths_seen = 0
        self.tiebreak: dict[str, float] = {}
        self.history_seen = 0
        self.accusations: list[tuple[str, str]] = []  # (speaker, target) heard
        self.defences: list[tuple[str, str]] = []  # (speaker, defended) heard
        self.said_results: list[tuple[str, str, str]] = []  # (speaker, target, species)
        self._beliefs: dict[str, float] | None = None  # P(werewolf) of each other player
        self._unweighed: PlayerView | None = None  # the last view learnt from, not yet weighed
        self.pack_size: int | None = None
        self.murders_human: bool | None = None  # a night's victim is certainly human
        self.sheriff = ""  # the sheriff it last saw
        self._belief_key: tuple | None = None
        self.counted: beliefs.Tally | None = None  # the evidence it has counted
        self.counted_votes = 0  # the execution votes counted in it
        self.village = True  # on the village's side (its beliefs choose its votes)
        self.voice = random.Random(rng.getrandbits(32))  # the words it picks
        self.said: tuple[int, str] | None = None  # (day, whom it said it votes for)
        self.moves: tuple[int, int] = (0, 0)  # (day, votes moved that day)
        # what it learnt of the others in its game set's earlier games (``--set-memory``)
        self.set_memory: SetMemory | None = None
        # how its beliefs weigh what it saw: by hand, or fitted (``maw.policies.fitted``)
        self.ratios: beliefs.Ratios = beliefs.HAND
        self.tally_kind: Callable[..., beliefs.Tally] = beliefs.Tally
        self.poison_at = _SURE  # the P(werewolf) at which, as the Witch, it poisons

    def rule_layer(self) -> RuleDecider:
        return self

    # ------------------------------------------------------------ learning

    def _bump(self, name: str, amount: float) -> None:
        if name != self.player:
            self.suspicion[name] = self.suspicion.get(name, 0.0) + amount

    def observe(self, event: Event) -> None:
        """Only chat is read from events; votes and deaths come from the view, so the
        decider plays the same in ``maw simulate`` and over XMPP."""
        kind = type(event)
        if kind is GameStarted:
            self.players = event.players  # type: ignore[union-attr]
        elif kind is Chatted:
            self._heard(event.speaker, event.text)  # type: ignore[union-attr]

    def _voted(self, voter: str, target: str) -> None:
        if voter == self.player:
            return
        self.against.setdefault(voter, set()).add(target)
        if target in self.human:
            self._bump(voter, 1.0 if target != self.player else 1.5)
        if target in self.wolf:
            self._bump(voter, -1.0)

    def _heard(self, speaker: str, text: str) -> None:
        if speaker == self.player:
            return
        self.hear_claims(speaker, claims.parsed(speaker, text, self.players))

    def hear_claims(self, speaker: str, heard: Sequence[claims.Claim]) -> None:
        """Learn from what ``speaker`` said, as claims (parsed from the statement
        grammar, or extracted from free talk by the hybrid agent's model)."""
        if speaker == self.player:
            return
        for c in heard:
            if c.kind == "defend":
                self.defences.append((speaker, c.target))
                self._bump(c.target, -0.3)
            elif c.kind == "role":
                if c.value in reporters():
                    rivals = [p for p, r in self.claimed.items() if r == c.value and p != speaker]
                    for rival in rivals:  # two Seers: at least one lies
                        self._bump(rival, 1.0)
                        self._bump(speaker, 1.0)
                self.claimed[speaker] = c.value
            elif c.kind == "species":
                self.against.setdefault(speaker, set())
                lie = (c.value == "werewolf" and c.target in self.human) or \
                      (c.value == "human" and c.target in self.wolf)
                if lie:
                    self._bump(speaker, _LIAR)
                else:
                    self.said_results.append((speaker, c.target, c.value))
                    if c.value == "werewolf":
                        self.against[speaker].add(c.target)
                        self._bump(c.target, 2.0)
                    else:
                        self._bump(c.target, -1.0)
            else:
                self.against.setdefault(speaker, set()).add(c.target)
                self.accusations.append((speaker, c.target))
                if c.target in self.human:
                    self._bump(speaker, 1.0)

    def _learn(self, view: PlayerView) -> None:
        self.players = view.players
        self.village = view.team == "village"
        for name, role in view.known_roles.items():
            wolf = role_named(role).pack
            (self.wolf if wolf else self.human).add(name)
            (self.human if wolf else self.wolf).discard(name)  # (seen: it overrides)
        reported = report_kinds()
        for _day, kind, target, species in view.results:
            if kind in reported:
                (self.wolf if species == "werewolf" else self.human).add(target)
        if self.murders_human is None:
            try:
                self.murders_human = beliefs.murders_prove_human(view)
            except MawError:  # a ruleset this decider does not know
                self.murders_human = False
        new_deaths = view.deaths[self.deaths_seen:]
        if new_deaths:  # (a night's murders, counted when there is news)
            nights = Counter(d for d, _v, c in view.deaths if c == "murdered")
        for day, victim, cause in new_deaths:
            if cause == "murdered":
                # the pack never murders its own: the victim was human, and those who
                # accused it are more likely wolves. Where a Witch poisons (a poisoning
                # looks like a murder), a night's only death is still taken for the pack's:
                # a poison alone kills only on a night the pack's attack was stopped
                if self.murders_human or (self.murders_human is False and nights[day] == 1
                                          and victim not in self.wolf):
                    self.human.add(victim)
                for accuser in [p for p, t in self.against.items() if victim in t]:
                    self._bump(accuser, 1.0)
            elif cause == "shot":  # a Hunter's shot: its prime suspect, in effect a vote
                for hunter in [p for p, r in view.known_roles.items()
                               if role_named(r).shoots and p != victim]:
                    self.against.setdefault(hunter, set()).add(victim)
                    self.accusations.append((hunter, victim))
        self.deaths_seen = len(view.deaths)
        if view.sheriff != self.sheriff:
            # a badge passed on: the dead sheriff trusted its heir (a torn one: nobody)
            if self.sheriff and view.sheriff and self.sheriff not in view.living:
                self.defences.append((self.sheriff, view.sheriff))
            self.sheriff = view.sheriff
        for _day, kind, _round, votes in view.vote_history[self.history_seen:]:
            if kind == "execute":
                for voter, target in votes:
                    self._voted(voter, target)
        self.history_seen = len(view.vote_history)
        self._unweighed = view

    @property
    def beliefs_now(self) -> dict[str, float] | None:
        """P(werewolf) of each other player, from the last view learnt from, weighed when
        first asked for: a turn that needs no beliefs (a wolf's, a claim to make, nothing
        to do) weighs none. What it saw is counted in any order, so these are the beliefs
        it would have weighed at once."""
        if self._unweighed is not None:
            view, self._unweighed = self._unweighed, None
            self._beliefs = self._believe(view)
        return self._beliefs

    def _believe(self, view: PlayerView) -> dict[str, float] | None:
        """P(werewolf) of each other player (``maw.policies.beliefs``): from the votes of
        every day so far and today's, the accusations heard, the murders."""
        if self.pack_size is None:
            try:
                self.pack_size = beliefs.pack_size(view)
            except MawError:  # a ruleset this decider does not know: no beliefs
                self.pack_size = 0
        if view.pack:  # a wolf knows
            return {p: float(p in view.pack) for p in view.players if p != self.player}
        votes = [v for _d, k, _r, v in view.vote_history if k == "execute"]
        if view.phase == "day" and view.votes:
            votes.append(tuple(view.votes.items()))
        murdered = [v for _d, v, c in view.deaths if c == "murdered"]
        key = (sum(map(len, votes)),
               len(self.accusations) + len(self.defences) + len(self.said_results),
               len(view.living), len(murdered),
               len(self.human), len(self.wolf), len(view.players),
               tuple(sorted(self.claimed.items())) if self.set_memory else ())
        if key == self._belief_key:  # nothing new: the same beliefs
            return self._beliefs
        self._belief_key = key
        # what it saw, counted once: the votes of past days, what it heard; today's
        # votes, which may still change, on a copy
        others = [p for p in view.players if p != self.player]
        if self.counted is None or self.counted.others != others:
            self.counted = self.tally_kind(self.player, view.players, self.ratios)
            self.counted_votes = 0
        settled = len(votes) - (view.phase == "day" and bool(view.votes))
        for vote in votes[self.counted_votes:settled]:
            self.counted.vote(vote)
        self.counted_votes = settled
        self.counted.heard(self.accusations, self.defences, self.said_results)
        if self.set_memory is not None:  # how each claimant's claims went in the set
            self.counted.lean(self.set_memory.log_ratios(self.claimed))
        tally = self.counted
        if settled < len(votes):
            tally = tally.copy()
            tally.vote(votes[-1])
        return tally.probabilities(self.pack_size or 0, self.human, self.wolf, murdered,
                                   list(view.living) if view.winner is None else None)

    # ------------------------------------------------------------ choosing

    def beliefs(self, view: PlayerView) -> dict[str, float] | None:
        """Its belief state (``maw.policies.beliefs``), the uniform prior where there are
        too many packs to weigh."""
        self._learn(view)
        return dict(self.beliefs_now) if self.beliefs_now else beliefs.uniform(view)

    def _tie(self, name: str) -> float:
        """A tie-break drawn once per name from the player's stream: the same facts give
        the same choice (votes settle instead of flip-flopping each time the player is
        asked again), and no order of the names decides one (the pack's first victim went
        to the highest name, which told a Witch every name above it was a wolf's)."""
        tie = self.tiebreak.get(name)
        if tie is None:
            tie = self.tiebreak[name] = self.rng.random() * 0.01
        return tie

    def _score(self, name: str) -> float:
        if name in self.wolf:
            return 100.0
        if name in self.human:
            return -100.0
        tie = self._tie(name)
        if self.village:  # (only a villager's score weighs the beliefs)
            # what the votes, the accusations, the murders and the results claimed say
            # (maw.policies.beliefs weighs the claims too: before, a village that heard a
            # claim fell back on raw suspicion and won 54% of rule games on aiwolf-9,
            # against 92% now; benchmarks/README.md)
            belief = self.beliefs_now
            if belief is not None and (mine := belief.get(name)) is not None:
                return mine * 10 + tie
        return self.suspicion.get(name, 0.0) + tie

    def _say(self, view: PlayerView) -> str | None:
        me = role_named(view.role)
        lines: list[str] = []
        if me.reports:
            found = [(t, s) for _d, k, t, s in view.results if k == me.reports]
            if found:
                lines.append(claims.say_role(me.name))
                lines.extend(claims.say_species(t, s) for t, s in found[-2:])
        elif me.fakes:
            fake = [p for p in view.living if p != self.player and p not in self.fake_seen]
            if fake:
                target = self.rng.choice(fake)
                self.fake_seen.add(target)
                lines += [claims.say_role(me.fakes), claims.say_species(target, "werewolf")]
        if lines:
            return " ".join(lines)
        suspect = self._prime(view, view.living)
        if suspect is None:
            return None
        self.said = (view.day, suspect)  # and its vote will follow, unless it says so
        return voice.suspect_line(suspect, self.reason(view, suspect), self.voice)

    def reason(self, view: PlayerView, target: str) -> str:
        """Why ``target`` is suspect, from what everyone saw (never a secret); empty when
        nothing points at it yet."""
        murdered = {p: d for d, p, c in view.deaths if c == "murdered"}
        for day, kind, _r, votes in reversed(view.vote_history):
            if kind != "execute":
                continue
            by = dict(votes)
            victim = by.get(target)
            if victim in murdered:
                night = "that night" if murdered[victim] == day else \
                    f"on night {murdered[victim]}"
                return voice.reason("murdered", self.voice, self.player, t=target, v=victim,
                                    d=day, n=night)
            along = sorted(v for v, t in votes if t == victim and v not in (target,
                                                                            self.player))
            if victim and along:
                return voice.reason("along", self.voice, self.player, t=target, a=along[0],
                                    v=victim, d=day)
        accused = [t for s, t in self.accusations if s == target and t in murdered]
        if accused:
            return voice.reason("accused", self.voice, self.player, t=target, v=accused[-1])
        said = [t for s, t in self.accusations if s == target]
        if said:
            return voice.reason("points", self.voice, self.player, t=target, v=said[-1])
        return ""

    def _prime(self, view: PlayerView, pool: tuple[str, ...] | list[str]) -> str | None:
        options = [p for p in pool if p != self.player and p not in view.pack]
        return max(options, key=self._score) if options else None

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        assert view is not None
        self._learn(view)
        by_kind: dict[type, list[Action]] = {}
        for a in legal:
            by_kind.setdefault(type(a), []).append(a)
        stamp = (view.day, view.phase)
        if Chat in by_kind and self.spoke_in != stamp:
            self.spoke_in = stamp
            chat = by_kind[Chat][0]
            if chat.room.value == "Hideout":  # type: ignore[union-attr]
                target = self._night_target(view, [])
                text = voice.pack_line(target, self.voice) if target else None
            else:
                text = self._say(view)
            if text:
                return Chat(chat.actor, chat.room, text[:max_chat(view)])  # type: ignore[union-attr]
        if Vote in by_kind:
            options = [a.target for a in by_kind[Vote]]  # type: ignore[union-attr]
            current = view.votes.get(self.player)
            said = self.said[1] if self.said and self.said[0] == view.day else None
            # the vote it stands by: the one it said it casts (its last word), else the
            # one cast (over XMPP the view can lag: its vote cast may not show yet, but
            # the options leave its target out)
            anchor = said if said in view.living else (
                current if current in view.living else None)
            if anchor is not None and anchor not in options and anchor != current:
                anchor = None  # (a runoff between others: its word no longer binds)
            best = self._prime(view, options + ([anchor] if anchor else []))
            choice = anchor
            moved = self.moves[1] if self.moves[0] == view.day else 0
            if best is not None and best != anchor and (anchor is None or (
                    moved < _MOVES and self._score(best) > self._score(anchor) + _STICK)):
                choice = best
                if anchor is not None:
                    self.moves = (view.day, moved + 1)
            if choice is not None and choice != current and choice in options:
                if said is not None and choice != said and Chat in by_kind and \
                        by_kind[Chat][0].room.value == "Village":  # type: ignore[union-attr]
                    # it said it would vote for someone else: it says why it moves first
                    self.said = (view.day, choice)
                    chat = by_kind[Chat][0]
                    text = voice.change_line(choice, said, self.reason(view, choice),
                                             self.voice)
                    return Chat(chat.actor, chat.room, text[:max_chat(view)])  # type: ignore
                self.said = (view.day, choice)
                return Vote(self.player, choice)
            # withdraw only a vote it knows it cast: over XMPP the view can lag the options
            # (which leave out the current target), and a wolf whose other options were
            # all packmates withdrew and cast its vote again, over and over
            if best is None and current is not None and Unvote in by_kind:
                return Unvote(self.player)
        if Run in by_kind:  # stand for sheriff with something to tell, or now and then
            me = role_named(view.role)
            if (me.reports and view.results) or self.rng.random() < _RUN:
                return Run(self.player)
            return None
        if view.phase == "election" and Vote in by_kind:  # the one it trusts most
            options = [a.target for a in by_kind[Vote]]  # type: ignore[union-attr]
            mates = [p for p in options if p in view.pack]
            return Vote(self.player, mates[0] if mates else min(options, key=self._score))
        if First in by_kind:  # the sheriff: the side its prime suspect sits on speaks first
            options = [a.target for a in by_kind[First]]  # type: ignore[union-attr]
            return First(self.player, max(options, key=self._score))
        if Badge in by_kind:  # a dead sheriff: to the one it trusts most
            options = [a.target for a in by_kind[Badge]]  # type: ignore[union-attr]
            mates = [p for p in options if p in view.pack]
            return Badge(self.player, mates[0] if mates else min(options, key=self._score))
        if Shoot in by_kind:  # a Hunter who has just died: its prime suspect
            options = [a.target for a in by_kind[Shoot]]  # type: ignore[union-attr]
            return Shoot(self.player, max(options, key=self._score))
        if Save in by_kind or Poison in by_kind:
            return self._potion(view, by_kind)
        if Attack in by_kind:
            # the options leave out the current pick: weigh it too, or the choice flips
            # between two victims at every message
            current = view.votes.get(self.player)
            options = [a.target for a in by_kind[Attack]]  # type: ignore[union-attr]
            target = self._night_target(view, options + ([current] if current else []))
            if target and current != target:
                return Attack(self.player, target)
        if Divine in by_kind:
            done = {t for _d, k, t, _s in view.results if k == "divine"}
            options = [a.target for a in by_kind[Divine]]  # type: ignore[union-attr]
            fresh = [p for p in options if p not in done] or options
            return Divine(self.player, max(fresh, key=self._score))
        if Guard in by_kind:
            options = [a.target for a in by_kind[Guard]]  # type: ignore[union-attr]
            trusted = [p for p in options if self.claimed.get(p) in reporters()
                       and p in view.living]
            pool = trusted or [p for p in options if p in view.living] or options
            return Guard(self.player, min(pool, key=self._score))
        for kind, acts in by_kind.items():  # a night action it has no tactic for
            spec = SPEC_OF.get(kind)
            if spec is not None and spec.night is not None and kind not in _TACTICS and \
                    view.votes.get(self.player) is None:  # (its choice stands once made)
                pool = [getattr(a, "target") for a in acts]  # noqa: B009 - a targeted action
                pick = max if spec.night.aim == "suspect" else min
                return kind(self.player, pick(pool, key=self._score))
        if Over in by_kind:
            return by_kind[Over][0]
        return None

    def _potion(self, view: PlayerView, by_kind: dict[type, list[Action]]) -> Action | None:
        """The Witch: save the victim (unless a known werewolf); else poison one she is
        sure of; else keep her potions. (Measured on 400 rule games a role set: saving
        only victims she suspected less than most, and poisoning at even odds, won the
        village 37% and 36%; saving always and poisoning only the near-certain, 52% and
        44%.)"""
        if Save in by_kind:  # the pack's victim is a villager, unless it knifed its own
            victim = by_kind[Save][0].target  # type: ignore[union-attr]
            if victim not in self.wolf:
                return Save(self.player, victim)
        if Poison in by_kind:
            options = [a.target for a in by_kind[Poison]]  # type: ignore[union-attr]
            sure = [p for p in options if p in self.wolf or (
                self.beliefs_now or {}).get(p, 0.0) >= self.poison_at]
            if sure:
                return Poison(self.player, max(sure, key=self._score))
        return None

    def _night_target(self, view: PlayerView, options: list[str]) -> str | None:
        """The pack's choice: its first living wolf's pick (in seat order), which the
        others follow; while that wolf has none, a packmate's; else the most dangerous.
        (When each followed any other's pick, two wolves that chose at once over XMPP,
        where nobody waits for a turn, swapped their picks at every message until the
        night's timer: 49,000 attack votes in a game of six.)"""
        pool = [p for p in (options or view.living) if p not in view.pack]
        if not pool:
            return None
        mates = [p for p in view.pack if p in view.living]
        mine = view.votes.get(self.player)
        if mates and mates[0] == self.player and mine in pool:
            return mine  # the one the pack follows keeps its pick
        for mate in mates:
            pick = view.votes.get(mate)
            if mate != self.player and pick in pool:
                return pick
        def danger(p: str) -> tuple[int, int, float]:
            special = self.claimed.get(p) in valued()
            return (int(special), len(self.against.get(p, set()) & set(view.pack)),
                    self._tie(p))
        return max(pool, key=danger)


register_decider("rule", RuleDecider, stand_in=True)
