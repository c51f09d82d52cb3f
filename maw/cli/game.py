"""``maw game``: host a game over XMPP and watch it; what it prints once it is over."""

from __future__ import annotations

import argparse
import sys

from maw.cli.options import (
    GAME_EARLY_END,
    GAME_SEED,
    SET_MEMORY,
    SIZE,
    add_lobby,
    add_log_dir,
    add_players,
    add_ruleset,
    add_seed,
    add_substitute,
    add_timeout,
    add_web,
    add_web_spectator,
    add_xmpp,
    check_seconds,
    command,
    fresh_seed,
    players_for,
    rules_of,
)
from maw.errors import MawError


def add_game(sub) -> None:
    from maw.hosting.defaults import (
        HUMAN_DAY,
        HUMAN_NIGHT,
        IDLE_PHASES,
        LLM_DAY,
        LLM_NIGHT,
        RULE_DAY,
        RULE_NIGHT,
    )

    p = command(sub, "game", "host a game over XMPP with AI players (and people) and watch it")
    add_players(p, SIZE, default=None)
    add_seed(p, GAME_SEED)
    p.add_argument("--rounds", type=int, default=1,
                   help="games played in a row by the same players (roles dealt anew)")
    p.add_argument("--set-memory", action="store_true", help=SET_MEMORY)
    p.add_argument("--day-seconds", type=float, default=None, metavar="SECONDS",
                   help=f"length of a day (default: {RULE_DAY:.0f}; {LLM_DAY:.0f} when an "
                        f"LLM plays; {HUMAN_DAY:.0f} when a person does)")
    p.add_argument("--night-seconds", type=float, default=None, metavar="SECONDS",
                   help=f"length of a night (default: {RULE_NIGHT:.0f}; {LLM_NIGHT:.0f} "
                        f"when an LLM plays; {HUMAN_NIGHT:.0f} when a person does)")
    add_xmpp(p, "embedded (SPADE's server in this process; embedded:PORT for another port "
                "than 5222) or HOST:PORT of a running server", default="embedded")
    add_log_dir(p, "logs", "where the JSONL game log goes")
    p.add_argument("--policy", default=None,
                   help="every AI player's decider: rule, random, learned:FILE or another "
                        "registered one that does not talk (instead of a roster)")
    p.add_argument("--roster", default=None, metavar="TOML",
                   help="who plays: agents/*.toml, or local, ollama, hybrid, rule (LLM, "
                        "hybrid, rule and random seats) (default: with no --policy either, "
                        "Ollama if it answers, else the embedded model if installed, else "
                        "rule players)")
    add_timeout(p)
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
    add_lobby(p, "the lobby's name, which those who join give")
    p.add_argument("--lobby-seconds", type=float, default=300.0, metavar="SECONDS",
                   help="how long the lobby waits for the players who join")
    p.add_argument("--early-end", action=argparse.BooleanOptionalAction, default=None,
                   help=GAME_EARLY_END)
    add_web(p, "serve a web page of the game, live, then to replay, until Ctrl-C (on "
               "127.0.0.1 unless HOST)")
    add_web_spectator(p)
    p.add_argument("--web-linger", type=float, default=None, metavar="SECONDS",
                   help="with --web: keep the page up this long after the game, then exit "
                        "(default: until Ctrl-C)")
    add_substitute(p)
    p.add_argument("--idle-phases", type=int, default=None, metavar="N",
                   help=f"a player who lets N days in a row (phases that await it in "
                        f"the open: never a night's) run out without a move of its own is "
                        f"played by the --substitute until it moves again (default: "
                        f"{IDLE_PHASES} when a person plays, else never; 0: never)")
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
    p.add_argument("--aiwolf-tcp", type=int, default=0, metavar="K",
                   help="seats for AIWolf 0.6 platform agents (the Protocol division's: "
                        "Java ClientStarter, aiwolfpy), who join over the platform's TCP "
                        "protocol and talk in Protocol 3.6; the first K to connect play")
    p.add_argument("--aiwolf-tcp-port", default="10000", metavar="[HOST:]PORT",
                   help="where AIWolf platform agents connect (127.0.0.1 unless HOST)")
    p.add_argument("--aiwolf-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="how long an AIWolf agent may take to answer a request (the "
                        "server's timeout.action; 5 s more are accepted, then its NAME is "
                        "asked for, as aiwolf-nlp-server does)")
    p.add_argument("--aiwolf-errors", choices=("abort", "play-on"), default="abort",
                   help="abort: end the game, nobody winning, once as many AIWolf agents are "
                        "in error as end an aiwolf-nlp-server game (1 of 5 or 9, 2 of 13, "
                        "3 of 15); play-on: their seats do nothing and the game goes on")
    add_ruleset(p)
    p.set_defaults(func=cmd_game)


def cmd_game(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from maw.hosting.game import run_game
    from maw.hosting.plan import GameRequest, plan_game
    from maw.hosting.seats import narration_of
    from maw.records.transcript import record_line

    check_seconds(args, "--timeout")

    if args.aiwolf_tcp:  # (the same seats, over the platform's protocol)
        if args.aiwolf:
            raise MawError("give --aiwolf (aiwolf-nlp-server's WebSocket) or --aiwolf-tcp "
                           "(the AIWolf 0.6 platform's TCP), not both")
        args.aiwolf, args.aiwolf_port = args.aiwolf_tcp, args.aiwolf_tcp_port
    rules = rules_of(args)
    if args.web_linger is not None and (not args.web or args.web_linger < 0):
        raise MawError("--web-linger: give --web, and seconds of 0 or more")
    if args.web:
        from maw.web.server import web_address

        web_address(args.web)  # a bad address fails before the game is set up
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
            players=players_for(args, rules), rules=rules, seed=fresh_seed(args.seed),
            rounds=args.rounds,
            day_seconds=args.day_seconds, night_seconds=args.night_seconds, xmpp=args.xmpp,
            remote=args.remote, humans=args.humans, lobby=args.lobby, roster=args.roster,
            seats=args.seats, policy=args.policy, lobby_seconds=args.lobby_seconds,
            log_dir=Path(args.log_dir), rule_options=tuple(args.rule),
            early_end=args.early_end, substitute=args.substitute,
            idle_phases=args.idle_phases, aiwolf=args.aiwolf,
            set_memory=args.set_memory)
        plan = asyncio.run(plan_game(request, say=lambda line: print(line, flush=True)))
    config, seats, address, joining, lobby = (plan.config, plan.seats, plan.address,
                                              plan.joining, plan.lobby)
    rules = config.rules
    if args.aiwolf:
        from maw.hosting.aiwolf import check
        from maw.web.server import web_address

        if args.replay_llm:
            raise MawError("--replay-llm plays the logged game's own seats: no --aiwolf")
        check(rules, config.players, args.aiwolf, config.rounds, tcp=bool(args.aiwolf_tcp))
        aiwolf_at = web_address(args.aiwolf_port, "--aiwolf-tcp-port" if args.aiwolf_tcp
                                else "--aiwolf-port")
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
    if plan.moderator is not None:
        print(f"maw game: a narrating moderator ({plan.moderator.llm.label()}) retells the "
              "public events in the Village", flush=True)
    if lobby:
        where = f"{address.host}:{address.port}"
        how = f"--xmpp {where}" + (f" --lobby {lobby}" if lobby != "main" else "")
        # (a person's maw play without --lobby goes to a server's Hall: say the lobby)
        how_play = f"--xmpp {where} --lobby {lobby}"
        print(f"lobby {lobby!r} waits {args.lobby_seconds:.0f} s for {joining} player(s)",
              flush=True)
        from maw.hosting.invoked import maw_command  # (as the user must type it)
        if args.humans:
            print(f"  a person joins, in another terminal, with:  {maw_command()} play "
                  f"--name NAME {how_play}"
                  + ("  (or opens a seat link below)" if args.web else ""),
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
                                                   flush=True), on_gm=on_gm,
                            narration=narration_of(plan.moderator))
        if not args.aiwolf:
            return run(seats)
        from maw.aiwolf.link import Limits
        from maw.hosting.aiwolf import with_aiwolf

        return with_aiwolf(run, seats, args.aiwolf, *aiwolf_at,
                           Limits(action=args.aiwolf_timeout), args.lobby_seconds,
                           say=lambda line: print(line, flush=True),
                           day_seconds=config.day_seconds, seed=config.seed,
                           players=config.players, abort=args.aiwolf_errors == "abort",
                           tcp=bool(args.aiwolf_tcp), games=config.rounds)

    if args.web:
        from maw.web.host import watched

        finished: list = []

        def after(result) -> None:
            summary(args, result)
            finished.append(result)  # (a game over: Ctrl-C now closes its page)
        try:
            asyncio.run(watched(game, args.web, args.web_spectator,
                                title=f"{rules.name}, {config.players} players, seed "
                                      f"{config.seed}", archive=Path(args.log_dir),
                                say=lambda line: print(line, flush=True),
                                seats=args.humans, address=address, lobby=lobby,
                                after=after, linger=args.web_linger))
        except KeyboardInterrupt:  # (the page stays up after the game until Ctrl-C)
            if not finished:
                raise  # mid-game: interrupted (exit 130), as a game without a page is
            print("maw game: the web page is closed", flush=True)
        return 0
    summary(args, asyncio.run(game()))
    return 0


