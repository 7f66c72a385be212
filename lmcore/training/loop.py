"""The training loop: truncated BPTT, Adam, gradient clipping, a progress callback that may stop it.

Each step: logits = model(chunk); J = mean over real targets of −log ŷ(t)[x(t+1)] (the notes' J);
backward; if ‖ĝ‖ ≥ threshold then ĝ ← threshold/‖ĝ‖ · ĝ; Adam update. Seeded: the same config and
data give the same weights, whatever else runs in the process: initial weights, dropout masks, batch
order and ``<unk>`` replacement all come from generators of this run (torch's global RNG is never
touched), and the thread count is the process's, set once at start-up.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from lmcore.seeding import build_seeded, generator
from lmcore.training.batches import IGNORE, Batch, shuffled_batches
from lmcore.training.config import TrainConfig
from lmcore.training.evaluate import score_sentences
from lmcore.training.model import RecurrentLM, detach_state
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.progress import Progress, ProgressCallback
from lmcore.training.steps import count_step
from lmcore.training.tokens import SymbolTable, build_table


def build_model(config: TrainConfig, table: SymbolTable) -> RecurrentLM:
    """A network for ``table``, initialised from ``config.seed`` (its own generator)."""
    return build_seeded(lambda: RecurrentLM(config.cell, table.size + 1, table.size, config.embed_dim,
                                            config.hidden_size, config.dropout, config.tie_weights), config.seed)


def chunk_loss(model: RecurrentLM, chunk: Batch, state):
    """Mean −log ŷ over the chunk's real targets, and the final state."""
    logits, state = model(chunk.inputs, state)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), chunk.targets.reshape(-1),
                           ignore_index=IGNORE)
    return loss, state


def singleton_ids(encoded: Sequence[Sequence[int]], table: SymbolTable) -> set[int]:
    """Word ids seen exactly once in training (word level only; ``</s>`` and ``<unk>`` excluded)."""
    if table.level != "word":
        return set()
    counts = Counter(i for ids in encoded for i in ids)
    return {i for i, n in counts.items() if n == 1 and i not in (0, table.eos_id)}


def replace_singletons(encoded: Sequence[Sequence[int]], singletons: set[int], rate: float,
                       generator: torch.Generator) -> list[list[int]]:
    """Each occurrence of a singleton word becomes ``<unk>`` (id 0) with probability ``rate``.

    Without it ``<unk>`` is never a training target and the model gives it almost no probability,
    yet new words keep coming: about N1/N of the tokens (Good–Turing's unseen mass) are words seen
    once. Resampled every epoch (seeded); validation and test sentences are never touched.
    """
    flat = torch.rand(sum(len(ids) for ids in encoded), generator=generator).tolist()
    out, pos = [], 0
    for ids in encoded:
        out.append([0 if i in singletons and flat[pos + n] < rate else i for n, i in enumerate(ids)])
        pos += len(ids)
    return out


def untrained_lm(train: Sequence[Sequence[str]], vocab_itos: Sequence[str], config: TrainConfig,
                 corpus_key: str = "") -> NeuralLM:
    """The model ``train_sentences`` would start from: same table, weights as initialised from the seed."""
    table = build_table(config.level, vocab_itos, train)
    return NeuralLM(build_model(config, table), table, config, corpus_key=corpus_key)


def train_sentences(train: Sequence[Sequence[str]], valid: Sequence[Sequence[str]],
                    vocab_itos: Sequence[str], config: TrainConfig,
                    on_progress: ProgressCallback | None = None, corpus_key: str = "") -> NeuralLM:
    """Train on unk-mapped ``train`` sentences, score ``valid`` every ``eval_every`` steps and at the end."""
    lm = untrained_lm(train, vocab_itos, config, corpus_key)
    lm.model.drop.generator = generator(config.seed + 1)
    _run(lm, train, valid, on_progress)
    lm.model.drop.generator = None
    lm.model.eval()
    return lm


def _run(lm: NeuralLM, train, valid, on_progress: ProgressCallback | None) -> None:
    config, model, table = lm.config, lm.model, lm.table
    encoded = [table.encode(s) for s in train]
    if not encoded:
        raise ValueError("the training split is empty")
    singletons = singleton_ids(encoded, table) if config.unk_replace > 0 else set()
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    order_gen = generator(config.seed)
    start = time.perf_counter()
    step, tokens, window_loss, window_n = 0, 0, 0.0, 0
    last_loss = float("nan")
    best: dict[str, object] = {"ppl": float("inf"), "step": 0, "weights": None}

    def report(epoch: int, evaluate: bool, done: bool) -> str | None:
        nonlocal window_loss, window_n, last_loss
        if window_n:
            last_loss, window_loss, window_n = window_loss / window_n, 0.0, 0
        valid_loss = valid_ppl = None
        if evaluate and valid:
            score = score_sentences(model, table, valid)
            valid_loss, valid_ppl = score.nll / max(score.n_symbols, 1), score.token_ppl
            if valid_ppl < best["ppl"]:  # early stopping: remember the best weights so far
                best.update(ppl=valid_ppl, step=step,
                            weights={k: v.detach().clone() for k, v in model.state_dict().items()})
            model.train()
        progress = Progress(step, config.steps, epoch, tokens, time.perf_counter() - start, last_loss,
                            valid_loss, valid_ppl, done)
        lm.history.append(progress)
        return on_progress(progress) if on_progress else None

    model.train()
    epoch, finished = 0, False
    while epoch < config.epochs and not finished:
        epoch_data = replace_singletons(encoded, singletons, config.unk_replace, order_gen) if singletons else encoded
        for batch in shuffled_batches(epoch_data, config.batch_size, table.bos_id, order_gen):
            state = None
            for chunk in batch.chunks(config.bptt):
                loss, state = chunk_loss(model, chunk, state)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if config.clip > 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
                optimizer.step()
                count_step("adam")
                state = detach_state(state)
                n = chunk.n_targets
                step, tokens = step + 1, tokens + n
                window_loss, window_n = window_loss + loss.item() * n, window_n + n
                out_of_time = config.max_seconds is not None and time.perf_counter() - start >= config.max_seconds
                finished = step >= config.steps or out_of_time
                if finished:
                    break
                evaluate = step % config.eval_every == 0
                if (evaluate or step % config.report_every == 0) and report(epoch, evaluate, False) == "stop":
                    lm.stopped = finished = True
                    break
            if finished:
                break
        epoch += 1
    report(min(epoch, config.epochs - 1), True, True)
    if best["weights"] is not None and config.keep_best:
        model.load_state_dict(best["weights"])
        lm.selected_step, lm.valid_ppl = int(best["step"]), float(best["ppl"])
    else:
        lm.selected_step, lm.valid_ppl = step, lm.history[-1].valid_token_ppl
