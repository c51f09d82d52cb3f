"""Every message body of MAW (design document §3), one pydantic model each.

Each model has a ``type`` literal (the discriminator), ``extra="forbid"``, and a FIPA
performative (``PERFORMATIVE``) that the codec writes into the SPADE metadata.
"""

from __future__ import annotations

import re
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from typing import Annotated, Any, ClassVar, Literal, Union, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model, field_validator

from maw.engine import events
from maw.engine.actions import ACTIONS, ActionSpec, when_registered
from maw.errors import ConfigError
from maw.protocol.heard import Heard, View

# a player's name, the one rule of the wire, the rosters, the command line and the screen
NAME_PATTERN = r"^[A-Za-z0-9_\-]{1,20}$"
NAME_RULE = "1 to 20 letters (A-Z), digits, _ or -"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]


def check_name(text: str) -> str:
    """``text`` if it can be a player's name; else ``ConfigError`` saying the rule."""
    if not re.fullmatch(NAME_PATTERN, text):
        raise ConfigError(f"bad name {text!r}: use {NAME_RULE}")
    return text

Text = Annotated[str, Field(min_length=1, max_length=2000)]
# a bare XMPP address, validated before anything uses it (an address that is not a JID
# once ended the GameMaster's Referee: spade raised while building the answer to it)
Jid = Annotated[str, Field(min_length=3, max_length=200,
                           pattern=r"^[A-Za-z0-9._\-]+@[A-Za-z0-9.\-]+$")]
RoomName = Literal["Village", "Hideout"]
Key = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]  # 32 bytes, hex


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    PERFORMATIVE: ClassVar[str] = "inform"
    type: str  # each body's own literal: the discriminator


# ------------------------------------------------------------------ lobby


