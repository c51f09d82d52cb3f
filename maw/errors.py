"""The one exception tree of MAW.

::

    MawError                      base of every error MAW raises on purpose
    ├── IllegalActionError        (also ValueError) an action the rules forbid now;
    │                             the message says why and in which state
    ├── ConfigError               (also ValueError) bad ruleset, roster, option or name
    ├── ReplayError               a log that cannot be read or replayed
    ├── ProtocolError             a message that is not a MAW message (answered with
    │                             not-understood)
    ├── BackendError              a model that cannot answer: no server, an HTTP error
    │   ├── BackendUnavailable    ... for now: refused, timed out, HTTP 408/409/429/5xx
    │   │                         (a call retries it: maw.llm.retry)
    │   └── ModelCrashed          the embedded model's process died (maw.llm.model_process)
    └── LobbyError                a player that cannot join or stay in a game (refused,
                                  no lobby, no name)

Only the ``maw`` command (``maw.cli.main``) turns these into exit codes and sentences for a
person; an error from elsewhere is translated ``from`` its cause where it crosses into MAW.
"""

from __future__ import annotations


class MawError(Exception):
    """Base class of every error MAW raises on purpose."""


class IllegalActionError(MawError, ValueError):
    """An action the rules do not allow in the current state."""


class ConfigError(MawError, ValueError):
    """A bad ruleset name, option, roster or player list."""


class PluginError(ConfigError):
    """A plug-in (a module that registers a decider, a ruleset, a backend) failed to load."""


class ReplayError(MawError):
    """A game log that cannot be parsed or replayed."""


class ProtocolError(MawError):
    """A message that is not a MAW message (the text says what is wrong)."""


class BackendError(MawError):
    """The model could not answer: no server, an HTTP error, no model. Says which."""


class BackendUnavailable(BackendError):
    """The model's server could not answer for now: the connection was refused or timed
    out, or it answered HTTP 408, 409, 429 or 5xx (a server restarting, overloaded). A
    call tries again (``maw.llm.retry``); any other ``BackendError`` (a wrong model, a
    refused key) would fail the same way again. The embedded model's crash is not one:
    a prompt that crashed it may crash it again, and three crashes give the model up."""


class LobbyError(MawError):
    """A player could not join a game, or lost it: refused, no lobby, no name."""
