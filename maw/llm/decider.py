"""The LLM decider: Algorithm 1's model step. It builds the prompt from what its player
received and its own view only, asks for a JSON action constrained to the legal ones,
re-prompts once naming the error, and then falls back: the roster's ``fallback`` decides
(``rule``: the rule player; ``random``: a random legal action, drawn from the seat's
seeded stream; ``listen``), as it does when the model cannot answer at all. Illegal
actions never leave it: every answer is checked against ``legal`` before it is returned,
and the record of a decision says which fallback decided (``fallback_decider``).

It is the design document's agent: the guiding prompt and the answer schema decide, no
hard-coded logic, so it is an honest baseline. ``steer`` (a roster's ``[llm] steer =
true``) adds the old steering for small models: the pack's pick for a wolf, "Vote now.",
and the choice alone once the player has had its turn. The ``hybrid`` decider is where
strategy lives."""

from __future__ import annotations

import dataclasses
import random
from typing import TYPE_CHECKING

from maw import engine
from maw.llm.answers import (
    answer_format,
    choices,
    pack_actions,
    parse,
    powers,
    read_suspicion,
    schema_for,
    stated_percents,
    suspects,
    targeted,
    weigh,
)
from maw.llm.llm import LLM
from maw.llm.memory import Memory
from maw.llm.prompts import Prompts, chat_limit, pin_game, supplied_opening
from maw.llm.telemetry import Tally, account, failed, label, note_retries
from maw.policies import gate
from maw.policies.base import (
    AsyncDecider,
    Decider,
    ModelSeat,
    make_decider,
    register_decider,
)

if TYPE_CHECKING:
    from maw.policies.memory import RuleLayer


def must_vote(view: engine.PlayerView, legal: tuple[engine.Action, ...],
              had_turn: bool = True) -> bool:
    """Its turn is a vote (a player that listens or talks instead leaves the day to its
    timer): the day's votes are open, this player may vote and has not, and it has had
    its turn this phase (``had_turn``: it may speak first, the talk before the vote) or
    may not talk now (an AIWolf vote)."""
    if not (view.votes_open and view.votes.get(view.player) is None and
            any(type(a) is engine.Vote for a in legal)):
        return False
    return had_turn or not any(type(a) is engine.Chat for a in legal)


def pack_pick(player: str, view: engine.PlayerView) -> str | None:
    """Tonight's victim this wolf should attack too, if its pack has picked one: the pick
    of the first (by name) wolf that has picked. A MAW night kills only if the pack
    agrees, and two wolves each told to follow the other would swap picks forever."""
    if not view.pack or view.phase != "night":
        return None
    picks = {p: t for p, t in view.votes.items() if p in view.pack}
    if not picks:
        return None
    leader = min(picks)
    return None if leader == player else picks[leader]


