"""The environment's action space and observations: ``maw.policies.observation``, where a
learned player that plays without the environment (``learned:FILE.npz``) reads them too."""

from maw.policies.observation import Adviser, Heard, Layout, observation_size, observe

__all__ = ["Adviser", "Heard", "Layout", "observation_size", "observe"]
