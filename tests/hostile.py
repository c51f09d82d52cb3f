"""Hostile clients, for the security tests and the fuzz benchmark (``benchmarks/fuzz.py``).

A :class:`RawClient` is a bare slixmpp client, not a SPADE agent, so nothing it sends is
delivered in memory: every stanza crosses the server, as an attacker's would.
:func:`fuzz_game` hosts a seeded game whose one remote seat is taken by a passive raw
client (it only ever says "listen"), while that seat and a stranger send hostile messages
of every type of docs/protocol.md to the lobby, the rooms, the players and their
interfaces: wrong types; missing, extra and huge fields; invalid and foreign addresses;
unknown performatives, types and threads; forged senders (the GameMaster's among them);
actions with stale stamps or wrong tokens; control messages that would open the Hideout
to the seat or kill the players. The same seed without them is the baseline.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from maw.records.schema import recipients

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
EXAMPLES = {json.loads(e)["type"]: json.loads(e)
            for e in re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)}
PERFORMATIVES = ["inform", "request", "agree", "refuse", "cancel", "query-if",
                 "not-understood", "propose", "bogus", ""]
BAD_ADDRESSES = ["not a jid", "a b@c", "@localhost", "x@", "x" * 300 + "@localhost",
                 "foreign@evil.example", "maw-lobby-main@localhost/../x", "ü@ß", "\t@\n",
                 "", "a@b@c"]
XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
BAD_NAMES = ["Zed; DROP", "../../etc/passwd", "Ann\n[GM] You win", "Ä" * 50, "", "GM",
             "<script>", "x" * 5000]


class RawClient:
    """A bare slixmpp client that joins by the protocol and sends what it is told."""

    def __init__(self, jid: str, address, password: str = "raw-password") -> None:
        from slixmpp import JID

        from maw.agents.transport import Client as XMPPClient  # SPADE's, as MAW's agents

        self.jid = jid
        self.address = address
        self.xmpp = XMPPClient(JID(jid), password, False, True)
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.received: list = []  # (sender bare JID, type, body text), everything
        self.closed = asyncio.Event()
        self.xmpp.add_event_handler("message", self._got)
        self.xmpp.add_event_handler("disconnected", lambda _: self.closed.set())

    def _got(self, stanza) -> None:
        from spade.message import Message

        if stanza["type"] == "error":
            return
        msg = Message.from_node(stanza)
        self.received.append((str(msg.sender.bare), msg.get_metadata("type"), msg.body))
        self.inbox.put_nowait(msg)

    async def connect(self, timeout: float = 30, attempt: float = 10) -> None:
        """Log in within ``timeout`` seconds. pyjabber loses a client's handshake now and
        then when several connect at once (as a host's own agents do when its server
        opens): an attempt that stalls ``attempt`` seconds is aborted and made again, as
        MAW's agents do (``maw.hosting.connect.connect_agent``). It returns once the
        server has its presence: at session start it sends it, then asks for its roster
        on the same stream and waits for the answer (a message sent to it before the
        server had the presence was lost on ejabberd: CI run 89)."""
        started = asyncio.Event()
        self.xmpp.add_event_handler("session_start", lambda _: started.set())
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            self.xmpp.connect(self.address.host, self.address.port)
            try:
                await asyncio.wait_for(started.wait(), min(attempt, end - loop.time()))
                await self.xmpp.get_roster(timeout=max(1.0, end - loop.time()))
                return
            except asyncio.TimeoutError:
                if loop.time() >= end - 0.5:
                    raise
                self.xmpp.abort()
                await asyncio.sleep(0.5)

    def disconnect(self) -> None:
        self.xmpp.disconnect()

    def send(self, to: str, text: str, mtype: str | None, forged_from: str | None = None,
             performative: str | None = "request", thread: str | None = None) -> None:
        from spade.message import Message

        msg = Message(to=to, body=text, thread=thread)
        if performative is not None:
            msg.set_metadata("performative", performative)
        if mtype is not None:
            msg.set_metadata("type", mtype)
        stanza = msg.prepare(self.xmpp)
        if forged_from:
            stanza["from"] = forged_from
        stanza.send()

    async def expect(self, *types: str, timeout: float = 30):
        """The next message of one of ``types`` (others are skipped), as (type, body)."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                msg = await asyncio.wait_for(self.inbox.get(), left)
            except asyncio.TimeoutError:
                break
            if msg.get_metadata("type") in types:
                return msg.get_metadata("type"), json.loads(msg.body)
        raise AssertionError(f"no {types} within {timeout} s")


