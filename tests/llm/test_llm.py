"""The LLM layer: the LLM class, prompts, the LLM decider (scripted backend), the ollama
backend at its HTTP edge, and the openai backend against a real llama.cpp server."""

from __future__ import annotations

import asyncio
import json
import random
import re

import pytest
import pytest_asyncio
from aiohttp import web
from stand_ins import NAMES, FirstChoice

from maw import engine
from maw.errors import ConfigError
from maw.hosting.xmpp import free_port
from maw.llm import LLM, BackendError, make_backend
from maw.llm.answers import parse
from maw.llm.backends import ScriptedBackend
from maw.llm.decider import LLMDecider
from maw.llm.prompts import Prompts
from maw.records.metrics import (
    LATE,  # refusals for arriving after the phase: timing, not a bad move
)


def game_and_view(player: str, seed: int = 1):
    state = engine.new_game(engine.ruleset("maw"), NAMES, random.Random(seed))
    return state, engine.view(state, player), engine.legal_actions(state, player)


# ---------------------------------------------------------------- the LLM class


async def test_each_player_has_its_own_context():
    backend = ScriptedBackend(replies=["one", "two"])
    ann, bob = LLM(backend), LLM(backend)
    ann.pin("system", "Ann is a Werewolf.")
    bob.pin("system", "Bob is a Villager.")
    await ann.prompt("secret plan")
    await bob.prompt("hello")
    bob_saw = json.dumps(backend.calls[1])
    assert "Werewolf" not in bob_saw and "secret plan" not in bob_saw
    assert [m["content"] for m in ann.context] == ["Ann is a Werewolf.", "secret plan", "one"]


async def test_truncation_drops_the_oldest_but_never_the_pinned_or_the_newest():
    llm = LLM(ScriptedBackend(replies=["ok"] * 20), window=120)
    llm.pin("system", "RULES " * 20)
    llm.pin("system", "ROLE: Seer")
    for i in range(10):
        await llm.prompt(f"message {i} " + "x" * 40, max_tokens=10)
    contents = [m["content"] for m in llm.context]
    assert contents[:2] == ["RULES " * 20, "ROLE: Seer"]
    assert contents[-2].startswith("message 9") and contents[-1] == "ok"
    assert not any(c.startswith("message 0") for c in contents)


async def test_save_and_load_round_trip(tmp_path):
    llm = LLM(ScriptedBackend(replies=["fine"]), window=999)
    llm.pin("system", "rules")
    await llm.prompt("how are you?")
    llm.save(tmp_path / "ann.json")
    back = LLM.load(tmp_path / "ann.json", ScriptedBackend())
    assert back.context == llm.context and back.pinned == 1 and back.window == 999
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="cannot load"):
        LLM.load(tmp_path / "bad.json", ScriptedBackend())


async def test_a_failed_call_leaves_the_context_as_it_was():
    llm = LLM(ScriptedBackend(replies=[]))
    with pytest.raises(BackendError, match="no reply left"):
        await llm.prompt("anyone?")
    assert llm.context == []


def test_unknown_backend_names_the_known_ones():
    with pytest.raises(ConfigError, match="llamacpp, ollama, openai, recorded, scripted"):
        make_backend("telepathy")


# ---------------------------------------------------------------- prompts


def test_every_role_prompt_renders():
    """Every role the engine knows (a role registered later too) has its prompt."""
    from maw.engine.roles import ROLES

    for role in [r.name for r in ROLES.values()]:
        text = Prompts().render(f"roles/{role}.md", name="Ann", pack="Bob")
        assert role in text and "$" not in text


def test_a_missing_variable_is_an_error_naming_it(tmp_path):
    (tmp_path / "turn.md").write_text("Day $day, $weather")
    with pytest.raises(ConfigError, match=r"uses \$weather"):
        Prompts(tmp_path).render("turn.md", day=1)


# ---------------------------------------------------------------- the decider


def decider_for(player: str, *replies: str,
                steer: bool = False) -> tuple[LLMDecider, ScriptedBackend]:
    backend = ScriptedBackend(replies=list(replies))
    return LLMDecider(player, random.Random(0), LLM(backend, window=4096),
                      persona="You are calm.", steer=steer), backend


async def test_a_legal_answer_becomes_the_action():
    state, view, legal = game_and_view("Ann")
    target = next(a.target for a in legal if isinstance(a, engine.Vote))
    # (the flattened form OpenAI's strict mode answers in, with "text": null, parses too)
    d, backend = decider_for("Ann", json.dumps({"action": "vote", "target": target.lower(),
                                                "text": None}))
    action = await d.adecide(view, legal, ["Bob: hello"])
    assert action == engine.Vote("Ann", target)
    assert d.tally.legal == 1 and d.tally.calls == 1
    assert d.tally.log[-1]["action"] == f"vote {target}"  # what the observer shows
    engine.play(state, action)  # the engine takes it


async def test_an_illegal_answer_is_repaired_once_then_falls_back_to_listen():
    _, view, legal = game_and_view("Ann")
    d, backend = decider_for("Ann", '{"action": "vote", "target": "Zed", "text": null}',
                             '{"action": "chat", "target": null, "text": "  I trust Bob. "}')
    action = await d.adecide(view, legal, [])
    assert isinstance(action, engine.Chat) and action.text == "I trust Bob."
    assert d.tally.repaired == 1
    assert "'Zed' is not a legal target" in backend.calls[1][-1]["content"]
    # the record keeps each call's whole exchange: exactly what the model was sent
    assert d.tally.log[-1]["prompts"] == backend.calls
    assert d.tally.log[-1]["answers"] == [d.tally.log[-1]["answer"],
                                          d.tally.log[-1]["repair_answer"]]
    d2, _ = decider_for("Ann", "not json at all", '{"action": "fly"}')
    assert await d2.adecide(view, legal, []) is None
    assert d2.tally.fallbacks == 1 and d2.tally.log[-1]["outcome"] == "fallback"


@pytest.mark.parametrize("which", ["rule", "random", "listen"])
async def test_after_a_failed_repair_the_seats_fallback_decides_and_the_record_says_which(
        which):
    from maw.policies import make_decider

    _, view, legal = game_and_view("Ann")

    def failing(seed: str) -> LLMDecider:
        fallback = None if which == "listen" else (
            which, make_decider(which, "Ann", random.Random(f"{seed}:{which}")))
        return LLMDecider("Ann", random.Random(seed), LLM(ScriptedBackend(
            replies=["not json at all", '{"action": "fly"}']), window=4096),
            fallback=fallback)

    d = failing("1:1")
    action = await d.adecide(view, legal, [])
    record = d.tally.log[-1]
    assert record["outcome"] == "fallback" and record["fallback_decider"] == which
    assert record["fallback_action"] == repr(action)
    if which == "listen":
        assert action is None
    else:
        assert action in legal or isinstance(action, engine.Chat)
    if which == "random":  # drawn from the seat's seeded stream: the same seed, the same
        draws = {repr(await failing("1:1").adecide(view, legal, [])) for _ in range(3)}
        assert draws == {repr(action)}
        others = {repr(await failing(f"1:{i}").adecide(view, legal, [])) for i in range(8)}
        assert len(others) > 1  # (and chance, from one seed to the next)


@pytest.mark.parametrize("first", ['{"action": "chat", "text": "I suspect someone."}',
                                   '{"action": "listen"}'])
