"""LSTM encoder-decoder, the conditional LM of the notes:

P(y | x) = ∏_t P(y_t | y_<t, x),  c = h_enc^(m) = f_enc(x_1 … x_m),
s^(t) = f_dec(s^(t-1), y_{t-1}, c),  P(y_t | y_<t, x) = softmax(W_o s^(t))[y_t].

Without attention the decoder sees the source only through c (the bottleneck), fed at every step
and as the decoder's initial state. With attention, c is replaced by c_t = Σ_j α_tj h_j computed
from the query s^(t-1), and the output layer reads [s^(t); c_t].

The model is also a :class:`lmcore.lm_protocol.ConditionalLanguageModel`:
P(y | x) = ∏_{t=1}^{T+1} P(y_t | y_<t, x),  y_{T+1} = ``</s>``, with P(· | y_<t, x) read under
teacher forcing (decoder input ``<s> y_<t``), so every trained or shipped model answers the same
questions as the unconditional LMs, each given the source x.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lmcore.decoding.adapters import RecurrentScorer
from lmcore.digest import weights_digest
from lmcore.lm_protocol import Perplexity, TokenLogProbs, perplexity_of, tempered
from lmcore.seq2seq.attention import ATTENTIONS, AdditiveScore, DotScore, attend
from lmcore.seq2seq.tasks import make_batch
from lmcore.seq2seq.vocab import BOS_ID, EOS_ID, PAD_ID, TOKENS, VOCAB_SIZE, encode


@dataclass(frozen=True)
class Seq2SeqConfig:
    attention: str = "none"
    embed: int = 32
    hidden: int = 48
    vocab_size: int = VOCAB_SIZE

    def __post_init__(self) -> None:
        if self.attention not in ATTENTIONS:
            raise ValueError(f"attention must be one of {ATTENTIONS}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Encoded:
    """Encoder outputs: states h_1..h_m (B, m, H), mask (B, m), final (h, c) each (B, H)."""

    states: torch.Tensor
    mask: torch.Tensor
    final: tuple[torch.Tensor, torch.Tensor]

    def repeat(self, n: int) -> Encoded:
        """The same (single) source for ``n`` decoder hypotheses."""
        return Encoded(self.states.expand(n, -1, -1), self.mask.expand(n, -1),
                       (self.final[0].expand(n, -1), self.final[1].expand(n, -1)))


class Seq2Seq(nn.Module):
    """The encoder-decoder; also a conditional language model (see the module's docstring)."""

    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        self.config = config
        E, H, V = config.embed, config.hidden, config.vocab_size
        self.src_embed = nn.Embedding(V, E, padding_idx=PAD_ID)
        self.encoder = nn.LSTM(E, H, batch_first=True)
        self.tgt_embed = nn.Embedding(V, E, padding_idx=PAD_ID)
        self.cell = nn.LSTMCell(E + H, H)
        self.score = {"none": None, "dot": DotScore(), "additive": AdditiveScore(H)}[config.attention]
        self.out = nn.Linear(H if config.attention == "none" else 2 * H, V)

    def encode(self, src: torch.Tensor, src_len: torch.Tensor) -> Encoded:
        """h_1 … h_m and the final state (h^(m), c^(m)) of each unpadded source."""
        packed = pack_padded_sequence(self.src_embed(src), src_len.cpu(), batch_first=True,
                                      enforce_sorted=False)
        out, (h, c) = self.encoder(packed)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        mask = torch.arange(src.shape[1])[None] < src_len[:, None]
        return Encoded(states, mask, (h[0], c[0]))

    def initial_state(self, enc: Encoded) -> tuple[torch.Tensor, torch.Tensor]:
        """s^(0) = the encoder's final state."""
        return enc.final

    def step(self, prev: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor], enc: Encoded
             ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor], torch.Tensor | None]:
        """One decoder step: logits of P(y_t | y_<t, x), new state s^(t), attention weights α_t."""
        s_prev = state[0]
        if self.score is None:
            context, weights = enc.final[0], None
        else:
            context, weights = attend(self.score(s_prev, enc.states), enc.states, enc.mask)
        h, c = self.cell(torch.cat([self.tgt_embed(prev), context], dim=-1), state)
        features = h if self.score is None else torch.cat([h, context], dim=-1)
        return self.out(features), (h, c), weights

    def forward(self, src: torch.Tensor, src_len: torch.Tensor, tgt_in: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Teacher forcing: log P(· | y_<t, x) for every t (B, T, V), attention (B, T, m) or None."""
        enc = self.encode(src, src_len)
        state = self.initial_state(enc)
        logits, weights = [], []
        for t in range(tgt_in.shape[1]):
            out, state, alpha = self.step(tgt_in[:, t], state, enc)
            logits.append(out)
            weights.append(alpha)
        logprobs = torch.log_softmax(torch.stack(logits, dim=1), dim=-1)
        return logprobs, (None if self.score is None else torch.stack(weights, dim=1))

    # --- the conditional language model: P(y | x) = ∏_t P(y_t | y_<t, x) ---------------------------

    @property
    def vocab(self) -> list[str]:
        """The decoder's output symbols (its softmax runs over all of them)."""
        return list(TOKENS)

    @torch.no_grad()
    def _step_logprobs(self, source: Sequence[str], target: Sequence[str]) -> torch.Tensor:
        """ln P(· | y_<t, x) for t = 1..len(target)+1 (rows), float64."""
        batch = make_batch([(source, target)])
        logprobs, _ = self(batch.src, batch.src_len, batch.tgt_in)
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

    def scorer(self, source: Sequence[str]) -> RecurrentScorer:
        """The decoder as a beam-search scorer for the fixed source x: score(prefixes) ->
        log P(· | y_<t, x), batched over hypotheses, the encoder run once; ``end_id`` is ``</s>``."""
        with torch.no_grad():
            batch = make_batch([(source, [])])
            enc = self.encode(batch.src, batch.src_len)

        def step(prev: torch.Tensor, state):
            logits, new_state, _ = self.step(prev, state, enc.repeat(len(prev)))
            return logits, new_state

        return RecurrentScorer(step, self.initial_state(enc), BOS_ID, TOKENS, end_id=EOS_ID, batch_dim=0)


def content_digest(model: Seq2Seq) -> str:
    """A key of the model's content, its settings and weights (:func:`lmcore.digest.weights_digest`)."""
    return weights_digest(model, model, repr(sorted(model.config.to_dict().items())))
