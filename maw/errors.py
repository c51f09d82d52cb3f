"""The one exception tree of MAW.

::

    MawError                      base of every error MAW raises on purpose
    ├── IllegalActionError        (also ValueError) an action the rules forbid now;
    │                             the message says why and in which state
    ├── ConfigError               (also ValueError) bad ruleset, roster, option or name
    └── ReplayError               a log that cannot be read or replayed

Only ``maw.cli`` turns these into exit codes and sentences for a person.
"""

from __future__ import annotations


class MawError(Exception):
    """Base class of every error MAW raises on purpose."""


class IllegalActionError(MawError, ValueError):
    """An action the rules do not allow in the current state."""


class ConfigError(MawError, ValueError):
    """A bad ruleset name, option, roster or player list."""


class ReplayError(MawError):
    """A game log that cannot be parsed or replayed."""
