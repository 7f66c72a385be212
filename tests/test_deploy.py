"""deploy/serve: several app processes behind HAProxy with cookie affinity, run for real.

The browser tests start `deploy/serve --replicas 2`, open two students in separate browser contexts
(separate cookies) and drive them through the balancer: upload, a page with charts, a short training
run. Then one replica is killed (SIGKILL) under a student. Skipped with a reason where HAProxy is not
installed, except in CI (CI=true), where .ci/run installs it.
"""
from __future__ import annotations

import csv
import importlib.util
import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from lmcore.i18n import t
from tests.browser_server import screenshot, wait_for_app
from streamlit_process import free_port  # noqa: E402  (bench/, on the path since tests.browser_server)
from server.allocator import JEMALLOC_CONF, server_env
from ui.navigation import PAGES

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "deploy" / "serve"
COMPOSE_CFG = ROOT / "deploy" / "haproxy.compose.cfg"
COOKIE = "lmlab_replica"
APP_PACKAGES = ("app_pages", "server", "ui")  # what streamlit runs: app.py, its pages and its helpers


def _load_serve():
    loader = SourceFileLoader("lmlab_deploy_serve", str(SERVE))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


serve = _load_serve()


def require_haproxy() -> str:
    found = serve.find_haproxy()
    if found is None:
        reason = "deploy tests need HAProxy (apt-get install haproxy)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@dataclass
