"""The LLM decider: Algorithm 1's model step. It builds the prompt from what its player
received and its own view only, asks for a JSON action constrained to the legal ones,
re-prompts once naming the error, and falls back to "listen". Illegal actions never leave
it: every answer is checked against ``legal`` before it is returned.

It is the design document's agent: the guiding prompt and the answer schema decide, no
hard-coded logic, so it is an honest baseline. ``steer`` (a roster's ``[llm] steer =
true``) adds the old steering for small models: the pack's pick for a wolf, "Vote now.",
and the choice alone once the player has had its turn. The ``hybrid`` decider is where
strategy lives."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import string
from dataclasses import dataclass, field
from pathlib import Path

from maw import engine
from maw.errors import ConfigError
from maw.llm.llm import LLM
from maw.policies import gate
from maw.policies.base import (
    AsyncDecider,
    Decider,
    ModelSeat,
    make_decider,
    max_chat,
    register_decider,
    rules_of,
)

# the prompts shipped in the package (the repository's prompts/, linked in as maw/prompts)
PACKAGE_PROMPTS = Path(__file__).resolve().parent.parent / "prompts"


def targeted() -> dict[type, str]:
    """The targeted actions of the engine's table, by class (read when asked: an action
    registered later is one of them)."""
    return {spec.cls: name for name, spec in engine.ACTIONS.items() if spec.target}


def order() -> list[str]:
    """The order choices are offered in: the decisions first (a small model favours what
    it reads first), talk after."""
    return [*targeted().values(), *(n for n, s in engine.ACTIONS.items() if not s.target)]


def pack_actions() -> set[str]:
    """The pack's night actions (the attack): each wolf votes, and the pack must agree."""
    return {n for n, s in engine.ACTIONS.items() if s.night is not None and s.night.collective}


def powers() -> set[str]:
    """The night actions a role uses alone (divine, guard, and any registered later)."""
    return {n for n, s in engine.ACTIONS.items()
            if s.night is not None and not s.night.collective}


