"""Greedy vs beam search: the search tree, the n-best list, search error vs model error."""
import math
from functools import partial

import pandas as pd
import streamlit as st

from lmcore.corpus.segmentation import tokenize
from lmcore.decoding import (DistributionScorer, beam_search, beam_width_sweep, exhaustive_optimum,
                             greedy_decode, textbook_scorer)
from lmcore.figures.decoding import beam_sweep_figure, beam_tree_figure
from lmcore.seq2seq.pretrained import DEFAULT_TASK, pretrained, shipped_models
from lmcore.seq2seq.scoring import decoder_scorer
from lmcore.seq2seq.tasks import parse_source, target_of
from lmcore.training.config import TrainConfig
from server.models import ngram_model, session_models
from server.prefetch import ahead, neighbours
from ui import teaching
from ui.charts import chart
from ui.state import current_corpus, keep_settings, labeller, lang, query_param, tr
from ui.formula_element import formula


MAX_K = 10
ALPHA_RANGE = (0.0, 2.0, 0.1)  # the length normalisation's α: lowest, highest, step


@st.cache_resource(max_entries=4, show_spinner=False)
def _seq2seq_model(task: str):
    return pretrained(task, "dot")[0]


def _text(tokens, vocab) -> str:
    return " ".join(vocab[i] for i in tokens) or "∅"


deck = teaching.deck("decoding")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
st.title(tr("nav.decoding"))
deck.section("setup")
st.markdown(tr("decoding.intro"))
formula(r"\hat y = \arg\max_y P(y \mid x) = \arg\max_y \prod_{t=1}^{T} P(y_t \mid y_{<t}, x)"
         r"\qquad s(y_{\le t}) = s(y_{<t}) + \log P(y_t \mid y_{<t}, x)")


@st.cache_resource(show_spinner=False, max_entries=64)
def search(scorer_key: tuple, k: int, max_len: int, alpha: float, per_parent: int, _score):
    """Beam search of width ``k`` (its tree, ``per_parent`` pruned children shown a parent) and greedy search,
    scored by ``_score``, the model ``scorer_key`` names: once per model and settings, shared and read only."""
    return (beam_search(_score, k, max_len, _score.end_id, alpha, pruned_per_parent=per_parent),
            greedy_decode(_score, max_len, _score.end_id, alpha))


def tree_chart(score, scorer_key: tuple, k: int, max_len: int, alpha: float, per_parent: int, language: str):
    """The search tree's chart at beam width ``k`` and α."""
    tree, greedy = search(scorer_key, k, max_len, alpha, per_parent, score)
    return chart(beam_tree_figure, tree, score.vocab, greedy.tokens, lang=language)


def search_part(score, scorer_key: tuple, k: int, max_len: int, alpha: float, per_parent: int) -> None:
    """The search tree of greedy and beam search, the n-best list and length normalisation."""
    vocab, language = score.vocab, lang()
    tree, greedy = search(scorer_key, k, max_len, alpha, per_parent, score)
    deck.section("tree")
    st.subheader(tr("decoding.tree_header"))
    st.caption(tr("decoding.tree_caption"))
    depth = max(tree.step)
    if depth < max_len:  # every hypothesis ended before the length limit: a larger L changes nothing
        st.caption(tr("decoding.stopped_early", t=depth, L=max_len, k=k))
    deck.chart(tree_chart(score, scorer_key, k, max_len, alpha, per_parent, language), "beam-tree")
    # the next move of k or α: its chart made once this run has ended
    for width, a in [(near, alpha) for near in neighbours(k, 1, MAX_K, 1)] + [(k, near) for near in neighbours(alpha, *ALPHA_RANGE)]:
        ahead(("decoding_tree", scorer_key, width, max_len, a, per_parent, language),
              partial(tree_chart, score, scorer_key, width, max_len, a, per_parent, language))

    deck.section("nbest")
    st.subheader(tr("decoding.nbest_header"))
    rows = [{tr("decoding.col.rank"): r + 1, tr("decoding.col.output"): _text(h.tokens, vocab),
             tr("decoding.col.length"): len(h.tokens), tr("decoding.col.logprob"): round(h.logprob, 4),
             tr("decoding.col.prob"): math.exp(h.logprob),
             tr("decoding.col.normalised"): round(h.normalised, 4),
             tr("decoding.col.finished"): h.finished} for r, h in enumerate(tree.nbest)]
    deck.table(pd.DataFrame(rows), "n-best", formats={tr("decoding.col.prob"): "{:.4g}"})

    deck.section("length")
    st.subheader(tr("decoding.length_header"))
    st.caption(tr("decoding.length_note"))
    raw_best, best = max(tree.nbest, key=lambda h: h.logprob), tree.best
    left, right = st.columns(2)
    left.metric(tr("decoding.raw_choice"), _text(raw_best.tokens, vocab))
    left.caption(f"log P(y) = {raw_best.logprob:.3f} · |y| = {len(raw_best.tokens)}")
    right.metric(tr("decoding.norm_choice", alpha=f"{alpha:.1f}"), _text(best.tokens, vocab))
    right.caption(f"log P(y) / |y|^α = {best.normalised:.3f} · |y| = {len(best.tokens)}")
    if raw_best.tokens == best.tokens:
        st.caption(tr("decoding.same_choice"))


