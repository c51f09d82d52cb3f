"""What a player knows and hears, typed, on the wire between a player and its interface.

:data:`View` is the player's own ``maw.engine.PlayerView`` (frozen); :data:`Heard` is a tagged
union of what it heard (``kind`` tells which): a chat line, a vote, a result, a death, a
phase, a private result... The player builds these from the GameMaster's and the rooms'
messages; an interface reads facts from them (a rule decider takes each chat line as it
was said, a prompt renders them with ``maw.protocol.render``), never parses English back.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    WrapSerializer,
)

from maw import engine


def _plain(view: engine.PlayerView, serialize: SerializerFunctionWrapHandler) -> Any:
    """The view as JSON has it: its read-only mappings as plain dicts."""
    return serialize(dataclasses.replace(view, known_roles=dict(view.known_roles),
                                         votes=dict(view.votes)))


View = Annotated[engine.PlayerView, WrapSerializer(_plain)]
"""One player's knowledge of the game at one moment: the engine's own
:class:`maw.engine.PlayerView` on the wire (one definition: a view the GameMaster built
goes out as is, not validated again; one read from the wire is validated into it)."""
VIEW: TypeAdapter[engine.PlayerView] = TypeAdapter(View)


def view_data(view: engine.PlayerView) -> dict[str, Any]:
    """The view as plain data (an interface's status, a page's JSON)."""
    data: dict[str, Any] = VIEW.dump_python(view)
    return data


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


class Narrated(_Heard):
    """The narrating moderator's line (a roster's ``[moderator]``), made from public
    events only; ``summary``: its account of the game at the end."""

    kind: Literal["narration"] = "narration"
    day: int
    text: str
    summary: bool = False


class ScoresShown(_Heard):
    """The points of the rounds over so far, asked for (``/score``: ``show_score``)."""

    kind: Literal["scores_shown"] = "scores_shown"
    round: int
    rounds: int
    done: int
    leaderboard: list[tuple[str, int]]


class Notice(_Heard):
    """Something the player's own side says: joined, refused and why, no room open..."""

    kind: Literal["notice"] = "notice"
    text: str
    # how the lobby fills ("Joined as Ann (3/6)."): which seat came when is a race, and
    # nothing to the game, so a model is not told (a replay's prompts stay the same)
    lobby: bool = False


Heard = Annotated[Union[Said, WhisperHeard, RoomOpened, VoteHeard, ResultHeard, Revealed,
                        RoleDealt, Died, PhaseBegan, RoundBegan, GameEnded, Narrated,
                        ScoresShown, Notice],
                  Field(discriminator="kind")]
HEARD: TypeAdapter[Heard] = TypeAdapter(Heard)

