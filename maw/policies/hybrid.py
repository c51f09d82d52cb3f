"""The hybrid agent's strategy (Sato et al., ``hybrid-llm-agent-paper``): the rule layer
chooses every action and what to say; a model only puts the words in a persona's voice
(``maw.llm.hybrid``). Registered as decider ``hybrid``: in engine games it speaks its
intents as template lines, so its strategy is measured without a model.

What it adds to the rule player (``maw.policies.rule``):

* **intents**: what to say, as statements of the claims grammar (``claims.py``) and a
  reason in plain words: a suspect and why (the votes that point at it), a coming-out,
  a closing argument once it has voted;
* **when to come out** (AIWolf): a Seer comes out when it has found a werewolf, when
  another player claims to be the Seer (a counter-claim), or from the second day of talk;
  until then it keeps its role to itself and is not the wolves' first target;
* **deflection**: a werewolf accuses whoever accuses it, and never names a packmate;
* **one voice a day**: it speaks once when the day opens, and once more to argue its
  vote (the closing argument); where whispers are on, a villager also whispers its vote
  to the player it trusts most.

Every utterance passes the gate (``maw.policies.gate``) before it reaches the chat: what
the speaker may not say given its role and what it knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maw.engine import Action, Chat, PlayerView, Vote, Whisper
from maw.engine.roles import role_named
from maw.policies import claims
from maw.policies.base import max_chat, register_decider
from maw.policies.rule import RuleDecider


@dataclass(frozen=True)
class Intent:
    """What the player means to say: ``text`` in the claims grammar (the template line),
    ``reason`` in plain words, and the claims it makes on purpose (a lie included)."""

    text: str
    reason: str = ""
    allowed: tuple[claims.Claim, ...] = field(default_factory=tuple)

    def template(self) -> str:
        return f"{self.text} {self.reason}".strip()


class HybridStrategy(RuleDecider):
    """See the module docstring."""

    def __init__(self, player, rng) -> None:
        super().__init__(player, rng)
        self.argued: tuple[int, str] | None = None  # the phase of its closing argument
        self.whispered = -1  # the day it whispered its vote

    # ------------------------------------------------------------ what to say

    def intent(self, view: PlayerView) -> Intent | None:
        """What to say when the player speaks first in a phase."""
        if view.room == "Hideout":
            target = self._night_target(view, [])
            return Intent(f"Let us take {target} tonight.") if target else None
        role, lines, allowed = role_named(view.role), [], []
        me = role.name
        found = [(t, s) for _d, k, t, s in view.results if role.reports and k == role.reports]
        if found and self._come_out(view, found):
            lines.append(claims.say_role(me))
            lines.extend(claims.say_species(t, s) for t, s in found[-2:])
            allowed = [claims.Claim("role", self.player, self.player, me)]
            allowed += [claims.Claim("species", self.player, t, s) for t, s in found]
            return Intent(" ".join(lines), "", tuple(allowed))
        if role.fakes:
            fake = [p for p in view.living if p != self.player and p not in self.fake_seen]
            if fake:
                target = self.rng.choice(fake)
                self.fake_seen.add(target)
                said = f"{claims.say_role(role.fakes)} {claims.say_species(target, 'werewolf')}"
                return Intent(said, "", (
                    claims.Claim("role", self.player, self.player, role.fakes),
                    claims.Claim("species", self.player, target, "werewolf")))
        suspect = self._suspect(view)
        if suspect is None:
            return None
        self.said = (view.day, suspect)  # its vote follows what it said (rule.py)
        return Intent(claims.say_suspect(suspect), self.reason(view, suspect))

    def _come_out(self, view: PlayerView, found: list[tuple[str, str]]) -> bool:
        rival = any(r == view.role and p != self.player for p, r in self.claimed.items())
        first_day = min((d for d, *_ in view.results), default=view.day)
        return rival or any(s == "werewolf" for _t, s in found) or view.day > first_day

    def _suspect(self, view: PlayerView) -> str | None:
        if view.pack:  # deflect: whoever accuses it, else the village's favourite
            # (turning on the accusers of packmates too won in 6-player MAW games and lost
            # in larger ones: benchmarks/README.md)
            accusers = [s for s, t in self.accusations if t == self.player and
                        s in view.living and s not in view.pack]
            if accusers:
                return accusers[-1]
        return self._prime(view, view.living)

    def reason(self, view: PlayerView, target: str) -> str:
        """Why ``target`` is suspect (the rule player's reason, or a plain word)."""
        return super().reason(view, target) or \
            f"{target} has told us nothing that helps the village."

    def closing(self, view: PlayerView, target: str) -> Intent:
        return Intent(f"I vote for {target}.", self.reason(view, target))

    # ------------------------------------------------------------ choosing

    def decide_intent(self, view: PlayerView, legal: tuple[Action, ...]
                      ) -> tuple[Action | None, Intent | None]:
        """The action, and for a chat the intent its text comes from."""
        self._learn(view)
        chat = next((a for a in legal if type(a) is Chat), None)
        phase = (view.day, view.phase)
        if chat is not None and self.spoke_in != phase:
            self.spoke_in = phase
            intent = self.intent(view)
            if intent is not None:
                return Chat(chat.actor, chat.room, intent.template()[:max_chat(view)]), intent
        action = super().decide(view, tuple(a for a in legal
                                            if type(a) not in (Chat, Whisper)))
        mine = view.votes.get(self.player)
        if action is None and chat is not None and chat.room.value == "Village" and mine \
                and self.argued != phase:
            self.argued = phase  # its vote stands: argue for it once
            intent = self.closing(view, mine)
            return Chat(chat.actor, chat.room, intent.template()[:max_chat(view)]), intent
        whisper = self.ally(view, legal, mine)
        if action is None and whisper is not None and self.whispered != view.day:
            self.whispered = view.day  # once a day: its vote, to the one it trusts most
            intent = Intent(f"I vote for {mine}. Vote with me.", self.reason(view, mine or ""))
            return Whisper(self.player, whisper, intent.template()[:max_chat(view)]), intent
        return action, None

    def ally(self, view: PlayerView, legal: tuple[Action, ...], mine: str | None
             ) -> str | None:
        """Whom a villager whispers its vote to (``whisper=on``): the living player it
        trusts most, once it has voted; a wolf has its Hideout, and whispers to nobody."""
        if view.pack or not mine:
            return None
        pool = [a.target for a in legal if type(a) is Whisper and a.target != mine]
        return min(pool, key=self._score) if pool else None

    def decide(self, view: PlayerView | None, legal: tuple[Action, ...]) -> Action | None:
        assert view is not None
        return self.decide_intent(view, legal)[0]


register_decider("hybrid", HybridStrategy, talks=True)  # (with a model: maw.llm.hybrid)


def intent_of(action: Action | None, intent: Intent | None) -> str:
    """A short label of what was chosen, for the log."""
    if intent is not None:
        return intent.template()
    if isinstance(action, Vote):
        return f"vote {action.target}"
    return type(action).__name__.lower() if action is not None else "listen"