async def test_after_its_turn_a_player_that_must_still_vote_is_offered_the_choice_alone(first):
    # (steer = true) a small model repeats its last answer: a wolf chatted all night and
    # never attacked, villagers listened all day and no day ever ended in an execution
    _, view, legal = game_and_view("Ann")
    target = next(a.target for a in legal if isinstance(a, engine.Vote))
    d, backend = decider_for("Ann", first, '{"action": "listen"}',
                             json.dumps({"action": "vote", "target": target}), steer=True)
    assert await d.adecide(view, legal, []) == parse(first, "Ann", legal, 200)
    assert {"vote", "chat", "listen"} <= set(offered(backend.schemas[0]))
    # the second question: "listen" is not possible any more (had it been, the one
    # re-prompt names the error), and a vote is the answer
    assert await d.adecide(view, legal, []) == engine.Vote("Ann", target)
    assert offered(backend.schemas[1]) == ["vote"]
    assert "'listen' is not possible now (possible: vote)" in backend.calls[2][-1]["content"]
    assert d.tally.log[-1]["outcome"] == "repaired"
    # a new phase offers everything again
    later = view.__class__(**{**{f: getattr(view, f) for f in view.__dataclass_fields__},
                              "day": view.day + 1})
    d.llm.backend.queue('{"action": "listen"}')
    assert await d.adecide(later, legal, []) is None
    assert "listen" in offered(backend.schemas[3])


async def test_unsteered_the_llm_player_follows_its_prompt_alone():
    # the design document's agent: every legal choice every time, no advice but the facts
    state, wolves = first_night(seed=3, executed=-1)
    first, second = wolves
    targets = sorted(a.target for a in engine.legal_actions(state, first)
                     if isinstance(a, engine.Attack))
    state, _ = engine.play(state, engine.Attack(second, targets[1]))
    d, backend = decider_for(first, '{"action": "listen"}', '{"action": "listen"}')
    legal = engine.legal_actions(state, first)
    for _ in range(2):  # (asked twice in a phase: still free to listen)
        assert await d.adecide(engine.view(state, first), legal, []) is None
    for schema in backend.schemas:
        assert set(offered(schema)) == {"attack", "chat", "listen"}
        attack = next(alt for alt in schema["anyOf"]
                      if alt["properties"]["action"]["const"] == "attack")
        assert attack["properties"]["target"]["enum"] == targets
    prompt = backend.calls[0][-1]["content"]
    assert "Your pack attacks" not in prompt and "attack now" not in prompt
    rules = backend.calls[0][0]["content"]
    assert "every living werewolf votes for the same player" in rules  # built from the rules


def offered(schema: dict) -> list[str]:
    return [alt["properties"]["action"]["const"] for alt in schema["anyOf"]]


def first_night(seed: int, executed: int = 0):
    """The first night of a 6-player MAW game in which wolf number ``executed`` was
    executed (-1: a villager was), and the werewolves' names."""
    state = game_and_view("Ann", seed=seed)[0]
    wolves = [n for n, r in zip(state.names, state.roles, strict=True) if r.pack]
    victim = wolves[executed] if executed >= 0 else next(
        n for n in state.names if n not in wolves)
    voters = [n for n in state.names if n != victim]
    state, _ = engine.play(state, engine.Vote(victim, voters[0]))
    for n in voters:  # (the day ends by itself once the outcome is settled)
        if state.phase == "day":
            state, _ = engine.play(state, engine.Vote(n, victim))
    if state.phase == "day":
        state, _ = engine.play(state, engine.EndPhase())
    assert state.phase == "night"
    return state, wolves


async def test_a_wolf_follows_its_packs_pick():
    # a MAW night kills only if the pack agrees: a small model left alone picked its own
    # victim; two wolves each told to follow the other would swap forever, so the first
    # by name that has picked leads
    state, wolves = first_night(seed=3, executed=-1)
    assert len(wolves) == 2 and wolves == sorted(wolves)
    first, second = wolves
    targets = [a.target for a in engine.legal_actions(state, first)
               if isinstance(a, engine.Attack)]
    state, _ = engine.play(state, engine.Attack(second, targets[1]))
    # only the second has picked: the first is offered that victim
    d, backend = decider_for(first, json.dumps({"action": "attack", "target": targets[1]}),
                             steer=True)
    assert await d.adecide(engine.view(state, first), engine.legal_actions(state, first),
                           []) == engine.Attack(first, targets[1])
    attack = next(alt for alt in backend.schemas[0]["anyOf"]
                  if alt["properties"]["action"]["const"] == "attack")
    assert attack["properties"]["target"]["enum"] == [targets[1]]
    assert f"Your pack attacks {targets[1]}: the pack must agree on one victim, so attack " \
           f"{targets[1]} too." in backend.calls[0][-1]["content"]
    # both have picked, differently: the first leads and keeps its choice; the second
    # is offered the first's victim
    state, _ = engine.play(state, engine.Attack(first, targets[0]))
    d, backend = decider_for(first, '{"action": "listen"}', steer=True)
    await d.adecide(engine.view(state, first), engine.legal_actions(state, first), [])
    attack = next(alt for alt in backend.schemas[0]["anyOf"]
                  if alt["properties"]["action"]["const"] == "attack")
    assert attack["properties"]["target"]["enum"] == sorted(
        a.target for a in engine.legal_actions(state, first) if isinstance(a, engine.Attack))
    assert len(attack["properties"]["target"]["enum"]) > 1
    assert "Your pack attacks" not in backend.calls[0][-1]["content"]
    d, backend = decider_for(second, json.dumps({"action": "attack", "target": targets[0]}),
                             steer=True)
    assert await d.adecide(engine.view(state, second), engine.legal_actions(state, second),
                           []) == engine.Attack(second, targets[0])
    _, events = engine.play(state, engine.Attack(second, targets[0]))
    assert any(type(e).__name__ == "Murdered" for e in events)


def test_the_answer_schema_offers_each_choice_with_its_own_legal_targets_only():
    from maw.llm.answers import answer_format, choices, schema_for

    state, wolves = first_night(seed=3)
    assert not state.alive[state.names.index(wolves[0])]
    wolf = wolves[1]
    legal = engine.legal_actions(state, wolf)
    actions, _ = choices(legal)
    schema = schema_for(actions, legal, 120)
    alts = {alt["properties"]["action"]["const"]: alt for alt in schema["anyOf"]}
    assert set(alts) == set(actions) and "attack" in alts and "vote" not in alts
    attackable = alts["attack"]["properties"]["target"]["enum"]
    assert attackable == sorted(a.target for a in legal if isinstance(a, engine.Attack))
    assert wolf not in attackable and wolves[0] not in attackable
    for kind, alt in alts.items():
        assert alt["required"] == list(alt["properties"]) and not alt["additionalProperties"]
        assert ("text" in alt["properties"]) == (kind == "chat")
    assert "chat" in alts  # (the Hideout)
    assert alts["chat"]["properties"]["text"]["maxLength"] == 120
    assert alts["chat"]["properties"]["text"]["minLength"] == 1
    assert '{"action": "attack", "target": NAME}' in answer_format(schema)
    assert parse(json.dumps({"action": "attack", "target": attackable[0]}), wolf, legal,
                 120) == engine.Attack(wolf, attackable[0])


