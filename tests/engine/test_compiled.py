"""The engine compiled with mypyc (``maw engine build``, ``maw.engine.compiled``): chosen
only for its own sources, and the same games, event for event, as the engine as written."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import REPO

from maw.cli import main
from maw.engine import compiled, new_game, ruleset
from maw.errors import ConfigError

# every shipped game shape and the options that change a day, random and rule players:
# each game's record and every event, in order, hashed (a set's members sorted: a
# process's string hashes order them otherwise)
DIGESTS = r"""
import dataclasses, hashlib, json, sys
from maw.engine import ruleset
from maw.engine.compiled import compiled_modules
from maw.engine.state import default_names
from maw.simulate import play_game

def canon(x):
    if isinstance(x, (set, frozenset)):
        return ("set", sorted(map(canon, x), key=repr))
    if isinstance(x, (tuple, list)):
        return tuple(canon(v) for v in x)
    if isinstance(x, dict):
        return sorted((canon(k), canon(v)) for k, v in x.items())
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, *(canon(getattr(x, f.name)) for f in dataclasses.fields(x)))
    return repr(x)

out = {"compiled": list(compiled_modules())}
for name, options, n in [("maw", {}, 6), ("maw", {"tie": "runoff", "whisper": "on"}, 7),
                         ("maw", {"votes_open": "talk", "tie": "revote"}, 8),
                         ("aiwolf-5", {}, 5), ("aiwolf-5", {"variant": "2021"}, 5),
                         ("aiwolf-15", {}, 15), ("rlerewolf", {}, 10),
                         ("werewolf-12", {}, 12), ("werewolf-8", {}, 8),
                         ("werewolf-16", {}, 16)]:
    rules = ruleset(name, **options)
    for policy, games in (("random", 30), ("rule", 6)):
        h = hashlib.sha256()
        for seed in range(games):
            events = []
            rec = play_game(rules, list(default_names(n)), policy, seed=seed, events=events)
            h.update(repr((rec.winner, rec.days, rec.actions, sorted(rec.points.items()),
                           [canon(e) for e in events])).encode())
        out[f"{name} {options} {policy}"] = h.hexdigest()
