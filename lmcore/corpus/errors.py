"""The one error type of the corpus pipeline: its message is a catalogue key, so the UI can translate it."""
from __future__ import annotations


class CorpusError(ValueError):
    """Bad input text. ``key`` names a catalogue string (``lmcore.strings.corpus``), ``fields`` fill it.

    >>> raise CorpusError("error.empty")  # doctest: +SKIP
    """

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(f"{key} {fields}" if fields else key)
        self.key = key
        self.fields = fields

    def message(self, lang: str = "en") -> str:
        """The translated, user-facing explanation."""
        from lmcore.i18n import t

        return t(self.key, lang, **self.fields)
