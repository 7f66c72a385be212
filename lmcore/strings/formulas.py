"""Words inside the app's KaTeX formulas (see :func:`lmcore.figures.labels.tex_words`)."""

STRINGS = {
    "tex.if": ("if", "若"),
    "tex.otherwise": ("otherwise", "否则"),
    "tex.threshold": ("threshold", "阈值"),
    "tex.smooth": ("smooth", "平滑"),
}
