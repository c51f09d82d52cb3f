"""``maw audit``: real games pass; a log that breaks the rules or leaks a secret fails,
naming the first violation."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import pytest_asyncio

from maw import engine
from maw.agents.gamemaster import GameConfig
from maw.errors import MawError
from maw.hosting.game import default_seats, run_game
from maw.records.audit import audit_records
from maw.records.schema import recipients

# (no test here is async: the fixture below plays its games on the session's loop)
pytestmark = pytest.mark.xmpp


async def play(server, folder, decider: str = "rule", memory: bool = False,
               **options) -> list[dict]:
    rules = engine.ruleset(options.pop("ruleset", "maw"), **options.pop("rules", {}))
    config = GameConfig(early_end=True, rules=rules, day_seconds=5, night_seconds=3,
                        log_dir=folder, **options)
    seats = default_seats(config.players, decider)
    for seat in seats:
        seat.set_memory = memory
    result = await run_game(config, seats, server, timeout=120)
    return [json.loads(x) for x in result.log_path.read_text().splitlines()]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def logs(server, tmp_path_factory):
    """Two real games' logs: MAW with talk before the votes, and two rounds of AIWolf-9
    (a seer, a medium, a bodyguard) whose players keep a set's memory."""
    folder = tmp_path_factory.mktemp("audit")
    # random wolves tie their attack votes, and the 2021 rules revote: the pack's alone.
    # The game's timing is not seeded: who dies when varies, and a game may have no tied
    # attack; then the next seed plays (at most five games)
    for seed in range(6, 11):
        revote = await play(server, folder / f"revote-{seed}", "random", players=9,
                            seed=seed, ruleset="aiwolf-9", rules={"variant": "2021"})
        if any(r["kind"] == "event" and r["event"] == "Revote"
               and r["data"]["kind"] == "attack" for r in revote):
            break
    return {"maw": await play(server, folder, players=6, seed=3,
                              rules={"votes_open": "talk"}),
            "aiwolf": await play(server, folder, players=9, seed=4, ruleset="aiwolf-9",
                                 rounds=2, memory=True),
            "revote": revote}


def test_real_games_pass_the_audit(logs):
    maw_log, aiwolf = logs["maw"], logs["aiwolf"]
    for records in (maw_log, aiwolf):
        result = audit_records(records)
        assert result.ok, result.violations[:3]
        assert result.actions > 10 and result.events > result.actions
        assert result.messages > 100
    assert audit_records(aiwolf).rounds == 2
    # each player learnt the first round's roles before the second (and only then)
    started = next(r for r in aiwolf if r["kind"] == "started")
    assert all(s["set_memory"] for s in started["seats"])
    remembered = [r for r in aiwolf if r["kind"] == "remembered"]
    assert sorted(r["player"] for r in remembered) == sorted(s["name"] for s in started["seats"])
    assert {(r["round"], r["games"]) for r in remembered} == {(1, 1)}
    assert all("set_memory" not in s for s in next(
        r for r in maw_log if r["kind"] == "started")["seats"])
    # (the deal's rules are in the log: the talk-first option replays)
    assert next(r for r in maw_log if r["kind"] == "round")["options"] == {
        "votes_open": "talk"}


def first(records) -> str:
    result = audit_records(records)
    assert not result.ok
    return str(result.violations[0])


def test_an_illegal_action_the_log_says_was_accepted_is_found(logs):
    records = copy.deepcopy(logs["maw"])
    vote = next(r for r in records if r["kind"] == "action" and r["action"] == "Vote")
    vote["data"]["target"] = vote["data"]["actor"]  # a vote for oneself
    assert "which the rules refuse" in first(records)


def test_a_changed_outcome_or_a_missing_event_is_found(logs):
    records = copy.deepcopy(logs["maw"])
    over = next(r for r in records if r["kind"] == "outcome")
    over["winner"] = "village" if over["winner"] == "werewolves" else "werewolves"
    assert "is not the engine's" in first(records)
    records = copy.deepcopy(logs["maw"])
    i = next(i for i, r in enumerate(records) if r["kind"] == "event"
             and r["event"] == "Executed")
    del records[i]
    assert "is not the engine's" in first(records) or "not logged" in first(records)


def secrets_of(records):
    roles = next(r for r in records if r["kind"] == "round")["roles"]
    jid = {r["player"]: r["jid"] for r in records if r["kind"] == "join"}
    villager = next(n for n, role in roles.items() if role != "Werewolf")
    return roles, jid, villager


