"""Questions on n-gram counts and smoothing, drawn from the live corpus (bigram level).

- ``ngram.add_delta``: P_add-δ(w | h) = (C(h,w) + δ) / (C(h) + δ|V|) for printed counts (numeric);
- ``ngram.unseen``: for a bigram (h, w) never seen in training, which of P_MLE, P_add-δ, P_KN
  (interpolated KN, discount d) is largest (choice);
- ``ngram.continuation``: of two words, the more frequent one has fewer distinct left neighbours
  N1+(• w): which gets more probability from KN's continuation unigram? (choice).
Every answer is computed by :class:`lmcore.ngram.NgramModel` on the corpus's counts.
"""
from __future__ import annotations

import numpy as np

from lmcore.ngram import NgramCounts, NgramModel
from lmcore.ngram.analysis import continuation_counts
from lmcore.ngram.compare import frequent_contexts
from lmcore.teaching.question import CHOICE, NUMERIC, Question, Table, Tolerance, fmt, literal, text

SPECIAL = ("<unk>", "</s>", "<s>")


def bigram_contexts(counts: NgramCounts) -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """(h, C(h), follower ids, follower counts) of every one-word context seen in training."""
    table, words = counts.tables[1], counts.vocab.words + ["<s>"]
    start, follower = table.ctx_start.tolist(), table.word  # both computed from the keys: once, not per context
    out = []
    for c in range(len(start) - 1):
        lo, hi = start[c], start[c + 1]
        if hi > lo and words[c] not in SPECIAL:
            out.append((words[c], int(table.count[lo:hi].sum()), follower[lo:hi], table.count[lo:hi]))
    return out


def _candidates(counts: NgramCounts, low: int, high: int) -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """Contexts with low ≤ C(h) ≤ high, ≥ 3 distinct followers, not among the page's 30 shown ones."""
    shown = {tuple(c) for c in frequent_contexts(NgramModel(counts, 2, "mle"), 30)}
    pool = [c for c in bigram_contexts(counts) if low <= c[1] <= high and len(c[2]) >= 3 and (c[0],) not in shown]
    return pool or [c for c in bigram_contexts(counts) if len(c[2]) >= 2]


def add_delta_question(counts: NgramCounts, delta: float, rng: np.random.Generator) -> Question | None:
    """P_add-δ(w | h) for a seen bigram (h, w); the table prints C(h,w), C(h), |V| and δ."""
    pool = _candidates(counts, 5, 400)
    if not pool:
        return None
    h, c_h, followers, fcounts = pool[int(rng.integers(len(pool)))]
    i = int(rng.integers(len(followers)))
    words = counts.vocab.words
    w, c_hw = words[int(followers[i])], int(fcounts[i])
    lm = NgramModel(counts, 2, "add-delta", delta=delta)
    answer = lm.prob(w, [h])
    v = len(lm.vocab)
    top = [words[int(j)] for j in followers[np.argsort(-fcounts, kind="stable")][:6]]
    shown = top if w in top else top[:5] + [w]
    mle = NgramModel(counts, 2, "mle")
    return Question(
        qid="ngram.add_delta", topic="ngram", kind=NUMERIC, answer=answer,
        prompt=text("teaching.q.add_delta", h=h, w=w, delta=fmt(delta)),
        table=Table((text("teaching.col.h"), text("teaching.col.w"), text("teaching.col.c_hw"), text("teaching.col.c_h"),
                     text("teaching.col.v"), text("teaching.col.delta")), ((h, w, c_hw, c_h, v, float(delta)),)),
        tolerance=Tolerance("rel", 0.02),
        reveal=text("teaching.r.add_delta", c_hw=c_hw, c_h=c_h, v=v, delta=fmt(delta), p=fmt(answer)),
        explain="next_word",
        explain_data={"context": h, "target": w, "words": shown,
                      "probs": {"mle": [mle.prob(x, [h]) for x in shown], "add-delta": [lm.prob(x, [h]) for x in shown]}},
    )


