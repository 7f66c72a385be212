"""A trained recurrent LM as a :class:`lmcore.lm_protocol.LanguageModel` (the n-gram models' interface).

``distribution(context)`` is ŷ = softmax(W_y h(t) + b_y) after reading ``<s>`` + context;
``sentence_logprobs(tokens)`` gives log P(x(t+1) | x(≤t)) for each token and the final ``</s>``
(so their sum is the chain-rule log-probability of the sentence); ``sample`` draws with temperature τ:
P_τ(w) ∝ exp(logit_w / τ); ``scorer`` steps the network once per new prefix (state cached).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from lmcore.decoding.adapters import RecurrentScorer
from lmcore.lm_protocol import LanguageModelMixin, Perplexity, TokenLogProbs, perplexity_from_logprobs
from lmcore.training.batches import IGNORE, pad_batch
from lmcore.training.config import TrainConfig
from lmcore.training.model import RecurrentLM
from lmcore.training.progress import Progress
from lmcore.training.tokens import BOS, EOS, UNK, SymbolTable


@dataclass(eq=False)
class NeuralLM(LanguageModelMixin):
    """A trained model, its symbols, its configuration and its training history."""

    model: RecurrentLM
    table: SymbolTable
    config: TrainConfig
    history: list[Progress] = field(default_factory=list)
    stopped: bool = False
    corpus_key: str = ""
    selected_step: int = 0
    valid_ppl: float | None = None

    def __post_init__(self) -> None:
        self.model.eval()

    @property
    def vocab(self) -> list[str]:
        """The predicted symbols (words, or characters for a char model); never ``<s>``."""
        return list(self.table.itos)

    @property
    def steps_done(self) -> int:
        return self.history[-1].step if self.history else 0

    def key(self) -> str:
        """This trained model as a cache key: its corpus, configuration, training steps, the step its
        weights are from, and the object (a model trained again with the same settings is another)."""
        return f"{self.corpus_key}:{self.config.key()}:{self.steps_done}:{self.selected_step}:{id(self)}"

    def context_symbols(self, context: Sequence[str]) -> list[str]:
        """Context in this model's units, after ``<s>`` (a leading ``<s>`` is dropped: every
        context is read from the sentence start, the state the model was trained from)."""
        context = list(context)
        if context and context[0] == BOS:
            context = context[1:]
        return self.table.symbols(context) if self.table.level == "word" else context

    @torch.no_grad()
    def logits(self, symbols: Sequence[str]) -> torch.Tensor:
        """Logits (len(symbols)+1, |V|): row t predicts the symbol after ``<s>`` + symbols[:t]."""
        ids = [self.table.bos_id, *self.table.ids(symbols)]
        out, _ = self.model(torch.as_tensor([ids], dtype=torch.long))
        return out[0].double()

    def distribution(self, context: Sequence[str]) -> np.ndarray:
        """P(next | <s> context) over :attr:`vocab` (sums to 1; ``<s>`` is not in it)."""
        return torch.softmax(self.logits(self.context_symbols(context))[-1], dim=-1).numpy()

    def sentence_logprobs(self, tokens: Sequence[str]) -> TokenLogProbs:
        """ln P of each corpus token then of ``</s>`` (``lmcore.lm_protocol.TokenLogProbs``).

        Char level: a token's log-probability is the sum over its characters and the space after
        it, so the entries still add up to ln P(<s> tokens </s>). ``oov``: the token is scored
        through ``<unk>`` (word level) or contains an unknown character.
        """
        tokens = [w for w in tokens if w not in (BOS, EOS)]
        words = [*tokens, EOS]
        oov = np.array([UNK in self.table.symbols([w]) for w in tokens] + [False])
        return TokenLogProbs(words, self.token_logprobs(tokens), oov)

    def token_logprobs(self, tokens: Sequence[str]) -> np.ndarray:
        """ln P of each token of ``<s> tokens </s>`` and of ``</s>`` (length len(tokens)+1)."""
        targets = self.table.encode(tokens)
        symbols = [self.table.itos[i] for i in targets[:-1]]
        logp = torch.log_softmax(self.logits(symbols), dim=-1)
        per_symbol = logp[torch.arange(len(targets)), torch.as_tensor(targets)].numpy()
        spans = np.cumsum([0, *self.table.token_spans(tokens)])
        return np.array([per_symbol[a:b].sum() for a, b in zip(spans[:-1], spans[1:])])

    @torch.no_grad()
    def perplexity(self, sentences: Iterable[Sequence[str]], batch_size: int = 64) -> Perplexity:
        """The protocol's perplexity (the same numbers as scoring each sentence with
        :meth:`sentence_logprobs`), with the sentences run in padded batches of similar length."""
        sentences = [[w for w in s if w not in (BOS, EOS)] for s in sentences]
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        per_sentence: list[np.ndarray] = [np.zeros(0)] * len(sentences)
        for start in range(0, len(order), batch_size):
            group = order[start:start + batch_size]
            encoded = [self.table.encode(sentences[i]) for i in group]
            batch = pad_batch(encoded, self.table.bos_id)
            logits, _ = self.model(batch.inputs)
            logp = torch.log_softmax(logits.double(), dim=-1)
            picked = logp.gather(-1, batch.targets.clamp(min=0)[..., None])[..., 0]
            picked = picked.masked_fill(batch.targets == IGNORE, 0.0).numpy()
            for row, i in enumerate(group):
                spans = np.cumsum([0, *self.table.token_spans(sentences[i])])
                per_sentence[i] = np.add.reduceat(picked[row, :spans[-1]], spans[:-1]) if len(spans) > 1 else np.zeros(0)
        oov = [np.array([UNK in self.table.symbols([w]) for w in s] + [False]) for s in sentences]
        if not sentences:
            return perplexity_from_logprobs(np.zeros(0), np.zeros(0, dtype=bool))
        return perplexity_from_logprobs(np.concatenate(per_sentence), np.concatenate(oov))

    @torch.no_grad()
    def sample(self, seed: int = 0, max_len: int = 60, temperature: float = 1.0,
               prefix: Sequence[str] = ()) -> list[str]:
        """Symbols drawn one at a time with P_τ ∝ exp(logit/τ) after ``<s> prefix``, until ``</s>``
        or ``max_len`` symbols (the network's state is carried, not recomputed)."""
        if temperature <= 0:
            raise ValueError("temperature must be > 0")
        gen = torch.Generator().manual_seed(seed)
        symbols = list(self.context_symbols(prefix))
        ids = torch.as_tensor([[self.table.bos_id, *self.table.ids(symbols)]], dtype=torch.long)
        logits, state = self.model(ids)
        out: list[str] = []
        for _ in range(max_len):
            probs = torch.softmax(logits[0, -1].double() / temperature, dim=-1)
            nxt = int(torch.multinomial(probs, 1, generator=gen))
            if nxt == self.table.eos_id:
                break
            out.append(self.table.itos[nxt])
            logits, state = self.model(torch.as_tensor([[nxt]]), state)
        return out

    @torch.no_grad()
    def scorer(self, prompt: Sequence[str] = ()) -> RecurrentScorer:
        """Scores continuations of ``<s> prompt``: the state after ``<s>`` and all but the last prompt
        symbol is computed once, then each new prefix costs one batched step of the network."""
        ids = [self.table.bos_id, *self.table.ids(self.context_symbols(prompt))]
        hidden = self.model.rnn.hidden_size
        zero = torch.zeros(1, 1, hidden)
        state = (zero, zero.clone()) if self.config.cell == "lstm" else zero
        if len(ids) > 1:
            _, state = self.model(torch.as_tensor([ids[:-1]], dtype=torch.long), state)

        def step(tokens: torch.Tensor, state):
            logits, state = self.model(tokens[:, None], state)
            return logits[:, -1], state

        return RecurrentScorer(step, state, ids[-1], self.vocab, end_id=self.table.eos_id, batch_dim=1)

    def render(self, symbols: Sequence[str]) -> str:
        """Symbols as text: words joined by spaces, characters concatenated."""
        return " ".join(symbols) if self.table.level == "word" else "".join(symbols)

