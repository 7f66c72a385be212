"""Questions on greedy and beam search over a small printed table of P(y_t | y_<t) (seeded).

Vocabulary {A, B, </s>}; the table gives P(· | ∅), P(· | A), P(· | B); after two words the
output always ends (P(</s> | y1 y2) = 1), so there are 7 possible outputs.
- ``decoding.beam``: which output does beam search with k = 2 return? (choice; lmcore's
  :func:`~lmcore.decoding.beam_search`, finished hypotheses leave the beam and use up a place);
- ``decoding.greedy``: P(y) of the greedy output (numeric, the chain rule along its path);
- ``decoding.gain``: does beam search with k = 3 find an output of higher P(y) than greedy? (choice;
  when the outputs differ, their probabilities differ by at least 5 %, so no last bit decides).
"""
from __future__ import annotations

import math

import numpy as np

from lmcore.decoding import TableScorer, beam_search, exhaustive_search, greedy_decode
from lmcore.teaching.question import CHOICE, NUMERIC, Question, Table, Tolerance, fmt, literal, text

VOCAB = ("A", "B", "</s>")
A, B, END = range(3)
MAX_LEN = 3
STEP = 0.05
VOCAB_TEXT = "{A, B, </s>}"


def random_table(rng: np.random.Generator) -> dict[tuple[int, ...], dict[int, float]]:
    """P(· | ∅), P(· | A), P(· | B) in steps of 0.05 (each ≥ 0.05, no ties in a row); every 2-word prefix ends."""
    table: dict[tuple[int, ...], dict[int, float]] = {}
    for prefix in [(), (A,), (B,)]:
        units = np.zeros(3)
        while len(set(units.tolist())) < 3:  # no ties: greedy's choice is never a coin toss
            units = 1 + rng.multinomial(int(round(1 / STEP)) - 3, rng.dirichlet([1.0, 1.0, 0.6 if prefix else 0.35]))
        table[prefix] = {tok: round(float(u) * STEP, 2) for tok, u in enumerate(units)}
    for a in (A, B):
        for b in (A, B):
            table[(a, b)] = {END: 1.0}
    return table


def scorer(table: dict) -> TableScorer:
    return TableScorer(VOCAB, {k: v for k, v in table.items()}, {END: 1.0}, end_id=END)


def sequence_text(tokens) -> str:
    return " ".join(VOCAB[t] for t in tokens)


def _table(table: dict) -> Table:
    rows = tuple((sequence_text(p) or "∅", *(table[p][tok] for tok in range(3))) for p in [(), (A,), (B,)])
    return Table((text("teaching.col.prefix"), *(text("teaching.col.p_next", w=w) for w in VOCAB)), rows)


def _explain(table: dict) -> dict:
    return {"table": [[list(k), {str(t): p for t, p in v.items()}] for k, v in table.items()]}


def table_from_explain(data: dict) -> dict:
    return {tuple(k): {int(t): p for t, p in v.items()} for k, v in data["table"]}


def beam_question(rng: np.random.Generator, k: int = 2) -> Question:
    """Which output does beam search (width k) return? Tables where greedy differs are preferred."""
    for _ in range(40):
        table = random_table(rng)
        score = scorer(table)
        beam = beam_search(score, k, MAX_LEN, END).best
        greedy = greedy_decode(score, MAX_LEN, END)
        if beam.tokens != greedy.tokens:
            break
    options = [h.tokens for h in exhaustive_search(score, MAX_LEN, END, n_best=10)]
    picks = [beam.tokens, greedy.tokens] + [o for o in options if o not in (beam.tokens, greedy.tokens)][:2]
    picks = list(dict.fromkeys(picks))
    order = rng.permutation(len(picks))
    choices = [picks[i] for i in order]
    answer = choices.index(beam.tokens)
    return Question(
        qid="decoding.beam", topic="decoding", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.beam", k=k, vocab=VOCAB_TEXT),
        choices=tuple(literal(sequence_text(c)) for c in choices),
        table=_table(table),
        reveal=text("teaching.r.beam", k=k, beam=sequence_text(beam.tokens), pb=fmt(math.exp(beam.logprob)),
                    greedy=sequence_text(greedy.tokens), pg=fmt(math.exp(greedy.logprob))),
        explain="beam_tree", explain_data={**_explain(table), "k": k},
    )


def greedy_question(rng: np.random.Generator) -> Question:
    """P(y) of the greedy output, by the chain rule along the greedy path."""
    for _ in range(40):  # an output of at least one word: the chain rule has something to multiply
        table = random_table(rng)
        greedy = greedy_decode(scorer(table), MAX_LEN, END)
        if len(greedy.tokens) > 2:
            break
    answer = math.exp(greedy.logprob)
    return Question(
        qid="decoding.greedy", topic="decoding", kind=NUMERIC, answer=answer,
        prompt=text("teaching.q.greedy", vocab=VOCAB_TEXT), table=_table(table), tolerance=Tolerance("rel", 0.02),
        reveal=text("teaching.r.greedy", y=sequence_text(greedy.tokens), p=fmt(answer)),
        explain="beam_tree", explain_data={**_explain(table), "k": 1},
    )


GAIN_MARGIN = math.log(1.05)


def gain_question(rng: np.random.Generator, k: int = 3) -> Question:
    """Does beam search (width k) beat greedy on P(y)? The answer is drawn first, then a table that has it."""
    want = int(rng.integers(2))  # 0: yes, beam finds a more probable output; 1: no
    for _ in range(200):
        table = random_table(rng)
        score = scorer(table)
        beam, greedy = beam_search(score, k, MAX_LEN, END).best, greedy_decode(score, MAX_LEN, END)
        gain = beam.logprob - greedy.logprob
        same = beam.tokens == greedy.tokens
        if (want == 0 and gain >= GAIN_MARGIN) or (want == 1 and (same or gain <= -GAIN_MARGIN)):
            break
    answer = 0 if gain >= GAIN_MARGIN else 1
    return Question(
        qid="decoding.gain", topic="decoding", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.beam_gain", k=k, vocab=VOCAB_TEXT), table=_table(table),
        choices=(text("teaching.choice.yes"), text("teaching.choice.no")),
        reveal=text("teaching.r.beam", k=k, beam=sequence_text(beam.tokens), pb=fmt(math.exp(beam.logprob)),
                    greedy=sequence_text(greedy.tokens), pg=fmt(math.exp(greedy.logprob))),
        explain="beam_tree", explain_data={**_explain(table), "k": k},
    )


def decoding_questions(seed: int = 0) -> list[Question]:
    """The decoding questions for this seed."""
    rng = np.random.default_rng([seed, 19])
    return [beam_question(rng), greedy_question(rng), gain_question(rng)]