def test_openai_strict_mode_gets_one_object_for_the_alternatives():
    from maw.llm.answers import choices, schema_for
    from maw.llm.backends import strict_schema

    _, _, legal = game_and_view("Ann")
    actions, _ = choices(legal)
    flat = strict_schema(schema_for(actions, legal, 100))
    assert flat["type"] == "object" and "anyOf" not in flat
    assert flat["required"] == ["action", "target", "text"]
    assert flat["properties"]["action"] == {"type": "string", "enum": sorted(actions)}
    targets = sorted(a.target for a in legal if isinstance(a, engine.Vote))
    assert flat["properties"]["target"] == {
        "anyOf": [{"type": "string", "enum": targets}, {"type": "null"}]}
    assert flat["properties"]["text"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    plain = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert strict_schema(plain) is plain
    rated = schema_for(actions, legal, 100, ["Bob", "Cid"])
    suspicion = rated["anyOf"][0]["properties"]["suspicion"]
    assert strict_schema(rated)["properties"]["suspicion"] == suspicion
    assert strict_schema(rated)["required"] == ["suspicion", "action", "target", "text"]


async def test_a_backend_failure_is_a_fallback_not_a_crash():
    _, view, legal = game_and_view("Ann")
    d, _ = decider_for("Ann")  # no replies: the backend raises
    assert await d.adecide(view, legal, []) is None
    assert d.tally.errors == 1


async def test_the_prompt_holds_only_what_the_player_may_know():
    state, _, _ = game_and_view("Ann", seed=3)
    wolves = [n for n, r in zip(state.names, state.roles, strict=True) if r.pack]
    villager = next(n for n, r in zip(state.names, state.roles, strict=True) if not r.pack)
    view = engine.view(state, villager)
    legal = engine.legal_actions(state, villager)
    d, backend = decider_for(villager, '{"action": "listen"}')
    await d.adecide(view, legal, [])
    seen = json.dumps(backend.calls[0])
    assert "Your role: Villager" in seen and "Werewolf. Your pack" not in seen
    wolf = wolves[0]
    d, backend = decider_for(wolf, '{"action": "listen"}')
    await d.adecide(engine.view(state, wolf), engine.legal_actions(state, wolf), [])
    mates = [w for w in wolves if w != wolf]
    assert f"Your pack: {', '.join(mates)}" in json.dumps(backend.calls[0])


async def test_a_villager_states_its_beliefs_once_a_phase_validated_and_normalised():
    from maw.llm.answers import SCALE, suspects
    from maw.policies.beliefs import pack_size

    state, _, _ = game_and_view("Ann", seed=3)
    villager = next(n for n, r in zip(state.names, state.roles, strict=True) if not r.pack)
    view, legal = engine.view(state, villager), engine.legal_actions(state, villager)
    rate = suspects(view)
    assert rate == [n for n in NAMES if n != villager]  # it knows no other role
    stated = dict(zip(rate, [90, 0, 30, 0, 0], strict=True))
    target = next(a.target for a in legal if isinstance(a, engine.Vote))
    d, backend = decider_for(villager, json.dumps(
        {"suspicion": stated, "action": "vote", "target": target}), '{"action": "listen"}')
    assert d.beliefs(view) is None  # nothing said yet
    assert await d.adecide(view, legal, []) == engine.Vote(villager, target)
    first = backend.schemas[0]["anyOf"]
    for alt in first:  # every answer form starts with the suspicion of each suspect
        assert list(alt["properties"])[0] == "suspicion"
        rated = alt["properties"]["suspicion"]
        assert rated["required"] == rate and not rated["additionalProperties"]
        assert all(p["enum"] == SCALE for p in rated["properties"].values())
    assert f"each of {', '.join(rate)} is a werewolf" in backend.calls[0][-1]["content"]
    # what the model stated, in its record: the pack's two wolves shared in proportion
    # to the percents, none > 1
    alone = d.tally.log[-1]["stated"]
    assert pack_size(view) == 2 and sum(alone.values()) == pytest.approx(2)
    a, c = rate[0], rate[2]
    assert alone[a] == 1.0 and alone[c] == pytest.approx(1.0)
    assert all(alone[n] == 0 for n in rate if n not in (a, c))
    # its beliefs: the rule layer's, tipped by the percents (the 90% up, the 0%s down, a
    # factor of two at most), the two wolves still placed
    prior = d.reader.beliefs(view)
    belief = d.beliefs(view)
    assert sum(belief.values()) == pytest.approx(2)
    assert belief[a] > prior[a] and all(belief[n] < prior[n] for n in rate
                                        if stated[n] == 0)
    assert all(prior[n] / 2 <= belief[n] <= prior[n] * 2 for n in rate)
    # asked again in the same phase: no second statement (the log keeps one a phase)
    assert await d.adecide(view, legal, []) is None
    assert "suspicion" not in backend.schemas[1]["anyOf"][0]["properties"]
    assert d.beliefs(view) == belief
    # the next day it has said nothing yet
    later = view.__class__(**{**{f: getattr(view, f) for f in view.__dataclass_fields__},
                              "day": view.day + 1})
    assert d.beliefs(later) is None


def test_stated_suspicion_is_spread_over_the_wolves_left_and_checked():
    from maw.llm.answers import read_suspicion, spread, weigh

    assert spread({"A": 100, "B": 0, "C": 0}, 2) == {"A": 1.0, "B": 0.5, "C": 0.5}
    assert spread({"A": 0, "B": 0}, 1) == {"A": 0.5, "B": 0.5}
    assert spread({"A": 30, "B": 10}, 1) == pytest.approx({"A": 0.75, "B": 0.25})
    # a model's word weighed into a prior: 100% against 0% doubles a weight, no more; the
    # certain and the unrated keep what the prior says
    prior = {"A": 0.5, "B": 0.5, "C": 0.0, "D": 1.0, "E": 0.25}
    assert weigh(prior, {"A": 100, "B": 0, "C": 90}) == pytest.approx(
        {"A": 2 / 3, "B": 1 / 3, "C": 0.0, "D": 1.0, "E": 0.25})
    assert weigh(prior, {"A": 100, "B": 0}, say=0) == pytest.approx(
        {**prior, "A": 1.0, "B": 0.0})
    state, _, _ = game_and_view("Ann", seed=3)
    villager = next(n for n, r in zip(state.names, state.roles, strict=True) if not r.pack)
    view = engine.view(state, villager)
    rate = [n for n in NAMES if n != villager]
    with pytest.raises(ValueError, match=f"no suspicion of {rate[-1]}"):
        read_suspicion(json.dumps({"suspicion": dict.fromkeys(rate[:-1], 10)}), rate, view)
    with pytest.raises(ValueError, match="150, not a percent"):
        read_suspicion(json.dumps({"suspicion": {**dict.fromkeys(rate, 10), rate[0]: 150}}),
                       rate, view)
    with pytest.raises(ValueError, match='no "suspicion"'):
        read_suspicion('{"action": "listen"}', rate, view)


async def test_a_bad_statement_of_beliefs_costs_the_beliefs_not_the_action():
    state, _, _ = game_and_view("Ann", seed=3)
    villager = next(n for n, r in zip(state.names, state.roles, strict=True) if not r.pack)
    view, legal = engine.view(state, villager), engine.legal_actions(state, villager)
    # (a server that does not enforce the schema)
    d, _ = decider_for(villager, '{"suspicion": {"Zed": 50}, "action": "listen"}')
    assert await d.adecide(view, legal, []) is None
    assert d.tally.log[-1]["outcome"] == "legal"
    assert d.tally.log[-1]["beliefs_error"].startswith("no suspicion of ")
    assert d.beliefs(view) is None
    # a wolf is not asked: it knows its pack
    wolf = next(n for n, r in zip(state.names, state.roles, strict=True) if r.pack)
    wview = engine.view(state, wolf)
    d, backend = decider_for(wolf, '{"action": "listen"}')
    await d.adecide(wview, engine.legal_actions(state, wolf), [])
    assert "suspicion" not in backend.schemas[0]["anyOf"][0]["properties"]
    assert d.beliefs(wview) == {n: float(n in wview.pack) for n in NAMES if n != wolf}


def test_parse_rejects_what_is_not_offered():
    _, _, legal = game_and_view("Ann")
    with pytest.raises(ValueError, match="not possible now"):
        parse('{"action": "attack", "target": "Bob"}', "Ann", legal, 100)
    with pytest.raises(ValueError, match="needs a"):
        parse('{"action": "chat", "target": null, "text": ""}', "Ann", legal, 100)


# ---------------------------------------------------------------- ollama at its HTTP edge


async def serve(routes) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


async def test_ollama_backend_speaks_the_ollama_api():
    seen = {}

    async def chat(request):
        seen.update(await request.json())
        return web.json_response({
            "model": "llama3.1", "created_at": "2026-11-22T00:00:00Z", "done": True,
            "message": {"role": "assistant", "content": '{"action": "listen"}'},
            "prompt_eval_count": 42, "eval_count": 7})

    async def tags(request):
        return web.json_response({"models": [{"name": m, "model": m} for m in listed]})

    listed: list[str] = ["llama3.1:8b"]
    runner, url = await serve([web.post("/api/chat", chat), web.get("/api/tags", tags)])
    try:
        backend = make_backend("ollama", model="llama3.1", base_url=url)
        # a name without a tag is its latest: Ollama answers 404 to every call for it
        with pytest.raises(BackendError) as caught:
            await backend.check()
        assert str(caught.value) == (
            f"the Ollama server at {url} does not have the model 'llama3.1' (it has "
            "llama3.1:8b): pull it (ollama pull llama3.1) or correct the roster's model")
        listed.append("llama3.1:latest")
        await backend.check()
        c = await backend.chat([{"role": "user", "content": "hi"}], schema={"type": "object"},
                               max_tokens=30)
    finally:
        await runner.cleanup()
    assert c.text == '{"action": "listen"}' and c.prompt_tokens == 42
    assert seen["format"] == {"type": "object"} and seen["options"]["num_predict"] == 30


async def test_a_model_the_openai_compatible_server_does_not_list_is_named_before_a_game():
    """A wrong model name went unnoticed: a server of several models answers each of its
    calls with an error; llama.cpp's server, with one model, answers any name with it."""
    served: list[str] = []

    async def models(_request):
        return web.json_response({"object": "list", "data": [
            {"id": m, "object": "model", "owned_by": "me"} for m in served]})

    runner, url = await serve([web.get("/v1/models", models)])
    try:
        backend = make_backend("openai", model="qwen3", base_url=f"{url}/v1")
        served[:] = ["llama3.1", "gemma3"]
        with pytest.raises(BackendError) as caught:
            await backend.check()
        assert str(caught.value) == (f"the server at {url}/v1 has no model 'qwen3' (it has "
                                     "llama3.1, gemma3): correct the roster's model")
        served.append("qwen3")
        await backend.check()
        assert backend.describe() == f"openai:qwen3 at {url}/v1"
        served[:] = ["/opt/model/model.gguf"]
        await backend.check()
        assert backend.describe() == (f"openai:qwen3 at {url}/v1 (the server's one model, "
                                      "/opt/model/model.gguf, answers to any name)")
        await backend.aclose()
    finally:
        await runner.cleanup()


async def test_players_on_one_server_send_at_most_its_parallel_requests_at_once():
    # six players' conversations, each with its own backend, ask at the same moment; the
    # server (Ollama's HTTP edge) counts the requests it holds at once
    import asyncio

    from maw.llm import LLM

    held = {"now": 0, "most": 0}

    async def chat(request):
        await request.json()
        held["now"] += 1
        held["most"] = max(held["most"], held["now"])
        await asyncio.sleep(0.5)  # (long enough that the requests overlap under load)
        held["now"] -= 1
        return web.json_response({"model": "m", "done": True, "prompt_eval_count": 5,
                                  "message": {"role": "assistant", "content": "yes"},
                                  "eval_count": 1, "created_at": "2026-11-25T00:00:00Z"})

    runner, url = await serve([web.post("/api/chat", chat)])
    try:
        for parallel, expected in ((2, 2), (None, 4), (1, 1)):
            held["most"] = 0
            config = {} if parallel is None else {"parallel": parallel}
            llms = [LLM(make_backend("ollama", model="m", base_url=url, **config))
                    for _ in range(6)]
            answers = await asyncio.gather(*(llm.prompt(f"Player {i}?", max_tokens=5)
                                             for i, llm in enumerate(llms)))
            assert [a.text for a in answers] == ["yes"] * 6
            assert held["most"] == expected, parallel
            # a call's seconds are the server's, not the wait for a slot: the spans of
            # the calls overlap no more than the slots allow
            spans = sorted((a.end - a.seconds, a.end) for a in answers)
            assert max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans) <= expected
    finally:
        await runner.cleanup()


