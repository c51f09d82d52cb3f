"""MAW's engine as a PettingZoo environment: ``env(ruleset_name="aiwolf-5")``,
``env(ruleset_name="maw", players=6)``, any ruleset MAW has (``maw.env.aec``)."""

from maw.env.aec import env, raw_env
from maw.env.rewards import Rewards

__all__ = ["Rewards", "env", "raw_env"]
