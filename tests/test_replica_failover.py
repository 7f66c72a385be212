"""Nothing lost when a replica dies: two app processes share only Redis (LMLAB_REDIS_URL). The first
uploads a text and trains a model for a browser, then is killed (SIGKILL: nothing is flushed on the
way out); a new session of the same browser in the second finds the same corpus, under its own name,
with a notice, and the same model. Another browser finds neither."""
import json
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

from tests.redis_server import redis_url  # noqa: F401 - a fixture

PROBE = str(Path(__file__).resolve().parent / "replica_probe.py")


def _env(url: str) -> dict:
    return {**os.environ, "LMLAB_REDIS_URL": url, "TORCH_NUM_THREADS": "1"}


def test_upload_and_model_survive_the_replica_that_made_them(redis_url):  # noqa: F811
    owner = "browser-" + secrets.token_hex(8)
    first = subprocess.Popen([sys.executable, PROBE, "make", owner], env=_env(redis_url), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        line = first.stdout.readline()  # blocks until the replica has made both (or died)
        assert line.strip() == "ready", f"the first replica ended: {first.wait(30)}"
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(30)

    def look(who: str) -> dict:
        done = subprocess.run([sys.executable, PROBE, "look", who], env=_env(redis_url), capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    seen = look(owner)
    assert seen["exceptions"] == 0
    assert (seen["source"], seen["corpus"]) == ("upload", "ferry_log.txt")
    assert seen["model_steps"] == 3  # the model trained on the dead replica
    stranger = look("browser-" + secrets.token_hex(8))
    assert (stranger["source"], stranger["model_steps"]) == ("english", None)