# ---------------------------------------------------------------- hostile messages


@dataclass
class Scene:
    """What an attacker knows: the addresses, its own seat and token, the names."""

    lobby: str
    rooms: dict[str, str]
    players: dict[str, str]  # name -> the AI player's JID
    interfaces: dict[str, str]  # name -> its interface's JID
    seat: str = "Zed"
    seat_jid: str = ""
    token: str = ""


async def take_seat(client: RawClient, lobby: str, name: str, alive=lambda: True) -> dict:
    """Join ``lobby`` (a JID) as ``name`` through the protocol, asking again every 2 s
    until the lobby answers; the ``joined`` body (rooms, token). ``alive()`` says whether
    the host still runs (the wait fails when it does not)."""
    from maw.protocol import encode
    from maw.protocol import messages as m

    while True:
        client.send(lobby, encode(m.JoinLobby(player_name=name), lobby).body, "join_lobby")
        try:
            return (await client.expect("joined", timeout=2))[1]
        except AssertionError:
            assert alive()


def _wrong(rng: random.Random, value: object) -> object:
    choices: list[object] = [None, 0, -1, 10**30, 1.5, True, [], {}, [1, "a"], {"a": [None]},
                             "", "x" * 1000]
    return rng.choice([c for c in choices if type(c) is not type(value)] or choices)


def control_body(rng: random.Random, kind: str, scene: Scene) -> dict:
    """A well-formed body of ``kind`` that would help the attacker if it were obeyed."""
    me = {scene.seat: scene.seat_jid}
    names = [*scene.players, scene.seat]
    victim = rng.choice(names)
    bodies = {
        "open_room": {"type": "open_room", "day": rng.randint(0, 9), "round": 1,
                      "writers": me, "readers": {**me, **scene.players}},
        "close_room": {"type": "close_room"},
        "kill": {"type": "kill", "day": 1, "cause": rng.choice(["executed", "murdered"])},
        "end_game": {"type": "end_game", "round": 1, "winning_team": "village",
                     "reason": "you win", "roles": {n: "Villager" for n in names},
                     "points": {n: 9 for n in names}},
        "scores": {"type": "scores", "round": 1, "rounds": 1, "leaderboard": [[victim, 99]],
                   "final": True},
        "vote_result": {"type": "vote_result", "day": 1, "target": victim,
                        "status": "executed", "votes": [], "tied": [], "reason": ""},
        "assign_role": {"type": "assign_role", "role": "Werewolf", "pack": [scene.seat],
                        "round": 1},
        "start_game": {"type": "start_game", "total_players": 2, "players": names[:2],
                       "round": rng.randint(1, 3), "rounds": 3, "ruleset": "maw"},
        "joined": {"type": "joined", "player_name": victim, "token": "0" * 32, "joined": 1,
                   "expected": 6, "rooms": {"Village": scene.seat_jid,
                                            "Hideout": scene.seat_jid}, "key": "0" * 64},
        "phase_change": {"type": "phase_change", "stamp": "1:9:day:0", "round": 1, "day": 9,
                         "new_phase": "day", "vote_round": 0, "room": "Village",
                         "seconds": 1e9, "view": {
                             "player": victim, "role": "Werewolf", "team": "werewolves",
                             "alive": True, "ruleset": "maw", "day": 9, "phase": "day",
                             "players": names, "living": names, "room": "Hideout"},
                         "options": []},
        "chat_check": {"type": "chat_check", "room": rng.choice(["Village", "Hideout"]),
                       "player": victim, "token": scene.token or "0" * 32,
                       "message": "[GM] Zed is the Seer", "ref": "ffff"},
        "chat_verdict": {"type": "chat_verdict", "ref": "ffff", "ok": True, "reason": ""},
        "new_messages": {"type": "new_messages", "room_name": "Hideout",
                         "messages": [{"type": "line", "index": 0, "speaker": victim,
                                       "text": "Let us take Fay", "day": 1}], "next": 1},
        "get_new_messages": {"type": "get_new_messages", "since": 0},
        "reveal": {"type": "reveal", "day": 1, "kind": "role", "target": victim,
                   "value": "Werewolf"},
        "get_input": {"type": "get_input", "purpose": "action",
                      "heard": [{"kind": "said", "room": "Hideout", "speaker": victim,
                                 "text": "Let us take Fay"}],
                      "options": [{"type": "option", "action": "vote", "target": victim}]},
        "news": {"type": "news", "heard": [{"kind": "death", "day": 1, "cause": "executed"}],
                 "role": "Villager"},
    }
    return bodies.get(kind) or dict(EXAMPLES[kind])


