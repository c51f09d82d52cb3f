"""What a shape of game day must say (:class:`DayFlow`), and the registry of the shapes.

The interface lives here, below both the shared core that asks it
(``maw.engine.resolution``) and the shapes that answer it (``maw.engine.flows``), so that
neither imports the other's module to meet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from mypy_extensions import mypyc_attr

from maw.engine.actions import Room
from maw.engine.events import Event
from maw.engine.rulesets import Flow, Ruleset
from maw.engine.state import GameState, Phase
from maw.errors import ConfigError


# (a game shape's module, compiled or not, may subclass it: maw.engine.compiled)
@mypyc_attr(allow_interpreted_subclasses=True)
class DayFlow:
    """What a shape of day decides. Subclasses set the class attributes and may override
    the methods; the defaults are the rules every shipped flow shares."""

    flow: ClassVar[Flow | str]  # the name a ruleset gives its flow
    next_phase: ClassVar[Mapping[Phase, Phase]]
    rooms: ClassVar[Mapping[Phase, Room]]  # the room each phase opens
    vote_phase: ClassVar[Phase]  # the phase in which the execution vote is cast
    choices_change: ClassVar[bool]  # a vote or a night choice may be changed or withdrawn
    over: ClassVar[bool]  # players say Over when they are done talking
    wolves_learn_executed: ClassVar[bool]  # the pack learns the roles of the executed
    shots: ClassVar[bool] = False  # a role that ``shoots`` (the Hunter) gets its shot
    no_over: ClassVar[str] = "this game has no Over"

    def rules_text(self, rules: Ruleset, players: int) -> str:
        """This shape of day's rules in plain English, for a game of ``players`` under
        ``rules`` (the prompts and the screen tell them: ``maw.engine.describe``). Every
        flow writes its own; a flow that inherits another's is refused by
        ``describe.rules_text``, which would tell the other game's rules.

        Raises:
            ConfigError: this flow has no rules text.
        """
        raise ConfigError(f"the day flow {type(self).__name__} has no rules text: define "
                          f"{type(self).__name__}.rules_text")

    def room(self, phase: Phase) -> Room | None:
        return self.rooms.get(phase)

    def talk_first(self, state: GameState, phase: Phase) -> bool:
        """Are the votes of ``phase`` closed until everyone has spoken or passed?"""
        return False

    def usable_tonight(self, state: GameState, abilities: frozenset[str]
                       ) -> frozenset[str]:
        return abilities

    def skips(self, state: GameState, day: int, phase: Phase) -> bool:
        """Is ``phase`` of ``day`` skipped (nobody could do anything in it)?"""
        return False

    def public_votes(self, phase: Phase) -> bool:
        """Does everyone see the current votes in ``phase``?"""
        return False

    def split(self, state: GameState) -> bool:
        """Is a choice the rules need agreed still split between players who may yet
        agree (MAW's pack, whose victim dies only once every wolf attacks the same
        player)? A phase does not end early while it is (see :func:`maw.engine.split`)."""
        return False

    def gives_up(self, state: GameState, s: int) -> object | None:
        """The move a "listen" (no action) of seat ``s`` stands for in one of the flow's
        own steps, if any (werewolf-12: the speaker's turn given up, an ``Over``; else a
        day of turns would end its talk at the first speaker with nothing to say)."""
        return None

    def vote_audience(self, voter: str) -> frozenset[str] | None:
        return None if self.choices_change else frozenset((voter,))

    def actors(self, state: GameState) -> tuple[str, ...]:
        raise NotImplementedError

    def after_vote(self, state: GameState, t: int, events: list[Event]) -> GameState:
        raise NotImplementedError

    def after_night_choice(self, state: GameState, t: int, events: list[Event]) -> GameState:
        raise NotImplementedError

    def after_talk(self, state: GameState, s: int, room: Room, events: list[Event]
                   ) -> GameState:
        return state

    def end_phase(self, state: GameState, events: list[Event]) -> GameState:
        raise NotImplementedError

    def at_night(self, state: GameState, events: list[Event]) -> GameState:
        return state

    # the phases whose actions the flow takes itself (``legal``, ``why_not``, ``act``)
    steps: ClassVar[frozenset[Phase]] = frozenset()

    def owns(self, state: GameState, action: object) -> bool:
        """Is ``action`` (now) one the flow judges and applies itself?"""
        return False

    def legal(self, state: GameState, s: int) -> tuple:
        """Seat ``s``'s actions in one of the flow's own steps."""
        return ()

    def extra(self, state: GameState, s: int) -> tuple:
        """Actions of the flow's own that seat ``s`` may take besides the core's."""
        return ()

    def why_not(self, state: GameState, s: int, action: object) -> str | None:
        """Why seat ``s`` may not take ``action``, one the flow ``owns``."""
        return "not an action of this game"

    def act(self, state: GameState, s: int, action: object, events: list[Event]
            ) -> GameState:
        """Apply ``action``, one the flow ``owns`` (``why_not`` said yes)."""
        raise NotImplementedError

    def night_decided(self, state: GameState, target: int, events: list[Event]) -> GameState:
        """The pack's attack is decided (``target``, -1 for none): resolve the night, or
        go on to the night's next step."""
        raise NotImplementedError

    def after_deaths(self, state: GameState, seats: list[int], events: list[Event]
                     ) -> GameState:
        """``seats`` died (executed, or at dawn) and the game goes on: the next phase."""
        raise NotImplementedError


def register_flow(cls: type[DayFlow]) -> type[DayFlow]:
    FLOWS[cls.flow] = cls()
    return cls


# the ruleset's flow -> its DayFlow (the modules of the game shapes fill it)
FLOWS: Final[dict[Flow | str, DayFlow]] = {}


def flow_of(state: GameState) -> DayFlow:
    return FLOWS[state.rules.flow]
