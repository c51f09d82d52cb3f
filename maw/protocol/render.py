"""The one place facts become English: what a player heard (``heard``, for the person's
screen and the model's prompt, so both read the same words) and the host's transcript of
engine events (``event_line``, live in ``maw game`` and from a log in ``maw replay``)."""

from __future__ import annotations

from typing import Any

from maw.protocol import heard as h


def heard(record: Any) -> str:
    """The line a player's interface shows (or a prompt carries) for one heard record."""
    match record:
        case h.Said():
            return f"{record.speaker}: {record.text}"
        case h.WhisperHeard():
            return f"[whisper] {record.speaker} to {record.to}: {record.text}"
        case h.RoomOpened():
            return f"[{record.room}] open for {', '.join(record.players)}."
        case h.VoteHeard():
            if not record.target:
                return f"[GM] {record.voter} withdraws the vote."
            return f"[GM] {record.voter} {_chose(record.vote, record.target)}."
        case h.ResultHeard():
            return _result(record)
        case h.Revealed():
            return _revealed(record)
        case h.RoleDealt():
            pack = f" (the pack: {', '.join(record.pack)})" if record.pack else ""
            return f"[GM] You are a {record.role}{pack}."
        case h.Died():
            return f"[GM] You were {record.cause} on day {record.day}."
        case h.PhaseBegan():
            revote = " (revote)" if record.vote_round else ""
            if record.votes == "closed":
                return (f"[GM] Day {record.day}, {record.phase}{revote}: talk first; the "
                        "votes open once everyone has spoken or passed.")
            if record.votes == "opened":
                return f"[GM] Day {record.day}: the votes are open."
            if record.phase == "witch":  # (her step alone: nobody else hears of it)
                return f"[GM] Night {record.day}: the Witch's turn."
            if record.phase == "hunt":
                return "[GM] You are dead, Hunter: /shoot NAME takes one player with you."
            if record.phase in STEP_WORDS:
                return f"[GM] Day {record.day}: {STEP_WORDS[record.phase]}"
            return f"[GM] Day {record.day}, {record.phase}{revote}."
        case h.RoundBegan():
            return (f"[GM] Round {record.round} of {record.rounds} starts with "
                    f"{len(record.players)} players: {', '.join(record.players)}.")
        case h.GameEnded():
            return _ended(record)
        case h.Narrated():
            return f"[Moderator] {record.text}"
        case h.ScoresShown():
            board = ", ".join(f"{n} {p}" for n, p in record.leaderboard)
            over = (f"after {record.done} of {record.rounds} round(s)" if record.done else
                    "no round is over yet (points come at a round's end)")
            return f"[GM] The scores, {over}: {board}."
        case h.Notice():
            return f"[GM] {record.text}"
    raise TypeError(f"not a heard record: {record!r}")


def _ended(record: h.GameEnded) -> str:
    """The end of a round: the winner, then a line per player with its role and points
    (the roles are no secret once the round is over)."""
    head = f"[GM] The game is over: {record.winner or 'nobody'} won ({record.reason})."
    if not record.roles:
        return head
    width = max(len(n) for n in record.roles)
    kinds = max(len(r) for r in record.roles.values())
    lines = [head, "     Who was who, and the points of the round:"]
    for name, role in record.roles.items():
        points = record.points.get(name, 0)
        lines.append(f"     {name:<{width}}  {role:<{kinds}}  {points} "
                     f"point{'' if points == 1 else 's'}")
    return "\n".join(lines)


STEP_WORDS = {  # werewolf-12's public steps, as a person reads them
    "candidacy": "the sheriff's election: /run to stand (the sheriff's vote counts 1.5, and "
                 "the sheriff speaks last).",
    "campaign": "the candidates speak, once each (/withdraw to stand down).",
    "election": "those who did not stand vote for a sheriff (/vote NAME).",
    "last_words": "last words: the dead speak once.",
    "badge": "the sheriff is dead and passes the badge (/badge NAME) or tears it (/tear).",
    "order": "the sheriff chooses which neighbour speaks first (/first NAME).",
}
# ... and as the host's transcript says them
STEP_LINES = {
    "candidacy": "the sheriff's election, for whoever stands",
    "campaign": "the candidates speak, once each",
    "election": "those who did not stand vote for a sheriff",
    "last_words": "the dead say their last words",
    "badge": "the dead sheriff passes the badge or tears it",
    "order": "the sheriff chooses which neighbour speaks first",
}