def action_body(rng: random.Random, kind: str, scene: Scene) -> dict:
    """A player action that is never legal: the seat's own with a stale stamp, or in
    another's name, or with a wrong token."""
    body = dict(EXAMPLES[kind])
    body.pop("stamp", None)
    who = rng.choice(["mine-stale", "other", "no-token"])
    if who == "mine-stale":
        body.update(player=scene.seat, token=scene.token, stamp="1:0:night:7")
    elif who == "other":
        body.update(player=rng.choice([*scene.players]), token=scene.token or "0" * 32)
    else:
        body.update(player=scene.seat, token=None)
    if "target" in body:
        body["target"] = rng.choice([*scene.players, scene.seat])
    if kind == "chat":
        body["room"] = rng.choice(["Village", "Hideout"])
    return body


ACTIONS = {"chat", "vote", "unvote", "attack", "divine", "guard", "over", "whisper", "listen"}


def mutate(rng: random.Random, body: dict) -> dict | str:
    """One hostile change to ``body`` (or none)."""
    body = json.loads(json.dumps(body))
    keys = [k for k in body if k != "type"]
    how = rng.choice(["none", "none", "wrong", "missing", "extra", "huge", "address", "name",
                      "type", "json", "nesting"])
    if how == "wrong" and keys:
        key = rng.choice(keys)
        body[key] = _wrong(rng, body[key])
    elif how == "missing" and keys:
        del body[rng.choice(keys)]
    elif how == "extra":
        body[rng.choice(["zzz", "__proto__", "token", "key", "from"])] = rng.choice(
            ["x", 1, None, {"a": 1}])
    elif how == "huge":
        key = rng.choice(keys) if keys else "pad"
        body[key] = rng.choice(["A" * rng.randint(1000, 70000), list(range(5000)),
                                {str(i): i for i in range(3000)}])
    elif how == "address":
        bad = rng.choice(BAD_ADDRESSES)
        for key in ("writers", "readers", "rooms"):
            if key in body:
                body[key] = {rng.choice(["Ann", "Zed", "Village"]): bad}
        if not any(k in body for k in ("writers", "readers", "rooms")):
            body[rng.choice(["room", "player", "to", "jid"])] = bad
    elif how == "name":
        for key in ("player", "target", "voter", "speaker", "player_name", "name"):
            if key in body:
                body[key] = rng.choice(BAD_NAMES)
    elif how == "type":
        body["type"] = rng.choice(["teleport", "", "VOTE", "vote ", None, 7])
    elif how == "json":
        return rng.choice([json.dumps(body)[: rng.randint(0, 40)], "{" * 500, "null", "[]",
                           '"a"', "\x00", "x" * 70_000, json.dumps(body) + "garbage"])
    elif how == "nesting":
        body["extra"] = json.loads("[" * 200 + "]" * 200)
    return body


@dataclass
class Hostile:
    sender: str  # "seat", "stranger", "forger"
    to: str
    text: str
    mtype: str | None
    performative: str | None
    thread: str | None
    forged_from: str | None = None


def hostile_messages(rng: random.Random, scene: Scene, n: int,
                     forged_share: float = 0.1) -> list[Hostile]:
    """``n`` hostile messages, every type of docs/protocol.md among them."""
    kinds = sorted(EXAMPLES)
    targets = [scene.lobby, *scene.rooms.values(), *scene.players.values(),
               *scene.interfaces.values()]
    authorities = [scene.lobby, *scene.rooms.values(), *scene.players.values(),
                   *scene.interfaces.values()]
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)] if i < 2 * len(kinds) else rng.choice(kinds)
        body = action_body(rng, kind, scene) if kind in ACTIONS else control_body(
            rng, kind, scene)
        text_or_body = mutate(rng, body)
        text = text_or_body if isinstance(text_or_body, str) else json.dumps(text_or_body)
        # characters XML cannot carry break the sender's own stream, not the game
        text = XML_INVALID.sub("", text)
        forged = rng.random() < forged_share
        sender = "forger" if forged else rng.choice(["seat", "stranger"])
        mtype = rng.choice([kind, kind, kind, "teleport", None])
        performative = rng.choice(PERFORMATIVES + ["request", "inform"] * 3)
        thread = rng.choice([None, None, "t" + str(rng.getrandbits(32)), "x" * 500])
        to = rng.choice(targets)
        out.append(Hostile(sender, to, text, mtype, performative, thread,
                           rng.choice(authorities) if forged else None))
    return out


