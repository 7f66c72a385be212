"""String tables for :mod:`lmcore.i18n`: one module per page or topic, ``STRINGS = {key: (en, zh)}``."""