class Prompts:
    """The templates of a prompts/ folder (``MAW_PROMPTS``, else those shipped with MAW)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder or os.environ.get("MAW_PROMPTS") or PACKAGE_PROMPTS)
        if not (self.folder / "turn.md").is_file():
            raise ConfigError(f"no prompts in {self.folder} (turn.md is missing)")

    def source(self, template: str) -> str:
        """A template as written, its ``$variables`` unfilled (what the gate keeps a
        model from repeating); empty if it is missing."""
        try:
            return (self.folder / template).read_text(encoding="utf-8")
        except OSError:
            return ""

    def instructions(self, view: engine.PlayerView, *templates: str) -> tuple[str, ...]:
        """The instructions a model of ``view.player`` reads in ``templates``, besides the
        rules and its role's prompt: what its words may not echo (``maw.policies.gate``)."""
        return (*(self.source(t) for t in templates), self.source("rules.md"),
                self.source(f"roles/{view.role}.md"), game_rules(view))

    def render(self, template: str, /, **values: object) -> str:
        path = self.folder / template
        try:
            text = string.Template(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read prompt {path}: {exc}") from None
        try:
            return text.substitute({k: str(v) for k, v in values.items()}).strip()
        except KeyError as exc:
            raise ConfigError(f"prompt {path} uses ${exc.args[0]}, which the game does not "
                              f"supply ({', '.join(sorted(values))})") from None
        except ValueError as exc:
            raise ConfigError(f"prompt {path}: {exc}") from None


@dataclass
class Tally:
    """One record per decision (the game log's ``llm`` records); the counts derive from
    them: ``legal`` first time, ``repaired`` by the one re-prompt, ``fallback`` (never
    legal, or the backend failed: ``errors``)."""

    log: list[dict] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return summarize(self.log)["calls"]

    @property
    def legal(self) -> int:
        return summarize(self.log)["legal"]

    @property
    def repaired(self) -> int:
        return summarize(self.log)["repaired"]

    @property
    def fallbacks(self) -> int:
        return summarize(self.log)["fallback"]

    @property
    def errors(self) -> int:
        return sum("exception" in r for r in self.log)


def label(action: engine.Action | None) -> str:
    """What was chosen, in a few words (the log's ``action``): "vote Bob", "chat",
    "listen"."""
    if action is None:
        return "listen"
    target = getattr(action, "target", None)
    return f"{engine.action_name(action)} {target}" if target else engine.action_name(action)


def account(record: dict, llm: LLM, answer) -> None:
    """Add one model call to a decision's record: its cost, when it ran (``spans``, on
    ``time.monotonic()``: a call may wait its turn for a shared model), and the whole
    exchange (``prompts``: the messages sent, ``answers``: the text that came back,
    ``requests``: each call's key, schema, options and cost), so a game log shows, and
    can replay (the ``recorded`` backend), exactly what each model was told."""
    record["calls"] += 1
    record["tokens"] += answer.prompt_tokens + answer.completion_tokens
    record["seconds"] = round(record["seconds"] + answer.seconds, 3)
    record.setdefault("spans", []).append(
        [round(answer.end - answer.seconds, 4), round(answer.end, 4)])
    record.setdefault("prompts", []).append(llm.last_sent)
    record.setdefault("answers", []).append(answer.text)
    request = {**llm.last_request, "prompt_tokens": answer.prompt_tokens,
               "completion_tokens": answer.completion_tokens,
               "seconds": round(answer.seconds, 4)}
    if answer.evaluated_tokens is not None:
        request["evaluated_tokens"] = answer.evaluated_tokens
    record.setdefault("requests", []).append(request)


def summarize(records: list[dict]) -> dict:
    """Calls, tokens, seconds and outcomes of LLM decision records, and the lines the
    gate refused (``gated``: said by the rule layer instead; ``why``: by kind of fault,
    ``maw.policies.gate.fault_kind``)."""
    out: dict = {"calls": 0, "tokens": 0, "seconds": 0.0, "legal": 0, "repaired": 0,
                 "fallback": 0, "gated": 0, "why": {}}
    for r in records:
        out["calls"] += r.get("calls", 0)
        out["tokens"] += r.get("tokens", 0)
        out["seconds"] += r.get("seconds", 0.0)
        if r["outcome"] in out:  # not "unfinished" (cut short by the game's end)
            out[r["outcome"]] += 1
        if r.get("gated"):
            out["gated"] += 1
            for kind in dict.fromkeys(gate.fault_kind(f) for f in r["gated"]):
                out["why"][kind] = out["why"].get(kind, 0) + 1
    out["seconds"] = round(out["seconds"], 2)
    return out


def choices(legal: tuple[engine.Action, ...], listen: bool = True) -> tuple[list[str], str]:
    """The action names offered, and a line describing them with their targets."""
    kinds: dict[str, list[str]] = {}
    for a in legal:
        kind = engine.action_name(a)
        targets = kinds.setdefault(kind, [])
        if type(a) in targeted():
            targets.append(a.target)  # type: ignore[union-attr]
    ranks = order()
    kinds = dict(sorted(kinds.items(), key=lambda kv: ranks.index(kv[0])))
    parts = []
    for kind, targets in kinds.items():
        parts.append(f"{kind} ({', '.join(targets)})" if targets else kind)
    if not listen:
        return [*kinds], "; ".join(parts)
    parts.append("listen")
    return [*kinds, "listen"], "; ".join(parts)


def must_vote(view: engine.PlayerView, legal: tuple[engine.Action, ...],
              had_turn: bool = True) -> bool:
    """Its turn is a vote (a player that listens or talks instead leaves the day to its
    timer): the day's votes are open, this player may vote and has not, and either they
    opened after the talk (``votes_open=talk``), or it may not talk now (an AIWolf vote),
    or it has had its turn this phase (``had_turn``; with the votes open from the start,
    the design document's day, it may speak first)."""
    if not (view.votes_open and view.votes.get(view.player) is None and
            any(type(a) is engine.Vote for a in legal)):
        return False
    return had_turn or rules_of(view).votes_open is engine.VotesOpen.TALK or \
        not any(type(a) is engine.Chat for a in legal)


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


# the scale a player states its suspicion on: percent in steps of ten (an enum, which
# every grammar builder takes; a small model reads and writes round numbers best)
SCALE = list(range(0, 101, 10))


def suspects(view: engine.PlayerView) -> list[str]:
    """The players whose side this player is asked to judge: every other player whose
    role it does not know; none for a wolf, which knows its pack."""
    if view.pack:
        return []
    return [p for p in view.players if p != view.player and p not in view.known_roles]


def schema_for(actions: list[str], legal: tuple[engine.Action, ...], max_chars: int,
               rate: list[str] | tuple[str, ...] = ()) -> dict:
    """One JSON-schema alternative per action offered: a choice names one of its own legal
    targets, only "chat" carries a text. A grammar built from it (llama.cpp, Ollama) can
    only produce legal choices, and no tokens are spent on a text nobody reads. With
    ``rate``, every alternative starts with ``"suspicion"``: for each of those players,
    how likely (percent, on ``SCALE``) it is a werewolf."""
    targets: dict[str, list[str]] = {}
    for a in legal:
        name = targeted().get(type(a))
        if name is not None:
            targets.setdefault(name, []).append(a.target)  # type: ignore
    suspicion = {"type": "object", "properties": {
        n: {"type": "integer", "enum": SCALE} for n in rate},
        "required": list(rate), "additionalProperties": False}
    alternatives = []
    for kind in actions:
        properties: dict = {"suspicion": suspicion} if rate else {}
        properties["action"] = {"type": "string", "const": kind}
        if kind in targets:
            properties["target"] = {"type": "string", "enum": sorted(set(targets[kind]))}
            if engine.ACTIONS[kind].text:  # a whisper: to whom, and what
                properties["text"] = {"type": "string", "minLength": 1,
                                      "maxLength": max_chars}
        elif kind == "chat":
            # (an empty chat was the one illegal answer left to the embedded model)
            properties["text"] = {"type": "string", "minLength": 1, "maxLength": max_chars}
        alternatives.append({"type": "object", "properties": properties,
                             "required": list(properties), "additionalProperties": False})
    return {"anyOf": alternatives}


def answer_format(schema: dict) -> str:
    """The answer forms of a ``schema_for`` schema, as the prompt shows them."""
    forms = []
    for alternative in schema["anyOf"]:
        properties = alternative["properties"]
        kind = properties["action"]["const"]
        rated = properties.get("suspicion", {}).get("properties", {})
        head = ('"suspicion": {' + ", ".join(f'"{n}": PERCENT' for n in rated) + "}, "
                if rated else "")
        if "target" in properties and "text" in properties:
            forms.append(f'{{{head}"action": "{kind}", "target": NAME, "text": WHAT YOU SAY}}')
        elif "target" in properties:
            forms.append(f'{{{head}"action": "{kind}", "target": NAME}}')
        elif "text" in properties:
            forms.append(f'{{{head}"action": "{kind}", "text": WHAT YOU SAY}}')
        else:
            forms.append(f'{{{head}"action": "{kind}"}}')
    return " or ".join(forms)


def read_suspicion(text: str, rate: list[str], view: engine.PlayerView) -> dict[str, float]:
    """The beliefs an answer states (``"suspicion"``: percent per player in ``rate``),
    validated (every player rated, on ``SCALE``) and normalised: the players whose role
    the player knows keep their certainty, and the rated ones share the werewolves left
    to place in proportion to what was stated (none above 1; all rated 0 is the uniform
    share). ``ValueError`` says what was wrong."""
    from maw.policies.beliefs import uniform

    data = json.loads(text, strict=False)
    stated = data.get("suspicion") if isinstance(data, dict) else None
    if not isinstance(stated, dict):
        raise ValueError('no "suspicion" in the answer')
    missing = [n for n in rate if n not in stated]
    if missing:
        raise ValueError(f"no suspicion of {', '.join(missing)}")
    for n in rate:
        v = stated[n]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
            raise ValueError(f"the suspicion of {n} is {v!r}, not a percent")
    prior = uniform(view)
    mass = sum(prior[n] for n in rate)  # the wolves left to place among them
    return {**prior, **spread({n: float(stated[n]) for n in rate}, mass)}


def spread(weights: dict[str, float], mass: float) -> dict[str, float]:
    """Probabilities proportional to ``weights`` that sum to ``mass``, none above 1 (what
    would go above is capped and the rest shared again); all zero: an even share."""
    out = dict.fromkeys(weights, 0.0)
    free = dict(weights)
    while free and mass > 1e-12:
        total = sum(free.values())
        share = ({n: mass * w / total for n, w in free.items()} if total > 0
                 else {n: mass / len(free) for n in free})
        over = [n for n, p in share.items() if p >= 1.0]
        if not over:
            out.update(share)
            break
        for n in over:
            out[n] = 1.0
            mass -= 1.0
            del free[n]
    return out


def parse(text: str, player: str, legal: tuple[engine.Action, ...],
          max_chars: int, listen: bool = True) -> engine.Action | None:
    """The legal action ``text`` names (``None``: listen, if ``listen`` is offered);
    ``ValueError`` says why not."""
    try:
        data = json.loads(text, strict=False)  # a raw newline inside "text" is fine
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("action"), str):
        raise ValueError('no "action" in the answer')
    kind = data["action"].strip().lower()
    target = data.get("target")
    if kind == "listen" and listen:
        return None
    for a in legal:
        name = engine.action_name(a)
        if name != kind:
            continue
        if type(a) is engine.Whisper:
            said = data.get("text")
            if not isinstance(target, str) or target.strip().lower() != a.target.lower():
                continue
            if not isinstance(said, str) or not said.strip():
                raise ValueError('"whisper" needs a "text"')
            return engine.Whisper(player, a.target, said.strip()[:max_chars])
        if type(a) in targeted():
            if isinstance(target, str) and target.strip().lower() == a.target.lower():  # type: ignore
                return a
            continue
        if type(a) is engine.Chat:
            said = data.get("text")
            if not isinstance(said, str) or not said.strip():
                raise ValueError('"chat" needs a "text"')
            return engine.Chat(player, a.room, said.strip()[:max_chars])
        return a
    offered = sorted({engine.action_name(a) for a in legal})
    if kind in offered:
        raise ValueError(f"{target!r} is not a legal target for {kind}")
    raise ValueError(f"{kind!r} is not possible now (possible: "
                     f"{', '.join(offered + ['listen'] * listen)})")


