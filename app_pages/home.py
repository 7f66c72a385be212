"""Home: what LM Lab is, the map of pages, how to upload."""
import streamlit as st

from lmcore.teaching.course import COURSE, slide_param
from ui.navigation import PAGES
from ui.state import corpus_name, current_corpus, md_text, tr

corpus = current_corpus()
st.title(tr("app.title"))
st.markdown(f"### {tr('app.tagline')}")
st.markdown(tr("home.intro"))
st.info(tr("home.current", name=md_text(corpus_name(corpus)), summary=tr("sidebar.summary", tokens=corpus.n_tokens, types=corpus.n_types, sentences=len(corpus.sentences))))

st.subheader(tr("home.map"))
for stem, _, _ in PAGES[1:]:
    left, right = st.columns([1, 2], vertical_alignment="center")  # room for the longest page name at 1280 px
    left.page_link(f"app_pages/{stem}.py", label=tr(f"nav.{stem}"))
    right.markdown(tr(f"home.map.{stem}"))

st.subheader(tr("teaching.course.home_header"))
st.markdown(tr("teaching.course.home_note"))
first = COURSE[0]
st.page_link(f"app_pages/{first.page}.py", label=tr("teaching.course.start"), icon=":material/slideshow:",
             query_params={"present": "1", "slide": slide_param(first.slides[0])})

st.subheader(tr("home.upload"))
st.markdown(tr("home.upload.body"))
st.caption(tr("home.share"))
