"""The pure rules engine: no asyncio, no spade, no I/O.

``new_game(ruleset, names, rng)`` deals roles; ``legal_actions(state, player)`` lists
what a player may do; ``apply(state, action) -> (state, events)`` is the only
transition (``play`` also lets chance settle ties); ``outcome(state)`` says how a game
ended; ``view(state, player)`` is all a player may ever see. Same seed and same actions
give the same game.

Its hot modules may run compiled (``maw engine build``): ``maw.engine.compiled``, imported
first, chooses which engine runs.
"""

from maw.engine import compiled  # noqa: F401 - first: which engine runs
from maw.engine.actions import (
    ACTIONS,
    Abort,
    Action,
    ActionSpec,
    Attack,
    Chat,
    Divine,
    EndPhase,
    Guard,
    Night,
    OpenVotes,
    Over,
    Pass,
    Resolve,
    Room,
    Unvote,
    Vote,
    Whisper,
    action_name,
    night_action,
    register_action,
)
from maw.engine.dayflow import DayFlow, register_flow
from maw.engine.events import Event, visible_to
from maw.engine.flows import AiwolfFlow, MawFlow
from maw.engine.roles import (
    BODYGUARD,
    MEDIUM,
    POSSESSED,
    SEER,
    VILLAGER,
    WEREWOLF,
    Ability,
    Role,
    Species,
    Team,
    register_role,
    role_named,
)
from maw.engine.rules import (
    actors,
    apply,
    chance_action,
    legal_actions,
    listen_as,
    may_pass,
    messages_left,
    new_game,
    open_room,
    opening_events,
    outcome,
    play,
    split,
)
from maw.engine.rulesets import (
    RULESET_NAMES,
    Flow,
    Ruleset,
    TiePolicy,
    VotesOpen,
    WinCondition,
    changed_options,
    parse_options,
    ruleset,
)
from maw.engine.scoring import Leaderboard
from maw.engine.state import GameState, Outcome, Phase, Termination
from maw.engine.view import PlayerView, view

__all__ = [
    "Abort", "Action", "Attack", "Chat", "Divine", "EndPhase", "Guard", "Over", "Resolve", "Room",
    "Unvote", "Vote", "Event", "visible_to", "BODYGUARD", "MEDIUM", "POSSESSED", "SEER",
    "VILLAGER", "WEREWOLF", "Ability", "Role", "Species", "Team", "role_named", "actors", "apply",
    "chance_action", "legal_actions", "new_game", "opening_events", "outcome", "play",
    "RULESET_NAMES", "Flow", "Ruleset", "TiePolicy", "WinCondition",
    "changed_options", "parse_options",
    "ruleset", "Leaderboard", "GameState", "Outcome", "Phase", "Termination",
    "PlayerView", "view", "ACTIONS", "ActionSpec", "action_name", "DayFlow", "MawFlow",
    "AiwolfFlow", "register_flow", "open_room", "messages_left", "OpenVotes", "Pass",
    "listen_as", "may_pass", "split", "VotesOpen", "Whisper", "Night", "night_action",
    "register_action", "register_role",
]
