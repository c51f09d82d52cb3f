"""The game log's one schema: a typed record per ``kind``.

Every line of a game log is one record: ``t`` (seconds since the log began, on the host's
clock) and ``kind``, then the kind's own fields. ``GameLog.write`` checks each record
against its model here, so a log cannot drift from this schema; ``read_log`` gives the
records back typed. A record also reads like the dict it was written from
(``record["kind"]``, ``record.get("reason")``), for the readers that only pick fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    t: float
    kind: str

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, None)
        return default if value is None else value


# ---------------------------------------------------------------- the game


class Started(Record):
    """The host's agents are up; the game begins."""

    kind: Literal["started"]
    agents: int
    seconds: float
    ruleset: str
    seed: int
    players: int
    remote: int
    lobby: str
    wall: float  # time.time() at that moment
    # the game's configuration and its AI seats (``maw.hosting.game.config_record``,
    # ``seat_record``): what ``maw game --replay-llm`` plays again
    config: dict[str, Any] = {}
    seats: list[dict[str, Any]] = []


class Join(Record):
    kind: Literal["join"]
    player: str
    jid: str


class Round(Record):
    """A round is dealt: every player's role, and the rules (the options in which they
    differ from the named ruleset: ``ruleset(name, **options)`` rebuilds them)."""

    kind: Literal["round"]
    round: int
    roles: dict[str, str]
    ruleset: str
    options: dict[str, str] = {}


class Action(Record):
    """An action the engine accepted (its class name and fields)."""

    kind: Literal["action"]
    round: int
    action: str
    data: dict[str, Any]


class Event(Record):
    """An engine event (its class name and fields, its audience among them)."""

    kind: Literal["event"]
    round: int
    event: str
    data: dict[str, Any]


class Outcome(Record):
    kind: Literal["outcome"]
    round: int
    winner: str | None
    reason: str
    day: int
    points: dict[str, int]
    roles: dict[str, str]
    absent: list[str]


class Narration(Record):
    """The narrating moderator's line (``maw.llm.narrator``), sent to every player and the
    Village: the round's events it tells (their numbers among the round's ``event``
    records, from 0: ``maw audit`` checks that each is public), whose words it is
    (``model``, or ``template`` when the model failed or its line did not pass the gate,
    and why), and its model's calls."""

    kind: Literal["narration"]
    round: int
    day: int
    text: str
    by: Literal["model", "template"]
    events: list[int]
    summary: bool = False
    # (by template: what the model's line lacked, or its error; by model: "cut to the news"
    # when its sentences that strayed from the news were left out)
    why: str = ""
    refused: str = ""  # (... and the model's whole line)
    model: str = ""
    seconds: float = 0.0
    tokens: int = 0


class Timer(Record):
    """The GameMaster opened a phase with this many seconds on its clock."""

    kind: Literal["timer"]
    round: int
    day: int
    phase: str
    seconds: float


class State(Record):
    """An agent's FSM entered a state."""

    kind: Literal["state"]
    state: str
    round: int
    agent: str | None = None  # the GameMaster
    player: str | None = None  # a player


# ---------------------------------------------------------------- messages


class Msg(Record):
    """A message an agent of this process sent (``maw.agents.base.logged_body``: secrets
    left out, the options offered as ``compact_options``, in older logs as
    sent); one record for a message sent alike to several recipients (``to``: their list,
    in the order sent, :func:`recipients`)."""

    kind: Literal["msg"]
    sender: str
    to: str | list[str]
    type: str
    body: dict[str, Any]


def recipients(record: Any) -> list[str]:
    """Whom a ``msg`` record (a dict read from a log, or a :class:`Msg`) was sent to."""
    to = record["to"]
    return [to] if isinstance(to, str) else list(to)


class Input(Record):
    """A player asked its interface for an action: what it may do (each action with its
    targets or room, ``maw.protocol.convert.compact_options``; a list of options in logs
    before 2026-11-25). What it had heard since its last question is in the records of the
    messages sent to it (``heard``: a copy of it, in older logs, which made
    this record N² in an N-player game). The ``get_input`` message's own record leaves
    both out."""

    kind: Literal["input"]
    player: str | None
    heard: list[dict[str, Any]] = []
    # (left out: the same as at the player's previous question; a 75-player game's
    # players are asked again at every vote cast, and each vote offers 74 targets)
    options: dict[str, list[str]] | list[dict[str, Any]] | None = None


