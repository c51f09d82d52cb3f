"""The ``maw`` command. The only place where a ``MawError`` becomes a message and an exit code.

It only parses arguments, calls the rooms that do the work (``maw.hosting``,
``maw.tournament``, ``maw.simulate``...) and prints what they return; it is longer than
the other modules (over 400 lines) because every command's options and summary live here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from maw import __version__
from maw.errors import MawError

EXIT_ERROR = 2


def _add_ruleset(p: argparse.ArgumentParser) -> None:
    from maw.engine import RULESET_NAMES

    p.add_argument("--ruleset", default="maw", help=", ".join(RULESET_NAMES))
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="a ruleset option, e.g. tie=revote, win=parity, variant=2021, "
                        "votes_open=talk (repeatable; default: the ruleset's own)")


def _bar():
    """A progress bar on the terminal: the count, the time spent and the time left."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())


def _rules(args: argparse.Namespace):
    from maw.engine import parse_options, ruleset

    return ruleset(args.ruleset, **parse_options(args.rule))


def _seed(given: int | None) -> int:
    """The seed given, or a fresh one (printed by the command, so the game replays)."""
    import random

    return given if given is not None else random.SystemRandom().randrange(1, 1_000_000)


def cmd_simulate(args: argparse.Namespace) -> int:
    from maw.simulate import simulate

    rules = _rules(args)
    args.seed = _seed(args.seed)
    rules.roles_for(args.players)  # a wrong size fails before any work
    if args.games < 1:
        raise MawError("--games must be at least 1")
    progress = None
    if not args.json and sys.stderr.isatty():
        step = max(1, args.games // 100)

        def progress(done: int) -> None:
            if done % step == 0 or done == args.games:
                print(f"\r{done}/{args.games} games", end="", file=sys.stderr, flush=True)

    from maw.policies import check_decider

    for flag in ("policy", "village", "werewolves"):
        name = getattr(args, flag)
        if name is not None:
            check_decider(name, f"--{flag}")
    summary = simulate(rules, args.players, args.policy, args.games, args.seed, progress,
                       village=args.village, werewolves=args.werewolves)
    if progress is not None:
        print(file=sys.stderr)
    result = {**summary.as_dict(), "seed": args.seed}
    if args.json:
        print(json.dumps(result))
        return 0
    g = summary.games
    print(f"ruleset {rules.name}{'/' + rules.variant if rules.variant else ''}, "
          f"{args.players} players, village {args.village or args.policy}, werewolves "
          f"{args.werewolves or args.policy}, seed {args.seed}")
    print(f"games            {g}")
    print(f"village wins     {summary.village_wins} ({100 * summary.village_wins / g:.1f}%)")
    print(f"werewolf wins    {summary.werewolf_wins} ({100 * summary.werewolf_wins / g:.1f}%)")
    if summary.draws:
        print(f"draws            {summary.draws}")
    print(f"mean days        {result['mean_days']}")
    print(f"ms per game      {result['ms_per_game']}")
    print(f"invalid actions  {summary.invalid_actions}")
    return 0


def cmd_game(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.hosting.game import run_game
    from maw.hosting.plan import GameRequest, plan_game
    from maw.records.transcript import record_line

    rules = _rules(args)
    if args.web:
        from maw.web.server import parse_address

        parse_address(args.web)  # a bad address fails before the game is set up
    if args.replay_llm:
        if args.seed is not None:
            raise MawError("--replay-llm plays the logged game's own seed: no --seed")
        from maw.hosting.plan import replay_plan

        if args.roster or args.policy or args.humans or args.remote:
            raise MawError("--replay-llm plays the logged game's own seats: no --roster, "
                           "--policy, --humans or --remote")
        plan = replay_plan(Path(args.replay_llm), args.xmpp, Path(args.log_dir),
                           pace=not args.replay_unpaced)
    else:
        request = GameRequest(
            players=args.players, rules=rules, seed=_seed(args.seed), rounds=args.rounds,
            day_seconds=args.day_seconds, night_seconds=args.night_seconds, xmpp=args.xmpp,
            remote=args.remote, humans=args.humans, lobby=args.lobby, roster=args.roster,
            seats=args.seats, policy=args.policy, lobby_seconds=args.lobby_seconds,
            log_dir=Path(args.log_dir), rule_options=tuple(args.rule),
            early_end=args.early_end, substitute=args.substitute, aiwolf=args.aiwolf)
        plan = asyncio.run(plan_game(request, say=lambda line: print(line, flush=True)))
    config, seats, address, joining, lobby = (plan.config, plan.seats, plan.address,
                                              plan.joining, plan.lobby)
    rules = config.rules
    if args.aiwolf:
        from maw.hosting.aiwolf import check
        from maw.web.server import parse_address as parse_web

        if args.replay_llm:
            raise MawError("--replay-llm plays the logged game's own seats: no --aiwolf")
        check(rules, config.players, args.aiwolf, config.rounds)
        aiwolf_at = parse_web(args.aiwolf_port, "--aiwolf-port")
        if args.aiwolf_timeout <= 0:
            raise MawError("--aiwolf-timeout must be positive")

    def show(record: dict) -> None:
        text = record_line(record, args.show_roles)
        if text and not args.quiet:
            print(text, flush=True)

    kinds = ", ".join(f"{sum(s.decider == k for s in seats)} {k}"
                      for k in dict.fromkeys(s.decider for s in seats))
    print(f"maw game: {config.players} players ({kinds or 'no AI'}, {joining} joining), "
          f"ruleset {rules.name}, seed {config.seed}, XMPP {address}"
          + (f", models answered from {args.replay_llm}" if args.replay_llm else ""),
          flush=True)
    if lobby:
        where = f"{address.host}:{address.port}"
        how = f"--xmpp {where}" + (f" --lobby {lobby}" if lobby != "main" else "")
        print(f"lobby {lobby!r} waits {args.lobby_seconds:.0f} s for {joining} player(s)",
              flush=True)
        from maw.hosting.invoked import maw_command  # (as the user must type it)
        if args.humans:
            print(f"  a person joins, in another terminal, with:  {maw_command()} play "
                  f"--name NAME {how}" + ("  (or opens a seat link below)" if args.web else ""),
                  flush=True)
        if args.remote:
            print(f"  an AI player joins with:  {maw_command()} player --name NAME {how}",
                  flush=True)

    def game(watch=None):
        def both(record: dict) -> None:
            show(record)
            if watch is not None:
                watch(record)

        # (--quiet with no page: nothing reads the records as they come)
        watching = both if watch is not None or not args.quiet else None

        def run(seated, on_gm=None):
            return run_game(config, seated, address, timeout=args.timeout,
                            remote=joining, lobby=lobby, watch=watching,
                            say=lambda line: print(f"maw game: {line}", file=sys.stderr,
                                                   flush=True), on_gm=on_gm)
        if not args.aiwolf:
            return run(seats)
        from maw.aiwolf.link import Limits
        from maw.hosting.aiwolf import with_aiwolf

        return with_aiwolf(run, seats, args.aiwolf, *aiwolf_at,
                           Limits(action=args.aiwolf_timeout), args.lobby_seconds,
                           say=lambda line: print(line, flush=True),
                           day_seconds=config.day_seconds, seed=config.seed,
                           players=config.players, abort=args.aiwolf_errors == "abort")

    if args.web:
        from maw.web.host import watched

        try:
            asyncio.run(watched(game, args.web, args.web_spectator,
                                title=f"{rules.name}, {config.players} players, seed "
                                      f"{config.seed}", archive=Path(args.log_dir),
                                say=lambda line: print(line, flush=True),
                                seats=args.humans, address=address, lobby=lobby,
                                after=lambda result: _summary(args, result)))
        except KeyboardInterrupt:  # (the page stays up after the game until Ctrl-C)
            print("maw game: the web page is closed", flush=True)
        return 0
    _summary(args, asyncio.run(game()))
    return 0


def _summary(args: argparse.Namespace, result) -> None:
    """What ``maw game`` prints once the game is over."""
    from pathlib import Path

    print(f"\nSummary: {len(result.outcomes)} round(s) in {result.seconds:.2f} s "
          f"(agents started in {result.startup_seconds:.2f} s)")
    for i, out in enumerate(result.outcomes, 1):
        winner = out.winner.value if out.winner else "nobody (draw)"
        print(f"  round {i}: {winner} won on day {out.day} ({out.termination.value})")
    print("  leaderboard: " + ", ".join(f"{n} {p}" for n, p in result.standings))
    if result.absent:
        print(f"  absent (never acted, or left): {', '.join(result.absent)}")
    if result.multicasts:
        print(f"  messages: {result.messages} to their recipients, of which "
              f"{result.multicasts} stanzas the server fanned out (XEP-0033)")
    if result.llm:
        print(f"  LLM: {sum(u['calls'] for u in result.llm.values())} calls, "
              f"{sum(u['tokens'] for u in result.llm.values())} tokens")
        for name, u in result.llm.items():
            why = ", ".join(f"{k} {n}" for k, n in sorted(u.get("why", {}).items()))
            gated = (f"; {u['gated']} line(s) the gate refused ({why}), said by rule"
                     if u.get("gated") else "")
            print(f"    {name}: {u['calls']} calls, {u['tokens']} tokens, {u['seconds']} s; "
                  f"{u['legal']} legal, {u['repaired']} repaired, {u['fallback']} fallback"
                  f"{gated}")
    for a in result.aiwolf:
        lat = (f"median {a['median'] * 1000:.0f} ms, p95 {a['p95'] * 1000:.0f} ms"
               if a["median"] is not None else "no answer")
        print(f"  AIWolf {a['seat']} ({a['name']}, team {a['team']}): {a['requests']} "
              f"requests, {a['failed']} failed, {lat}"
              + (f"; in error: {a['error']}" if a["error"] else ""))
    if result.time_split:
        from maw.records.accounting import describe

        print(f"  time: {describe(result.time_split)}")
    if args.replay_llm:
        from maw.llm.recorded import recording

        r = recording(Path(args.replay_llm))
        print(f"  replay: {r.answered} of the {r.total} recorded answers given; "
              f"{r.missed} request(s) not in the recording (cancelled in the recorded "
              "game too, or where the replay strayed)")
    print(f"  log: {result.log_path}", flush=True)


def cmd_audit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.records.audit import audit_log

    failed = 0
    for name in args.logs:
        result = audit_log(Path(name))
        if result.ok:
            print(f"{name}: ok ({result.rounds} round(s), {result.actions} actions replayed, "
                  f"{result.events} events, {result.messages} messages to players checked)")
        else:
            failed += 1
            print(f"{name}: {len(result.violations)} violation(s); the first, "
                  f"{result.violations[0]}")
    return 1 if failed else 0


def cmd_web(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.web.host import serve_archive

    try:
        asyncio.run(serve_archive(Path(args.logdir), args.web,
                                  say=lambda line: print(line, flush=True)))
    except KeyboardInterrupt:
        pass
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.hosting.roster import load_roster
    from maw.tournament.runner import Plan, Results, resume_plan, roster_sha, schedule

    rules = _rules(args)
    rules.roles_for(args.players)
    if args.web:
        from maw.web.server import parse_address

        parse_address(args.web)  # a bad address fails before any game
    if args.games < 1 or args.parallel < (0 if args.remote else 1):
        raise MawError("--games must be at least 1, and --parallel too (0 with --remote: "
                       "only joining workers play)")
    if args.remote:
        from maw.tournament.remote import desk_jid

        desk_jid(args.remote, "localhost")  # a bad name fails before any game
    from maw.policies import stand_ins

    if args.substitute not in (None, *stand_ins()):
        raise MawError(f"unknown --substitute {args.substitute!r}: "
                       f"{' or '.join(stand_ins())}")
    from maw.hosting.roster import roster_path as find_roster

    roster_path = find_roster(args.roster).resolve()
    roster = load_roster(roster_path)
    out = Path(args.out)
    results = Results(out)
    try:
        seed = args.seed
        if seed is None:  # --resume goes on with the database's seed
            stored = results.plan() if args.resume else None
            seed = stored.seed if stored is not None else _seed(None)
        plan = Plan(str(roster_path), roster_sha(roster_path), args.games, args.players,
                    args.ruleset, tuple(args.rule), seed, args.day_seconds,
                    args.night_seconds, args.early_end, args.substitute)
        schedule(roster, plan)  # too few players in the roster fails now
        plan, done = resume_plan(results, plan, args.resume)
        from maw.hosting.game import check_backends, seats_from_roster

        models = asyncio.run(check_backends(seats_from_roster(roster, len(roster.player))))
        todo = plan.games - len(done)
        print(f"maw tournament: {plan.games} games of {plan.players} players "
              f"({len(done)} already in {out}, {todo} to play), {args.parallel} at a time"
              + (" here, and on the workers that join" if args.remote else "") + ", "
              f"ruleset {plan.ruleset}, seed {plan.seed}"
              + (f", models: {', '.join(models)}" if models else ""), flush=True)
        failed = asyncio.run(_tournament(plan, roster_path, results, args, todo))
    finally:
        results.close()
    print(f"maw tournament: results in {out}; see them with: maw report {out}")
    if failed:
        raise MawError(f"{failed} game(s) failed (see above); --resume plays them again")
    return 0


async def _tournament(plan, roster_path, results, args, todo: int) -> int:
    from pathlib import Path

    from maw.tournament.runner import run_tournament

    failed = 0
    if sys.stderr.isatty():
        progress = _bar()
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
    if args.remote:
        import secrets

        from maw.hosting.xmpp import parse_address
        from maw.tournament.remote import Desk

        address = parse_address(args.xmpp)
        token = args.token or os.environ.get("MAW_TOURNAMENT_TOKEN") or secrets.token_hex(8)
        desk = Desk(args.remote, address.domain, token, address.port)
        where = "HOST:PORT" if address.embedded else f"{address.host}:{address.port}"
        say = progress.console.print if progress else print
        say(f"maw tournament: workers join with: maw worker --xmpp {where} "
            f"--tournament {args.remote}"
            + ("" if args.token or os.environ.get("MAW_TOURNAMENT_TOKEN") else
               f" --token {token}"))

    def joined(worker) -> None:
        line = f"maw tournament: worker {worker} joined"
        (progress.console.print if progress else print)(line)

    def run(watch=None):
        return run_tournament(plan, roster_path, results, xmpp=args.xmpp,
                              parallel=args.parallel, log_dir=Path(args.log_dir),
                              timeout=args.timeout, on_done=on_done, watch=watch,
                              desk=desk, on_join=joined)

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


def cmd_worker(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.tournament.remote import desk_jid, work

    desk_jid(args.tournament, "localhost")  # a bad name fails before connecting
    token = args.token or os.environ.get("MAW_TOURNAMENT_TOKEN")
    if not token:
        raise MawError("maw worker needs the tournament's --token (maw tournament --remote "
                       "prints it), or $MAW_TOURNAMENT_TOKEN")
    played = asyncio.run(work(args.xmpp, args.tournament, token, Path(args.log_dir),
                              args.wait))
    print(f"maw worker: the tournament is over; {played} game(s) played here")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.tournament.charts import plot
    from maw.tournament.page import write_html
    from maw.tournament.report import Report

    report = Report(Path(args.db))
    report.print()
    if args.csv:
        for path in report.write_csv(Path(args.csv)):
            print(f"wrote {path}")
    if args.plots:
        for path in plot(report, Path(args.plots)):
            print(f"wrote {path}")
    if args.html:
        print(f"wrote {write_html(report, Path(args.html))}")
    return 0


def _roster_seat(args: argparse.Namespace, who: str):
    """The seat ``--seat`` names in ``--roster``."""
    from maw.hosting.plan import pick_seats
    from maw.hosting.roster import load_roster, roster_path
    from maw.hosting.seats import seats_from_roster

    if not args.seat:
        raise MawError(f"--roster needs --seat NAME: {who}")
    path = roster_path(args.roster)
    return seats_from_roster(pick_seats(load_roster(path), args.seat, path), 1)[0]


def cmd_aiwolf_client(args: argparse.Namespace) -> int:
    import asyncio
    import dataclasses

    from maw.aiwolf.client import Player, check_url, play
    from maw.hosting.seats import Seat, deciders

    check_url(args.url)
    if not args.name.strip():
        raise MawError("--name: give the agent's name (its team is the name without "
                       "trailing digits)")
    if args.games < 1:
        raise MawError("--games must be at least 1")
    if args.roster and args.policy:
        raise MawError("give --policy or --roster (with --seat), not both")
    if args.roster:
        from maw.hosting.game import check_backends

        seat = _roster_seat(args, "the roster player who plays")
        asyncio.run(check_backends([seat]))
    else:
        policy = args.policy or "rule"
        if policy not in ("rule", "random") and not policy.startswith("learned:"):
            raise MawError(f"unknown --policy {policy!r}: rule, random or learned:FILE (an "
                           "LLM or hybrid player comes from a --roster with --seat)")
        from maw.policies import check_decider

        check_decider(policy, "--policy")
        seat = Seat(args.name, policy)

    def new_decider(game: int, me: str):
        # (its in-game name is the server's: a profile name, not the agent's own)
        return deciders(dataclasses.replace(seat, name=me), args.seed)(game)

    def say(line: str) -> None:
        print(f"{args.name} | {line}", flush=True)

    played = play(args.url, Player(args.name, new_decider, say), args.games, args.token,
                  args.connect_seconds)
    print(f"maw aiwolf-client: {played} game(s) played", flush=True)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from maw.policies import check_decider
    from maw.tournament.bench import bench, seat_policy, thinks

    rules = _rules(args)
    players = args.players or rules.min_players
    rules.roles_for(players)
    if bool(args.roster) == bool(args.policy):
        raise MawError("give --roster with --seat (a roster's player), or --policy DECIDER")
    if args.roster:
        seat = _roster_seat(args, "the roster player to rate")
        candidate, label = seat_policy(seat), f"{seat.name} ({seat.decider})"
        if thinks(candidate):
            import asyncio

            from maw.hosting.seats import check_backends

            asyncio.run(check_backends([seat]))  # (a model that cannot answer fails now)
        else:
            check_decider(seat.decider, "--seat")
    else:
        candidate = label = args.policy
        check_decider(args.policy, "--policy")
    pool = tuple(a.strip() for a in args.pool.split(",") if a.strip())
    if args.json or not sys.stderr.isatty():
        result = bench(rules, players, candidate, args.games, args.seed, pool,
                       args.calibration, label=label)
    else:
        bar = _bar()
        task = bar.add_task("bench", total=args.games)
        with bar:
            result = bench(rules, players, candidate, args.games, args.seed, pool,
                           args.calibration, label=label,
                           progress=lambda done: bar.update(task, completed=done))
    if args.json:
        print(json.dumps({**result.as_dict(), "label": label}))
        return 0
    print(f"maw bench: {label} on {rules.name}, {players} players: {args.games} games from "
          f"seed {args.seed}, against {', '.join(pool)} ({args.calibration} pool games fix "
          "the pool's ratings)")
    print(f"{'side':<11} {'games':>5} {'wins':>5} {'win rate (95%)':>21} "
          f"{'rating':>14} {'ordinal':>8}")
    for name, side in result.sides.items():
        d = side.as_dict()
        low, high = d["interval"]
        rate = f"{100 * d['win_rate']:.1f}% ({100 * low:.1f}-{100 * high:.1f})"
        print(f"{name:<11} {side.games:>5} {side.wins:>5} {rate:>21} "
              f"{side.mu:>7.2f} ± {2 * side.sigma:4.2f} {d['ordinal']:>8.2f}")
    for name, rated in result.frozen.items():
        pool_line = ", ".join(f"{a} {mu:.2f}" for a, (mu, _) in
                              sorted(rated.items(), key=lambda kv: -kv[1][0]))
        print(f"pool as {name}: {pool_line}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    import shlex
    import time
    from pathlib import Path

    from maw.env.train import train
    from maw.policies import check_decider

    if args.games < 1:
        raise MawError("--games must be at least 1")
    check_decider(args.opponents, "--opponents")
    out = Path(args.out)
    if out.exists() and not args.resume:
        raise MawError(f"{out} exists: --resume to train it further, or another --out")
    if args.resume and not out.exists():
        raise MawError(f"--resume: {out} does not exist yet")
    command = "maw " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    t0 = time.monotonic()
    if sys.stderr.isatty():
        bar = _bar()
        task = bar.add_task("training", total=args.games)

        def progress(done: int, table) -> None:
            if done % 50 == 0 or done == args.games:
                bar.update(task, completed=done,
                           description=f"training ({len(table.counts)} states)")
        with bar:
            table = train(_rules(args), args.team, args.games, out, players=args.players,
                          opponents=args.opponents, seed=args.seed, resume=args.resume,
                          checkpoint=args.checkpoint, progress=progress, command=command)
    else:
        step = max(1, args.games // 20)

        def progress(done: int, table) -> None:
            if done % step == 0 or done == args.games:
                print(f"[{done}/{args.games}] {len(table.counts)} states, "
                      f"{time.monotonic() - t0:.0f} s", flush=True)
        table = train(_rules(args), args.team, args.games, out, players=args.players,
                      opponents=args.opponents, seed=args.seed, resume=args.resume,
                      checkpoint=args.checkpoint, progress=progress, command=command)
    print(f"maw train: {out}: {table.games} games in all, {len(table.counts)} states, "
          f"{time.monotonic() - t0:.0f} s; play it with --policy learned:{out} (or "
          f"maw simulate --{args.team} learned:{out})", flush=True)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.aiwolf.export import write

    for path in write(Path(args.aiwolf), Path(args.out) if args.out else None):
        print(f"maw export: {path}", flush=True)
    return 0


def cmd_player(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.protocol.messages import check_name

    names = args.name
    for name in names:
        check_name(name)
    if len(set(n.lower() for n in names)) < len(names):
        raise MawError(f"--name given twice: {', '.join(names)}")
    from maw.hosting.players import run_player
    from maw.hosting.seats import Seat
    from maw.hosting.xmpp import lobby_jid, parse_address
    from maw.policies import decider_kind

    address = parse_address(args.xmpp)
    lobby_jid(args.lobby)
    decider_kind(args.decider)  # (an unknown one: a ConfigError naming those known)
    seats = [Seat(name, args.decider) for name in names]
    if args.roster:  # the seat of that name in a roster: its decider, model and persona
        from maw.hosting.game import check_backends, seats_from_roster
        from maw.hosting.plan import pick_seats
        from maw.hosting.roster import load_roster, roster_path

        roster = roster_path(args.roster)
        seats = [seats_from_roster(pick_seats(load_roster(roster), name, roster), 1)[0]
                 for name in names]
        for seat in seats:
            if args.model and seat.llm is not None:
                seat.llm = seat.llm.model_copy(update={"model": args.model})
        asyncio.run(check_backends(seats))

    def show(name: str):
        def line(text: str) -> None:
            if not args.quiet:
                print(f"{name} | {text}", flush=True)
        return line

    def say(line: str) -> None:
        print(f"maw player: {line}", file=sys.stderr, flush=True)

    async def one(i: int, seat):
        try:
            return await run_player(
                address, args.lobby, seat, seed=args.seed + i, on_line=show(seat.name),
                join_seconds=args.join_seconds, timeout=args.timeout,
                log_dir=Path(args.log_dir) if args.log_dir else None,
                reconnect_seconds=args.reconnect_seconds, say=say)
        except Exception as exc:  # (said at once: the others play on)
            if len(seats) > 1:
                say(f"{seat.name}: {exc}")
            return exc

    async def play() -> list:
        # several players share this process (and its interpreter): each its own agents
        return await asyncio.gather(*(one(i, seat) for i, seat in enumerate(seats)))

    results = asyncio.run(play())
    failed = [r for r in results if isinstance(r, BaseException)]
    for result in results:
        if isinstance(result, BaseException):
            continue
        for body in result.results:
            print(f"{result.name}: round {body.round}: {body.winning_team or 'nobody'} won "
                  f"({body.reason})", flush=True)
    if failed:
        if isinstance(failed[0], MawError):
            raise failed[0]
        raise MawError(f"a player failed: {failed[0]!r}") from failed[0]
    unfinished = [r.name for r in results if not r.final]
    if unfinished:
        raise MawError(f"the game ended without final scores ({', '.join(unfinished)})")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.protocol.messages import check_name

    if args.name is not None:
        check_name(args.name)
    from maw.hosting.players import run_person
    from maw.hosting.xmpp import lobby_jid, parse_address

    address = parse_address(args.xmpp)
    lobby_jid(args.lobby)
    print(f"maw play: joining lobby {args.lobby!r} at {address.host}:{address.port}"
          + (f" as {args.name}" if args.name else "") + " (Ctrl-C or /quit to leave)",
          flush=True)
    log_dir = Path(args.log_dir) if args.log_dir else None

    def say(line: str) -> None:
        print(f"maw play: {line}", file=sys.stderr, flush=True)

    if sys.stdin.isatty() and sys.stdout.isatty():
        from prompt_toolkit.patch_stdout import patch_stdout

        from maw.terminal.screen import TerminalConsole

        console = TerminalConsole()
        console.screen.name = args.name
        with patch_stdout(raw=True):
            result = asyncio.run(run_person(address, args.lobby, console, name=args.name,
                                            join_seconds=args.join_seconds,
                                            timeout=args.timeout, log_dir=log_dir,
                                            reconnect_seconds=args.reconnect_seconds,
                                            say=say))
    else:  # piped: plain lines in, plain lines out
        from maw.terminal.screen import PlainConsole

        result = asyncio.run(run_person(address, args.lobby, PlainConsole(), name=args.name,
                                        join_seconds=args.join_seconds,
                                        timeout=args.timeout, log_dir=log_dir,
                                        reconnect_seconds=args.reconnect_seconds, say=say))
    for body in result.results:
        print(f"maw play: round {body.round}: {body.winning_team or 'nobody'} won "
              f"({body.reason})", flush=True)
    if not result.final:
        print("maw play: you left before the end; the game goes on without you", flush=True)
        return 1
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.records.transcript import replay_lines

    for text in replay_lines(Path(args.log), args.show_roles):
        print(text)
    return 0


def cmd_server(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from maw.hosting.xmpp import EmbeddedServer

    async def serve() -> None:
        server = EmbeddedServer(args.port)
        await server.start()
        print(f"maw server: embedded XMPP server on localhost:{args.port} "
              "(Ctrl-C to stop)", flush=True)
        # SIGTERM stops it as Ctrl-C does: through server.stop(), which also ends
        # pyjabber's worker processes (killed outright, they outlive the server)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        try:
            await stop.wait()
        finally:
            await server.stop()

    asyncio.run(serve())
    return 0


RECONNECT = ("seconds to try to reconnect (with back-off) when the XMPP server goes "
             "away, then take the seat back; 0: give up at once")
SUBSTITUTE = ("rule or random: a stand-in that takes over the seat of a player whose "
              "client is gone (quit, crashed, lost its connection), from the next phase on "
              "(default: none; rule when a person sits)")
EARLY_END = ("also end a phase once every player who may act has nothing to do (quicker "
             "games; the design document ends phases only by majority, unanimity or the "
             "timer)")
GAME_EARLY_END = EARLY_END[:-1] + ("; default: on when only hosted AI players play, off "
                                   "with --humans, --remote or --aiwolf)")
SEED = ("the seed that decides the roles and every random choice; the same seed plays the "
        "same game again (default: a fresh random seed, printed)")
XMPP_HOST = "HOST:PORT of the XMPP server the game runs on"


class _Help(argparse.HelpFormatter):
    """Every option's help says its default (unless the help already does, or there is
    none to say: a switch, or nothing)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "default" in text or default is None or default is False or \
                default == argparse.SUPPRESS or default == [] or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def _sub(sub, name: str, help: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help, formatter_class=_Help)


def build_parser() -> argparse.ArgumentParser:
    from maw.hosting.defaults import (
        HUMAN_DAY,
        HUMAN_NIGHT,
        LLM_DAY,
        LLM_NIGHT,
        RULE_DAY,
        RULE_NIGHT,
    )

    parser = argparse.ArgumentParser(prog="maw", description="MAW, Multi-Agent Werewolf: "
                                     "LLM, rule-based and human players as agents over XMPP",
                                     formatter_class=_Help)
    parser.add_argument("--version", action="version", version=f"maw {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = _sub(sub, "simulate", "play many games on the rules engine alone (no XMPP)")
    p.add_argument("--games", type=int, default=1000, help="how many games")
    p.add_argument("--players", type=int, default=6, help="players in each game")
    p.add_argument("--policy", default="random",
                   help="every player's decider: random, rule or hybrid (its strategy, "
                        "template talk)")
    p.add_argument("--village", default=None, metavar="POLICY",
                   help="the village side's decider (default: --policy)")
    p.add_argument("--werewolves", default=None, metavar="POLICY",
                   help="the werewolf side's decider, the Possessed too (default: --policy)")
    p.add_argument("--seed", type=int, default=None, help=SEED)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_ruleset(p)
    p.set_defaults(func=cmd_simulate)

    p = _sub(sub, "game", "host a game over XMPP with AI players (and people) and watch it")
    p.add_argument("--players", type=int, default=6, help="players at the table")
    p.add_argument("--seed", type=int, default=None, help=SEED)
    p.add_argument("--rounds", type=int, default=1,
                   help="games played in a row by the same players (roles dealt anew)")
    p.add_argument("--day-seconds", type=float, default=None, metavar="SECONDS",
                   help=f"length of a day (default: {RULE_DAY:.0f}; {LLM_DAY:.0f} when an "
                        f"LLM plays; {HUMAN_DAY:.0f} when a person does)")
    p.add_argument("--night-seconds", type=float, default=None, metavar="SECONDS",
                   help=f"length of a night (default: {RULE_NIGHT:.0f}; {LLM_NIGHT:.0f} "
                        f"when an LLM plays; {HUMAN_NIGHT:.0f} when a person does)")
    p.add_argument("--xmpp", default="embedded",
                   help="embedded (SPADE's server in this process; embedded:PORT for "
                        "another port than 5222) or HOST:PORT of a running server")
    p.add_argument("--log-dir", default="logs", metavar="DIR",
                   help="where the JSONL game log goes")
    p.add_argument("--policy", default=None,
                   help="every AI player is rule or random (instead of a roster)")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="who plays: agents/*.toml, or local, ollama, hybrid, rule (LLM, "
                        "hybrid, rule and random seats) (default: with no --policy either, "
                        "Ollama if it answers, else the embedded model if installed, else "
                        "rule players)")
    p.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                   help="give up on a game that has not ended after this many seconds")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.add_argument("--show-roles", action="store_true",
                   help="print the secret events too (roles, the wolves' Hideout, attacks, "
                        "divinations); without it the transcript shows what every player "
                        "sees, so a person at the table may watch it")
    p.add_argument("--remote", type=int, default=0, metavar="N",
                   help="seats left for AI players joining from other processes (maw player)")
    p.add_argument("--seats", default=None, metavar="A,B,...",
                   help="the roster players who play, in this order (default: the first "
                        "--players of the roster)")
    p.add_argument("--humans", type=int, default=0, metavar="H",
                   help="seats for people, who join from a terminal (maw play) or the "
                        "browser (with --web)")
    p.add_argument("--lobby", default="main", metavar="NAME",
                   help="the lobby's name, which those who join give")
    p.add_argument("--lobby-seconds", type=float, default=300.0, metavar="SECONDS",
                   help="how long the lobby waits for the players who join")
    p.add_argument("--early-end", action=argparse.BooleanOptionalAction, default=None,
                   help=GAME_EARLY_END)
    p.add_argument("--web", default=None, metavar="[HOST:]PORT",
                   help="serve a web page of the game, live, then to replay, until Ctrl-C "
                        "(on 127.0.0.1 unless HOST)")
    p.add_argument("--web-spectator", action="store_true",
                   help="let the page show roles, the Hideout and the agents' minds live")
    p.add_argument("--substitute", default=None, metavar="DECIDER", help=SUBSTITUTE)
    p.add_argument("--replay-llm", default=None, metavar="LOG",
                   help="play LOG's game again, its seed, rules, timers and seats from the "
                        "log, every model answered from the log (no model runs)")
    p.add_argument("--replay-unpaced", action="store_true",
                   help="with --replay-llm: answer at once, not when the recorded model did")
    p.add_argument("--aiwolf", type=int, default=0, metavar="K",
                   help="seats for AIWolf contest agents (aiwolf-* rulesets), who join "
                        "over aiwolf-nlp-server's WebSocket protocol at "
                        "ws://HOST:PORT/ws; the first K to connect play")
    p.add_argument("--aiwolf-port", default="8080", metavar="[HOST:]PORT",
                   help="where AIWolf agents connect (127.0.0.1 unless HOST)")
    p.add_argument("--aiwolf-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="how long an AIWolf agent may take to answer a request (the "
                        "server's timeout.action; 5 s more are accepted, then its NAME is "
                        "asked for, as aiwolf-nlp-server does)")
    p.add_argument("--aiwolf-errors", choices=("abort", "play-on"), default="abort",
                   help="abort: end the game, nobody winning, once as many AIWolf agents are "
                        "in error as end an aiwolf-nlp-server game (1 of 5 or 9, 2 of 13, "
                        "3 of 15); play-on: their seats do nothing and the game goes on")
    _add_ruleset(p)
    p.set_defaults(func=cmd_game)

    p = _sub(sub, "audit", "check game logs against the rules (exit 1 on a violation)")
    p.add_argument("logs", nargs="+", metavar="LOG", help="a host's JSONL game log")
    p.set_defaults(func=cmd_audit)

    p = _sub(sub, "web", "browse and replay past games in a web page")
    p.add_argument("logdir", metavar="LOGDIR",
                   help="a folder of game logs (maw game's logs/), searched in depth")
    p.add_argument("--web", default="8080", metavar="[HOST:]PORT",
                   help="where to serve the page (127.0.0.1 unless HOST)")
    p.set_defaults(func=cmd_web)

    p = _sub(sub, "tournament", "play many games unattended; results to SQLite")
    p.add_argument("--roster", required=True, metavar="TOML",
                   help="who may play: agents/*.toml, or local, ollama, hybrid, rule")
    p.add_argument("--games", type=int, default=20, help="how many games to play")
    p.add_argument("--players", type=int, default=6, help="players in each game")
    p.add_argument("--out", default="results.db", metavar="DB",
                   help="the SQLite results database")
    p.add_argument("--seed", type=int, default=None,
                   help="decides the seats, the roles and every game; the same seed plays "
                        "the same tournament (default: a fresh random seed, printed; "
                        "--resume takes the database's)")
    p.add_argument("--parallel", type=int, default=1, metavar="K",
                   help="games at a time on this machine (0 with --remote: none)")
    p.add_argument("--remote", default=None, metavar="NAME",
                   help="also hand games to the maw worker processes that join the "
                        "tournament NAME through the --xmpp server (on other machines: "
                        "one they reach, such as ejabberd)")
    p.add_argument("--token", default=None,
                   help="the secret --remote workers join with (default: "
                        "$MAW_TOURNAMENT_TOKEN, else a fresh one, printed)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the games --out does not hold yet")
    p.add_argument("--xmpp", default="embedded",
                   help="embedded (one server in this process) or HOST:PORT")
    p.add_argument("--day-seconds", type=float, default=RULE_DAY, metavar="SECONDS",
                   help="length of a day")
    p.add_argument("--night-seconds", type=float, default=RULE_NIGHT, metavar="SECONDS",
                   help="length of a night")
    p.add_argument("--log-dir", default="logs/tournament", metavar="DIR",
                   help="where each game's JSONL log goes")
    p.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                   help="give up on a game that has not ended after this many seconds")
    p.add_argument("--early-end", action="store_true", help=EARLY_END)
    p.add_argument("--substitute", default=None, metavar="DECIDER", help=SUBSTITUTE)
    p.add_argument("--web", default=None, metavar="[HOST:]PORT",
                   help="serve a web page: the game started last, live, and the standings")
    p.add_argument("--web-spectator", action="store_true",
                   help="let the page show roles, the Hideout and the agents' minds live")
    _add_ruleset(p)
    p.set_defaults(func=cmd_tournament)

    p = _sub(sub, "worker", "play a tournament's games on this machine "
                            "(maw tournament --remote NAME hands them out)")
    p.add_argument("--xmpp", required=True, metavar="HOST:PORT",
                   help="the XMPP server the tournament plays on (ejabberd)")
    p.add_argument("--tournament", required=True, metavar="NAME",
                   help="the NAME of maw tournament --remote NAME")
    p.add_argument("--token", default=None,
                   help="the tournament's secret (default: $MAW_TOURNAMENT_TOKEN)")
    p.add_argument("--log-dir", default="logs/worker", metavar="DIR",
                   help="where this machine keeps the logs of the games it plays")
    p.add_argument("--wait", type=float, default=60.0, metavar="SECONDS",
                   help="give up if the tournament has not taken this worker by then")
    p.set_defaults(func=cmd_worker)

    p = _sub(sub, "report", "leaderboard and statistics of a tournament")
    p.add_argument("db", metavar="DB", help="the results database of maw tournament (--out)")
    p.add_argument("--csv", default=None, metavar="DIR", help="write the tables as CSV files")
    p.add_argument("--plots", default=None, metavar="DIR", help="write PNG charts")
    p.add_argument("--html", default=None, metavar="FILE",
                   help="write one HTML page with the tables and the charts")
    p.set_defaults(func=cmd_report)

    p = _sub(sub, "player", "AI players in this process: join a lobby and play")
    p.add_argument("--name", required=True, action="append", metavar="NAME",
                   help="the player's name in the game; again for more players in this "
                        "process (each its own agents; they share the interpreter)")
    p.add_argument("--decider", default="rule", help="rule or random")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="play the seat of --name in this roster (an LLM, its persona...)")
    p.add_argument("--model", default=None,
                   help="with --roster: another model than the roster's, for an LLM seat")
    p.add_argument("--lobby", default="main", metavar="NAME", help="the lobby to join")
    p.add_argument("--xmpp", default="localhost:5222", help=XMPP_HOST)
    p.add_argument("--seed", type=int, default=0,
                   help="seeds the player's own random choices (the Nth --name: seed + N-1)")
    p.add_argument("--join-seconds", type=float, default=60.0, metavar="SECONDS",
                   help="keep knocking this long at a lobby that is not up yet")
    p.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                   help="leave a game that has not ended after this many seconds")
    p.add_argument("--log-dir", default=None, metavar="DIR",
                   help="write this player's own JSONL log here (default: no log)")
    p.add_argument("--reconnect-seconds", type=float, default=30.0, metavar="SECONDS",
                   help=RECONNECT)
    p.add_argument("--quiet", action="store_true", help="print only the results")
    p.set_defaults(func=cmd_player)

    p = _sub(sub, "aiwolf-client", "one of MAW's players in AIWolf games (an aiwolf-nlp-"
             "server, or maw game --aiwolf)")
    p.add_argument("--url", required=True, metavar="URL",
                   help="the server's WebSocket, e.g. ws://127.0.0.1:8080/ws")
    p.add_argument("--name", required=True,
                   help="the agent's name (its team: the name without trailing digits)")
    p.add_argument("--policy", default=None,
                   help="rule or random (default: rule)")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="play a roster's seat (an LLM or hybrid player): give --seat")
    p.add_argument("--seat", default=None, metavar="NAME",
                   help="with --roster: the roster player who plays")
    p.add_argument("--games", type=int, default=1,
                   help="games to play, connecting again after each")
    p.add_argument("--seed", type=int, default=0, help="seeds the player's own choices")
    p.add_argument("--token", default=None,
                   help="a server's access token (sent as Authorization: Bearer)")
    p.add_argument("--connect-seconds", type=float, default=60.0, metavar="SECONDS",
                   help="keep trying this long to reach a server that is not up yet")
    p.set_defaults(func=cmd_aiwolf_client)

    p = _sub(sub, "train", "train a learned player (a table of choices) on the engine")
    p.add_argument("--team", required=True, choices=("village", "werewolves"),
                   help="the side whose seats learn")
    p.add_argument("--games", type=int, default=20000, help="games to play")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="the policy file (JSON), written every --checkpoint games")
    p.add_argument("--players", type=int, default=None,
                   help="players in each game (default: the ruleset's fewest)")
    p.add_argument("--opponents", default="rule",
                   help="the other side's decider: rule, random or learned:FILE")
    p.add_argument("--seed", type=int, default=0, help="the games' seeds start here")
    p.add_argument("--checkpoint", type=int, default=1000, metavar="N",
                   help="save the policy every N games (a killed run loses at most N)")
    p.add_argument("--resume", action="store_true",
                   help="train --out further, from the games it has played")
    _add_ruleset(p)
    p.set_defaults(func=cmd_train)

    p = _sub(sub, "bench", "rate one seat against MAW's frozen pool of reference agents")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="the roster the candidate comes from: give --seat")
    p.add_argument("--seat", default=None, metavar="NAME",
                   help="the roster player to rate")
    p.add_argument("--policy", default=None,
                   help="rate a decider instead of a roster seat: rule, random, hybrid "
                        "or learned:FILE")
    p.add_argument("--players", type=int, default=None,
                   help="players in each game (default: the ruleset's fewest)")
    p.add_argument("--games", type=int, default=200,
                   help="games the candidate plays, half on each side")
    p.add_argument("--seed", type=int, default=1,
                   help="the schedule's first seed (the same seed, the same figures)")
    p.add_argument("--pool", default="random,rule,hybrid,learned",  # (bench.POOL)
                   help="the reference agents, comma-separated (default: %(default)s; "
                        "add llm for the LLM player on the embedded model, whose games "
                        "take the model's time)")
    p.add_argument("--calibration", type=int, default=1000, metavar="N",
                   help="pool-only games that fix the pool's ratings")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_ruleset(p)
    p.set_defaults(func=cmd_bench)

    p = _sub(sub, "export", "write a game log in another format (AIWolf's contest logs)")
    p.add_argument("--aiwolf", required=True, metavar="LOG",
                   help="a MAW game log of an aiwolf-* ruleset, written as an AIWolf contest "
                        "log (python -m maw.aiwolf.replay replays it)")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="where (default: beside LOG, .aiwolf.log; -roundN for each round "
                        "of a game of several)")
    p.set_defaults(func=cmd_export)

    p = _sub(sub, "play", "a person joins a lobby and plays from this terminal")
    p.add_argument("--name", default=None, help="your name in the game (asked if not given)")
    p.add_argument("--lobby", default="main", metavar="NAME", help="the lobby to join")
    p.add_argument("--xmpp", default="localhost:5222", help=XMPP_HOST)
    p.add_argument("--join-seconds", type=float, default=60.0, metavar="SECONDS",
                   help="keep knocking this long at a lobby that is not up yet")
    p.add_argument("--timeout", type=float, default=6 * 3600.0, metavar="SECONDS",
                   help="leave a game that has not ended after this many seconds")
    p.add_argument("--log-dir", default=None, metavar="DIR",
                   help="write your own JSONL log here (default: no log)")
    p.add_argument("--reconnect-seconds", type=float, default=30.0, metavar="SECONDS",
                   help=RECONNECT)
    p.set_defaults(func=cmd_play)

    p = _sub(sub, "replay", "print a game log as a readable transcript")
    p.add_argument("log", metavar="LOG", help="a host's JSONL game log (maw game's logs/)")
    p.add_argument("--show-roles", action="store_true",
                   help="print the secret events too (roles, the Hideout, attacks, "
                        "divinations); without it, what every player saw")
    p.set_defaults(func=cmd_replay)

    p = _sub(sub, "server", "run the embedded XMPP server on its own")
    p.add_argument("--port", type=int, default=5222, help="the client port on localhost")
    p.set_defaults(func=cmd_server)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except MawError as exc:
        print(f"maw {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:  # a file or a host the command could not use: one line too
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"maw {args.command}: error:{where} {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"maw {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
