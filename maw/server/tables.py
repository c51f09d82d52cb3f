"""The tables of a game server (``maw server``): the games people create, join, leave and
get ready for, and when each starts. Pure: no XMPP, no clock of its own (``now`` is
given), so every rule here is tested on its own (``tests/server/test_tables.py``).

A table is created with its game's shape (ruleset, size, the AI players who fill the
seats nobody takes, the phases' lengths) and a lobby timer. It starts when every person
seated is ready, or when its timer runs out with at least one person seated; AI players
then take the empty seats. A table nobody sits at when its timer runs out is closed. Once
started, its game is hosted (``maw.server.host``) and the table is ``running``, then
``finished`` (or ``failed``: a game that crashed takes only itself down).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from maw.engine import ruleset as make_ruleset
from maw.errors import MawError
from maw.policies import stand_ins
from maw.protocol.messages import TableInfo, check_name


def fills() -> tuple[str, ...]:
    """The AI players who may take the empty seats: the stand-ins (registered deciders
    that decide at once, with no model), the rule player first."""
    return tuple(sorted(stand_ins(), key=lambda name: (name != "rule", name)))


# the server's limits, each a clear refusal when reached
MAX_TABLES = 8  # tables open or running at once
MAX_PLAYERS = 15
MIN_SECONDS, MAX_SECONDS = 2.0, 600.0  # a phase's length, and a lobby timer's


@dataclass
class Table:
    """One game being gathered, played or over."""

    id: int
    ruleset: str
    players: int
    fill: str
    day_seconds: float
    night_seconds: float
    starts_at: float  # when its lobby timer runs out (the server's clock)
    creator: str
    people: dict[str, str] = field(default_factory=dict)  # name -> its client's address
    ready: set[str] = field(default_factory=set)
    state: str = "open"  # open, running, finished, failed, closed
    lobby: str = ""  # its game's lobby name, once it runs (the players join it)
    result: str = ""  # who won, or why it failed
    aiwolf: int = 0  # seats for AIWolf agents (none of them a person's)
    aiwolf_url: str = ""  # where they connect (the server opens it: ``maw.server.host``)
    agents: list[str] = field(default_factory=list)  # the AIWolf agents seated so far

    def info(self, now: float) -> TableInfo:
        return TableInfo(id=self.id, ruleset=self.ruleset, players=self.players,
                         fill=self.fill, people=sorted(self.people),
                         ready=sorted(self.ready), state=self.state,
                         starts_in=max(0.0, round(self.starts_at - now, 1))
                         if self.state == "open" else 0.0,
                         lobby=self.lobby, result=self.result, aiwolf=self.aiwolf,
                         aiwolf_url=self.aiwolf_url, agents=list(self.agents))

    @property
    def free(self) -> int:
        """The seats left for people (the AIWolf agents' are theirs)."""
        return self.players - self.aiwolf - len(self.people)


@dataclass
class Tables:
    """Every table of the server, by id; ``prefix`` names their games' lobbies."""

    prefix: str = "table"
    tables: dict[int, Table] = field(default_factory=dict)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def listing(self, now: float) -> list[TableInfo]:
        """The tables open or running, then the last ten over (newest first)."""
        live = [t for t in self.tables.values() if t.state in ("open", "running")]
        over = [t for t in self.tables.values() if t.state not in ("open", "running")]
        return [t.info(now) for t in live] + [t.info(now) for t in over[::-1][:10]]

    def create(self, by: str, ruleset: str, players: int, fill: str, day_seconds: float,
               night_seconds: float, wait_seconds: float, now: float,
               aiwolf: int = 0) -> Table:
        """A new open table (``MawError``, one line, for what the server cannot host)."""
        if sum(t.state in ("open", "running") for t in self.tables.values()) >= MAX_TABLES:
            raise MawError(f"the server hosts at most {MAX_TABLES} games at once: join one "
                           "or wait for one to end")
        if fill not in fills():
            raise MawError(f"fill must be {' or '.join(fills())}, not {fill!r}")
        if not 2 <= players <= MAX_PLAYERS:
            raise MawError(f"a game here has 2 to {MAX_PLAYERS} players, not {players}")
        for what, value in (("day", day_seconds), ("night", night_seconds),
                            ("wait", wait_seconds)):
            if not MIN_SECONDS <= value <= MAX_SECONDS:
                raise MawError(f"{what} must be {MIN_SECONDS:.0f} to {MAX_SECONDS:.0f} "
                               f"seconds, not {value:g}")
        rules = make_ruleset(ruleset)  # (an unknown ruleset: a MawError naming the known)
        rules.roles_for(players)  # (a size the ruleset cannot deal: its own error)
        if aiwolf:
            from maw.hosting.aiwolf import check

            if aiwolf >= players:
                raise MawError(f"aiwolf={aiwolf} leaves no seat for a person in a "
                               f"{players}-player game")
            check(rules, players, aiwolf, 1)
        table = Table(next(self._ids), rules.name, players, fill, day_seconds,
                      night_seconds, now + wait_seconds, by, aiwolf=aiwolf)
        self.tables[table.id] = table
        return table

    def get(self, table_id: int) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise MawError(f"there is no game {table_id}")
        return table

    def join(self, table_id: int, name: str, address: str) -> Table:
        """``name`` sits at table ``table_id`` (its client at ``address``)."""
        check_name(name)
        table = self.get(table_id)
        if table.state != "open":
            raise MawError(f"game {table_id} is {table.state}: join an open one")
        for other in self.tables.values():
            if other.state == "open" and address in other.people.values() and \
                    other.people.get(name) != address:
                raise MawError(f"you sit at game {other.id} already: /leave it first")
        taken = {n.lower(): (n, a) for n, a in table.people.items()}
        if name.lower() in {a.lower() for a in table.agents}:
            raise MawError(f"the name {name} is an AIWolf agent's at game {table_id}")
        if name.lower() in taken:
            seated, by = taken[name.lower()]
            if by == address:
                return table  # (joined again: the same seat)
            raise MawError(f"the name {seated} is taken at game {table_id}")
        if table.free <= 0:
            raise MawError(f"game {table_id} is full")
        table.people[name] = address
        return table

    def leave(self, table_id: int, address: str) -> Table:
        table = self.get(table_id)
        if table.state != "open":
            raise MawError(f"game {table_id} is {table.state}: it can no longer be left "
                           "here (leave the game itself)")
        for name in [n for n, a in table.people.items() if a == address]:
            del table.people[name]
            table.ready.discard(name)
        return table

    def set_ready(self, table_id: int, address: str, ready: bool) -> Table:
        table = self.get(table_id)
        names = [n for n, a in table.people.items() if a == address]
        if table.state != "open" or not names:
            raise MawError(f"you do not sit at game {table_id}: /join it first")
        for name in names:
            (table.ready.add if ready else table.ready.discard)(name)
        return table

    def gone(self, address: str) -> list[Table]:
        """A client went offline: its seats at open tables are free again."""
        left = []
        for table in self.tables.values():
            if table.state == "open" and address in table.people.values():
                left.append(self.leave(table.id, address))
        return left

    def due(self, now: float) -> list[Table]:
        """The open tables to start now (every person ready, or the timer out with
        someone seated), each marked ``running`` with its lobby; those the timer closed
        with nobody seated are marked ``closed``."""
        out = []
        for table in self.tables.values():
            if table.state != "open":
                continue
            everyone_ready = table.people and table.ready >= set(table.people)
            if everyone_ready or (now >= table.starts_at and table.people):
                table.state = "running"
                table.lobby = f"{self.prefix}-{table.id}"
                out.append(table)
            elif now >= table.starts_at:
                table.state, table.result = "closed", "nobody sat down"
        return out


def listing(tables: list[TableInfo]) -> list[str]:
    """The games, a line each."""
    if not tables:
        return ["no games yet: /create one"]
    out = []
    for t in tables:
        seated = ", ".join(f"{p}{'*' if p in t.ready else ''}" for p in t.people) or "nobody"
        when = {"open": f"starts in {t.starts_in:.0f} s or when all are ready",
                "running": "playing", "finished": t.result, "failed": f"failed: {t.result}",
                "closed": f"closed: {t.result}"}[t.state]
        agents = ""
        if t.aiwolf:
            names = f": {', '.join(t.agents)}" if t.agents else ""
            how = f" (maw aiwolf-client --game {t.id})" if t.state == "open" else ""
            agents = f"; AIWolf agents {len(t.agents)} of {t.aiwolf}{names}{how}"
        out.append(f"  game {t.id}: {t.ruleset}, {t.players} players ({t.fill} players "
                   f"fill the rest), {t.state}: {seated}; {when}{agents}")
    return out
