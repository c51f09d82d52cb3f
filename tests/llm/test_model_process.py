"""The embedded model on the machines users have: its build flags (never AMX), and its own
process, whose crash costs the calls it was answering, never the game."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from maw.llm import BackendError, make_backend
from maw.llm.cpu_flags import cmake_args
from maw.llm.model_process import MAX_CRASHES, ModelCrashed, ModelKey, ModelProcess

REPO = Path(__file__).resolve().parents[2]

# /proc/cpuinfo flags of an Intel Xeon (Sapphire Rapids) with AMX, where the native build
# crashed in ggml_backend_amx_mul_mat
SAPPHIRE_RAPIDS = ("flags\t\t: fpu sse4_1 sse4_2 avx f16c avx2 bmi2 fma avx_vnni avx512f "
                   "avx512cd avx512vl avx512dq avx512bw avx512vbmi avx512_vnni avx512_bf16 "
                   "amx_bf16 amx_tile amx_int8\n")
OLD_CPU = "processor\t: 0\nflags\t\t: fpu sse4_1 sse4_2 avx\n"  # Sandy Bridge: no AVX2


def options(args: str) -> dict[str, str]:
    return dict(a.removeprefix("-D").split("=") for a in args.split())


def test_the_build_never_uses_amx_and_names_every_instruction_set():
    got = options(cmake_args(SAPPHIRE_RAPIDS, "x86_64"))
    # native would bring AMX back through -march=native
    assert got["GGML_NATIVE"] == "OFF"
    assert got["GGML_AMX_TILE"] == got["GGML_AMX_INT8"] == got["GGML_AMX_BF16"] == "OFF"
    assert got["GGML_AVX512"] == got["GGML_AVX512_VNNI"] == got["GGML_AVX2"] == "ON"
    # an older CPU: what it lacks is OFF (GGML_NATIVE=OFF would assume AVX2, FMA, F16C)
    old = options(cmake_args(OLD_CPU, "x86_64"))
    assert old["GGML_AVX"] == "ON"
    assert old["GGML_AVX2"] == old["GGML_FMA"] == old["GGML_F16C"] == "OFF"
    assert old["GGML_AVX512_VNNI"] == "OFF"
    # the set-up's second try: AVX2 at most
    plain = options(cmake_args(SAPPHIRE_RAPIDS, "x86_64", plain=True))
    assert plain["GGML_AVX2"] == "ON" and plain["GGML_AVX512"] == "OFF"
    assert plain["GGML_AVX_VNNI"] == "OFF"
    # elsewhere llama.cpp's own native build stays
    assert cmake_args(SAPPHIRE_RAPIDS, "aarch64") == ""
    assert cmake_args(None, "x86_64") == ""


def test_the_flags_script_runs_without_maw_installed():
    # scripts/setup.sh runs it before MAW is installed: the standard library only
    out = subprocess.run([sys.executable, "-S", str(REPO / "maw" / "llm" / "cpu_flags.py")],
                         capture_output=True, text=True, timeout=30, cwd="/")
    assert out.returncode == 0, out.stderr
    assert "AMX_INT8=ON" not in out.stdout


# ---------------------------------------------------------------- the model's process


@pytest.fixture
def model_path() -> str:
    from maw.llm.model_process import default_model_path

    try:
        path = default_model_path()
        import llama_cpp  # noqa: F401
    except (BackendError, ImportError) as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the local extra is missing in CI: {exc}")
        pytest.skip(str(exc))
    return path


LONG = [{"role": "user", "content": "Tell a long story about a village and its wolves."}]
ENDLESS = {"type": "string", "minLength": 400}  # cannot end before it is killed


async def kill_while_answering(backend, sig: int) -> BaseException:
    call = asyncio.create_task(backend.chat(LONG, schema=ENDLESS, max_tokens=400))
    deadline = time.monotonic() + 120
    while backend.process.pid is None:  # (a model started again is still loading)
        assert time.monotonic() < deadline and not call.done(), "the model never came up"
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # the prompt is read, tokens are coming
    os.kill(backend.process.pid, sig)
    with pytest.raises(ModelCrashed) as info:
        await asyncio.wait_for(call, 30)
    return info.value


async def _converse(backend, turns: int = 2) -> tuple[list[str], list[tuple[int, int]]]:
    """Three players' conversations on one model, their calls interleaved: the answers
    and each call's (prompt tokens, tokens evaluated)."""
    rules = "You are playing Werewolf, a game of talk and deduction. " * 12
    talks = {p: [{"role": "system", "content": rules},
                 {"role": "system", "content": f"You are {p}, a villager. " * 8}]
             for p in ("Ann", "Bob", "Cid")}
    texts, counts = [], []
    for day in range(turns):
        for p, messages in talks.items():
            messages.append({"role": "user", "content": f"Day {day}. {p}, speak. " +
                             "The night was quiet. " * 6})
            answer = await backend.chat(messages, max_tokens=8, temperature=0.0)
            messages.append({"role": "assistant", "content": answer.text})
            texts.append(answer.text)
            counts.append((answer.prompt_tokens, answer.evaluated_tokens))
    return texts, counts


