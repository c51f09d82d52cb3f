"""``maw report results.db``: what a tournament showed, with 95% confidence intervals.

Win rates carry Wilson score intervals (sound for small samples and rates near 0 or 1);
means carry Student's t interval (its 97.5th percentile with n - 1 degrees of freedom
times the standard error: 12.7 of them for two games, 1.96 for many); a mean of one
value has none ("n/a").
"""

from __future__ import annotations

import csv
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maw.engine.roles import role_named
from maw.errors import MawError
from maw.policies import FALLBACKS

Z = 1.959964  # the 97.5th percentile of the standard normal


def wilson(wins: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


# Student's t, 97.5th percentile, for 1 to 30 degrees of freedom
_T = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
      2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
      2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t975(df: int) -> float:
    """Student's t 97.5th percentile with ``df`` degrees of freedom (beyond 30, the
    Cornish-Fisher expansion about the normal's: within 1e-4)."""
    if df <= len(_T):
        return _T[df - 1]
    return Z + (Z ** 3 + Z) / (4 * df) + (5 * Z ** 5 + 16 * Z ** 3 + 3 * Z) / (96 * df * df)


def mean_ci(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (Student's t; NaN for one value,
    which has none; 0 and 0 for none)."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0)
    mean = sum(values) / n
    if n < 2:
        return (mean, math.nan)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return (mean, t975(n - 1) * math.sqrt(var / n))


def pm(ci: float, digits: int = 2) -> str:
    """"± HALF", or "± n/a" where there is no interval (one value)."""
    return "± n/a" if math.isnan(ci) else f"± {ci:.{digits}f}"


@dataclass
class Row:
    """One line of a table: a group (an agent, a team, a role...) and its record."""

    group: str
    games: int
    wins: int
    points: float | None = None  # mean points (None: not a player's record)
    points_ci: float = 0.0

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    def cells(self) -> list[str]:
        lo, hi = self.ci
        points = "" if self.points is None else f"{self.points:.2f} {pm(self.points_ci)}"
        return [self.group, str(self.games), str(self.wins), f"{100 * self.rate:.1f}%",
                f"{100 * lo:.1f}-{100 * hi:.1f}%", points]


HEADER = ["", "games", "wins", "win rate", "95% CI", "points (95% CI)"]


@dataclass
class Section:
    """One table of the report: its title, header, rows (text), how many columns are
    text (left-aligned; the rest are numbers), and a note under it."""

    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    left: int = 0

    def __post_init__(self) -> None:
        if not self.left:  # (the leading columns that are names, not numbers)
            self.left = next((i for i, h in enumerate(self.header)
                              if h in ("games", "beliefs", "mu")), 1)


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _rate(k: int, n: int) -> str:
    if not n:
        return "-"
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.0f}% ({100 * lo:.0f}-{100 * hi:.0f}%)"


class Report:
    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise MawError(f"no results database at {path}: maw report reads the "
                           "database maw tournament writes (--out, results.db by default), "
                           "the .jsonl log of a game set or a folder of game logs; one "
                           "game: maw replay LOG")
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.logs_missing = 0  # game logs gone when the calibration read them
        try:
            self.games = self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise MawError(f"{path} is not a MAW results database: {exc}") from None
        if self.games == 0:
            raise MawError(f"{path} holds no finished game yet")

    def _rows(self, column: str) -> list[Row]:
        rows = []
        groups = self.db.execute(
            f"SELECT {column}, COUNT(*), SUM(won) FROM players GROUP BY {column} "
            f"ORDER BY SUM(won) * 1.0 / COUNT(*) DESC, {column}").fetchall()
        for group, n, wins in groups:
            points = [p for (p,) in self.db.execute(
                f"SELECT points FROM players WHERE {column} = ?", (group,))]
            mean, ci = mean_ci(points)
            rows.append(Row(str(group), n, int(wins or 0), mean, ci))
        return rows

    def by_agent(self) -> list[Row]:
        return self._rows("agent")

    def by_player(self) -> list[Row]:
        return self._rows("name")

    def by_role(self) -> list[Row]:
        return self._rows("role")

    def by_team(self) -> list[Row]:
        """Each team's record per game (not per player): how often it won."""
        rows = []
        teams = [t for (t,) in self.db.execute("SELECT DISTINCT team FROM players")]
        for team in sorted(teams):
            wins = self.db.execute("SELECT COUNT(*) FROM games WHERE winner = ?",
                                   (team,)).fetchone()[0]
            rows.append(Row(team, self.games, wins))
        return rows

    def length(self) -> dict[str, float]:
        """Mean days, phases and seconds of a game: ``seconds`` of play (from the deal to
        the outcome), ``wall`` with the game's start-up and stop (its process's time)."""
        days = [d for (d,) in self.db.execute("SELECT days FROM games")]
        phases = [p for (p,) in self.db.execute("SELECT phases FROM games")]
        secs = [s for (s,) in self.db.execute("SELECT seconds FROM games")]
        walls = [w for (w,) in self.db.execute("SELECT wall_seconds FROM games")
                 if w is not None]
        draws = self.db.execute("SELECT COUNT(*) FROM games WHERE winner IS NULL").fetchone()[0]
        d, dci = mean_ci(days)
        s, sci = mean_ci(secs)
        return {"games": self.games, "days": d, "days_ci": dci, "phases": mean_ci(phases)[0],
                "seconds": s, "seconds_ci": sci, "wall": mean_ci(walls)[0], "draws": draws}

    def llm_cost(self) -> dict[str, float]:
        """Per game: model calls, tokens, seconds of calls, repairs, fallbacks (and by
        which fallback decided: ``fallback_rule``, ``_random``, ``_listen``), calls tried
        again (``retries``), lines the gate refused (``gated``), and the money the tokens
        cost (``cost``, in the currency of the roster's ``price_per_million``;
        ``priced``: whether any seat had a price)."""
        (calls, tokens, secs, repaired, fallbacks, gated, cost, priced, retries, rule,
         random_, listen) = self.db.execute(
            "SELECT SUM(llm_calls), SUM(tokens), SUM(llm_seconds), SUM(repaired), "
            "SUM(fallbacks), SUM(gated), SUM(cost), COUNT(cost), SUM(retries), "
            "SUM(fallback_rule), SUM(fallback_random), SUM(fallback_listen) "
            "FROM players").fetchone()
        g = self.games
        return {"calls": (calls or 0) / g, "tokens": (tokens or 0) / g,
                "seconds": (secs or 0) / g, "repaired": (repaired or 0) / g,
                "fallbacks": (fallbacks or 0) / g, "gated": (gated or 0) / g,
                "retries": (retries or 0) / g, "fallback_rule": (rule or 0) / g,
                "fallback_random": (random_ or 0) / g, "fallback_listen": (listen or 0) / g,
                "cost": (cost or 0) / g, "priced": bool(priced)}

    def judgement(self) -> list[dict]:
        """Per agent, on the village's side (a wolf knows its pack), over all its roles
        (``role`` "all") and then per role: its beliefs scored against the roles (mean
        Brier score and log-loss over the phases it stated them, beside the uniform
        guess's Brier with the same certainties; lower is better), its village players'
        last top suspect being a wolf (identification precision) and their votes on
        wolves (voting success), each rate with its 95% interval."""
        out = []
        for (agent,) in self.db.execute("SELECT DISTINCT agent FROM players ORDER BY agent"):
            roles = [r for (r,) in self.db.execute(
                "SELECT DISTINCT role FROM players WHERE agent = ? AND team = 'village' "
                "ORDER BY role", (agent,))]
            for role in ["all", *roles]:
                out.append(self._judged(agent, role))
        return out

    def _judged(self, agent: str, role: str) -> dict:
        where, args = "agent = ? AND team = 'village'", (agent,)
        args_: tuple[str, ...] = args
        if role != "all":
            where, args_ = where + " AND role = ?", (agent, role)
        n, b, u, ll, hits, tops, wolf_votes, votes = self.db.execute(
            "SELECT SUM(beliefs), SUM(brier), SUM(brier_uniform), SUM(log_loss), "
            "SUM(top_suspect_wolf), COUNT(top_suspect_wolf), SUM(wolf_votes), SUM(votes) "
            f"FROM players WHERE {where}", args_).fetchone()
        n, hits, tops, wolf_votes, votes = (int(x or 0) for x in (n, hits, tops, wolf_votes,
                                                                  votes))
        return {"agent": agent, "role": role, "beliefs": n,
                "brier": b / n if n else None, "brier_uniform": u / n if n else None,
                "log_loss": ll / n if n else None,
                "precision": (hits, tops), "voting": (wolf_votes, votes)}

    def ratings(self, by_side: bool = False) -> list[dict]:
        """Each player's OpenSkill rating (Plackett-Luce: one team game per game, the
        winners ranked first, a draw a tie), in the order the games were played: ``mu``,
        its uncertainty ``sigma``, and ``ordinal`` (mu - 3 sigma, what the leaderboard is
        ordered by: a player is not ranked high on a few lucky games). ``by_side``: a
        rating of each player as a villager and another as a werewolf (its ``side``), as
        the LLM Werewolf leaderboards show them: playing a wolf is another skill."""
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        rated: dict[str, Any] = {}
        agents: dict[str, str] = {}
        played: dict[str, int] = {}
        for idx, winner in self.db.execute("SELECT idx, winner FROM games ORDER BY idx"):
            sides: dict[str, list[str]] = {}
            for name, agent, team in self.db.execute(
                    "SELECT name, agent, team FROM players WHERE game = ? ORDER BY name",
                    (idx,)):
                key = f"{name}\t{team}" if by_side else name
                sides.setdefault(team, []).append(key)
                agents[key] = agent
                played[key] = played.get(key, 0) + 1
            if len(sides) < 2:
                continue
            order = sorted(sides)
            teams = [[rated.setdefault(n, model.rating(name=n)) for n in sides[t]]
                     for t in order]
            ranks = [0.0 if winner is None or t == winner else 1.0 for t in order]
            for members in model.rate(teams, ranks=ranks):
                for rated_one in members:
                    rated[str(rated_one.name)] = rated_one
        rows = []
        for key, r in rated.items():
            name, _, side = key.partition("\t")
            row = {"player": name, "agent": agents[key], "games": played[key], "mu": r.mu,
                   "sigma": r.sigma, "ordinal": r.ordinal()}
            if by_side:
                row["side"] = side
            rows.append(row)
        return sorted(rows, key=lambda row: (row.get("side", ""), -row["ordinal"],
                                             row["player"]))

    def calibration(self, bins: int = 10) -> dict[str, list[tuple[float, float, int]]]:
        """Per agent, its village players' beliefs binned by the probability stated:
        (mean stated, share that were wolves, how many), read from the games' logs (a log
        that is gone is skipped, and counted in ``logs_missing``)."""
        import json

        sums: dict[str, list[list[float]]] = {}
        self.logs_missing = 0
        for idx, log in self.db.execute("SELECT idx, log FROM games ORDER BY idx"):
            try:
                lines = Path(log).read_text(encoding="utf-8").splitlines()
            except OSError:
                self.logs_missing += 1
                continue
            agents = dict(self.db.execute("SELECT name, agent FROM players WHERE game = ? "
                                          "AND team = 'village'", (idx,)).fetchall())
            records = [json.loads(x) for x in lines]
            deal = next((r for r in records if r["kind"] == "round"), None)
            if deal is None:
                continue
            wolves = {n for n, role in deal["roles"].items() if role_named(role).pack}
            for r in records:
                if r["kind"] != "beliefs" or r["player"] not in agents or \
                        r.get("round") != deal.get("round"):
                    continue
                table = sums.setdefault(agents[r["player"]], [[0.0, 0.0, 0] for _ in
                                                              range(bins)])
                for name, p in r["beliefs"].items():
                    cell = table[min(bins - 1, int(p * bins))]
                    cell[0] += p
                    cell[1] += name in wolves
                    cell[2] += 1
        return {agent: [(s / n, hit / n, int(n)) for s, hit, n in table if n]
                for agent, table in sums.items()}

    def key_roles(self) -> list[Row]:
        """How often the roles the village leans on (``Role.valued``) lived to the end."""
        from maw.engine.roles import valued

        rows = []
        for role in sorted(valued()):
            n, alive = self.db.execute("SELECT COUNT(*), SUM(survived) FROM players WHERE "
                                       "role = ?", (role,)).fetchone()
            if n:
                rows.append(Row(role, n, int(alive or 0)))
        return rows

    def checks(self) -> dict[str, int]:
        """Counts that must be 0 in a sound game (dead targets), and the others."""
        row = self.db.execute(
            "SELECT SUM(dead_target_votes), SUM(refused), SUM(late), SUM(teammates_attacked), "
            "SUM(unanswered) FROM players").fetchone()
        keys = ("dead_target_votes", "refused", "late", "teammates_attacked", "unanswered")
        out = {k: int(v or 0) for k, v in zip(keys, row, strict=True)}
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
        audited, violations = self.db.execute(
            "SELECT COUNT(violations), SUM(violations) FROM games").fetchone() if \
            "violations" in columns else (0, 0)  # (a database from before maw audit)
        out["audited"], out["violations"] = int(audited or 0), int(violations or 0)
        return out

    def tables(self) -> dict[str, list[Row]]:
        return {"agents": self.by_agent(), "teams": self.by_team(), "roles": self.by_role(),
                "players": self.by_player()}

    # ------------------------------------------------------------ output

    def sections(self) -> list[Section]:
        """The report, as the terminal, the HTML page and nothing else show it: titled
        tables, then notes."""
        out = []
        ratings = self.ratings()
        if ratings:
            out.append(Section(
                "Leaderboard: OpenSkill ratings (ordered by mu - 3 sigma)",
                ["player", "agent", "games", "mu", "sigma", "mu - 3 sigma"],
                [[r["player"], r["agent"], str(r["games"]), f"{r['mu']:.2f}",
                  f"{r['sigma']:.2f}", f"{r['ordinal']:.2f}"] for r in ratings]))
            out.append(Section(
                "Ratings by side: as a villager and as a werewolf",
                ["side", "player", "agent", "games", "mu", "sigma", "mu - 3 sigma"],
                [[r["side"], r["player"], r["agent"], str(r["games"]), f"{r['mu']:.2f}",
                  f"{r['sigma']:.2f}", f"{r['ordinal']:.2f}"]
                 for r in self.ratings(by_side=True)]))
        for title, rows in self.tables().items():
            out.append(Section(f"By {title[:-1]}", [title[:-1], *HEADER[1:]],
                               [r.cells() for r in rows]))
        judged = [j for j in self.judgement() if j["beliefs"] or j["voting"][1]]
        if judged:
            out.append(Section(
                "Beliefs and judgement (the village's side)",
                ["agent", "role", "beliefs", "Brier", "uniform", "log-loss",
                 "top suspect a wolf", "votes on wolves"],
                [[j["agent"], j["role"], str(j["beliefs"]), _num(j["brier"]),
                  _num(j["brier_uniform"]), _num(j["log_loss"]), _rate(*j["precision"]),
                  _rate(*j["voting"])] for j in judged],
                "Brier and log-loss: lower is better; 'uniform' is the Brier score of an "
                "even guess with the same certainties."))
        return out

    def notes(self) -> list[str]:
        """The one-line figures under the tables."""
        n = self.length()
        lines = [f"games: {n['games']}, mean length {n['days']:.2f} {pm(n['days_ci'])} days "
                 f"({n['phases']:.1f} phases); {n['seconds']:.1f} {pm(n['seconds_ci'], 1)} s "
                 f"of play a game, {n['wall']:.1f} s with its start-up and stop; draws "
                 f"{n['draws']}"]
        key = self.key_roles()
        if key:
            lines.append("key roles alive at the end: " + "; ".join(
                f"{r.group} {r.wins}/{r.games} ({_rate(r.wins, r.games)})" for r in key))
        c = self.llm_cost()
        if c["calls"]:
            by = ", ".join(f"{k} {c['fallback_' + k]:.1f}" for k in FALLBACKS)
            cost = f"; cost {c['cost']:.4f} a game" if c["priced"] else \
                " (no price: give price_per_million in the roster's [llm] for the cost)"
            lines.append(f"LLM per game: {c['calls']:.1f} calls, {c['tokens']:.0f} tokens, "
                         f"{c['seconds']:.1f} s of calls, {c['retries']:.1f} retried, "
                         f"{c['repaired']:.1f} repaired, {c['fallbacks']:.1f} fallbacks "
                         f"({by}), {c['gated']:.1f} lines the gate refused (said by "
                         f"rule){cost}")
        k = self.checks()
        lines.append(f"maw audit: {k['audited']} of {self.games} games checked against "
                     f"the rules, {k['violations']} violations (must be 0)")
        lines.append(f"votes on dead targets: {k['dead_target_votes']} (must be 0); "
                     f"refused actions: {k['refused']}; late (actions sent after their "
                     f"phase was over, refused as too late): {k['late']}; attacks on a "
                     f"packmate: {k['teammates_attacked']}; unanswered questions: "
                     f"{k['unanswered']}")
        return lines

    def print(self) -> None:
        print_sections(self.sections(), self.notes())

    def write_csv(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for title, rows in self.tables().items():
            path = folder / f"{title}.csv"
            with path.open("w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow([title[:-1], "games", "wins", "win_rate", "ci_low", "ci_high",
                            "points", "points_ci"])
                for r in rows:
                    lo, hi = r.ci
                    points = ("", "") if r.points is None else (
                        round(r.points, 4), "" if math.isnan(r.points_ci) else
                        round(r.points_ci, 4))  # (none for one game)
                    w.writerow([r.group, r.games, r.wins, round(r.rate, 4), round(lo, 4),
                                round(hi, 4), *points])
            written.append(path)
        path = folder / "ratings.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)  # (side "all": the overall rating; then each side's, as printed)
            w.writerow(["player", "agent", "side", "games", "mu", "sigma", "ordinal"])
            for rating in [*self.ratings(), *self.ratings(by_side=True)]:
                w.writerow([rating["player"], rating["agent"], rating.get("side", "all"),
                            rating["games"], round(rating["mu"], 4), round(rating["sigma"], 4),
                            round(rating["ordinal"], 4)])
        written.append(path)
        path = folder / "beliefs.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["agent", "role", "beliefs", "brier", "brier_uniform", "log_loss",
                        "top_suspect_wolf", "top_suspects", "wolf_votes", "votes"])
            for j in self.judgement():
                w.writerow([j["agent"], j["role"], j["beliefs"], *("" if j[k] is None else
                                                        round(j[k], 4) for k in
                                                        ("brier", "brier_uniform",
                                                         "log_loss")),
                            *j["precision"], *j["voting"]])
        written.append(path)
        path = folder / "games.csv"  # (every column the database keeps of a game)
        from maw.tournament.runner import GAME_COLUMNS

        cur = self.db.execute(f"SELECT {', '.join(GAME_COLUMNS)} FROM games ORDER BY idx")
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([d[0] for d in cur.description])
            w.writerows(cur)
        written.append(path)
        return written


