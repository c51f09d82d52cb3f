"""Language-model players: the LLM class, backends, prompts and the LLM decider."""

from maw.llm import backends as _backends  # noqa: F401 - registers the built-in backends
from maw.llm import recorded as _recorded  # noqa: F401 - ... and the recorded one
from maw.llm.base import (
    BACKENDS,
    Backend,
    BackendError,
    Completion,
    make_backend,
    register_backend,
)
from maw.llm.llm import LLM

__all__ = ["BACKENDS", "Backend", "BackendError", "Completion", "LLM",
           "make_backend", "register_backend"]
