"""Deciders that need no model: ``random`` and ``rule``.

A decider chooses one player's next action from what that player may see. The LLM
decider (``maw.llm``) and the human at a terminal return the same actions.
"""

from maw.policies.base import DECIDERS, Decider, make_decider, register_decider
from maw.policies.random import RandomDecider
from maw.policies.rule import RuleDecider

__all__ = ["DECIDERS", "Decider", "make_decider", "register_decider", "RandomDecider",
           "RuleDecider"]