def summary(args: argparse.Namespace, result) -> None:
    """What ``maw game`` prints once the game is over."""
    from pathlib import Path

    print(f"\nSummary: {len(result.outcomes)} round(s) in {result.seconds:.2f} s "
          f"(agents started in {result.startup_seconds:.2f} s)")
    for i, out in enumerate(result.outcomes, 1):
        who = f"{out.winner.value} won" if out.winner else "a draw, nobody won"
        print(f"  round {i}: {who} on day {out.day} ({out.termination.value})")
    print("  leaderboard: " + ", ".join(f"{n} {p}" for n, p in result.standings))
    if len(result.outcomes) > 1:  # a set: each player's win rate, as AIWolf ranks a set
        from maw.engine import role_named
        from maw.tournament.report import wilson

        won: dict[str, int] = {}
        for out in result.outcomes:
            for name, role in out.roles.items():
                won[name] = won.get(name, 0) + (out.winner is not None and
                                                role_named(role).team is out.winner)
        n = len(result.outcomes)
        rates = []
        for name, w in sorted(won.items(), key=lambda kv: (-kv[1], kv[0])):
            lo, hi = wilson(w, n)
            rates.append(f"{name} {w}/{n} ({100 * lo:.0f}-{100 * hi:.0f}%)")
        print("  win rates (95% intervals): " + ", ".join(rates))
    if result.absent:
        print("  absent (never acted, or left): " + ", ".join(
            f"{n} (its model never answered)" if n in result.unanswered else n
            for n in result.absent))
    present = [n for n in result.unanswered if n not in result.absent]
    if present:
        print(f"  never answered by their model (their fallback played): {', '.join(present)}")
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
            by = ", ".join(f"{k} {n}" for k, n in sorted(u.get("fallback_by", {}).items()))
            retried = f"; {u['retries']} retries" if u.get("retries") else ""
            print(f"    {name}: {u['calls']} calls, {u['tokens']} tokens, {u['seconds']} s; "
                  f"{u['legal']} legal, {u['repaired']} repaired, {u['fallback']} fallback"
                  f"{f' ({by})' if by else ''}{retried}{gated}")
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
        from maw.records.model_calls import recording
        from maw.records.transcript import strayed

        r = recording(Path(args.replay_llm))
        print(f"  replay: {r.answered} of the {r.total} recorded answers given; "
              f"{r.missed} request(s) not in the recording (cancelled in the recorded "
              "game too, or where the replay strayed); "
              + (strayed(Path(args.replay_llm), result.log_path)
                 or "every event as recorded"))
    print(f"  log: {result.log_path}", flush=True)
