"""One "replica" of the app in its own process, for tests/test_replica_failover.py: it shares nothing
with another probe but the Redis at ``LMLAB_REDIS_URL``.

    python tests/replica_probe.py make OWNER    # upload a text and train a tiny model, print "ready", wait
    python tests/replica_probe.py look OWNER    # a new session of OWNER: print what it finds, as JSON
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from lmcore.training.config import TrainConfig  # noqa: E402

APP = str(ROOT / "app.py")
TEXT = "".join(f"The ferry leaves pier {i % 7} at dawn with {i} crates .\n" for i in range(80)).encode()
CONFIG = TrainConfig(hidden_size=8, embed_dim=8, steps=3, eval_every=3, batch_size=4, bptt=5)


def session(owner: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = "en"
    at.session_state["owner_id"] = owner
    return at.run()


def make(owner: str) -> None:
    at = session(owner)
    at.sidebar.get("file_uploader")[0].set_value(("ferry_log.txt", TEXT, "text/plain")).run()
    corpus = at.session_state["corpus"]
    assert corpus.name == "ferry_log.txt", corpus.name
    from lmcore.training.loop import train_sentences
    from server.models import shipped_models
    from server.owner_models import OwnerModels
    from server.stores import model_store

    lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), list(corpus.vocab.itos), CONFIG, None, corpus.key)
    OwnerModels(model_store(), shipped_models(), owner).put(lm)  # what the training runner does
    print("ready", flush=True)
    time.sleep(600)  # until the test kills this replica


def look(owner: str) -> None:
    at = session(owner)
    at.switch_page("app_pages/corpus.py").run()
    corpus = at.session_state["corpus"]
    from server.models import shipped_models
    from server.owner_models import OwnerModels
    from server.stores import model_store

    mine = OwnerModels(model_store(), shipped_models(), owner).get(corpus.key, CONFIG)
    print(json.dumps({"corpus": corpus.name, "source": at.session_state["source"],
                      "notice": [block.value for block in at.sidebar.info],
                      "exceptions": len(at.exception), "model_steps": None if mine is None else mine.steps_done}))


if __name__ == "__main__":
    {"make": make, "look": look}[sys.argv[1]](sys.argv[2])
