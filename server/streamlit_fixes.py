"""A work-around for a text Streamlit 1.67's frontend draws in English only: the file uploader's
button and limit line ("Upload", "50MB per file • TXT, MD"); in 中文 a style sheet draws the
catalogue's words in their place."""
from __future__ import annotations

import json

def _css_text(text: str) -> str:
    """``text`` as a CSS string literal."""
    return json.dumps(text, ensure_ascii=False)  # CSS strings escape quotes and backslashes as JSON does


def uploader_texts_css(button: str, limits: str) -> str:
    """A style sheet drawing ``button`` and ``limits`` in place of the uploader's own English texts."""
    zone = '.st-key-uploader [data-testid="stFileUploaderDropzone"]'
    return f"""<style>
{zone} button [data-testid="stMarkdownContainer"] p {{ font-size: 0; }}
{zone} button [data-testid="stMarkdownContainer"] p::after {{ content: {_css_text(button)}; font-size: 1rem; }}
{zone} [data-testid="stFileUploaderDropzoneInstructions"] span {{ font-size: 0; }}
{zone} [data-testid="stFileUploaderDropzoneInstructions"] span::after {{ content: {_css_text(limits)}; font-size: 0.875rem; }}
</style>"""
