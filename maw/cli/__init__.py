"""The ``maw`` command. The only place where a ``MawError`` becomes a message and an exit code.

It only parses arguments, calls the rooms that do the work (``maw.hosting``,
``maw.tournament``, ``maw.simulate``...) and prints what they return. One module per
command group, each command's options beside its ``cmd_*``: ``simulate``, ``game``,
``records`` (audit, replay, export), ``serve`` (web, server), ``tournament`` (tournament,
worker, report), ``people`` (player, play), ``aiwolf`` (aiwolf-client), ``train``,
``bench``, ``engine``; what several commands share is written once in ``options``. The
modules import nothing heavy: each command loads what it needs when it runs.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from maw import __version__
from maw.cli import (
    aiwolf,
    bench,
    engine,
    game,
    people,
    records,
    serve,
    simulate,
    tournament,
    train,
)
from maw.cli.options import Help
from maw.errors import MawError

EXIT_ERROR = 2

__all__ = ["EXIT_ERROR", "build_parser", "main"]

# the subcommands, in the order ``maw --help`` lists them
COMMANDS = (simulate.add_simulate, game.add_game, records.add_audit, serve.add_web_command,
            tournament.add_tournament, tournament.add_worker, tournament.add_report,
            people.add_player, aiwolf.add_aiwolf_client, train.add_train, bench.add_bench,
            records.add_export, people.add_play, records.add_replay, serve.add_server,
            engine.add_engine)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="maw", description="MAW, Multi-Agent Werewolf: "
                                     "LLM, rule-based and human players as agents over XMPP",
                                     formatter_class=Help)
    parser.add_argument("--version", action="version", version=f"maw {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # a command started in the background (a script's "&") inherits Ctrl-C ignored;
        # a host still stops on SIGINT, through asyncio.run's handler (which cancels the
        # main task, so that every "finally" runs), installed only over Python's own
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:  # (the parser lists the rulesets: the engine's import, MAW_ENGINE's check)
        parser = build_parser()
    except MawError as exc:
        print(f"maw: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser: its usage, not maw's
        commands = next(a for a in parser._actions
                        if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.func(args) or 0)
    except MawError as exc:
        print(f"maw {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader left (maw replay LOG | head): stop, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except OSError as exc:  # a file or a host the command could not use: one line too
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"maw {args.command}: error:{where} {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"maw {args.command}: interrupted", file=sys.stderr)
        return 130
