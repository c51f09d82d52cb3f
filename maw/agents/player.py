"""PlayerAgent: one seat at the table, human or AI alike (design document §3.2).

FSM: GetName -> JoinLobby -> Lobby -> Awake | Asleep | Dead (-> Lobby for a new round),
its states at the end of this module. Beside it the News behaviour takes, in the order it
came, everything the GameMaster and the rooms tell the player (the role, phases, votes,
results, deaths, the end) and wakes the FSM. While
awake, whenever something new arrived, the player asks its ``player_interface``
(a UserInterfaceAgent or ModelInterfaceAgent) for input with ``get_input`` and forwards
the ``player_action`` it gets: chat to the open room, everything else to the GameMaster,
always with its secret token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Callable

from spade.behaviour import CyclicBehaviour, FSMBehaviour, OneShotBehaviour, State
from spade.message import Message

from maw.agents.base import GameLog, MawAgent
from maw.agents.guards import Guarded
from maw.agents.knowledge import Knowledge
from maw.agents.toolkit import Awaiting
from maw.agents.transport import bare, of_types, receive
from maw.errors import LobbyError
from maw.protocol import heard as h
from maw.protocol import messages as m
from maw.protocol import render
from maw.protocol.convert import compact_options
from maw.protocol.messages import View


def fsm_types() -> tuple[str, ...]:
    """What the FSM takes: the lobby's answers, the interface's choices (every action: read
    when the agent starts, the table may grow), the answers to its actions."""
    return ("joined", "refuse", "agree", "start_game", "name", *m.ACTION_TYPES,
            "not_understood")


OBSERVED = ("announce_open", "new_messages", "vote_cast", "vote_result", "reveal",
            "private_line")
# (and the narrating moderator's lines: without "narration" here, every player refused
# them as not understood, and a person never saw one; and the scores on request)
NEWS_TYPES = ("assign_role", "kill", "phase_change", "end_game", "scores", "narration",
              "away", "score_board", *OBSERVED)


GM_GRACE = 30.0  # seconds a GameMaster that bounces may take to come back (reconnecting)


class PlayerAgent(MawAgent, Knowledge):
    def __init__(self, jid: str, password: str, player_interface: str, gamemaster: str,
                 rooms: dict[str, str], game_log: GameLog, port: int = 5222,
                 reply_seconds: float = 30.0, join_seconds: float = 60.0,
                 push_news: bool = False, rename: bool = True,
                 completion: Callable[[View, list[str]], dict] | None = None) -> None:
        super().__init__(jid, password, port=port)
        # a model's seat: the chat completion each question carries (design document
        # §3.2.2), made from its view and the lines it heard (``maw.llm.prompts``)
        self.completion = completion
        self.player_interface = player_interface
        self.gamemaster = gamemaster.lower()
        self.rooms = {room: jid.lower() for room, jid in rooms.items()}  # room name -> JID
        self.game_log = game_log
        self.reply_seconds = reply_seconds
        self.join_seconds = join_seconds  # how long to keep knocking at a lobby not up yet
        # a taken name: ask the interface for another (a person), or give up (an AI
        # player's interface would give the same name again, forever)
        self.rename = rename
        Knowledge.__init__(self, push_news)
        self.stash: list = []  # FSM messages an earlier state received for a later one
        self.token: str | None = None
        self.logged_options: dict[str, list[str]] | None = None  # (in its last input record)
        self.questions: Awaiting[str] = Awaiting()  # asked, not yet answered
        self.gm_gone = False
        self.welcomed = 0.0  # when the GameMaster last said "joined" (time.monotonic())
        self.pulled: dict[str, int] = {}  # room -> the index it last told the room it read

    def completed(self, heard: list) -> dict | None:
        """The chat completion of a question that brings ``heard`` (a model's seat)."""
        if self.completion is None or self.view is None:
            return None
        return self.completion(self.view, [render.heard(r) for r in heard
                                           if not (isinstance(r, h.Notice) and r.lobby)])

    async def pull(self, behaviour) -> None:
        """Tell each room whose talk it heard more of what it has read, asking for any
        line it missed (``get_new_messages``; the answer is news like a push): the room
        purges the lines every reader has read (``maw.agents.chatroom``)."""
        for room, seen in list(self.seen.items()):
            if room in self.rooms and self.pulled.get(room) != seen:
                self.pulled[room] = seen
                await self.send_body(behaviour, self.rooms[room],
                                     m.GetNewMessages(since=seen))

    async def rejoin(self, within: float) -> bool:
        """After a reconnection: knock at the GameMaster again with the same name (it
        gives the same seat back to the same address, with the current options) until it
        answers, for ``within`` seconds. True once it has."""
        if self.token is None:
            return True  # not seated yet: the lobby's own knocking goes on
        since = time.monotonic()
        while time.monotonic() < since + within:
            knocked = time.monotonic()
            self.add_behaviour(_Knock(m.JoinLobby(player_name=self.seat_name)))
            await asyncio.sleep(2.0)
            if self.welcomed > knocked:
                return True
        return False

    def _message_received(self, msg):
        """Notes when the GameMaster last said ``joined`` (the answer to a rejoin's knock
        goes to no behaviour: whoever asked first is gone)."""
        if str(msg["from"].bare).lower() == self.gamemaster and '"joined"' in msg["body"]:
            with contextlib.suppress(ValueError, AttributeError):
                if json.loads(msg["body"]).get("type") == "joined":
                    self.welcomed = time.monotonic()
        return super()._message_received(msg)

    def _asked_to_share_presence(self, jid: str) -> None:
        if bare(jid) == self.gamemaster:
            self.presence.approve_subscription(bare(jid))

    def bounced(self, jid: str) -> None:
        """The server bounced a message to the GameMaster: its client is offline. It may
        be reconnecting (its server restarted): it is gone if it says nothing more for
        ``GM_GRACE`` seconds."""
        if jid == self.gamemaster and self.token is not None and not self.gm_gone:
            with contextlib.suppress(RuntimeError):  # (no loop: the agent is stopping)
                asyncio.get_running_loop().call_later(GM_GRACE, self._gm_silent,
                                                      time.monotonic())

    def _gm_silent(self, since: float) -> None:
        if self.gm_gone or self.final or self.last_heard.get(self.gamemaster, 0.0) > since:
            return
        # the GameMaster's client is gone after we joined: nothing more will come
        self.gm_gone = self.round_over = self.final = True
        self.hear(h.Notice(text="The GameMaster is gone: the game is over."))
        self.poke()

    async def setup(self) -> None:
        fsm = FSMBehaviour()
        for name, st, initial in [("GetName", GetNameState(), True),
                                  ("JoinLobby", JoinLobbyState(), False),
                                  ("Lobby", LobbyState(), False), ("Awake", AwakeState(), False),
                                  ("Asleep", AsleepState(), False), ("Dead", DeadState(), False)]:
            fsm.add_state(name, st, initial=initial)
        for src, dests in {"GetName": ["JoinLobby"], "JoinLobby": ["GetName", "Lobby"],
                           "Lobby": ["Awake", "Asleep", "Dead", "Lobby"],
                           "Awake": ["Asleep", "Dead", "Lobby", "Awake"],
                           "Asleep": ["Awake", "Dead", "Lobby", "Asleep"],
                           "Dead": ["Lobby", "Dead", "Awake", "Asleep"]}.items():
            for dest in dests:
                fsm.add_transition(src, dest)
        self.fsm = fsm
        # the GameMaster may follow this client's presence (and so learn at once that
        # it went offline, even on a server that bounces nothing); nobody else may
        self.presence.on_subscribe = self._asked_to_share_presence
        taken = fsm_types()
        self.add_behaviour(fsm, of_types(*taken))
        # one behaviour takes all the news, so that the player learns it in the order the
        # GameMaster sent it (a behaviour each once let "the game is over" overtake the
        # execution that ended it); start_game goes to the FSM as well
        self.add_behaviour(News(), of_types("start_game", *NEWS_TYPES))
        if self.push_news:
            self.add_behaviour(Relay())
        self.add_behaviour(ShowScore(), of_types("show_score"))
        self.add_catch_all((*taken, *NEWS_TYPES, "show_score"))

# ---------------------------------------------------------------- what the player hears


class News(Guarded):
    """Everything the GameMaster and the rooms tell the player, taken in the order it
    came: the round's start, its role, phase changes, votes, results, deaths, the end."""

    receive_timeout = 30.0

    async def handle(self, msg: Message, body: m.Body) -> None:
        agent: PlayerAgent = self.agent
        # only the GameMaster and the rooms speak to a player this way (and, once it has
        # joined, only with their proof: they are its authorities)
        if bare(msg.sender) not in (agent.gamemaster, *agent.rooms.values()):
            return
        if agent.take(body):
            agent.poke()


class ShowScore(Guarded):
    """Its interface asks for the scores (a person's ``/score``), at any time: asked of
    the GameMaster with the player's token; the answer (``score_board``) is news."""

    async def handle(self, msg: Message, body: m.Body) -> None:
        agent: PlayerAgent = self.agent
        if bare(msg.sender) != agent.player_interface:
            return
        if agent.token is None:
            agent.hear(h.Notice(text="You are not in a game yet: no scores."))
            return
        await agent.send_body(self, agent.gamemaster, m.ShowScore(
            player=agent.seat_name, token=agent.token))


class Relay(CyclicBehaviour):
    """Pushes what the player hears to its interface as it arrives (``push_news``)."""

    async def run(self) -> None:
        agent: PlayerAgent = self.agent
        await agent.news_ready.wait()
        agent.news_ready.clear()
        heard, agent.news = agent.news, []
        if not heard:
            return
        try:
            await agent.send_body(self, agent.player_interface, m.News(
                heard=heard, role=agent.role, pack=agent.pack, view=agent.view,
                options=agent.options,
                seconds=round(agent.seconds_left(), 2) if agent.deadline.is_set else None))
        except Exception as exc:
            await agent.handler_failed(self, None, exc)


class _Knock(OneShotBehaviour):
    """Send one message to the GameMaster (a rejoin's knock; the answer goes to whoever
    waits for it, or nowhere)."""

    def __init__(self, body: m.Body) -> None:
        super().__init__()
        self.body = body

    async def run(self) -> None:
        p: PlayerAgent = self.agent
        await p.send_body(self, p.gamemaster, self.body)


# ---------------------------------------------------------------- the FSM's states
# (design document §3.2: GetName -> JoinLobby -> Lobby -> Awake | Asleep | Dead (-> Lobby
# for a new round). While awake, whenever something new arrived, the player asks its
# interface for input and forwards the action it gets. They live with the agent they
# drive: each needs the other, and a module apart made a circle of imports.)


class PlayerState(State):
    @property
    def player(self) -> PlayerAgent:
        return self.agent

    async def on_start(self) -> None:
        p = self.player
        p.game_log.write("state", player=p.seat_name, state=type(self).__name__[:-5],
                         round=p.round)

    async def ask(self, to: str, body: m.Body, types: tuple[str, ...],
                  timeout: float, abandon: Callable[[], bool] | None = None
                  ) -> m.Body | None:
        """Send ``body`` and wait for the answer in the same thread (others are dropped);
        give up at ``timeout``, or as soon as ``abandon()`` says the question is moot."""
        p = self.player
        thread = secrets.token_hex(6)
        p.questions.open(thread, bare(to), body.type)
        await p.send_body(self, to, body, thread)
        end = time.monotonic() + timeout
        try:
            while (left := end - time.monotonic()) > 0:
                seen = p.version  # (before looking: no change can be missed)
                if abandon is not None and abandon():
                    # spare a model the work: its answer would be refused as too late
                    await p.send_body(self, to, m.Cancel(), thread)
                    return None
                msg = await (receive(self, left) if abandon is None
                             else self.receive_or_change(seen, left))
                if msg is None:
                    continue
                # only the one asked may answer, in the thread of the question
                if msg.get_metadata("type") not in types or \
                        p.questions.answer(msg.thread, bare(msg.sender), msg) is None:
                    if msg.get_metadata("type") == "start_game":  # the Lobby state's
                        p.stash.append(msg)
                    continue
                reply = p.decode_or_none(msg)
                await p.flush_not_understood(self)
                if reply is not None:
                    return reply
                p.questions.open(thread, bare(to), body.type)  # (not an answer: still open)
            return None
        finally:
            p.questions.close(thread)

    async def receive_or_change(self, seen: int, timeout: float) -> Message | None:
        """The next message within ``timeout``, or ``None`` as soon as anything new came to
        the player (its version is no longer ``seen``). A question made moot by a new phase
        is withdrawn the moment the phase change arrives, not at the next poll: where a
        poll fell among the other players' messages was chance, and it decided what the
        player's next question had heard (a replay strayed from its recording by it)."""
        if (msg := await receive(self, 0)) is not None:  # (waiting already: no tasks)
            return msg
        if self.player.version != seen:
            return None
        get = asyncio.ensure_future(self.receive(timeout=timeout))
        change = asyncio.ensure_future(self.player.changes.wait(seen, timeout))
        try:
            await asyncio.wait((get, change), return_when=asyncio.FIRST_COMPLETED)
        finally:
            change.cancel()
            if not get.done():
                get.cancel()  # (a message that came meanwhile stays in the queue)
                await asyncio.wait((get,))
        return None if get.cancelled() else get.result()

    async def wait_change(self, seen: int, timeout: float = 5.0) -> None:
        await self.player.changes.wait(seen, timeout)


class GetNameState(PlayerState):
    async def run(self) -> None:
        p = self.player
        # why a name is asked again (it was taken), unless the news told it already: a
        # person heard "the name 'Ann' is taken" twice
        note = p.unread[-1:] if p.unread and not p.push_news else []
        reply = None
        for _ in range(720):  # ask again every 5 s (the interface may start later) up to 1 h
            reply = await self.ask(p.player_interface,
                                   m.GetInput(purpose="name", heard=note), ("name",),
                                   timeout=5)
            if isinstance(reply, m.NameChoice):
                break
        if not isinstance(reply, m.NameChoice):
            raise LobbyError("the player interface gave no name")
        p.seat_name = reply.name
        self.set_next_state("JoinLobby")


class JoinLobbyState(PlayerState):
    """Ask the GameMaster to join until it answers (it may not be up yet: keep asking for
    ``join_seconds``), or a name is refused."""

    async def run(self) -> None:
        p = self.player
        end = time.monotonic() + p.join_seconds
        while time.monotonic() < end:
            reply = await self.ask(p.gamemaster, m.JoinLobby(player_name=p.seat_name),
                                   ("joined", "refuse", "not_understood"),
                                   timeout=min(3.0, max(0.1, end - time.monotonic())))
            if isinstance(reply, m.Joined):
                p.token = reply.token
                if reply.rooms:
                    p.rooms = {room: bare(jid) for room, jid in reply.rooms.items()}
                if reply.key:
                    # from now on the GameMaster and the rooms are taken only with proof
                    key = bytes.fromhex(reply.key)
                    for jid in (p.gamemaster, *p.rooms.values()):
                        p.keys[jid] = key
                        p.authorities.add(jid)
                p.hear(h.Notice(text=f"Joined as {p.seat_name} ({reply.joined}/"
                                     f"{reply.expected}).", lobby=True))
                self.set_next_state("Lobby")
                return
            if isinstance(reply, m.Refuse):
                p.hear(h.Notice(text=reply.reason))
                if "taken" in reply.reason and p.rename:  # a person may choose another
                    self.set_next_state("GetName")
                    return
                raise LobbyError(f"could not join: {reply.reason}")
        raise LobbyError(f"the GameMaster {p.gamemaster} did not answer within "
                           f"{p.join_seconds:.0f} s: is the lobby up?")


class LobbyState(PlayerState):
    """Wait for the next round to start (or stop after the last)."""

    async def run(self) -> None:
        p = self.player
        if p.final:
            self.next_state = None  # SPADE keeps an earlier choice: end the FSM here
            return
        while True:
            # a start_game that came while the last question of a round was still open
            msg = p.stash.pop(0) if p.stash else await self.receive(timeout=1)
            if p.final:  # the GameMaster went away while we waited
                self.next_state = None
                return
            if msg is None or bare(msg.sender) != p.gamemaster:
                continue
            body = p.decode_or_none(msg)
            if isinstance(body, m.StartGame):
                p.begin_round(body.round)  # (the News behaviour notes it, in its order)
                break
        # wait for the first phase (the PhaseChange behaviour fills the options)
        while p.view is None or p.round_over:
            await self.wait_change(p.version, 1.0)
            if p.round_over and p.final:
                self.next_state = None
                return
            break
        self.set_next_state(p.next_state())


class AwakeState(PlayerState):
    """Whenever something new arrived: ask the interface, forward its action."""

    async def run(self) -> None:
        p = self.player
        asked = -1
        while p.next_state() == "Awake":
            if p.version == asked:
                await self.wait_change(asked)
                continue
            asked = p.version
            await p.pull(self)
            stamp = p.stamp
            ballot = p.view.votes_open if p.view else None
            heard, p.unread = p.unread, []
            request = m.GetInput(purpose="action", view=p.view, heard=heard,
                                 options=p.options, seconds=round(p.seconds_left(), 2),
                                 round=p.round, completions=p.completed(heard))
            options = compact_options(p.options)
            if options == p.logged_options:  # (asked again on news: the same options)
                p.game_log.write("input", player=p.seat_name)
            else:
                p.game_log.write("input", player=p.seat_name, options=options)
                p.logged_options = options
            types = tuple(m.ACTION_TYPES)
            # a new phase makes the question moot, and so do the day's votes opening:
            # ask again with the new options (a person may take the whole phase to
            # answer; a model still reading the talk with the votes closed would answer
            # "listen" where it may now vote)
            reply = await self.ask(p.player_interface, request, types,
                                   timeout=max(1.0, p.seconds_left() + 1),
                                   abandon=lambda stamp=stamp, ballot=ballot:  # type: ignore[misc]
                                   p.stamp != stamp or p.next_state() != "Awake"
                                   or (p.view.votes_open if p.view else None) != ballot)
            if reply is None or p.next_state() != "Awake":
                continue
            try:
                await self.forward(reply, stamp)
            except Exception as exc:  # one bad answer must not end the player
                await p.handler_failed(self, None, exc)
            if isinstance(reply, m.Listen) and reply.ready:
                # a person's /ready: the interface keeps a question open, so that what
                # the person types next (a vote changed after all) goes out at once,
                # not at the next news (a day with everyone done brings none)
                asked = -1
        self.set_next_state(p.next_state())

    async def forward(self, action: m.Body, stamp: str) -> None:
        p = self.player
        data = action.model_dump()
        data.update(player=p.seat_name, token=p.token, stamp=stamp)
        body = type(action).model_validate(data)
        if isinstance(body, m.Listen):
            await p.send_body(self, p.gamemaster, body)
            return
        offers = p.offers  # (the options as they stand when it acts)
        if isinstance(body, m.Chat):
            room = p.view.room if p.view else None
            target = p.rooms.get(room or "")
            if target is None:
                p.hear(h.Notice(text="No room is open to you now."))
                return
            reply = await self.ask(target, body, ("agree", "refuse"), timeout=p.reply_seconds)
        else:
            reply = await self.ask(p.gamemaster, body, ("agree", "refuse"),
                                   timeout=p.reply_seconds)
        if isinstance(reply, m.Agree):
            p.agreed(body)
            if reply.options is not None and p.offers == offers:
                # (what it may still do; not where a phase_change came meanwhile: the
                # next phase's options, which the agreement's "none" must not undo)
                p.options = list(reply.options)
            if isinstance(body, m.Whisper):  # (its speaker hears it as said, as in a room)
                p.note(h.WhisperHeard(speaker=p.seat_name or "", to=body.target,
                                      text=body.message, day=p.view.day if p.view else 0))
            p.poke()
        elif isinstance(reply, m.Refuse):
            if stamp != p.stamp:  # a move of a phase that has ended since: that end,
                # heard already, says why; and where the notice fell among the next
                # phase's news would be a race between the GameMaster and the rooms
                if p.push_news and isinstance(body, m.Chat | m.Whisper):
                    # (but a person's words are not lost without a word: a review's
                    # line to its pack, typed as the night ended, went unsaid, unseen)
                    p.hear(h.Notice(text=f"Too late, not said: \"{body.message}\" (that "
                                         "phase was over)"))
                return
            p.hear(h.Notice(text=f"Refused: {reply.reason}"))
            if not isinstance(body, m.Chat | m.Whisper):
                # not offered again this phase: a decider that keeps choosing a refused
                # option (its options gone stale) would flood the GameMaster with it
                target = getattr(body, "target", None)
                p.options = [o for o in p.options
                             if (o.action, o.target) != (body.type, target)]


class AsleepState(PlayerState):
    """Alive with nothing to do (a villager at night): wait for the phase to change."""

    async def run(self) -> None:
        p = self.player
        while p.next_state() == "Asleep":
            await self.wait_change(p.version)
        self.set_next_state(p.next_state())


class DeadState(PlayerState):
    """An observer until the round ends (or the next one has already begun: its first
    messages can overtake the scores, and then the player goes straight back in)."""

    async def run(self) -> None:
        p = self.player
        while p.next_state() == "Dead":
            await self.wait_change(p.version)
        self.set_next_state(p.next_state())
