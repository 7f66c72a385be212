"""Questions on the encoder-decoder and its bottleneck (the seq2seq page), on the shipped models of
the page's task (``LessonInputs.seq2seq_task``) and their shipped bottleneck curves.

- ``seq2seq.bottleneck``: without attention (the decoder sees only c = h_enc^(m)), is exact-match
  accuracy on held-out sources of length m above or below a line (25/50/75 %)? (curves of
  :func:`lmcore.seq2seq.pretrained.shipped_evaluation`; pairs less than 10 points from the line skipped);
- ``seq2seq.attention``: at length m, is the model with or without attention more accurate?
  (only lengths where they differ by ≥ 15 points; none for a task where they never do);
- ``seq2seq.greedy``: for one held-out source, does greedy decoding without attention output
  exactly y? (:func:`lmcore.seq2seq.evaluation.greedy_outputs`, at a length where it often fails;
  every greedy choice at least 0.05 nats ahead of the runner-up);
- ``seq2seq.factor``: P(y | x) = ∏_t P(y_t | y_<t, x) from the printed factors (teacher forcing,
  :func:`lmcore.seq2seq.scoring.factorise`; numeric, 3 %).
A model trained in this browser replaces the shipped one on the page; questions stay on the shipped ones.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch

from lmcore.seq2seq.evaluation import LengthResult, greedy_outputs
from lmcore.seq2seq.model import Seq2Seq
from lmcore.seq2seq.pretrained import DEFAULT_TASK, EVAL_N, pretrained, shipped_evaluation
from lmcore.seq2seq.scoring import factorise
from lmcore.seq2seq.tasks import TASKS, make_batch, sample_pairs
from lmcore.seq2seq.training import Seq2SeqRecipe
from lmcore.teaching.question import CHOICE, NUMERIC, Question, Table, Tolerance, fmt, text

LINES = (0.25, 0.5, 0.75)
LINE_MARGIN = 0.10
GAP = 0.15
GREEDY_MARGIN = 0.05  # nats between the chosen token and the runner-up at every greedy step
ATTEMPTS = 12
VARIANTS = ("none", "dot")


@lru_cache(maxsize=16)
def shipped(task: str, variant: str) -> tuple[Seq2Seq, Seq2SeqRecipe, list[LengthResult] | None] | None:
    """The shipped model (read-only, shared), its recipe and its bottleneck curve; None when not shipped."""
    found = pretrained(task, variant)
    return None if found is None else (*found, shipped_evaluation(task, variant, EVAL_N))


def _accuracy(curve: list[LengthResult]) -> dict[int, float]:
    return {r.length: r.accuracy for r in curve}


def _curves_data(task: str, highlight: int, line: float | None = None) -> dict:
    curves = {v: [[r.length, r.accuracy] for r in found[2]] for v in VARIANTS
              if (found := shipped(task, v)) is not None and found[2] is not None}
    return {"task": task, "curves": curves, "length": highlight, "line": line}


def bottleneck_question(task: str, rng: np.random.Generator) -> Question | None:
    """Without attention, is accuracy at length m above or below a line?"""
    found = shipped(task, "none")
    if found is None or found[2] is None:
        return None
    acc = _accuracy(found[2])
    pairs = [(m, line) for m in acc for line in LINES if abs(acc[m] - line) >= LINE_MARGIN]
    m, line = pairs[int(rng.integers(len(pairs)))]
    answer = 0 if acc[m] > line else 1
    return Question(
        qid="seq2seq.bottleneck", topic="seq2seq", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.s2s_bottleneck", task=text(f"seq2seq.task.{task}"), m=m, line=f"{line:.0%}", n=EVAL_N,
                    lo=found[1].min_len, hi=found[1].max_len),
        choices=(text("teaching.choice.more_than", line=f"{line:.0%}"), text("teaching.choice.less_than", line=f"{line:.0%}")),
        reveal=text("teaching.r.s2s_bottleneck", m=m, acc=f"{acc[m]:.1%}", n=EVAL_N),
        explain="length_curves", explain_data=_curves_data(task, m, line),
    )


def attention_question(task: str, rng: np.random.Generator) -> Question | None:
    """With or without attention: which is more accurate at length m (gap ≥ 15 points)?"""
    found = [shipped(task, v) for v in VARIANTS]
    if any(f is None or f[2] is None for f in found):
        return None
    acc = [_accuracy(f[2]) for f in found]
    lengths = [m for m in acc[0] if m in acc[1] and abs(acc[0][m] - acc[1][m]) >= GAP]
    if not lengths:
        return None
    m = int(lengths[int(rng.integers(len(lengths)))])
    answer = int(acc[1][m] > acc[0][m])
    return Question(
        qid="seq2seq.attention", topic="seq2seq", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.s2s_attention", task=text(f"seq2seq.task.{task}"), m=m),
        choices=tuple(text(f"seq2seq.variant.{v}") for v in VARIANTS),
        reveal=text("teaching.r.s2s_attention", m=m, none=f"{acc[0][m]:.1%}", dot=f"{acc[1][m]:.1%}"),
        explain="length_curves", explain_data=_curves_data(task, m),
    )


def _hard_length(acc: dict[int, float], rng: np.random.Generator) -> int:
    """A length where the model is often wrong and often right (else any length)."""
    middling = [m for m, a in acc.items() if 0.2 <= a <= 0.8]
    pool = middling or list(acc)
    return int(pool[int(rng.integers(len(pool)))])


@torch.no_grad()
def greedy_margin(model: Seq2Seq, source: list[str], output: list[str]) -> float:
    """The smallest gap, in nats, between the greedy token (then </s>) and the runner-up over the steps."""
    batch = make_batch([(source, output)])
    logprobs, _ = model(batch.src, batch.src_len, batch.tgt_in)
    top = torch.topk(logprobs[0], 2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).min())


def greedy_question(task: str, rng: np.random.Generator) -> Question | None:
    """Does greedy decoding without attention get this held-out source exactly right?"""
    found = shipped(task, "none")
    if found is None:
        return None
    model, recipe, curve = found
    acc = _accuracy(curve) if curve else {m: 0.5 for m in range(recipe.min_len, recipe.max_len + 1)}
    m = _hard_length(acc, rng)
    for _ in range(ATTEMPTS):  # a source whose greedy path has no near-tie (no flip on a last bit)
        source, target = sample_pairs(task, 1, [m], rng, heldout=True)[0]
        output = greedy_outputs(model, [source], 2 * m + 4)[0]
        if greedy_margin(model, source, output) >= GREEDY_MARGIN:
            break
    else:
        return None
    answer = 0 if output == target else 1
    return Question(
        qid="seq2seq.greedy", topic="seq2seq", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.s2s_greedy", task=text(f"seq2seq.task.{task}"), x=" ".join(source), y=" ".join(target), m=m),
        choices=(text("teaching.choice.yes"), text("teaching.choice.no")),
        reveal=text("teaching.r.s2s_greedy", out=" ".join(output) or "∅", y=" ".join(target),
                    acc=f"{acc[m]:.1%}" if curve else "–", m=m),
        explain="length_curves", explain_data={**_curves_data(task, m), "source": source, "output": output},
    )


def factor_question(task: str, rng: np.random.Generator) -> Question | None:
    """P(y | x) from the printed chain-rule factors of the model without attention."""
    found = shipped(task, "none")
    if found is None:
        return None
    model, recipe, curve = found
    m = _hard_length(_accuracy(curve) if curve else {recipe.max_len: 0.5}, rng)
    source, target = sample_pairs(task, 1, [m], rng, heldout=True)[0]
    fact = factorise(model, source, target)
    answer = math.exp(fact.logprob)
    rows = tuple((t + 1, tok, float(p)) for t, (tok, p) in enumerate(zip(fact.target, fact.probs)))
    return Question(
        qid="seq2seq.factor", topic="seq2seq", kind=NUMERIC, answer=answer,
        prompt=text("teaching.q.s2s_factor", task=text(f"seq2seq.task.{task}"), x=" ".join(source), y=" ".join(target)),
        table=Table((text("teaching.col.t"), text("teaching.col.y_t"), text("teaching.col.p_y_t")), rows),
        tolerance=Tolerance("rel", 0.03),
        reveal=text("teaching.r.s2s_factor", n=len(rows), logp=fmt(fact.logprob), p=fmt(answer)),
        explain="bars",
        explain_data={"x": [f"{t}: {tok}" for t, tok, _ in rows], "y": [p for _, _, p in rows], "title": "teaching.fig.s2s_factor",
                      "y_title": "teaching.axis.prob", "source": source, "target": target},
    )


def seq2seq_questions(task: str = DEFAULT_TASK, seed: int = 0) -> list[Question]:
    """The seq2seq questions for this task and seed (none for a task without shipped models)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; expected one of {TASKS}")
    rng = np.random.default_rng([seed, 37])
    made = [bottleneck_question(task, rng), attention_question(task, rng), greedy_question(task, rng),
            factor_question(task, rng)]
    return [q for q in made if q is not None]