async def test_a_call_to_a_server_cut_short_by_a_cancel_keeps_the_time_it_ran():
    """A hybrid's call to a server that a phase's end cancelled left no record: only the
    embedded model's calls were kept as "cut short" (its process says when it ran). A
    server's call ran from its sending to the cancel, in its slot, and is kept so."""
    import asyncio
    import time

    from maw.llm import LLM

    async def slow(_request):  # (long past the cancels; the clean-up waits for it)
        await asyncio.sleep(1.5)

    runner, url = await serve([web.post("/v1/chat/completions", slow)])
    try:
        llm = LLM(make_backend("openai", model="m", base_url=f"{url}/v1", parallel=1))
        asking = asyncio.create_task(llm.prompt("Whom do you suspect?", max_tokens=5))
        await asyncio.sleep(0.3)
        t0 = time.monotonic()
        asking.cancel()
        await asyncio.wait({asking})
        # (the slot is free again: a second call is sent, and cut too)
        again = asyncio.create_task(llm.prompt("And now?", max_tokens=5))
        await asyncio.sleep(0.3)
        again.cancel()
        await asyncio.wait({again})
    finally:
        await runner.cleanup()
    spans = llm.backend.cancelled_spans
    assert len(spans) == 2 and all(0.25 < b - a < 2 for a, b in spans), spans
    assert spans[0][1] <= t0 + 0.5 <= spans[1][0] + 0.5
    assert llm.context == []  # (what was asked is not remembered, as for any failed call)


def test_parallel_is_checked_where_the_backend_is_made():
    assert make_backend("openai", model="m", base_url="http://h/v1", parallel=8).parallel == 8
    assert make_backend("openai", model="m", base_url="http://h/v1").parallel == 4
    with pytest.raises(ConfigError, match="answers at most 1 request at a time"):
        make_backend("llamacpp", parallel=2)


async def test_ollama_backend_errors_name_the_host():
    async def broken(request):
        return web.json_response({"error": "model 'x' not found"}, status=500)

    runner, url = await serve([web.post("/api/chat", broken)])
    try:
        backend = make_backend("ollama", model="x", base_url=url)
        with pytest.raises(BackendError, match="HTTP 500.*not found"):
            await backend.chat([{"role": "user", "content": "hi"}])
    finally:
        await runner.cleanup()
    nobody = f"http://127.0.0.1:{free_port()}"
    backend = make_backend("ollama", model="x", base_url=nobody)
    with pytest.raises(BackendError, match=f"no Ollama server answers at {nobody}.*"
                       "correct the roster's base_url"):  # (not OLLAMA_HOST: unread here)
        await backend.check()


