"""Training throughput of lmcore.training against a plain-PyTorch nn.LSTM loop on the same batches, and
the quality reached on the built-in English corpus within 60 s against the modified-KN 3-gram.

    python bench/train_lstm.py                      (add --throughput-only to skip the 60 s run)

Throughput: a first, untimed run of ``train_sentences`` records the padded chunks its loop trains on
(through ``lmcore.training.loop.chunk_loss``); the peer — embedding → dropout → nn.LSTM → dropout →
nn.Linear, Adam, the same clipping, truncated BPTT with the state detached between chunks, the same
sizes — gets the same sentences in the same batches and pads each batch itself (``pad_sequence``)
inside its timed steps, as ours pads its batches inside its own loop.

The two run interleaved, ``SEGMENT`` steps at a time: ours' progress callback (every ``SEGMENT`` steps)
runs the peer's next ``SEGMENT`` steps, timed, and ours is timed from the callback's return to its next
call, so both train steps 11..``STEPS`` on the same batches under (almost) the same machine load.
Wall and this thread's CPU time (CPU time is not inflated by waiting for a core), one torch thread (set
once, here); ``ROUNDS`` fresh runs of each. tokens/s counts real (non-padding) target tokens. The
machine is shared: read the min (best case) next to the median. ``ratio_*`` = peer seconds / our seconds
(= our throughput / peer throughput), per round, then the median and min over rounds.
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

STEPS, SEGMENT, ROUNDS = 120, 10, 5


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


def plain_steps(batches: list[list[list[int]]], bos: int, n_in: int, n_out: int, config: TrainConfig):
    """The peer, one training step per ``next()``; yields the step's real target tokens."""
    torch.manual_seed(config.seed)
    model = PlainLM(n_in, n_out, config.embed_dim, config.hidden_size, config.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    model.train()
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
            yield int((y != IGNORE).sum())


def interleaved_round(corpus, config: TrainConfig, peer) -> dict[str, list[float]]:
    """One run of each, interleaved; totals over steps SEGMENT+1..STEPS: tokens, wall s, CPU s."""
    totals = {"ours": [0.0, 0.0, 0.0], "plain": [0.0, 0.0, 0.0]}
    resumed: list[tuple[int, float, float]] = []  # ours: (tokens, wall, cpu) when the callback returned

    def add(name: str, tokens: int, wall: float, cpu: float) -> None:
        for i, value in enumerate((tokens, wall, cpu)):
            totals[name][i] += value

    def on_progress(p) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        if resumed and p.step <= STEPS:  # ours just did steps p.step − SEGMENT + 1 .. p.step
            n0, w0, c0 = resumed[-1]
            add("ours", p.tokens_seen - n0, wall - w0, cpu - c0)
        if p.step == SEGMENT:  # warm-up: the peer's first SEGMENT steps, untimed
            for _ in range(SEGMENT):
                next(peer)
        if SEGMENT <= p.step < STEPS:
            w0, c0 = time.perf_counter(), time.thread_time()
            tokens = sum(next(peer) for _ in range(SEGMENT))
            add("plain", tokens, time.perf_counter() - w0, time.thread_time() - c0)
            resumed.append((p.tokens_seen, time.perf_counter(), time.thread_time()))

    train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, config, on_progress)
    return totals


def main() -> None:
    torch.set_num_threads(1)
    corpus = load_sample("english")
    config = TrainConfig(steps=STEPS + 1, eval_every=10 ** 9, report_every=SEGMENT)
    table = build_table(config.level, corpus.vocab.itos, corpus.mapped("train"))
    batches = recorded_batches(corpus, config)
    rounds = [interleaved_round(corpus, config, plain_steps(batches, table.bos_id, table.size + 1, table.size, config))
              for _ in range(ROUNDS)]
    tokens = {name: {int(r[name][0]) for r in rounds} for name in ("ours", "plain")}
    print(f"steps_timed: {STEPS - SEGMENT} (steps {SEGMENT + 1}..{STEPS}, {SEGMENT} at a time), rounds: {ROUNDS}")
    print(f"same_target_tokens: {tokens['ours'] == tokens['plain'] and len(tokens['ours']) == 1} "
          f"({sorted(tokens['ours'])} vs {sorted(tokens['plain'])})")
    for clock, col in (("wall", 1), ("cpu", 2)):
        secs = {name: [r[name][col] for r in rounds] for name in ("ours", "plain")}
        n = rounds[0]["ours"][0]
        for name in secs:
            print(f"runs_{name}_{clock}_tokens_per_s:", " ".join(f"{n / t:.0f}" for t in secs[name]))
            print(f"{name}_{clock}_seconds_median: {statistics.median(secs[name]):.3f}")
            print(f"{name}_{clock}_seconds_min: {min(secs[name]):.3f}")
            print(f"{name}_{clock}_tokens_per_s_median: {n / statistics.median(secs[name]):.0f}")
        ratios = [p / o for p, o in zip(secs["plain"], secs["ours"])]
        print(f"ratio_{clock}_ours_over_plain_median: {statistics.median(ratios):.3f}")
        print(f"ratio_{clock}_ours_over_plain_min: {min(ratios):.3f}")
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
