"""``maw engine``: build the engine compiled with mypyc, and say which engine runs."""

from __future__ import annotations

import argparse
import json
import sys

from maw.cli.options import command


def add_engine(sub) -> None:
    p = command(sub, "engine", "compile the rules engine with mypyc (the same games, "
                "about 1.7x as fast), or say which engine runs")
    what = p.add_subparsers(dest="action", required=True, metavar="ACTION",
                            help="build, status or clear")
    b = what.add_parser("build", help="compile the engine's current sources (mypy's mypyc "
                        "and a C compiler: about 20 s); kept beside the interpreter",
                        description="compile the engine's current sources with mypyc")
    b.add_argument("--force", action="store_true", help="compile again even if built")
    s = what.add_parser("status", help="which engine runs (MAW_ENGINE: auto, python, "
                        "compiled) and the builds there are",
                        description="which engine runs, and the builds there are")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    what.add_parser("clear", help="remove every build (pure Python runs)",
                    description="remove every build of the compiled engine")
    p.set_defaults(func=cmd_engine)


def cmd_engine(args: argparse.Namespace) -> int:
    from maw import native

    if args.action == "build":
        from rich.console import Console

        with Console(stderr=True).status("compiling the engine with mypyc (about 20 s "
                                         "on 2 cores)"):
            made = native.build(force=args.force)
        word = "compiled" if made["new"] else "already compiled"
        seconds = f" in {made['seconds']} s" if made["new"] else ""
        print(f"engine {word}{seconds}: {', '.join(made['modules'])} (mypy {made['mypy']}, "
              f"Python {made['python']}); it runs unless MAW_ENGINE=python")
        return 0
    if args.action == "clear":
        removed = native.clear()
        print(f"removed {len(removed)} build(s)" + (f": {', '.join(removed)}" if removed
                                                     else ""))
        return 0
    info = native.status()
    if args.json:
        json.dump(info, sys.stdout, indent=1)
        print()
        return 0
    built = info["built"]
    print(f"running: {info['running']} engine (MAW_ENGINE={info['mode']})")
    if info["refused"]:
        print("games refuse to start: no build for MAW_ENGINE=compiled (maw engine build)")
    if info["compiled_modules"]:
        print(f"compiled modules: {', '.join(info['compiled_modules'])}")
    if built:
        print(f"built for these sources ({info['key']}) on {built['built']}, mypy "
              f"{built['mypy']}, in {info['cache']}")
    else:
        print(f"not built for these sources ({info['key']}): maw engine build")
    if info["other_builds"]:
        print(f"builds of other sources or Pythons (not loaded here): "
              f"{', '.join(info['other_builds'])}")
    return 0
