"""What a language-model player may answer: the choices offered and how the prompt says
them, the answer's JSON schema (one alternative per action, only legal targets), the
parse of an answer back into a legal action, and the beliefs an answer states."""

from __future__ import annotations

import json

from maw import engine
from maw.engine.actions import targeted


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


def stated_percents(text: str, rate: list[str]) -> dict[str, float]:
    """The percents an answer states (``"suspicion"``: one per player in ``rate``),
    validated: every player rated, each from 0 to 100. ``ValueError`` says what was wrong."""
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
    return {n: float(stated[n]) for n in rate}


def read_suspicion(text: str, rate: list[str], view: engine.PlayerView) -> dict[str, float]:
    """The beliefs an answer states (``stated_percents``), normalised: the players whose
    role the player knows keep their certainty, and the rated ones share the werewolves
    left to place in proportion to what was stated (none above 1; all rated 0 is the
    uniform share). ``ValueError`` says what was wrong."""
    from maw.policies.beliefs import uniform

    return weigh(uniform(view), stated_percents(text, rate), say=0.0)


# how far a model's word moves the beliefs it is weighed into: a player's weight is its
# prior times (its percent + SAY), so 100% against 0% doubles it, no more. The small models
# MAW runs state beliefs that score worse than the uniform guess (Brier 0.2846 against
# 0.2391 taken alone, benchmarks/README.md): their word may tip the rule layer's, not
# overrule it
SAY = 100.0


def weigh(prior: dict[str, float], percents: dict[str, float],
          say: float = SAY) -> dict[str, float]:
    """``prior`` (P(werewolf) per player) moved by the percents a model stated: each rated
    player's weight is its prior times (its percent + ``say``), and the rated share the
    werewolves the prior placed among them in proportion (``spread``); the others keep
    their prior. ``say`` 0 over the uniform prior: the percents alone."""
    rated = [n for n in percents if n in prior]
    mass = sum(prior[n] for n in rated)
    weights = {n: prior[n] * (percents[n] + say) for n in rated}
    return {**prior, **spread(weights, mass)}


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
