"""GameMasterAgent: the lobby, the moderator and the only authority on the game state.

Its FSM (design document §3.6.1) is Setup -> AssignRoles -> DayPhase ->
DayPhaseVoteCount -> NightPhase -> NightPhaseVoteCount -> ... -> EndPhase (-> AssignRoles
for the next round); werewolf-12 adds the night's WitchDecision, a dead Hunter's
HunterShot, the SheriffElection (and each day's speaking order), LastWords and a dead
sheriff's BadgeHandover. The states only sequence phases and run the timers: every rule
is the engine's (``maw.agents.gamemaster_fsm``). The Referee behaviour
(``maw.agents.referee``) takes the lobby joins and every player action, checks who sent
it (a per-player secret token issued privately on joining), lets the engine judge it, and
answers ``agree`` or ``refuse`` with the reason. What they drive, the game itself, is the
:class:`~maw.agents.moderator.Moderator` under them.
"""

from __future__ import annotations

from spade.behaviour import FSMBehaviour, OneShotBehaviour

from maw.agents.gamemaster_fsm import (
    PHASE_STATES,
    AssignRolesState,
    EndPhaseState,
    SetupState,
    VoteCountState,
)
from maw.agents.moderator import (  # noqa: F401 - the GameMaster's names, where they were
    ROOM_REPLIES,
    UNKNOWN,
    Moderator,
    share_host_key,
)
from maw.agents.narration import Narrating
from maw.agents.referee import Referee, RoomReplies
from maw.agents.seats import GameConfig, Occupant, StandIn  # noqa: F401 - (as above)
from maw.agents.transport import of_types
from maw.protocol import messages as m


def referee_types() -> tuple[str, ...]:
    """What the Referee takes: joins, the rooms' chat checks, and every action but chat
    (the rooms take chats) and "listen" (read when an agent starts: the table may grow)."""
    return ("join_lobby", "chat_check", "show_score",
            *(n for n in m.ACTION_TYPES if n != "chat"))


class GameMasterAgent(Moderator):
    """The Moderator with its behaviours: the FSM of the phases and the Referee."""

    async def setup(self) -> None:
        fsm = FSMBehaviour()
        phases = {name: cls() for name, cls in PHASE_STATES.items()}
        names = ["Setup", "AssignRoles", "DayPhaseVoteCount", "NightPhaseVoteCount",
                 *phases, "EndPhase"]
        states = [SetupState(), AssignRolesState(), VoteCountState(), VoteCountState(),
                  *phases.values(), EndPhaseState()]
        for i, (name, st) in enumerate(zip(names, states, strict=True)):
            fsm.add_state(name, st, initial=i == 0)
        # each phase's state goes to its count; a count to whatever phase the rules opened
        # (werewolf-12's steps come after any of them)
        for src, dests in {
            "Setup": ["AssignRoles"], "AssignRoles": [*phases, "EndPhase"],
            **{p: [st.count_state] for p, st in phases.items()},
            "DayPhaseVoteCount": [*phases, "EndPhase"],
            "NightPhaseVoteCount": [*phases, "EndPhase"],
            "EndPhase": ["AssignRoles"],
        }.items():
            for dest in dests:
                fsm.add_transition(src, dest)
        self.fsm = fsm
        self.presence.on_unavailable = self._unavailable
        self.add_behaviour(fsm)  # it receives nothing: it only sequences and times
        refereed = referee_types()
        self.add_behaviour(Referee(), of_types(*refereed))
        self.add_behaviour(RoomReplies(), of_types(*ROOM_REPLIES))
        self.add_catch_all(refereed + ROOM_REPLIES)
        if self.narration is not None:
            self.add_behaviour(Narrating())


class Refresh(OneShotBehaviour):
    """``GameMasterAgent.refresh`` as a behaviour of its own (it sends)."""

    async def run(self) -> None:
        gm: Moderator = self.agent
        await gm.refresh(self)
