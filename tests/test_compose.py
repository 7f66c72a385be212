"""deploy/compose.yaml, read as data (there is no Docker daemon here to run it): the store, the
workers and the replicas fit together and match what deploy/serve runs: the worker service runs
deploy/serve's worker command, every service that needs the store has the same LMLAB_REDIS_URL,
naming the store service on the port its redis-server listens on, and the balancer's config
reaches the app service on the port the image serves."""
import importlib.util
import re
from importlib.machinery import SourceFileLoader
from pathlib import Path
from urllib.parse import urlsplit

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is in requirements-dev.txt")

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def _serve():
    loader = SourceFileLoader("lmlab_deploy_serve_compose", str(DEPLOY / "serve"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def services() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]


def test_the_services_are_the_store_the_workers_the_replicas_and_the_balancer(services):
    assert set(services) == {"store", "worker", "app", "balancer"}
    assert services["worker"]["deploy"]["replicas"] >= 1 and services["app"]["deploy"]["replicas"] >= 2
    for name in ("app", "worker"):
        assert "store" in services[name]["depends_on"]
    assert services["store"]["command"][0] == "redis-server"


def test_the_worker_service_runs_deploy_serve_s_worker_command(services):
    command = _serve().worker_command("w1")
    assert services["worker"]["command"] == ["python", *command[1:command.index("--name")]]
    assert services["worker"]["build"] == services["app"]["build"]  # the same image: the same runners


def test_replicas_and_workers_share_one_store_on_its_port(services):
    urls = {name: services[name]["environment"]["LMLAB_REDIS_URL"] for name in ("app", "worker")}
    assert len(set(urls.values())) == 1, urls
    url = urlsplit(urls["app"])
    command = services["store"]["command"]
    port = int(command[command.index("--port") + 1]) if "--port" in command else 6379
    assert url.scheme == "redis" and url.hostname == "store" and (url.port or 6379) == port


def test_the_balancer_reaches_the_app_service_on_the_image_s_port(services):
    config = (DEPLOY / "haproxy.compose.cfg").read_text()
    volume = services["balancer"]["volumes"][0]
    assert volume.startswith("./haproxy.compose.cfg:")
    target = re.search(r"server-template \S+ \S+ (\w+):(\d+)", config)
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert target and target.group(1) == "app" and f'"--server.port", "{target.group(2)}"' in dockerfile
