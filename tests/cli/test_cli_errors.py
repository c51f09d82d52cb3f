"""Every bad input to a `maw` command is one line on stderr and exit status 2, never a
traceback: bad arguments, unreadable or wrong files, unreachable hosts, unusable ports."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    binary = d / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 8)
    text = d / "notes.txt"
    text.write_text("not a database, not a log\n")
    not_a_log = d / "not-a-log.jsonl"
    not_a_log.write_text('{"kind": "nothing we know"}\n')
    return {"binary": binary, "text": text, "not_a_log": not_a_log, "dir": d}


def busy_port() -> tuple[socket.socket, int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


CASES = [  # (arguments, what the one line says)
    ("game --policy rule --xmpp nothost.invalid:5222", "cannot reach the XMPP server"),
    ("game --policy rule --xmpp 127.0.0.1:1", "no XMPP server answers"),
    ("game --policy rule --xmpp embedded:99999", "port must be"),
    ("game --policy nope", "unknown --policy"),
    ("game --players 1 --policy rule", "needs 3 to 200 players"),
    ("game --policy rule --set-memory", "give --rounds 2 or more"),
    ("game --policy rule --web-linger 5", "--web-linger: give --web"),
    ("game --ruleset nope", "unknown ruleset"),
    ("game --policy rule --timeout 0", "--timeout must be a positive number of seconds"),
    ("game --policy rule --humans -1", "--humans is a number of seats: 0 or more"),
    ("game --policy rule --rule max_days=-1", "ruleset option max_days: at least 0"),
    ("play --name Bob --join-seconds -1", "--join-seconds must be a positive number"),
    ("game --rule bad --policy rule", "not KEY=VALUE"),
    ("game --roster {text}", "cannot read the roster"),
    ("game --roster {dir}/missing.toml", "no roster"),
    ("game --policy rule --log-dir /proc/maw-cannot", "cannot write the game log"),
    # (the log is made first: one that cannot be written is said whatever the port; one
    # made is removed when the server cannot start: no game began)
    ("game --policy rule --xmpp embedded:{busy} --log-dir /proc/maw-cannot",
     "cannot write the game log"),
    ("game --policy rule --xmpp embedded:{busy} --log-dir {dir}/unplayed",
     "is in use: is another XMPP server running?"),
    ("game --policy rule --web nonsense", "give PORT or HOST:PORT"),
    ("game --policy rule --web {busy} --day-seconds 1", "cannot listen"),
    ("play --xmpp nothost.invalid:5222 --name Bob", "cannot reach the XMPP server"),
    ("play --xmpp 127.0.0.1:1 --name Bob", "no XMPP server answers"),
    ("play --xmpp 127.0.0.1:1 --name B@d", "name"),
    ("player --xmpp nothost.invalid:5222 --name Bob", "cannot reach the XMPP server"),
    ("player --xmpp 127.0.0.1:1 --name Bob --decider nope", "unknown decider"),
    ("replay {binary}", "cannot read"),
    ("replay {not_a_log}", "not a MAW game log record"),
    ("replay {dir}/missing.jsonl", "no log at"),
    ("replay {dir}", "cannot read"),
    ("report {dir}/missing.db", "no results database"),
    ("report {dir}", "holds no finished game"),  # (a folder of logs: none of them readable)
    ("report {text}", "not a MAW results database"),
    ("report {binary}", "as a MAW game log"),  # (a .jsonl: read as a game set's log)
    ("tournament --roster {dir}/missing.toml", "no roster"),
    ("tournament --roster agents/rule.toml --games 0", "must be at least 1"),
    ("tournament --roster agents/rule.toml --web nonsense", "give PORT or HOST:PORT"),
    ("tournament --roster agents/rule.toml --day-seconds 0", "--day-seconds must be a "
     "positive number of seconds"),  # (each game failed on it, one by one)
    ("tournament --roster agents/rule.toml --out {dir}/nodir/t.db", "the folder"),
    ("tournament --roster agents/rule.toml --out {dir}/t.db --log-dir /proc/maw-cannot",
     "--log-dir /proc/maw-cannot: cannot make it"),
    ("simulate --games -1", "must be at least 1"),
    ("simulate --players 2", "needs 3 to 200 players"),
    ("web {dir}/missing", "no folder of game logs"),
    ("web {dir} --web 99999", "give PORT or HOST:PORT"),
    ("web {dir} --web {busy}", "cannot listen"),
    ("server --port {busy}", "in use"),
]


# the cases that reach a network or a port run as a process of their own, as a person's
# command would (each would leave a process-wide server or socket behind); the others
# call the same ``main`` in this process, and a few of them again through ``python -m
# maw``, so that the entry point's exit status is checked too (a process of MAW costs
# seconds of imports: 33 of them were most of the fast tier's time)
OWN_PROCESS = ("--xmpp", "{busy}", "server ", "--log-dir")  # (the last starts a server)
ENTRY = {"game --ruleset nope", "replay {binary}", "simulate --players 2",
         "tournament --roster {dir}/missing.toml"}


@pytest.mark.parametrize("args,says", CASES, ids=[c[0].replace("{", "").replace("}", "")
                                                  for c in CASES])
def test_a_bad_input_is_one_line_and_exit_2(args, says, files, tmp_path, monkeypatch,
                                            capsys):
    sock, port = busy_port()
    try:
        argv = args.format(busy=port, **files).split()
        if any(word in args for word in OWN_PROCESS) or args in ENTRY:
            proc = subprocess.run([sys.executable, "-m", "maw", *argv], capture_output=True,
                                  text=True, timeout=60, cwd=REPO, stdin=subprocess.DEVNULL,
                                  env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                       "OLLAMA_HOST": "http://127.0.0.1:9"})
            code, stderr = proc.returncode, proc.stderr
        else:
            code, stderr = in_this_process(argv, tmp_path, monkeypatch, capsys)
    finally:
        sock.close()
    err = stderr.strip().splitlines()
    assert "Traceback" not in stderr, stderr
    assert code == 2, (code, stderr)
    assert len(err) == 1 and err[0].startswith(f"maw {argv[0]}: error: "), err
    assert says in err[0], err[0]
    if "{dir}/unplayed" in args:
        assert not list((Path(files["dir"]) / "unplayed").glob("*"))


def in_this_process(argv: list[str], home: Path, monkeypatch, capsys) -> tuple[int, str]:
    """``maw ARGV``'s exit status and stderr, run by ``maw.cli.main`` here (argparse's own
    errors exit through ``SystemExit``, as they do from the command line)."""
    from maw.cli import main

    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().err