def test_a_secret_sent_to_a_player_who_may_not_see_it_is_found(logs):
    for leak in ("attack vote", "hideout", "hideout to many", "role", "divination"):
        records = copy.deepcopy(logs["maw"] if leak != "divination" else logs["aiwolf"])
        roles, jid, villager = secrets_of(records)
        if leak == "attack vote":  # a wolf's night vote, to a villager
            msg = next(r for r in records if r["kind"] == "msg" and r["type"] == "vote_cast"
                       and r["body"]["kind"] == "attack")
            records.insert(records.index(msg) + 1, {**msg, "to": jid[villager]})
            assert f"{villager} was sent vote_cast" in first(records)
        elif leak == "hideout":
            msg = next(r for r in records if r["kind"] == "msg" and r["type"] ==
                       "new_messages" and r["body"]["room_name"] == "Hideout")
            records.insert(records.index(msg) + 1, {**msg, "to": jid[villager]})
            assert f"{villager} is not in the pack" in first(records)
        elif leak == "hideout to many":  # a villager among the recipients of one record
            msg = next(r for r in records if r["kind"] == "msg" and r["type"] ==
                       "new_messages" and r["body"]["room_name"] == "Hideout")
            assert isinstance(msg["to"], list) and len(msg["to"]) > 1  # (the pack: one record)
            assert audit_records(records).ok
            msg["to"] = [*msg["to"][:1], jid[villager], *msg["to"][1:]]
            assert f"{villager} is not in the pack" in first(records)
        elif leak == "role":  # told it is in the pack
            msg = next(r for r in records if r["kind"] == "msg" and r["type"] ==
                       "assign_role" and r["to"] == jid[villager])
            msg["body"]["role"] = "Werewolf"
            assert f"{villager} was told role Werewolf" in first(records)
        else:  # a seer's divination, to someone else
            msg = next(r for r in records if r["kind"] == "msg" and r["type"] == "reveal"
                       and r["body"]["kind"] == "divine")
            other = next(n for n, role in roles.items() if role not in ("Seer",))
            records.insert(records.index(msg) + 1, {**msg, "to": jid[other]})
            assert f"{other} was sent reveal" in first(records)


