"""MAW, Multi-Agent Werewolf.

Layers (data flows down, never up): ``cli`` -> ``agents`` -> ``protocol`` / ``policies``
-> ``engine``. The engine is pure; everything that talks to the world sits above it.
"""

__version__ = "0.1.0"
