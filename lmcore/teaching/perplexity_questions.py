"""Questions on the chain rule and perplexity, on held-out sentences of the live corpus.

- ``perplexity.from_probs``: the table prints P(x_t | x_<t) for each token of a sentence (from the
  n-gram model); PPL = exp(−(1/T) Σ_t ln P(x_t | x_<t)) (numeric, 3 % tolerance);
- ``perplexity.guess``: guess a sentence's perplexity under the model, within a factor of 2;
- ``perplexity.top_token``: which token contributes most to J = −(1/T) Σ_t ln P(x_t | x_<t)?
  (choice among up to four tokens, the largest −ln P at least 0.3 nats above the others).
Scores come from :meth:`lmcore.ngram.NgramModel.sentence_logprobs` and :func:`perplexity_of`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lmcore.lm_protocol import perplexity_of
from lmcore.ngram import NgramCounts, NgramModel
from lmcore.teaching.question import CHOICE, FACTOR, NUMERIC, Question, Table, Tolerance, fmt, literal, shuffled, text

METHOD = "modified-kn"


def _pool(model: NgramModel, sentences: Sequence[Sequence[str]], low: int, high: int) -> list[list[str]]:
    """Held-out sentences of low..high tokens without out-of-vocabulary words."""
    vocab = set(model.vocab) - {"<unk>"}
    return [list(s) for s in sentences if low <= len(s) <= high and all(w in vocab for w in s)]


def _model_fields(order: int) -> dict:
    return {"order": order, "method": text(f"ngram.method.{METHOD}")}


def from_probs_question(model: NgramModel, sentences: Sequence[Sequence[str]], rng: np.random.Generator) -> Question | None:
    """Perplexity of a sentence from its printed per-token probabilities."""
    pool = _pool(model, sentences, 3, 8)
    if not pool:
        return None
    tokens = pool[int(rng.integers(len(pool)))]
    scores = model.sentence_logprobs(tokens)
    answer = perplexity_of([scores]).ppl
    rows = tuple((i + 1, tok, float(p)) for i, (tok, p) in enumerate(zip(scores.tokens, scores.probs)))
    return Question(
        qid="perplexity.from_probs", topic="perplexity", kind=NUMERIC, answer=answer,
        prompt=text("teaching.q.from_probs", sentence=" ".join(tokens), **_model_fields(model.order)),
        table=Table((text("teaching.col.t"), text("teaching.col.token"), text("teaching.col.p_token")), rows),
        tolerance=Tolerance("rel", 0.03),
        reveal=text("teaching.r.from_probs", n=len(rows), logp=fmt(float(scores.logprobs.sum())), ppl=fmt(answer)),
        explain="chain_rule",
        explain_data={"tokens": list(scores.tokens), "logprobs": [float(x) for x in scores.logprobs]},
    )


def guess_question(model: NgramModel, sentences: Sequence[Sequence[str]], rng: np.random.Generator) -> Question | None:
    """Guess a sentence's perplexity (accepted within a factor of 2)."""
    pool = _pool(model, sentences, 4, 14)
    if not pool:
        return None
    tokens = pool[int(rng.integers(len(pool)))]
    scores = model.sentence_logprobs(tokens)
    answer = perplexity_of([scores]).ppl
    return Question(
        qid="perplexity.guess", topic="perplexity", kind=NUMERIC, answer=answer,
        prompt=text("teaching.q.guess", sentence=" ".join(tokens), v=len(model.vocab), **_model_fields(model.order)),
        tolerance=Tolerance(FACTOR, 2.0),
        reveal=text("teaching.r.guess", ppl=fmt(answer), k=max(1, round(answer)), v=len(model.vocab)),
        explain="chain_rule",
        explain_data={"tokens": list(scores.tokens), "logprobs": [float(x) for x in scores.logprobs]},
    )


TOP_MARGIN = 0.3  # nats between the largest −ln P and every other choice


def top_token_question(model: NgramModel, sentences: Sequence[Sequence[str]], rng: np.random.Generator) -> Question | None:
    """Which token of a sentence has the largest −ln P(x_t | x_<t), i.e. adds most to J?"""
    pool = _pool(model, sentences, 4, 14)
    for _ in range(12 if pool else 0):
        tokens = pool[int(rng.integers(len(pool)))]
        scores = model.sentence_logprobs(tokens)
        cost = -np.asarray(scores.logprobs, dtype=float)
        best = int(np.argmax(cost))
        rivals = [t for t in range(len(cost)) if cost[t] <= cost[best] - TOP_MARGIN]
        if len(rivals) >= 2:
            break
    else:
        return None
    picks = shuffled(rng, [best, *shuffled(rng, rivals)[:3]])
    labels = [f"{t + 1}: {scores.tokens[t]}" for t in picks]
    answer = picks.index(best)
    return Question(
        qid="perplexity.top_token", topic="perplexity", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.top_token", sentence=" ".join(tokens), **_model_fields(model.order)),
        choices=tuple(literal(x) for x in labels),
        reveal=text("teaching.r.top_token", w=labels[answer], p=fmt(float(np.exp(-cost[best]))), c=fmt(float(cost[best])),
                    total=fmt(float(cost.sum())), T=len(cost), share=f"{cost[best] / cost.sum():.0%}"),
        explain="chain_rule",
        explain_data={"tokens": list(scores.tokens), "logprobs": [float(x) for x in scores.logprobs], "picks": picks},
    )


def perplexity_questions(counts: NgramCounts, sentences: Sequence[Sequence[str]], order: int = 2,
                         seed: int = 0) -> list[Question]:
    """Chain-rule questions on held-out ``sentences`` (already mapped to the vocabulary)."""
    rng = np.random.default_rng([seed, 13])
    model = NgramModel(counts, max(1, min(order, counts.max_order)), METHOD)
    made = [from_probs_question(model, sentences, rng), guess_question(model, sentences, rng),
            top_token_question(model, sentences, rng)]
    return [q for q in made if q is not None]
