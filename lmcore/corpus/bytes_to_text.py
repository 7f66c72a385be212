"""Bytes → clean Unicode text: encoding detection (charset-normalizer), NFC, control characters."""
from __future__ import annotations

import re
import unicodedata

import charset_normalizer

from lmcore.corpus.errors import CorpusError

MAX_BYTES = 50 * 1024 * 1024
"""Largest accepted upload (50 MB); ``server.maxUploadSize`` in ``.streamlit/config.toml`` matches it."""

ENCODINGS = ("utf_8", "utf_16", "utf_16_le", "utf_16_be", "gb18030", "big5", "cp1252", "latin_1")
"""The encodings we accept (GB18030 is a superset of GBK and GB2312; cp1252 of printable Latin-1)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\ufeff]")
_BINARY_SHARE = 0.02


def decode_bytes(data: bytes) -> tuple[str, str]:
    """Decode ``data`` and name its encoding; raise :class:`CorpusError` for binary or oversize data.

    Valid UTF-8 (with or without BOM) is taken as such; anything else is left to
    charset-normalizer, restricted to :data:`ENCODINGS`.
    """
    if len(data) > MAX_BYTES:
        raise CorpusError("error.too_big", size_mb=round(len(data) / 2**20, 1), limit_mb=MAX_BYTES // 2**20)
    if not data.strip():
        raise CorpusError("error.empty")
    if data.startswith(b"\xef\xbb\xbf"):
        return _check_text(data[3:].decode("utf-8", errors="replace")), "utf-8-sig"
    if not (data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff")):
        try:
            return _check_text(data.decode("utf-8")), "utf-8"
        except UnicodeDecodeError:
            pass
    best = charset_normalizer.from_bytes(data, cp_isolation=list(ENCODINGS)).best()
    if best is None:
        raise CorpusError("error.binary")
    return _check_text(str(best)), best.encoding


def _check_text(text: str) -> str:
    """Reject decoded text that is mostly control characters (a binary file that happened to decode)."""
    sample = text[:200_000]
    controls = len(_CONTROL.findall(sample))
    if "\x00" in sample or controls > _BINARY_SHARE * max(len(sample), 1):
        raise CorpusError("error.binary")
    return text


def clean_text(text: str) -> str:
    """NFC-normalise, unify line ends, strip control characters (keeping tabs and newlines)."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _CONTROL.sub("", text)
