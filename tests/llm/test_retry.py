"""A model call meets a server that is away for a moment (``maw.llm.retry``): it waits and
tries again, within its timeout. At the HTTP edge (an Ollama server's, aiohttp)."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web
from conftest import start

from maw import engine
from maw.errors import BackendError, BackendUnavailable
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
