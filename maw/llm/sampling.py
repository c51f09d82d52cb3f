"""The embedded model's sampling under a grammar, as llama.cpp's own server samples.

llama-cpp-python puts the grammar first in its chain of samplers: at every token it checks
each of the vocabulary's tokens against the grammar (262,144 for the default Gemma 3
model), about 50 ms a token on these 2 cores, more than the model's own step. llama.cpp's
``common_sampler_sample`` draws first (penalties, top-k, top-p, min-p, temperature) and
checks only the token drawn; only when the grammar refuses it is the whole vocabulary
masked and a token drawn again. Each answer still keeps to the grammar (a JSON schema's),
and a draw is from the same distribution wherever the grammar allows the token drawn.

:class:`GrammarLast` is that sampler, in the place of llama-cpp-python's (``Llama`` calls
``_sampler.sample(ctx, idx)``), made by :func:`grammar_last` for a model's generation.
Used in the model's own process only (``maw.llm.model_worker``).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np


class GrammarLast:
    """``chain`` (a ``LlamaSampler`` without the grammar) draws; ``grammar`` (a
    ``LlamaSampler`` holding only the grammar) checks the draw, and masks the vocabulary
    for a second draw when it refuses it. Both learn every token chosen."""

    def __init__(self, chain: Any, grammar: Any, n_vocab: int) -> None:
        import llama_cpp

        self.lib = llama_cpp
        self.chain, self.grammar = chain, grammar
        self.n_vocab = n_vocab
        # the candidates, laid out as llama.cpp's llama_token_data (id, logit, p)
        self.data = np.zeros(n_vocab, dtype=np.dtype(
            [("id", np.int32), ("logit", np.float32), ("p", np.float32)]))
        self.ids = np.arange(n_vocab, dtype=np.int32)
        self.one = (llama_cpp.llama_token_data * 1)()
        self.refused = 0  # draws the grammar refused (each cost a masked draw)
        self.drawn = 0

    def _candidates(self, ctx: Any, idx: int) -> Any:
        """Every token with its logit at output ``idx``, as a llama_token_data_array."""
        lib = self.lib
        logits = lib.llama_get_logits_ith(ctx.ctx, idx)
        # (every field again: the samplers sort and cut the array they are given)
        self.data["id"] = self.ids
        self.data["logit"] = np.ctypeslib.as_array(logits, shape=(self.n_vocab,))
        self.data["p"] = 0.0
        return lib.llama_token_data_array(
            data=self.data.ctypes.data_as(ctypes.POINTER(lib.llama_token_data)),
            size=self.n_vocab, selected=-1, sorted=False)

    def _draw(self, cur: Any) -> int:
        self.lib.llama_sampler_apply(self.chain.sampler, ctypes.byref(cur))
        if cur.selected < 0:
            raise RuntimeError("the sampler chain selected no token")
        return int(cur.data[cur.selected].id)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        lib = self.lib
        token = self._draw(self._candidates(ctx, idx))
        self.drawn += 1
        self.one[0] = lib.llama_token_data(token, 1.0, 0.0)  # (the draw alone)
        single = lib.llama_token_data_array(data=self.one, size=1, selected=-1, sorted=False)
        lib.llama_sampler_apply(self.grammar.sampler, ctypes.byref(single))
        if math.isinf(self.one[0].logit):  # refused: mask every token, then draw again
            self.refused += 1
            cur = self._candidates(ctx, idx)
            lib.llama_sampler_apply(self.grammar.sampler, ctypes.byref(cur))
            token = self._draw(cur)
        lib.llama_sampler_accept(self.grammar.sampler, token)
        lib.llama_sampler_accept(self.chain.sampler, token)
        return token


def grammar_last(llm: Any) -> None:
    """Make ``llm`` (a ``llama_cpp.Llama``) sample under a grammar with :class:`GrammarLast`
    (without a grammar, its own chain as before)."""
    from llama_cpp import _internals

    own = llm._init_sampler

    def init_sampler(*args: Any, grammar: Any = None, **kwargs: Any) -> Any:
        chain = own(*args, grammar=None, **kwargs)
        if grammar is None:
            return chain
        checker = _internals.LlamaSampler()
        checker.add_grammar(llm._model, grammar)
        return GrammarLast(chain, checker, llm._n_vocab)

    llm._init_sampler = init_sampler