REVEALED = {  # a private result, by its kind
    "divine": "[GM] Your divination: {t} is {v}.",
    "medium": "[GM] Your reading: {t} was {v}.",
    "role": "[GM] {t} was {av}.",
    "blocked": "[GM] The attack on {t} was blocked: {t} was {v}.",
    "guard": "[GM] You guard {t}.",
    "save": "[GM] Tonight the werewolves attack {t}: /save {t}, /poison NAME, or let it be.",
}


def _revealed(r: h.Revealed) -> str:
    # (a registered action's result: what it found, or, with nothing found, whom it named)
    known = REVEALED.get(r.what, "[GM] {w}: {t} is {v}." if r.value else "[GM] You {w} {t}.")
    return known.format(w=r.what, t=r.target, v=r.value, av=_a(r.value))


def _a(noun: str) -> str:
    """"a Seer", "an Idiot"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


# a vote or a night's choice, in words ("divines Gus", not "votes for Gus (divine)")
_CHOSE = {"execute": "votes for {t}", "attack": "wants to attack {t}", "divine": "divines {t}",
          "guard": "guards {t}", "sheriff": "votes for {t} as sheriff"}


def _chose(kind: str, target: str) -> str:
    return _CHOSE.get(kind, kind + " {t}").format(t=target)


def _and(names: list[str] | tuple[str, ...]) -> str:
    """"Ann", "Ann and Bob", "Ann, Bob and Cid"."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _result(r: h.ResultHeard) -> str:
    if r.status == "executed":
        if r.tied:
            return (f"[GM] Tie between {_and(r.tied)}: chance picked {r.target}, who was "
                    "executed.")
        return f"[GM] {r.target} was executed."
    if r.status == "murdered":
        return f"[GM] {r.target} was found murdered."
    if r.status == "revote":
        between = ", between them alone" if r.reason == "runoff" else ""
        return f"[GM] Tie between {_and(r.tied)}: vote again{between}."
    if r.status == "spared":
        return f"[GM] {r.target} was voted out but lives: {_a(r.reason)}, who votes no more."
    if r.status == "shot":
        return f"[GM] {r.by} was a Hunter and shot {r.target}."
    if r.status == "ran":
        return f"[GM] {r.target} stands for sheriff."
    if r.status == "withdrew":
        return f"[GM] {r.target} stands down."
    if r.status == "elected":
        if r.target is None:
            return "[GM] No sheriff is elected."
        return f"[GM] {r.target} is elected sheriff: 1.5 votes from now on."
    if r.status == "badge":
        if r.target is None:
            return f"[GM] {r.by} tears the sheriff's badge: no sheriff from now on."
        return f"[GM] {r.by} passes the sheriff's badge to {r.target}."
    if r.status == "order":
        return f"[GM] Today's speeches, one each, in turn: {', '.join(r.order)}."
    if r.status == "exploded":
        return f"[GM] {r.target} reveals itself as a werewolf and explodes: the day ends."
    if r.status == "no_execution":
        if r.tied:
            return f"[GM] Nobody was executed: a tie between {_and(r.tied)}."
        return f"[GM] Nobody was executed ({r.reason})."
    return "[GM] Nobody was murdered last night."


def event_text(e: Any) -> str | None:
    """``event_line`` of an engine event object (its fields as a log record has them)."""
    fields: dict[str, Any] = {}
    for key in e.__slots__:
        v = getattr(e, key)
        fields[key] = sorted(v) if isinstance(v, frozenset) else getattr(v, "value", v)
    return event_line(type(e).__name__, fields)


