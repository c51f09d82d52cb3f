"""Many games unattended: ``maw tournament`` (here, and on the ``maw worker`` processes
that join it) and ``maw report`` (its leaderboard and statistics)."""

from __future__ import annotations

import argparse
import os
import sys

from maw.cli.options import (
    EARLY_END,
    SIZE,
    add_games,
    add_log_dir,
    add_players,
    add_ruleset,
    add_seed,
    add_substitute,
    add_timeout,
    add_web,
    add_web_spectator,
    add_xmpp,
    check_decider,
    check_seconds,
    command,
    fresh_seed,
    players_for,
    progress_bar,
    rules_of,
)
from maw.errors import MawError


def add_tournament(sub) -> None:
    from maw.hosting.defaults import RULE_DAY, RULE_NIGHT

    p = command(sub, "tournament", "play many games unattended; results to SQLite")
    p.add_argument("--roster", required=True, metavar="TOML",
                   help="who may play: agents/*.toml, or local, ollama, hybrid, rule")
    add_games(p, 20, "how many games to play")
    add_players(p, SIZE, default=None)
    p.add_argument("--out", default="results.db", metavar="DB",
                   help="the SQLite results database")
    add_seed(p, "decides the seats, the roles and each game's seed; the same seed deals "
                "the same tournament (its players answer the talk as it arrives, so its "
                "games' talk and votes can differ; default: a fresh random seed, printed; "
                "--resume takes the database's)")
    p.add_argument("--parallel", type=int, default=1, metavar="K",
                   help="games at a time on this machine (0 with --tournament: none)")
    # (not --remote, which is maw game's number of seats for players who join)
    p.add_argument("--tournament", default=None, metavar="NAME",
                   help="also hand games to the maw worker processes that join the "
                        "tournament NAME through the --xmpp server (on other machines: "
                        "one they reach, such as ejabberd)")
    p.add_argument("--token", default=None,
                   help="the secret --tournament workers join with (default: "
                        "$MAW_TOURNAMENT_TOKEN, else a fresh one, printed)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the games --out does not hold yet")
    add_xmpp(p, "embedded (one server in this process) or HOST:PORT", default="embedded")
    p.add_argument("--day-seconds", type=float, default=None, metavar="SECONDS",
                   help=f"length of a day (default: {RULE_DAY:.0f}, or fitted to the "
                        "roster's models as maw game fits them; a --resume: the stored)")
    p.add_argument("--night-seconds", type=float, default=None, metavar="SECONDS",
                   help=f"length of a night (default: {RULE_NIGHT:.0f}, or fitted to the "
                        "roster's models)")
    add_log_dir(p, "logs/tournament", "where each game's JSONL log goes")
    add_timeout(p)
    p.add_argument("--early-end", action="store_true", help=EARLY_END)
    p.add_argument("--fresh-logins", action="store_true",
                   help="log each game's agents in to the XMPP server afresh (by default a "
                        "worker's agents stay logged in from one game to the next)")
    add_substitute(p)
    add_web(p, "serve a web page: the game started last, live, and the standings")
    add_web_spectator(p)
    add_ruleset(p)
    p.set_defaults(func=cmd_tournament)


