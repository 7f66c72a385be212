"""Training throughput of lmcore.training against a plain-PyTorch nn.LSTM loop on the same batches, and
the quality reached on the built-in English corpus within 60 s against the modified-KN 3-gram.

    python bench/train_lstm.py                      (add --throughput-only to skip the 60 s run)

Throughput: a first, untimed run of ``train_sentences`` records the padded chunks its loop trains on
(through ``lmcore.training.loop.chunk_loss``); the peer — embedding → dropout → nn.LSTM → dropout →
nn.Linear, Adam, the same clipping, truncated BPTT with the state detached between chunks, the same
sizes and seed — gets the same sentences in the same batches and pads each batch itself
(``pad_sequence``) inside its timed loop, as ours pads its batches inside its own. Both are timed
over the same window, from the end of step 10 to the end of step 120 (ours through its progress
callback), in wall and in this thread's CPU time, one torch thread (set once, here), ``ROUNDS``
alternating runs whose order swaps every round. tokens/s counts real (non-padding) target tokens.
The machine is shared: read the min (best case) next to the median; CPU time is not inflated by
waiting for a core. ``ratio_*`` = peer seconds / our seconds (= our throughput / peer throughput).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmcore.ngram import NgramModel  # noqa: E402
from lmcore.samples import load_sample  # noqa: E402
from lmcore.training import loop  # noqa: E402
from lmcore.training.batches import IGNORE  # noqa: E402
from lmcore.training.comparison import neural_perplexity  # noqa: E402
from lmcore.training.config import TrainConfig  # noqa: E402
from lmcore.training.loop import train_sentences  # noqa: E402
from lmcore.training.tokens import build_table  # noqa: E402

STEPS, WARMUP, ROUNDS = 120, 10, 9


class PlainLM(nn.Module):
    """The textbook model: embedding → dropout → nn.LSTM → dropout → linear."""

    def __init__(self, n_in: int, n_out: int, emb: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.embed, self.drop = nn.Embedding(n_in, emb), nn.Dropout(dropout)
        self.lstm, self.out = nn.LSTM(emb, hidden, batch_first=True), nn.Linear(hidden, n_out)

    def forward(self, x, state=None):
        y, state = self.lstm(self.drop(self.embed(x)), state)
        return self.out(self.drop(y)), state


def recorded_batches(corpus, config: TrainConfig) -> list[list[list[int]]]:
    """The target-id lists (each ending with ``</s>``) of every batch ``train_sentences`` trains on."""
    chunks = []
    original = loop.chunk_loss

    def recording(model, chunk, state):
        chunks.append((chunk.targets, state is None))
        return original(model, chunk, state)

    loop.chunk_loss = recording
    try:
        train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, config)
    finally:
        loop.chunk_loss = original
    batches: list[list[torch.Tensor]] = []
    for targets, first in chunks:
        if first:
            batches.append([])
        batches[-1].append(targets)
    return [[row[row != IGNORE].tolist() for row in torch.cat(parts, dim=1)] for parts in batches]


def plain_loop(batches: list[list[list[int]]], bos: int, n_in: int, n_out: int,
               config: TrainConfig) -> tuple[int, float, float]:
    """The peer; returns (target tokens, wall seconds, CPU seconds) of steps WARMUP+1..STEPS."""
    torch.manual_seed(config.seed)
    model = PlainLM(n_in, n_out, config.embed_dim, config.hidden_size, config.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    model.train()
    tokens, steps, marks = 0, 0, {}
    for sentences in batches:
        targets = pad_sequence([torch.tensor(s) for s in sentences], batch_first=True, padding_value=IGNORE)
        inputs = pad_sequence([torch.tensor([bos] + s[:-1]) for s in sentences], batch_first=True,
                              padding_value=bos)
        state = None
        for start in range(0, inputs.shape[1], config.bptt):
            x, y = inputs[:, start:start + config.bptt], targets[:, start:start + config.bptt]
            logits, state = model(x, state)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=IGNORE)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            opt.step()
            state = tuple(s.detach() for s in state)
            tokens += int((y != IGNORE).sum())
            steps += 1
            if steps in (WARMUP, STEPS):
                marks[steps] = (tokens, time.perf_counter(), time.thread_time())
            if steps >= STEPS:
                return _window(marks)
    raise RuntimeError("not enough batches for STEPS steps")


def ours(corpus, config: TrainConfig) -> tuple[int, float, float]:
    """``train_sentences``; returns (target tokens, wall seconds, CPU seconds) of steps WARMUP+1..STEPS."""
    marks = {}

    def on_progress(p):
        if p.step in (WARMUP, STEPS):
            marks[p.step] = (p.tokens_seen, time.perf_counter(), time.thread_time())

    train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, config, on_progress)
    return _window(marks)


def _window(marks) -> tuple[int, float, float]:
    (n0, w0, c0), (n1, w1, c1) = marks[WARMUP], marks[STEPS]
    return n1 - n0, w1 - w0, c1 - c0


def main() -> None:
    torch.set_num_threads(1)
    corpus = load_sample("english")
    config = TrainConfig(steps=STEPS + 1, eval_every=10 ** 9, report_every=WARMUP)
    table = build_table(config.level, corpus.vocab.itos, corpus.mapped("train"))
    batches = recorded_batches(corpus, config)
    runs: dict[str, list[tuple[int, float, float]]] = {"ours": [], "plain": []}
    for r in range(ROUNDS):  # alternate, so both see the same machine load
        for name in (("ours", "plain") if r % 2 == 0 else ("plain", "ours")):
            if name == "ours":
                runs[name].append(ours(corpus, config))
            else:
                runs[name].append(plain_loop(batches, table.bos_id, table.size + 1, table.size, config))
    same = {n for n, _, _ in runs["ours"]} == {n for n, _, _ in runs["plain"]}
    print(f"steps_timed: {STEPS - WARMUP} (steps {WARMUP + 1}..{STEPS}), rounds: {ROUNDS}")
    print(f"same_target_tokens: {same} ({runs['ours'][0][0]} vs {runs['plain'][0][0]})")
    for name in runs:
        print(f"runs_{name}_tokens_per_s:", " ".join(f"{n / w:.0f}" for n, w, _ in runs[name]))
    for clock, col in (("wall", 1), ("cpu", 2)):
        secs = {name: [run[col] for run in runs[name]] for name in runs}
        tokens = runs["ours"][0][0]
        for name in runs:
            print(f"{name}_{clock}_seconds_median: {statistics.median(secs[name]):.3f}")
            print(f"{name}_{clock}_seconds_min: {min(secs[name]):.3f}")
            print(f"{name}_{clock}_tokens_per_s_median: {tokens / statistics.median(secs[name]):.0f}")
        print(f"ratio_{clock}_ours_over_plain_median: "
              f"{statistics.median(secs['plain']) / statistics.median(secs['ours']):.3f}")
        print(f"ratio_{clock}_ours_over_plain_min: {min(secs['plain']) / min(secs['ours']):.3f}")
    if "--throughput-only" in sys.argv:
        return

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