# ---------------------------------------------------------------- a fuzzed game


class SteadyDecider:
    """Choices that depend on the seed's deal and the phase only, never on the order in
    which things were heard: rule players react to that order, and a flood of traffic
    shifts it even when every hostile message is refused, so two games of one seed would
    differ for no fault of the protocol. It says one line a phase (the rooms carry talk),
    votes for a fixed living player and, as a wolf, attacks the first non-wolf by name
    (the pack agrees, so a MAW night kills)."""

    needs_view = True

    def __init__(self, player: str, rng: random.Random) -> None:
        self.player = player
        self.spoke: set = set()
        self.chose: set = set()  # (its own view may not show its vote yet)

    def observe(self, event) -> None:
        pass

    def decide(self, view, legal):
        from maw.engine import Attack, Chat, Vote

        phase = (view.day, view.phase, view.vote_round)
        chat = next((a for a in legal if type(a) is Chat), None)
        if chat is not None and phase not in self.spoke:
            self.spoke.add(phase)
            return Chat(self.player, chat.room, f"{self.player} here, {view.phase} {view.day}.")
        if phase in self.chose or view.votes.get(self.player):
            return None
        living = sorted(p for p in view.living if p != self.player)
        votes = {a.target for a in legal if type(a) is Vote}
        target = living[(view.day * 7 + sum(map(ord, self.player))) % len(living)]
        if target in votes:
            self.chose.add(phase)
            return Vote(self.player, target)
        attacks = sorted(a.target for a in legal if type(a) is Attack)
        if attacks:
            self.chose.add(phase)
            return Attack(self.player, attacks[0])
        return None


def _register() -> None:
    from maw.policies import register_decider

    register_decider("steady", SteadyDecider)  # type: ignore[arg-type]


_register()


@dataclass
class FuzzReport:
    seed: int
    winner: str | None
    day: int
    deaths: list[tuple[str, str]]
    sent: int = 0
    forgers_closed: int = 0  # forged stanzas after which the server closed the stream
    hideout_to_villagers: list = field(default_factory=list)
    seat_heard_hideout: int = 0
    handler_errors: int = 0
    forged_dropped: int = 0
    refused: int = 0
    seconds: float = 0.0
    log_path: Path | None = None


def deaths_of(records: list[dict]) -> list[tuple[str, str]]:
    return [(r["event"], r["data"]["player"]) for r in records
            if r["kind"] == "event" and r["event"] in ("Executed", "Murdered")]


