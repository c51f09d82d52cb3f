"""A model call meets a server that is away for a moment (``maw.llm.retry``): it waits and
tries again, within its timeout. At the HTTP edge (an Ollama server's, aiohttp), and
against a real ``python -m llama_cpp.server`` stopped and started again on its port while
roster seats decide, its last seat falling back on a random legal action."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest
from aiohttp import web
from conftest import start

from maw import engine
from maw.errors import BackendError, BackendUnavailable
from maw.hosting.connect import port_open
from maw.hosting.xmpp import free_port
from maw.llm import LLM, make_backend
from maw.llm.retry import Retry
from maw.llm.telemetry import summarize


async def serve(handler):
    app = web.Application()
    app.add_routes([web.post("/api/chat", handler)])
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


ANSWER = {"model": "m", "created_at": "2026-11-27T00:00:00Z", "done": True,
          "message": {"role": "assistant", "content": "yes"}, "prompt_eval_count": 5,
          "eval_count": 1}


async def test_a_busy_server_is_tried_again_after_a_doubling_wait_a_wrong_request_not():
    hits: list[float] = []

    async def chat(request):
        await request.json()
        hits.append(time.monotonic())
        if len(hits) <= 2:  # a server loading its model: HTTP 503, twice
            return web.json_response({"error": "loading model"}, status=503)
        return web.json_response(ANSWER)

    runner, url = await serve(chat)
    try:
        llm = LLM(make_backend("ollama", model="m", base_url=url),
                  retry=Retry(retries=3, backoff=0.2))
        answer = await llm.prompt("Ready?", max_tokens=5)
        assert answer.text == "yes" and len(hits) == 3
        retried = llm.take_retries()
        assert [r["wait"] for r in retried] == [0.2, 0.4]
        assert all("HTTP 503" in r["error"] for r in retried)
        assert hits[1] - hits[0] >= 0.2 and hits[2] - hits[1] >= 0.4
        assert llm.take_retries() == []  # (taken once)
    finally:
        await runner.cleanup()

    async def missing(request):  # a model the server does not have: asking again won't help
        hits.append(time.monotonic())
        return web.json_response({"error": "model 'm' not found"}, status=404)

    hits.clear()
    runner, url = await serve(missing)
    try:
        llm = LLM(make_backend("ollama", model="m", base_url=url), retry=Retry(retries=3))
        with pytest.raises(BackendError, match="HTTP 404") as info:
            await llm.prompt("Ready?", max_tokens=5)
        assert not isinstance(info.value, BackendUnavailable)
        assert len(hits) == 1 and llm.retried == []
        assert llm.context == []  # (a failed call leaves the conversation as it was)
    finally:
        await runner.cleanup()


async def test_a_decision_keeps_the_retries_of_its_calls_in_its_record():
    import random

    from maw.llm.decider import LLMDecider

    hits: list[int] = []

    async def chat(request):
        await request.json()
        hits.append(1)
        if len(hits) == 1:
            return web.json_response({"error": "overloaded"}, status=429)
        return web.json_response({**ANSWER, "message": {"role": "assistant",
                                                        "content": '{"action": "listen"}'}})

    runner, url = await serve(chat)
    try:
        s = start("maw", "VWVVWV")
        decider = LLMDecider("A", random.Random(1), LLM(make_backend(
            "ollama", model="m", base_url=url), retry=Retry(retries=2, backoff=0.1)))
        assert await decider.adecide(engine.view(s, "A"), engine.legal_actions(s, "A"),
                                     []) is None
    finally:
        await runner.cleanup()
    record = decider.tally.log[-1]
    assert record["outcome"] == "legal" and record["calls"] == 1
    assert [r["wait"] for r in record["retries"]] == [0.1]
    assert "HTTP 429" in record["retries"][0]["error"]
    assert summarize(decider.tally.log)["retries"] == 1


async def test_a_call_gives_up_within_its_timeout_however_the_server_behaves():
    release = asyncio.Event()

    async def hang(request):
        await release.wait()  # (until the test is done with it)
        return web.json_response(ANSWER)

    runner, url = await serve(hang)
    try:  # a server that never answers: the try in flight is cut at the timeout
        llm = LLM(make_backend("ollama", model="m", base_url=url),
                  retry=Retry(retries=5, backoff=0.2, timeout=1.0))
        t0 = time.monotonic()
        with pytest.raises(BackendUnavailable, match="within the call's timeout of 1 s"):
            await llm.prompt("Ready?", max_tokens=5)
        assert 1.0 <= time.monotonic() - t0 < 1.5
    finally:
        release.set()
        await runner.cleanup()
    # nobody listens: refused at once, tried again and again, but never past the timeout
    nobody = f"http://127.0.0.1:{free_port()}"
    llm = LLM(make_backend("ollama", model="m", base_url=nobody),
              retry=Retry(retries=10, backoff=0.2, timeout=1.5))
    t0 = time.monotonic()
    with pytest.raises(BackendUnavailable, match="gave up after .* tries in the call's "
                                                 "timeout of 1.5 s"):
        await llm.prompt("Ready?", max_tokens=5)
    assert time.monotonic() - t0 < 1.6
    waits = [r["wait"] for r in llm.take_retries()]
    assert len(waits) >= 3 and waits[:2] == [0.2, 0.4] and sum(waits) < 1.5


# ---------------------------------------------------------------- a real llama.cpp server


def llama_server(port: int, log) -> subprocess.Popen:
    """``python -m llama_cpp.server`` with the embedded model on ``port``, listening."""
    from maw.llm.backends import default_model_path

    try:
        path = default_model_path()
    except BackendError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the local extra is missing in CI: {exc}")
        pytest.skip(str(exc))
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", path,
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
                             "--n_threads", "2", "--n_threads_batch", "2"],
                            stdout=subprocess.DEVNULL, stderr=log)
    end = time.monotonic() + 120
    while not port_open("127.0.0.1", port):
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            pytest.fail("llama_cpp.server did not start")
        time.sleep(0.1)
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(30)


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.timeout(300)
async def test_roster_seats_ride_out_a_llama_cpp_server_restart_then_fall_back_at_random(
        tmp_path):
    from maw.hosting.roster import load_roster
    from maw.hosting.seats import deciders, seats_from_roster

    port = free_port()
    roster = tmp_path / "r.toml"
    # B's group (the wolves) answers at temperature 0; A's own timeout is short, and his
    # fallback the roster's: a random legal action
    roster.write_text(
        f'[llm]\nbackend = "openai"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'options = {schema_mode = "json_object"}\nretries = 8\nbackoff = 0.5\n'
        'timeout = 60\nfallback = "random"\n'
        '[llm.wolves]\ntemperature = 0.0\n'
        '[[player]]\nname = "B"\ndecider = "llm"\n'
        '[[player]]\nname = "A"\ndecider = "llm"\ntimeout = 2\n')
    wolf_seat, villager_seat = seats_from_roster(load_roster(roster), 2)
    s = start("maw", "VWVVWV")  # B is a werewolf, A a villager
    wolf = deciders(wolf_seat, 7)(1, "Werewolf")
    assert wolf.temperature == 0.0 and wolf.llm.retry == Retry(8, 0.5, 60)
    log = (tmp_path / "server.log").open("w")
    proc = llama_server(port, log)
    try:
        # a series of the wolf's calls (short ones: a decision's prompt takes this model
        # a minute on a busy machine), its server stopped and started again in the middle
        await wolf.llm.prompt("Say yes.", max_tokens=4, temperature=0.0)
        assert wolf.llm.take_retries() == []
        stop(proc)
        asked = asyncio.create_task(wolf.llm.prompt("Say no.", max_tokens=4))
        await asyncio.sleep(1.5)
        assert not asked.done()  # (trying again: refused, waiting, refused...)
        proc = llama_server(port, log)  # ... back on its port
        answer = await asyncio.wait_for(asked, 60)
        assert answer.prompt_tokens > 0  # (the server read it: the call was answered)
        retried = wolf.llm.take_retries()
        assert len(retried) >= 2 and [r["wait"] for r in retried[:2]] == [0.5, 1.0]
        assert all("no OpenAI-compatible server answers" in r["error"] for r in retried)
        await wolf.llm.prompt("Say yes again.", max_tokens=4)  # (and on it goes)
        assert wolf.llm.take_retries() == []

        stop(proc)  # gone for good: A's decision gives up in his timeout, chance decides
        villager = deciders(villager_seat, 7)(1, "Villager")
        legal = engine.legal_actions(s, "A")
        t0 = time.monotonic()
        action = await villager.adecide(engine.view(s, "A"), legal, [])
        assert time.monotonic() - t0 < 2 + 1
        record = villager.tally.log[-1]
        assert record["outcome"] == "fallback" and record["fallback_decider"] == "random"
        assert action in legal and record["fallback_action"] == repr(action)
        assert "timeout of 2 s" in record["exception"] and record["retries"]
        counts = summarize(villager.tally.log)
        assert counts["retries"] == len(record["retries"])
        assert counts["fallback_by"] == {"random": 1}
        # the same seat and seed draw the same action (chance is seeded)
        again = deciders(villager_seat, 7)(1, "Villager")
        again.llm.retry = Retry(0)
        assert await again.adecide(engine.view(s, "A"), legal, []) == action
    finally:
        if proc.poll() is None:
            stop(proc)
        log.close()


async def test_a_call_that_waits_long_is_told_once_where_a_server_may_hang(monkeypatch):
    """``on_hang`` hears of a call with no answer after ``HANG_NOTICE`` seconds, at the
    HTTP edge of a server that answers late; not of one that answers in time, and never
    where every player's call waits its turn in the game's own model process."""
    from maw.llm import retry

    monkeypatch.setattr(retry, "HANG_NOTICE", 0.3)
    delay = {"s": 0.6}

    async def late(request):
        await asyncio.sleep(delay["s"])
        return web.json_response(ANSWER)

    runner, url = await serve(late)
    try:
        told: list[float] = []
        backend = make_backend("ollama", model="m", base_url=url)
        backend.on_hang = told.append
        llm = LLM(backend, retry=Retry(timeout=5.0))
        assert (await llm.prompt("Ready?", max_tokens=5)).text == "yes"
        assert told == [0.3]  # (and the call still answered)
        delay["s"] = 0.0
        await llm.prompt("Ready?", max_tokens=5)
        await asyncio.sleep(0.4)  # (a notice not cancelled with its answer would come now)
        assert told == [0.3]
    finally:
        await runner.cleanup()
    from maw.llm.base import backend_class

    assert backend.may_hang and backend_class("openai").may_hang
    assert not backend_class("llamacpp").may_hang and not backend_class("recorded").may_hang
