"""Language-model players: the LLM class, backends, prompts and the deciders that need a
model (``llm``, and ``hybrid``'s model seat, which register themselves)."""

from maw.llm import backends as _backends  # noqa: F401 - registers the built-in backends
from maw.llm import decider as _decider  # noqa: F401 - registers the llm decider
from maw.llm import hybrid as _hybrid  # noqa: F401 - ... and the hybrid's model seat
from maw.llm import recorded as _recorded  # noqa: F401 - registers the recorded backend
from maw.llm.base import (
    BACKENDS,
    Backend,
    BackendError,
    BackendUnavailable,
    Completion,
    make_backend,
    register_backend,
)
from maw.llm.llm import LLM
from maw.policies.base import DECIDERS

# a decider that needs a model is a module of this package that registers itself
DECIDERS.packages += ("maw.llm",)

__all__ = ["BACKENDS", "Backend", "BackendError", "BackendUnavailable", "Completion", "LLM",
           "make_backend", "register_backend"]
