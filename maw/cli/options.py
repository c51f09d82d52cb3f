"""What several ``maw`` commands share, written once: the help formatter, the options they
have in common (``--seed``, ``--xmpp``, ``--log-dir``, ``--timeout``, the ruleset...) with
their help texts, and the helpers their commands call (the progress bar, the rules, a fresh
seed, a roster's seat, the check of a decider's name).

A command's module adds an option through ``add_*`` here, giving only what differs in that
command (its default, its help).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from maw.errors import MawError

SEED = ("the seed that decides the roles and every random choice; the same seed plays the "
        "same game again (default: a fresh random seed, printed)")
GAME_SEED = ("the seed that deals the roles and draws every chance (a tie's pick, each "
             "player's own draws); over XMPP players answer the talk as it arrives, so the "
             "talk and votes of the same seed can differ: maw replay LOG shows a game again "
             "(default: a fresh random seed, printed)")
XMPP_HOST = "HOST:PORT of the XMPP server the game runs on"
EARLY_END = ("also end a phase once every player who may act has nothing to do (quicker "
             "games; the design document ends phases only by majority, unanimity or the "
             "timer)")
GAME_EARLY_END = EARLY_END[:-1] + ("; default: on when only hosted AI players play, off "
                                   "with --humans, --remote or --aiwolf)")
SET_MEMORY = ("AI players keep what they learnt of the others from game to game of the set: "
              "how each one's role claims went (maw.policies.memory; default: each game "
              "alone)")
SUBSTITUTE = ("rule or random (or another registered stand-in): a stand-in that takes "
              "over the seat of a player whose client is gone (quit, crashed, lost its "
              "connection), from the next phase on (default: none; rule when a person sits)")
RECONNECT = ("seconds to try to reconnect (with back-off) when the XMPP server goes "
             "away, then take the seat back; 0: give up at once")
GIVE_UP = "give up on a game that has not ended after this many seconds"
LEAVE = "leave a game that has not ended after this many seconds"
SPECTATOR = "let the page show roles, the Hideout and the agents' minds live"


class Help(argparse.HelpFormatter):
    """Every option's help says its default (unless the help already does, or there is
    none to say: a switch, or nothing)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "default" in text or default is None or default is False or \
                default == argparse.SUPPRESS or default == [] or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def command(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    """The subcommand ``name``: its help is also its description."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help,
                                                     formatter_class=Help)
    return parser


# -- the options several commands have (each command gives its own default and help) --

def add_seed(p: argparse.ArgumentParser, help: str = SEED, default: int | None = None) -> None:
    p.add_argument("--seed", type=int, default=default, help=help)


def add_players(p: argparse.ArgumentParser, help: str = "players in each game",
                default: int | None = 6) -> None:
    p.add_argument("--players", type=int, default=default, help=help)


SIZE = "players at the table (default: 6, or the size of a fixed-size ruleset)"


def players_for(args: argparse.Namespace, rules) -> int:
    """``--players``, or the ruleset's own size (aiwolf-5 plays 5), or 6."""
    if args.players is None:
        args.players = rules.min_players if rules.min_players == rules.max_players else 6
    return args.players


def add_games(p: argparse.ArgumentParser, default: int, help: str) -> None:
    p.add_argument("--games", type=int, default=default, help=help)


def add_xmpp(p: argparse.ArgumentParser, help: str = XMPP_HOST,
             default: str | None = "localhost:5222", **more: Any) -> None:
    """``--xmpp``: the XMPP server (``more``: ``required``, ``metavar``)."""
    p.add_argument("--xmpp", default=default, help=help, **more)


def add_log_dir(p: argparse.ArgumentParser, default: str | None, help: str) -> None:
    p.add_argument("--log-dir", default=default, metavar="DIR", help=help)


def check_seconds(args: argparse.Namespace, *flags: str) -> None:
    """``MawError`` unless each of ``flags`` (``--timeout``...) is a positive number of
    seconds (or not given, where its default is ``None``)."""
    for flag in flags:
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        if value is not None and not 0 < value < float("inf"):
            raise MawError(f"{flag} must be a positive number of seconds, got {value:g}")


def add_timeout(p: argparse.ArgumentParser, help: str = GIVE_UP,
                default: float = 3600.0) -> None:
    p.add_argument("--timeout", type=float, default=default, metavar="SECONDS", help=help)


def add_lobby(p: argparse.ArgumentParser, help: str = "the lobby to join") -> None:
    p.add_argument("--lobby", default="main", metavar="NAME", help=help)


def add_join_seconds(p: argparse.ArgumentParser) -> None:
    p.add_argument("--join-seconds", type=float, default=60.0, metavar="SECONDS",
                   help="keep knocking this long at a lobby that is not up yet")


def add_reconnect(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reconnect-seconds", type=float, default=30.0, metavar="SECONDS",
                   help=RECONNECT)


def add_web(p: argparse.ArgumentParser, help: str, default: str | None = None) -> None:
    p.add_argument("--web", default=default, metavar="[HOST:]PORT", help=help)


def add_web_spectator(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web-spectator", action="store_true", help=SPECTATOR)


def add_substitute(p: argparse.ArgumentParser) -> None:
    p.add_argument("--substitute", default=None, metavar="DECIDER", help=SUBSTITUTE)


def add_ruleset(p: argparse.ArgumentParser) -> None:
    from maw.engine import RULESET_NAMES

    p.add_argument("--ruleset", default="maw", help=", ".join(RULESET_NAMES))
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="a ruleset option, e.g. tie=revote, win=parity, variant=2021, "
                        "votes_open=talk (repeatable; default: the ruleset's own)")


# -- what the commands call --

def progress_bar(disable: bool = False):
    """A progress bar on the terminal: the count, the time spent and the time left
    (``disable``: none, where nobody watches)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                    disable=disable)


def rules_of(args: argparse.Namespace):
    """The ruleset ``--ruleset`` and ``--rule`` give."""
    from maw.engine import parse_options, ruleset

    return ruleset(args.ruleset, **parse_options(args.rule))


def fresh_seed(given: int | None) -> int:
    """The seed given, or a fresh one (printed by the command, so the game replays)."""
    import random

    return given if given is not None else random.SystemRandom().randrange(1, 1_000_000)


def roster_seat(args: argparse.Namespace, who: str):
    """The seat ``--seat`` names in ``--roster``."""
    from maw.hosting.plan import pick_seats
    from maw.hosting.roster import load_roster, roster_path
    from maw.hosting.seats import seats_from_roster

    if not args.seat:
        raise MawError(f"--roster needs --seat NAME: {who}")
    path = roster_path(args.roster)
    return seats_from_roster(pick_seats(load_roster(path), args.seat, path, "--seat"), 1)[0]


def check_decider(name: str, flag: str, *, model: bool = False, stand_in: bool = False,
                  talks: bool = True) -> None:
    """The one check of a decider named on the command line (``flag``), against the
    registry (``maw.policies.base``): MAW must know ``name`` and make it without a model,
    its file read if it takes one (``model``: or seat it with the default model, if it
    needs one). ``stand_in``: it must take over a gone player's seat (``--substitute``);
    ``talks=False``: it must not speak in words (a player who does comes from a roster)."""
    from maw.errors import ConfigError, PluginError
    from maw.policies import check_decider as plays_without_model
    from maw.policies import decider_kind, quiet_deciders, stand_ins

    try:
        kind = decider_kind(name)  # (a plugin's deciders are loaded for a name not known)
    except PluginError:
        raise
    except ConfigError:
        kind = None
    if stand_in:
        if kind is None or not kind.stand_in or kind.name != name:
            raise MawError(f"unknown {flag} {name!r}: {either(stand_ins())}")
        return
    if not talks and (kind is None or kind.talks):
        raise MawError(f"unknown {flag} {name!r}: {either(quiet_deciders())} (an LLM or "
                       "hybrid player comes from a --roster with --seat)")
    if model and kind is not None and kind.needs_model:
        return  # (seated with the default model, as a roster's seat without [llm] is)
    plays_without_model(name, flag)


def note_learned(name: str, flag: str, ruleset: str, command: str,
                 side: str | None = None) -> None:
    """Say on stderr where a ``learned:FILE`` decider (``flag``) plays outside what it was
    learned for: another ruleset, or another side (``side``: the one it plays; ``None``:
    both). It plays anyway: a table's states and a network's inputs fit any game of its
    size, but what they learned may not."""
    if not name.startswith("learned:"):
        return
    import random

    from maw.policies import make_decider

    made = make_decider(name, "check", random.Random(0))
    table = getattr(made, "table", None)
    meta = getattr(getattr(made, "network", None), "meta", None) or {}
    learned = (table.ruleset, table.team) if table is not None else \
        (meta.get("ruleset"), meta.get("team"))
    if not all(learned):
        return
    where, team = learned
    off = []
    if where != ruleset:
        off.append(f"plays {ruleset}")
    if team in ("village", "werewolves") and side != team:
        off.append(f"plays the {side} side" if side else "plays both sides")
    if off:
        print(f"maw {command}: note: {flag} {name.partition(':')[2]} was learned on {where} "
              f"for the {team}; here it {' and '.join(off)}", file=sys.stderr, flush=True)


def either(names: Sequence[str]) -> str:
    """"a, b or c"."""
    return " or ".join(filter(None, (", ".join(names[:-1]), *names[-1:])))
