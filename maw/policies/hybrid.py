"""The hybrid agent's strategy (Sato et al., ``hybrid-llm-agent-paper``): the rule layer
chooses every action and what to say; a model only puts the words in a persona's voice
(``maw.llm.hybrid``). Registered as decider ``hybrid``: in engine games it speaks its
intents as template lines, so its strategy is measured without a model.

What it adds to the rule player (``maw.policies.rule``):

* **intents**: what to say, as statements of the claims grammar (``claims.py``) and a
  reason in plain words: a suspect and why (the votes that point at it), a coming-out;
* **the authors' situations** (``maw.policies.tactics``, which says which of the 14 it
  plays and how): a greeting where the day has no vote, a morning line from the day's
  first speaker, the counter-CO of an exposed werewolf, the Possessed's fake Seer by the
  authors' criteria, and the closing of the conversation: once every other living
  player has declared or implied its vote it says its own, and why, and ends its talk
  (Over where the ruleset has one); before that it asks the undeclared, by ``@Name``;
* **when to come out** (AIWolf): a Seer comes out when it has found a werewolf, when
  another player claims to be the Seer (a counter-claim), or from the second day of talk;
  until then it keeps its role to itself and is not the wolves' first target;
* **deflection**: a werewolf accuses whoever accuses it, and never names a packmate;
* **whispers**: where whispers are on, a villager also whispers its vote to the player it
  trusts most, once a day.

Every utterance passes the gate (``maw.policies.gate``) before it reaches the chat: what
the speaker may not say given its role and what it knows.
"""

from __future__ import annotations

from maw.engine import Action, Chat, Event, Over, PlayerView, Room, Vote, Whisper
from maw.engine.events import Chatted, Overed
from maw.engine.roles import role_named
from maw.policies import claims, tactics
from maw.policies.base import max_chat, register_decider
from maw.policies.rule import RuleDecider
from maw.policies.tactics import Intent

__all__ = ["HybridStrategy", "Intent", "intent_of"]

_FAKE_COIN = 0.5  # the authors' Possessed fakes the Seer at its first talk half the time