@pytest.mark.slow
async def test_each_player_s_prompt_is_read_once_and_answers_do_not_change(model_path):
    """The model keeps each conversation's context: a player's second call, after two
    other players' calls, reads only what is new since its own first (a few dozen tokens
    of hundreds); with no contexts kept it reads all but the rules again. The answers
    are the same either way."""
    kept = make_backend("llamacpp", n_ctx=1024)
    texts, counts = await _converse(kept)
    none = make_backend("llamacpp", n_ctx=1024, prefix_cache_mb=0)
    texts0, counts0 = await _converse(none)
    assert texts == texts0
    assert [p for p, _ in counts] == [p for p, _ in counts0]
    first, second = counts[:3], counts[3:]
    for (p1, _), (p2, evaluated) in zip(first, second, strict=True):
        new = p2 - p1  # the turn just asked, and the answer before it
        assert evaluated <= new + 2, (evaluated, new)
    for (_, evaluated), (_, evaluated0) in zip(second, counts0[3:], strict=True):
        assert evaluated0 > 3 * evaluated  # without: the player's own history again
    assert kept.process is not none.process  # (two processes: a cache is per model)


@pytest.mark.slow
async def test_answers_keep_to_the_schema_when_the_grammar_checks_only_the_token_drawn(
        model_path):
    """The model draws first and the grammar checks that token (maw.llm.sampling). Hot
    sampling on a base model draws many a token the schema forbids: each is drawn again
    from the masked vocabulary, so every answer is JSON of the schema."""
    schema = {"type": "object", "properties": {
        "action": {"enum": ["vote Ann", "vote Bob", "listen"]},
        "say": {"type": "string", "maxLength": 40}}, "required": ["action", "say"],
        "additionalProperties": False}
    backend = make_backend("llamacpp", n_ctx=768)
    assert not backend.grammar_first
    for i in range(3):
        hot = await backend.chat([{"role": "user", "content": f"Werewolf, day {i}. Bob "
                                   "accused Cid. Who do you vote for? Answer in JSON."}],
                                 schema=schema, max_tokens=60, temperature=1.5)
        data = json.loads(hot.text)
        assert data["action"] in schema["properties"]["action"]["enum"]
        assert set(data) == {"action", "say"} and len(data["say"]) <= 40


EACH_DRAW = r"""
import json, sys
import numpy as np
from llama_cpp import Llama, LlamaGrammar, llama_get_logits_ith
from maw.llm.model_worker import quiet_llama_logs
from maw.llm.sampling import GrammarLast, grammar_last

quiet_llama_logs()
llm = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=2, verbose=False)
grammar_last(llm)
sampler = llm._init_sampler(temp=0.7, grammar=LlamaGrammar.from_json_schema(
    json.dumps({"type": "object"}), verbose=False))
assert isinstance(sampler, GrammarLast)
llm.eval(llm.tokenize(b"The village wakes up and", add_bos=True))
for _ in range(3):
    token = sampler.sample(llm._ctx, -1)
    cur = sampler._candidates(llm._ctx, -1)
    logits = np.ctypeslib.as_array(llama_get_logits_ith(llm._ctx.ctx, -1),
                                   shape=(llm.n_vocab(),))
    assert cur.size == llm.n_vocab()
    assert np.array_equal(logits[sampler.data["id"]], sampler.data["logit"]), "mismatched"
    llm.eval([token])
assert sampler.drawn == 3
"""


@pytest.mark.slow
def test_each_draw_weighs_every_token_by_its_own_logit(model_path):
    # the samplers sort and cut the candidates in place: every draw lays them out again
    # from the model's logits (a draw that kept the last one's order gave each token
    # another token's logit: fluent JSON around gibberish, or a grammar in a state it
    # aborts on: in a child, so that such a crash is this test's failure alone)
    out = subprocess.run([sys.executable, "-c", EACH_DRAW, model_path],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]


