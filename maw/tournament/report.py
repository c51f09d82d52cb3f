"""``maw report results.db``: what a tournament showed, with 95% confidence intervals.

Win rates carry Wilson score intervals (sound for small samples and rates near 0 or 1);
means carry a normal interval (1.96 standard errors).
"""

from __future__ import annotations

import csv
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from maw.errors import MawError

Z = 1.959964  # the 97.5th percentile of the standard normal


def wilson(wins: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (0 for fewer than two values)."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0)
    mean = sum(values) / n
    if n < 2:
        return (mean, 0.0)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return (mean, Z * math.sqrt(var / n))


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
        points = "" if self.points is None else f"{self.points:.2f} ± {self.points_ci:.2f}"
        return [self.group, str(self.games), str(self.wins), f"{100 * self.rate:.1f}%",
                f"{100 * lo:.1f}-{100 * hi:.1f}%", points]


HEADER = ["", "games", "wins", "win rate", "95% CI", "points (95% CI)"]


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
            raise MawError(f"no results database at {path}")
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
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
        days = [d for (d,) in self.db.execute("SELECT days FROM games")]
        phases = [p for (p,) in self.db.execute("SELECT phases FROM games")]
        secs = [s for (s,) in self.db.execute("SELECT seconds FROM games")]
        draws = self.db.execute("SELECT COUNT(*) FROM games WHERE winner IS NULL").fetchone()[0]
        d, dci = mean_ci(days)
        s, sci = mean_ci(secs)
        return {"games": self.games, "days": d, "days_ci": dci, "phases": mean_ci(phases)[0],
                "seconds": s, "seconds_ci": sci, "draws": draws}

    def llm_cost(self) -> dict[str, float]:
        calls, tokens, secs, repaired, fallbacks = self.db.execute(
            "SELECT SUM(llm_calls), SUM(tokens), SUM(llm_seconds), SUM(repaired), "
            "SUM(fallbacks) FROM players").fetchone()
        g = self.games
        return {"calls": (calls or 0) / g, "tokens": (tokens or 0) / g,
                "seconds": (secs or 0) / g, "repaired": (repaired or 0) / g,
                "fallbacks": (fallbacks or 0) / g}

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
        if role != "all":
            where, args = where + " AND role = ?", (agent, role)
        n, b, u, ll, hits, tops, wolf_votes, votes = self.db.execute(
            "SELECT SUM(beliefs), SUM(brier), SUM(brier_uniform), SUM(log_loss), "
            "SUM(top_suspect_wolf), COUNT(top_suspect_wolf), SUM(wolf_votes), SUM(votes) "
            f"FROM players WHERE {where}", args).fetchone()
        n, hits, tops, wolf_votes, votes = (int(x or 0) for x in (n, hits, tops, wolf_votes,
                                                                  votes))
        return {"agent": agent, "role": role, "beliefs": n,
                "brier": b / n if n else None, "brier_uniform": u / n if n else None,
                "log_loss": ll / n if n else None,
                "precision": (hits, tops), "voting": (wolf_votes, votes)}

    def ratings(self) -> list[dict]:
        """Each player's OpenSkill rating (Plackett-Luce: one team game per game, the
        winners ranked first, a draw a tie), in the order the games were played: ``mu``,
        its uncertainty ``sigma``, and ``ordinal`` (mu - 3 sigma, what the leaderboard is
        ordered by: a player is not ranked high on a few lucky games)."""
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        rated: dict[str, object] = {}
        agents: dict[str, str] = {}
        played: dict[str, int] = {}
        for idx, winner in self.db.execute("SELECT idx, winner FROM games ORDER BY idx"):
            sides: dict[str, list[str]] = {}
            for name, agent, team in self.db.execute(
                    "SELECT name, agent, team FROM players WHERE game = ? ORDER BY name",
                    (idx,)):
                sides.setdefault(team, []).append(name)
                agents[name] = agent
                played[name] = played.get(name, 0) + 1
            if len(sides) < 2:
                continue
            order = sorted(sides)
            teams = [[rated.setdefault(n, model.rating(name=n)) for n in sides[t]]
                     for t in order]
            ranks = [0 if winner is None or t == winner else 1 for t in order]
            for members in model.rate(teams, ranks=ranks):
                for r in members:
                    rated[r.name] = r
        rows = [{"player": n, "agent": agents[n], "games": played[n], "mu": r.mu,
                 "sigma": r.sigma, "ordinal": r.ordinal()} for n, r in rated.items()]
        return sorted(rows, key=lambda row: (-row["ordinal"], row["player"]))

    def calibration(self, bins: int = 10) -> dict[str, list[tuple[float, float, int]]]:
        """Per agent, its village players' beliefs binned by the probability stated:
        (mean stated, share that were wolves, how many), read from the games' logs (a log
        that is gone is skipped)."""
        import json

        sums: dict[str, list[list[float]]] = {}
        for idx, log in self.db.execute("SELECT idx, log FROM games ORDER BY idx"):
            try:
                lines = Path(log).read_text(encoding="utf-8").splitlines()
            except OSError:
                continue
            agents = dict(self.db.execute("SELECT name, agent FROM players WHERE game = ? "
                                          "AND team = 'village'", (idx,)).fetchall())
            records = [json.loads(x) for x in lines]
            deal = next((r for r in records if r["kind"] == "round"), None)
            if deal is None:
                continue
            wolves = {n for n, role in deal["roles"].items() if role == "Werewolf"}
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
        """How often the AIWolf roles the village leans on lived to the end."""
        rows = []
        for role in ("Seer", "Medium", "Bodyguard"):
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

    def print(self) -> None:
        from rich.console import Console
        from rich.table import Table

        console = Console()
        ratings = self.ratings()
        if ratings:
            table = Table(title="leaderboard: OpenSkill ratings (ordered by mu - 3 sigma)",
                          title_justify="left")
            for h in ("player", "agent", "games", "mu", "sigma", "mu - 3 sigma"):
                table.add_column(h, justify="left" if h in ("player", "agent") else "right")
            for r in ratings:
                table.add_row(r["player"], r["agent"], str(r["games"]), f"{r['mu']:.2f}",
                              f"{r['sigma']:.2f}", f"{r['ordinal']:.2f}")
            console.print(table)
        for title, rows in self.tables().items():
            table = Table(title=f"by {title[:-1]}", title_justify="left")
            for h in HEADER:
                table.add_column(h, justify="left" if not h else "right")
            for r in rows:
                table.add_row(*r.cells())
            console.print(table)
        n = self.length()
        console.print(f"games: {n['games']}, mean length {n['days']:.2f} ± {n['days_ci']:.2f} "
                      f"days ({n['phases']:.1f} phases), {n['seconds']:.1f} ± "
                      f"{n['seconds_ci']:.1f} s; draws {n['draws']}")
        judged = [j for j in self.judgement() if j["beliefs"] or j["voting"][1]]
        if judged:
            table = Table(title="beliefs and judgement (the village's side)",
                          title_justify="left")
            for h in ("agent", "role", "beliefs", "Brier", "uniform", "log-loss",
                      "top suspect a wolf", "votes on wolves"):
                table.add_column(h, justify="left" if h in ("agent", "role") else "right")
            for j in judged:
                table.add_row(j["agent"], j["role"], str(j["beliefs"]), _num(j["brier"]),
                              _num(j["brier_uniform"]), _num(j["log_loss"]),
                              _rate(*j["precision"]), _rate(*j["voting"]))
            console.print(table)
        key = self.key_roles()
        if key:
            console.print("key roles alive at the end: " + "; ".join(
                f"{r.group} {r.wins}/{r.games} ({_rate(r.wins, r.games)})" for r in key))
        c = self.llm_cost()
        if c["calls"]:
            console.print(f"LLM per game: {c['calls']:.1f} calls, {c['tokens']:.0f} tokens, "
                          f"{c['seconds']:.1f} s of calls, {c['repaired']:.1f} repaired, "
                          f"{c['fallbacks']:.1f} fallbacks")
        k = self.checks()
        console.print(f"maw audit: {k['audited']} of {self.games} games checked against "
                      f"the rules, {k['violations']} violations (must be 0)")
        console.print(f"votes on dead targets: {k['dead_target_votes']} (must be 0); "
                      f"refused actions: {k['refused']}; late: {k['late']}; "
                      f"attacks on a packmate: {k['teammates_attacked']}; unanswered "
                      f"questions: {k['unanswered']}")

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
                    points = ("", "") if r.points is None else (round(r.points, 4),
                                                                round(r.points_ci, 4))
                    w.writerow([r.group, r.games, r.wins, round(r.rate, 4), round(lo, 4),
                                round(hi, 4), *points])
            written.append(path)
        path = folder / "ratings.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["player", "agent", "games", "mu", "sigma", "ordinal"])
            for r in self.ratings():
                w.writerow([r["player"], r["agent"], r["games"], round(r["mu"], 4),
                            round(r["sigma"], 4), round(r["ordinal"], 4)])
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
        path = folder / "games.csv"
        cur = self.db.execute("SELECT idx, seed, seats, ruleset, winner, reason, days, "
                              "phases, seconds, wall_seconds, log FROM games ORDER BY idx")
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([d[0] for d in cur.description])
            w.writerows(cur)
        written.append(path)
        return written

    def plot(self, folder: Path) -> list[Path]:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise MawError("--plots needs matplotlib: pip install 'maw[report]'") from None
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for title, rows in (("agent", self.by_agent()), ("role", self.by_role())):
            fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(rows) + 2), 4))
            rates = [r.rate for r in rows]
            errs = [[r.rate - r.ci[0] for r in rows], [r.ci[1] - r.rate for r in rows]]
            ax.bar([r.group for r in rows], rates, yerr=errs, capsize=4, color="#4c72b0")
            ax.set_ylim(0, 1)
            ax.set_ylabel("win rate (95% CI)")
            ax.set_title(f"Win rate by {title} ({self.games} games)")
            ax.tick_params(axis="x", labelrotation=20)
            fig.tight_layout()
            path = folder / f"win_rate_by_{title}.png"
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
        curves = self.calibration()
        if curves:
            fig, ax = plt.subplots(figsize=(5, 5))
            ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect")
            for agent, points in sorted(curves.items()):
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                        label=f"{agent} ({sum(p[2] for p in points)} beliefs)")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_xlabel("stated P(werewolf)")
            ax.set_ylabel("share that were werewolves")
            ax.set_title(f"Calibration of the village's beliefs ({self.games} games)")
            ax.legend(loc="upper left", fontsize="small")
            fig.tight_layout()
            path = folder / "calibration.png"
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
        days = [d for (d,) in self.db.execute("SELECT days FROM games")]
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.hist(days, bins=range(min(days), max(days) + 2), align="left", rwidth=0.8,
                color="#55a868")
        ax.set_xlabel("days")
        ax.set_ylabel("games")
        ax.set_title(f"Game length ({self.games} games)")
        fig.tight_layout()
        path = folder / "game_length.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
        return written