def game_rules(view: engine.PlayerView) -> str:
    """The rules of the player's game in plain English, from its ruleset and options."""
    from maw.engine.describe import rules_text

    return rules_text(rules_of(view), len(view.players))


def chat_limit(view: engine.PlayerView, wanted: int) -> int:
    """The longest chat a model may write: its own limit (the roster's ``max_chars``), or
    the ruleset's ``max_chat_length`` where that is shorter (the GameMaster refuses a
    longer one)."""
    return min(wanted, max_chat(view))


def pin_game(llm: LLM, prompts: Prompts, view: engine.PlayerView) -> None:
    """The conversation's first two messages, kept for the whole game: the rules of the
    game (the same for every player, a cached prefix), then the player's role."""
    llm.pin("system", prompts.render("rules.md", name=view.player,
                                     players=", ".join(view.players),
                                     ruleset=view.ruleset, rules=game_rules(view)))
    pack = ", ".join(p for p in view.pack if p != view.player) or "none"
    llm.pin("system", prompts.render(f"roles/{view.role}.md", name=view.player, pack=pack))


class LLMDecider(AsyncDecider):
    """See the module docstring. ``llm`` is this player's own conversation."""

    def __init__(self, player: str, rng: random.Random, llm: LLM,
                 prompts: Prompts | None = None, persona: str = "",
                 max_chars: int = 200, temperature: float = 0.7,
                 fallback: tuple[str, Decider] | None = None, steer: bool = False) -> None:
        super().__init__(player, rng)
        self.llm = llm
        self.steer = steer
        # (name, decider) that decides when the model cannot answer at all (its server
        # is down, its process crashed); without one the player listens
        self.fallback = fallback
        self.prompts = prompts or Prompts()
        self.persona = persona
        self.max_chars = max_chars
        self.temperature = temperature
        self.tally = Tally()
        self.pending: dict | None = None  # the decision being made (its calls so far)
        self.started = False
        self.spoke_in: tuple[int, str] | None = None  # the phase it last spoke in
        self.answered_in: tuple[int, str] | None = None  # ... it last answered in
        # the beliefs its answers stated, and the phase (day, phase) they were stated in
        self.stated: tuple[tuple[int, str], dict[str, float]] | None = None

    def _chose(self, action: engine.Action | None,
               view: engine.PlayerView) -> engine.Action | None:
        self.answered_in = (view.day, view.phase)
        if type(action) is engine.Chat:
            self.spoke_in = (view.day, view.phase)
        return action

    def observe(self, event) -> None:
        if self.fallback is not None:
            self.fallback[1].observe(event)

    def beliefs(self, view: engine.PlayerView) -> dict[str, float] | None:
        """What its answers stated this phase (``"suspicion"``, normalised by
        ``read_suspicion``); a wolf knows its pack (the uniform prior is certain)."""
        from maw.policies.beliefs import uniform

        if view.pack:
            return uniform(view)
        if self.stated is not None and self.stated[0] == (view.day, view.phase):
            return dict(self.stated[1])
        return None

    def to_rate(self, view: engine.PlayerView) -> list[str]:
        """Whom to rate in this answer: its suspects in the first answer of each phase
        (one statement a phase is what the log keeps; every answer would cost tokens)."""
        if self.stated is not None and self.stated[0] == (view.day, view.phase):
            return []
        return suspects(view)

    def _start(self, view: engine.PlayerView) -> None:
        pin_game(self.llm, self.prompts, view)
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
            belief = read_suspicion(text, rated["required"], view)
        except ValueError as exc:
            record["beliefs_error"] = str(exc)
            return
        self.stated = ((view.day, view.phase), belief)

    async def adecide(self, view: engine.PlayerView, legal: tuple[engine.Action, ...],
                      messages: list[str]) -> engine.Action | None:
        if not legal:
            return None
        if not self.started:
            self._start(view)
        legal = self.narrow(view, legal)
        listen = not self.must_choose(view, legal)
        text, schema, described = self.turn_prompt(view, messages, legal, listen)
        record: dict = {"player": self.player, "day": view.day, "phase": view.phase,
                        "calls": 0, "tokens": 0, "seconds": 0.0}
        self.pending = record
        prompt = text
        try:
            # the first answer, then one re-prompt naming what was wrong with it
            for outcome, key in (("legal", ""), ("repaired", "repair_")):
                # (room for the longest chat the schema allows, at one character a token)
                answer = await self.llm.prompt(prompt, schema, max_tokens=self.max_chars + 40,
                                               temperature=self.temperature)
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
            if record.get("caught") and self.fallback is not None:
                # its lines could not be said: the rule player's turn instead (its line,
                # its vote, or nothing)
                record["gated"] = list(dict.fromkeys(record["caught"]))
                return self._chose(self._fall_back(view, legal, record), view)
            return None
        except Exception as exc:
            record.update(outcome="fallback", exception=repr(exc))
            if self.fallback is None:
                return None
            return self._fall_back(view, legal, record)
        finally:  # (cancelled: the question became moot while it was being answered)
            self.pending = None
            record.setdefault("outcome", "cancelled")
            self.tally.log.append(record)

    def _fall_back(self, view: engine.PlayerView, legal: tuple[engine.Action, ...],
                   record: dict) -> engine.Action | None:
        assert self.fallback is not None
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
                                 view, "turn.md", "repair.md", "refused.md"))
        if verdict.text is None:
            record.setdefault("caught", []).extend(verdict.faults)
            return action, verdict.faults
        if verdict.cut:
            record["cut"] = True
        return dataclasses.replace(action, text=verdict.text), ()  # type: ignore[arg-type]


def seated(seat: ModelSeat) -> LLMDecider:
    """The ``llm`` decider of a roster seat: when its model cannot answer (its server is
    down, its process crashed), the rule player decides that turn."""
    spec = seat.spec
    fallback = make_decider("rule", seat.player, random.Random(f"{seat.seed}:rule"))
    return LLMDecider(seat.player, random.Random(seat.seed), seat.llm, seat.prompts,
                      seat.persona, spec.max_chars, spec.temperature,
                      fallback=("rule", fallback), steer=spec.steer)


register_decider("llm", with_model=seated, talks=True)
