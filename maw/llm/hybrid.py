"""The hybrid LLM agent (Sato et al.): a model reads the talk and voices the words; the
rule layer (``maw.policies.hybrid``) decides.

* **talk analysis**: the lines the player heard since it last decided become facts (role
  claims, divine and medium results, accusations and vote declarations, defences), which
  the model extracts under a JSON schema naming only the speakers and players of the game.
  A fact is kept only if the speaker's own words name its target (a model's invention
  is dropped); the statement grammar of ``maw/policies/claims.py`` is read by rule, and is
  all there is when the model cannot answer. The facts feed the strategy's beliefs.
* **strategy**: ``HybridStrategy`` chooses the action and what to say (an ``Intent``).
* **utterance**: the model writes the intent in the persona's voice. A sentence the gate
  refuses (``maw.policies.gate``: it echoes the prompt or the persona, gives away what the
  role hides, names a role the game lacks, contradicts what the speaker may say, or is
  not a sentence), or that does not say what the intent means (``gate.unfaithful``: it
  leaves out a player the intent names, as a vote that no longer says for whom, names
  another, states what the intent does not, or keeps none of its words), is written
  again once, naming the fault; a
  second fault, or no answer, sends the intent's template line instead (``gated`` in the
  record says why).

Each decision is one ``llm`` record in the game log (calls, tokens, seconds, outcome:
``legal`` the first sentence passed, ``repaired`` the second did, ``fallback`` the
template was sent), with the facts, the intent, the sentences and what the check caught.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import re
from typing import TYPE_CHECKING

from maw import engine
from maw.engine.actions import SPEC_OF
from maw.engine.events import Chatted
from maw.engine.roles import ROLES
from maw.llm.decider import must_vote
from maw.llm.llm import LLM
from maw.llm.prompts import Prompts, chat_limit, pin_game, supplied_opening
from maw.llm.telemetry import Tally, account, failed, note_retries
from maw.policies import claims, gate
from maw.policies.base import DECIDERS, AsyncDecider, ModelSeat, register_decider
from maw.policies.hybrid import HybridStrategy, Intent, intent_of

if TYPE_CHECKING:
    from maw.policies.memory import RuleLayer

KINDS = {  # the schema's fact kinds -> the claims grammar's
    "claims_role": "role", "says_werewolf": "species", "says_human": "species",
    "accuses": "suspect", "votes_for": "suspect", "defends": "defend",
}


def role_names() -> list[str]:
    """Every role a fact may name (the engine's, a role registered later included)."""
    return [r.name for r in ROLES.values()]


def facts_schema(speakers: list[str], players: list[str]) -> dict:
    """The answer of a talk analysis: up to eight facts, each naming a speaker who spoke
    and a player of the game."""
    fact = {"type": "object", "properties": {
        "speaker": {"type": "string", "enum": speakers},
        "kind": {"type": "string", "enum": list(KINDS)},
        "target": {"type": "string", "enum": players},
        "role": {"type": "string", "enum": role_names()},
    }, "required": ["speaker", "kind", "target", "role"], "additionalProperties": False}
    return {"type": "object", "properties": {"facts": {"type": "array", "items": fact,
                                                       "maxItems": 8}},
            "required": ["facts"], "additionalProperties": False}


def read_facts(answer: str, lines: list[tuple[str, str]],
               players: tuple[str, ...]) -> list[claims.Claim]:
    """The facts of a talk-analysis answer that the lines bear out (``ValueError``: the
    answer is not the schema's)."""
    try:
        data = json.loads(answer, strict=False)
        items = data["facts"]
        assert isinstance(items, list)
    except (json.JSONDecodeError, KeyError, TypeError, AssertionError):
        raise ValueError("not a list of facts") from None
    said: dict[str, str] = {}
    for speaker, text in lines:
        said[speaker] = f"{said.get(speaker, '')} {text}".lower()
    out: list[claims.Claim] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        speaker, kind, target = (str(item.get(k)) for k in ("speaker", "kind", "target"))
        if speaker not in said or kind not in KINDS or target not in players:
            continue
        words = said[speaker]
        if kind == "claims_role":
            role = item.get("role")
            if role in role_names() and re.search(rf"\b{role.lower()}\b", words):
                out.append(claims.Claim("role", speaker, speaker, role))
            continue
        if target == speaker or not re.search(rf"\b{re.escape(target.lower())}\b", words):
            continue  # the speaker did not name it: the model's invention
        value = {"says_werewolf": "werewolf", "says_human": "human"}.get(kind, "")
        out.append(claims.Claim(KINDS[kind], speaker, target, value))
    return list(dict.fromkeys(out))


class HybridDecider(AsyncDecider):
    """See the module docstring. (Without a model, the strategy plays with template talk:
    ``maw.policies.hybrid.HybridStrategy``, the registry's ``hybrid`` in engine games.)"""

    def __init__(self, player: str, rng: random.Random, llm: LLM,
                 prompts: Prompts | None = None, persona: str = "", max_chars: int = 160,
                 temperature: float = 0.7, max_tokens: int | None = None,
                 strategy: type[HybridStrategy] = HybridStrategy) -> None:
        super().__init__(player, rng)
        self.strategy = strategy(player, rng)
        self.llm = llm
        self.prompts = prompts or Prompts()
        self.persona = persona
        self.max_chars = max_chars
        self.temperature = temperature
        self.max_tokens = max_tokens  # a voiced line's (None: its characters and some)
        self.tally = Tally()
        self.pending: dict | None = None
        self.unread: list[tuple[str, str]] = []  # (speaker, text) not yet analysed
        self.started = False
        self.opening: list[str] | None = None  # its questions' guiding prompt (``supplied``)
        self.chosen: tuple[int, str] | None = None  # the phase of its last night choice

    def observe(self, event) -> None:
        if type(event) is Chatted:
            self.strategy.heard_line(event)  # (who talked today; its claims: analyse)
            if event.speaker != self.player:
                self.unread.append((event.speaker, event.text))
            return
        self.strategy.observe(event)

    def beliefs(self, view: engine.PlayerView) -> dict[str, float] | None:
        return self.strategy.beliefs(view)

    def rule_layer(self) -> RuleLayer | None:
        return self.strategy

    def supplied(self, completion: dict) -> None:
        """Its question's chat completion: the guiding prompt its conversation opens with."""
        self.opening = supplied_opening(completion) or self.opening

    def _start(self, view: engine.PlayerView) -> None:
        pin_game(self.llm, self.prompts, view, self.opening)
        self.max_chars = chat_limit(view, self.max_chars)
        self.started = True

    async def _call(self, record: dict, text: str, schema: dict, max_tokens: int) -> str:
        try:
            answer = await self.llm.prompt(text, schema, max_tokens=max_tokens,
                                           temperature=self.temperature, remember=False)
        finally:  # (a failed call's retries too)
            note_retries(record, self.llm)
        account(record, self.llm, answer)
        return answer.text

    async def analyse(self, view: engine.PlayerView, record: dict,
                      model: bool = True) -> None:
        """Turn the unread lines into facts for the strategy (the model's, unless
        ``model`` is false, and the statement grammar's)."""
        lines, self.unread = self.unread, []
        if not lines:
            return
        found: list[claims.Claim] = []
        for speaker, text in lines:
            found += claims.parse(speaker, text, view.players)
        source = "grammar"
        try:
            if not model:
                raise ValueError("its vote first: the grammar alone")
            text = self.prompts.render(
                "analyse.md", lines="\n".join(f"{s}: {t}" for s, t in lines))
            answer = await self._call(record, text, facts_schema(
                sorted({s for s, _ in lines}), list(view.players)), 400)
            record["analysis_answer"] = answer
            found += read_facts(answer, lines, view.players)
            source = "model"
        except ValueError as exc:
            record["analysis_error"] = str(exc)
        found = list(dict.fromkeys(found))
        record["facts"] = [[c.speaker, c.kind, c.target, c.value] for c in found]
        record["facts_by"] = source
        by: dict[str, list[claims.Claim]] = {}
        for c in found:
            by.setdefault(c.speaker, []).append(c)
        for speaker, heard in by.items():
            self.strategy.hear_claims(speaker, heard)

    async def voice(self, view: engine.PlayerView, intent: Intent, record: dict) -> str:
        """The intent in the persona's voice, through the gate (``maw.policies.gate``);
        asked again once, naming the fault; the template when it fails again."""
        template = intent.template()[: self.max_chars]
        schema = {"type": "object", "properties": {"text": {
            "type": "string", "minLength": 1, "maxLength": self.max_chars}},
            "required": ["text"], "additionalProperties": False}
        prompt = self.prompts.render(
            "voice.md", persona=self.persona, day=view.day, room=view.room or "Village",
            living=", ".join(view.living), intent=intent.text, reason=intent.reason or "-",
            max_chars=self.max_chars)
        instructions = self.prompts.instructions(view, "voice.md", "voice_again.md",
                                                 persona=self.persona)
        caught: list[str] = []
        record["intent"] = template
        for attempt in ("legal", "repaired"):
            answer = await self._call(record, prompt, schema,
                                      self.max_tokens or self.max_chars + 40)
            record.setdefault("sentences", []).append(answer)
            try:
                said = str(json.loads(answer, strict=False)["text"])
            except (json.JSONDecodeError, KeyError, TypeError):
                caught.append("not the answer's form")
                said = ""
            verdict = gate.check(said, view, self.max_chars, instructions=instructions,
                                 allowed_text=template, allowed=intent.allowed)
            if verdict.text is not None:  # (and it must still say what it means)
                unmeant = gate.unfaithful(verdict.text, intent.text, view.player,
                                          view.players, intent.reason)
                if unmeant:
                    verdict = gate.Verdict(None, tuple(unmeant))
            if verdict.text is not None:
                record["outcome"] = attempt
                record["caught"] = caught
                if verdict.cut:
                    record["cut"] = True
                return verdict.text
            caught += verdict.faults
            prompt = self.prompts.render("voice_again.md", fault="; ".join(verdict.faults),
                                         intent=intent.text, max_chars=self.max_chars)
        record["outcome"] = "fallback"
        record["caught"] = caught
        record["gated"] = list(dict.fromkeys(caught))  # the template was said instead
        return template

    def quiet(self, view: engine.PlayerView, legal: tuple[engine.Action, ...]) -> bool:
        """It has spoken in this phase and may only talk: no model reads the talk for it
        (six players' readings of every line, one after another, held the model while
        the day ran out); the grammar alone tells whether its talk goes on."""
        return self.strategy.spoke_in == (view.day, view.phase) and \
            all(type(a) in (engine.Chat, engine.Whisper, engine.Over) for a in legal)

    def idle(self, view: engine.PlayerView, legal: tuple[engine.Action, ...]) -> bool:
        """Nothing it heard can change its turn: it is :meth:`quiet` and its strategy has
        closed its talk for the phase (before that, a line heard may complete the
        declared votes its closing waits for, or call for a counter-CO)."""
        return self.quiet(view, legal) and (
            view.room != "Village" or self.strategy.done_talking(view)) and \
            not any(type(a) is engine.Over for a in legal)

    def urgent(self, view: engine.PlayerView, legal: tuple[engine.Action, ...]) -> bool:
        """Its choice comes first, by rule, without a model's reading of the talk: the
        day's votes are open, it has not voted and it has had its say today; or a
        night's choice (an attack, a divination, a guard...) it has not made yet this
        phase. (A pack that talked before it attacked, each line a model's reading and a
        model's voice in turn, let a night end with no victim.)"""
        if must_vote(view, legal, self.strategy.spoke_in == (view.day, view.phase)):
            return True
        return self.chosen != (view.day, view.phase) and any(
            SPEC_OF[type(a)].night is not None for a in legal)

    async def adecide(self, view: engine.PlayerView, legal: tuple[engine.Action, ...],
                      messages: list[str]) -> engine.Action | None:
        if not legal:
            return None
        if not self.started:
            self._start(view)
        if self.idle(view, legal):
            return None  # (what it heard waits, unread, for a turn that needs it)
        record: dict = {"player": self.player, "day": view.day, "phase": view.phase,
                        "calls": 0, "tokens": 0, "seconds": 0.0, "decider": "hybrid"}
        self.pending = record
        try:
            try:
                # the day's votes are open and it has not voted: it votes now, by rule,
                # without waiting for a model to read the talk (six players' calls in
                # turn outlasted the day, and it ended with no vote cast)
                # (and once it has argued its vote today, or made its night's choice and
                # spoken, the grammar reads on alone: a model's reading of every later
                # line held the model until the timer)
                now = (view.day, view.phase)
                await self.analyse(view, record, model=not (
                    self.urgent(view, legal) or self.quiet(view, legal)
                    or self.strategy.argued == now
                    or (self.chosen == now and self.strategy.spoke_in == now)))
            except Exception as exc:  # the model is gone: the grammar's facts stand
                failed(record, exc)
            action, intent = None, None
            if self.urgent(view, legal):  # its choice before its words
                action, intent = self.strategy.decide_intent(view, tuple(
                    a for a in legal if type(a) not in (engine.Chat, engine.Whisper)))
                if action is not None and SPEC_OF[type(action)].night is not None:
                    self.chosen = (view.day, view.phase)
            if action is None:
                action, intent = self.strategy.decide_intent(view, legal)
            record["action"] = intent_of(action, intent)
            if intent is not None and intent.situation == "VOTE_INQUIRE" and any(
                    type(a) is engine.Vote for a in legal):
                # (votes cast in the open: the names it asks are those silent now, and
                # in the seconds a model takes to word it they had voted; its line is
                # said as its strategy wrote it, at once)
                record.setdefault("outcome", "template")
            elif type(action) in (engine.Chat, engine.Whisper) and intent is not None:
                try:
                    text = await self.voice(view, intent, record)
                except Exception as exc:  # no voice: the template line
                    record["outcome"] = "fallback"
                    failed(record, exc)
                    text = intent.template()[: self.max_chars]
                action = dataclasses.replace(action, text=text)  # type: ignore[type-var]
            else:
                record.setdefault("outcome", "legal")
            return action
        finally:
            self.pending = None
            record.setdefault("outcome", "cancelled")
            if record["calls"] or "exception" in record:
                self.tally.log.append(record)


def seated(seat: ModelSeat, strategy: type[HybridStrategy] = HybridStrategy) -> HybridDecider:
    """The ``hybrid`` decider of a roster seat: its strategy decides every action, so a
    model that cannot answer costs only the voice (the template line is said)."""
    spec = seat.spec
    return HybridDecider(seat.player, random.Random(seat.seed), seat.llm, seat.prompts,
                         seat.persona, spec.max_chars, spec.temperature, spec.max_tokens,
                         strategy)


register_decider("hybrid", HybridStrategy, with_model=seated, talks=True)
for _name, _kind in list(DECIDERS.items()):  # the knockouts (hybrid-no-...), with a model
    if _name.startswith("hybrid-no-") and isinstance(_kind.make, type):
        register_decider(_name, _kind.make, talks=True,
                         with_model=functools.partial(seated, strategy=_kind.make))
