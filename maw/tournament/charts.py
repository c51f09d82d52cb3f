"""``maw report``'s charts (matplotlib, ``pip install 'maw[report]'``): the win rates with
their intervals, the calibration of the village's beliefs, and how long the games lasted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from maw.errors import MawError

if TYPE_CHECKING:
    from maw.tournament.report import Report


def plot(report: Report, folder: Path) -> list[Path]:
    """Each chart as a PNG file in ``folder``; the paths."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise MawError("--plots needs matplotlib: pip install 'maw[report]'") from None
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for title, rows in (("agent", report.by_agent()), ("role", report.by_role())):
        fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(rows) + 2), 4))
        rates = [r.rate for r in rows]
        errs = [[r.rate - r.ci[0] for r in rows], [r.ci[1] - r.rate for r in rows]]
        ax.bar([r.group for r in rows], rates, yerr=errs, capsize=4, color="#4c72b0")
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate (95% CI)")
        ax.set_title(f"Win rate by {title} ({report.games} games)")
        ax.tick_params(axis="x", labelrotation=20)
        fig.tight_layout()
        path = folder / f"win_rate_by_{title}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    curves = report.calibration()
    if curves:
        # the curve above, and under it how many beliefs each bin holds (a point of a
        # few beliefs says little)
        fig, (ax, counts) = plt.subplots(2, 1, figsize=(5.5, 6.5), sharex=True,
                                         gridspec_kw={"height_ratios": [3, 1]})
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect")
        width = 0.8 / (10 * len(curves))
        for k, (agent, points) in enumerate(sorted(curves.items())):
            line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                            label=f"{agent} ({sum(p[2] for p in points)} probabilities)")
            for x, y, n in points:
                ax.annotate(str(n), (x, y), textcoords="offset points", xytext=(0, 6),
                            ha="center", fontsize=7, color=line.get_color())
            counts.bar([p[0] + (k - (len(curves) - 1) / 2) * width for p in points],
                       [p[2] for p in points], width=width, color=line.get_color())
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("share that were werewolves")
        ax.set_title(f"Calibration of the village's beliefs ({report.games} games)")
        ax.legend(loc="upper left", fontsize="small")
        counts.set_xlabel("stated P(werewolf)")
        counts.set_ylabel("probabilities")
        counts.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
        fig.tight_layout()
        path = folder / "calibration.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    days = [d for (d,) in report.db.execute("SELECT days FROM games")]
    fig, ax = plt.subplots(figsize=(5, 4))
    game_lengths(ax, days)
    ax.set_title(f"Game length ({report.games} games)")
    fig.tight_layout()
    path = folder / "game_length.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(path)
    return written

def game_lengths(ax: Any, days: list[int]) -> None:
    """How many games lasted each number of days: one bar per whole day, from a day
    before the shortest game to a day after the longest, every day named on the axis
    (a histogram's bins put one bar over "2.6 to 3.4 days" when all games were as long)."""
    from matplotlib.ticker import MaxNLocator

    counts = Counter(days)
    axis = list(range(max(0, min(days, default=1) - 1), max(days, default=0) + 2))
    ax.bar(axis, [counts.get(d, 0) for d in axis], width=0.8, color="#55a868")
    ax.set_xticks(axis)
    ax.set_xlim(axis[0] - 0.6, axis[-1] + 0.6)
    ax.set_xlabel("days")
    ax.set_ylabel("games")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