def event_line(event: str, d: dict[str, Any]) -> str | None:
    """One transcript line for an engine event (by name and fields), or ``None`` to skip."""
    secret = d.get("audience")
    tag = f" (to {', '.join(sorted(secret))})" if secret else ""
    match event:
        case "GameStarted":
            return f"== A game of {d['ruleset']} with {', '.join(d['players'])}"
        case "RoleAssigned":
            pack = f" (the pack: {', '.join(d['pack'])})" if d.get("pack") else ""
            return f"   {d['player']} is {_a(d['role'])}{pack}"
        case "PhaseStarted":
            return _phase(d, tag)
        case "Chatted":
            room = d["room"] if isinstance(d["room"], str) else d["room"].value
            return f"   [{room}] {d['speaker']}: {d['text']}"
        case "Overed":
            return None
        case "VotesRevealed":
            return _tally(d)
        case "Passed":
            return f"   {d['player']} passes"
        case "VotesOpened":
            why = "everyone has spoken or passed" if d["by"] == "talk" else "the talk's time is up"
            return f"-- The votes are open ({why})"
        case "VoteCast":
            if d["target"] is None:
                return f"   {d['voter']} withdraws the vote"
            return f"   {d['voter']} {_chose(d['kind'], d['target'])}{tag}"
        case "Executed":
            if d.get("drawn"):
                return (f"** {d['player']} is executed ({_votes(d['votes'])}): a tie between "
                        f"{_and(d['drawn'])}, settled by chance")
            return f"** {d['player']} is executed ({_votes(d['votes'])})"
        case "NoExecution":
            if d.get("tied"):
                return f"** Nobody is executed: a tie between {_and(d['tied'])}"
            return f"** Nobody is executed ({d['reason']})"
        case "Revote":
            between = ", between them alone" if d.get("runoff") else ""
            return f"** Tie between {_and(d['tied'])}: vote again{between}{tag}"
        case "RoleRevealed":
            return f"   {d['player']} was {_a(d['role'])}{tag}"
        case "Murdered":
            return f"** {d['player']} is found murdered"
        case "Spared":
            return (f"** {d['player']} is voted out ({_votes(d['votes'])}) but lives: "
                    f"{_a(d['role'])}, who votes no more")
        case "Shot":
            return f"** {d['hunter']}, a Hunter, shoots {d['target']}"
        case "Ran":
            return f"   {d['player']} {'stands down' if d['withdrawn'] else 'stands for sheriff'}"
        case "SheriffElected":
            return _elected(d)
        case "BadgePassed":
            return (f"** {d['sheriff']} passes the sheriff's badge to {d['target']}"
                    if d["target"] else
                    f"** {d['sheriff']} tears the sheriff's badge: no sheriff from now on")
        case "SpeakingOrder":
            return f"   Today's speeches, one each, in turn: {', '.join(d['order'])}"
        case "Exploded":
            return (f"** {d['player']} explodes, a werewolf revealed: the day ends with no "
                    "vote")
        case "NoMurder":
            return "** Nobody was murdered"
        case "AttackBlocked":
            return f"   The attack on {d['target']} was blocked{tag}"
        case "Divined":
            return f"   {d['seer']} divines {d['target']}: {d['species']}{tag}"
        case "Guarded":
            return f"   {d['bodyguard']} guards {d['target']}{tag}"
        case "Whispered":
            return f"   [whisper] {d['speaker']} to {d['target']}: {d['text']}"
        case "Acted":
            verb = {"save": "saves {t} with the potion of life",
                    "poison": "poisons {t}"}.get(d["action"], "uses " + d["action"] + " on {t}")
            return f"   {d['actor']} {verb.format(t=d['target'])}{tag}"
        case "NightResult" if d["value"] == "attacked":  # the Witch's step
            return f"   {d['actor']} is told the pack attacks {d['target']}{tag}"
        case "NightResult":
            return f"   {d['actor']} learns by {d['action']}: {d['target']} {d['value']}{tag}"
        case "MediumResult":
            return f"   {d['medium']} reads {d['target']}: {d['species']}{tag}"
        case "GameOver":
            winner = d["winner"]
            won = (f"{winner} {'win' if winner.endswith('s') else 'wins'} ({d['reason']})"
                   if winner else f"nobody wins, a draw ({d['reason']})")
            roles = ", ".join(f"{n} {r}" for n, r in d["roles"])
            return f"== Game over on day {d['day']}: {won}. Roles: {roles}"
    return f"   {event} {d}"


