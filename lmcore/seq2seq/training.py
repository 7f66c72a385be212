"""Teacher-forced training: maximise L = Σ_(x,y) Σ_t log P(y_t | y_<t, x) (minimise its mean
negative per target token), on batches sampled fresh from the task's training split."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.seq2seq.model import Seq2Seq, Seq2SeqConfig
from lmcore.seq2seq.tasks import make_batch, sample_pairs
from lmcore.seq2seq.vocab import PAD_ID
from lmcore.seeding import build_seeded
from lmcore.training.progress import Progress, ProgressCallback
from lmcore.training.steps import count_step


@dataclass(frozen=True)
class Seq2SeqRecipe:
    """How to train an encoder-decoder on a toy task (the task, source lengths, steps, optimiser)."""

    task: str = "reverse"
    min_len: int = 2
    max_len: int = 12
    steps: int = 2000
    batch_size: int = 64
    lr: float = 3e-3
    seed: int = 0
    report_every: int = 50


def sequence_nll(model: Seq2Seq, batch) -> torch.Tensor:
    """Mean −log P(y_t | y_<t, x) over the real target tokens of the batch (</s> included)."""
    logprobs, _ = model(batch.src, batch.src_len, batch.tgt_in)
    mask = batch.tgt_out != PAD_ID
    picked = logprobs.gather(-1, batch.tgt_out[..., None])[..., 0]
    return -(picked * mask).sum() / mask.sum()


def train(model_config: Seq2SeqConfig, config: Seq2SeqRecipe,
          progress: ProgressCallback | None = None) -> Seq2Seq:
    """A model trained with teacher forcing; deterministic for a given seed (its own generators)."""
    rng = np.random.default_rng(config.seed)
    model = build_seeded(lambda: Seq2Seq(model_config), config.seed)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr)
    lengths: Sequence[int] = range(config.min_len, config.max_len + 1)
    start, seen, running = time.perf_counter(), 0, None
    for step in range(1, config.steps + 1):
        batch = make_batch(sample_pairs(config.task, config.batch_size, lengths, rng, heldout=False))
        loss = sequence_nll(model, batch)
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        count_step("seq2seq")
        seen += int((batch.tgt_out != PAD_ID).sum())
        value = float(loss.detach())
        running = value if running is None else 0.9 * running + 0.1 * value
        if progress and (step % config.report_every == 0 or step == config.steps):
            report = Progress(step, config.steps, 0, seen, time.perf_counter() - start,
                              running, done=step == config.steps)
            if progress(report) == "stop":
                break
    model.eval()
    return model
