"""Conditional LMs & the bottleneck: an LSTM encoder-decoder with and without attention.

Opens at once: every task ships its models and their bottleneck curves (assets/seq2seq); a model
trained here is measured in its background run. The example and the beam search are fragments:
their controls rerun and resend their own section only.
"""
import math

import numpy as np
import pandas as pd
import streamlit as st

from lmcore.decoding import beam_search
from lmcore.figures.seq2seq import attention_heatmap, length_curves
from lmcore.seq2seq.attention import ATTENTIONS
from lmcore.seq2seq.evaluation import evaluate_by_length, greedy_outputs
from lmcore.seq2seq.model import Seq2Seq, content_digest
from lmcore.seq2seq.pretrained import DEFAULT_TASK, EVAL_N, pretrained, shipped_evaluation
from lmcore.seq2seq.scoring import Factorisation, decoder_scorer, factorisation_latex, factorise
from lmcore.seq2seq.tasks import MAX_SOURCE_LEN, TASKS, parse_source, sample_pairs, target_of
from lmcore.seq2seq.training import Seq2SeqRecipe
from lmcore.seq2seq.vocab import EOS_ID, decode
from server.owner import owner_id
from server.training import start_seq2seq_training, trained_seq2seq
from ui.job_status import job_status
from ui import teaching
from ui.charts import chart, hidden_chart
from ui.state import keep_settings, labeller, lang, query_param, tr
from ui.formula_element import formula


@st.cache_resource(show_spinner=False)
def _shipped(task: str, variant: str):
    """The shipped model with its recipe and bottleneck curve (read-only, shared), or None."""
    found = pretrained(task, variant)
    return None if found is None else (*found, shipped_evaluation(task, variant, EVAL_N))


def _models(task: str) -> dict:
    """variant → (model, recipe, curve, shipped): this browser's own trained model, else the shipped one."""
    found = {}
    for variant in ATTENTIONS:
        trained = trained_seq2seq(owner_id(), task, variant)
        shipped = _shipped(task, variant)
        if trained is not None:
            found[variant] = (*trained, False)
        elif shipped is not None:
            found[variant] = (*shipped, True)
    return found


@st.cache_data(show_spinner=False, max_entries=16)
def _measure(task: str, variant: str, _model, recipe: Seq2SeqRecipe):
    return evaluate_by_length(_model, task, range(recipe.min_len, recipe.max_len + 1), EVAL_N)


def _max_steps(source: tuple) -> int:
    """The longest output decoded for a source: 2·|x| + 4 tokens."""
    return 2 * len(source) + 4


# What a model makes of one example, once per model content (content_digest) and source: a class on
# the shipped models, or a student switching between them, computes each once (~15 ms a run).
@st.cache_data(show_spinner=False, max_entries=256, hash_funcs={Seq2Seq: content_digest})
def _example(model: Seq2Seq, source: tuple, target: tuple) -> tuple[list[str], Factorisation]:
    """The greedy output and the chain-rule factors of the target."""
    return greedy_outputs(model, [list(source)], _max_steps(source))[0], factorise(model, list(source), list(target))


@st.cache_data(show_spinner=False, max_entries=256, hash_funcs={Seq2Seq: content_digest})
def _beam(model: Seq2Seq, source: tuple, k: int):
    """Beam search of width ``k``, every hypothesis kept."""
    return beam_search(decoder_scorer(model, list(source)), k, _max_steps(source), end_id=EOS_ID, pruned_per_parent=0)


def _new_example(task: str, lo: int, hi: int) -> None:
    rng = np.random.default_rng()
    source, _ = sample_pairs(task, 1, range(lo, hi + 1), rng, heldout=True)[0]
    st.session_state[f"seq2seq_source_{task}"] = "".join(source)


