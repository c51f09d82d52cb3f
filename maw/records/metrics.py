"""Per-game and per-player metrics, read from a game's JSONL log (``maw tournament``).

A log holds everything: the roles dealt (``round``), every accepted action (``action``),
deaths (``event``), refusals (``msg`` of type ``refuse``), LLM calls (``llm``), questions
and answers (``input``, ``turn``) and the result (``outcome``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from maw import engine
from maw.errors import ReplayError
from maw.policies.base import FALLBACKS
from maw.policies.beliefs import brier, flat, log_loss

# refusals that are timing, not a bad move: the action arrived after its phase ended
LATE = ("too late", "the Village is closed", "the Hideout is closed", "no game is in progress")


@dataclass
class PlayerMetrics:
    name: str
    agent: str  # what played the seat: rule, random, llm:BACKEND:MODEL
    role: str = ""
    team: str = ""
    won: bool = False
    points: int = 0
    survived: bool = True
    votes: int = 0  # execution ballots counted: its vote at the end of each vote round
    dead_target_votes: int = 0  # accepted votes or attacks on a dead player: must be 0
    refused: int = 0  # actions the GameMaster or a room refused, not for being late
    late: int = 0  # actions that arrived after their phase
    teammates_attacked: int = 0  # a wolf's attack votes on a wolf
    questions: int = 0  # get_input asked of its interface
    unanswered: int = 0  # ... that were never answered
    llm_calls: int = 0
    tokens: int = 0
    llm_seconds: float = 0.0
    repaired: int = 0
    fallbacks: int = 0
    # ... by which fallback decided (a roster's ``fallback``: maw.llm.decider)
    fallback_rule: int = 0
    fallback_random: int = 0
    fallback_listen: int = 0
    retries: int = 0  # model calls tried again after a server's transient error
    gated: int = 0  # lines the gate refused (maw.policies.gate): the rule layer's said
    wolf_votes: int = 0  # ... of its counted execution ballots (``votes``), those on a wolf
    beliefs: int = 0  # phases in which its decider stated its beliefs (Decider.beliefs)
    brier: float = 0.0  # ... their Brier scores, summed (mean: / beliefs)
    brier_uniform: float = 0.0  # ... the uniform guess's with the same certainties
    log_loss: float = 0.0  # ... their log-losses, summed
    top_suspect_wolf: int | None = None  # its last top suspect was a wolf (1/0; None: no
    # beliefs, or a wolf's)
    substitute: str | None = None  # the stand-in that took its seat over (--substitute)


@dataclass
class GameMetrics:
    winner: str | None = None  # "village", "werewolves", None for a draw
    reason: str = ""
    days: int = 0
    phases: int = 0  # phases played (a revote is one more)
    seconds: float = 0.0  # from the deal to the result
    players: list[PlayerMetrics] = field(default_factory=list)


def game_metrics(records: Sequence[Any], agents: dict[str, str]) -> GameMetrics:
    """The metrics of the first round of the game in ``records``; ``agents`` names what
    played each seat."""
    deal = next((r for r in records if r["kind"] == "round"), None)
    over = next((r for r in records if r["kind"] == "outcome"), None)
    if deal is None or over is None:
        raise ReplayError("the log has no complete round")
    roles: dict[str, str] = deal["roles"]
    teams = {n: engine.role_named(r).team.value for n, r in roles.items()}
    wolves = {n for n, r in roles.items() if engine.role_named(r).pack}
    out = {n: PlayerMetrics(n, agents.get(n, "?"), role=roles[n], team=teams[n])
           for n in roles}
    game = GameMetrics(over.get("winner"), over.get("reason", ""), over.get("day", 0), 0,
                       round(over["t"] - deal["t"], 3), list(out.values()))
    for n, p in out.items():
        p.won = game.winner is not None and p.team == game.winner
        p.points = int(over.get("points", {}).get(n, 0))
    by_jid: dict[str, str] = {}
    dead: set[str] = set()
    first_round = deal.get("round", 1)
    last: dict[str, dict[str, float]] = {}
    for r in records:  # beliefs (written as each phase ends, the last after the outcome)
        if r["kind"] == "beliefs" and r.get("round") == first_round and r["player"] in out:
            p, belief = out[r["player"]], r["beliefs"]
            if not belief:
                continue
            p.beliefs += 1
            p.brier += brier(belief, wolves)
            p.brier_uniform += brier(flat(belief), wolves)
            p.log_loss += log_loss(belief, wolves)
            last[r["player"]] = belief
    for name, belief in last.items():
        if out[name].team == "village":
            top = max(sorted(belief), key=lambda n: belief[n])
            out[name].top_suspect_wolf = int(top in wolves)
    for r in records:
        if r["t"] < deal["t"] or r["t"] > over["t"]:
            continue
        kind = r["kind"]
        if kind == "action":
            data, action = r.get("data", {}), r.get("action")
            actor, target = data.get("actor"), data.get("target")
            if actor not in out:
                continue
            if action in ("Vote", "Attack") and target in dead:
                out[actor].dead_target_votes += 1
            if action == "Attack" and target in wolves:
                out[actor].teammates_attacked += 1
        elif kind == "event" and r.get("event") == "VotesRevealed" and \
                r.get("data", {}).get("kind") == "execute":
            # its ballots as counted, one a vote round (the votes it changed on the way
            # there are not trials: a player asked at every news once cast thousands)
            for voter, target in r["data"].get("votes") or ():
                if voter in out:
                    out[voter].votes += 1
                    out[voter].wolf_votes += target in wolves
        elif kind == "event" and r.get("event") == "PhaseStarted":
            game.phases += 1
        elif kind == "event" and r.get("event") in ("Executed", "Murdered"):
            victim = r.get("data", {}).get("target") or r.get("data", {}).get("player")
            if victim:
                dead.add(victim)
                if victim in out:
                    out[victim].survived = False
        elif kind == "msg":
            body = r.get("body") or {}
            if (r.get("type") in engine.ACTIONS or r.get("type") == "listen") \
                    and body.get("player") in out:
                by_jid[r.get("sender", "")] = body["player"]
            if r.get("type") == "refuse":
                who = by_jid.get(r.get("to") or r.get("receiver") or "")
                if who is not None:
                    if str(body.get("reason", "")).startswith(LATE):
                        out[who].late += 1
                    else:
                        out[who].refused += 1
        elif kind == "substituted" and r.get("player") in out:
            out[r["player"]].substitute = r.get("decider")
        elif kind == "input" and r.get("player") in out:
            out[r["player"]].questions += 1
        elif kind == "turn" and r.get("player") in out:
            out[r["player"]].unanswered -= 1
        elif kind == "llm" and r.get("player") in out:
            p = out[r["player"]]
            p.llm_calls += r.get("calls", 0)
            p.tokens += r.get("tokens", 0)
            p.llm_seconds = round(p.llm_seconds + r.get("seconds", 0.0), 3)
            p.repaired += r.get("outcome") == "repaired"
            p.fallbacks += r.get("outcome") == "fallback"
            which = r.get("fallback_decider")
            if r.get("outcome") == "fallback" and which in FALLBACKS:
                setattr(p, f"fallback_{which}", getattr(p, f"fallback_{which}") + 1)
            p.retries += len(r.get("retries") or ())
            p.gated += bool(r.get("gated"))
    for p in out.values():
        p.unanswered = max(0, p.questions + p.unanswered)
    return game
