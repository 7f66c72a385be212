"""Every string of the recurrent pages' catalogues is shown somewhere (a dead-code scan of the keys):
a key is used when the code names it, or names a prefix it completes (``tr(f"prefix.{x}")``,
``labeller("prefix")``)."""
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("gradients", "rnn_bptt", "recurrent")


def _code() -> str:
    files = [p for folder in ("lmcore", "ui", "server", "app_pages") for p in (ROOT / folder).rglob("*.py") if "strings" not in p.parts]
    return "\n".join(p.read_text(encoding="utf-8") for p in [*files, ROOT / "app.py"])


@pytest.mark.parametrize("module", MODULES)
def test_every_key_is_used(module):
    code = _code()
    prefixes = set(re.findall(r'f"([a-z_.0-9]+)\.\{', code)) | set(re.findall(r'labeller\("([a-z_.0-9]+)"', code))
    keys = importlib.import_module(f"lmcore.strings.{module}").STRINGS
    unused = [k for k in keys if f'"{k}"' not in code and not any(k.startswith(p + ".") for p in prefixes)]
    assert unused == []