def sweep_part(score, vocab, end, k: int, max_len: int, alpha: float) -> None:
    """Search error against model error: the best output of each beam width and the true optimum."""
    deck.section("sweep")
    st.subheader(tr("decoding.sweep_header"))
    st.markdown(tr("decoding.sweep_note"))
    widths = list(range(1, max(k, 6) + 1))
    points = beam_width_sweep(score, widths, max_len, end, alpha)
    space = float(len(vocab)) ** max_len
    optimum = exhaustive_optimum(score, max_len, end, alpha) if space <= 1e5 else None
    if optimum is None:
        st.info(tr("decoding.optimum_too_large", size=space))
    else:
        st.markdown(tr("decoding.optimum_result", text=_text(optimum.tokens, vocab), lp=optimum.logprob))
    deck.chart(chart(beam_sweep_figure, points, optimum, vocab, lang(), normalised=alpha > 0), "beam-sweep")
    sweep = pd.DataFrame({tr("decoding.col.beam_width"): [p.beam_width for p in points],
                          tr("decoding.col.output"): [_text(p.best.tokens, vocab) for p in points],
                          tr("decoding.col.found"): [round(p.best.normalised, 4) for p in points]})
    if optimum is not None:
        sweep[tr("decoding.col.optimum")] = round(optimum.normalised, 4)
        sweep[tr("decoding.col.search_error")] = [round(optimum.normalised - p.best.normalised, 4) for p in points]
    deck.table(sweep, "beam-sweep")


def settings_and_parts(part: str | None) -> None:
    """Source, beam width, length limit, α and the open ``part`` (under the bar of parts, drawn before) with
    all that follows from them (a fragment: they rerun this, not the bar of parts or the sidebar); the
    sidebar's teaching tools are drawn after it, by the whole-page run."""
    neural_lm = session_models().pick(current_corpus().key, "lstm", "word", defaults=[TrainConfig()])
    sources = (["textbook", "ngram"] + (["neural"] if neural_lm else [])
               + (["seq2seq"] if shipped_models() else []))
    wanted = query_param("src", "textbook", choices=sources)
    source = st.radio(tr("decoding.source"), sources, format_func=labeller("decoding.source"),
                      index=sources.index(wanted),
                      horizontal=True, key="decoding_source")

    c1, c2, c3, c4 = st.columns(4)
    k = c1.slider(tr("decoding.beam_width"), 1, MAX_K, query_param("k", 2, lo=1, hi=MAX_K), key="decoding_k")
    default_len = {"textbook": 4, "ngram": 10, "neural": 10}.get(source, 12)
    max_len = c2.slider(tr("decoding.max_len"), 1, 20, query_param("L", default_len, lo=1, hi=20), key=f"decoding_L_{source}")
    low, high, step = ALPHA_RANGE
    alpha = c3.slider(tr("decoding.alpha"), low, high, query_param("alpha", 0.7, lo=low, hi=high), step, key="decoding_alpha")
    shown = c4.slider(tr("decoding.pruned_shown"), 0, 5, query_param("pruned", 2, lo=0, hi=5), key="decoding_pruned")
    keep_settings(src=source, k=k, L=max_len, alpha=alpha, pruned=shown)

    if source == "textbook":
        st.info(tr("decoding.textbook_note"))
        score, per_parent, scorer_key = textbook_scorer(), shown, ("textbook",)
    elif source in ("ngram", "neural"):
        corpus = current_corpus()
        if source == "ngram":
            order = st.slider(tr("decoding.order"), 2, 4, query_param("n", 3, lo=2, hi=4), key="decoding_order")
            keep_settings(n=order)
        else:
            st.caption(tr("decoding.neural_note", steps=neural_lm.steps_done, hidden=neural_lm.config.hidden_size))
        prompt = st.text_input(tr("decoding.prompt"), query_param("prompt", "")[:200], help=tr("decoding.prompt_help"),
                               key="decoding_prompt", max_chars=200)
        keep_settings(prompt=prompt)
        words = corpus.vocab.map(tokenize(prompt, corpus.settings.tokenizer, corpus.settings.lowercase))
        if source == "neural":
            score, scorer_key = DistributionScorer(neural_lm, prompt=words), ("neural", neural_lm.key(), tuple(words))
        else:
            score, scorer_key = DistributionScorer(ngram_model(corpus, order), prompt=words), ("ngram", corpus.key, order, tuple(words))
        per_parent = shown
    else:
        tasks = sorted({task for task, _ in shipped_models()})
        task = st.radio(tr("decoding.seq2seq_task"), tasks, format_func=labeller("seq2seq.task"), horizontal=True,
                        index=tasks.index(DEFAULT_TASK) if DEFAULT_TASK in tasks else 0, key="decoding_s2s_task")
        digits = st.text_input(tr("decoding.seq2seq_source"), query_param("x", "40213")[:12], key="decoding_s2s_source",
                               max_chars=12)
        keep_settings(x=digits)
        source_tokens = parse_source(task, digits, 1, 8)
        if source_tokens is None:
            st.error(tr("decoding.seq2seq_bad"))
            st.stop()
        st.caption(tr("decoding.seq2seq_note", target=" ".join(target_of(task, source_tokens))))
        score, per_parent = decoder_scorer(_seq2seq_model(task), source_tokens), shown
        scorer_key = ("seq2seq", task, tuple(source_tokens))
    vocab, end = score.vocab, score.end_id

    tree, greedy = search(scorer_key, k, max_len, alpha, per_parent, score)
    best = tree.best
    st.markdown("- " + tr("decoding.greedy_result", text=_text(greedy.tokens, vocab), prob=math.exp(greedy.logprob),
                          lp=greedy.logprob)
                + "\n- " + tr("decoding.beam_result", k=k, text=_text(best.tokens, vocab), prob=math.exp(best.logprob),
                               lp=best.logprob))
    deck.settings()
    deck.parts({"search": lambda: search_part(score, scorer_key, k, max_len, alpha, per_parent),
                "sweep": lambda: sweep_part(score, vocab, end, k, max_len, alpha)}, open_part=part)


deck.fragment(settings_and_parts, "decoding_settings")(deck.part_bar())
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