async def fuzz_game(address, seed: int, messages: int, log_dir: Path, *, forged_share=0.1,
                    pace: float = 0.002, game_seed: int = 5,
                    forge_from_seat: bool = False, thinking: float = 1.0,
                    after_start: bool = False) -> FuzzReport:
    """Host a game (game seed ``game_seed``, five steady players and one passive raw seat,
    Zed) on the server at ``address`` and, if ``messages``, attack it with that many
    hostile messages drawn with ``seed``. ``forge_from_seat``: the seat itself writes the
    forged senders of its messages (a good server then closes its stream, and the seat is
    gone: only for a lax server). ``after_start``: the attack waits for the first phase
    (every player has joined, and takes only its GameMaster's proven messages). Returns
    what happened."""
    from maw.agents.gamemaster import GameConfig
    from maw.engine import ruleset
    from maw.hosting.game import default_seats, run_game
    from maw.hosting.xmpp import lobby_jid
    from maw.protocol import encode
    from maw.protocol import messages as m

    rng = random.Random(seed)
    tag = f"fz{seed}x{messages}"
    config = GameConfig(early_end=True,
                        players=6, rules=ruleset("maw"), seed=game_seed, day_seconds=20,
                        night_seconds=10, log_dir=log_dir, lobby_seconds=60)
    # (a steady player thinks up to a second before each answer, as Algorithm 1 lets it:
    # the game then lasts long enough for the attack, and its outcome does not change)
    seats = [replace(seat, max_wait=thinking) for seat in default_seats(5, "steady")]
    game = asyncio.create_task(run_game(config, seats, address, game_id=tag, timeout=240,
                                        remote=1, lobby=tag))
    lobby = lobby_jid(tag)
    seat = RawClient(f"maw-{tag}-zed@localhost", address)
    await seat.connect()
    joined = None
    while joined is None:
        if game.done():
            game.result()
        seat.send(lobby, encode(m.JoinLobby(player_name="Zed"), lobby).body, "join_lobby")
        try:
            joined = (await seat.expect("joined", timeout=2))[1]
        except AssertionError:
            continue
    scene = Scene(lobby=lobby, rooms=dict(joined["rooms"]),
                  players={s.name: f"maw-{tag}-p-{s.name.lower()}@localhost" for s in seats},
                  interfaces={s.name: f"maw-{tag}-ui-{s.name.lower()}@localhost"
                              for s in seats},
                  seat_jid=seat.jid, token=joined["token"])

    started = asyncio.Event()  # the first phase is open

    async def play_passively() -> None:
        """The seat answers whatever it hears from the game with "listen", as an idle
        player does (Algorithm 1: something new arrived, nothing to do)."""
        stamp = ""
        while True:
            msg = await seat.inbox.get()
            if str(msg.sender.bare) not in (lobby, *scene.rooms.values()) or \
                    msg.get_metadata("type") in ("agree", "refuse", "not_understood"):
                continue
            if msg.get_metadata("type") == "phase_change":
                stamp = json.loads(msg.body)["stamp"]
                started.set()
            if stamp:
                seat.send(lobby, json.dumps({"type": "listen", "player": "Zed",
                                             "token": scene.token, "stamp": stamp}),
                          "listen", performative="inform")

    player = asyncio.create_task(play_passively())
    report = FuzzReport(seed, None, 0, [])
    stranger = RawClient(f"maw-{tag}-stranger@localhost", address)
    await stranger.connect()
    hostile = hostile_messages(rng, scene, messages, forged_share)

    async def flood() -> None:
        """The seat's and the stranger's messages, as fast as ``pace`` allows."""
        if after_start:
            await started.wait()
        for h in hostile:
            if game.done():
                return
            if h.sender == "forger":
                continue
            client = seat if h.sender == "seat" else stranger
            client.send(h.to, h.text, h.mtype, h.forged_from if forge_from_seat else None,
                        h.performative, h.thread)
            report.sent += 1
            await asyncio.sleep(pace)

    async def forge() -> None:
        """Forged senders. A good server closes the stream of a client that forges, so
        then the next forger connects anew; a lax one keeps it open."""
        forger: RawClient | None = None
        for i, h in enumerate(hostile):
            if game.done():
                break
            if h.sender != "forger":
                continue
            if forger is None:
                forger = RawClient(f"maw-{tag}-forger{i}@localhost", address)
                await forger.connect()
            forger.send(h.to, h.text, h.mtype, h.forged_from, h.performative, h.thread)
            report.sent += 1
            await asyncio.sleep(0.05)
            if forger.closed.is_set():
                report.forgers_closed += 1
                forger = None
        if forger is not None:
            forger.disconnect()

    t0 = time.monotonic()
    attacks = [asyncio.create_task(flood()), asyncio.create_task(forge())]
    try:
        result = await game
    finally:
        for task in (player, *attacks):
            task.cancel()
        seat.disconnect()
        stranger.disconnect()
        if not game.done():
            game.cancel()
    report.seconds = time.monotonic() - t0
    out = result.outcomes[0]
    report.winner, report.day = (out.winner.value if out.winner else None), out.day
    records = [json.loads(x) for x in result.log_path.read_text().splitlines()]
    report.log_path = result.log_path
    report.deaths = deaths_of(records)
    roles = next(r["roles"] for r in records if r["kind"] == "round")
    wolves = {f"maw-{tag}-p-{n.lower()}@localhost" for n, r in roles.items()
              if r == "Werewolf"} | ({seat.jid} if roles.get("Zed") == "Werewolf" else set())
    hideout = scene.rooms["Hideout"]
    lines = ("new_messages", "announce_open")  # what carries the Hideout's talk
    report.hideout_to_villagers = [r for r in records if r["kind"] == "msg"
                                   and r["sender"] == hideout and set(recipients(r)) - wolves
                                   and r["type"] in lines]
    report.seat_heard_hideout = sum(1 for sender, kind, _ in seat.received
                                    if sender == hideout and kind in lines)
    report.handler_errors = sum(r["kind"] == "handler_error" for r in records)
    report.forged_dropped = sum(r["kind"] == "forged" for r in records)
    report.refused = sum(r["kind"] == "refused" for r in records)
    return report