class JoinLobby(Body):
    """Player -> GameMaster: let me into the lobby under this name."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["join_lobby"] = "join_lobby"
    player_name: Name


class Joined(Body):
    """GameMaster -> Player (agree): you are in. Keep ``token`` secret: it proves who you
    are. ``key`` proves, from now on, that what claims to come from the GameMaster or a
    room does (``maw.protocol.proof``); only this player and the host hold it."""

    PERFORMATIVE: ClassVar[str] = "agree"
    type: Literal["joined"] = "joined"
    player_name: Name
    token: str
    joined: int
    expected: int
    rooms: dict[RoomName, Jid] = {}  # room JIDs, for a player that did not know them
    key: Key | None = None


class StartGame(Body):
    """GameMaster -> Players: a round begins."""

    type: Literal["start_game"] = "start_game"
    total_players: int
    players: list[str]
    round: int = 1
    rounds: int = 1
    ruleset: str = "maw"


class AssignRole(Body):
    """GameMaster -> one Player: your role (and, for a werewolf, the pack)."""

    type: Literal["assign_role"] = "assign_role"
    role: str
    pack: list[str] = []
    round: int = 1


# ------------------------------------------------------------------ the game


class Option(Body):
    """One legal action offered to a player (``action``: a name of the engine's table of
    actions); chat options carry ``room`` and no text."""

    type: Literal["option"] = "option"
    action: str
    target: str | None = None
    room: str | None = None

    @field_validator("action")
    @classmethod
    def _known(cls, action: str) -> str:
        if action not in ACTIONS:
            raise ValueError(f"{action!r} is not an action ({', '.join(ACTIONS)})")
        return action


class PhaseChange(Body):
    """GameMaster -> Player: the phase (or this player's options) changed.

    ``view`` is the player's own ``maw.engine.view``; ``options`` are its legal actions now;
    ``seconds`` is the time left in the phase.
    """

    type: Literal["phase_change"] = "phase_change"
    stamp: str = ""  # names this phase; a "listen" must repeat it to count
    round: int = 1
    day: int
    new_phase: str
    vote_round: int = 0
    room: str | None = None
    seconds: float
    view: View
    options: list[Option]


class GetInput(Body):
    """Player -> its interface: choose (a name, or an action from ``options``); ``heard``
    is what the player heard since it last asked (``maw.protocol.heard``)."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["get_input"] = "get_input"
    purpose: Literal["name", "action"] = "action"
    view: View | None = None
    heard: list[Heard] = []
    options: list[Option] = []
    seconds: float | None = None
    completions: dict[str, Any] | None = None  # design doc §3.2.2: a chat completion
    round: int = 0  # a new round means a new game: the interface forgets the last one


class News(Body):
    """Player -> a person's interface: what the player just heard, as it arrives (a model
    gets it with the next get_input instead; a person must see it while typing)."""

    type: Literal["news"] = "news"
    heard: list[Heard]
    role: str | None = None  # the player's own role and pack, its latest view and options
    pack: list[str] = []
    view: View | None = None
    options: list[Option] = []
    seconds: float | None = None  # left in the current phase


class Cancel(Body):
    """Player -> its interface: the question of that thread is moot (its phase ended): do
    not spend a model call on it."""

    PERFORMATIVE: ClassVar[str] = "cancel"
    type: Literal["cancel"] = "cancel"


class NameChoice(Body):
    """Interface -> Player: the name to join under."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["name"] = "name"
    name: Name


class PlayerActionBase(Body):
    """A player's action: the interface leaves ``player`` and ``token`` empty, the
    PlayerAgent fills them in before forwarding (the token proves who sent it)."""

    PERFORMATIVE: ClassVar[str] = "request"
    player: str | None = None
    token: str | None = None
    # the phase_change stamp it answers: an action chosen for a phase that is over (a
    # vote sent as the day ended, arriving in the next round) is refused, not applied
    stamp: str = ""


class Targeted(PlayerActionBase):
    """An action that names a player (``vote``, ``attack``, ``whisper``...)."""

    type: str
    target: Name


class Spoken(PlayerActionBase):
    """An action that carries words (``chat``, ``whisper``)."""

    type: str
    message: Text


class InRoom(PlayerActionBase):
    """An action taken in a room (``chat``, ``over``): ``room``, or when it is unset the
    room it came through (a chat goes Player -> ChatRoom, which relays it to the
    GameMaster; a whisper goes to the GameMaster, which sends it to its target alone)."""

    type: str
    room: RoomName | None = None


def _model(spec: ActionSpec) -> Any:
    """The wire model of an action of the engine's table, the one place it is written:
    its fields are the bases its traits call for (a target, words, a room)."""
    bases = tuple(base for base, has in ((Targeted, spec.target), (Spoken, spec.text),
                                         (InRoom, spec.room)) if has) or (PlayerActionBase,)
    model = create_model(spec.cls.__name__, __base__=bases, __module__=__name__,
                         type=(Literal[spec.name], spec.name))  # type: ignore[arg-type]
    model.__doc__ = f"{spec.usage}: {spec.help}."
    return model


# every action of the engine's table has its wire model (and "listen", below)
ACTION_TYPES: dict[str, Any] = {s.name: _model(s) for s in ACTIONS.values()}
TARGETED: dict[str, type[Targeted]] = {
    n: c for n, c in ACTION_TYPES.items() if issubclass(c, Targeted)}
Chat = ACTION_TYPES["chat"]
Unvote = ACTION_TYPES["unvote"]
Over = ACTION_TYPES["over"]
Whisper = ACTION_TYPES["whisper"]
Vote = ACTION_TYPES["vote"]
Attack = ACTION_TYPES["attack"]
Divine = ACTION_TYPES["divine"]
Guard = ACTION_TYPES["guard"]


class Listen(PlayerActionBase):
    """Nothing to do now (Algorithm 1's "listen"); tells the GameMaster this player is idle.
    ``ready``: a person's ``/ready`` (or ``/pass``): done for this phase until it acts
    again, whatever it hears meanwhile; in a game with people the day ends once every
    living player has voted and is done (an AI player's listen lasts until its next news)."""

    PERFORMATIVE: ClassVar[str] = "inform"
    type: Literal["listen"] = "listen"
    ready: bool = False


ACTION_TYPES["listen"] = Listen
PlayerAction = Any  # one of ACTION_TYPES' models


class PrivateLine(Body):
    """GameMaster -> one Player: a line whispered to it (``whisper=on``)."""

    type: Literal["private_line"] = "private_line"
    day: int
    speaker: Name
    text: Text


def _told(event: type, name: str, doc: str) -> Any:
    """The wire model of an engine event told as it is: the event's own fields (but its
    ``audience``, which says who is sent it), written once, in the engine."""
    hints = get_type_hints(event)
    fields: dict[str, Any] = {
        f.name: (hints[f.name], ... if f.default is MISSING else f.default)
        for f in dataclass_fields(event) if f.name != "audience"}
    model = create_model(event.__name__, __base__=Body, __module__=__name__,
                         type=(Literal[name], name), **fields)  # type: ignore[arg-type]
    model.__doc__ = doc
    return model


VoteCast = _told(events.VoteCast, "vote_cast", "GameMaster -> those who may see it: a vote "
                 "was cast (or withdrawn: target None).")


class VoteResult(Body):
    """GameMaster -> Players and rooms: the outcome of a vote (design doc §3.6.2)."""

    type: Literal["vote_result"] = "vote_result"
    day: int
    target: str | None
    status: Literal["executed", "murdered", "no_execution", "no_murder", "revote", "spared",
                    "shot", "ran", "withdrew", "elected", "badge", "exploded", "order"]
    votes: list[tuple[str, str]] = []
    tied: list[str] = []
    reason: str = ""
    by: str | None = None  # who shot (a Hunter, werewolf-12)
    order: list[str] = []  # today's speaking order (werewolf-12)


class Kill(Body):
    """GameMaster -> one Player: you are dead."""

    type: Literal["kill"] = "kill"
    day: int
    cause: Literal["executed", "murdered", "shot", "exploded"]


class Reveal(Body):
    """GameMaster -> one Player: a private result (divination, medium reading, a role)."""

    type: Literal["reveal"] = "reveal"
    day: int
    # "divine", "medium", "role", "blocked", "guard", or a registered night action's name
    kind: Annotated[str, Field(pattern=r"^[a-z_]{1,30}$")]
    target: str
    value: str


class EndGame(Body):
    """GameMaster -> Players and rooms: the round is over."""

    type: Literal["end_game"] = "end_game"
    round: int = 1
    winning_team: str | None
    reason: str
    roles: dict[str, str]
    points: dict[str, int]


class Narration(Body):
    """GameMaster -> Players and the Village: the narrating moderator's line (a roster's
    ``[moderator]``) on what every player has just been told, or its ``summary`` of the
    game at the end. It was made from public events only (``maw.llm.narrator``)."""

    type: Literal["narration"] = "narration"
    round: int = 1
    day: int
    text: Annotated[str, Field(min_length=1, max_length=1000)]
    summary: bool = False


class Away(Body):
    """GameMaster -> one Player: it let ``phases`` phases in a row that awaited it in the
    open run out without a move of its own, so a stand-in (``decider``) plays its seat
    from the next phase on, until it moves again; ``back``: it has, and its seat is its
    own."""

    type: Literal["away"] = "away"
    round: int
    decider: str
    phases: int = 0
    back: bool = False


class ShowScore(Body):
    """Interface -> its Player -> GameMaster: the scores, please, at any time (the design
    document's "show score" service); the player fills in ``player`` and ``token``."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["show_score"] = "show_score"
    player: str | None = None
    token: str | None = None


class ScoreBoard(Body):
    """GameMaster -> the Player who asked (``show_score``): the points of the rounds over
    so far (``done`` of ``rounds``; every player at 0 before the first ends), in round
    ``round``. Points are scored when a round ends (design document §1.2.4)."""

    type: Literal["score_board"] = "score_board"
    round: int
    rounds: int
    done: int
    leaderboard: list[tuple[str, int]]


class Scores(Body):
    """GameMaster -> Players: the leaderboard after a round (``final`` after the last)."""

    type: Literal["scores"] = "scores"
    round: int
    rounds: int
    leaderboard: list[tuple[str, int]]
    final: bool = False


# ------------------------------------------------------------------ rooms


class OpenRoom(Body):
    """GameMaster -> ChatRoom: open for ``writers`` (may speak) and ``readers`` (may read)."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["open_room"] = "open_room"
    day: int
    round: int = 1
    writers: dict[Name, Jid]  # name -> bare JID
    readers: dict[Name, Jid]


class CloseRoom(Body):
    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["close_room"] = "close_room"


class AnnounceOpen(Body):
    """ChatRoom -> its members: the room is open (design doc §3.7.2)."""

    type: Literal["announce_open"] = "announce_open"
    room_name: str
    players: list[str]
    day: int


class ChatLine(Body):
    """One line of a room's log: a player's chat, or the GameMaster's announcement of a
    result (``announcement``: the ``vote_result``, ``end_game`` or ``scores`` it sent the
    room; ``speaker`` "GM"), so the room's log and archive hold the whole game."""

    type: Literal["line"] = "line"
    index: int
    speaker: str
    text: str
    day: int
    announcement: dict[str, Any] | None = None


class GetNewMessages(Body):
    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["get_new_messages"] = "get_new_messages"
    since: int = 0


class NewMessages(Body):
    """ChatRoom -> a member: the messages from index ``since`` on."""

    type: Literal["new_messages"] = "new_messages"
    room_name: str
    messages: list[ChatLine]
    next: int


class ChatCheck(Body):
    """ChatRoom -> GameMaster: may this chat be posted? (the engine decides)"""

    PERFORMATIVE: ClassVar[str] = "query-if"
    type: Literal["chat_check"] = "chat_check"
    room: RoomName
    player: Name
    token: str | None
    message: Text
    ref: str
    stamp: str = ""


class ChatVerdict(Body):
    PERFORMATIVE: ClassVar[str] = "inform"
    type: Literal["chat_verdict"] = "chat_verdict"
    ref: str
    ok: bool
    reason: str = ""
    # where the line changed the phase (the votes open, the phase ends): the room answers
    # agree under this thread once every reader has the line, so that it comes before
    # the news of what it changed ("" : no answer wanted)
    ack: str = ""


# ------------------------------------------------------------------ a server's hall


class TableInfo(BaseModel):
    """One game of a server's hall (``maw server``, ``maw.server.tables``): its shape,
    who sits and who is ready, its state, and, once it runs, its game's lobby."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: int
    ruleset: str
    players: int
    fill: str  # the AI players who take the seats nobody took
    people: list[Name] = []
    ready: list[Name] = []
    state: Literal["open", "running", "finished", "failed", "closed"] = "open"
    starts_in: float = 0.0  # seconds until its lobby timer runs out (open)
    lobby: str = ""  # its game's lobby name (running)
    result: str = ""  # who won, or why it failed or closed
    # seats for AIWolf agents, who connect to aiwolf_url (maw aiwolf-client --game ID),
    # and those seated so far
    aiwolf: int = 0
    aiwolf_url: str = ""
    agents: list[str] = []


class ListGames(Body):
    """Client -> Hall: the games, please (and their changes, from now on)."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["list_games"] = "list_games"


class Games(Body):
    """Hall -> Client: the games open, running and lately over; sent at each change to
    every client that asked since it came online; ``note`` says what just changed."""

    type: Literal["games"] = "games"
    tables: list[TableInfo]
    note: str = ""


class CreateGame(Body):
    """Client -> Hall: open a new game of this shape; the creator sits at it
    (``player_name``) unless it only sets the table."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["create_game"] = "create_game"
    ruleset: str = "maw"
    players: int = 6
    fill: str = "rule"
    day_seconds: float = 60.0
    night_seconds: float = 30.0
    wait_seconds: float = 120.0
    player_name: Name | None = None
    aiwolf: int = Field(0, ge=0, le=15)  # seats for AIWolf agents (an aiwolf-* ruleset)


class JoinGame(Body):
    """Client -> Hall: seat me at game ``game`` under this name."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["join_game"] = "join_game"
    game: int
    player_name: Name


class LeaveGame(Body):
    """Client -> Hall: free my seat at game ``game`` (before it starts)."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["leave_game"] = "leave_game"
    game: int


class TableReady(Body):
    """Client -> Hall: I am ready (or not) for game ``game`` to start."""

    PERFORMATIVE: ClassVar[str] = "request"
    type: Literal["table_ready"] = "table_ready"
    game: int
    ready: bool = True


class GameStarts(Body):
    """Hall -> each person seated: the game starts; join its ``lobby`` as ``player_name``
    (``join_lobby``), as a player of ``maw game --humans`` does."""

    type: Literal["game_starts"] = "game_starts"
    game: int
    lobby: str
    player_name: Name


# ------------------------------------------------------------------ replies


class Agree(Body):
    PERFORMATIVE: ClassVar[str] = "agree"
    type: Literal["agree"] = "agree"
    ref: str = ""
    options: list[Option] | None = None


class Refuse(Body):
    PERFORMATIVE: ClassVar[str] = "refuse"
    type: Literal["refuse"] = "refuse"
    ref: str = ""
    reason: str


class NotUnderstood(Body):
    PERFORMATIVE: ClassVar[str] = "not-understood"
    type: Literal["not_understood"] = "not_understood"
    reason: str


def _union() -> tuple[Any, TypeAdapter]:
    bodies: tuple[type[Body], ...] = (
        JoinLobby, Joined, StartGame, AssignRole, PhaseChange, GetInput, News, Cancel,
        NameChoice, *ACTION_TYPES.values(), PrivateLine, VoteCast, VoteResult, Kill, Reveal,
        EndGame, Narration, Away, ShowScore, ScoreBoard, Scores, OpenRoom, CloseRoom, AnnounceOpen,
        GetNewMessages, NewMessages, ChatCheck, ChatVerdict, ListGames, Games, CreateGame, JoinGame,
        LeaveGame, TableReady, GameStarts, Agree, Refuse, NotUnderstood,
    )
    union: Any = Annotated[Union[bodies], Field(discriminator="type")]
    return union, TypeAdapter(union)


# the one decoder of every body (``maw.protocol.codec``); an action added to the engine's
# table later gets its model here at once (``_added``), and the decoder knows it
AnyBody, ADAPTER = _union()


def _added(spec: ActionSpec) -> None:
    """A new action of the engine's table (a role's night action): its wire model."""
    global AnyBody, ADAPTER
    if spec.name in ACTION_TYPES:
        return
    if spec.text or spec.room:
        raise ConfigError(f"the action {spec.name!r} carries text or a room: only actions "
                          "that name a target, or nobody, may be added to the table after "
                          "MAW's own")
    model = ACTION_TYPES[spec.name] = _model(spec)
    if issubclass(model, Targeted):
        TARGETED[spec.name] = model
    AnyBody, ADAPTER = _union()


when_registered(_added)
for _spec in ACTIONS.values():  # (those registered before this module was imported)
    _added(_spec)