json.dump(out, sys.stdout)
"""


def _run(*args: str, engine: str, cache, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "MAW_ENGINE": engine, "MAW_ENGINE_CACHE": str(cache)}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_maw_engine_is_one_of_its_modes(monkeypatch):
    monkeypatch.setenv("MAW_ENGINE", "fast")
    with pytest.raises(ConfigError, match="MAW_ENGINE='fast': it is one of auto, python, "
                                          "compiled"):
        compiled.mode()
    monkeypatch.setenv("MAW_ENGINE", " Compiled ")
    assert compiled.mode() == "compiled"
    monkeypatch.delenv("MAW_ENGINE")
    assert compiled.mode() == "auto"


def test_only_a_build_of_these_very_sources_is_put_first(tmp_path, monkeypatch):
    monkeypatch.setenv("MAW_ENGINE_CACHE", str(tmp_path))
    monkeypatch.setenv("MAW_ENGINE", "auto")
    path = ["src"]
    compiled.select(path)
    assert path == ["src"]  # no build at all
    other = tmp_path / "0123456789abcdef"  # a build of other sources (an edited engine)
    other.mkdir()
    (other / compiled.MANIFEST).write_text("{}")
    compiled.select(path)
    assert path == ["src"]
    mine = tmp_path / compiled.source_key()
    mine.mkdir()
    compiled.select(path)
    assert path == ["src"]  # a folder without its manifest: a build cut short
    (mine / compiled.MANIFEST).write_text("{}")
    compiled.select(path)
    assert path == [str(mine), "src"]
    monkeypatch.setenv("MAW_ENGINE", "python")
    path = ["src"]
    compiled.select(path)
    assert path == ["src"]
    monkeypatch.setenv("MAW_ENGINE", "compiled")
    compiled.select(path)
    assert path == [str(mine), "src"]
    shutil.rmtree(mine)
    # none for MAW_ENGINE=compiled: the engine loads (maw engine build must run), and no
    # game starts
    monkeypatch.setattr(compiled, "REFUSED", None)
    path = ["src"]
    compiled.select(path)
    assert path == ["src"]
    with pytest.raises(ConfigError, match=r"not compiled for these sources .*maw engine build"):
        compiled.refuse()
    with pytest.raises(ConfigError, match="MAW_ENGINE=compiled"):
        new_game(ruleset("maw"), list("ABCDEF"), random.Random(1))


def test_a_cache_or_source_it_may_not_read_is_no_build(tmp_path, monkeypatch):
    # (a shared cache made by another user, a package installed without its sources):
    # never a traceback from every command
    def unreadable(*_args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(compiled, "source_key", unreadable)
    monkeypatch.setattr(compiled, "REFUSED", None)
    monkeypatch.setenv("MAW_ENGINE_CACHE", str(tmp_path))
    monkeypatch.setenv("MAW_ENGINE", "auto")
    path = ["src"]
    compiled.select(path)
    assert path == ["src"] and compiled.REFUSED is None
    monkeypatch.setenv("MAW_ENGINE", "compiled")
    compiled.select(path)
    assert path == ["src"]
    with pytest.raises(ConfigError, match=f"none in {tmp_path}: Permission denied"):
        compiled.refuse()


def test_the_key_follows_every_engine_source_and_the_python(tmp_path, monkeypatch):
    engine = tmp_path / "engine"
    shutil.copytree(compiled.ENGINE, engine, ignore=shutil.ignore_patterns("__pycache__"))
    also = []
    for path in compiled._ALSO:
        shutil.copy2(path, tmp_path / path.name)
        also.append(tmp_path / path.name)
    monkeypatch.setattr(compiled, "ENGINE", engine)
    monkeypatch.setattr(compiled, "_ALSO", tuple(also))
    key = compiled.source_key()
    assert key == compiled.source_key() and len(key) == 16
    rules = engine / "rules.py"
    text = rules.read_text()
    rules.write_text(text.replace("def legal_actions(", "def legal_actions (", 1))
    assert compiled.source_key() != key  # one character of one module
    rules.write_text(text)
    assert compiled.source_key() == key
    (engine / "newshape.py").write_text("")  # a module added to the engine
    assert compiled.source_key() != key
    (engine / "newshape.py").unlink()
    errors = also[0].read_text()  # maw.errors, which the engine raises
    also[0].write_text(errors + "\n")
    assert compiled.source_key() != key
    also[0].write_text(errors)
    assert compiled.source_key() == key
    real = sysconfig.get_config_var
    monkeypatch.setattr(sysconfig, "get_config_var",
                        lambda name: ".cpython-311-aarch64-linux-gnu.so" if name == "EXT_SUFFIX"
                        else real(name))
    assert compiled.source_key() != key  # another machine's extensions


def test_maw_engine_says_which_engine_runs_and_what_a_build_needs(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setenv("MAW_ENGINE_CACHE", str(tmp_path))
    assert main(["engine", "status", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    # (the suite runs the engine as written, unless the run asks: tests/conftest.py)
    running = list(compiled.compiled_modules())
    assert info["mode"] == compiled.mode()
    assert info["running"] == ("compiled" if running else "python")
    assert info["compiled_modules"] == running and info["built"] is None
    assert info["key"] == compiled.source_key() and info["cache"] == str(tmp_path)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mypyc" else real(name, *a))
    assert main(["engine", "build"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "maw engine: error: compiling the engine needs mypy's mypyc: pip install " \
                  "-e '.[fast]'", err
    assert not any(tmp_path.iterdir())  # nothing half-made
    # a mode that is none: one line, before any command runs
    done = _run("-m", "maw.cli", "simulate", "--games", "1", engine="fast", cache=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "maw: error: MAW_ENGINE='fast': it is one of auto, " \
                                  "python, compiled"


@pytest.mark.slow
def test_the_compiled_engine_plays_the_same_games_event_for_event(tmp_path):
    if importlib.util.find_spec("mypyc") is None:
        pytest.skip("no mypyc (pip install -e '.[fast]')")
    cc = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        pytest.skip("no Python.h (python3-dev)")
    # (MAW_ENGINE=compiled before there is a build: the build must still run)
    built = _run("-m", "maw.cli", "engine", "build", engine="compiled", cache=tmp_path)
    assert built.returncode == 0, built.stderr + built.stdout
    assert "engine compiled in" in built.stdout, built.stdout
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    manifest = json.loads((folder / compiled.MANIFEST).read_text())
    assert folder.name == manifest["key"] == compiled.source_key()
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    assert {p.name for p in folder.glob(f"*{suffix}")} == \
        {f"{m}{suffix}" for m in (*compiled.MODULES, "_native__mypyc")}
    # nothing written beside the sources
    assert not list(compiled.ENGINE.glob(f"*{suffix}"))

    fast = _run("-c", DIGESTS, engine="compiled", cache=tmp_path)
    assert fast.returncode == 0, fast.stderr
    slow = _run("-c", DIGESTS, engine="python", cache=tmp_path)
    assert slow.returncode == 0, slow.stderr
    fast_out, slow_out = json.loads(fast.stdout), json.loads(slow.stdout)
    assert fast_out.pop("compiled") == list(compiled.MODULES)
    assert slow_out.pop("compiled") == []
    assert len(fast_out) == 20
    assert fast_out == slow_out, {k for k in fast_out if fast_out[k] != slow_out.get(k)}

    status = _run("-m", "maw.cli", "engine", "status", engine="auto", cache=tmp_path)
    assert "running: compiled engine (MAW_ENGINE=auto)" in status.stdout, status.stdout
    # every module the build compiled, the game loop's too (not only those maw's own
    # start-up happened to import)
    assert f"compiled modules: {', '.join(compiled.MODULES)}\n" in status.stdout
    again = _run("-m", "maw.cli", "engine", "build", engine="auto", cache=tmp_path)
    assert "engine already compiled:" in again.stdout, again.stdout
    cleared = _run("-m", "maw.cli", "engine", "clear", engine="auto", cache=tmp_path)
    assert f"removed 1 build(s): {folder.name}" in cleared.stdout
    status = _run("-m", "maw.cli", "engine", "status", engine="auto", cache=tmp_path)
    assert "running: python engine" in status.stdout, status.stdout
