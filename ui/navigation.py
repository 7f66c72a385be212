"""The page map: (file stem in pages/, URL path, navigation section). No streamlit import, so tests read it.

Every URL path differs from its file's stem: with a folder named pages/ beside st.navigation, a
deep link equal to a stem would run that file alone, without app.py's sidebar (Streamlit 1.67).
"""

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

# page stem → its parts, in tab order (ui/sections.py: only the open part runs; the first opens first)
PARTS: dict[str, tuple[str, ...]] = {
    "corpus": ("preview", "laws", "tokens"),
    "chain_rule": ("chain", "perplexity"),
    "ngram": ("words", "sparsity", "continuation", "sample", "questions"),
    "rnn_bptt": ("step", "topk", "bptt"),
    "gradients": ("curves", "why", "connectivity", "clipping", "run", "questions"),
    "lstm": ("gates", "gradient", "edit", "compare"),
    "seq2seq": ("bottleneck", "example"),
}
