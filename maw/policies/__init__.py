"""Deciders that need no model: ``random``, ``rule`` and ``hybrid`` (its strategy, with
template talk; ``maw.llm.hybrid`` gives it a model's voice).

A decider chooses one player's next action from what that player may see. The LLM
decider (``maw.llm``) and the human at a terminal return the same actions.
"""

from maw.policies.base import (
    DECIDERS,
    FALLBACKS,
    AsyncDecider,
    Decider,
    DeciderKind,
    ModelSeat,
    check_decider,
    decider_kind,
    make_decider,
    quiet_deciders,
    register_decider,
    register_decider_with_argument,
    stand_ins,
)
from maw.policies.hybrid import HybridStrategy  # noqa: E402,I001 - after rule, which it extends
from maw.policies.learned import LearnedDecider, learned_decider
from maw.policies.random import RandomDecider
from maw.policies.rule import RuleDecider

register_decider_with_argument("learned", learned_decider)

__all__ = ["DECIDERS", "FALLBACKS", "AsyncDecider", "Decider", "DeciderKind", "ModelSeat",
           "check_decider", "quiet_deciders",
           "decider_kind", "stand_ins", "make_decider", "register_decider",
           "register_decider_with_argument", "RandomDecider", "RuleDecider", "HybridStrategy",
           "LearnedDecider"]
