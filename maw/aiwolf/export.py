"""A MAW game of an ``aiwolf-*`` ruleset as an AIWolf contest log (aiwolf-nlp-server's game
logger: one event a line, ``day,kind,...``; the format ``maw.aiwolf.replay`` reads and
``tests/data/aiwolf-logs/README.md`` describes), one log a round.

Agents are numbered in seat order from 1; an agent's team is its AIWolf team where an AIWolf
agent sat (``maw game --aiwolf``), else its name. ``platform``: the AIWolf 0.6 platform's
own log (``AIWolfServer``'s ``FileGameLogger``, the Protocol division's), the same lines
but a ``status`` without the team (``day,status,idx,role,ALIVE,name``). Talk and whispers
keep their order, an ``Over`` included; the votes are the last round's; a tie settled at
random shows as the one executed (or attacked), as the server logs it.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from maw.aiwolf.bridge import aiwolf_role
from maw.errors import MawError
from maw.records.log import read_log

WINNERS = {"village": "VILLAGER", "werewolves": "WEREWOLF"}


def read_records(path: Path) -> list[dict]:
    """The log's records as plain data, read by the one reader of game logs (which names
    the line that is not a record)."""
    return [r.model_dump(mode="json") for r in read_log(path)]


def _clean(text: str) -> str:
    """A line of talk as the logger writes it: on one line."""
    return " ".join(text.split())


def export(records: list[dict], platform: bool = False) -> list[list[str]]:
    """The contest log of each finished round of a MAW game log's ``records``
    (``platform``: in the 0.6 platform's form)."""
    started = next((r for r in records if r.get("kind") == "started"), None)
    if started is None:
        raise MawError("not a MAW game log: it has no 'started' record")
    if not str(started.get("ruleset", "")).startswith("aiwolf-"):
        raise MawError(f"a game of {started.get('ruleset')}: an AIWolf log holds a game of "
                       "an aiwolf-* ruleset")
    options = (started.get("config") or {}).get("options") or {}
    if options:
        # (the log format has no word for them, and a replay plays the contest's rules)
        raise MawError("the game changed the ruleset's options "
                       f"({', '.join(f'{k}={v}' for k, v in options.items())}): an AIWolf "
                       "log holds a game of the contest's own rules")
    teams = {s["name"]: (s.get("team") or s["name"]).replace(",", "_")
             for s in started.get("seats", [])}
    rounds: dict[int, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("kind") == "event":
            rounds[r.get("round", 1)].append(r)
    logs = []
    for number in sorted(rounds):
        events = rounds[number]
        if not any(e["event"] == "GameOver" for e in events):
            continue
        logs.append(_round(events, {} if platform else teams, platform))
    if not logs:
        raise MawError("the log holds no finished game")
    return logs


def _round(events: list[dict], teams: dict[str, str], platform: bool = False) -> list[str]:
    data = [(e["event"], e["data"]) for e in events]
    players = next(d["players"] for k, d in data if k == "GameStarted")
    over = next(d for k, d in data if k == "GameOver")
    roles = dict(over["roles"])
    idx = {p: str(i) for i, p in enumerate(players, 1)}
    alive = dict.fromkeys(players, True)
    lines: list[str] = []
    talk: dict[tuple[int, str], int] = defaultdict(int)  # (day, room) -> lines so far
    turns: dict[tuple[int, str, str], int] = defaultdict(int)
    day_seen: set[int] = set()
    attack_logged: set[int] = set()

    def status(day: int) -> None:
        for p in players:
            team = "" if platform else f"{teams.get(p, p)},"
            lines.append(f"{day},status,{idx[p]},{aiwolf_role(roles[p])},"
                         f"{'ALIVE' if alive[p] else 'DEAD'},{team}{p}")

    for kind, d in data:
        day = d.get("day", 0)
        if kind == "PhaseStarted" and d["phase"] == "day" and day not in day_seen:
            day_seen.add(day)
            status(day)
        elif kind in ("Chatted", "Overed"):
            room = d["room"]
            who = d["speaker"] if kind == "Chatted" else d["player"]
            text = _clean(d["text"]) if kind == "Chatted" else "Over"
            what = "talk" if room == "Village" else "whisper"
            n = talk[(day, room)]
            talk[(day, room)] += 1
            turn = turns[(day, room, who)]
            turns[(day, room, who)] += 1
            lines.append(f"{day},{what},{n},{turn},{idx[who]},{text}")
        elif kind == "VotesRevealed" and d["kind"] in ("execute", "attack"):
            name = "vote" if d["kind"] == "execute" else "attackVote"
            lines += [f"{day},{name},{idx[v]},{idx[t]}" for v, t in d["votes"]]
        elif kind == "Executed":
            alive[d["player"]] = False
            lines.append(f"{day},execute,{idx[d['player']]},{aiwolf_role(roles[d['player']])}")
        elif kind == "Divined":
            lines.append(f"{day},divine,{idx[d['seer']]},{idx[d['target']]},"
                         f"{d['species'].upper()}")
        elif kind == "Guarded":
            lines.append(f"{day},guard,{idx[d['bodyguard']]},{idx[d['target']]},"
                         f"{aiwolf_role(roles[d['target']])}")
        elif kind == "Murdered":
            alive[d["player"]] = False
            attack_logged.add(day)
            lines.append(f"{day},attack,{idx[d['player']]},true")
        elif kind == "AttackBlocked":
            attack_logged.add(day)
            lines.append(f"{day},attack,{idx[d['target']]},false")
        elif kind == "NoMurder" and day >= 1 and day not in attack_logged:
            attack_logged.add(day)
            lines.append(f"{day},attack,-1,true")
    humans = sum(1 for p in players if alive[p] and roles[p] != "Werewolf")
    wolves = sum(1 for p in players if alive[p] and roles[p] == "Werewolf")
    winner = WINNERS.get(over.get("winner") or "", "")
    status(over["day"])
    lines.append(f"{over['day']},result,{humans},{wolves},{winner}")
    return lines


def write(log: Path, out: Path | None = None, platform: bool = False) -> list[Path]:
    """Export ``log`` to ``out`` (default: beside it, ``.aiwolf.log``; a game of several
    rounds gets ``-roundN`` before the suffix); the paths written."""
    logs = export(read_records(log), platform)
    base = out or log.with_suffix(".aiwolf.log")
    paths = [base] if len(logs) == 1 else [
        base.with_name(f"{base.name.split('.')[0]}-round{i}.aiwolf.log")
        for i in range(1, len(logs) + 1)]
    for path, lines in zip(paths, logs, strict=True):
        try:
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        except OSError as exc:
            raise MawError(f"cannot write {path}: {exc.strerror or exc}") from None
    return paths
