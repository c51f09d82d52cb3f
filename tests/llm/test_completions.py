"""``get_input`` carries a chat completion to a model's interface (design document §3.2.2,
Algorithm 1's "post M ∪ {g}"): the guiding prompt and the lines heard since the last
question. A model player's conversation opens with the guiding prompt its question
carried; the other seats' questions carry none."""

from __future__ import annotations

import json
import random

import pytest

from maw import engine
from maw.hosting.plan import GameRequest, plan_game
from maw.hosting.roster import LLMSpec
from maw.llm import prompts as p

MARK = " [as its get_input carried it]"


def test_a_completion_is_the_guiding_prompt_then_what_was_heard():
    game = engine.new_game(engine.ruleset("aiwolf-5"), ["Ann", "Bob", "Cid", "Dee", "Eve"],
                           random.Random(2))
    view = engine.view(game, "Ann")
    made = p.completion(p.Prompts(), view, ["Bob: hello.", "Cid: I am the Seer."], "m1")
    assert made["model"] == "m1"
    assert [x["content"] for x in made["messages"][:2]] == p.opening(p.Prompts(), view)
    assert made["messages"][2] == {"role": "user", "content": "Bob: hello.\nCid: I am the Seer."}
    assert p.supplied_opening(made) == p.opening(p.Prompts(), view)
    assert p.supplied_opening(None) is None and p.supplied_opening({"messages": 3}) is None


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_model_player_opens_with_the_guiding_prompt_its_question_carried(
        server, tmp_path, monkeypatch):
    from maw.hosting.game import run_game

    made: list[tuple[str, dict]] = []
    real = p.completion

    def marked(prompts, view, lines, model=""):
        out = real(prompts, view, lines, model)
        for message in out["messages"][:2]:
            message["content"] += MARK
        made.append((view.player, out))
        return out
    monkeypatch.setattr(p, "completion", marked)
    request = GameRequest(players=5, rules=engine.ruleset("aiwolf-5"), seed=3, policy="rule",
                          xmpp=f"localhost:{server.port}", log_dir=tmp_path,
                          day_seconds=4, night_seconds=2, early_end=True)
    plan = await plan_game(request)
    seat = plan.seats[0]
    seat.decider = "llm"
    seat.llm = LLMSpec(backend="scripted", model="plain", retries=0,
                       options={"replies": [json.dumps({"action": "listen"})] * 300})
    result = await run_game(plan.config, plan.seats, server, timeout=120)
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    calls = [r for r in records if r["kind"] == "llm" and r.get("prompts")]
    assert calls
    # (an answer without its beliefs: the record says why, and the action stands; its
    # record once failed to be written, and the player listened instead)
    assert any(r.get("beliefs_error") for r in calls)
    assert not any(r["kind"] == "decider_error" for r in records)
    opening = [x["content"] for x in calls[0]["prompts"][0] if x["role"] == "system"][:2]
    assert len(opening) == 2 and all(x.endswith(MARK) for x in opening)
    assert {who for who, _ in made} == {seat.name}  # (only the model's seat's questions)
    assert all(c["model"] == "plain" for _, c in made)
    heard = "\n".join(c["messages"][2]["content"] for _, c in made)
    said = [x["text"] for r in records if r["kind"] == "msg" and r["type"] == "new_messages"
            for x in r["body"]["messages"] if x["speaker"] not in (seat.name, "GM")]
    assert said and all(text in heard for text in said[:3])  # (M: the talk, as heard)
    # (kept out of the log: the role's prompt is in it; the model's calls hold it)
    assert not any("completions" in r.get("body", {}) for r in records if r["kind"] == "msg")
