"""Every command and every flag has help, and every flag's help says its default."""

from __future__ import annotations

import argparse

import pytest

from maw.cli import build_parser


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_flag_of_every_command_has_help_and_its_default(name):
    p = commands()[name]
    assert p.description, f"maw {name} has no description"
    text = p.format_help()
    for action in p._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        what = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"maw {name} {what} has no help"
        default = action.default
        if not action.option_strings or default is None or default is False or \
                default == []:
            continue
        # the help shows the default, as argparse writes it into the text
        shown = p._get_formatter()._expand_help(action)
        assert "default" in shown, f"maw {name} {what}: no default in {shown!r}"
        assert str(default) in shown or "default:" in shown, (name, what, shown)
    assert "--help" in text


def test_a_seed_left_out_is_fresh_and_said():
    for name in ("game", "simulate", "tournament"):
        args = commands()[name]
        seed = next(a for a in args._actions if "--seed" in a.option_strings)
        assert seed.default is None and "fresh random seed" in seed.help


def test_an_unknown_flag_is_said_with_its_command_s_usage(capsys):
    from maw.cli import main

    with pytest.raises(SystemExit) as done:
        main(["replay", "a.jsonl", "b.jsonl", "--bogus"])
    assert done.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("usage: maw replay ")
    assert err[-1] == "maw replay: error: unrecognized arguments: --bogus"