class LLMDecider(AsyncDecider):
    """See the module docstring. ``llm`` is this player's own conversation."""

    def __init__(self, player: str, rng: random.Random, llm: LLM,
                 prompts: Prompts | None = None, persona: str = "",
                 max_chars: int = 200, temperature: float = 0.7,
                 fallback: tuple[str, Decider] | None = None, steer: bool = False,
                 max_tokens: int | None = None) -> None:
        super().__init__(player, rng)
        self.llm = llm
        self.steer = steer
        # (name, decider) that decides when the model gives no action it may take: two
        # answers that were not legal or that the gate refused, or none at all (its
        # server is down, its process crashed); without one the player listens
        self.fallback = fallback
        self.prompts = prompts or Prompts()
        self.persona = persona
        self.max_chars = max_chars
        self.temperature = temperature
        self.max_tokens = max_tokens  # an answer's (None: room for its longest chat)
        self.tally = Tally()
        self.pending: dict | None = None  # the decision being made (its calls so far)
        self.started = False
        self.opening: list[str] | None = None  # its questions' guiding prompt (``supplied``)
        self.spoke_in: tuple[int, str] | None = None  # the phase it last spoke in
        self.answered_in: tuple[int, str] | None = None  # ... it last answered in
        # the percents its answers stated, and the phase (day, phase) they were stated in
        self.stated: tuple[tuple[int, str], dict[str, float]] | None = None
        # the rule layer whose beliefs the model's word is weighed into (``beliefs``): its
        # rule fallback, or one of its own that only listens
        self.reader: Decider = fallback[1] if fallback and fallback[0] == "rule" else \
            make_decider("rule", player, random.Random(f"{player}:beliefs"))
        self.memory = Memory(player)  # the facts of its whole game, in every turn's prompt

    def _chose(self, action: engine.Action | None,
               view: engine.PlayerView) -> engine.Action | None:
        self.answered_in = (view.day, view.phase)
        if type(action) is engine.Chat:
            self.spoke_in = (view.day, view.phase)
        return action

    def observe(self, event) -> None:
        if self.fallback is not None:
            self.fallback[1].observe(event)
        if self.fallback is None or self.reader is not self.fallback[1]:
            self.reader.observe(event)

    def rule_layer(self) -> RuleLayer | None:
        return self.reader.rule_layer()

    def beliefs(self, view: engine.PlayerView) -> dict[str, float] | None:
        """Once its answer has stated them this phase (``"suspicion"``): the rule layer's
        beliefs (what the votes, the claims and the deaths say) weighed by the percents
        the model stated (``maw.llm.answers.weigh``); what the model stated alone is in the
        decision's record (``stated``). A wolf knows its pack (the uniform prior is
        certain)."""
        from maw.policies.beliefs import uniform

        if view.pack:
            return uniform(view)
        if self.stated is not None and self.stated[0] == (view.day, view.phase):
            prior = self.reader.beliefs(view) or uniform(view)
            return weigh(prior, self.stated[1])
        return None

    def to_rate(self, view: engine.PlayerView) -> list[str]:
        """Whom to rate in this answer: its suspects in the first answer of each phase
        (one statement a phase is what the log keeps; every answer would cost tokens)."""
        if self.stated is not None and self.stated[0] == (view.day, view.phase):
            return []
        return suspects(view)

    def supplied(self, completion: dict) -> None:
        """Its question's chat completion: the guiding prompt its conversation opens with."""
        self.opening = supplied_opening(completion) or self.opening

    def _start(self, view: engine.PlayerView) -> None:
        pin_game(self.llm, self.prompts, view, self.opening)
        self.max_chars = chat_limit(view, self.max_chars)
        self.started = True

    def turn_prompt(self, view: engine.PlayerView, messages: list[str],
                    legal: tuple[engine.Action, ...],
                    listen: bool = True) -> tuple[str, dict, str]:
        """The turn's prompt, its answer schema and the line describing the choices."""
        actions, described = choices(legal, listen)
        rate = self.to_rate(view)
        schema = schema_for(actions, legal, self.max_chars, rate)
        known = "; ".join(f"{n} is a {r}" for n, r in view.known_roles.items()
                          if n != self.player)
        results = "; ".join(f"{k} on day {d}: {t} is {s}" for d, k, t, s in view.results)
        votes = "; ".join(f"{a} votes {b}" for a, b in view.votes.items())
        mine = view.votes.get(self.player)
        offered = set(actions)
        pack = offered & pack_actions()
        pick = pack_pick(self.player, view) if pack else None
        if "vote" in offered and not listen:
            advice = ("The votes are open and you have not voted: vote now (the player "
                      "with the most votes is executed when the day ends).")
        elif not self.steer:
            advice = f"You vote for {mine}." if mine else ""
        elif pick and pick != mine:
            advice = (f"Your pack attacks {pick}: the pack must agree on one victim, so "
                      f"attack {pick} too.")
        elif mine:
            advice = f"You vote for {mine}; change it only if you have a reason."
        elif "vote" in offered:
            advice = ("You have not voted yet: the player with the most votes is executed "
                      "when the day ends. Vote now.")
        elif pack:
            advice = f"Choose tonight's victim with your pack: {min(pack)} now."
        elif offered & powers():
            advice = "Use your power now."
        else:
            advice = ""
        if self.steer and "chat" in offered and self.spoke_in == (view.day, view.phase):
            advice += " You have already spoken: do not repeat yourself."
        text = self.prompts.render(
            "turn.md", persona=self.persona, day=view.day, phase=view.phase,
            votes=f"Votes so far: {votes}." if votes else "No votes yet.",
            advice=advice.strip(),
            room_line=f"You are in the {view.room}." if view.room else "",
            living=", ".join(view.living),
            known=" ".join(x for x in (f"You know: {known}." if known else "",
                                       f"Your results: {results}." if results else "") if x),
            memory=self.memory.text(view),
            messages="\n".join(messages) or "(nothing new)", choices=described,
            forms=answer_format(schema), max_chars=self.max_chars,
            suspicion=(f"First say how likely you think each of {', '.join(rate)} is a "
                       "werewolf, in percent (0, 10, ... 100)." if rate else ""))
        return text, schema, described

    def must_choose(self, view: engine.PlayerView, legal: tuple[engine.Action, ...]) -> bool:
        """It must choose now, and is offered the choice alone, without "listen": the
        day's votes are open and it has not voted (every ``llm`` player: a day whose
        players listened or talked until its timer ended it executed nobody); steered,
        also once it has had its turn this phase and has still not attacked. A small
        model repeats its last answer: a wolf chatted all night and never attacked;
        villagers listened all day, every day ended in a tie and a game never ended."""
        if view.votes.get(self.player) is not None:
            return False
        if must_vote(view, legal, self.answered_in == (view.day, view.phase)):
            return True
        return (self.steer and self.answered_in == (view.day, view.phase)
                and any(engine.action_name(a) in pack_actions() for a in legal))

    def narrow(self, view: engine.PlayerView,
               legal: tuple[engine.Action, ...]) -> tuple[engine.Action, ...]:
        """The actions offered: all of them; when steered, the choice alone once it must
        choose (``must_choose``), and for a wolf whose pack has picked tonight's victim,
        that victim alone."""
        if self.must_choose(view, legal):
            legal = tuple(a for a in legal if type(a) in targeted()
                          and type(a) is not engine.Whisper)
        if not self.steer:
            return legal
        pick = pack_pick(self.player, view)
        pack = pack_actions()

        def packs(a: engine.Action) -> bool:
            return engine.action_name(a) in pack

        if pick and any(packs(a) and a.target == pick for a in legal):  # type: ignore[union-attr]
            legal = tuple(a for a in legal if not packs(a) or a.target == pick)  # type: ignore[union-attr]
        return legal

    def _read_beliefs(self, text: str, schema: dict, view: engine.PlayerView,
                      record: dict) -> None:
        """Keep the beliefs a legal answer stated, if it was asked to; a bad statement
        costs the statement, not the action (``beliefs_error`` in its record)."""
        rated = schema["anyOf"][0]["properties"].get("suspicion")
        if rated is None:
            return
        try:
            percents = stated_percents(text, rated["required"])
        except ValueError as exc:
            record["beliefs_error"] = str(exc)
            return
        record["stated"] = {n: round(p, 4) for n, p in read_suspicion(
            text, rated["required"], view).items()}
        self.stated = ((view.day, view.phase), percents)

    async def adecide(self, view: engine.PlayerView, legal: tuple[engine.Action, ...],
                      messages: list[str]) -> engine.Action | None:
        if not legal:
            return None
        if not self.started:
            self._start(view)
        legal = self.narrow(view, legal)
        listen = not self.must_choose(view, legal)
        self.memory.hear(view.day, messages, view.players)
        text, schema, described = self.turn_prompt(view, messages, legal, listen)
        record: dict = {"player": self.player, "day": view.day, "phase": view.phase,
                        "calls": 0, "tokens": 0, "seconds": 0.0}
        self.pending = record
        prompt = text
        try:
            # the first answer, then one re-prompt naming what was wrong with it
            for outcome, key in (("legal", ""), ("repaired", "repair_")):
                # (room for the longest chat the schema allows, at one character a token)
                try:
                    answer = await self.llm.prompt(
                        prompt, schema, max_tokens=self.max_tokens or self.max_chars + 40,
                        temperature=self.temperature)
                finally:  # (a failed call's retries too)
                    note_retries(record, self.llm)
                account(record, self.llm, answer)
                record[f"{key}answer"] = answer.text
                try:
                    action = parse(answer.text, self.player, legal, self.max_chars, listen)
                except ValueError as exc:
                    record[f"{key}error"] = str(exc)
                    prompt = self.prompts.render("repair.md", error=str(exc),
                                                 choices=described)
                    continue
                action, faults = self.gated(action, view, record)
                if faults:  # a line the gate refuses: asked once more
                    record[f"{key}error"] = "; ".join(faults)
                    prompt = self.prompts.render("refused.md", fault="; ".join(faults),
                                                 choices=described)
                    continue
                record["outcome"] = outcome
                record["action"] = label(action)
                self._read_beliefs(answer.text, schema, view, record)
                return self._chose(action, view)
            record["outcome"] = "fallback"
            if record.get("caught"):  # its lines could not be said
                record["gated"] = list(dict.fromkeys(record["caught"]))
            return self._chose(self._fall_back(view, legal, record), view)
        except Exception as exc:
            record["outcome"] = "fallback"
            failed(record, exc)
            return self._fall_back(view, legal, record)
        finally:  # (cancelled: the question became moot while it was being answered)
            self.pending = None
            record.setdefault("outcome", "cancelled")
            self.tally.log.append(record)

    def _fall_back(self, view: engine.PlayerView, legal: tuple[engine.Action, ...],
                   record: dict) -> engine.Action | None:
        """The fallback's turn (its line, its vote, or nothing), and which fallback it
        was, in the record."""
        if self.fallback is None:
            record.update(fallback_decider="listen", fallback_action=repr(None))
            return None
        name, decider = self.fallback
        action = decider.decide(view, legal)
        record.update(fallback_decider=name, fallback_action=repr(action))
        return action

    def gated(self, action: engine.Action | None, view: engine.PlayerView,
              record: dict) -> tuple[engine.Action | None, tuple[str, ...]]:
        """``action`` through the gate (``maw.policies.gate``) if it says a line: with the
        line it may say (cut back to its last full sentence where its end was cut off),
        or the gate's faults (kept in the record's ``caught``)."""
        text = getattr(action, "text", None) if type(action) in (
            engine.Chat, engine.Whisper) else None
        if action is None or text is None:
            return action, ()
        verdict = gate.check(text, view, self.max_chars,
                             instructions=self.prompts.instructions(
                                 view, "turn.md", "repair.md", "refused.md",
                                 persona=self.persona))
        if verdict.text is None:
            record.setdefault("caught", []).extend(verdict.faults)
            return action, verdict.faults
        if verdict.cut:
            record["cut"] = True
        return dataclasses.replace(action, text=verdict.text), ()  # type: ignore[arg-type]


def seated(seat: ModelSeat) -> LLMDecider:
    """The ``llm`` decider of a roster seat: when its model gives no action it may take,
    its roster's ``fallback`` decides that turn (``rule`` by default; ``random`` draws
    from a stream of its own, seeded from the seat's, so a game replays; ``listen``)."""
    spec = seat.spec
    name = getattr(spec, "fallback", "rule")
    fallback = None if name == "listen" else (name, make_decider(
        name, seat.player, random.Random(f"{seat.seed}:{name}")))
    return LLMDecider(seat.player, random.Random(seat.seed), seat.llm, seat.prompts,
                      seat.persona, spec.max_chars, spec.temperature,
                      fallback=fallback, steer=spec.steer, max_tokens=spec.max_tokens)


register_decider("llm", with_model=seated, talks=True)