@pytest.mark.slow
async def test_the_embedded_model_answers_with_two_threads(model_path):
    # CI machines vary: one thread hid the AMX crash (it came on a second compute thread)
    backend = make_backend("llamacpp", n_ctx=1024, threads=2, threads_batch=2)
    await backend.check()
    process = backend.process
    assert process.key.threads == 2 and process.key.threads_batch == 2
    answer = await backend.chat([{"role": "user", "content": "The village is"}],
                                max_tokens=8, temperature=0.0)
    assert answer.completion_tokens > 0 and answer.text
    # the model runs in its own process, not in this one
    assert process.pid != os.getpid()
    threads = int(next(line.split()[1] for line in
                       Path(f"/proc/{process.pid}/status").read_text().splitlines()
                       if line.startswith("Threads:")))
    assert threads >= 2


@pytest.mark.slow
@pytest.mark.parametrize("sig,words", [(signal.SIGSEGV, "crashed (SIGSEGV)"),
                                       (signal.SIGKILL, "was killed (SIGKILL")])
async def test_a_crashed_model_costs_its_call_and_is_restarted(model_path, sig, words, caplog):
    backend = make_backend("llamacpp", n_ctx=768 + sig, threads=2)  # a process of its own
    await backend.check()
    first = backend.process.pid
    error = await kill_while_answering(backend, sig)
    assert words in str(error) and "restarts it" in str(error)
    assert "maw: the embedded model's process " + words in caplog.text  # the screen's line
    # the next call starts a new process, which answers
    answer = await backend.chat([{"role": "user", "content": "Yes or no?"}], max_tokens=2)
    assert answer.completion_tokens > 0
    assert backend.process.pid not in (None, first) and backend.process.restarts == 1
    assert backend.process.crashes == 0  # an answer came: the count starts again


@pytest.mark.slow
async def test_a_model_that_keeps_crashing_is_given_up_not_restarted_forever(model_path):
    backend = make_backend("llamacpp", n_ctx=700, threads=2)
    await backend.check()
    for _ in range(MAX_CRASHES):
        await kill_while_answering(backend, signal.SIGSEGV)
    t0 = time.monotonic()
    with pytest.raises(ModelCrashed, match="times in a row: MAW gave up on it"):
        await backend.chat([{"role": "user", "content": "Yes?"}], max_tokens=2)
    assert time.monotonic() - t0 < 1  # at once: no restart


@pytest.mark.slow
def test_a_call_that_finds_the_model_dead_first_still_fails_the_dead_ones_calls(
        model_path, caplog):
    # a call may find the model's process dead before the process's reader does: it
    # starts the next one, and the dead one's calls must fail now, with the reason said
    # once (they were left waiting for their timeouts, and nothing was said)
    process = ModelProcess(ModelKey(model_path, 640, 2, 2))
    try:
        _, owed = process.submit({"prompt": "Tell a long story about the village.",
                                  "schema": ENDLESS, "max_tokens": 400})
        time.sleep(1.0)  # it is answering
        with process._lock:  # (the reader waits for it: the call comes first)
            os.kill(process.pid, signal.SIGKILL)
            process.proc.wait()
            process.start()
        with pytest.raises(ModelCrashed, match=r"was killed \(SIGKILL.*while it answered 1 "):
            owed.result(timeout=10)
        assert process.restarts == 1 and process.pid is not None
        time.sleep(0.5)  # (the dead one's reader has come and gone)
        said = [r for r in caplog.records if "was killed" in r.getMessage()]
        assert len(said) == 1
    finally:
        process.close()


def test_a_model_that_dies_while_loading_says_so():
    # a file that is not a model: the child reports the error and exits
    process = ModelProcess(ModelKey(str(REPO / "README.md"), 256, 1, 1))
    with pytest.raises(BackendError, match="the embedded model did not load"):
        process.start()


