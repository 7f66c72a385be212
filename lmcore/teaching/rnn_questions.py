"""Questions on the RNN language model's forward pass and BPTT (the RNN & BPTT page), on a test
sentence of the live corpus run through the model the page shows.

- ``rnn_bptt.top_word``: after reading ``<s> w1 … wt``, which word has the highest ŷ(t) =
  softmax(W_y h(t) + b_y)? (choice among ŷ(t)'s top four; the best at least 1.25 × the second);
- ``rnn_bptt.decay``: is the mean contribution ‖G(t, t−d)‖ of a step d back to ∂J(t)/∂W_h larger
  or smaller than the same-step one ‖G(t, t)‖? (G(t, k) = δ(t, k) h(k−1)ᵀ; ratios within ×2 skipped);
- ``rnn_bptt.truncation``: does truncated BPTT with window w (keep t − k < w) miss more or less than
  10 % of ∂J/∂W_h, as ‖g_w − g‖ / ‖g‖? (windows whose error is within a factor 1.5 of 10 % skipped).

The model is an input (``LessonInputs.rnn``: the shipped model of a built-in corpus, or the one
trained for an upload); without one, or for a character-level model, there are no questions.
Everything is computed by the page's own white-box code (:mod:`lmcore.recurrent.rnn_lm`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from lmcore.recurrent.bptt import BPTTContributions
from lmcore.recurrent.rnn_lm import SentenceRun, WhiteBoxLM, run_sentence, sentence_bptt, white_box
from lmcore.symbols import UNK
from lmcore.teaching.question import CHOICE, Question, Table, fmt, literal, shuffled, text
from lmcore.training.neural_lm import NeuralLM

SENTENCE_LENGTHS = (3, 30)  # as the RNN & BPTT page: test sentences worth stepping through
MAX_SENTENCES = 500
BPTT_MAX_TOKENS = 14  # BPTT questions on shorter sentences: O(T²n²) work, and a heatmap one can read
ATTEMPTS = 12
TOP_MARGIN = 1.25  # the top word's probability over the runner-up's
DISTANCES = (3, 5, 8)
DECAY_FACTOR = 2.0  # mean ‖G(t, t−d)‖ / mean ‖G(t, t)‖ outside [1/2, 2]
TRUNCATION_LINE = 0.10
TRUNCATION_FACTOR = 1.5  # error outside [10 %/1.5, 10 %×1.5]


def rnn_sentences(held_out: Sequence[Sequence[str]]) -> list[list[str]]:
    """The page's candidate sentences: test sentences of 3–30 tokens, the first 500."""
    lo, hi = SENTENCE_LENGTHS
    return [list(s) for s in held_out if lo <= len(s) <= hi][:MAX_SENTENCES]


@dataclass
class SentenceRuns:
    """The page's forward pass and BPTT contributions of sentences, each computed once per question set."""

    wb: WhiteBoxLM
    sentences: list[list[str]]
    runs: dict[int, SentenceRun] = field(default_factory=dict)
    contributions: dict[int, BPTTContributions] = field(default_factory=dict)

    def run(self, i: int) -> SentenceRun:
        if i not in self.runs:
            with torch.no_grad():
                self.runs[i] = run_sentence(self.wb, self.sentences[i])
        return self.runs[i]

    def bptt(self, i: int) -> BPTTContributions:
        if i not in self.contributions:
            self.contributions[i] = sentence_bptt(self.wb, self.run(i))
        return self.contributions[i]

    def pick(self, rng: np.random.Generator, max_tokens: int | None = None) -> int | None:
        """A random sentence index (at most ``max_tokens`` tokens), or None."""
        pool = [i for i, s in enumerate(self.sentences) if max_tokens is None or len(s) <= max_tokens]
        return int(pool[int(rng.integers(len(pool)))]) if pool else None


def _prefix(run: SentenceRun, step: int) -> str:
    return " ".join(run.inputs_text[:step])


def top_word_question(runs: SentenceRuns, rng: np.random.Generator) -> Question | None:
    """Which of four words has the highest ŷ(t) after a prefix (of at least one word)?"""
    wb = runs.wb
    for _ in range(ATTEMPTS):
        run = runs.run(runs.pick(rng))
        probs = run.probs.numpy()
        steps = [t for t in range(1, run.T) if _clear_top(probs[t], wb.itos)]
        if steps:
            break
    else:
        return None
    t = int(rng.choice(steps))
    top = np.argsort(-probs[t], kind="stable")[:4]
    picks = shuffled(rng, [int(i) for i in top])
    answer = picks.index(int(top[0]))
    step = t + 1
    return Question(
        qid="rnn_bptt.top_word", topic="rnn_bptt", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.rnn_top", prefix=_prefix(run, step), t=step),
        choices=tuple(literal(wb.itos[i]) for i in picks),
        reveal=text("teaching.r.rnn_top", t=step, w=wb.itos[int(top[0])], p=fmt(float(probs[t, top[0]])),
                    w2=wb.itos[int(top[1])], p2=fmt(float(probs[t, top[1]])), target=run.targets_text[t],
                    pt=fmt(float(probs[t, run.targets[t]]))),
        explain="bars",
        explain_data={"x": [wb.itos[i] for i in picks], "y": [float(probs[t, i]) for i in picks], "highlight": answer,
                      "title": "teaching.fig.rnn_top", "fields": {"t": step}, "y_title": "teaching.axis.prob",
                      "sentence": run.inputs_text[1:], "t": step},
    )


