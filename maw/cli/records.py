"""The commands that read game logs: ``maw audit`` (against the rules), ``maw replay`` (as
a transcript) and ``maw export`` (as AIWolf's contest logs)."""

from __future__ import annotations

import argparse

from maw.cli.options import command


def add_audit(sub) -> None:
    p = command(sub, "audit", "check game logs against the rules (exit 1 on a violation, "
                "2 if a log cannot be read; every log is checked either way)")
    p.add_argument("logs", nargs="+", metavar="LOG", help="a host's JSONL game log")
    p.set_defaults(func=cmd_audit)


def cmd_audit(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from maw.errors import MawError
    from maw.records.audit import audit_log

    failed = unread = 0
    for name in args.logs:
        try:
            result = audit_log(Path(name))
        except (MawError, OSError) as exc:  # this log, named; the others are still checked
            unread += 1
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            print(f"maw audit: error: {name}: {why}", file=sys.stderr, flush=True)
            continue
        if result.ok:
            print(f"{name}: ok ({result.rounds} round(s), {result.actions} actions replayed, "
                  f"{result.events} events, {result.messages} messages to players checked"
                  + (f", {result.narrations} narrator's lines" if result.narrations else "")
                  + ")")
        else:
            failed += 1
            print(f"{name}: {len(result.violations)} violation(s); the first, "
                  f"{result.violations[0]}")
    if unread and len(args.logs) > 1:
        print(f"maw audit: {unread} of {len(args.logs)} logs could not be read"
              + (f", {failed} broke the rules" if failed else ""), file=sys.stderr)
    return 2 if unread else 1 if failed else 0



def add_export(sub) -> None:
    p = command(sub, "export", "write a game log in another format (AIWolf's contest logs)")
    p.add_argument("--aiwolf", required=True, metavar="LOG",
                   help="a MAW game log of an aiwolf-* ruleset, written as an AIWolf contest "
                        "log (python -m maw.aiwolf.replay replays it)")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="where (default: beside LOG, .aiwolf.log; -roundN for each round "
                        "of a game of several)")
    p.add_argument("--platform", action="store_true",
                   help="in the AIWolf 0.6 platform's own log form (the Protocol "
                        "division's AIWolfServer), not aiwolf-nlp-server's")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.aiwolf.export import write

    for path in write(Path(args.aiwolf), Path(args.out) if args.out else None,
                      args.platform):
        print(f"maw export: {path}", flush=True)
    return 0



def add_replay(sub) -> None:
    p = command(sub, "replay", "print game logs as readable transcripts")
    p.add_argument("logs", nargs="+", metavar="LOG",
                   help="a host's JSONL game log (maw game's logs/); several are printed "
                        "one after the other, each under its name")
    p.add_argument("--show-roles", action="store_true",
                   help="print the secret events too (roles, the Hideout, attacks, "
                        "divinations); without it, what every player saw")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from maw.records.transcript import replay_lines

    for i, name in enumerate(args.logs):
        if len(args.logs) > 1:
            print(f"{chr(10) if i else ''}== {name}")
        for text in replay_lines(Path(name), args.show_roles):
            print(text)
    return 0
