"""LM Lab's engine: corpora, n-gram and neural language models, gradients, decoding and figures.

Pure Python (numpy, torch, plotly); it never imports streamlit, so every function here can be
used from a notebook or a test.
"""
