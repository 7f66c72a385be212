"""Chain rule & perplexity: a sentence scored token by token by any LanguageModel."""
import math

import streamlit as st

from lmcore.corpus.segmentation import tokenize
from lmcore.figures.ngram import (chain_rule_bars, cumulative_logprob_figure, running_perplexity_figure,
                                  uniform_die_figure)
from lmcore.lm_protocol import TokenLogProbs, perplexity_of
from lmcore.ngram import METHODS
from lmcore.ngram.explain import zero_reasons
from lmcore.ngram.latex import chain_product_latex, perplexity_latex
from lmcore.training.config import TrainConfig
from server.models import ngram_model, session_models
from ui import teaching
from ui.charts import chart
from ui.state import current_corpus, keep_settings, labeller, lang, query_param, tr
from ui.formula_element import formula

MAX_FACTORS = 12
PER_LINE = 4


corpus = current_corpus()
deck = teaching.deck("chain_rule")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
train = corpus.mapped("train")
st.title(tr("nav.chain_rule"))
st.caption(tr("chain_rule.caption"))
deck.section("sentence")
if not train:
    st.error(tr("ngram.error.empty"))
    st.stop()

# Any LanguageModel can be scored here: the n-gram methods, and the neural LMs trained on the
# LSTM page for this corpus (or shipped with the app for the built-in corpora).
shipped = [TrainConfig(), TrainConfig(cell="rnn")]  # the LSTM and the RNN (RNN & BPTT page)
neural = {f"neural-{i}": lm for i, lm in enumerate(session_models().for_corpus(corpus.key, shipped))}
method_label = labeller("ngram.method")
neural_labels = {
    choice: tr("chain_rule.neural", cell=lm.config.cell.upper(), level=lm.config.level, steps=lm.steps_done,
               origin=tr("chain_rule.neural.shipped" if session_models().is_shipped(lm) else "chain_rule.neural.trained"))
    for choice, lm in neural.items()
}


def model_label(choice: str) -> str:
    return neural_labels.get(choice) or method_label(choice)


def scored(part: str | None) -> None:
    """Model, order, sentence and the open ``part`` scored from them (ui/sections.py: only the open part
    runs, under the bar of parts, drawn before): a fragment in normal view, its controls rerun only this."""
    c1, c2 = st.columns(2)
    choices = list(METHODS) + list(neural)
    default_method = query_param("method", "modified-kn", choices=choices)
    method = c1.selectbox(tr("chain_rule.model"), choices, index=choices.index(default_method),
                          format_func=model_label, key="chain_method")
    order = c2.slider(tr("chain_rule.order"), 1, 6, query_param("n", 3, lo=1, hi=6), key="chain_order",
                      disabled=method in neural, help=tr("chain_rule.order_neural") if method in neural else None)
    keep_settings(method=method, n=order)
    deck.settings(order=order)  # teaching mode: what the questions and share link use
    if method in neural:
        model, span = neural[method], None
    else:
        model, span = ngram_model(corpus, order, method), order - 1

    mode = st.radio(tr("chain_rule.sentence_mode"), ["pick", "type"], horizontal=True,
                    format_func=labeller("chain_rule.sentence_mode"), key="chain_mode")
    if mode == "pick":
        pool = [s for s in (corpus.test or corpus.valid or corpus.train)[:50] if s]
        tokens = st.selectbox(tr("chain_rule.sentence_pick"), pool, format_func=" ".join, key="chain_pick") if pool else []
    else:
        text = st.text_input(tr("chain_rule.sentence_typed"), "", key="chain_typed")
        tokens = tokenize(text, corpus.settings.tokenizer, corpus.settings.lowercase) if text.strip() else []
    scores = model.sentence_logprobs(tokens) if tokens else None
    if scores is None:
        st.warning(tr("chain_rule.empty"))
    deck.parts({"chain": lambda: chain(scores, span), "perplexity": lambda: perplexity(scores)}, open_part=part)


def chain(scores: TokenLogProbs | None, span: int | None) -> None:
    """P(x_t | x_<t) of each token, and the sentence's probability as their product."""
    deck.section("chain")
    if scores is None:
        return
    deck.chart(chart(chain_rule_bars, scores, lang=lang()), "chain-rule")
    st.markdown(tr("chain_rule.product"))
    formula(chain_product_latex(scores, span=span, max_factors=MAX_FACTORS, per_line=PER_LINE))
    explain_zeros(scores, st)


def explain_zeros(scores: TokenLogProbs, where) -> None:
    """A warning for each token of probability 0 (which makes P(sentence) = 0 and PPL = ∞), saying why."""
    for z in zero_reasons(scores):
        if z.kind == "oov":
            where.warning(tr("chain_rule.zero.oov", token=z.token, pos=z.index + 1))
        else:
            where.warning(tr("chain_rule.zero.unseen", token=z.token, pos=z.index + 1, context=" ".join(z.context) or "∅"))


def perplexity(scores: TokenLogProbs | None) -> None:
    """PPL = exp(J) with its numbers and the fair die it equals, then ln P and PPL token by token."""
    deck.section("perplexity")
    if scores is None:
        return
    result = perplexity_of([scores])
    formula(perplexity_latex(result))
    numbers, die = st.columns([1, 2])
    numbers.metric(tr("chain_rule.metric.ppl"), "∞" if math.isinf(result.ppl) else f"{result.ppl:.2f}")
    numbers.metric(tr("chain_rule.metric.logp"), "−∞" if math.isinf(result.log_prob) else f"{result.log_prob:.3f}")
    numbers.metric(tr("chain_rule.metric.tokens"), result.n_tokens)
    numbers.metric(tr("chain_rule.metric.oov"), result.n_oov)
    if math.isinf(result.ppl):
        die.error(tr("chain_rule.infinite"))
        explain_zeros(scores, die)
    else:
        die.info(tr("chain_rule.die", k=max(1, round(result.ppl))))
        deck.chart(chart(uniform_die_figure, result.ppl, lang=lang()), "fair-die", die)
    left, right = st.columns(2)
    deck.chart(chart(cumulative_logprob_figure, scores, lang=lang()), "cumulative-logprob", left)
    deck.chart(chart(running_perplexity_figure, scores, lang=lang()), "running-perplexity", right)


deck.fragment(scored, "chain_rule")(deck.part_bar())
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
