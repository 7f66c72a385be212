"""The seq2seq decoder as a next-token scorer for :mod:`lmcore.decoding`, and the factorisation
P(y | x) = ∏_t P(y_t | y_<t, x) of one example with its attention weights."""
from __future__ import annotations

from collections.abc import Sequence
import math
from dataclasses import dataclass

import torch

from lmcore.decoding.adapters import RecurrentScorer
from lmcore.seq2seq.model import Seq2Seq
from lmcore.seq2seq.tasks import make_batch
from lmcore.seq2seq.vocab import EOS, EOS_ID, encode


def decoder_scorer(model: Seq2Seq, source: Sequence[str]) -> RecurrentScorer:
    """score(prefixes) -> log P(· | y_<t, x) for the fixed source x, batched over hypotheses
    (:meth:`Seq2Seq.scorer`)."""
    return model.scorer(source)


@dataclass(frozen=True)
class Factorisation:
    """Per target step t: the token y_t, P(y_t | y_<t, x), and α_t over the source (or None)."""

    source: list[str]
    target: list[str]
    probs: list[float]
    attention: list[list[float]] | None

    @property
    def logprob(self) -> float:
        return float(torch.tensor(self.probs, dtype=torch.float64).log().sum())


@torch.no_grad()
def factorise(model: Seq2Seq, source: Sequence[str], target: Sequence[str]) -> Factorisation:
    """The chain-rule factors of P(y </s> | x) under teacher forcing."""
    batch = make_batch([(source, target)])
    logprobs, attention = model(batch.src, batch.src_len, batch.tgt_in)
    ids = encode(list(target)) + [EOS_ID]
    probs = logprobs[0, torch.arange(len(ids)), torch.tensor(ids)].exp().tolist()
    return Factorisation(list(source), list(target) + [EOS], probs,
                         None if attention is None else attention[0].tolist())


def _tex_token(token: str) -> str:
    if token == EOS:
        return r"\langle/s\rangle"
    return token if token.isdigit() else r"\text{" + token + "}"


def factorisation_latex(f: Factorisation, max_terms: int = 8) -> str:
    """P(y|x) = ∏_t P(y_t | y_<t, x) written out with the live factors (middle terms elided),
    as a three-line LaTeX ``aligned`` block."""
    T = len(f.target)
    terms = [f"{p:.3f}" for p in f.probs]
    if T > max_terms:
        terms = terms[: max_terms // 2] + [r"\cdots"] + terms[-(max_terms - max_terms // 2):]
    first = r"P(y_1{=}" + _tex_token(f.target[0]) + r" \mid x)"
    last = r"P(y_{" + str(T) + r"}{=}" + _tex_token(f.target[-1]) + r" \mid y_{<" + str(T) + r"}, x)"
    chain = first + (r" \cdots " + last if T > 1 else "")
    return (r"\begin{aligned} P(y \mid x) &= \prod_{t=1}^{" + str(T) + r"} P(y_t \mid y_{<t}, x) = "
            + chain + r" \\ &= " + r" \cdot ".join(terms) + f" = {math.exp(f.logprob):.4g}"
            + r" \end{aligned}")