async def test_a_server_that_hangs_is_told_in_seconds_at_the_check(monkeypatch):
    """A server that takes the connection and never answers (a review's, SIGSTOPped):
    the check said so after 123 s of silence; it gives up at CHECK_SECONDS."""
    import asyncio
    import time

    from maw.llm import backends

    async def hang(_request):  # (long past the check's bound; the clean-up waits for it)
        await asyncio.sleep(3)

    monkeypatch.setattr(backends, "CHECK_SECONDS", 0.5)
    runner, url = await serve([web.get("/v1/models", hang), web.get("/api/tags", hang)])
    try:
        for name, base in (("openai", f"{url}/v1"), ("ollama", url)):
            backend = make_backend(name, model="m", base_url=base)
            t0 = time.monotonic()
            with pytest.raises(BackendError, match="answers at"):
                await backend.check()
            assert time.monotonic() - t0 < 5, name
            await backend.aclose()
    finally:
        await runner.cleanup()


async def test_a_model_is_timed_with_a_whole_turn_where_its_server_keeps_no_context():
    """A server that reads each call's whole prompt again was timed with a short prompt
    (4.6 s) and played calls of 13 to 31 s: the days it was given ran out. It is timed
    with a prompt of a whole turn's size; the embedded model, which keeps each player's
    context, with the short one."""
    from maw.llm.base import Backend, Completion

    class Heard(Backend):
        name = "heard-for-test"

        async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
            self.heard = messages
            return Completion('{"text": "Hi."}')

    sizes = {}
    for keeps in (False, True):
        backend = Heard()
        backend.keeps_context = keeps  # type: ignore[misc]
        assert await backend.seconds_per_call() is not None
        sizes[keeps] = backend.count_tokens(backend.heard)
    assert sizes[False] > 1000 and sizes[False] > 3 * sizes[True]
    assert make_backend("llamacpp").keeps_context and \
        not make_backend("openai", base_url="http://127.0.0.1:1/v1").keeps_context


# ---------------------------------------------------------------- openai vs llama.cpp


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama-cpp-python's OpenAI-compatible server with the embedded model, on loopback."""
    import os
    import subprocess
    import sys
    import time

    try:
        from maw.llm.backends import default_model_path

        path = default_model_path()
    except BackendError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the local extra is missing in CI: {exc}")
        pytest.skip(str(exc))
    port = free_port()
    # its log goes to a file: a full pipe would block the server before it listens
    log = tmp_path_factory.mktemp("llama") / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", path,
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "1024",
                             # two threads or more: one thread hid the AMX crash
                             "--n_threads", "2", "--n_threads_batch", "2"],
                            stdout=subprocess.DEVNULL, stderr=log.open("w"))
    from maw.hosting.connect import port_open

    end = time.monotonic() + 120
    while not port_open("127.0.0.1", port):
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            pytest.fail(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    yield f"http://127.0.0.1:{port}/v1"
    proc.terminate()
    proc.wait(30)


@pytest.mark.slow
async def test_openai_backend_against_a_real_llama_cpp_server(llama_server):
    from maw.llm.answers import choices, schema_for

    backend = make_backend("openai", model="gemma3", base_url=llama_server,
                           schema_mode="json_object")
    await backend.check()
    _, _, legal = game_and_view("Ann")
    actions, described = choices(legal)
    schema = schema_for(actions, legal, 80)  # the decider's own: one object per choice
    c = await backend.chat([{"role": "user", "content": "Werewolf. You may now: "
                             f"{described}. Answer in JSON."}], schema=schema,
                           # (room for the longest answer the schema allows, as the
                           # decider gives: 60 tokens cut a chat short inside its text)
                           max_tokens=80 + 40, temperature=0.0)
    action = parse(c.text, "Ann", legal, 80)  # raises if the server ignored the schema
    assert action is None or action in legal or isinstance(action, engine.Chat)
    assert c.completion_tokens > 0 and c.prompt_tokens > 0


@pytest.mark.slow
async def test_players_on_a_real_llama_cpp_server_keep_to_its_slots(llama_server):
    # four players' conversations with parallel = 2: two requests are out at a time
    # (this server answers them in turn, so each call's span includes its turn there)
    import asyncio

    from maw.llm import LLM

    llms = [LLM(make_backend("openai", model="gemma3", base_url=llama_server, parallel=2,
                             schema_mode="none")) for _ in range(4)]
    answers = await asyncio.gather(*(llm.prompt(f"Say {i}.", max_tokens=4, temperature=0)
                                     for i, llm in enumerate(llms)))
    assert all(a.prompt_tokens > 0 for a in answers)
    edges = sorted([(a.end - a.seconds, 1) for a in answers] + [(a.end, -1) for a in answers])
    at_once = [sum(step for _, step in edges[:i + 1]) for i in range(len(edges))]
    assert max(at_once) == 2


async def test_openai_backend_errors_name_the_server():
    nobody = f"http://127.0.0.1:{free_port()}/v1"
    backend = make_backend("openai", model="m", base_url=nobody)
    with pytest.raises(BackendError, match=f"no OpenAI-compatible server answers at {nobody}"):
        await backend.check()


# ---------------------------------------------------------------- rosters


def test_the_shipped_rosters_load(tmp_path):
    from pathlib import Path

    from maw.hosting.game import seats_from_roster
    from maw.hosting.roster import load_roster

    agents = Path(__file__).resolve().parents[2] / "agents"
    local = seats_from_roster(load_roster(agents / "local.toml"), 6)
    assert [s.decider for s in local] == ["llm"] * 6
    assert local[0].llm.backend == "llamacpp" and "calm" in local[0].persona
    assert len({s.persona for s in local}) == 6
    mixed = seats_from_roster(load_roster(agents / "ollama.toml"), 6)
    assert mixed[5].decider == "rule" and mixed[5].llm is None
    assert mixed[0].llm.model == "llama3.1"


@pytest.mark.parametrize("text,error", [
    ('[[player]]\nname = "Ann"\ndecider = "oracle"', "player.0.decider"),
    ('[[player]]\nname = "A n"', "player.0.name"),
    ('[[player]]\nname = "Ann"\n[[player]]\nname = "Ann"', "'Ann' is used twice"),
    ('[[player]]\nname = "Ann"\nbackend = 3', "player.0.backend"),
    ("player = [", "cannot read the roster"),
    ('[llm]\nbackend = "openia"\n[[player]]\nname = "Ann"\ndecider = "llm"',
     "bad.toml: player Ann: unknown backend 'openia': "),
])
def test_a_bad_roster_says_where(tmp_path, text, error):
    from maw.hosting.roster import load_roster

    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(error)):
        load_roster(path)


def test_a_roster_with_a_missing_api_key_says_which_variable(tmp_path, monkeypatch):
    from maw.hosting.roster import load_roster

    monkeypatch.delenv("MAW_TEST_KEY", raising=False)
    path = tmp_path / "r.toml"
    path.write_text('[llm]\nbackend = "openai"\napi_key_env = "MAW_TEST_KEY"\n'
                    '[[player]]\nname = "Ann"\ndecider = "llm"\n')
    with pytest.raises(ConfigError, match=f"roster {re.escape(str(path))}: player Ann: the "
                       "environment variable MAW_TEST_KEY"):  # (where, at once)
        load_roster(path)