class HybridStrategy(RuleDecider):
    """See the module docstring."""

    # tactics it plays without (``KNOCKOUTS``: the decider ``hybrid-no-<tactic>``, what
    # each is worth, measured by ``maw bench``)
    without: frozenset[str] = frozenset()

    def __init__(self, player, rng) -> None:
        super().__init__(player, rng)
        self.argued: tuple[int, str] | None = None  # the phase in which it closed its talk
        self.whispered = -1  # the day it whispered its vote
        self.today = 0  # the day of the latest thing it saw
        self.heard_day = -1  # the last day on which it heard another's line in the Village
        self.declared: dict[str, tuple[int, str]] = {}  # player -> (day, vote it implied)
        self.overed: set[tuple[int, str]] = set()  # (day, player) who said Over
        self.mentioned = -1  # the day it asked the undeclared
        self.countered = False  # a werewolf's counter-CO, said
        self.fake = ""  # the Possessed: "" undecided, "out" (fakes the Seer), "hidden"
        self.fake_tries = 0  # its chances to come out so far
        self.sacrificed = -1  # the day the Possessed said it was the werewolf
        # every result claimed in its hearing, (speaker, target, species): the rule
        # player's ``said_results`` leaves out those it takes for lies, and a werewolf
        # takes its own exposure for one
        self.results_heard: list[tuple[str, str, str]] = []
        # (day, target): whom its last line in the Village said it suspects or votes for;
        # a vote cast otherwise since (the rule layer moved it, or the line was worded
        # while other votes came in) is explained by its next line (rule.py says why
        # first; a hybrid votes first, as its vote may not wait for a model)
        self.voiced: tuple[int, str] | None = None
        # (day, players): who had neither voted nor declared at its last look, a day
        # whose votes are cast in the open (its inquiry waits until they stay so)
        self.silent: tuple[int, frozenset[str]] | None = None

    # ------------------------------------------------------------ what it hears

    def observe(self, event: Event) -> None:
        kind = type(event)
        if kind is Chatted:
            self.heard_line(event)  # type: ignore[arg-type]
        elif kind is Overed:
            self.today = max(self.today, event.day)  # type: ignore[union-attr]
            self.overed.add((event.day, event.player))  # type: ignore[union-attr]
        super().observe(event)

    def heard_line(self, event: Chatted) -> None:
        """A line said in its hearing (its claims are read apart: ``hear_claims``)."""
        self.today = max(self.today, event.day)
        if event.speaker != self.player and event.room is Room.VILLAGE:
            self.heard_day = event.day

    def hear_claims(self, speaker: str, heard) -> None:
        """What it hears, and who has declared or implied a vote today: an accusation
        ("I suspect/vote for/accuse X") or a werewolf named (the paper's talk analysis:
        the votes, and the Seers' results)."""
        for c in heard:
            if speaker != self.player and c.kind == "species":
                self.results_heard.append((speaker, c.target, c.value))
            if speaker != self.player and (
                    c.kind == "suspect" or (c.kind == "species" and c.value == "werewolf")):
                self.declared[speaker] = (self.today, c.target)
        super().hear_claims(speaker, heard)

    # ------------------------------------------------------------ what to say

    def intent(self, view: PlayerView) -> Intent | None:
        """What to say when the player speaks first in a phase."""
        if view.room == "Hideout":
            target = self._night_target(view, [])
            return Intent(f"Let us take {target} tonight.") if target else None
        if not tactics.vote_today(view):  # GLHF: a day of talk alone (AIWolf's day 0)
            return tactics.greeting(self.player)
        role = role_named(view.role)
        found = [(t, s) for _d, k, t, s in view.results if role.reports and k == role.reports]
        if found and self._come_out(view, found):
            return tactics.seer_declare(role.name, self.player, found)
        said = self._counter(view) or self._possessed(view, first=True)
        if said is not None:
            return said
        suspect = self._suspect(view)
        if self.heard_day != view.day:  # the day's first speaker: a morning line
            morning = tactics.morning(view, tactics.dealt(view, "Seer"))
            if morning.situation == "DAY1_MORNING" or suspect is None:
                return morning
            self.said = (view.day, suspect)
            return Intent(f"{morning.text} {claims.say_suspect(suspect)}",
                          self.reason(view, suspect), situation=morning.situation)
        if suspect is None:
            return None
        self.said = (view.day, suspect)  # its vote follows what it said (rule.py)
        return Intent(claims.say_suspect(suspect), self.reason(view, suspect))

    def _come_out(self, view: PlayerView, found: list[tuple[str, str]]) -> bool:
        rival = any(r == view.role and p != self.player for p, r in self.claimed.items())
        first_day = min((d for d, *_ in view.results), default=view.day)
        return rival or any(s == "werewolf" for _t, s in found) or view.day > first_day

    def _counter(self, view: PlayerView) -> Intent | None:
        """COUNTER_SEER, a werewolf's: exposed by a lone Seer claimant, it comes out as the
        real one and votes for the accuser."""
        if self.countered or "counter-co" in self.without:
            return None
        exposed = tactics.exposed_by(view, self.claimed, self.results_heard)
        if exposed is None:
            return None
        accuser, role = exposed
        self.countered = True
        self.said = (view.day, accuser)
        return tactics.counter_seer(self.player, role, accuser)

    def _possessed(self, view: PlayerView, first: bool) -> Intent | None:
        """The Possessed (a role that ``fakes`` one): WEREWOLF_DECLARE on the last day of a
        parity game; else, once a night has passed (a real Seer may have a result), the
        authors' criteria for faking the Seer: at its first chance, half the time while
        fewer than two Seers have come out; at its second, if none has, or as a
        counter-CO against a lone Seer who found a werewolf; else it stays hidden. Out,
        it tells a new (false) result each day."""
        role = role_named(view.role)
        if not role.fakes or not tactics.dealt(view, role.fakes):
            return None
        if first and tactics.sacrifice(view) and self.sacrificed != view.day:
            self.sacrificed = view.day
            return tactics.werewolf_declare(self.player)
        if self.fake == "hidden" or not tactics.night_passed(view) or \
                "fake-seer" in self.without:
            return None
        if self.fake == "out":
            return self._fake_result(view, role.fakes) if first else None
        rivals = [p for p, r in self.claimed.items() if r == role.fakes and p != self.player
                  and p in view.living]
        self.fake_tries += 1
        if self.fake_tries == 1:
            if len(rivals) < 2 and self.rng.random() < _FAKE_COIN:
                self.fake = "out"
                return self._fake_result(view, role.fakes)
            return None
        self.fake = "hidden"
        if not rivals:
            self.fake = "out"
            return self._fake_result(view, role.fakes)
        if len(rivals) == 1 and tactics.black_by(self.player, rivals[0],
                                                   self.results_heard) is not None:
            self.fake = "out"
            self.said = (view.day, rivals[0])
            return tactics.counter_seer(self.player, role.fakes, rivals[0])
        return None

    def _fake_result(self, view: PlayerView, role: str) -> Intent | None:
        fake = [p for p in view.living if p != self.player and p not in self.fake_seen]
        if not fake:
            return None
        target = self.rng.choice(fake)
        self.fake_seen.add(target)
        return tactics.seer_declare(role, self.player, [(target, "werewolf")])

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

    def my_vote(self, view: PlayerView) -> str | None:
        """Its vote: cast, else the one it said it casts today, else its suspect."""
        cast = view.votes.get(self.player)
        if cast in view.living:
            return cast
        if self.said and self.said[0] == view.day and self.said[1] in view.living:
            return self.said[1]
        return self._suspect(view)

    def done_talking(self, view: PlayerView) -> bool:
        """It will say nothing more in the Village this phase: it has closed its talk, or
        the day has no vote to talk about."""
        return self.argued == (view.day, view.phase) or not tactics.vote_today(view)

    def talk_on(self, view: PlayerView, live: bool = False) -> Intent | None:
        """After its first line: a counter-CO (or the Possessed's second chance) as soon
        as the talk calls for one; then VOTE_INQUIRE, once a day, while other living
        players have not declared a vote (where votes are cast in the open, ``live``,
        once most of them have); then its closing line, once everyone has (or with its
        last message of the day). ``None``: it waits."""
        if self.done_talking(view):
            return None
        said = self._counter(view) or self._possessed(view, first=False)
        if said is not None:
            return said
        today = {p: t for p, (d, t) in self.declared.items() if d == view.day}
        waiting = tactics.undeclared(view, today, (p for d, p in self.overed if d == view.day))
        last = view.messages_left is not None and view.messages_left <= 1
        mine = self.my_vote(view)
        if mine is not None:
            self.said = (view.day, mine)  # (what it says next binds its vote: rule.py)
        if waiting and not last:
            if self.mentioned == view.day or "mention" in self.without:
                return None
            if live:
                # votes cast in the open (MAW's day): asked as they opened, it named the
                # whole table, who all voted within the second; it asks those still
                # silent once most of the others have voted, and only if they were
                # silent at its last look too (not a burst of votes still coming in)
                seen, self.silent = self.silent, (view.day, frozenset(waiting))
                if seen != self.silent or \
                        2 * len(waiting) > sum(1 for p in view.living if p != self.player):
                    return None
            self.mentioned = view.day
            return tactics.mention(waiting, mine)
        self.argued = (view.day, view.phase)
        return tactics.closing(view, mine, self.reason(view, mine) if mine else "",
                               tactics.against(view, today), self.sacrificed == view.day)

    # ------------------------------------------------------------ choosing

    def decide_intent(self, view: PlayerView, legal: tuple[Action, ...]
                      ) -> tuple[Action | None, Intent | None]:
        """The action, and for a chat the intent its text comes from."""
        self._learn(view)
        self.today = max(self.today, view.day)
        chat = next((a for a in legal if type(a) is Chat), None)
        over = next((a for a in legal if type(a) is Over), None)
        phase = (view.day, view.phase)
        village = chat is not None and chat.room is Room.VILLAGE
        if chat is not None and self.spoke_in != phase:
            self.spoke_in = phase
            intent = self.intent(view)
            if intent is not None:
                return self._line(view, chat, intent, village)
        action = super().decide(view, tuple(a for a in legal
                                            if type(a) not in (Chat, Whisper, Over)))
        if action is not None:
            return action, None
        if village:
            assert chat is not None
            intent = self._moved(view) or self.talk_on(
                view, live=any(type(a) is Vote for a in legal))
            if intent is not None:
                return self._line(view, chat, intent, village)
        # Over ends its talk: once closed, where the day has no vote, in the Hideout, or
        # where it may not talk again (a werewolf-12 speech); else it waits to close
        if over is not None and (not village or self.done_talking(view)):
            return over, None
        mine = view.votes.get(self.player)
        whisper = self.ally(view, legal, mine)
        if whisper is not None and self.whispered != view.day:
            self.whispered = view.day  # once a day: its vote, to the one it trusts most
            intent = Intent(f"I vote for {mine}. Vote with me.", self.reason(view, mine or ""))
            return Whisper(self.player, whisper, intent.template()[:max_chat(view)]), intent
        return None, None

    def _line(self, view: PlayerView, chat: Chat, intent: Intent, village: bool
              ) -> tuple[Action, Intent]:
        """Say ``intent``; in the Village, the target its words bind today (``said``)
        is now on record as said."""
        if village and self.said is not None and self.said[0] == view.day:
            self.voiced = self.said
        return Chat(chat.actor, chat.room, intent.template()[:max_chat(view)]), intent

    def _moved(self, view: PlayerView) -> Intent | None:
        """Its vote, cast for another than its last line in the Village named today:
        why it moved (the rule player's "I change my mind"), once for each move."""
        cast = view.votes.get(self.player)
        if cast is None or cast not in view.living or self.voiced is None or \
                self.voiced[0] != view.day or self.voiced[1] == cast:
            return None
        old = self.voiced[1]
        self.said = (view.day, cast)
        return Intent(f"I change my mind: I vote for {cast}, not {old}.",
                      self.reason(view, cast))

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

# the hybrid without one of the authors' tactics, each a decider of its own: the
# werewolf's counter-CO; the Possessed's fake Seer (and its counter-CO); asking the
# undeclared by name (it waits for them instead). (The closing stays: without it the
# agent still ends its talk once all have declared, only in other words.)
KNOCKOUTS = ("counter-co", "fake-seer", "mention")


def _knockout(tactic: str) -> type[HybridStrategy]:
    return type(f"HybridWithout{tactic.title().replace('-', '')}", (HybridStrategy,),
                {"without": frozenset({tactic}), "__doc__": f"The hybrid without {tactic}."})


for _tactic in KNOCKOUTS:
    register_decider(f"hybrid-no-{_tactic}", _knockout(_tactic), talks=True)


def intent_of(action: Action | None, intent: Intent | None) -> str:
    """A short label of what was chosen, for the log."""
    if intent is not None:
        return intent.template()
    if isinstance(action, Vote):
        return f"vote {action.target}"
    return type(action).__name__.lower() if action is not None else "listen"