def print_sections(sections: list[Section], notes: list[str]) -> None:
    """The report's tables (rich), then its notes."""
    import sys

    from rich.console import Console
    from rich.table import Table

    # (piped, rich would cut the tables at 80 columns: a file gets them whole; no markup:
    # "the roster's [llm]" and "Agent[03]" are text, which rich's markup ate)
    console = Console(width=None if sys.stdout.isatty() else 200, markup=False)
    for sec in sections:
        table = Table(title=sec.title, title_justify="left")
        for i, h in enumerate(sec.header):
            table.add_column(h, justify="left" if i < sec.left else "right",
                             overflow="fold")
        for row in sec.rows:
            table.add_row(*row)
        console.print(table)
        if sec.note:
            console.print(sec.note)
    for line in notes:
        console.print(line)


def _a_log(path: Path) -> bool:
    """Whether ``path`` is a MAW log (a game's, a player's, a server's), by its first
    line: a chat room's archive beside a game log (``game-.../round1-day1-Village.jsonl``)
    is JSON without a record's ``kind``. A line that is no JSON at all counts as a log,
    so that a broken log is named, not passed over."""
    import json

    try:
        with path.open(encoding="utf-8") as f:
            first = next((line for line in f if line.strip()), "")
        head = json.loads(first)
    except (OSError, UnicodeDecodeError, ValueError):
        return True
    return not isinstance(head, dict) or "kind" in head


