"""Exact LLM replay: a game's log keeps every model request and answer, and the
``recorded`` backend (``maw game --replay-llm``) plays the game again from it, reaching
the same decisions without a model."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from maw import engine
from maw.errors import BackendError, MawError
from maw.llm import LLM, make_backend, register_backend
from maw.llm.backends import ScriptedBackend
from maw.llm.base import request_key

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


class Chaos(ScriptedBackend):
    """A stand-in model that cannot be run twice alike: it picks any answer its schema
    allows with the system's entropy, after a random pause. Like the embedded model, it
    answers one call at a time."""

    name = "chaos-for-test"
    turn = asyncio.Lock()

    async def chat(self, messages, schema=None, max_tokens=200, temperature=0.7):
        async with self.turn:
            return await self._chat(messages, schema, max_tokens, temperature)

    async def _chat(self, messages, schema, max_tokens, temperature):
        rng = random.SystemRandom()
        await asyncio.sleep(rng.uniform(0.05, 0.2))
        alternative = rng.choice(schema["anyOf"]) if "anyOf" in schema else schema
        answer: dict = {}
        for key, prop in alternative["properties"].items():
            if key == "suspicion":
                answer[key] = {n: rng.choice(p["enum"]) for n, p in prop["properties"].items()}
            elif "const" in prop:
                answer[key] = prop["const"]
            elif "enum" in prop:
                answer[key] = rng.choice(prop["enum"])
            else:
                answer[key] = rng.choice(["I trust nobody.", "Listen to me!", "Hm."]) + \
                    f" {rng.randrange(1000)}"
        self.replies.append(json.dumps(answer))
        return await super().chat(messages, schema, max_tokens, temperature)


def last_move(records: list[dict]) -> float:
    """When, on the log's clock, the engine took its last action (the game's end)."""
    return max(r["t"] for r in records if r["kind"] == "action")


def decisions(log: Path) -> dict:
    """What the players decided and what came of it: every answer of every model in each
    player's order, up to the game's last move (one that comes after it changes nothing,
    and whether the model was still asked then is a race with the game's end), every
    action the engine took, every event, the outcome."""
    records = [json.loads(x) for x in log.read_text().splitlines()]
    answers: dict[str, list] = {}
    end = last_move(records)
    for r in records:  # (not the questions withdrawn before the model answered)
        if r["kind"] == "llm" and r.get("answers") and r["t"] <= end:
            answers.setdefault(r["player"], []).append(
                (r["day"], r["phase"], r["outcome"], r.get("answers"), r.get("action")))
    return {"answers": answers,
            "actions": [(r["action"], r["data"]) for r in records if r["kind"] == "action"],
            "events": [(r["event"], r["data"]) for r in records if r["kind"] == "event"],
            "outcome": [{k: r[k] for k in ("winner", "day", "points")}
                        for r in records if r["kind"] == "outcome"]}


def test_a_request_key_names_the_messages_schema_and_options():
    m = [{"role": "user", "content": "Vote?"}]
    base = request_key(m, {"type": "object"}, 100, 0.7)
    assert base == request_key([dict(m[0])], {"type": "object"}, 100, 0.7)
    assert len({base, request_key(m, None, 100, 0.7), request_key(m, {"type": "object"}, 99,
                                                                   0.7),
                request_key(m, {"type": "object"}, 100, 0.8),
                request_key([{"role": "user", "content": "Vote!"}], {"type": "object"}, 100,
                            0.7)}) == 5


def test_the_recorded_backend_needs_a_log_with_requests(tmp_path):
    with pytest.raises(BackendError, match="needs the game log"):
        make_backend("recorded")
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"t": 0, "kind": "state", "state": "Setup", "round": 0}\n')
    with pytest.raises(BackendError, match="has no recorded model calls"):
        make_backend("recorded", model=str(empty))
    with pytest.raises(BackendError, match="cannot read the recording"):
        make_backend("recorded", model=str(tmp_path / "missing.jsonl"))


@pytest.mark.xmpp
@pytest.mark.asyncio(loop_scope="session")
async def test_an_llm_game_replays_from_its_log_to_the_same_decisions(server, tmp_path):
    from maw.agents.gamemaster import GameConfig
    from maw.hosting.game import run_game, seats_from_roster
    from maw.hosting.plan import replay_plan
    from maw.hosting.roster import load_roster
    from maw.records.audit import audit_log
    from maw.records.model_calls import recording

    register_backend(Chaos)
    roster = tmp_path / "r.toml"
    roster.write_text('[llm]\nbackend = "chaos-for-test"\nmax_wait = 0.2\nwindow = 1400\n' +
                      "".join(f'[[player]]\nname = "{n}"\ndecider = "llm"\n'
                              f'persona = "You are {n}."\n' for n in NAMES))
    seats = seats_from_roster(load_roster(roster), 6)
    rules = engine.ruleset("maw", votes_open="talk", max_days=3)
    # (one race a replay cannot repeat: a recorded answer that came within a few ms of a
    # phase's timer, whose move lost to the timer then and may win in the replay, or the
    # other way round (CI, once: Bob's vote 1 ms either side of the day's end). Such a
    # recording is played again, once: the second recording must replay exactly)
    for attempt in (1, 2):
        # (phases long enough that a loaded machine's lag is far from their timers: with
        # 3 s days and 1.5 s nights a fresh-clone run's replay lost moves to them)
        config = GameConfig(players=6, rules=rules, seed=9, day_seconds=5,
                            night_seconds=2.5, log_dir=tmp_path / f"first{attempt}")
        first = await run_game(config, seats, server, timeout=300)
        original = decisions(first.log_path)
        # a small window: contexts were truncated, and the replay must drop the same lines
        records = [json.loads(x) for x in first.log_path.read_text().splitlines()]
        sent = [len(p) for r in records if r["kind"] == "llm" for p in r.get("prompts", [])]
        assert max(sent) > 3 and any(r["requests"][0]["schema"] for r in records
                                     if r["kind"] == "llm" and r.get("requests"))

        # the same game again, every answer from the log, on the recorded timing
        plan = replay_plan(first.log_path, log_dir=tmp_path / f"again{attempt}")
        assert all(s.llm is None or s.llm.backend == "recorded" for s in plan.seats)
        assert plan.config.seed == 9 and plan.config.rules == config.rules
        again = await run_game(plan.config, plan.seats, server, timeout=300)
        replayed = decisions(again.log_path)
        if replayed == original or attempt == 2:
            break
    given = recording(first.log_path)
    # (a request the recording lacks is one the recorded game cancelled too)
    strayed = f"requests not in the recording: {json.dumps(given.misses[:2])}"
    assert replayed["outcome"] == original["outcome"], strayed
    # (where a timer stopped waiting for the recorded moves, the replay's log says so)
    holds = [r for r in map(json.loads, again.log_path.read_text().splitlines())
             if r["kind"] == "replay_hold"]
    assert replayed["actions"] == original["actions"], json.dumps(holds) + "\n" + strayed
    assert replayed["events"] == original["events"]
    assert replayed["answers"] == original["answers"]
    # every recorded answer up to the game's last move was given, once
    end = last_move(records)
    owed = [c for q in given.calls.values() for c in q if c.end <= end]
    assert owed == [] and given.answered <= given.total
    assert audit_log(again.log_path).ok
    # no model ran in the replay: a call cancelled there took no model's time (a request
    # the recording lacks waits for its cancel: 47 s of "cut short" calls in a replay)
    assert not [r for r in map(json.loads, again.log_path.read_text().splitlines())
                if r["kind"] == "llm" and r.get("outcome") == "cut short"]

    # a model run again without the recording decides otherwise (what the replay saved)
    config.log_dir = tmp_path / "rerun"
    rerun = await run_game(config, seats, server, timeout=300)
    assert decisions(rerun.log_path)["answers"] != original["answers"]


def test_a_recorded_answer_waits_for_the_moves_and_answered_questions_before_it(tmp_path):
    """A replay gives an answer only once its phase has taken the steps the recorded
    game's had by then, in any order: the moves, and the questions a model answered (a
    question withdrawn before any answer is no step)."""
    from maw.records.model_calls import Recording

    def llm(t, player, key, text="{}"):
        return {"t": t, "kind": "llm", "player": player, "day": 1, "phase": "day",
                "outcome": "legal", "calls": 1, "tokens": 0, "seconds": 0.0,
                "spans": [[t, t]],
                "prompts": [[{"role": "user", "content": key}]], "answers": [text],
                "requests": [{"key": key}]}

    phase = {"round": 1, "day": 1, "phase": "day"}
    records = [
        {"t": 1.0, "kind": "timer", **phase, "seconds": 3.0},
        {"t": 1.1, "kind": "input", "player": "Ann"},
        {"t": 1.1, "kind": "input", "player": "Bob"},
        {"t": 1.2, "kind": "input", "player": "Cid"},  # withdrawn: no answer
        {"t": 1.3, "kind": "llm", "player": "Cid", "day": 1, "phase": "day", "calls": 0,
         "tokens": 0, "seconds": 0.0, "outcome": "cancelled"},
        llm(1.4, "Ann", "a1"),
        {"t": 1.41, "kind": "action", "round": 1, "action": "Chat", "data": {"actor": "Ann"}},
        {"t": 1.42, "kind": "input", "player": "Ann"},
        llm(1.5, "Bob", "b1"),
        {"t": 1.51, "kind": "action", "round": 1, "action": "Chat", "data": {"actor": "Bob"}},
    ]
    log = tmp_path / "g.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    rec = Recording.read(log)
    ann, bob = rec.calls["a1"][0], rec.calls["b1"][0]
    hear = rec.hear
    hear({"kind": "timer", **phase})
    hear({"kind": "input", "player": "Bob"})
    assert not rec.caught_up(ann)  # Ann has not asked yet
    hear({"kind": "input", "player": "Ann"})
    assert rec.caught_up(ann)  # (Cid's withdrawn question is not waited for)
    assert not rec.caught_up(bob)  # Ann's chat, and her next question, come first
    hear({"kind": "action", "action": "Chat", "data": {"actor": "Bob"}})
    hear({"kind": "input", "player": "Ann"})
    assert not rec.caught_up(bob)  # another's move does not stand in for hers
    hear({"kind": "action", "action": "Chat", "data": {"actor": "Ann"}})
    assert rec.caught_up(bob)
    hear({"kind": "timer", "round": 1, "day": 1, "phase": "night"})
    assert rec.caught_up(rec.calls["a1"][0])  # a phase that has ended holds nothing up
    # and an answer waiting so never holds a server's slot that the one it waits for
    # needs, whatever the recorded game's roster said
    assert make_backend("recorded", model=str(log), parallel=2).parallel == 0


def test_a_question_asked_with_the_view_of_the_phase_before_is_not_waited_for(tmp_path):
    """A player whose answer came as the phase ended asks again before the phase change
    reaches it; in a replay the change may come first and it never asks. The answers
    after must not wait for that question (a replay stalled a whole night on one)."""
    from maw.records.model_calls import Recording

    def llm(t, player, key, day, phase):
        return {"t": t, "kind": "llm", "player": player, "day": day, "phase": phase,
                "outcome": "legal", "calls": 1, "tokens": 0, "seconds": 0.0,
                "spans": [[t, t]], "prompts": [[{"role": "user", "content": key}]],
                "answers": ["{}"], "requests": [{"key": key}]}

    records = [
        {"t": 1.0, "kind": "timer", "round": 1, "day": 1, "phase": "night", "seconds": 3.0},
        {"t": 1.01, "kind": "input", "player": "Eve"},  # still with the day's view
        {"t": 1.02, "kind": "input", "player": "Ann"},
        llm(1.2, "Eve", "e1", 1, "day"),  # (its answer: too late to count)
        llm(1.3, "Ann", "a1", 1, "night"),
    ]
    log = tmp_path / "g.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    rec = Recording.read(log)
    night = {"kind": "timer", "round": 1, "day": 1, "phase": "night"}
    rec.hear(night)
    assert not rec.caught_up(rec.calls["a1"][0])  # Ann's own question comes first
    rec.hear({"kind": "input", "player": "Ann"})
    assert rec.caught_up(rec.calls["a1"][0])  # and Eve's, never asked here, is not awaited
    rec.hear({"kind": "input", "player": "Eve"})  # (asked after all: no harm)
    assert rec.caught_up(rec.calls["a1"][0])


def test_only_a_game_of_hosted_players_with_its_seats_logged_replays(tmp_path):
    from maw.hosting.plan import replay_plan

    log = tmp_path / "g.jsonl"
    log.write_text(json.dumps({"t": 1, "kind": "started", "agents": 3, "seconds": 1,
                               "ruleset": "maw", "seed": 1, "players": 6, "remote": 0,
                               "lobby": "x@y", "wall": 0}) + "\n")
    with pytest.raises(MawError, match="does not say how its game was set up"):
        replay_plan(log)
    log.write_text(json.dumps({"t": 1, "kind": "started", "agents": 3, "seconds": 1,
                               "ruleset": "maw", "seed": 1, "players": 6, "remote": 2,
                               "lobby": "x@y", "wall": 0, "config": {},
                               "seats": [{"name": "Ann"}]}) + "\n")
    with pytest.raises(MawError, match="2 player.s. of .* joined from elsewhere"):
        replay_plan(log)


def test_a_context_fits_in_a_replay_where_it_fitted_in_the_recording(tmp_path):
    log = tmp_path / "g.jsonl"
    sent = [{"role": "system", "content": "rules"}, {"role": "user", "content": "q2"}]
    log.write_text(json.dumps({
        "t": 1, "kind": "llm", "player": "Ann", "calls": 1, "tokens": 1, "seconds": 0.1,
        "outcome": "legal", "spans": [[1.0, 1.1]], "prompts": [sent], "answers": ["{}"],
        "requests": [{"key": request_key(sent, None, 50, 0.7)}]}) + "\n")
    llm = LLM(make_backend("recorded", model=str(log), pace=False), window=1000)
    llm.pin("system", "rules")
    llm.context += [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}]
    answer = asyncio.run(llm.prompt("q2", None, max_tokens=50))
    assert answer.text == "{}" and llm.last_sent == sent  # q1 and a1 were dropped


def test_a_replays_timer_waits_for_the_moves_the_recorded_game_had_taken(tmp_path):
    from maw.records.model_calls import Recording, moves_before_timers

    def rec(t, kind, **fields):
        return {"t": t, "kind": kind, **fields}

    day, night = (1, 1, "day"), (1, 1, "night")
    log = [rec(1.0, "timer", round=1, day=1, phase="day", seconds=3.0),
           rec(1.2, "action", round=1, action="Pass", data={"actor": "Ann"}),
           rec(1.3, "action", round=1, action="Pass", data={"actor": "Bob"}),
           rec(1.3, "event", round=1, event="VotesOpened", data={"day": 1}),
           rec(2.0, "action", round=1, action="Vote", data={"actor": "Ann"}),
           rec(4.0, "action", round=1, action="EndPhase", data={}),
           rec(4.0, "timer", round=1, day=1, phase="night", seconds=1.5),
           rec(5.5, "action", round=1, action="EndPhase", data={})]
    # the day's votes opened after 2 moves, the timer ended it after 3; the night had none
    assert moves_before_timers(log) == {(day, "votes"): 2, (day, "end"): 3}

    async def play() -> list[float]:
        recording = Recording(tmp_path / "log.jsonl", moves=moves_before_timers(log))
        recording.hear(log[0])
        waited = []
        for step, moves in (("votes", log[1:3]), ("end", log[3:5])):
            start = asyncio.get_running_loop().time()
            holding = asyncio.create_task(recording.hold(day, step))
            for r in moves:  # the replay's moves come late: the timer waits for them
                await asyncio.sleep(0.1)
                assert not holding.done()
                recording.hear(r)
            await holding
            waited.append(asyncio.get_running_loop().time() - start)
        await recording.hold(day, "end")  # (once taken, a timer waits no more)
        recording.hear(log[6])
        await asyncio.wait_for(recording.hold(night, "end"), 0.05)
        return waited

    waited = asyncio.run(play())
    assert all(0.2 <= w < 1.0 for w in waited), waited
