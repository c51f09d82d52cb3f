"""A narrating moderator over XMPP (a roster's ``[moderator]``): its lines reach every
player and the Village, the log and the transcript; ``maw audit`` checks that it was told
public events only, and catches a log where it was not."""

from __future__ import annotations

import json
import re

import pytest

from maw import engine
from maw.hosting.plan import GameRequest, plan_game
from maw.llm.backends import ScriptedBackend
from maw.llm.base import Completion, register_backend
from maw.records.audit import audit_records
from maw.records.transcript import record_line


@register_backend
class Herald(ScriptedBackend):
    """A model defined here: it cries the news it was given (what the prompt says just
    happened), in its own opening words."""

    name = "herald-test"

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        prompt = messages[-1]["content"]
        news = re.search(r"(?:short sentences|The end, on day \d+): (.*?)\n", prompt).group(1)
        self.calls.append(prompt)
        text = json.dumps({"text": f"Hear this, village! {news}"})
        return Completion(text, len(prompt) // 4, 20, 0.0)


ROSTER = """
[moderator]
backend = "herald-test"

""" + "".join(f'[[player]]\nname = "{n}"\ndecider = "rule"\n\n'
              for n in ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay"))


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_the_moderator_s_lines_reach_every_player_and_the_village_and_pass_the_audit(
        server, tmp_path):
    from maw.hosting.game import run_game
    from maw.hosting.seats import narration_of

    roster = tmp_path / "narrated.toml"
    roster.write_text(ROSTER)
    request = GameRequest(players=6, rules=engine.ruleset("maw"), seed=3, roster=str(roster),
                          xmpp=f"localhost:{server.port}", log_dir=tmp_path, day_seconds=5,
                          night_seconds=3, early_end=True)
    plan = await plan_game(request)
    assert plan.moderator is not None and plan.moderator.llm.backend == "herald-test"
    result = await run_game(plan.config, plan.seats, server, timeout=120,
                            narration=narration_of(plan.moderator))
    log = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    lines = [r for r in log if r["kind"] == "narration"]
    assert lines and all(r["by"] == "model" for r in lines)
    assert all(r["text"].startswith("Hear this, village! ") for r in lines)
    assert lines[-1].get("summary") and "Game over" in lines[-1]["text"]
    seats = {r["jid"] for r in log if r["kind"] == "join"}
    village = next(r["to"] for r in log if r["kind"] == "msg" and r["type"] == "open_room")
    sent = [r for r in log if r["kind"] == "msg" and r["type"] == "narration"]
    texts = {r["text"] for r in lines}
    assert {r["body"]["text"] for r in sent if isinstance(r["to"], list)
            and set(r["to"]) == seats} == texts
    assert {r["body"]["text"] for r in sent if r["to"] == village} == texts
    # every player took the lines (it refused them as not understood, once)
    assert not [r for r in log if r["kind"] == "refused" and "narration" in r["reason"]]
    audit = audit_records(log)
    assert audit.ok, audit.violations
    assert audit.narrations == len(lines)
    assert record_line(lines[0]) == f"[Moderator] {lines[0]['text']}"
    tampered_audit_is_caught(log)


def tampered_audit_is_caught(log: list[dict]) -> None:
    """The audit of ``log`` with a narrator told a secret, and a line it never said."""
    records = [dict(r) for r in log]
    first = next(i for i, r in enumerate(records) if r["kind"] == "narration")
    round_events = [r for r in records[:first] if r["kind"] == "event" and r["round"] == 1]
    secret = next(i for i, r in enumerate(round_events) if r["data"].get("audience"))
    records[first] = {**records[first], "events": [secret]}
    sent = next(i for i, r in enumerate(records) if r["kind"] == "msg"
                and r["type"] == "narration")
    records[sent] = {**records[sent], "body": {**records[sent]["body"],
                                               "text": "Ann is a werewolf."}}
    audit = audit_records(records)
    found = " | ".join(str(v) for v in audit.violations)
    assert "only" in found and "may know of" in found
    assert "no narrator's record holds" in found
