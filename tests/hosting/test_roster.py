"""A roster's ``[llm]`` settings reach the model seats: the hybrid roster plays at the
paper's settings (Sato et al., Table 9: temperature 1.0, at most 200 tokens), which a seat
may override."""

from __future__ import annotations

import json

from conftest import REPO, wolf_view

from maw import engine
from maw.engine import view
from maw.hosting.roster import load_roster
from maw.llm import LLM
from maw.llm.backends import ScriptedBackend
from maw.llm.prompts import Prompts
from maw.policies import ModelSeat, decider_kind


async def test_the_hybrid_roster_voices_its_lines_at_the_paper_s_settings(tmp_path):
    roster = load_roster(REPO / "agents" / "hybrid.toml")
    assert (roster.llm.temperature, roster.llm.max_tokens) == (1.0, 200)
    spec = roster.llm_for(roster.player[0])
    s = wolf_view()
    backend = ScriptedBackend(replies=[json.dumps({"text": "Cid worries me the most."})])
    llm = LLM(backend, window=4096)
    d = decider_kind("hybrid").with_model(  # type: ignore[misc]
        ModelSeat("B", "1:1", llm, Prompts(), roster.player[0].persona, spec))
    action = await d.adecide(view(s, "B"), engine.legal_actions(s, "B"), [])
    assert type(action) is engine.Chat and backend.calls
    assert (llm.last_request["temperature"], llm.last_request["max_tokens"]) == (1.0, 200)
    # a seat's own settings win over the roster's
    own = tmp_path / "own.toml"
    own.write_text((REPO / "agents" / "hybrid.toml").read_text(encoding="utf-8").replace(
        'name = "Ann"', 'name = "Ann"\ntemperature = 0.2\nmax_tokens = 64'), encoding="utf-8")
    seats = load_roster(own)
    ann, bob = (seats.llm_for(p) for p in seats.player[:2])
    assert (ann.temperature, ann.max_tokens) == (0.2, 64)
    assert (bob.temperature, bob.max_tokens) == (1.0, 200)
