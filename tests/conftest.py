from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from maw.engine import (
    BODYGUARD,
    MEDIUM,
    POSSESSED,
    SEER,
    VILLAGER,
    WEREWOLF,
    GameState,
    new_game,
    ruleset,
)

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
LETTERS = {"W": WEREWOLF, "V": VILLAGER, "S": SEER, "M": MEDIUM, "B": BODYGUARD,
           "P": POSSESSED}
NAMES = [chr(ord("A") + i) for i in range(26)]


def start(name: str, deal: str, seed: int = 0, **options) -> GameState:
    """A game of ruleset ``name`` with roles dealt in seat order: player A gets deal[0]..."""
    roles = [LETTERS[c] for c in deal]
    return new_game(ruleset(name, **options), NAMES[: len(roles)], random.Random(seed),
                    roles=roles)


def shared_dir(sub: str) -> Path:
    path = SHARED / sub
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: CI must have shared/ beside the clone")
        pytest.skip(f"{path} not found (shared/ is not beside this checkout)")
    return path
