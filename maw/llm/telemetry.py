"""What a language-model player's decisions cost and how they ended: one record per
decision (the game log's ``llm`` records), what a call adds to it, and the counts the
summary and the reports give."""

from __future__ import annotations

from dataclasses import dataclass, field

from maw import engine
from maw.errors import BackendError
from maw.llm.llm import LLM
from maw.policies import gate


@dataclass
class Tally:
    """One record per decision (the game log's ``llm`` records); the counts derive from
    them: ``legal`` first time, ``repaired`` by the one re-prompt, ``fallback`` (never
    legal, or the backend failed: ``errors``), and the retries of their calls."""

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
    def retries(self) -> int:
        return summarize(self.log)["retries"]

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


def failed(record: dict, exc: BaseException) -> None:
    """Note in ``record`` the exception a decision's model call ended in; where its
    server or model cannot answer (a ``BackendError``), what it said, in words: the
    host tells the table once (``model_down``)."""
    record["exception"] = repr(exc)
    if isinstance(exc, BackendError):
        record["backend_error"] = str(exc)


def note_retries(record: dict, llm: LLM) -> None:
    """Keep in a decision's record the retries its calls made (``retries``: why each try
    failed and how long the call waited, ``maw.llm.retry``), a failed call's too."""
    retries = llm.take_retries()
    if retries:
        record.setdefault("retries", []).extend(retries)


def summarize(records: list[dict]) -> dict:
    """Calls, tokens, seconds and outcomes of LLM decision records, the retries of their
    calls (``retries``), which fallback decided (``fallback_by``: rule, random, listen),
    and the lines the gate refused (``gated``: said by the rule layer instead; ``why``: by
    kind of fault, ``maw.policies.gate.fault_kind``)."""
    out: dict = {"calls": 0, "tokens": 0, "seconds": 0.0, "legal": 0, "repaired": 0,
                 "fallback": 0, "retries": 0, "fallback_by": {}, "gated": 0, "why": {}}
    for r in records:
        out["calls"] += r.get("calls", 0)
        out["tokens"] += r.get("tokens", 0)
        out["seconds"] += r.get("seconds", 0.0)
        out["retries"] += len(r.get("retries") or ())
        if r["outcome"] in out:  # not "unfinished" (cut short by the game's end)
            out[r["outcome"]] += 1
        if r["outcome"] == "fallback" and r.get("fallback_decider"):
            by = out["fallback_by"]
            by[r["fallback_decider"]] = by.get(r["fallback_decider"], 0) + 1
        if r.get("gated"):
            out["gated"] += 1
            for kind in dict.fromkeys(gate.fault_kind(f) for f in r["gated"]):
                out["why"][kind] = out["why"].get(kind, 0) + 1
    out["seconds"] = round(out["seconds"], 2)
    return out