def _votes(n: float) -> str:
    """"1 vote", "3 votes", "3.5 votes"."""
    n = int(n) if float(n).is_integer() else n
    return f"{n} vote{'' if n == 1 else 's'}"


def _phase(d: dict[str, Any], tag: str) -> str:
    """A phase's start: the day and what happens in it (a werewolf-12 step in words)."""
    alive = f"Alive: {', '.join(d['living'])}"
    phase = d["phase"]
    if phase in STEP_LINES:
        return f"-- Day {d['day']}: {STEP_LINES[phase]}{tag}. {alive}"
    if phase == "witch":
        return f"-- Night {d['day']}: the Witch's turn{tag}. {alive}"
    if phase == "hunt":
        return f"-- Day {d['day']}: the dead Hunter's shot{tag}. {alive}"
    again = (f", once more (after a tie between {_and(d['candidates'])})"
             if d.get("candidates") else "")
    return f"-- Day {d['day']}, {phase}{again}{tag}. {alive}"


def _counted(votes: list, sheriff: str = "") -> list[tuple[str, float, list[str]]]:
    """Each target's count (the sheriff's vote 1.5) and voters, the most voted first."""
    by: dict[str, list[str]] = {}
    for voter, target in votes:
        by.setdefault(target, []).append(voter)
    counts = [(t, sum(1.5 if v == sheriff else 1 for v in vs), vs) for t, vs in by.items()]
    return sorted(counts, key=lambda c: (-c[1], c[0]))


def _n(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _elected(d: dict[str, Any]) -> str:
    """The sheriff's election in a sentence: who, by how many, against whom."""
    counts = _counted(d["votes"])
    if not d["sheriff"]:
        if not counts:
            return "** No sheriff is elected: nobody stood, or everyone did"
        n = counts[0][1]
        top = [f"{t} ({', '.join(vs)})" for t, c, vs in counts if c == n]
        rest = [c for c in counts if c[1] != n]
        return (f"** No sheriff is elected: a tie of {_votes(n)} between {_and(top)}"
                + (f"; {_each(rest)}" if rest else ""))
    if not counts:
        return f"** {d['sheriff']} is elected sheriff unopposed"
    (_t, n, voters), rest = counts[0], counts[1:]
    against = f"; {_each(rest)}" if rest else ""
    return (f"** {d['sheriff']} is elected sheriff with {_votes(n)} ({', '.join(voters)})"
            f"{against}")


def _each(counts: list[tuple[str, float, list[str]]]) -> str:
    return ", ".join(f"{t} {_n(n)} ({', '.join(vs)})" for t, n, vs in counts)


def _tally(d: dict[str, Any]) -> str | None:
    """A finished vote in one line: each target, its count and its voters, most first (a
    sheriff's vote counts 1.5, and the line says so)."""
    sheriff = d.get("sheriff") or ""
    counts = _counted(d["votes"], sheriff)
    if not counts:
        return None
    parts = "; ".join(f"{t} {_n(n)} ({', '.join(vs)})" for t, n, vs in counts)
    what = {"execute": "the votes", "sheriff": "the sheriff votes"}.get(d["kind"],
                                                                       "the attack votes")
    again = " (revote)" if d.get("vote_round") else ""
    weight = (f" (the sheriff {sheriff}'s counts 1.5)"
              if any(v == sheriff for v, _t in d["votes"]) else "")
    tag = f" (to {', '.join(sorted(d['audience']))})" if d.get("audience") else ""
    return f"   Day {d['day']}, {what}{again}{weight}: {parts}{tag}"
