"""A registry of named plug-ins (rulesets, deciders, backends): what registers itself in a
module of MAW's, or in another package through an entry point, found by name.

An in-tree plug-in is one file that registers itself as it is loaded: a module of the
package its registry names (a game shape beside ``maw/engine/flows.py``, a decider beside
``maw/policies/rule.py``, a backend beside ``maw/llm/backends.py``). No list names it:
``find`` loads the package's modules not loaded yet before it calls a name unknown, and
``names`` before it lists the names.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from maw.errors import ConfigError, PluginError

T = TypeVar("T")

__all__ = ["Registry", "load_package"]


def load_package(package: str) -> None:
    """Import every module of ``package`` (a package of MAW's) not imported yet, so that
    each registers what it defines. A module that needs what is not installed (an
    optional extra's library) is passed over; any other failure is an error that names
    the module.

    Raises:
        PluginError: a module of ``package`` failed to load.
    """
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        name = f"{package}.{info.name}"
        if info.ispkg or info.name.startswith("_") or name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except ImportError as exc:
            if (exc.name or "").split(".")[0] == "maw":
                raise PluginError(f"cannot load {name}: {exc}") from None
        except Exception as exc:  # a plug-in's own bug: say which file
            raise PluginError(f"cannot load {name} ({pkg.__path__[0]}/{info.name}.py): "
                              f"{type(exc).__name__}: {exc}") from None


class Registry(dict[str, T], Generic[T]):
    """Name -> entry, in the order they registered. ``find`` loads the modules of MAW's
    ``packages`` and the entry point group ``group`` (a plug-in registers its entries as
    it is loaded) before it calls a name unknown."""

    def __init__(self, what: str, group: str,
                 known: Callable[[Registry[T]], str] | None = None,
                 packages: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.what, self.group, self.packages = what, group, packages
        self.known = known or (lambda entries: ", ".join(entries))
        self.loaded: set[str] = set()  # the packages, and the group, loaded so far

    def discover(self) -> None:
        """Load every plug-in that may register here (each package and the group once)."""
        for package in self.packages:
            if package not in self.loaded:
                self.loaded.add(package)
                load_package(package)
        if self.group not in self.loaded:
            self.loaded.add(self.group)
            for ep in entry_points(group=self.group):
                ep.load()

    def names(self) -> list[str]:
        """Every registered name, the plug-ins' included."""
        self.discover()
        return list(self)

    def find(self, name: str, shown: str | None = None) -> T:
        """The entry of ``name``; ``ConfigError`` naming ``shown`` (or ``name``) and the
        known names if there is none."""
        if name not in self:
            self.discover()
        entry = self.get(name)
        if entry is None:
            raise ConfigError(f"unknown {self.what} {shown or name!r}; "
                              f"known: {self.known(self)}")
        return entry