def models_section(task: str) -> dict:
    """The run's status first (a run that just ended is listed as trained), then the models, then the form."""
    job = job_status("seq2seq", describe=lambda j: tr("seq2seq.training", step=j.status.step,
                                                       total=j.status.total_steps, loss=j.status.train_loss))
    if job is not None and job.state == "done" and job.params.get("task") == task:
        st.success(tr("seq2seq.train_done", seconds=job.elapsed))
    with st.spinner(tr("seq2seq.loading")):
        models = _models(task)
    for variant in ATTENTIONS:
        name = tr(f"seq2seq.variant.{variant}")
        if variant in models:
            _, recipe, _, shipped = models[variant]
            st.markdown("- " + tr("seq2seq.shipped" if shipped else "seq2seq.trained_here", variant=name,
                                  lo=recipe.min_len, hi=recipe.max_len, steps=recipe.steps))
        else:
            st.markdown("- " + tr("seq2seq.missing", variant=name))
    with st.expander(tr("seq2seq.train_header"), expanded=not models):
        with st.form(f"seq2seq_train_form_{task}", border=False):
            c1, c2, c3 = st.columns(3)
            variant = c1.selectbox(tr("seq2seq.train_variant"), ATTENTIONS, format_func=labeller("seq2seq.variant"),
                                   key="seq2seq_train_variant")
            longest = c2.slider(tr("seq2seq.train_max_len"), 3, MAX_SOURCE_LEN[task], min(10, MAX_SOURCE_LEN[task]),
                                key=f"seq2seq_train_len_{task}")
            steps = c3.slider(tr("seq2seq.train_steps"), 200, 3000, 1200, 100, key="seq2seq_train_steps")
            if st.form_submit_button(tr("seq2seq.train_button"), key="seq2seq_train"):
                if start_seq2seq_training(task, variant, Seq2SeqRecipe(task, 2, longest, steps=steps, report_every=25)):
                    st.rerun()  # show the run's progress above the list
    return models


def bottleneck_section(task: str, models: dict) -> None:
    deck.section("bottleneck")
    st.subheader(tr("seq2seq.bottleneck_header"))
    st.markdown(tr("seq2seq.bottleneck_note", n=EVAL_N))
    results = {}
    for variant, (model, recipe, curve, _shipped) in models.items():
        if curve is None:  # a shipped file without its measured curve (rerun make_pretrained.py --eval-only)
            with st.spinner(tr("seq2seq.measuring", variant=tr(f"seq2seq.variant.{variant}"))):
                curve = _measure(task, variant, model, recipe)
        results[variant] = curve
    left, right = st.columns(2)
    deck.chart(chart(length_curves, results, "accuracy", lang()), "accuracy-by-length", left, key="seq2seq_accuracy")
    deck.chart(chart(length_curves, results, "token_loglik", lang()), "loglik-by-length", right, key="seq2seq_loglik")
    table = pd.DataFrame({tr(f"seq2seq.variant.{v}"): {r.length: round(r.accuracy, 3) for r in rows}
                          for v, rows in results.items()})
    deck.table(table.rename_axis(tr("seq2seq.table.length")).reset_index(), "accuracy-by-length")


def example_section(task: str, models: dict) -> None:
    """One example (a fragment in normal view: its controls rerun only it), then its beam search."""
    st.subheader(tr("seq2seq.example_header"))
    variants = list(models)
    default_variant = query_param("model", "dot" if "dot" in models else variants[0], choices=variants)
    variant = st.radio(tr("seq2seq.variant"), variants, index=variants.index(default_variant),
                       format_func=labeller("seq2seq.variant"), horizontal=True, key="seq2seq_variant", persist_state="page")
    model, recipe = models[variant][:2]
    lo, hi = recipe.min_len, recipe.max_len
    key = f"seq2seq_source_{task}"
    if key not in st.session_state:
        st.session_state[key] = "".join(sample_pairs(task, 1, [hi], np.random.default_rng(7), heldout=True)[0][0])
    st.button(tr("seq2seq.new_example"), on_click=_new_example, args=(task, lo, hi), key="seq2seq_new")
    text = st.text_input(tr("seq2seq.source"), key=key, persist_state="page", help=tr("seq2seq.source_help", lo=lo, hi=hi),
                         max_chars=40)
    keep_settings(model=variant)
    source = parse_source(task, text, lo, hi)
    if source is None:
        extra = tr("seq2seq.no_leading_zero") if task == "translate" else ""
        st.error(tr("seq2seq.bad_source", lo=lo, hi=hi, extra=extra))
        return
    target = target_of(task, source)
    output, fact = _example(model, tuple(source), tuple(target))
    c1, c2 = st.columns(2)
    c1.markdown(f"**{tr('seq2seq.expected')}**  \n`{' '.join(target)}`")
    c2.markdown(f"**{tr('seq2seq.greedy')}**  \n`{' '.join(output) or '∅'}`")
    c2.markdown(tr("seq2seq.match_line") if output == target else tr("seq2seq.mismatch_line"))  # icons, no emoji font

    st.markdown("**" + tr("seq2seq.factorisation_header") + "**")
    formula(factorisation_latex(fact))
    deck.table(pd.DataFrame({tr("seq2seq.factor_table.step"): range(1, len(fact.target) + 1),
                             tr("seq2seq.factor_table.token"): fact.target,
                             tr("seq2seq.factor_table.prob"): [round(p, 4) for p in fact.probs],
                             tr("seq2seq.factor_table.logprob"): [round(math.log(p), 4) for p in fact.probs]}), "factorisation")
    if fact.attention is None:
        hidden_chart("seq2seq_attention")  # where the map is for a model with attention: kept, so no new plot
        st.info(tr("seq2seq.no_attention_map"))
    else:
        weights = np.round(np.asarray(fact.attention, dtype=float), 3)  # three digits: more than the eye sees
        deck.chart(chart(attention_heatmap, weights, source, fact.target, lang()), "attention", key="seq2seq_attention")
    deck.section("beam")
    beam_section(model, tuple(source), tuple(target))


