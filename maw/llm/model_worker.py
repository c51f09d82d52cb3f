"""The embedded model's own process: what ``maw.llm.model_process`` starts.

    python -m maw.llm.model_worker --model PATH [--n-ctx N] [--threads T] [--threads-batch B]
                                   [--prefix-cache-mb M] [--grammar-first]
    python -m maw.llm.model_worker --check      # the set-up's proof that the model runs here

Loads the model, writes ``{"ready": true, ...}`` on stdout, then answers JSON-line requests
from stdin (``complete``, ``tokenize``, ``cancel``) until stdin closes. Completions run one
at a time in the order asked; a tokenize is answered at once; a cancelled completion never
starts, or stops at its next token. Whatever native code prints goes to stderr.

**Each prompt is read once** (``States``): after every completion the model's evaluated
context (llama.cpp's state: its KV cache, a few MB) is kept under the tokens it holds;
before the next one, the kept context sharing the longest prefix with the new prompt is
restored, so a player's call evaluates only what is new since its own last call, even
when other players' calls ran in between. At most ``--prefix-cache-mb`` MB are kept
(the least recently used go first; 0 keeps none). Each reply says how many of its prompt
tokens were evaluated (``evaluated_tokens``).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import threading
import time
from typing import Any

_LOG_CALLBACK: list = []  # (kept alive: llama.cpp holds a pointer to it)


def quiet_llama_logs() -> None:
    """Let only llama.cpp's errors through to stderr. llama-cpp-python maps an older level
    enum (3 was ERROR; llama.cpp now has DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5), so its
    own filter printed warnings such as "using full-size SWA cache" on every game."""
    if _LOG_CALLBACK:
        return
    import ctypes

    import llama_cpp

    last = [0]

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if level != 5:
            last[0] = level
        if last[0] >= 4:
            sys.stderr.write(text.decode("utf-8", errors="replace"))
            sys.stderr.flush()

    _LOG_CALLBACK.append(callback)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))


# ---------------------------------------------------------------- the child's side


def common_prefix(a, b) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class States:
    """Evaluated contexts, kept by the tokens they hold (see the module docstring). Only
    llama.cpp's own state is kept, not llama-cpp-python's per-token logits (hundreds of
    MB for a 262k-token vocabulary): a restored context always evaluates at least the
    prompt's last token again, which is where the next logits come from."""

    def __init__(self, capacity_bytes: int) -> None:
        from collections import OrderedDict

        self.capacity = capacity_bytes
        self.kept: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.size = 0

    def best(self, tokens: list[int]) -> tuple[tuple[int, ...], int] | None:
        """The kept context sharing the longest prefix with ``tokens``, and that length."""
        found, length = None, 0
        for key in self.kept:
            n = common_prefix(key, tokens)
            if n > length:
                found, length = key, n
        return (found, length) if found is not None else None

    def restore(self, llm, key: tuple[int, ...]) -> None:
        import ctypes

        import llama_cpp

        data = self.kept[key]
        self.kept.move_to_end(key)
        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if llama_cpp.llama_state_set_data(llm._ctx.ctx, buf, len(data)) != len(data):
            raise RuntimeError("could not restore a kept context")
        llm.input_ids[:len(key)] = key
        llm.n_tokens = len(key)

    def keep(self, llm) -> None:
        import ctypes

        import llama_cpp

        if self.capacity <= 0 or llm.n_tokens == 0:
            return
        key = tuple(int(t) for t in llm.input_ids[:llm.n_tokens])
        size = llama_cpp.llama_state_get_size(llm._ctx.ctx)
        buf = (ctypes.c_uint8 * size)()
        n = llama_cpp.llama_state_get_data(llm._ctx.ctx, buf, size)
        # a kept context that is a prefix of this one is served as well by this one
        for old in [k for k in self.kept if len(k) <= len(key) and key[:len(k)] == k]:
            self.size -= len(self.kept.pop(old))
        self.kept[key] = bytes(buf)[:n]
        self.size += n
        while self.size > self.capacity and self.kept:
            _, dropped = self.kept.popitem(last=False)
            self.size -= len(dropped)


