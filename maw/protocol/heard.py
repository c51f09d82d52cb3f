"""What a player knows and hears, typed, on the wire between a player and its interface.

:class:`View` is the player's own ``maw.engine.view`` (frozen); :data:`Heard` is a tagged
union of what it heard (``kind`` tells which): a chat line, a vote, a result, a death, a
phase, a private result... The player builds these from the GameMaster's and the rooms'
messages; an interface reads facts from them (a rule decider takes each chat line as it
was said, a prompt renders them with ``maw.protocol.render``), never parses English back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from maw import engine


class View(BaseModel):
    """One player's knowledge of the game at one moment (``maw.engine.PlayerView``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    role: str
    team: str
    alive: bool
    ruleset: str
    day: int
    phase: str
    vote_round: int = 0
    players: tuple[str, ...]
    living: tuple[str, ...]
    deaths: tuple[tuple[int, str, str], ...] = ()
    known_roles: dict[str, str] = {}
    pack: tuple[str, ...] = ()
    room: str | None = None
    messages_left: int | None = None
    votes: dict[str, str] = {}
    vote_history: tuple[tuple[int, str, int, tuple[tuple[str, str], ...]], ...] = ()
    results: tuple[tuple[int, str, str, str], ...] = ()
    winner: str | None = None
    votes_open: bool = True
    rule_options: tuple[tuple[str, str], ...] = ()
    sheriff: str = ""

    @classmethod
    def of(cls, view: engine.PlayerView) -> View:
        """The engine's view as is, not validated again: the engine made it, of these
        types (its mappings copied into dicts). Validating it was 3.5% of a 75-player
        game's time: every player gets a view at every phase and vote round."""
        data = {name: getattr(view, name) for name in _VIEW_FIELDS}
        data["known_roles"], data["votes"] = dict(view.known_roles), dict(view.votes)
        return cls.model_construct(**data)

    def to_engine(self) -> engine.PlayerView:
        data: dict[str, Any] = {name: getattr(self, name) for name in type(self).model_fields}
        return engine.PlayerView(**data)

    def with_vote(self, voter: str, target: str | None) -> View:
        """This view with ``voter``'s current vote changed (or withdrawn: ``None``)."""
        votes = dict(self.votes)
        if target is None:
            votes.pop(voter, None)
        else:
            votes[voter] = target
        return self.model_copy(update={"votes": votes})


class _Heard(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Said(_Heard):
    """A chat line, in a room the player reads."""

    kind: Literal["said"] = "said"
    room: str
    speaker: str
    text: str
    day: int = 0


class WhisperHeard(_Heard):
    """A whisper: ``speaker`` said ``text`` to ``to`` alone (the player is one of them)."""

    kind: Literal["whisper"] = "whisper"
    speaker: str
    to: str
    text: str
    day: int = 0


class RoomOpened(_Heard):
    kind: Literal["room_open"] = "room_open"
    room: str
    players: list[str]


class VoteHeard(_Heard):
    """A vote cast or withdrawn (``target`` None); ``vote``: execute, attack, divine."""

    kind: Literal["vote"] = "vote"
    day: int
    vote: str
    voter: str
    target: str | None


class ResultHeard(_Heard):
    """The outcome of a vote or a night."""

    kind: Literal["result"] = "result"
    day: int
    status: Literal["executed", "murdered", "no_execution", "no_murder", "revote", "spared",
                    "shot", "ran", "withdrew", "elected", "badge", "exploded", "order"]
    target: str | None = None
    tied: list[str] = []
    reason: str = ""
    by: str | None = None
    order: list[str] = []


class Revealed(_Heard):
    """A private result: a divination, a medium's reading, a role, a blocked attack."""

    kind: Literal["reveal"] = "reveal"
    day: int
    what: str
    target: str
    value: str


class RoleDealt(_Heard):
    kind: Literal["role"] = "role"
    role: str
    pack: list[str] = []


class Died(_Heard):
    """This player died."""

    kind: Literal["death"] = "death"
    day: int
    cause: str


class PhaseBegan(_Heard):
    """A phase began (``votes`` "closed": its votes open after the talk), or the day's
    votes opened (``votes`` "opened")."""

    kind: Literal["phase"] = "phase"
    day: int
    phase: str
    vote_round: int = 0
    votes: Literal["", "closed", "opened"] = ""


class RoundBegan(_Heard):
    kind: Literal["round"] = "round"
    round: int
    rounds: int
    players: list[str]


class GameEnded(_Heard):
    """The round is over: who won and why, and now that nothing is secret any more,
    every player's role and points for the round (the GameMaster's ``end_game``)."""

    kind: Literal["game_over"] = "game_over"
    winner: str | None
    reason: str
    roles: dict[str, str] = {}
    points: dict[str, int] = {}


class Notice(_Heard):
    """Something the player's own side says: joined, refused and why, no room open..."""

    kind: Literal["notice"] = "notice"
    text: str
    # how the lobby fills ("Joined as Ann (3/6)."): which seat came when is a race, and
    # nothing to the game, so a model is not told (a replay's prompts stay the same)
    lobby: bool = False


Heard = Annotated[Union[Said, WhisperHeard, RoomOpened, VoteHeard, ResultHeard, Revealed,
                        RoleDealt, Died, PhaseBegan, RoundBegan, GameEnded, Notice],
                  Field(discriminator="kind")]
HEARD: TypeAdapter[Heard] = TypeAdapter(Heard)


_VIEW_FIELDS = tuple(View.model_fields)