@st.fragment(key="seq2seq_beam")
def beam_section(model, source: tuple, target: tuple) -> None:
    st.subheader(tr("seq2seq.beam_header"))
    k = st.slider(tr("seq2seq.beam_width"), 1, 8, query_param("k", 3, lo=1, hi=8), key="seq2seq_k", persist_state="page")
    keep_settings(k=k)
    tree = _beam(model, source, k)
    deck.table(pd.DataFrame([{tr("seq2seq.col.output"): " ".join(decode(h.tokens)),
                              tr("seq2seq.col.logprob"): round(h.logprob, 4),
                              tr("seq2seq.col.correct"): decode(h.tokens) == list(target)} for h in tree.nbest]), "beam")


deck = teaching.deck("seq2seq")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
st.title(tr("nav.seq2seq"))
deck.section("model")
st.markdown(tr("seq2seq.intro"))
formula(r"P(y \mid x) = \prod_{t=1}^{T} P(y_t \mid y_{<t}, x), \qquad"
         r" c = h^{(m)}_\text{enc} = f_\text{enc}(x_1, \ldots, x_m)")
formula(r"s^{(t)} = f_\text{dec}(s^{(t-1)}, y_{t-1}, c), \qquad"
         r" P(y_t \mid y_{<t}, x) = \text{softmax}(W_o s^{(t)})[y_t]")
formula(r"\text{" + tr("seq2seq.attention_label") + r"} \quad \alpha_{tj} = \text{softmax}_j\, e(s^{(t-1)}, h_j),"
         r" \quad c_t = \sum_j \alpha_{tj} h_j, \quad e = s \cdot h_j \;\text{ " + tr("seq2seq.attention_or") + r" }\; v^\top \tanh(W_q s + W_k h_j)")

task = st.radio(tr("seq2seq.task"), TASKS, index=TASKS.index(query_param("task", DEFAULT_TASK, choices=TASKS)),
                format_func=labeller("seq2seq.task"), horizontal=True, key="seq2seq_task")
keep_settings(task=task)
demo = sample_pairs(task, 1, [5], np.random.default_rng(0), heldout=True)[0]
st.caption(tr("seq2seq.task_example", source=" ".join(demo[0]), target=" ".join(demo[1])))

st.subheader(tr("seq2seq.models_header"))
models = models_section(task)
if not models:
    st.info(tr("seq2seq.no_models", section=tr("seq2seq.train_header")))
    st.stop()


def example_part() -> None:
    deck.section("example")
    deck.fragment(example_section, "seq2seq_example")(task, models)


deck.settings(seq2seq_task=task)  # teaching mode: the questions are on this task's models
deck.parts({"bottleneck": lambda: bottleneck_section(task, models), "example": example_part})
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