def test_maw_game_with_an_ollama_roster_and_no_server_fails_at_once(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, OLLAMA_HOST=f"http://127.0.0.1:{free_port()}")
    from pathlib import Path

    roster = Path(__file__).resolve().parents[2] / "agents" / "ollama.toml"
    proc = subprocess.run([sys.executable, "-m", "maw", "game", "--players", "6", "--roster",
                           str(roster), "--log-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2
    assert "no Ollama server answers at" in proc.stderr and "Traceback" not in proc.stderr



# ---------------------------------------------------------------- what `maw game` picks


async def test_maw_game_picks_ollama_when_it_answers_with_the_model(monkeypatch):
    from maw.hosting import roster

    listed: list[str] = []

    async def tags(request):
        return web.json_response({"models": [{"name": m, "model": m} for m in listed]})

    runner, url = await serve([web.get("/api/tags", tags)])
    monkeypatch.setenv("OLLAMA_HOST", url)
    try:
        listed[:] = ["llama3.1:latest", "qwen3:4b"]
        path, why = await roster.choose_roster()
        assert path is not None and path.name == "ollama.toml"
        assert why == f"an Ollama server at {url} has llama3.1"
        listed[:] = ["qwen3:4b"]  # up, but without the roster's model
        path, why = await roster.choose_roster()
    finally:
        await runner.cleanup()
    assert path is None or path.name == "hybrid.toml"
    assert f"the Ollama server at {url} does not have llama3.1 (ollama pull llama3.1)" in why


async def test_maw_game_falls_back_to_the_embedded_model_then_rule_players(monkeypatch):
    from maw.hosting import roster

    nobody = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("OLLAMA_HOST", nobody)

    async def fine(_roster):
        return None

    monkeypatch.setattr(roster, "embedded_model_problem", fine)
    path, why = await roster.choose_roster()
    assert path is not None and path.name == "hybrid.toml"
    assert why == (f"no Ollama server answers at {nobody}; the embedded model is installed "
                   "and answers")
    monkeypatch.undo()
    monkeypatch.setenv("OLLAMA_HOST", nobody)
    monkeypatch.setattr(roster, "embedded_model_installed", lambda: False)
    path, why = await roster.choose_roster()
    assert path is None and "the embedded model is not installed" in why


def test_a_short_roster_is_filled_with_rule_players_only_when_asked():
    from pathlib import Path

    from maw.errors import MawError
    from maw.hosting.game import seats_from_roster
    from maw.hosting.roster import load_roster

    local = load_roster(Path(__file__).resolve().parents[2] / "agents" / "local.toml")
    with pytest.raises(MawError, match="seats 6 players, not 9"):
        seats_from_roster(local, 9)
    seats = seats_from_roster(local, 9, fill="rule")
    names = [s.name for s in seats]
    assert len(set(names)) == 9 and [s.decider for s in seats[6:]] == ["rule"] * 3
    assert all(s.decider == "llm" for s in seats[:6])


# ---------------------------------------------------------------- LLM players over XMPP


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_llm_players_play_a_game_over_xmpp_and_every_call_is_accounted(server,
                                                                           tmp_path):
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import run_game, seats_from_roster
    from maw.hosting.roster import load_roster
    from maw.llm import register_backend

    register_backend(FirstChoice)
    roster = tmp_path / "r.toml"
    roster.write_text('[llm]\nbackend = "first-choice-for-test"\nmax_wait = 0\n' + "".join(
        f'[[player]]\nname = "{n}"\ndecider = "llm"\npersona = "You are {n}."\n'
        for n in NAMES[:5]) + '[[player]]\nname = "Fay"\ndecider = "rule"\n')
    seats = seats_from_roster(load_roster(roster), 6)
    # it never says "listen", so every phase runs to its timer (or a majority)
    config = GameConfig(early_end=True,
                        players=6, rules=engine.ruleset("maw"), seed=4, day_seconds=4,
                        night_seconds=2, log_dir=tmp_path)
    result = await run_game(config, seats, server, timeout=300)
    assert result.outcomes[0].winner is not None
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    calls = [r for r in records if r["kind"] == "llm"]
    assert {r["player"] for r in calls} == set(NAMES[:5])
    assert all(r["outcome"] == "legal" for r in calls)
    for r in calls:  # every prompt, whole: the rules first, the question last
        assert len(r["prompts"]) == len(r["answers"]) == r["calls"]
        assert r["prompts"][0][0]["role"] == "system" and "You may now:" in r["prompts"][0][-1][
            "content"] and r["answers"][0] == r["answer"]
    # nothing an LLM player chose was illegal: the only refusals are of actions that
    # arrived after their phase had ended (the day decided by a majority meanwhile)
    refused = [r["body"]["reason"] for r in records if r["kind"] == "msg"
               and r["type"] == "refuse" and not r["body"]["reason"].startswith(LATE)]
    assert refused == []
    assert set(result.llm) == set(NAMES[:5])
    assert sum(u["calls"] for u in result.llm.values()) == len(calls)
    from maw.records.audit import audit_records

    assert audit_records(records).ok
    # each LLM player's conversation is saved beside the log, and loads back
    from maw.llm.backends import ScriptedBackend

    saved = sorted(result.log_path.with_suffix("").glob("context-*-round1.json"))
    assert [p.name.split("-")[1] for p in saved] == sorted(NAMES[:5])
    context = LLM.load(saved[0], ScriptedBackend()).context
    assert context[0]["role"] == "system" and context[-1]["role"] == "assistant"
    # the LLM players' stated beliefs reach the log, once a phase, normalised
    deal = next(r for r in records if r["kind"] == "round")
    villagers = {n for n in NAMES[:5] if deal["roles"][n] != "Werewolf"}
    stated = [r for r in records if r["kind"] == "beliefs" and r["player"] in villagers]
    assert {r["player"] for r in stated} == villagers
    assert all(sum(r["beliefs"].values()) == pytest.approx(2, abs=1e-3) for r in stated)
    phases = [(r["player"], r["day"], r["phase"]) for r in stated]
    assert len(phases) == len(set(phases))


async def ann_on_a_server(chat, server, tmp_path, release: asyncio.Event | None = None):
    """A 6-player game whose one model seat, Ann, calls an OpenAI-compatible server that
    answers a chat with ``chat`` (a handler at its HTTP edge), the others rule players:
    its result, and the server's address. ``release`` is set once the game is over (a
    handler still waiting would hold the server's clean-up up for a minute)."""
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import run_game, seats_from_roster
    from maw.hosting.roster import load_roster

    async def models(_request):
        return web.json_response({"object": "list", "data": [{"id": "m"}]})

    runner, url = await serve([web.get("/v1/models", models),
                               web.post("/v1/chat/completions", chat)])
    try:
        roster = tmp_path / "r.toml"
        roster.write_text(f'[llm]\nbackend = "openai"\nbase_url = "{url}/v1"\nmodel = "m"\n'
                          'max_wait = 0\nretries = 0\n[[player]]\nname = "Ann"\n'
                          'decider = "llm"\n' + "".join(
                              f'[[player]]\nname = "{n}"\ndecider = "rule"\n'
                              for n in NAMES[1:6]))
        seats = seats_from_roster(load_roster(roster), 6)
        config = GameConfig(early_end=True, players=6, seed=4, day_seconds=3,
                            night_seconds=2, log_dir=tmp_path,
                            rules=engine.ruleset("maw", max_days=2))
        return await run_game(config, seats, server, timeout=300), url
    finally:
        if release is not None:
            release.set()
        await runner.cleanup()


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_model_that_stops_answering_is_told_once_where_the_table_sees_it(server,
                                                                                 tmp_path):
    """A review's server hung mid-game: the model seats fell back in silence, and only
    the summary's fallbacks said so. The host now tells it once, live and in a replay."""
    from maw.records.transcript import record_line

    async def busy(_request):
        return web.json_response({"error": {"message": "overloaded"}}, status=503)

    result, _url = await ann_on_a_server(busy, server, tmp_path)
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    failed = [r for r in records if r["kind"] == "llm" and r.get("backend_error")]
    assert failed and all("HTTP 503" in r["backend_error"] for r in failed)
    down = [r for r in records if r["kind"] == "model_down"]
    public = [r for r in down if r["public"]]
    assert [r["player"] for r in public] == ["Ann"]  # once, however many calls failed
    said = record_line(public[0])
    assert said is not None and said.startswith("** Ann's model does not answer (") and \
        "HTTP 503" in said
    # found at night (only a night role's model is asked then): its time would tell the
    # table that Ann acts at night, so the transcript shows it only with the roles
    hidden = {**public[0], "public": False}
    assert record_line(hidden) is None and record_line(hidden, show_roles=True) == said
    assert len(down) - len(public) <= 1


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_a_model_whose_server_hangs_is_told_while_it_waits_and_named_at_the_end(
        server, tmp_path, monkeypatch, capsys):
    """A review's server hung: it answered nothing and failed nothing, so its seat's
    turns only waited, cut short at each phase's end, and the table and the host heard
    nothing until the summary called the seat "absent (never acted, or left)". Now a call
    that has waited ``HANG_NOTICE`` seconds is told once, live, and the summary says the
    seat's model never answered."""
    import argparse

    from maw.cli.game import summary
    from maw.llm import retry
    from maw.records.transcript import record_line

    monkeypatch.setattr(retry, "HANG_NOTICE", 1.0)
    hung, release = asyncio.Event(), asyncio.Event()

    async def hang(_request):
        hung.set()
        await release.wait()  # (the game over: answered, so the server stops at once)
        return web.json_response({"error": {"message": "gone"}}, status=503)

    result, url = await ann_on_a_server(hang, server, tmp_path, release)
    assert hung.is_set()
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    waiting = [r for r in records if r["kind"] == "model_down" and r.get("waiting")]
    public = [r for r in waiting if r["public"]]
    assert [r["player"] for r in public] == ["Ann"] and public[0]["waiting"] == 1.0
    said = record_line(public[0])
    assert said == (f"** Ann's model has not answered for 1 s (openai:m at {url}/v1: no "
                    "answer yet): its turns wait for it, until the call's timeout or the "
                    "phase's end")
    assert len(waiting) - len(public) <= 1  # (once a game each: a day's, a night's)
    assert not [r for r in records if r["kind"] == "model_down" and not r.get("waiting")]
    assert result.unanswered == ["Ann"] and "Ann" not in result.llm
    summary(argparse.Namespace(replay_llm=None), result)
    out = capsys.readouterr().out
    assert ("Ann (its model never answered)" in out if "Ann" in result.absent else
            "never answered by their model (their fallback played): Ann" in out), out


@pytest.mark.slow
# (the host fits the days to the model's measured calls, so the game's length follows the
# machine's load: 60 s alone, over 300 s in a loaded CI run)
@pytest.mark.timeout(1200)
def test_a_game_with_the_embedded_model_over_xmpp(tmp_path, llama_server):
    """Six players on the embedded model (``llama_server`` only makes sure it is
    installed), one day and its night: every answer is parsed into a legal action, repaired,
    or a fallback, and the GameMaster refuses nothing but late arrivals."""
    import os
    import subprocess
    import sys

    # no roster and no Ollama server: `maw game` chooses the embedded model itself
    env = dict(os.environ, OLLAMA_HOST=f"http://127.0.0.1:{free_port()}")
    # (the host fits the days to the model's measured calls: on a loaded machine a 20 s
    # day once opened its votes at its half before anyone had spoken)
    proc = subprocess.run(
        [sys.executable, "-m", "maw", "game", "--players", "6",
         "--seed", "1", "--early-end", "--rule",
         "max_days=1", "--xmpp", f"embedded:{free_port()}", "--log-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "llama_kv_cache" not in proc.stderr  # llama.cpp's warnings stay out of the game
    assert "hybrid.toml: no Ollama server answers at" in proc.stdout
    # a discussion before the day's votes (votes_open=talk, and hybrid players speak)
    # (how many votes two days see depends on the machine's speed: on a loaded one, none;
    # the host opens the votes at half the day at the latest, and says so)
    lines = proc.stdout.splitlines()
    first_vote = next((i for i, x in enumerate(lines) if " votes for " in x or
                       "The votes are open" in x), None)
    assert first_vote is not None, proc.stdout[-3000:]
    assert any("[Village]" in x for x in lines[:first_vote])
    assert "the embedded model is installed" in proc.stdout
    assert re.search(r"took [\d.]+ s for a typical call, 1 at a time, for 6 player", proc.stdout)
    assert "LLM: " in proc.stdout and "Game over" in proc.stdout
    assert "LLM calls" in proc.stdout and "MAW overhead" in proc.stdout
    records = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    calls = [r for r in records if r["kind"] == "llm"]
    assert len({r["player"] for r in calls}) == 6
    # cancelled: the phase ended while the question waited for the model (its answer
    # would have been too late); cut short: ... while the model was answering it;
    # unfinished: the game ended during the decision
    assert {r["outcome"] for r in calls} <= {"legal", "repaired", "fallback", "cancelled",
                                             "cut short", "unfinished"}
    # how many questions the phase timers cut off depends on the machine's speed (8 to 13
    # of 34 on one machine), so the model's quality is judged on the answers it finished
    finished = [r["outcome"] for r in calls if r["outcome"] in ("legal", "repaired", "fallback")]
    assert len(finished) >= 6
    assert sum(o in ("legal", "repaired") for o in finished) > len(finished) / 2
    refused = [r["body"]["reason"] for r in records if r["kind"] == "msg"
               and r["type"] == "refuse" and not r["body"]["reason"].startswith(LATE)]
    assert refused == []
    # (that the game plays again from its log to the same decisions, no model running, is
    # tests/llm/test_replay.py's, on a backend as unseeded as this one: here, on a loaded CI
    # machine the replay of a game whose days were fitted to a slow model took 790 s)


@pytest_asyncio.fixture
async def embedded():
    """The llamacpp backend with its model loaded (skipped where it is not installed)."""
    try:
        backend = make_backend("llamacpp")
        await backend.check()
    except BackendError as exc:
        pytest.skip(str(exc))
    return backend


@pytest.mark.slow
async def test_the_embedded_model_counts_tokens_exactly_so_a_context_never_overflows(embedded):
    # the 4-characters-a-token estimate let contexts of 2182 tokens through to a 2048
    # window, and every later call of that player failed
    backend = embedded
    llm = LLM(backend, window=600)
    llm.pin("system", "Rules: " + "vote for the wolf. " * 20)
    for i in range(60):
        llm.context.append({"role": "user", "content": f"[GM] Eve votes for Bob {i}; "
                                                       '{"action": "vote"} Ann: hi!'})
    dropped = llm.truncate_context(500)
    # counted again here, by the model's tokenizer in this process (the backend's count
    # comes from the model's own process)
    from llama_cpp import Llama

    vocab = Llama(model_path=backend.process.key.path, vocab_only=True, verbose=False)
    exact = len(vocab.tokenize(backend.transcript(llm.context).encode(), add_bos=True,
                               special=True))
    assert dropped > 0 and exact <= 500 < exact + 40
    assert llm.context[0]["content"].startswith("Rules: ")


@pytest.mark.slow
async def test_the_embedded_model_can_only_answer_a_legal_choice(embedded):
    # the grammar comes from the decider's schema: a vote names a legal target, and a
    # choice carries no text (no tokens spent on words nobody reads)
    from maw.llm.answers import choices, schema_for

    _, view, legal = game_and_view("Ann")
    legal = tuple(a for a in legal if not isinstance(a, engine.Chat))
    actions, described = choices(legal)
    schema = schema_for(actions, legal, 80)
    for temperature in (0.0, 1.5, 1.5):
        c = await embedded.chat([{"role": "user", "content": "Vote for somebody: "
                                  f"{described}.\nAnswer:"}], schema=schema,
                                max_tokens=40, temperature=temperature)
        action = parse(c.text, "Ann", legal, 80)
        assert action is None or action in legal, c.text
        assert "text" not in json.loads(c.text)
    # ... and a chat says something (an empty one was the last illegal answer left)
    talk = tuple(a for a in game_and_view("Ann")[2] if isinstance(a, engine.Chat))
    schema = schema_for(["chat"], talk, 40)
    for _ in range(3):
        c = await embedded.chat([{"role": "user", "content": "Say something:"}],
                                schema=schema, max_tokens=60, temperature=1.5)
        said = parse(c.text, "Ann", talk, 40)
        assert isinstance(said, engine.Chat) and said.text, c.text
    # ... and a stated suspicion rates every suspect on the scale, before the choice
    from maw.llm.answers import SCALE, read_suspicion, suspects

    rate = suspects(view)
    schema = schema_for(actions, legal, 80, rate)
    for temperature in (0.0, 1.5):
        c = await embedded.chat([{"role": "user", "content": "Rate each player, then vote: "
                                  f"{described}.\nAnswer:"}], schema=schema,
                                max_tokens=120, temperature=temperature)
        stated = json.loads(c.text)["suspicion"]
        assert list(stated) == rate and set(stated.values()) <= set(SCALE), c.text
        assert sum(read_suspicion(c.text, rate, view).values()) == pytest.approx(2)
        assert parse(c.text, "Ann", legal, 80) in (*legal, None)


@pytest.mark.slow
async def test_a_cancelled_call_frees_the_embedded_model_at_its_next_token(embedded):
    # a question that became moot while the model answered it used to hold the model
    # (shared by six players) until its answer was complete
    import asyncio

    backend = embedded
    long = [{"role": "user", "content": "Tell a long story about a village and its wolves."}]
    # a grammar that cannot end before 400 characters: the model cannot finish on its own
    # before the cancel (a free story sometimes ended within the second: a flaky test)
    call = asyncio.create_task(backend.chat(long, schema={"type": "string", "minLength": 400},
                                            max_tokens=400))
    await asyncio.sleep(1.0)  # the prompt is read by now, and tokens are coming
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    answer = await backend.chat([{"role": "user", "content": "Say yes."}], max_tokens=2)
    assert backend.stopped_early == 1 and answer.completion_tokens <= 2


def test_a_misspelt_backend_option_is_an_error_that_names_the_known_ones():
    # (it used to be accepted and ignored: the model then ran with its defaults)
    with pytest.raises(ConfigError, match=r"backend llamacpp: unknown option 'temprature' "
                       r"\(its options: grammar_first, n_ctx, prefix_cache_mb, repeat_penalty, "
                       r"threads, threads_batch\)"):
        make_backend("llamacpp", temprature=0.1)
    with pytest.raises(ConfigError, match="backend llamacpp: option 'threads': Input should "
                                          "be greater than or equal to 1"):
        make_backend("llamacpp", threads=0)
    with pytest.raises(ConfigError, match=r"unknown option 'n_ctx' \(its options: none\)"):
        make_backend("ollama", n_ctx=1)
    backend = make_backend("openai", base_url="http://127.0.0.1:9/v1", schema_mode="none")
    assert backend.schema_mode == "none"


async def test_a_model_writes_no_longer_chat_than_the_ruleset_takes():
    # the roster allows 200 characters; this game's rules take 30: the schema, the prompt
    # and the answer keep to 30, so the GameMaster has nothing to refuse
    state = engine.new_game(engine.ruleset("maw", max_chat_length=30), NAMES,
                            random.Random(1))
    view, legal = engine.view(state, "Ann"), engine.legal_actions(state, "Ann")
    backend = ScriptedBackend(replies=[json.dumps({"suspicion": {}, "action": "chat",
                                                   "text": "I suspect Bob. " * 7})])
    decider = LLMDecider("Ann", random.Random(1), LLM(backend), max_chars=200)
    action = await decider.adecide(view, legal, [])
    # (cut back to its last full sentence within the 30: the gate says no half sentence)
    assert type(action) is engine.Chat and action.text == "I suspect Bob. I suspect Bob."
    chat = next(a for a in backend.schemas[0]["anyOf"]
                if a["properties"]["action"]["const"] == "chat")
    assert chat["properties"]["text"]["maxLength"] == 30
    assert "at most\n30 characters" in backend.calls[0][-1]["content"] or \
        "at most 30 characters" in backend.calls[0][-1]["content"].replace("\n", " ")
    engine.play(state, action)  # legal under these rules


@pytest.mark.parametrize("answer,expected", [
    ('{"action": "run"}', "run"), ('{"action": "save", "target": "Eve"}', "save")])
async def test_a_model_takes_werewolf12s_new_actions_from_the_table(answer, expected):
    """The Witch's save and a sheriff candidacy reach the model's choices with no code of
    their own in the decider: the table offers them, the schema allows them."""
    from maw.engine.actions import ACTIONS
    from maw.engine.roles import GUARD, HUNTER, SEER, VILLAGER, WEREWOLF, WITCH

    names = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]
    deal = [WEREWOLF] * 4 + [VILLAGER] * 4 + [SEER, WITCH, HUNTER, GUARD]
    state = engine.new_game(engine.ruleset("werewolf-12"), names, random.Random(1), roles=deal)
    for wolf in names[:4]:
        state, _ = engine.play(state, engine.Attack(wolf, "Eve"))
    state, _ = engine.play(state, engine.Divine("Ivy", "Ann"))
    state, _ = engine.play(state, engine.Guard("Lu", "Fay"))
    if expected == "run":  # through the Witch's step and Eve's last words to day 1
        state, _ = engine.play(state, engine.EndPhase())
        state, _ = engine.play(state, engine.EndPhase())
        assert state.phase.value == "candidacy"
    player = "Jo" if expected == "save" else "Fay"
    legal = engine.legal_actions(state, player)
    d, backend = decider_for(player, answer)
    action = await d.adecide(engine.view(state, player), legal, [])
    assert type(action) is ACTIONS[expected].cls and action in legal
    assert f'"{expected}"' in json.dumps(backend.schemas[-1] if hasattr(backend, "schemas")
                                         else backend.calls[-1])