def test_maw_audit_exits_1_on_a_violation_and_0_on_a_clean_log(logs, tmp_path):
    clean, broken = tmp_path / "clean.jsonl", tmp_path / "broken.jsonl"
    clean.write_text("".join(json.dumps(r) + "\n" for r in logs["aiwolf"]))
    records = copy.deepcopy(logs["aiwolf"])
    next(r for r in records if r["kind"] == "outcome")["day"] += 1
    broken.write_text("".join(json.dumps(r) + "\n" for r in records))
    proc = subprocess.run([sys.executable, "-m", "maw", "audit", str(clean)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and ": ok (2 round(s)" in proc.stdout, proc.stdout
    proc = subprocess.run([sys.executable, "-m", "maw", "audit", str(clean), str(broken)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "broken.jsonl: 1 violation(s); the first, line" in proc.stdout
    with pytest.raises(MawError, match="not a host's game log"):
        audit_records([r for r in logs["maw"] if r["kind"] != "started"])


def test_maw_audit_names_a_log_it_cannot_read_and_still_checks_the_rest(logs, tmp_path,
                                                                         capsys):
    from maw.cli import main

    clean, empty, broken = (tmp_path / f"{n}.jsonl" for n in ("clean", "empty", "broken"))
    clean.write_text("".join(json.dumps(r) + "\n" for r in logs["maw"]))
    empty.write_text("")
    records = copy.deepcopy(logs["maw"])
    next(r for r in records if r["kind"] == "outcome")["day"] += 1
    broken.write_text("".join(json.dumps(r) + "\n" for r in records))
    missing = tmp_path / "missing.jsonl"
    assert main(["audit", str(clean), str(empty), str(missing), str(broken)]) == 2
    out, err = capsys.readouterr()
    assert "clean.jsonl: ok" in out and "broken.jsonl: 1 violation(s)" in out
    assert f"maw audit: error: {empty}: " in err and f"maw audit: error: {missing}: " in err
    assert "2 of 4 logs could not be read, 1 broke the rules" in err
    assert main(["audit", str(clean), str(broken)]) == 1  # (read, but one breaks the rules)


def test_maw_replay_prints_several_logs_each_under_its_name(logs, tmp_path, capsys):
    from maw.cli import main

    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text("".join(json.dumps(r) + "\n" for r in logs["maw"]))
    two.write_text("".join(json.dumps(r) + "\n" for r in logs["aiwolf"]))
    assert main(["replay", str(one)]) == 0
    alone = capsys.readouterr().out
    assert main(["replay", str(one), str(two)]) == 0
    both = capsys.readouterr().out
    assert both.startswith(f"== {one}\n" + alone) and f"\n== {two}\n" in both
    assert "Game over" in both.split(f"== {two}")[1]


def test_maw_replay_of_a_log_cut_short_says_so_at_its_end(logs, tmp_path, capsys):
    """A host stopped mid-game leaves a log without its outcome: the replay ended on the
    last line as if the game had (maw audit said it was cut)."""
    from maw.cli import main

    records = logs["maw"]
    cut = tmp_path / "cut.jsonl"
    end = next(i for i, r in enumerate(records) if r.get("event") == "Executed")
    cut.write_text("".join(json.dumps(r) + "\n" for r in records[:end + 1]))
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["replay", str(cut)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert "the log ends here, before its game did" in said[-1], said[-3:]
    assert main(["replay", str(whole)]) == 0
    assert "the log ends here" not in capsys.readouterr().out


def test_maw_replay_into_a_pipe_closed_early_stops_quietly(logs, tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in logs["aiwolf"]) * 20)
    proc = subprocess.run(f"{sys.executable} -m maw replay {log} | head -2", shell=True,
                          capture_output=True, text=True, timeout=60)
    assert len(proc.stdout.splitlines()) == 2
    assert "error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_game_cut_short_or_never_played_fails_the_audit(logs):
    records = copy.deepcopy(logs["maw"])
    # killed mid-game: the log stops on day 2, before any outcome
    cut = next(i for i, r in enumerate(records) if r["kind"] == "event"
               and r["event"] == "PhaseStarted" and r["data"]["day"] == 2)
    said = [str(v) for v in audit_records(records[:cut]).violations]
    assert any("round 1 has no outcome: the game was cut short" in v for v in said), said
    # the second of two rounds cut short: its round has no outcome, though the first has
    aiwolf = copy.deepcopy(logs["aiwolf"])
    last = max(i for i, r in enumerate(aiwolf) if r["kind"] == "outcome")
    assert "round 2 has no outcome" in first(aiwolf[:last])
    # an abandoned lobby: started, joins, no round
    lobby = [r for r in records if r["kind"] in ("started", "join")]
    assert "no round was dealt" in first(lobby)


def test_only_the_pack_learns_of_its_attack_revote(logs):
    """Found by listening to everything a villager's seat received: a night's attack
    revote sent every living player a phase_change with vote_round 1. Its arrival tells
    the village the wolves disagreed, which the rules hide."""
    records = logs["revote"]
    revotes = [r for r in records if r["kind"] == "event" and r["event"] == "Revote"
               and r["data"]["kind"] == "attack"]
    assert revotes, "the seed gave no tied attack: choose another"
    pack = set(revotes[0]["data"]["audience"])
    jid = {r["jid"]: r["player"] for r in records if r["kind"] == "join"}
    told = {jid[to] for r in records if r["kind"] == "msg" and r["type"] == "phase_change"
            and r["body"].get("vote_round") and r["body"].get("new_phase") == "night"
            for to in recipients(r) if to in jid}
    assert told and told <= pack
    result = audit_records(records)
    assert result.ok, result.violations[:3]
    # and the audit finds the leak: the revote's phase_change sent to a villager
    leak = copy.deepcopy(records)
    i, msg = next((i, r) for i, r in enumerate(leak) if r["kind"] == "msg"
                  and r["type"] == "phase_change" and r["body"].get("vote_round")
                  and r["body"]["new_phase"] == "night")
    villager = next(j for j, n in jid.items() if n not in pack)
    leak.insert(i + 1, {**msg, "to": villager})
    assert f"{jid[villager]} was sent a phase_change of a step it may not know of" in \
        first(leak)
    # ... and a public timer record logged in that revote (a web page would show it)
    timer = copy.deepcopy(records)
    timer.insert(i + 1, {"t": msg["t"], "kind": "timer", "round": 1, "day": msg["body"]["day"],
                         "phase": "night", "seconds": 3.0})
    assert f"a timer was logged in a step only {', '.join(sorted(pack))} may know of" in \
        first(timer)


def test_a_log_written_before_an_event_gained_a_field_still_passes(logs):
    """``Revote.runoff`` came after logs that lack it: a field the log lacks and the
    engine holds at its default is no difference; any other value is."""
    records = copy.deepcopy(logs["revote"])
    revotes = [r for r in records if r["kind"] == "event" and r["event"] == "Revote"]
    assert revotes and all(r["data"]["runoff"] is False for r in revotes)
    for r in revotes:
        del r["data"]["runoff"]
    assert audit_records(records).ok
    revotes[0]["data"]["runoff"] = True
    assert "is not the engine's" in first(records)


def test_a_replay_that_strays_says_where_its_events_first_differ(logs, tmp_path):
    """A review's --replay-llm gave 6 of 9 recorded answers and ended on another
    execution, and its summary said only how many requests were missed."""
    from maw.records.transcript import strayed

    records = logs["maw"]

    def log(name: str, rows: list[dict]):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return path

    recorded = log("recorded", records)
    assert strayed(recorded, log("same", records)) is None
    events = [i for i, r in enumerate(records) if r["kind"] == "event"]
    k = events[len(events) // 2]  # an event in the middle, done otherwise
    other = {**records[k], "data": {**records[k]["data"], "day": 99}}
    said = strayed(recorded, log("other", [*records[:k], other, *records[k + 1:]]))
    assert said is not None and said.startswith(
        f"the replay strayed from the recording at event {len(events) // 2 + 1} of "
        f"{len(events)} (day ")
    assert strayed(recorded, log("cut", records[:k])) == (
        f"the replay's events follow the recording's, but it has {len(events) // 2} where "
        f"the recording has {len(events)}")