class Served:
    """A running `deploy/serve`: its process, URL, replica pids by cookie value, run directory."""
    process: subprocess.Popen
    url: str
    run_dir: Path
    replicas: dict[str, int] = field(default_factory=dict)

    def output(self) -> str:
        return (self.run_dir / "serve.out").read_text()

    def server_stats(self) -> dict[str, dict[str, str]]:
        """HAProxy's own view of each replica (status UP/DOWN, scur = open connections), by server name."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.run_dir / "haproxy.sock"))
            s.sendall(b"show stat\n")
            text = s.makefile().read()
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {r["svname"]: r for r in rows if r["pxname"] == "replicas" and r["svname"] in self.replicas}


def start_serve(run_dir: Path, replicas: int) -> Served:
    run_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    out = open(run_dir / "serve.out", "w")
    process = subprocess.Popen([sys.executable, str(SERVE), "--replicas", str(replicas), "--port", str(port),
                                "--host", "127.0.0.1", "--run-dir", str(run_dir)],
                               cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    served = Served(process, f"http://127.0.0.1:{port}", run_dir)
    deadline = time.monotonic() + 300
    while "LM Lab on" not in served.output():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_serve(served)
            raise RuntimeError(f"deploy/serve did not come up:\n{served.output()}")
        time.sleep(0.1)
    served.replicas = {name: int(pid) for name, pid in re.findall(r"replica (r\d+) pid (\d+)", served.output())}
    return served


def stop_serve(served: Served, sig: int = signal.SIGTERM) -> None:
    if served.process.poll() is None:
        os.kill(served.process.pid, sig)
        try:
            served.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(served.process.pid, signal.SIGKILL)
            served.process.wait()


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


HANG_GUARD_S = 600  # a wait that never ends fails here: never a claim about how fast anything is


def wait_until(done, poll, failure) -> float:
    """Call ``poll`` until ``done()``; the monotonic time it was first seen done. Fails with
    ``failure()`` only after HANG_GUARD_S (a test that would otherwise hang)."""
    give_up = time.monotonic() + HANG_GUARD_S
    while not done():
        assert time.monotonic() < give_up, failure()
        poll()
    return time.monotonic()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# ------------------------------------------------------------------ config and command, no browser

def test_config_from_the_template_is_accepted_by_haproxy(tmp_path):
    haproxy = require_haproxy()
    config = tmp_path / "haproxy.cfg"
    config.write_text(serve.render_config("127.0.0.1:8501", str(tmp_path / "sock"), [40001, 40002, 40003]))
    check = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    text = config.read_text()
    assert re.search(rf"^\s*cookie {COOKIE} insert indirect nocache", text, re.M)
    assert re.findall(r"^\s*server (r\d) 127\.0\.0\.1:(\d+) cookie (r\d)$", text, re.M) == [
        ("r1", "40001", "r1"), ("r2", "40002", "r2"), ("r3", "40003", "r3")]
    assert not re.search(r"^\s*balance\s+source", text, re.M)  # one NAT address = one replica: never hash addresses


def test_compose_config_is_valid_and_matches_the_template(tmp_path):
    """The compose config differs from the template only in how it finds the replicas."""
    haproxy = require_haproxy()
    check = subprocess.run([haproxy, "-c", "-f", str(COMPOSE_CFG)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr

    def directives(text: str) -> set[str]:
        lines = {re.sub(r"\s+", " ", line.split("#")[0]).strip() for line in text.splitlines()}
        return {line for line in lines if line and not line.startswith(("server", "bind", "stats socket", "$"))}

    compose = directives(COMPOSE_CFG.read_text())
    missing = [d for d in directives((ROOT / "deploy" / "haproxy.cfg.in").read_text())
               if not any(c == d or c.startswith(d + " ") for c in compose)]  # compose may add e.g. "dynamic"
    assert missing == []


def test_replicas_share_one_server_s_memory_budget_and_training_slots(monkeypatch):
    monkeypatch.setenv("LMLAB_MEMORY_MB", "1000")
    monkeypatch.setenv("LMLAB_TRAINING_SLOTS", "6")
    env = serve.replica_env(3)
    assert (env["LMLAB_MEMORY_MB"], env["LMLAB_TRAINING_SLOTS"]) == ("333", "2")
    monkeypatch.setenv("LMLAB_TRAINING_SLOTS", "1")
    assert serve.replica_env(4)["LMLAB_TRAINING_SLOTS"] == "1"  # every replica can train


def test_replicas_start_with_the_server_allocator_setting_unless_the_caller_set_one(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert serve.replica_env(2)["MALLOC_ARENA_MAX"] == "2"
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert serve.replica_env(2)["MALLOC_ARENA_MAX"] == "4"
    from server import allocator as memory

    monkeypatch.setattr(memory, "jemalloc_path", lambda: "/lib/libjemalloc.so.2")
    for name in ("LD_PRELOAD", "PYTHONMALLOC", "MALLOC_CONF"):
        monkeypatch.delenv(name, raising=False)
    assert serve.replica_env(2)["LD_PRELOAD"] == "/lib/libjemalloc.so.2"
    monkeypatch.setenv("PYTHONMALLOC", "pymalloc")
    assert "LD_PRELOAD" not in serve.replica_env(2)
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "libjemalloc2" in dockerfile
    for name, value in {**server_env({}), "LD_PRELOAD": "libjemalloc.so.2", "PYTHONMALLOC": "malloc",
                        "MALLOC_CONF": JEMALLOC_CONF}.items():
        assert f"{name}={value}" in dockerfile


def test_container_recipe_copies_what_the_app_imports():
    """deploy/Dockerfile copies an explicit list: every top-level package of this repository that the
    app imports (and the samples, the Streamlit config) must be on it; the replica flags match serve's."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\S+) ", dockerfile, re.M))
    local = {p.name for p in ROOT.iterdir() if p.is_dir() and any(p.glob("*.py"))} - {"tests", "bench", "deploy"}
    sources = [ROOT / "app.py", *(f for package in APP_PACKAGES for f in (ROOT / package).rglob("*.py"))]
    imported = {m for f in sources for m in re.findall(r"^\s*(?:from|import) (\w+)", f.read_text(), re.M)}
    assert {"lmcore", "server", "ui"} <= imported & local  # what the app's code is known to import
    assert (imported & local) | {*APP_PACKAGES, "assets", ".streamlit", "app.py"} <= copied
    flags = " ".join(serve.replica_command(8501)[3:])
    for flag in re.findall(r"--(?!server\.(?:port|address))[\w.]+ \S+", flags):
        assert '"{}", "{}"'.format(*flag.split()) in dockerfile, flag


