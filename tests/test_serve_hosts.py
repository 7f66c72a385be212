"""deploy/serve's options for a shared store and several machines (no processes started): replicas on
other hosts join the balancer's config, workers imply the Redis store, an app host needs no balancer."""
import importlib.util
import subprocess
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

SERVE = Path(__file__).resolve().parents[1] / "deploy" / "serve"


@pytest.fixture(scope="module")
def serve():
    loader = SourceFileLoader("lmlab_deploy_serve_hosts", str(SERVE))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def test_remote_replicas_join_the_balancer_after_the_local_ones(serve):
    config = serve.render_config("0.0.0.0:8501", "/tmp/x.sock", [40001], ["198.18.0.12:8601", "198.18.0.13:8601"])
    servers = [line.split() for line in config.splitlines() if line.strip().startswith("server r")]
    assert [(s[1], s[2], s[-1]) for s in servers] == [("r1", "127.0.0.1:40001", "r1"), ("r2", "198.18.0.12:8601", "r2"),
                                                      ("r3", "198.18.0.13:8601", "r3")]


def test_workers_imply_the_redis_store_and_a_balancer_host_may_have_no_replica(serve, monkeypatch):
    monkeypatch.delenv("LMLAB_REDIS_URL", raising=False)
    assert serve.parse_args([]).store == "memory"
    assert serve.parse_args(["--workers", "2"]).store == "redis"
    args = serve.parse_args(["--replicas", "0", "--remote", "198.18.0.12:8601"])
    assert args.replicas == 0 and args.remote == ["198.18.0.12:8601"]
    with pytest.raises(SystemExit):
        serve.parse_args(["--replicas", "0"])  # nothing to serve
    monkeypatch.setenv("LMLAB_REDIS_URL", "redis://198.18.0.20:6379/0")
    assert serve.parse_args([]).store == "redis"  # a store on another machine is used as it is
    assert serve.replica_command(8601, "198.18.0.12")[serve.replica_command(8601, "198.18.0.12").index("--server.address") + 1] == "198.18.0.12"


def test_the_store_keeps_its_data_over_a_restart(serve, tmp_path):
    """deploy/serve's Redis writes an append-only file: a restart (SIGTERM, then the same command)
    keeps a live class's keys (with ``--appendonly no`` they are gone)."""
    import redis

    from tests.live_class_fixtures import REDIS_SERVER, free_port, require_redis_server
    from tests.redis_server import wait_for_ping

    require_redis_server()
    port = free_port()
    command = serve.store_command(REDIS_SERVER, port, tmp_path)
    for step in ("write", "read"):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_ping(process, port)
            client = redis.Redis(port=port, decode_responses=True)
            if step == "write":
                client.hset("lmlab:class:{ABCDE}:meta", mapping={"state": "live"})
            else:
                assert client.hgetall("lmlab:class:{ABCDE}:meta") == {"state": "live"}
            client.close()
        finally:
            process.terminate()  # SIGTERM, as a restart of the service does
            process.wait(30)
