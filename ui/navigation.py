"""The page map: (file stem in app_pages/, URL path, navigation section), and each page's parts. No streamlit
import, so tests read it.

The folder is not called ``pages/``: beside ``st.navigation`` that name switches on Streamlit's legacy
page lookup (a deep link equal to a stem would run that file alone, without app.py's sidebar)."""
from lmcore.teaching.course import PARTS as _PARTS

PAGES: list[tuple[str, str, str]] = [
    ("home", "welcome", "basics"),
    ("corpus", "corpus-stats", "basics"),
    ("chain_rule", "perplexity", "counts"),
    ("ngram", "smoothing", "counts"),
    ("rnn_bptt", "rnn-forward-bptt", "neural"),
    ("gradients", "vanishing-gradients", "neural"),
    ("lstm", "lstm-gates", "neural"),
    ("seq2seq", "encoder-decoder", "generation"),
    ("decoding", "beam-search", "generation"),
]

# page stem → its parts, in the bar's order (ui/sections.py: only the open part runs; the first opens first),
# read from the one description of each page (lmcore/teaching/course.py)
PARTS: dict[str, tuple[str, ...]] = _PARTS
