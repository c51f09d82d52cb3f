"""The game log's one schema: records are checked as they are written, read back typed."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import ValidationError

from maw.errors import ReplayError
from maw.records import schema
from maw.records.log import GameLog, read_log


def test_records_are_checked_as_written_and_read_back_typed(tmp_path):
    log = GameLog(tmp_path / "g.jsonl")
    log.write("round", round=1, roles={"Ann": "Werewolf"}, ruleset="maw")
    log.write("turn", player="Ann", wait=0.1, seconds=0.5)
    with pytest.raises(ValueError, match="no record kind 'nonsense'"):
        log.write("nonsense", x=1)
    with pytest.raises(ValidationError, match="temprature"):
        log.write("turn", player="Ann", wait=0.1, seconds=0.5, temprature=1)
    log.close()
    records = read_log(tmp_path / "g.jsonl")
    assert [type(r) for r in records] == [schema.Round, schema.Turn]
    assert records[0].roles == {"Ann": "Werewolf"} and records[1]["player"] == "Ann"
    assert records[1].get("wait") == 0.1 and records[1].get("nothing", 7) == 7


def test_every_kind_has_its_model_and_a_bad_line_is_named(tmp_path):
    assert len(schema.BY_KIND) == len(schema.RECORDS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t": 0, "kind": "round", "round": 1, "roles": {}, "ruleset": "maw"}\n'
                   '{"t": 1, "kind": "teleport"}\n')
    with pytest.raises(ReplayError, match="bad.jsonl:2: not a MAW game log record"):
        read_log(bad)


def test_maw_replay_on_a_file_that_is_not_a_log_is_one_line_of_error(tmp_path):
    binary = tmp_path / "x.jsonl"
    binary.write_bytes(bytes(range(256)))
    out = subprocess.run([sys.executable, "-m", "maw", "replay", str(binary)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "cannot read" in out.stderr and len(out.stderr.strip().splitlines()) == 1