def cmd_tournament(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.hosting.roster import load_roster
    from maw.tournament.runner import Plan, Results, resume_plan, roster_sha, schedule

    check_seconds(args, "--timeout", "--day-seconds", "--night-seconds")
    rules = rules_of(args)
    rules.roles_for(players_for(args, rules))
    if args.web:
        from maw.web.server import web_address

        web_address(args.web)  # a bad address fails before any game
    if args.games < 1 or args.parallel < (0 if args.tournament else 1):
        raise MawError("--games must be at least 1, and --parallel too (0 with "
                       "--tournament: only joining workers play)")
    if args.tournament:
        from maw.tournament.remote import desk_jid

        desk_jid(args.tournament, "localhost")  # a bad name fails before any game
    if args.substitute is not None:
        check_decider(args.substitute, "--substitute", stand_in=True)
    from maw.hosting.roster import roster_path as find_roster

    roster_path = find_roster(args.roster).resolve()
    roster = load_roster(roster_path)
    out = Path(args.out)
    if not out.parent.is_dir():  # (sqlite says only "unable to open database file")
        raise MawError(f"--out {out}: the folder {out.parent} does not exist")
    try:  # (each game's log goes there: a folder that cannot be made failed every game)
        Path(args.log_dir).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MawError(f"--log-dir {args.log_dir}: cannot make it: "
                       f"{exc.strerror or exc}") from None
    results = Results(out)
    try:
        seed = args.seed
        if seed is None:  # --resume goes on with the database's seed
            stored = results.plan() if args.resume else None
            seed = stored.seed if stored is not None else fresh_seed(None)
        day, night = _phase_seconds(args, roster, results.plan() if args.resume else None)
        plan = Plan(str(roster_path), roster_sha(roster_path), args.games, args.players,
                    args.ruleset, tuple(args.rule), seed, day, night, args.early_end,
                    args.substitute)
        schedule(roster, plan)  # too few players in the roster fails now
        asked = plan.games
        plan, done = resume_plan(results, plan, args.resume)
        if plan.games > asked:
            print(f"maw tournament: --games {asked} is fewer than the {plan.games} this "
                  f"database was made for: a resume never drops games, it plays "
                  f"{plan.games}", flush=True)
        from maw.hosting.game import check_backends, seats_from_roster

        models = asyncio.run(check_backends(seats_from_roster(roster, len(roster.player))))
        todo = plan.games - len(done)
        print(f"maw tournament: {plan.games} games of {plan.players} players "
              f"({len(done)} already in {out}, {todo} to play), {args.parallel} at a time"
              + (" here, and on the workers that join" if args.tournament else "") + ", "
              f"ruleset {plan.ruleset}, seed {plan.seed}"
              + (f", models: {', '.join(models)}" if models else ""), flush=True)
        failed = asyncio.run(_tournament(plan, roster_path, results, args, todo))
    finally:
        results.close()
    print(f"maw tournament: results in {out}; see them with: maw report {out}")
    if failed:
        raise MawError(f"{failed} game(s) failed (see above); --resume plays them again")
    return 0


def _phase_seconds(args: argparse.Namespace, roster, stored) -> tuple[float, float]:
    """The phases' lengths: as given; else a resumed tournament's own; else, where the
    roster's players talk through a model, fitted to one timed call of each model, as
    ``maw game`` fits them (a review's tournament of 30 s days on a one-slot server
    starved a seat of every call, and its fallback was rated in its name); else the rule
    players' defaults."""
    import asyncio

    from maw.hosting.defaults import RULE_DAY, RULE_NIGHT
    from maw.hosting.plan import GameRequest, phase_lengths, talks
    from maw.hosting.seats import seats_from_roster, time_models

    if args.day_seconds is not None and args.night_seconds is not None:
        return args.day_seconds, args.night_seconds
    if stored is not None:
        return (args.day_seconds or stored.day_seconds,
                args.night_seconds or stored.night_seconds)
    seats = seats_from_roster(roster, len(roster.player))
    if not any(talks(s) for s in seats):
        return args.day_seconds or RULE_DAY, args.night_seconds or RULE_NIGHT
    print("maw tournament: timing one call of each of the roster's models...", flush=True)
    timed = asyncio.run(time_models(seats))
    rules = rules_of(args)
    request = GameRequest(players=players_for(args, rules), rules=rules,
                          day_seconds=args.day_seconds, night_seconds=args.night_seconds)
    day, night = phase_lengths(request, seats, timed)
    for m in timed:
        print(f"maw tournament: {m.model} took {m.seconds:.1f} s for a typical call, "
              f"{m.at_once} at a time, for {m.players} player(s): days of {day:.0f} s and "
              f"nights of {night:.0f} s" + ("" if args.early_end else
                                            " (--early-end ends a phase once all are done)"),
              flush=True)
    return day, night


async def _tournament(plan, roster_path, results, args, todo: int) -> int:
    from pathlib import Path

    from maw.tournament.runner import run_tournament

    failed = 0
    if sys.stderr.isatty():
        progress = progress_bar()
    else:
        progress = None
    task = progress.add_task("games", total=todo) if progress else None
    count = 0

    def on_done(f) -> None:
        nonlocal failed, count
        count += 1
        leader = results.leader()
        lead = f"leader {leader[0]} ({leader[1]} points)" if leader else ""
        if not f.ok:
            failed += 1
        line = (f"game {f.spec.index}: " + ("done" if f.ok else f"FAILED: {f.error}")
                + f" in {f.wall:.1f} s; {lead}")
        if progress is not None and task is not None:
            progress.update(task, advance=1, description=f"games, {lead}")
            if not f.ok:
                progress.console.print(line)
        else:
            print(f"[{count}/{todo}] {line}", flush=True)

    desk = None
    if args.tournament:
        import secrets

        from maw.hosting.xmpp import parse_address
        from maw.tournament.remote import Desk

        address = parse_address(args.xmpp)
        token = args.token or os.environ.get("MAW_TOURNAMENT_TOKEN") or secrets.token_hex(8)
        desk = Desk(args.tournament, address.domain, token, address.port)
        where = "HOST:PORT" if address.embedded else f"{address.host}:{address.port}"
        say = progress.console.print if progress else print
        say(f"maw tournament: workers join with: maw worker --xmpp {where} "
            f"--tournament {args.tournament}"
            + ("" if args.token or os.environ.get("MAW_TOURNAMENT_TOKEN") else
               f" --token {token}"))

    def joined(worker) -> None:
        line = f"maw tournament: worker {worker} joined"
        (progress.console.print if progress else print)(line)

    def run(watch=None):
        return run_tournament(plan, roster_path, results, xmpp=args.xmpp,
                              parallel=args.parallel, log_dir=Path(args.log_dir),
                              timeout=args.timeout, on_done=on_done, watch=watch,
                              desk=desk, on_join=joined, fresh_logins=args.fresh_logins)

    if progress is not None:
        progress.start()
    try:
        if args.web:
            from maw.web.host import watched_tournament

            await watched_tournament(run, args.web, plan.games, results, Path(args.log_dir),
                                     args.web_spectator,
                                     say=progress.console.print if progress else print)
        else:
            await run()
    finally:
        if progress is not None:
            progress.stop()
    return failed

def add_worker(sub) -> None:
    p = command(sub, "worker", "play a tournament's games on this machine "
                               "(maw tournament --tournament NAME hands them out)")
    add_xmpp(p, "the XMPP server the tournament plays on (ejabberd)", default=None,
             required=True, metavar="HOST:PORT")
    p.add_argument("--tournament", required=True, metavar="NAME",
                   help="the NAME of maw tournament --tournament NAME")
    p.add_argument("--token", default=None,
                   help="the tournament's secret (default: $MAW_TOURNAMENT_TOKEN)")
    add_log_dir(p, "logs/worker", "where this machine keeps the logs of the games it plays")
    p.add_argument("--wait", type=float, default=60.0, metavar="SECONDS",
                   help="give up if the tournament has not taken this worker by then")
    p.set_defaults(func=cmd_worker)


def cmd_worker(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.tournament.remote import desk_jid, work

    desk_jid(args.tournament, "localhost")  # a bad name fails before connecting
    token = args.token or os.environ.get("MAW_TOURNAMENT_TOKEN")
    if not token:
        raise MawError("maw worker needs the tournament's --token (maw tournament "
                       "--tournament prints it), or $MAW_TOURNAMENT_TOKEN")
    played = asyncio.run(work(args.xmpp, args.tournament, token, Path(args.log_dir),
                              args.wait))
    print(f"maw worker: the tournament is over; {played} game(s) played here")
    return 0

def add_report(sub) -> None:
    p = command(sub, "report", "leaderboard and statistics of a tournament (or a game set)")
    p.add_argument("db", metavar="DB", help="the results database of maw tournament (--out), "
                                            "the log of a maw game of several rounds (a "
                                            "game set: ranked by win rate), or a folder of "
                                            "game logs (maw game --log-dir's), ranked so")
    p.add_argument("--csv", default=None, metavar="DIR", help="write the tables as CSV files")
    p.add_argument("--plots", default=None, metavar="DIR", help="write PNG charts")
    p.add_argument("--html", default=None, metavar="FILE",
                   help="write one HTML page with the tables and the charts")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.tournament.charts import plot
    from maw.tournament.page import write_html
    from maw.tournament.report import Report

    source = Path(args.db)
    if args.db.endswith(".jsonl") or source.is_dir():  # a game set's log, or a folder of logs
        from maw.cli.options import progress_bar
        from maw.tournament.report import SetReport

        if args.csv or args.plots or args.html:
            raise MawError("a game set's report is its tables: no --csv, --plots or --html")
        with progress_bar(disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task("reading the logs", total=None, visible=False)

            def tick(files: int) -> None:  # (shown where there are many)
                bar.update(task, total=files, advance=1, visible=files >= 50)
            games = SetReport(source, tick=tick)
        games.print()
        return 0
    report = Report(Path(args.db))
    report.print()
    if args.csv:
        for path in report.write_csv(Path(args.csv)):
            print(f"wrote {path}")
    if (args.plots or args.html) and report.games >= 50:  # (it reads every game's log)
        print(f"maw report: reading {report.games} games' logs for the calibration chart...",
              file=sys.stderr, flush=True)
    if args.plots:
        for path in plot(report, Path(args.plots)):
            print(f"wrote {path}")
    if args.html:
        print(f"wrote {write_html(report, Path(args.html))}")
    if report.logs_missing:  # (the calibration chart reads the games' logs)
        print(f"maw report: note: {report.logs_missing} of {report.games} games' logs are "
              "gone from where the database says (moved?): the calibration of beliefs is "
              "of the rest" + ("" if report.logs_missing < report.games else
                               ", so there is none"), file=sys.stderr)
    return 0