def serve(args: argparse.Namespace) -> int:
    """The child: load the model, then answer requests until stdin closes."""
    # the protocol gets the real stdout; anything native code prints goes to stderr
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    write_lock = threading.Lock()

    def reply(data: dict) -> None:
        with write_lock:
            out.write(json.dumps(data) + "\n")

    try:
        from llama_cpp import Llama, LlamaGrammar, StoppingCriteriaList

        quiet_llama_logs()
        llm = Llama(model_path=args.model, n_ctx=args.n_ctx, n_threads=args.threads,
                    n_threads_batch=args.threads_batch, verbose=False)
        if not args.grammar_first:
            from maw.llm.sampling import grammar_last

            grammar_last(llm)  # (the grammar checks a drawn token, not the vocabulary)
    except Exception as exc:  # a Python-level failure: say it (a crash says itself)
        reply({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    import llama_cpp

    reply({"ready": True, "pid": os.getpid(),
           "system_info": llama_cpp.llama_print_system_info().decode(errors="replace")})
    work: queue.Queue = queue.Queue()
    states = States(args.prefix_cache_mb << 20)
    cancelled: set[int] = set()
    parent_gone = threading.Event()

    def read() -> None:
        for line in sys.stdin:
            try:
                request = json.loads(line)
            except json.JSONDecodeError:
                continue
            op = request.get("op")
            if op == "cancel":
                cancelled.add(request["id"])
            elif op == "tokenize":
                try:
                    n = len(llm.tokenize(request["text"].encode("utf-8"), add_bos=True,
                                         special=True))
                    reply({"id": request["id"], "tokens": n})
                except Exception as exc:
                    reply({"id": request["id"], "error": repr(exc)})
            else:
                work.put(request)
        parent_gone.set()  # stdin closed: MAW is done with the model, or died
        work.put(None)

    threading.Thread(target=read, daemon=True).start()
    while (request := work.get()) is not None:
        rid = request["id"]
        if rid in cancelled:
            reply({"id": rid, "cancelled": True, "ran": False})
            continue
        stopped = [False]

        def stop_early(_tokens, _logits, rid=rid, stopped=stopped) -> bool:
            if rid in cancelled or parent_gone.is_set():
                stopped[0] = True
            return stopped[0]

        try:
            t0 = time.monotonic()  # (CLOCK_MONOTONIC: the parent's clock too)
            schema = request.get("schema")
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False) \
                if schema else None
            # (tokenized as create_completion does; the last token is always evaluated)
            tokens = llm.tokenize(request["prompt"].encode("utf-8"), special=True)
            now = common_prefix(llm.input_ids[:llm.n_tokens].tolist(), tokens[:-1])
            kept = states.best(tokens[:-1])
            if kept is not None and kept[1] > now:
                states.restore(llm, kept[0])
                now = kept[1]
            r: Any = llm.create_completion(
                request["prompt"], max_tokens=request.get("max_tokens", 200),
                temperature=request.get("temperature", 0.7), grammar=grammar,
                repeat_penalty=request.get("repeat_penalty", 1.0),
                stop=request.get("stop") if grammar is None else None,
                stopping_criteria=StoppingCriteriaList([stop_early]))
            usage = r.get("usage", {})
            states.keep(llm)
            reply({"id": rid, "text": r["choices"][0]["text"], "start": t0,
                   "end": time.monotonic(), "prompt_tokens": usage.get("prompt_tokens", 0),
                   "evaluated_tokens": len(tokens) - now,
                   "completion_tokens": usage.get("completion_tokens", 0),
                   "cancelled": rid in cancelled, "ran": True, "stopped_early": stopped[0]})
        except Exception as exc:
            reply({"id": rid, "error": f"{type(exc).__name__}: {exc}"})
        cancelled.discard(rid)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m maw.llm.model_worker",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="prove the model runs here with the game's thread counts")
    parser.add_argument("--model", default="")
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--threads-batch", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--grammar-first", action="store_true",
                        help="llama-cpp-python's own sampling: the grammar checks every "
                             "token of the vocabulary at each step (maw.llm.sampling)")
    parser.add_argument("--prefix-cache-mb", type=int, default=512,
                        help="keep evaluated contexts up to this many MB (0: none)")
    args = parser.parse_args(argv)
    if args.check:
        from maw.llm.model_process import check

        return check(args.threads, args.threads_batch, args.timeout)
    if not args.model:
        parser.error("--model PATH is needed (or --check)")
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
