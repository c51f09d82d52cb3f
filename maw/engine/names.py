"""The phases, rooms and sides that the engine's compiled modules name at every turn,
as constants.

In a build (``maw engine build``) a ``Final`` name is a C static, while ``Phase.DAY`` is a
lookup of ``Phase`` and then of its attribute, and ``Room.VILLAGE`` one through
``Enum``'s ``__getattr__``: together a tenth of a random game's time in the engine. As
written, these are the very same objects (``DAY is Phase.DAY``). A phase a game shape
registers (werewolf-12's) is named by ``Phase`` where it is used.
"""

from __future__ import annotations

from typing import Final

from maw.engine.actions import Room
from maw.engine.roles import Species, Team
from maw.engine.rulesets import WinCondition
from maw.engine.state import Phase

__all__ = ["DAY", "HIDEOUT_ROOM", "HUNT", "NIGHT", "OVER", "PARITY_WIN", "SIDE_WIN",
           "VILLAGE_ROOM", "VILLAGE_TEAM", "VOTE", "WEREWOLF_SPECIES", "WHISPER", "WITCH"]

DAY: Final = Phase.DAY
VOTE: Final = Phase.VOTE
WHISPER: Final = Phase.WHISPER
NIGHT: Final = Phase.NIGHT
WITCH: Final = Phase.WITCH
HUNT: Final = Phase.HUNT
OVER: Final = Phase.OVER

# the rooms (``Team.VILLAGE`` is the side, not the room)
VILLAGE_ROOM: Final = Room.VILLAGE
HIDEOUT_ROOM: Final = Room.HIDEOUT

# what :func:`maw.engine.resolution.termination` compares for every living player after
# every death and every phase: the village's side, the werewolves' species, the two ways
# the werewolves win (``Team.VILLAGE`` is looked up through ``Enum``'s class like a room)
VILLAGE_TEAM: Final = Team.VILLAGE
WEREWOLF_SPECIES: Final = Species.WEREWOLF
PARITY_WIN: Final = WinCondition.PARITY
SIDE_WIN: Final = WinCondition.SIDE
