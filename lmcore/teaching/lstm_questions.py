"""Questions on the LSTM LM's gates, cell path and a counterfactual edit (the LSTM page), on the
page's passages (the longest validation sentences) run through the LSTM the page inspects.

- ``lstm.forget``: at step t, is unit u's forget gate f_u(t) = σ(W_f [h(t−1), x(t)] + b_f)_u above
  or below 0.5? (cells with |f − 0.5| < 0.2 are never asked);
- ``lstm.memory``: the notes' ∂c(T)/∂c(k) ≈ ∏_{t=k+1..T} f(t): is its mean over units above or
  below 10^e? (lines less than a quarter decade away are never asked);
- ``lstm.edit``: after replacing one word (the page's suggested edit, or a frequent word earlier
  in the passage), which later word's ln P(w_t | w_<t) moves most? (the largest change at least
  1.5 × every other choice's).
Gates come from the page's explicit cell (:func:`lmcore.training.lstm_trace.trace_passage`).
Without a word-level LSTM (``LessonInputs.lstm``) there are no questions.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from lmcore.corpus import Corpus
from lmcore.recurrent.cells import DTYPE
from lmcore.teaching.gradient_questions import power_of_ten
from lmcore.teaching.question import CHOICE, Question, fmt, literal, shuffled, text
from lmcore.training.counterfactual import edit, suggest_edit
from lmcore.training.gradient_path import forget_products
from lmcore.training.lstm_trace import PassageTrace, trace_passage
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.tokens import BOS, EOS, SPACE, UNK

MAX_SYMBOLS = 80  # as the LSTM page
N_PASSAGES = 40
GATE_MARGIN = 0.2
DECADE_MARGIN = 0.25
EDIT_MARGIN = 1.5
ATTEMPTS = 12


def lstm_passages(corpus: Corpus | None, held_out: Sequence[Sequence[str]]) -> list[list[str]]:
    """The page's passage list: validation sentences of ≥ 3 tokens (the first 40), longest first;
    without the corpus object, test sentences of ≥ 3 tokens."""
    source = corpus.valid if corpus is not None else held_out
    picked = [list(s) for s in source if len(s) >= 3][:N_PASSAGES]
    return sorted(picked, key=len, reverse=True)


def passage_symbols(lm: NeuralLM, corpus: Corpus | None, tokens: Sequence[str]) -> list[str]:
    """As the page: out-of-vocabulary tokens → <unk> (corpus vocabulary, then the model's), at most 80."""
    mapped = corpus.vocab.map(list(tokens)) if corpus is not None else list(tokens)
    return lm.table.symbols(mapped)[:MAX_SYMBOLS]


def forget_question(lm: NeuralLM, symbols: list[str], trace: PassageTrace, rng: np.random.Generator) -> Question | None:
    """Above or below 0.5: one unit's forget gate at one step (the side is drawn first)."""
    f = trace.signals["f"]
    sides = [np.argwhere(f >= 0.5 + GATE_MARGIN), np.argwhere(f <= 0.5 - GATE_MARGIN)]
    answer = int(rng.integers(2))
    if len(sides[answer]) == 0:
        answer = 1 - answer
    if len(sides[answer]) == 0:
        return None
    unit, step = (int(v) for v in sides[answer][int(rng.integers(len(sides[answer])))])
    value = float(f[unit, step])
    return Question(
        qid="lstm.forget", topic="lstm", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.lstm_forget", passage=" ".join(symbols), t=step + 1, word=trace.symbols[step], u=unit),
        choices=(text("teaching.choice.more_than", line="0.5"), text("teaching.choice.less_than", line="0.5")),
        reveal=text("teaching.r.lstm_forget", u=unit, t=step + 1, f=fmt(value),
                    mean=fmt(float(f[:, step].mean()))),
        explain="bars",
        explain_data={"x": [f"{t + 1}: {s}" for t, s in enumerate(trace.symbols)], "y": [float(v) for v in f[unit]],
                      "highlight": step, "hline": 0.5, "title": "teaching.fig.lstm_forget", "fields": {"u": unit},
                      "y_title": "teaching.axis.forget", "symbols": symbols},
    )


def memory_question(lm: NeuralLM, symbols: list[str], trace: PassageTrace, rng: np.random.Generator) -> Question | None:
    """Mean over units of ∏_{t=k+1..T} f(t): above or below a power of ten?"""
    products = forget_products(trace.signals["f"]).mean(axis=0)  # entry k−1: k = 1..T
    T = products.shape[0]
    if T < 4:
        return None
    for _ in range(ATTEMPTS):
        k = int(rng.integers(1, max(2, T // 2)))
        value = float(products[k - 1])
        if not (value > 0 and math.isfinite(value)):
            continue
        log = math.log10(value)
        # a product of gates below 1 is below 10⁰: lines from 10⁻¹ down only
        lines = [e for e in (math.floor(log), math.floor(log) + 1) if e < 0 and abs(log - e) >= DECADE_MARGIN]
        if lines:
            break
    else:
        return None
    exponent = int(lines[int(rng.integers(len(lines)))])
    answer = 0 if log > exponent else 1
    return Question(
        qid="lstm.memory", topic="lstm", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.lstm_memory", passage=" ".join(symbols), T=T, k=k, p10=power_of_ten(exponent)),
        choices=(text("teaching.choice.above", p10=power_of_ten(exponent)),
                 text("teaching.choice.below", p10=power_of_ten(exponent))),
        reveal=text("teaching.r.lstm_memory", k=k, T=T, value=fmt(value), p10=power_of_ten(exponent),
                    steps=T - k),
        explain="bars",
        explain_data={"x": list(range(1, T + 1)), "y": [float(v) for v in products], "highlight": k - 1, "log_y": True,
                      "hline": 10.0 ** exponent, "title": "teaching.fig.lstm_memory", "y_title": "teaching.axis.memory",
                      "symbols": symbols, "k": k},
    )


def token_logprobs(lm: NeuralLM, symbols: Sequence[str]) -> np.ndarray:
    """ln P(symbols[j] | <s> symbols[:j]) for j = 0 … n−1, then ln P(</s> | passage), from the explicit cell."""
    trace = trace_passage(lm, symbols)
    w_y, b_y = lm.model.output_weight().detach().to(DTYPE), lm.model.out_bias.detach().to(DTYPE)
    h = torch.as_tensor(trace.signals["h"]).T  # (T, units): column t read <s> + symbols[:t]
    logp = torch.log_softmax(h @ w_y.T + b_y, dim=-1).numpy()
    targets = [*lm.table.ids(list(symbols)), lm.table.eos_id]
    return logp[np.arange(len(targets)), targets]


def _edit_for(lm: NeuralLM, symbols: list[str], rng: np.random.Generator) -> tuple[int, str]:
    """The page's suggested edit when ≥ 3 words follow it, else a frequent word at an early position."""
    position, replacement, _ = suggest_edit(lm, symbols)
    if position <= len(symbols) - 3:
        return position, replacement
    frequent = [s for s in lm.vocab if s not in (BOS, EOS, UNK, SPACE)][:12]
    position = int(rng.integers(max(1, len(symbols) - 3)))
    options = [s for s in frequent if s != symbols[position]]
    return position, options[int(rng.integers(len(options)))]


def edit_question(lm: NeuralLM, passages: list[list[str]], rng: np.random.Generator) -> Question | None:
    """Replace one word: which later word's log-probability changes most?"""
    for _ in range(ATTEMPTS):
        symbols = passages[int(rng.integers(len(passages)))]
        if len(symbols) < 4:
            continue
        position, replacement = _edit_for(lm, symbols, rng)
        edited = edit(symbols, position, replacement)
        change = np.abs(token_logprobs(lm, edited) - token_logprobs(lm, symbols))
        later = list(range(position + 1, len(symbols) + 1))  # later targets, the last one </s>
        best = max(later, key=lambda j: change[j])
        rivals = [j for j in later if j != best and change[best] >= EDIT_MARGIN * change[j]]
        if rivals:
            break
    else:
        return None
    picks = shuffled(rng, [best, *shuffled(rng, rivals)[:3]])
    targets = [*symbols, EOS]
    label = [f"{j + 1}: {targets[j]}" for j in picks]
    return Question(
        qid="lstm.edit", topic="lstm", kind=CHOICE, answer=picks.index(best),
        prompt=text("teaching.q.lstm_edit", passage=" ".join(symbols), j=position + 1, old=symbols[position],
                    new=replacement),
        choices=tuple(literal(x) for x in label),
        reveal=text("teaching.r.lstm_edit", w=label[picks.index(best)], d=fmt(float(change[best])),
                    d2=fmt(float(max(change[j] for j in picks if j != best)))),
        explain="bars",
        explain_data={"x": label, "y": [float(change[j]) for j in picks], "highlight": picks.index(best),
                      "title": "teaching.fig.lstm_edit", "y_title": "teaching.axis.logp_change",
                      "symbols": symbols, "position": position, "replacement": replacement, "targets": picks},
    )


def lstm_questions(lm: NeuralLM | None, corpus: Corpus | None, held_out: Sequence[Sequence[str]],
                   seed: int = 0) -> list[Question]:
    """The LSTM questions for this model, the page's passages and seed (none without a word-level LSTM)."""
    if lm is None or lm.config.cell != "lstm" or lm.table.level != "word":
        return []
    passages = [s for s in (passage_symbols(lm, corpus, p) for p in lstm_passages(corpus, held_out)) if s]
    if not passages:
        return []
    rng = np.random.default_rng([seed, 31])
    symbols = passages[int(rng.integers(len(passages)))]
    trace = trace_passage(lm, symbols)
    made = [forget_question(lm, symbols, trace, rng), memory_question(lm, symbols, trace, rng),
            edit_question(lm, passages, rng)]
    return [q for q in made if q is not None]
