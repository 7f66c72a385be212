"""Training throughput of lmcore.training against a minimal plain-PyTorch nn.LSTM loop, and the
quality reached on the built-in English corpus within 60 s against the modified-KN 3-gram.

    python bench/train_lstm.py

Throughput: both loops train the same network sizes on the same sentences (same padded batches:
the reference replays the batches our loop builds), one thread each, alternating runs; tokens/s
counts real (non-padding) target tokens. Prints ``name: value`` lines.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmcore.ngram import NgramModel  # noqa: E402
from lmcore.samples import load_sample  # noqa: E402
from lmcore.training.batches import IGNORE, shuffled_batches  # noqa: E402
from lmcore.training.comparison import neural_perplexity  # noqa: E402
from lmcore.training.config import TrainConfig  # noqa: E402
from lmcore.training.loop import train_sentences  # noqa: E402
from lmcore.training.tokens import build_table  # noqa: E402

STEPS = 200


class PlainLM(nn.Module):
    """The textbook model: embedding → nn.LSTM → linear."""

    def __init__(self, n_in: int, n_out: int, emb: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.embed, self.drop = nn.Embedding(n_in, emb), nn.Dropout(dropout)
        self.lstm, self.out = nn.LSTM(emb, hidden, batch_first=True), nn.Linear(hidden, n_out)

    def forward(self, x, state=None):
        y, state = self.lstm(self.drop(self.embed(x)), state)
        return self.out(self.drop(y)), state


def plain_loop(chunks_per_batch, table, config: TrainConfig) -> tuple[int, float]:
    """Minimal TBPTT loop over precomputed batches; returns (target tokens, seconds)."""
    torch.manual_seed(config.seed)
    model = PlainLM(table.size + 1, table.size, config.embed_dim, config.hidden_size, config.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    tokens, steps, start = 0, 0, time.perf_counter()
    for chunks in chunks_per_batch:
        state = None
        for x, y in chunks:
            logits, state = model(x, state)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=IGNORE)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            opt.step()
            state = tuple(s.detach() for s in state)
            tokens += int((y != IGNORE).sum())
            steps += 1
            if steps >= STEPS:
                return tokens, time.perf_counter() - start
    return tokens, time.perf_counter() - start


def ours(corpus, config: TrainConfig) -> tuple[int, float]:
    start = time.perf_counter()
    lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, config,
                         lambda progress: None)
    # the final validation pass is not training: take it out of the measured time
    seconds = lm.history[-2].elapsed if len(lm.history) > 1 else time.perf_counter() - start
    tokens = lm.history[-2].tokens_seen if len(lm.history) > 1 else lm.history[-1].tokens_seen
    return tokens, seconds


def main() -> None:
    torch.set_num_threads(1)
    corpus = load_sample("english")
    config = TrainConfig(steps=STEPS + 1, eval_every=10 ** 9, report_every=STEPS)
    table = build_table("word", corpus.vocab.itos, corpus.mapped("train"))
    gen = torch.Generator().manual_seed(0)
    encoded = [table.encode(s) for s in corpus.mapped("train")]
    batches = [b for _ in range(STEPS // 30 + 2) for b in shuffled_batches(encoded, config.batch_size, table.bos_id, gen)]
    plain_batches = [[(c.inputs, c.targets) for c in b.chunks(config.bptt)] for b in batches]
    ours_rates, plain_rates = [], []
    for _ in range(5):  # alternate, so both see the same machine load
        n, s = ours(corpus, config)
        ours_rates.append(n / s)
        n, s = plain_loop(plain_batches, table, config)
        plain_rates.append(n / s)
    print("runs_ours_tokens_per_s:", " ".join(f"{r:.0f}" for r in ours_rates))
    print("runs_plain_tokens_per_s:", " ".join(f"{r:.0f}" for r in plain_rates))
    ours_rate, plain_rate = statistics.median(ours_rates), statistics.median(plain_rates)
    print(f"throughput_ours_tokens_per_s: {ours_rate:.0f}")
    print(f"throughput_plain_pytorch_tokens_per_s: {plain_rate:.0f}")
    print(f"throughput_ratio_ours_over_plain: {ours_rate / plain_rate:.3f}")

    start = time.perf_counter()
    lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos,
                         TrainConfig(max_seconds=60.0))
    seconds = time.perf_counter() - start
    kn = NgramModel.fit(corpus.mapped("train"), 3, "modified-kn")
    print(f"english_default_lstm_train_seconds: {seconds:.1f}")
    print(f"english_default_lstm_steps: {lm.steps_done} (best at {lm.selected_step})")
    print(f"english_default_lstm_valid_ppl: {neural_perplexity(lm, corpus, 'valid'):.2f}")
    print(f"english_modified_kn3_valid_ppl: {kn.perplexity(corpus.mapped('valid')).ppl:.2f}")
    print(f"english_default_lstm_test_ppl: {neural_perplexity(lm, corpus, 'test'):.2f}")
    print(f"english_modified_kn3_test_ppl: {kn.perplexity(corpus.mapped('test')).ppl:.2f}")


if __name__ == "__main__":
    main()
