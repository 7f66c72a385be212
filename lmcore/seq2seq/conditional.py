"""The encoder-decoder as a :class:`lmcore.lm_protocol.ConditionalLanguageModel`:

P(y | x) = ∏_{t=1}^{T+1} P(y_t | y_<t, x),  y_{T+1} = ``</s>``,

with P(· | y_<t, x) = softmax(W_o s^(t)) read under teacher forcing (decoder input ``<s> y_<t``).
Mixed into :class:`lmcore.seq2seq.model.Seq2Seq`, so every trained or shipped model answers the
same questions as the unconditional LMs, each given the source x.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import torch

from lmcore.lm_protocol import Perplexity, PrefixScorer, TokenLogProbs, perplexity_of, tempered
from lmcore.seq2seq.tasks import make_batch
from lmcore.seq2seq.vocab import EOS_ID, TOKENS, encode


class ConditionalLM:
    """The conditional protocol on top of ``self(src, src_len, tgt_in) -> (log-probs, attention)``."""

    @property
    def vocab(self) -> list[str]:
        """The decoder's output symbols (its softmax runs over all of them)."""
        return list(TOKENS)

    @torch.no_grad()
    def _step_logprobs(self, source: Sequence[str], target: Sequence[str]) -> torch.Tensor:
        """ln P(· | y_<t, x) for t = 1..len(target)+1 (rows), float64."""
        batch = make_batch([(source, target)])
        logprobs, _ = self(batch.src, batch.src_len, batch.tgt_in)  # type: ignore[operator]
        return logprobs[0].double()

    def distribution(self, source: Sequence[str], context: Sequence[str]) -> np.ndarray:
        """P(· | <s> context, x) over :attr:`vocab`."""
        return self._step_logprobs(source, context)[-1].exp().numpy()

    def sentence_logprobs(self, source: Sequence[str], target: Sequence[str]) -> TokenLogProbs:
        """ln P(y_t | y_<t, x) for every target token and the final ``</s>``."""
        ids = encode(list(target)) + [EOS_ID]
        rows = self._step_logprobs(source, target)
        logprobs = rows[torch.arange(len(ids)), torch.as_tensor(ids)].numpy()
        return TokenLogProbs([*target, TOKENS[EOS_ID]], logprobs, np.zeros(len(ids), dtype=bool))

    def sentence_logprob(self, source: Sequence[str], target: Sequence[str]) -> float:
        """ln P(y </s> | x)."""
        return self.sentence_logprobs(source, target).total

    def perplexity(self, pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> Perplexity:
        """exp(−Σ ln P(y_t | y_<t, x) / N) over the pairs, ``</s>`` counted once per target."""
        return perplexity_of(self.sentence_logprobs(x, y) for x, y in pairs)

    def sample(self, source: Sequence[str], seed: int = 0, max_len: int = 30,
               temperature: float = 1.0) -> list[str]:
        """y drawn token by token from P_τ(· | y_<t, x) until ``</s>`` or ``max_len`` tokens."""
        rng = np.random.default_rng(seed)
        out: list[str] = []
        for _ in range(max_len):
            p = tempered(self.distribution(source, out), temperature)
            nxt = int(rng.choice(len(p), p=p))
            if nxt == EOS_ID:
                break
            out.append(TOKENS[nxt])
        return out

    def scorer(self, source: Sequence[str]) -> PrefixScorer:
        """The decoder as a beam-search scorer for this source (its ``end_id`` is ``</s>``)."""
        from lmcore.seq2seq.scoring import decoder_scorer

        return decoder_scorer(self, source)  # type: ignore[arg-type]
