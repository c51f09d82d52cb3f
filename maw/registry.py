"""A registry of named plug-ins (rulesets, deciders): what registers itself in a module of
MAW's, or in another package through an entry point, found by name."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from maw.errors import ConfigError

T = TypeVar("T")


class Registry(dict[str, T], Generic[T]):
    """Name -> entry, in the order they registered. ``find`` loads the entry point group
    ``group`` (a plug-in registers its entries as it is loaded) before it calls a name
    unknown."""

    def __init__(self, what: str, group: str,
                 known: Callable[[Registry[T]], str] | None = None) -> None:
        super().__init__()
        self.what, self.group = what, group
        self.known = known or (lambda entries: ", ".join(entries))

    def find(self, name: str, shown: str | None = None) -> T:
        """The entry of ``name``; ``ConfigError`` naming ``shown`` (or ``name``) and the
        known names if there is none."""
        if name not in self:
            for ep in entry_points(group=self.group):
                ep.load()
        entry = self.get(name)
        if entry is None:
            raise ConfigError(f"unknown {self.what} {shown or name!r}; "
                              f"known: {self.known(self)}")
        return entry