def unseen_question(counts: NgramCounts, delta: float, discount: float, rng: np.random.Generator) -> Question | None:
    """Which of P_MLE, P_add-δ, P_KN is largest for an unseen bigram (h, w)?"""
    pool = _candidates(counts, 5, 400)
    cc = continuation_counts(counts)
    eligible = np.flatnonzero(cc.count > 0)
    eligible = eligible[[cc.words[i] not in SPECIAL for i in eligible]]
    if not pool or eligible.size == 0:
        return None
    h, c_h, followers, _ = pool[int(rng.integers(len(pool)))]
    unseen = np.setdiff1d(eligible, followers)
    if unseen.size == 0:
        return None
    frequent = rng.random() < 0.5  # half the time a word with many left neighbours, else a rare one
    by_cont = unseen[np.argsort(-cc.continuation[unseen], kind="stable")]
    part = by_cont[: max(1, len(by_cont) // 20)] if frequent else by_cont[len(by_cont) // 2:]
    w = cc.words[int(part[int(rng.integers(len(part)))])]
    models = {"mle": NgramModel(counts, 2, "mle"), "add-delta": NgramModel(counts, 2, "add-delta", delta=delta),
              "kn-interp": NgramModel(counts, 2, "kn-interp", discount=discount)}
    probs = {m: lm.prob(w, [h]) for m, lm in models.items()}
    order = list(models)
    answer = int(np.argmax([probs[m] for m in order]))
    n1_h = len(followers)
    n1_w = int(cc.continuation[cc.words.index(w)])
    n1_all = int(cc.continuation.sum())
    v = len(models["mle"].vocab)
    return Question(
        qid="ngram.unseen", topic="ngram", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.unseen", h=h, w=w),
        choices=tuple(text(f"teaching.choice.p_{m}") for m in order),
        table=Table((text("teaching.col.h"), text("teaching.col.w"), text("teaching.col.c_h"), text("teaching.col.c_hw"),
                     text("teaching.col.v"), text("teaching.col.delta"), text("teaching.col.d"),
                     text("teaching.col.n1_h"), text("teaching.col.n1_w"), text("teaching.col.n1_all")),
                    ((h, w, c_h, 0, v, float(delta), float(discount), n1_h, n1_w, n1_all),)),
        reveal=text("teaching.r.unseen", mle=fmt(probs["mle"]), add=fmt(probs["add-delta"]), kn=fmt(probs["kn-interp"])),
        explain="next_word",
        explain_data={"context": h, "target": w, "words": [w], "probs": {m: [p] for m, p in probs.items()}},
    )


def continuation_question(counts: NgramCounts, discount: float, rng: np.random.Generator) -> Question | None:
    """Two words, A more frequent but with fewer distinct left neighbours: which gets more P_KN unigram mass?"""
    cc = continuation_counts(counts)
    ok = np.array([w not in SPECIAL for w in cc.words]) & (cc.count >= 5)
    idx = np.flatnonzero(ok)
    if idx.size < 2:
        return None
    ratio = cc.count[idx] / np.maximum(cc.continuation[idx], 1)
    sticky = idx[np.argsort(-ratio, kind="stable")][:10]  # "Francisco"-like words: few distinct left neighbours
    a = int(sticky[int(rng.integers(len(sticky)))])
    rivals = idx[(cc.count[idx] < cc.count[a]) & (cc.count[idx] >= cc.count[a] // 3)
                 & (cc.continuation[idx] > cc.continuation[a])]
    if rivals.size == 0:
        return None
    b = int(rivals[int(rng.integers(len(rivals)))])
    pair = [a, b] if rng.random() < 0.5 else [b, a]
    lm = NgramModel(counts, 2, "kn-interp", discount=discount)  # its unigram level: continuation counts
    probs = [lm.prob(cc.words[i], []) for i in pair]
    answer = int(np.argmax(probs))
    names = [cc.words[i] for i in pair]
    return Question(
        qid="ngram.continuation", topic="ngram", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.continuation", a=names[0], b=names[1]),
        choices=tuple(literal(n) for n in names),
        table=Table((text("teaching.col.w"), text("teaching.col.c_w")),
                    tuple((names[k], int(cc.count[i])) for k, i in enumerate(pair))),
        reveal=text("teaching.r.continuation", a=names[0], b=names[1], na=int(cc.continuation[pair[0]]),
                    nb=int(cc.continuation[pair[1]]), pa=fmt(probs[0]), pb=fmt(probs[1])),
        explain="continuation",
        explain_data={"words": names, "count": [int(cc.count[i]) for i in pair],
                      "continuation": [int(cc.continuation[i]) for i in pair]},
    )


def ngram_questions(counts: NgramCounts, delta: float = 1.0, discount: float = 0.75, seed: int = 0) -> list[Question]:
    """The n-gram questions for this corpus, settings and seed (the same seed gives the same ones)."""
    rng = np.random.default_rng([seed, 11])
    made = [add_delta_question(counts, delta, rng), unseen_question(counts, delta, discount, rng),
            continuation_question(counts, discount, rng)]
    return [q for q in made if q is not None]
