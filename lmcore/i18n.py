"""One catalogue for every visible string, in English and 中文.

Each module in :mod:`lmcore.strings` defines ``STRINGS = {key: (english, chinese)}``; keys are
prefixed by the page or module that owns them (``corpus.title``, ``ngram.sum_row``...). Strings may
hold ``str.format`` fields, filled by keyword arguments of :func:`t`.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from lmcore import strings

LANGUAGES: tuple[str, ...] = ("en", "zh")
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh": "中文"}  # each language in itself, for choosing one


@lru_cache(maxsize=1)
def catalogue() -> dict[str, tuple[str, str]]:
    """All strings of every module in :mod:`lmcore.strings`; a key defined twice is an error."""
    merged: dict[str, tuple[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(strings.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{strings.__name__}.{info.name}")
        for key, pair in module.STRINGS.items():
            if key in merged:
                raise KeyError(f"string key {key!r} defined twice (in {info.name})")
            merged[key] = pair
    return merged


def t(key: str, lang: str = "en", **fields: object) -> str:
    """The string ``key`` in language ``lang`` ("en" or "zh"), formatted with ``fields``."""
    en, zh = catalogue()[key]
    text = zh if lang == "zh" else en
    return text.format(**fields) if fields else text


def language_from_locale(locale: str | None) -> str:
    """'zh' for a Chinese browser locale (zh, zh-CN, zh-TW...), else 'en'."""
    return "zh" if locale and locale.lower().startswith("zh") else "en"
