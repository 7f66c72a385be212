"""Corpus: sizes, OOV rates, Zipf's and Heaps' laws, sentence lengths, top tokens, a preview."""
import pandas as pd
import streamlit as st

from lmcore.figures.corpus import heaps_figure, length_histogram, zipf_figure
from server.models import corpus_statistics
from ui import teaching
from ui.charts import chart
from ui.state import current_corpus, keep_settings, lang, query_param, tr

PREVIEW_CHARS = 3000


corpus = current_corpus()
deck = teaching.deck("corpus")  # teaching mode: projector slides, questions, exports (ui/teaching.py)
figures = corpus_statistics(corpus)  # shared; an upload's come from the worker that built it
summary = figures["summary"]

st.title(tr("nav.corpus"))
st.caption(tr("corpus.caption"))
deck.section("sizes")
cells = [*st.columns(4), *st.columns(4)[:3]]  # two rows: a 7-digit count shows whole at projector width
for cell, name in zip(cells, ["characters", "sentences", "tokens", "types", "vocab"]):
    cell.metric(tr(f"corpus.metric.{name}"), f"{summary[name]:,}")
cells[5].metric(tr("corpus.metric.oov_valid"), f"{summary['oov_valid']:.1%}")
cells[6].metric(tr("corpus.metric.oov_test"), f"{summary['oov_test']:.1%}")
st.caption(tr("corpus.split_note", train=summary["train_sentences"], encoding=summary["encoding"]))
found = [tr("corpus.markers.unk", n=corpus.markers["<unk>"])] if corpus.markers.get("<unk>") else []
bounds = corpus.markers.get("<s>", 0) + corpus.markers.get("</s>", 0)
if bounds:
    found.append(tr("corpus.markers.bounds", n=bounds))
if found:
    st.info(" ".join(found))
if corpus.true_entropy is not None:
    import math

    st.info(tr("corpus.floor", h=corpus.true_entropy, ppl=math.exp(corpus.true_entropy)))



def laws_part() -> None:
    """Zipf's and Heaps' laws on this corpus."""
    deck.section("laws")
    left, right = st.columns(2)
    deck.chart(chart(zipf_figure, *figures["zipf"], lang=lang()), "zipf", left)
    deck.chart(chart(heaps_figure, *figures["heaps"], lang=lang()), "heaps", right)


def tokens_part() -> None:
    """Sentence lengths and the most frequent tokens."""
    deck.section("tokens")
    left, right = st.columns(2)
    deck.chart(chart(length_histogram, figures["lengths"], lang=lang()), "sentence-lengths", left)
    with right:
        deck.fragment(top_tokens, "corpus_top_tokens")()


def top_tokens() -> None:
    """The most frequent tokens (a fragment: its slider reruns the table alone, not the page)."""
    st.subheader(tr("corpus.top.header"))
    sizes = [10, 20, 50, 100, 200, 500]
    n_top = st.select_slider(tr("corpus.top.n"), sizes, value=query_param("top", 20, choices=sizes), key="corpus_top",
                             persist_state="page")
    keep_settings(top=n_top)
    table = pd.DataFrame(figures["top"][:n_top], columns=[tr("corpus.top.token"), tr("corpus.top.count"),
                                                          tr("corpus.top.share")])
    table[tr("corpus.top.in_vocab")] = [tok in corpus.vocab for tok in table[tr("corpus.top.token")]]
    deck.table(table, "top-tokens", formats={tr("corpus.top.share"): "{:.2%}"}, max_height=300)


def preview_part() -> None:
    """The text as read and as tokenised (shown as text, never as Markdown)."""
    deck.section("preview")
    st.subheader(tr("corpus.preview.header"))
    st.caption(tr("corpus.preview.text", n=PREVIEW_CHARS))
    st.text(corpus.text[:PREVIEW_CHARS])
    st.caption(tr("corpus.preview.tokens"))
    sample = corpus.mapped("train")[:30]
    deck.table(pd.DataFrame({tr("corpus.preview.sentence"): [" · ".join(s) for s in sample],
                             tr("corpus.preview.length"): [len(s) for s in sample]}), "tokenised", max_height=420)


deck.settings()
deck.parts({"preview": preview_part, "laws": laws_part, "tokens": tokens_part})
deck.tools()  # teaching mode: the sidebar's share link and exercise sheet
