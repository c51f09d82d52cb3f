"""The phases and rooms that the engine's compiled modules name at every turn, as
constants.

In a build (``maw engine build``) a ``Final`` name is a C static, while ``Phase.DAY`` is a
lookup of ``Phase`` and then of its attribute, and ``Room.VILLAGE`` one through
``Enum``'s ``__getattr__``: together a tenth of a random game's time in the engine. As
written, these are the very same objects (``DAY is Phase.DAY``). A phase a game shape
registers (werewolf-12's) is named by ``Phase`` where it is used.
"""

from __future__ import annotations

from typing import Final

from maw.engine.actions import Room
from maw.engine.state import Phase

__all__ = ["DAY", "HIDEOUT_ROOM", "HUNT", "NIGHT", "OVER", "VILLAGE_ROOM", "VOTE", "WHISPER",
           "WITCH"]

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