class Turn(Record):
    """An interface answered: after a deliberate wait, in this many seconds in all."""

    kind: Literal["turn"]
    player: str
    wait: float
    seconds: float


class Typed(Record):
    """A person typed an action."""

    kind: Literal["typed"]
    text: str
    action: str


class Dropped(Record):
    """A question a model no longer needs to answer (cancelled, or superseded)."""

    kind: Literal["dropped"]
    player: str
    why: str


class Llm(Record):
    """One decision of an LLM player: its calls (a repair is a second), what they cost,
    what the model answered and how it ended (legal, repaired, fallback, cancelled, cut
    short, unfinished)."""

    kind: Literal["llm"]
    player: str
    calls: int
    tokens: int
    seconds: float
    outcome: str
    spans: list[list[float]] = []
    # every call's whole exchange, in the order of ``spans``: the messages sent to the
    # model (rules, role, the context kept, the question) and the text it answered
    prompts: list[list[dict[str, str]]] = []
    answers: list[str] = []
    # ... and the rest of each request: its key (``maw.llm.base.request_key``), the answer's
    # schema, max_tokens, temperature, and the tokens and seconds it cost
    requests: list[dict[str, Any]] = []
    day: int | None = None
    phase: str | None = None
    answer: str | None = None
    error: str | None = None
    repair_answer: str | None = None
    repair_error: str | None = None
    exception: str | None = None
    # what its server said, where the call failed because it cannot answer (BackendError)
    backend_error: str | None = None
    # which fallback decided (rule, random, listen: a roster's ``fallback``) and what
    fallback_decider: str | None = None
    fallback_action: str | None = None
    # the retries of its calls (``maw.llm.retry``): why each try failed, and the wait
    retries: list[dict[str, Any]] | None = None
    # the beliefs the model stated (``"suspicion"``, normalised), before they were weighed
    # into the rule layer's (the ``beliefs`` record), or why its statement was not read
    # (the statement is lost, not the action)
    stated: dict[str, float] | None = None
    beliefs_error: str | None = None
    # the hybrid agent (maw.llm.hybrid): the facts it read from the talk (speaker, kind,
    # target, value) and by whom ("model" or "grammar"), the action or intent its rule
    # layer chose, the sentences the model wrote and what the consistency check caught
    decider: str | None = None
    action: str | None = None
    facts: list[list[str]] | None = None
    facts_by: str | None = None
    analysis_answer: str | None = None
    analysis_error: str | None = None
    intent: str | None = None
    sentences: list[str] | None = None
    caught: list[str] | None = None
    # the gate (maw.policies.gate): why the line(s) it refused could not be said, when the
    # rule layer's line was said instead; ``cut``: the line said was cut back to its last
    # full sentence
    gated: list[str] | None = None
    cut: bool = False


class Beliefs(Record):
    """A player's probability that each other player is a werewolf, as its decider last
    said in one phase (``Decider.beliefs``)."""

    kind: Literal["beliefs"]
    player: str
    round: int
    day: int
    phase: str
    beliefs: dict[str, float]


class Remembered(Record):
    """A player of a game set with ``--set-memory`` learnt from a finished round what
    each other player's role claims were worth (``maw.policies.memory``)."""

    kind: Literal["remembered"]
    player: str
    round: int  # the round it learnt from
    games: int  # the rounds learnt from so far
    claims: int  # the claims it has weighed so far (claimant and role, by game)


# ---------------------------------------------------------------- what went wrong


class Refused(Record):
    """A message an agent refused or did not understand, and why."""

    kind: Literal["refused"]
    sender: str
    reason: str


class Forged(Record):
    """A message that claimed an authority's address without its proof: dropped."""

    kind: Literal["forged"]
    agent: str
    sender: str
    type: str


class Stale(Record):
    """A message tagged with another game than its recipient's (a worker's kept logins,
    ``maw.hosting.logins``: the game before's, sent as it ended): dropped."""

    kind: Literal["stale"]
    agent: str
    sender: str
    type: str
    game: str


class Hall(Record):
    """A server's Hall (``maw.server.hall``, in the server's own log): a request, whom it
    came from and whether it was done (``reason``: what changed, or why not)."""

    kind: Literal["hall"]
    sender: str
    type: str
    ok: bool
    reason: str = ""


