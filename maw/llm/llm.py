"""The LLM class of the design document (§3.5): one player's conversation with a model.

Each player has its own ``LLM`` and so its own ``context``: nothing one player's model
was told can reach another's. The first ``pinned`` messages (the rules, the player's role
and persona) are never truncated; the rest is dropped oldest first to fit the window.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maw.errors import ConfigError
from maw.llm.base import Backend, Completion, Message, request_key
from maw.llm.retry import Retry, send


@dataclass
class LLM:
    backend: Backend
    context: list[Message] = field(default_factory=list)
    pinned: int = 0  # leading messages truncation never drops
    window: int = 2048  # tokens the context may fill, answer included
    last_sent: list[Message] = field(default_factory=list)  # the messages of the last call
    # ... and the rest of that request: its key (``request_key``), schema and options
    last_request: dict[str, Any] = field(default_factory=dict)
    retry: Retry = field(default_factory=Retry)  # how a call meets a server away a moment
    # the retries of its calls not yet taken into a record (``take_retries``)
    retried: list[dict] = field(default_factory=list)

    @property
    def model(self) -> str:
        return self.backend.model

    @property
    def base_url(self) -> str | None:
        return self.backend.base_url

    @property
    def api_key(self) -> str | None:
        return self.backend.api_key

    def pin(self, role: str, content: str) -> None:
        """Add a message that stays for the whole game (rules, role, persona)."""
        self.context.insert(self.pinned, {"role": role, "content": content})
        self.pinned += 1

    async def prompt(self, text: str, schema: dict | None = None, max_tokens: int = 200,
                     temperature: float = 0.7, remember: bool = True) -> Completion:
        """Send ``text`` (with the context before it) and return the answer; both stay in
        the context when ``remember``. A call that fails or is cancelled leaves the
        context as it was (what truncation dropped for it too)."""
        before = list(self.context)
        self.context.append({"role": "user", "content": text})
        self.truncate_context(self.window - max_tokens)
        self.last_sent = [dict(m) for m in self.context]
        self.last_request = {
            "key": request_key(self.last_sent, schema, max_tokens, temperature),
            "schema": schema, "max_tokens": max_tokens, "temperature": temperature}
        try:  # (in one of the server's slots each try: maw.llm.retry)
            completion = await send(self.backend, self.context, schema, max_tokens,
                                    temperature, self.retry, self.retried)
        except BaseException:
            self.context = before
            raise
        completion = dataclasses.replace(completion, end=time.monotonic())
        if remember:
            self.context.append({"role": "assistant", "content": completion.text})
        else:
            self.context.pop()
        return completion

    def take_retries(self) -> list[dict]:
        """The retries of its calls since the last time they were taken (a decision's
        record keeps them, a failed call's too)."""
        taken, self.retried = self.retried, []
        return taken

    def truncate_context(self, max_tokens: int | None = None) -> int:
        """Drop the oldest unpinned messages until the context fits ``max_tokens``
        (default: the window); the newest message always stays. Returns how many went."""
        limit = self.window if max_tokens is None else max_tokens
        dropped = 0
        while (len(self.context) > self.pinned + 1
               and self.backend.count_tokens(self.context) > limit):
            del self.context[self.pinned]
            dropped += 1
        return dropped

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data: dict[str, Any] = {"backend": self.backend.name, "model": self.model,
                                "base_url": self.base_url, "pinned": self.pinned,
                                "window": self.window, "context": self.context}
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1))

    @classmethod
    def load(cls, path: Path, backend: Backend) -> LLM:
        try:
            data = json.loads(path.read_text())
            context = [{"role": str(m["role"]), "content": str(m["content"])}
                       for m in data["context"]]
            return cls(backend, context, int(data["pinned"]), int(data["window"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot load a context from {path}: {exc}") from None
