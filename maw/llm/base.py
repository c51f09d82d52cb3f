"""The model side of a player: one small backend interface, a registry, and errors.

A backend turns chat messages into a completion. Backends register by name
(``register_backend``), and a third-party package can add one without editing MAW through
the ``maw.backends`` entry-point group (``name = "package.module:Class"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from maw.errors import BackendError, BackendUnavailable, ConfigError
from maw.registry import load_package

__all__ = ["BACKENDS", "Backend", "BackendError", "BackendUnavailable", "Completion", "Message",
           "backend_class", "make_backend", "register_backend", "request_key", "transient_status"]


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # the call itself, without any wait for a shared model
    end: float = 0.0  # time.monotonic() when the answer came back (set by LLM.prompt)
    # the prompt tokens the model had to read (the rest it had kept), where it says so
    evaluated_tokens: int | None = None


def transient_status(status: int) -> bool:
    """An HTTP status worth another try (the ``openai`` client's own rule): a timeout,
    a conflict, too many requests, or the server's fault."""
    return status in (408, 409, 429) or status >= 500


Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": ...}


def request_key(messages: list[Message], schema: dict | None, max_tokens: int,
                temperature: float) -> str:
    """What identifies a model request, whoever serves it: a hash of the messages, the
    answer's schema and the options (the game log keeps it beside each call; the
    ``recorded`` backend answers by it)."""
    canonical = json.dumps([messages, schema, max_tokens, temperature], sort_keys=True,
                           ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


class NoOptions(BaseModel):
    """A backend's options (``[llm] options`` in a roster): none by default. A backend with
    options declares its own model; an unknown or misspelt one is an error, not ignored."""

    model_config = ConfigDict(extra="forbid")


class Backend(ABC):
    """``chat`` answers ``messages``; with ``schema`` (a JSON schema) the answer must be
    JSON of that shape, where the server can enforce it. ``Options`` names and checks the
    backend's own options.

    ``parallel``: how many requests its server is sent at once, by every player whose
    backend names the same server (a roster's ``parallel``; default ``default_parallel``,
    0: no limit). The others wait for a free slot (:meth:`slot`) before they are sent, so
    that a server's queue never eats a request's timeout, and a call's ``seconds`` are the
    server's own."""

    name: ClassVar[str] = ""
    Options: ClassVar[type[BaseModel]] = NoOptions
    default_parallel: ClassVar[int] = 4  # (Ollama's own default of parallel requests)
    max_parallel: ClassVar[int | None] = None  # the most its server can take, if limited
    # a model answers: one call tells how long a typical one takes (the phases' timers);
    # not where answers come from a test's queue or a recorded game
    measured: ClassVar[bool] = True
    # it keeps each player's context between its calls (the embedded model's process):
    # a call reads only what is new, so a short prompt times a typical call; a server
    # that reads each call's whole prompt again is timed with a prompt of a whole turn's
    keeps_context: ClassVar[bool] = False
    # it keeps the calls a cancel cut short itself (the embedded model's process says when
    # the model ran one; a recording runs none); for the others, a cut call ran from its
    # sending to its cancel (``maw.llm.retry.send``)
    times_own_cuts: ClassVar[bool] = False
    # told (with the seconds) once a call has waited ``maw.llm.retry.HANG_NOTICE`` seconds
    # for its answer: a hung server says nothing, and its player's turns only wait
    on_hang: Callable[[float], None] | None = None
    # whether a long wait for an answer may be a hang, and so told (not where the calls
    # of every player wait their turn in one process of the game's own)
    may_hang: ClassVar[bool] = True

    def __init__(self, model: str = "", base_url: str | None = None,
                 api_key: str | None = None, parallel: int | None = None,
                 **options: Any) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.options = options
        # the calls a cancel cut short once they were sent, each (start, end) on
        # time.monotonic(): they took the model's time (``maw.records.accounting``)
        self.cancelled_spans: list[tuple[float, float]] = []
        self.parallel = self.default_parallel if parallel is None else parallel
        if self.parallel < 0:
            raise ConfigError(f"backend {self.name}: parallel = {self.parallel}: the "
                              "requests sent at once, at least 1 (0: no limit)")
        if self.max_parallel is not None and self.parallel > self.max_parallel:
            raise ConfigError(f"backend {self.name}: parallel = {self.parallel}, but it "
                              f"answers at most {self.max_parallel} request at a time")

    def slot(self) -> contextlib.AbstractAsyncContextManager:
        """Wait for one of the server's ``parallel`` slots; it is held while the request
        runs (``async with backend.slot(): await backend.chat(...)``)."""
        if not self.parallel:
            return contextlib.nullcontext()
        gates = _GATES.setdefault(asyncio.get_running_loop(), {})
        key = (self.name, self.base_url or "", self.parallel)
        if key not in gates:
            gates[key] = asyncio.Semaphore(self.parallel)
        return gates[key]

    @abstractmethod
    async def chat(self, messages: list[Message], schema: dict | None = None,
                   max_tokens: int = 200, temperature: float = 0.7) -> Completion: ...

    async def check(self) -> None:  # noqa: B027 - optional: a backend with nothing to check
        """Raise ``BackendError`` now if the backend cannot answer (no server...)."""

    async def aclose(self) -> None:  # noqa: B027 - optional: a backend with nothing open
        """Close what it holds open (a client's connections), in the loop it ran in: a
        backend made to check or time a model, then dropped, left the loop's end to
        close its client ('Event loop is closed' tracebacks)."""

    def at_once(self) -> int:
        """How many calls its server answers at the same time (one, for the embedded
        model; a server's ``parallel`` slots)."""
        limits = [n for n in (self.parallel, self.max_parallel) if n]
        return min(limits) if limits else 1

    async def seconds_per_call(self) -> float | None:
        """How long a typical call takes here, measured by one: the size of a player's
        prompt (the rules, its role, a question) and of its answer. ``None`` where no
        model answers (``measured`` false). ``BackendError`` if it cannot answer."""
        if not self.measured:
            return None
        t0 = time.monotonic()
        await self.chat(PROBE if self.keeps_context else PROBE_TURN, schema=PROBE_SCHEMA,
                        max_tokens=60, temperature=0.7)
        return time.monotonic() - t0

    def count_tokens(self, messages: list[Message]) -> int:
        """How many tokens ``messages`` take: about three characters a token (names and
        JSON tokenize worse than prose) and a few for each message's framing. A backend
        that has the model's tokenizer counts exactly."""
        return sum(len(m["content"]) // 3 + 4 for m in messages)

    def describe(self) -> str:
        where = f" at {self.base_url}" if self.base_url else ""
        return f"{self.name}:{self.model}{where}"


# a typical call: a prompt the size of a player's (the rules, its role, the talk heard, the
# question) and an answer the size of its line
PROBE: list[Message] = [
    {"role": "system", "content": (
        "You are playing Werewolf, a game of talk and deduction, as the player Ann. "
        "Players: Ann, Bob, Cid, Dee, Eve, Fay. 6 players: 2 Werewolves, 4 Villagers. The "
        "werewolves know each other; nobody else knows anyone's role. Each day everyone "
        "talks in the Village. Each living player has one public vote, which it may "
        "change or withdraw: as soon as a majority of the living vote for the same "
        "player, that player is executed. When the day's time runs out, the player with "
        "the most votes is executed. At night the werewolves talk in the Hideout and each "
        "votes for a victim. The village wins when no werewolf lives; the werewolves win "
        "when no villager lives.")},
    {"role": "system", "content": "Your role: Villager. You have no power but your vote "
                                  "and your voice."},
    {"role": "user", "content": (
        "Day 1, day. You are in the Village. Alive: Ann, Bob, Cid, Dee, Eve, Fay.\n"
        "What happened since you last spoke:\nBob: I suspect Cid, he was quiet.\n"
        "Cid: I am a simple villager. Dee voted too fast.\n"
        "Say what you think in one or two short sentences. Answer with {\"text\": WHAT "
        "YOU SAY}, at most 160 characters.")},
]
# a whole turn's prompt, as a server that keeps no context reads it at every call: the
# same, with three days of talk heard (about 1,300 tokens, as a vanilla llm player's
# prompt on day 2: a review's server took 4.6 s for PROBE and 13 to 31 s for real calls)
_TALK = [f"{who}: {what}" for day in (1, 2, 3) for who, what in (
    ("Bob", f"Day {day}: I suspect Cid. He was quiet, and quiet players worry me."),
    ("Cid", "I am a simple villager. Dee voted too fast yesterday, and that is odd."),
    ("Dee", "I voted with the others. Eve has said nothing useful since the start."),
    ("Eve", "I trust Ann. Fay keeps changing her mind, which a werewolf would do."),
    ("Fay", "I changed my vote because Bob's reasons were better. I suspect Dee now."),
    ("Ann", "Let us hear from everyone before we vote. Who has a result to share?"),
    ("Bob", "Nobody claims the Seer. I still vote for Cid unless someone explains."),
    ("Cid", "Bob pushes hard for me without any proof. That is suspicious in itself."),
    ("Dee", "Fay and Bob both went after Cid yesterday, and Ann was murdered that night."),
    ("Eve", "Whom do you vote for, Fay? You have not said it plainly today."),
    ("Fay", "I vote for Dee. Dee voted first on day one, before anyone had spoken."),
    ("Ann", "I vote for Cid. His defence is words; his votes point at the village."))]
PROBE_TURN: list[Message] = [*PROBE[:2], {"role": "user", "content": (
    "Day 2, day. You are in the Village. Alive: Ann, Bob, Cid, Dee, Eve, Fay.\n"
    "What happened so far:\n" + "\n".join(_TALK) + "\n"
    "Votes so far today: Bob for Cid; Fay for Dee; Ann for Cid.\n"
    "Your beliefs: who of the others is a werewolf, each from 0 to 1, and why.\n"
    + PROBE[2]["content"])}]
PROBE_SCHEMA = {"type": "object", "properties": {"text": {
    "type": "string", "minLength": 1, "maxLength": 160}},
    "required": ["text"], "additionalProperties": False}


# the slots of each server, per event loop (a semaphore belongs to one loop)
_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                  dict[tuple[str, str, int], asyncio.Semaphore]] = \
    weakref.WeakKeyDictionary()

BACKENDS: dict[str, type[Backend]] = {}


def register_backend(cls: type[Backend]) -> type[Backend]:
    if not cls.name:
        raise ConfigError(f"{cls.__name__} has no name")
    BACKENDS[cls.name] = cls
    return cls


def backend_class(name: str) -> type[Backend]:
    """The backend registered as ``name`` (``ConfigError`` naming the known ones)."""
    if name not in BACKENDS:  # a backend beside maw/llm/backends.py, or a plug-in's
        load_package("maw.llm")
        for ep in entry_points(group="maw.backends"):
            if ep.name == name:
                loaded = ep.load()  # (the class, or a module that registers it)
                if isinstance(loaded, type) and issubclass(loaded, Backend):
                    register_backend(loaded)
    if name not in BACKENDS:
        raise ConfigError(f"unknown backend {name!r}: {', '.join(sorted(BACKENDS))}")
    return BACKENDS[name]


def make_backend(name: str, **config: Any) -> Backend:
    cls = backend_class(name)
    common = {k: config.pop(k) for k in ("model", "base_url", "api_key", "parallel")
              if k in config}
    try:
        options = cls.Options.model_validate(config).model_dump(exclude_unset=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(x) for x in first["loc"])
        known = ", ".join(sorted(cls.Options.model_fields)) or "none"
        what = (f"unknown option {key!r}" if first["type"] == "extra_forbidden"
                else f"option {key!r}: {first['msg']}")
        raise ConfigError(f"backend {name}: {what} (its options: {known})") from None
    return cls(**common, **options)
