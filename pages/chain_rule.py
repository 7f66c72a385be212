"""Chain rule & perplexity: a sentence scored token by token by any NextTokenModel."""
import math

import numpy as np
import streamlit as st

from lmcore.figures.ngram import (chain_rule_bars, cumulative_logprob_figure, running_perplexity_figure,
                                  uniform_die_figure)
from lmcore.lm_protocol import NextTokenModel, perplexity_of
from lmcore.ngram import METHODS, NgramModel, count_ngrams
from lmcore.ngram.explain import tex, zero_reasons
from ui.state import current_corpus, labeller, lang, query_param, set_query_params, tr

MAX_FACTORS = 12
PER_LINE = 4


@st.cache_resource(show_spinner=False, max_entries=8)
def counts_for(key: str, _train):
    return count_ngrams(_train, 6)


@st.cache_resource(show_spinner=False, max_entries=64)
def ngram_model(key: str, order: int, method: str, _counts) -> NextTokenModel:
    return NgramModel(_counts, order, method)


corpus = current_corpus()
train = corpus.mapped("train")
st.title(tr("nav.chain_rule"))
st.caption(tr("chain_rule.caption"))
if not train:
    st.error(tr("ngram.error.empty"))
    st.stop()

c1, c2 = st.columns(2)
methods = list(METHODS)
default_method = query_param("method", "modified-kn")
method = c1.selectbox(tr("chain_rule.model"), methods, index=methods.index(default_method) if default_method in methods else 4,
                      format_func=labeller("ngram.method"), key="chain_method")
order = c2.slider(tr("chain_rule.order"), 1, 6, min(max(query_param("n", 3), 1), 6), key="chain_order")
set_query_params(method=method, n=order)
model = ngram_model(corpus.key, order, method, counts_for(corpus.key, train))

mode = st.radio(tr("chain_rule.sentence_mode"), ["pick", "type"], horizontal=True,
                format_func=labeller("chain_rule.sentence_mode"), key="chain_mode")
if mode == "pick":
    pool = [s for s in (corpus.test or corpus.valid or corpus.train)[:50] if s]
    tokens = st.selectbox(tr("chain_rule.sentence_pick"), pool, format_func=" ".join, key="chain_pick") if pool else []
else:
    from lmcore.corpus.segmentation import tokenize

    text = st.text_input(tr("chain_rule.sentence_typed"), "", key="chain_typed")
    tokens = tokenize(text, corpus.settings.tokenizer, corpus.settings.lowercase) if text.strip() else []
if not tokens:
    st.warning(tr("chain_rule.empty"))
    st.stop()

scores = model.sentence_logprobs(tokens)
result = perplexity_of([scores])
st.plotly_chart(chain_rule_bars(scores, lang=lang()), width="stretch")
left, right = st.columns(2)
left.plotly_chart(cumulative_logprob_figure(scores, lang=lang()), width="stretch")
right.plotly_chart(running_perplexity_figure(scores, lang=lang()), width="stretch")

st.markdown(tr("chain_rule.product"))
history = ["<s>"] + list(scores.tokens)
span = order - 1 if isinstance(model, NgramModel) else len(history)


def factor(t: int) -> str:
    """P(x_t | h) with h the history the model conditions on, as LaTeX under its value."""
    h = history[max(0, t + 1 - span):t + 1] if span > 0 else []
    cut = r"\ldots\," if t + 1 - span > 0 and span > 0 else ""
    ctx = cut + r"\,".join(r"\langle s\rangle" if w == "<s>" else rf"\text{{{tex(w)}}}" for w in h)
    ctx = ctx or r"\varnothing"
    word = tex(scores.tokens[t])
    return rf"\underbrace{{{tex_number(scores.probs[t])}}}_{{P(\text{{{word}}}\mid {ctx})}}"


def tex_number(x: float) -> str:
    """3 significant digits, powers of ten written as ×10^k."""
    text = f"{x:.3g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return rf"{mantissa}\times 10^{{{int(exponent)}}}"


terms = [factor(t) for t in range(len(scores.tokens))]
if len(terms) > MAX_FACTORS:
    terms = terms[:MAX_FACTORS - 1] + [r"\cdots"] + terms[-1:]
lines = [r"\times ".join(terms[i:i + PER_LINE]) for i in range(0, len(terms), PER_LINE)]
total = float(np.exp(result.log_prob))
st.latex(r"\begin{aligned}P(x^{(1)},\ldots,x^{(T)})&=\prod_{t=1}^{T}P(x^{(t)}\mid x^{(<t)})\\&="
         + r"\\&\times ".join(lines) + rf"\\&={tex_number(total)}\end{{aligned}}")
J = -result.log_prob / result.n_tokens
logp_tex = r"-\infty" if math.isinf(result.log_prob) else f"{result.log_prob:.3f}"
ppl_tex = r"\infty" if math.isinf(result.ppl) else f"{result.ppl:.2f}"
st.latex(rf"J=-\frac{{1}}{{T}}\sum_{{t=1}}^{{T}}\log P(x^{{(t)}}\mid x^{{(<t)}})=-\frac{{{logp_tex}}}{{{result.n_tokens}}}="
         + (r"\infty" if math.isinf(J) else f"{J:.4f}") + rf",\qquad \text{{PPL}}=\exp(J)={ppl_tex}")

st.subheader(tr("chain_rule.ppl_header"))
m1, m2, m3, m4 = st.columns(4)
m1.metric(tr("chain_rule.metric.logp"), "−∞" if math.isinf(result.log_prob) else f"{result.log_prob:.3f}")
m2.metric(tr("chain_rule.metric.tokens"), result.n_tokens)
m3.metric(tr("chain_rule.metric.ppl"), "∞" if math.isinf(result.ppl) else f"{result.ppl:.2f}")
m4.metric(tr("chain_rule.metric.oov"), result.n_oov)
if math.isinf(result.ppl):
    st.error(tr("chain_rule.infinite"))
    for z in zero_reasons(scores):
        if z.kind == "oov":
            st.warning(tr("chain_rule.zero.oov", token=z.token, pos=z.index + 1))
        else:
            st.warning(tr("chain_rule.zero.unseen", token=z.token, pos=z.index + 1, context=" ".join(z.context) or "∅"))
else:
    k = max(1, round(result.ppl))
    st.info(tr("chain_rule.die", k=k))
    st.plotly_chart(uniform_die_figure(result.ppl, lang=lang()), width="stretch")
