"""LaTeX (KaTeX) strings of the notes' formulas with live numbers, for ``st.latex`` on the pages.

The chain-rule helpers take any :class:`~lmcore.lm_protocol.TokenLogProbs`, so they serve neural
models too.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from lmcore.lm_protocol import Perplexity, TokenLogProbs
from lmcore.ngram.explain import KnTerms

TEX_SPECIALS = {c: "\\" + c for c in "&%$#_{}"} | {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}",
                                                  "^": r"\^{}", "<": r"\textless{}", ">": r"\textgreater{}"}

NOTES_KN = (r"P_{KN}(w\mid h)=\begin{cases}\max(C(h,w)-d,0)/C(h)+\lambda(h)\cdot P_{KN}(w\mid h_{-1})"
            r"&\text{if } C(h,w)>0\\ P_{KN}(w\mid h_{-1}) & \text{otherwise}\end{cases}")
"""The notes' Kneser-Ney formula, as written (it does not normalise: the second case lacks λ(h))."""


def tex(word: str) -> str:
    """A token safe inside ``\\text{...}``."""
    return "".join(TEX_SPECIALS.get(ch, ch) for ch in word)


def tex_token(word: str) -> str:
    """``<s>`` as ⟨s⟩, any other token as upright text."""
    return r"\langle s\rangle" if word == "<s>" else rf"\text{{{tex(word)}}}"


def tex_number(x: float, digits: int = 3) -> str:
    """``digits`` significant digits; powers of ten as ×10^k; ∞ and −∞ as symbols."""
    if math.isinf(x):
        return r"\infty" if x > 0 else r"-\infty"
    text = f"{x:.{digits}g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return rf"{mantissa}\times 10^{{{int(exponent)}}}"


def add_delta_latex(word: str, count: float, context_count: float, delta: float, vocab_size: int,
                    value: float) -> str:
    """P_smooth(w | h) = (C(h,w)+δ)/(C(h)+δ|V|) with the numbers filled in."""
    return (rf"P_{{smooth}}({tex_token(word)}\mid h)=\frac{{C(h,w)+\delta}}{{C(h)+\delta|V|}}"
            rf"=\frac{{{count:g}+{delta:g}}}{{{context_count:g}+{delta:g}\cdot {vocab_size}}}={value:.5f}")


def kn_notes_latex(word: str, terms: KnTerms) -> str:
    """The notes' P_KN case split for one word: the branch that applies, then its numbers."""
    if terms.seen:
        formula = r"\frac{\max(C(h,w)-d,0)}{C(h)}+\lambda(h)\,P_{KN}(w\mid h_{-1})"
        numbers = (rf"\frac{{\max({terms.count:g}-{terms.discount:g},0)}}{{{terms.context_count:g}}}"
                   rf"+{terms.lam:.4f}\cdot {terms.lower:.5f}")
    else:
        formula, numbers = r"P_{KN}(w\mid h_{-1})", f"{terms.lower:.5f}"
    return (rf"\begin{{aligned}}P_{{KN}}({tex_token(word)}\mid h)&={formula}\\"
            rf"&={numbers}={terms.value:.5f}\end{{aligned}}")


def chain_product_latex(scores: TokenLogProbs, span: int | None = None, max_factors: int = 12,
                        per_line: int = 4) -> str:
    """P(x^(1..T)) = ∏ P(x_t | x_<t) as underbraced factors (value over P(token | history)).

    ``span`` = how many previous tokens the model conditions on (N−1 for an n-gram model; None:
    the whole history); older tokens are shown as an ellipsis.
    """
    history = ["<s>"] + list(scores.tokens)
    probs = scores.probs

    def factor(t: int) -> str:
        start = 0 if span is None else max(0, t + 1 - span)
        h = history[start:t + 1] if span != 0 else []
        ctx = (r"\ldots\," if start > 0 else "") + r"\,".join(tex_token(w) for w in h) or r"\varnothing"
        return rf"\underbrace{{{tex_number(probs[t])}}}_{{P({tex_token(scores.tokens[t])}\mid {ctx})}}"

    terms = [factor(t) for t in range(len(scores.tokens))]
    if len(terms) > max_factors:
        terms = terms[:max_factors - 1] + [r"\cdots"] + terms[-1:]
    lines = [r"\times ".join(terms[i:i + per_line]) for i in range(0, len(terms), per_line)]
    total = math.exp(float(scores.logprobs.sum())) if len(terms) else 1.0
    return (r"\begin{aligned}P(x^{(1)},\ldots,x^{(T)})&=\prod_{t=1}^{T}P(x^{(t)}\mid x^{(<t)})\\&="
            + r"\\&\times ".join(lines) + rf"\\&={tex_number(total)}\end{{aligned}}")


def perplexity_latex(result: Perplexity) -> str:
    """J = −(1/T) Σ log P = …, PPL = exp(J) = … with the numbers."""
    j = -result.log_prob / result.n_tokens if result.n_tokens else float("nan")
    return (rf"J=-\frac{{1}}{{T}}\sum_{{t=1}}^{{T}}\log P(x^{{(t)}}\mid x^{{(<t)}})"
            rf"=-\frac{{{tex_number(result.log_prob, 6)}}}{{{result.n_tokens}}}={tex_number(j, 5)},"
            rf"\qquad \text{{PPL}}=\exp(J)={tex_number(result.ppl, 5)}")


def sequence_text(tokens: Sequence[str]) -> str:
    """Tokens joined for display, ∅ when empty."""
    return " ".join(tokens) or "∅"