def test_serve_is_an_executable_command():
    assert os.access(SERVE, os.X_OK)
    result = subprocess.run([str(SERVE), "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0 and "--replicas" in result.stdout and "--port" in result.stdout


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
def test_a_signal_stops_every_process(tmp_path, how):
    require_haproxy()
    served = start_serve(tmp_path / "run", replicas=2)
    children = _descendants(served.process.pid)
    assert set(served.replicas.values()) <= children and len(children) >= 3  # 2 replicas + haproxy
    port = int(served.url.rsplit(":", 1)[1])
    if how == "SIGTERM":
        os.kill(served.process.pid, signal.SIGTERM)
    else:  # a terminal sends SIGINT to the whole foreground process group
        os.killpg(served.process.pid, signal.SIGINT)
    assert served.process.wait(60) == 0, served.output()
    assert [pid for pid in children if _alive(pid)] == []
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0
    assert "stopped" in served.output()


# ------------------------------------------------------------------ two students in Chromium


@pytest.fixture
def served(tmp_path):
    require_haproxy()
    served = start_serve(tmp_path / "run", replicas=2)
    yield served
    stop_serve(served)


def _text(name: str) -> str:
    lines = [f"Student {name} writes sentence {i} about the {w} near the old {v} ." for i in range(240)
             for w, v in [(("river", "mill", "school", "garden")[i % 4], ("bridge", "road", "tower")[i % 3])]]
    return "\n".join(lines) + "\n"


class Student:
    """One browser context (its own cookies) on the balancer's URL; records failed HTTP responses."""

    def __init__(self, browser, url: str, name: str, tmp_path: Path, path: str = "") -> None:
        self.name, self.tmp_path = name, tmp_path
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        self.page = self.context.new_page()
        self.failed: list[str] = []
        self.socket_closes = 0
        self.page.on("response", self._response)
        self.page.on("websocket", lambda ws: ws.on("close", lambda _: self._closed()))
        self.page.goto(f"{url}/{path}?lang=en")
        self.stem = next((stem for stem, url_path, _ in PAGES if url_path == path), "home")
        wait_for_app(self.page)

    def _response(self, response) -> None:
        # On a deep link the frontend first probes <page>/_stcore/health and host-config (404), then /_stcore/.
        probe = response.status == 404 and response.url.endswith(("/_stcore/health", "/_stcore/host-config"))
        if response.status >= 400 and not probe:
            self.failed.append(f"{response.status} {response.url}")

    def _closed(self) -> None:
        self.socket_closes += 1

    def replica(self) -> str:
        return next(c["value"] for c in self.context.cookies() if c["name"] == COOKIE)

    def exceptions(self) -> list[str]:
        return [e.inner_text()[:2000] for e in self.page.locator("[data-testid='stException']").all()]

    def sidebar(self):
        return self.page.locator("[data-testid='stSidebar']")

    def move_to_minimum(self, key: str, tries: int = 5) -> None:
        """Press Home on slider ``key`` (in the training form: no run follows until Train) until it shows
        its minimum. A redraw of the page between the focus and the key press (a status fragment, on a
        busy machine) loses the press: press again."""
        slider = self.page.locator(f".st-key-{key}").get_by_role("slider")
        for _ in range(tries):
            slider.focus()
            self.page.keyboard.press("Home")
            if slider.get_attribute("aria-valuenow") == slider.get_attribute("aria-valuemin"):
                break
            self.page.wait_for_timeout(200)
        assert slider.get_attribute("aria-valuenow") == slider.get_attribute("aria-valuemin"), key

    def go(self, stem: str) -> None:
        """Click page ``stem`` in the sidebar. Another page: wait for its heading, then for it to settle.
        The same page again: nothing on it shows that a new run has begun (and a run under way, such
        as a reconnected session's first, may take the click), so the caller waits for what the
        click must show."""
        heading = self.page.get_by_role("heading", name=t("app.title" if stem == "home" else f"nav.{stem}", "en")).first
        self.page.locator("[data-testid='stSidebarNav']").get_by_text(t(f"nav.{stem}", "en"), exact=True).click()
        if stem != self.stem:
            heading.wait_for(timeout=120_000)
        self.stem = stem
        wait_for_app(self.page)

    def upload(self) -> str:
        path = self.tmp_path / f"{self.name}.txt"
        path.write_text(_text(self.name))
        self.sidebar().locator("input[type='file']").set_input_files(str(path))
        label = t("sidebar.sample.upload", "en", name=path.name)
        self.sidebar().get_by_text(label).wait_for(timeout=120_000)
        wait_for_app(self.page)
        return label

    def train_briefly(self) -> None:
        """The LSTM page's Train button with the smallest model and step count; a chart must come back
        (directly, or after a progress/queue indicator) inside the training expander."""
        self.go("lstm")
        expander = self.page.locator("[data-testid='stExpander']").filter(has=self.page.locator(".st-key-lstm_train"))
        charts = expander.locator("[data-testid='stPlotlyChart']")
        assert charts.count() == 0  # nothing trained yet on this upload
        for key in ("lstm_steps", "lstm_hidden"):  # in the form: the values go with Train's submit
            self.move_to_minimum(key)
        self.page.locator(".st-key-lstm_train button").click()
        charts.first.wait_for(timeout=300_000)
        wait_for_app(self.page, timeout=300_000)

    def close(self) -> None:
        self.context.close()


@pytest.mark.browser
def test_two_students_on_two_replicas_then_one_replica_dies(browser, served, tmp_path):
    """Two students (own cookies) open a deep link, upload and see a page with charts, each on its own
    replica; the one whose replica will survive trains briefly there (the other replica's scheduler is
    the same code, and training twice cost the suite 10-20 s). Then SIGKILL the replica under the
    other: HAProxy marks it DOWN, the first student notices nothing, and the one who was on it
    reconnects to the other replica; the next click shows a fresh session (built-in sample, no
    upload): no hang. How long each took is printed, never bounded (a busy machine is slower)."""
    from playwright.sync_api import expect

    students, labels = [], {}
    for name in ("ada", "bo"):  # one after the other, as students arrive, each the first on a replica
        student = Student(browser, served.url, name, tmp_path, path="corpus-stats")
        students.append(student)
        assert student.page.get_by_text("Page not found").count() == 0  # deploy/serve ran each replica once
        labels[name] = student.upload()
        student.go("corpus")
        assert student.sidebar().get_by_text(labels[name]).is_visible()
        student.page.get_by_role("tab", name=t("parts.corpus.laws", "en")).click()  # the page's charts' tab
        student.page.locator("[data-testid='stMain'] [data-testid='stPlotlyChart']").first.wait_for(timeout=120_000)
        wait_for_app(student.page)
    ada, bo = students
    assert {ada.replica(), bo.replica()} == {"r1", "r2"}
    stats = served.server_stats()
    assert all(int(stats[r]["scur"]) >= 1 for r in ("r1", "r2")), stats  # each replica holds a websocket
    ada.train_briefly()
    screenshot(ada.page, "deploy-trained-ada")
    for student, other in ((ada, bo), (bo, ada)):
        assert student.exceptions() == []
        assert student.sidebar().get_by_text(labels[student.name]).is_visible()
        assert student.sidebar().get_by_text(f"{other.name}.txt").count() == 0
    assert ada.failed == [] and bo.failed == []
    assert ada.socket_closes == 0 and bo.socket_closes == 0

    victim, survivor = bo.replica(), ada.replica()
    os.kill(served.replicas[victim], signal.SIGKILL)
    killed = time.monotonic()
    down = wait_until(lambda: served.server_stats()[victim]["status"] == "DOWN", lambda: time.sleep(0.2),
                      lambda: f"HAProxy never marked {victim} DOWN: "
                      f"{ {name: row['status'] for name, row in served.server_stats().items()} }")
    connected = bo.page.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    moved = wait_until(lambda: bool(bo.socket_closes and bo.replica() == survivor and connected.count()),
                       lambda: bo.page.wait_for_timeout(200),  # Playwright delivers the page's events meanwhile
                       lambda: f"{bo.name} never reconnected to {survivor}: {bo.socket_closes} closes, on {bo.replica()}")
    print(f"failover: {victim} DOWN {down - killed:.1f} s after SIGKILL, {bo.name} on {survivor} after {moved - killed:.1f} s")
    bo.go("corpus")  # the next click runs on a fresh session (a busy survivor may take a while to show it):
    expect(bo.sidebar().get_by_text(labels["bo"])).to_have_count(0, timeout=120_000)
    expect(bo.sidebar().get_by_text(t("sidebar.sample.english", "en"))).to_be_visible()
    wait_for_app(bo.page)
    screenshot(bo.page, "deploy-after-failover")
    assert bo.exceptions() == []

    ada.go("home")
    assert ada.socket_closes == 0 and ada.failed == [] and ada.exceptions() == []
    assert ada.sidebar().get_by_text(labels["ada"]).is_visible()
    assert f"replica {victim} exited" in served.output()
    for student in students:
        student.close()


def test_a_failed_jemalloc_install_is_reported_and_the_class_still_starts(monkeypatch, capsys):
    from server import allocator as memory

    def failing_install(package):
        raise subprocess.CalledProcessError(100, ["apt-get", "install", package])

    monkeypatch.setattr(memory, "jemalloc_path", lambda: None)
    monkeypatch.setattr(serve, "apt_install", failing_install)
    serve.ensure_jemalloc()  # returns: the replicas run on glibc's allocator
    out = capsys.readouterr().out
    assert "installing libjemalloc2 failed" in out and "will keep more memory" in out