def _clear_top(p: np.ndarray, itos: list[str]) -> bool:
    first, second = np.sort(p)[-2:][::-1]
    return bool(first >= TOP_MARGIN * second) and itos[int(np.argmax(p))] != UNK


def diagonal_means(norms: np.ndarray) -> np.ndarray:
    """m(d) = mean over t of ‖G(t, t−d)‖ (norms[t−1, k−1] = ‖G(t, k)‖), d = 0 … T−1."""
    return np.array([np.nanmean(np.diagonal(norms, offset=-d)) for d in range(norms.shape[0])])


def decay_question(runs: SentenceRuns, rng: np.random.Generator) -> Question | None:
    """Does ‖G(t, k)‖ shrink or grow with t − k (mean over t, distance d against distance 0)?"""
    for _ in range(ATTEMPTS):
        i = runs.pick(rng, BPTT_MAX_TOKENS)
        if i is None:
            return None
        run = runs.run(i)
        means = diagonal_means(runs.bptt(i).norms)
        ok = [d for d in DISTANCES if d < run.T and means[0] > 0
              and not 1 / DECAY_FACTOR <= means[d] / means[0] <= DECAY_FACTOR]
        if ok:
            break
    else:
        return None
    d = int(rng.choice(ok))
    ratio = float(means[d] / means[0])
    options = ["shrink", "grow"]
    answer = 0 if ratio < 1 else 1
    return Question(
        qid="rnn_bptt.decay", topic="rnn_bptt", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.rnn_decay", sentence=" ".join(run.inputs_text[1:]), T=run.T, d=d),
        choices=tuple(text(f"teaching.choice.{o}") for o in options),
        reveal=text("teaching.r.rnn_decay", d=d, m0=fmt(float(means[0])), md=fmt(float(means[d])), ratio=fmt(ratio),
                    way=text(f"teaching.choice.{options[answer]}")),
        explain="bars",
        explain_data={"x": list(range(len(means))), "y": [float(m) for m in means], "highlight": d, "log_y": True,
                      "title": "teaching.fig.rnn_decay", "y_title": "teaching.axis.g_norm", "sentence": run.inputs_text[1:]},
    )


def truncation_question(runs: SentenceRuns, rng: np.random.Generator) -> Question | None:
    """Does truncated BPTT (window w ≤ T/2) miss more or less than 10 % of ∂J/∂W_h?"""
    lo, hi = TRUNCATION_LINE / TRUNCATION_FACTOR, TRUNCATION_LINE * TRUNCATION_FACTOR
    for _ in range(ATTEMPTS):
        i = runs.pick(rng, BPTT_MAX_TOKENS)
        if i is None:
            return None
        run, contrib = runs.run(i), runs.bptt(i)
        errors = {w: contrib.truncation_error(w) for w in range(1, max(2, run.T // 2 + 1))}
        ok = [w for w, e in errors.items() if not lo <= e <= hi]
        if ok:
            break
    else:
        return None
    w = int(rng.choice(ok))
    answer = 0 if errors[w] > TRUNCATION_LINE else 1
    return Question(
        qid="rnn_bptt.truncation", topic="rnn_bptt", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.rnn_truncation", sentence=" ".join(run.inputs_text[1:]), T=run.T, w=w,
                    line=f"{TRUNCATION_LINE:.0%}"),
        choices=(text("teaching.choice.more_than", line=f"{TRUNCATION_LINE:.0%}"),
                 text("teaching.choice.less_than", line=f"{TRUNCATION_LINE:.0%}")),
        table=Table((text("teaching.col.window"),), ((w,),)),
        reveal=text("teaching.r.rnn_truncation", w=w, err=f"{100 * errors[w]:.3g}%",
                    dropped=f"{100 * contrib.dropped_share(w):.3g}%"),
        explain="bars",
        explain_data={"x": list(errors), "y": list(errors.values()), "highlight": w - 1, "hline": TRUNCATION_LINE,
                      "log_y": True,
                      "title": "teaching.fig.rnn_truncation", "y_title": "teaching.axis.trunc_err",
                      "sentence": run.inputs_text[1:]},
    )


def rnn_questions(lm: NeuralLM | None, held_out: Sequence[Sequence[str]], seed: int = 0) -> list[Question]:
    """The RNN & BPTT questions for this model, test sentences and seed (none without a word-level RNN)."""
    if lm is None or lm.config.cell != "rnn" or lm.table.level != "word":
        return []
    sentences = rnn_sentences(held_out)
    if not sentences:
        return []
    rng = np.random.default_rng([seed, 29])
    runs = SentenceRuns(white_box(lm), sentences)
    made = [top_word_question(runs, rng), decay_question(runs, rng), truncation_question(runs, rng)]
    return [q for q in made if q is not None]