class Throttled(Record):
    """A sender went over its rate (``maw.agents.guards.RATE``): its messages are dropped;
    written at most once a second, with how many so far."""

    kind: Literal["throttled"]
    agent: str
    sender: str
    dropped: int


class HandlerError(Record):
    """Handling a message raised: logged, answered with refuse, and survived."""

    kind: Literal["handler_error"]
    agent: str
    behaviour: str
    type: str | None
    sender: str | None
    error: str


class DeciderError(Record):
    kind: Literal["decider_error"]
    player: str
    error: str


class ModelDown(Record):
    """A player's model could not answer (its server gone, hung, or refusing): told once
    a game, as its fallback plays its turns until the model answers again."""

    kind: Literal["model_down"]
    player: str
    error: str
    # found in a phase where everyone acts (else its time tells that this player acts
    # then: the transcript shows it only with the roles)
    public: bool = False
    # not failed, but waiting: a call sent ``waiting`` seconds ago has had no answer yet
    # (a hung server; ``maw.llm.retry.HANG_NOTICE``): the seat waits for it, until the
    # call's timeout or the phase's end
    waiting: float | None = None


class Bounced(Record):
    """The server bounced a message: its recipient is offline or gone."""

    kind: Literal["bounced"]
    sender: str
    condition: str


class Gone(Record):
    """A player's client is gone: the server bounced a message to it (``bounced``), or
    said it went offline (``offline``: presence unavailable); or the player let phases on
    end run out without a move (``idle``: ``maw game --idle-phases``)."""

    kind: Literal["gone"]
    player: str
    jid: str
    why: str | None = None


class Substituted(Record):
    """A stand-in decider took over a gone player's seat (``--substitute``)."""

    kind: Literal["substituted"]
    player: str
    decider: str
    round: int
    day: int
    phase: str


class Returned(Record):
    """A substituted player acted again: its seat is its own again."""

    kind: Literal["returned"]
    player: str
    round: int


class ServerLost(Record):
    """An agent's connection to the XMPP server went away during the game."""

    kind: Literal["server_lost"]
    agent: str


class Reconnected(Record):
    """An agent is connected again after its server went away (``maw.hosting.connect.
    reconnect``)."""

    kind: Literal["reconnected"]
    agent: str
    attempt: int


class Rejoined(Record):
    """A player that had lost its connection is back in its seat."""

    kind: Literal["rejoined"]
    player: str
    jid: str


class ConnectRetry(Record):
    kind: Literal["connect_retry"]
    agent: str
    attempt: int
    error: str


class Multicast(Record):
    """The server's multicast service the host's GameMaster and rooms send through to
    the players of other processes (XEP-0033), ``None``: the server has none (a message
    to many goes to each)."""

    kind: Literal["multicast"]
    service: str | None


class ReplayHold(Record):
    """A replay's timer stopped waiting for the recorded game's moves of a phase before
    they all came (``maw.records.model_calls.Recording.hold``): the replay may stray from here."""

    kind: Literal["replay_hold"]
    phase: list
    step: str
    moves: int  # the recorded game's moves of the phase by then
    taken: int  # the replay's
    owed: list[int]  # the recorded answers asked for and not yet given
    unseen: list[list[str]] = []  # the recorded game's steps by then the replay lacks
    now: list | None  # the replay's phase as its log said
    seconds: float  # waited


class AgentError(Record):
    """An agent's state machine ended with an exception."""

    kind: Literal["agent_error"]
    agent: str
    error: str


class Aborted(Record):
    """The host ended the game, nobody winning (too many AIWolf agents in error)."""

    kind: Literal["aborted"]
    why: str


RECORDS: tuple[type[Record], ...] = (
    Started, Join, Round, Action, Event, Outcome, Narration, Timer, State, Msg, Input, Turn,
    Typed, Dropped, Llm, Beliefs, Remembered, Refused, Forged, Stale, Hall, Throttled,
    HandlerError, DeciderError, ModelDown, Bounced, Gone, Substituted, Returned, Reconnected,
    Rejoined, ServerLost, ConnectRetry, Multicast, ReplayHold, AgentError, Aborted,
)
BY_KIND: dict[str, type[Record]] = {
    cls.model_fields["kind"].annotation.__args__[0]: cls  # type: ignore[union-attr]
    for cls in RECORDS}
AnyRecord: Any = Annotated[Union[RECORDS], Field(discriminator="kind")]
READER: TypeAdapter[Record] = TypeAdapter(AnyRecord)