class SetReport:
    """A game set: the rounds of one ``maw game --rounds N`` (an AIWolf game set, the
    platform's agents in the same seats throughout), read from its log's ``outcome``
    records, ranked as the AIWolf regulation ranks a set: by each player's win rate.

    ``log`` may also be a folder (``maw game --log-dir``'s, or a server's): every game log
    under it (``*.jsonl``) counts, as one set. A log that cannot be read is left out and
    named in ``skipped`` (its reason), so one broken file does not hide the others; a game
    cut short has no outcome and counts as none. ``tick(files)`` is called once a file
    is read, with how many there are."""

    def __init__(self, log: Path, tick=None) -> None:
        from maw.errors import ReplayError
        from maw.records.log import read_log
        from maw.records.schema import Outcome

        self.source = log
        self.skipped: list[str] = []
        if log.is_dir():
            logs = sorted(log.rglob("*.jsonl"))
            if not logs:
                raise MawError(f"{log} holds no game log (*.jsonl)")
        else:
            logs = [log]
        self.outcomes = []
        for path in logs:
            try:
                records = read_log(path) if _a_log(path) else []
            except ReplayError as exc:
                if not log.is_dir():
                    raise
                self.skipped.append(str(exc))
                records = []
            self.outcomes += [r for r in records if isinstance(r, Outcome)]
            if tick is not None:
                tick(len(logs))
        if not self.outcomes:
            raise MawError(f"{log} holds no finished game" + (
                f" ({len(self.skipped)} of its {len(logs)} logs could not be read; the "
                f"first: {self.skipped[0]})" if self.skipped else ""))

    def _rows(self, key) -> list[Row]:
        games: dict[str, list[tuple[bool, int]]] = {}
        for out in self.outcomes:
            for name, role in out.roles.items():
                won = out.winner is not None and role_named(role).team.value == out.winner
                games.setdefault(key(name, role), []).append((won, out.points.get(name, 0)))
        rows = []
        for group, record in games.items():
            mean, ci = mean_ci([float(p) for _w, p in record])
            rows.append(Row(group, len(record), sum(w for w, _p in record), mean, ci))
        return sorted(rows, key=lambda r: (-r.rate, r.group))

    def sections(self) -> list[Section]:
        n = len(self.outcomes)
        title = (f"{n} game(s) from a folder of logs"
                 if self.source.is_dir() else f"A game set of {n} game(s)")
        return [Section(f"{title}: by player, ranked by win rate",
                        ["player", *HEADER[1:]], [r.cells() for r in self._rows(
                            lambda name, role: name)]),
                Section("By role", ["role", *HEADER[1:]],
                        [r.cells() for r in self._rows(lambda name, role: role)])]

    def print(self) -> None:
        wins: dict[str, int] = {}
        for out in self.outcomes:
            wins[out.winner or "nobody"] = wins.get(out.winner or "nobody", 0) + 1
        print_sections(self.sections(), [
            "won: " + ", ".join(f"{team} {k} of {len(self.outcomes)}"
                                for team, k in sorted(wins.items()))]
                       + ([f"the logs under {self.source}"] if self.source.is_dir() else [])
                       + [f"left out, not readable: {why}" for why in self.skipped])