@pytest.mark.slow
def test_a_game_survives_its_model_crashing_and_being_killed(tmp_path, model_path):
    """The README's game on the embedded model; its model's process is sent SIGSEGV, then
    SIGKILL, while it answers. The game ends normally: those calls fell back to the rule
    player, the log says why, and the screen has one line for each."""
    cmd = [sys.executable, "-m", "maw.cli", "game", "--players", "6", "--seed", "1",
           "--roster", str(REPO / "agents" / "local.toml"), "--early-end", "--day-seconds", "20",
           "--night-seconds", "10", "--rule", "max_days=2", "--log-dir", str(tmp_path),
           "--xmpp", f"embedded:{free_port()}"]
    env = dict(os.environ, OLLAMA_HOST="http://127.0.0.1:9")
    game = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env=env)
    lines: list[str] = []
    errors: list[str] = []
    readers = [threading.Thread(target=lambda: lines.extend(game.stdout), daemon=True),
               threading.Thread(target=lambda: errors.extend(game.stderr), daemon=True)]
    for reader in readers:
        reader.start()
    killed = []
    try:
        # as a day begins every player asks at once: the model has calls to answer
        for sig, phase in ((signal.SIGSEGV, "-- Day 1, day"), (signal.SIGKILL, "-- Day 2, day")):
            end = time.monotonic() + 200
            while not any(line.startswith(phase) for line in lines) and game.poll() is None \
                    and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(1.0)
            pid = worker_of(game.pid, not_in=killed)
            if pid is not None:
                os.kill(pid, sig)
                killed.append(pid)
        game.wait(timeout=400)
        for reader in readers:
            reader.join(10)
        out, err = "".join(lines), "".join(errors)
    finally:
        game.kill()
    assert len(killed) == 2, (killed, err[-3000:])
    assert game.returncode == 0, err[-3000:]
    assert "Summary:" in out and "Traceback" not in err
    assert "maw: the embedded model's process crashed (SIGSEGV)" in err
    assert "maw: the embedded model's process was killed (SIGKILL" in err
    records = [json.loads(x) for x in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    crashed = [r for r in records if r["kind"] == "llm" and "ModelCrashed" in r.get(
        "exception", "")]
    assert len(crashed) >= 2, [r for r in records if r["kind"] == "llm"][-10:]
    assert all(r["outcome"] == "fallback" and r["fallback_decider"] == "rule"
               for r in crashed)
    assert any(r["kind"] == "outcome" for r in records)
    # after the crashes the model answered again: every decision the game still asked of
    # it (on a loaded machine the game may end first) had a model's answer, none fell
    # back for a crash
    last_crash = max(r["t"] for r in crashed)
    later = [r for r in records if r["kind"] == "llm" and r["t"] > last_crash
             and r["outcome"] not in ("cancelled", "unfinished")]
    assert not any("ModelCrashed" in r.get("exception", "") for r in later), later
    assert not later or any(r["calls"] > 0 for r in later), later  # (an answer: it is back)


def free_port() -> int:
    from maw.hosting.xmpp import free_port as port

    return port()


def worker_of(parent: int, not_in: list[int]) -> int | None:
    """The model worker started by process ``parent`` (not one already killed)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in not_in:
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"maw.llm.model_worker" in cmdline:
            return int(entry.name)
    return None


@pytest.mark.slow
async def test_a_typical_call_is_timed_for_the_phases_timers(model_path):
    """The host fits the day to the model it has (``maw.hosting.plan.phase_lengths``): one
    probe call of a player's size, answered under its schema, timed here."""
    from maw.engine import ruleset
    from maw.hosting.plan import GameRequest, phase_lengths
    from maw.hosting.roster import LLMSpec
    from maw.hosting.seats import Seat, time_models

    seats = [Seat(n, "hybrid", llm=LLMSpec(backend="llamacpp", options={"threads": 2}))
             for n in ("Ann", "Bob", "Cid")]
    timed = await time_models(seats)
    assert len(timed) == 1 and timed[0].players == 3 and timed[0].at_once == 1
    assert 0 < timed[0].seconds < 60
    day, night = phase_lengths(GameRequest(players=3, rules=ruleset("maw")), seats, timed)
    assert day >= 3 * 4 * timed[0].seconds and night >= 3 * timed[0].seconds


def test_the_models_threads_follow_maw_llm_threads(monkeypatch):
    """``MAW_LLM_THREADS`` sets the embedded model's threads where its options do not
    (the suite runs it on one: three workers share two cores); a bad value is refused by
    name, and unset it is every CPU this process may use."""
    from maw.llm.model_process import default_threads

    monkeypatch.setenv("MAW_LLM_THREADS", "3")
    assert default_threads() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("MAW_LLM_THREADS", bad)
        with pytest.raises(BackendError, match="MAW_LLM_THREADS"):
            default_threads()
    monkeypatch.delenv("MAW_LLM_THREADS")
    assert default_threads() == len(os.sched_getaffinity(0))
