"""A live class end to end in Chromium: two replicas of the app sharing one Redis, an instructor
(1280×720, projector view) on the first and three students on either (one a phone at 390×844, one
in Chinese). They join, follow a slide change, answer (a bad answer gets a message), the answer is
absent from their pages until the reveal, then each sees it with their own result and the projector
the share correct. Redis stopped: the class says it is paused; Redis back: it carries on.

``LMLAB_LIVE_SCREENSHOTS=<folder>`` saves what each browser shows along the way."""
from __future__ import annotations

import os
import re
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.browser_server import open_page, ROOT, server_stacks, wait_for_app
from tests.live_class_fixtures import RedisServer, require_redis_server

pytestmark = pytest.mark.browser
QUESTION = "q-perplexity.from_probs"
WAIT = 90_000


def _shot(page, name: str) -> None:
    folder = os.environ.get("LMLAB_LIVE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def _replicas(stack: ExitStack, count: int, env: dict, logs: Path) -> tuple[list[str], list[int]]:
    """``count`` servers, each writing to ``logs``/replica-i.log: (their URLs, their process ids)."""
    from streamlit_process import streamlit_process

    urls, pids = [], []
    for i in range(count):
        out = stack.enter_context(open(logs / f"replica-{i}.log", "w"))
        url, process = stack.enter_context(streamlit_process(ROOT, env=env, stdout=out, timeout=120, stop_grace=10))
        urls.append(url)
        pids.append(process.pid)
    return urls, pids


def _opened(page, url: str, pids: list[int], logs: Path) -> None:
    """Open ``url`` (tests/browser_server.open_page); a page that never connects fails with what the
    browser saw and what each server was doing (one run of the suite: the instructor's page waited
    120 s with nothing to go on)."""
    try:
        open_page(page, url)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{server_stacks(pids, sorted(logs.glob('replica-*.log')))}") from None


def _answer_of(redis_url: str, code: str) -> str:
    """The right answer as the server keeps it (students must not see it before the reveal)."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        [key] = list(client.scan_iter(f"*class:{{{code}}}:*:secret"))
        return client.hget(key, "answer")
    finally:
        client.close()


def test_a_live_class_on_two_replicas(browser, tmp_path):
    require_redis_server()
    store = RedisServer(tmp_path, appendonly=True)
    store.start()
    env = dict(os.environ, LMLAB_REDIS_URL=store.url)
    with ExitStack() as stack:
        stack.callback(store.stop)
        (first, second), pids = _replicas(stack, 2, env, tmp_path)
        pages: list = []  # every browser page: closed at the end, after what each shows is saved if a step failed
        stack.callback(lambda: [page.context.close() for page in pages])

        def shots_on_failure(kind, error, trace) -> bool:
            if kind is not None:
                for i, page in enumerate(pages):
                    _shot(page, f"live-failed-{i}")
            return False  # the failure goes on

        stack.push(shots_on_failure)

        # the instructor starts a class from projector view
        teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        pages.append(teacher)
        _opened(teacher, first + "/perplexity?present=1&slide=sentence", pids, tmp_path)
        teacher.locator("[data-testid='stPopover'] button:visible").nth(1).click()  # the slide bar's share popover
        teacher.get_by_role("button", name="Start a live class").click()
        teacher.wait_for_selector(".st-key-lmlab-live-join-panel img", timeout=WAIT)
        code = re.search(r"Live class (\w{5})", teacher.locator(".st-key-lmlab-live-bar").inner_text()).group(1)
        _shot(teacher, "live-teacher-join")
        if teacher.locator("[data-testid='stPopoverBody']:visible").count():  # the share menu, if still open
            teacher.keyboard.press("Escape")
        teacher.locator(".st-key-lmlab-live-bar").get_by_role("button", name="My link").click()
        token = re.search(r"teach=([\w-]+)", teacher.get_by_text("teach=").inner_text()).group(1)
        teacher.keyboard.press("Escape")

        # three students join on either replica
        students = []
        for name, url, view, locale, nickname in [
                ("phone", second, {"width": 390, "height": 844}, "en-US", "<b>Ann</b> **x**"),
                ("laptop", first, {"width": 1280, "height": 720}, "en-US", ""),
                ("zh", second, {"width": 1280, "height": 720}, "zh-CN", "小明")]:
            context = browser.new_context(viewport=view, locale=locale, is_mobile=name == "phone",
                                   has_touch=name == "phone")
            page = context.new_page()
            pages.append(page)
            _opened(page, f"{url}/?class={code.lower()}", pids, tmp_path)
            page.locator(".st-key-lmlab-live-join input").fill(nickname)
            page.locator(".st-key-lmlab-live-join button").click()
            students.append(page)
        for page in students:  # each follows the instructor to the slide shown
            page.wait_for_url(re.compile(r"slide=sentence"), timeout=WAIT)
        phone, laptop, chinese = students
        phone.wait_for_selector(".st-key-lmlab-live-student", timeout=WAIT)
        assert phone.locator(".st-key-lmlab-live-student").get_by_text("You are: <b>Ann</b> **x**").is_visible()
        assert phone.locator(".st-key-lmlab-live-student b, .st-key-lmlab-live-student strong").count() == 1  # the title only
        teacher.wait_for_selector("text=Live class " + code + " · 3 joined", timeout=WAIT)

        # the instructor moves on to a number question: the students follow
        for _ in range(3):  # one click at a time: two clicks inside one run are one move (Streamlit merges them)
            shown = teacher.url
            teacher.locator(".st-key-lmlab-next button").click()
            teacher.wait_for_function("(shown) => location.href !== shown", arg=shown, timeout=WAIT)
            wait_for_app(teacher)
        assert QUESTION in teacher.url
        for page in students:
            page.wait_for_url(re.compile(re.escape(QUESTION)), timeout=WAIT)
            page.wait_for_selector(".st-key-lmlab-live-box input", timeout=WAIT)
        answer = _answer_of(store.url, code)
        for page in students:
            wait_for_app(page)
            html = page.content()
            assert answer not in html and token not in html
        _shot(phone, "live-phone-question")

        # they answer: right, wrong, and a bad answer first
        for page, value in ((phone, answer), (laptop, "1"), (chinese, "abc")):
            page.locator(".st-key-lmlab-live-box input").fill(value)
            page.locator(".st-key-lmlab-live-box button").click()
        chinese.wait_for_selector("text=这不是此题的有效答案", timeout=WAIT)
        chinese.locator(".st-key-lmlab-live-box input").fill("2")
        chinese.locator(".st-key-lmlab-live-box button").click()
        chinese.wait_for_selector("text=揭晓之前可以修改", timeout=WAIT)
        teacher.wait_for_selector("text=3 of 3 answered", timeout=WAIT)
        teacher.wait_for_selector(".st-key-lmlab-live-results .js-plotly-plot .main-svg", timeout=WAIT)
        _shot(teacher, "live-teacher-answers")
        # on the projector (1280×720) the class's answers and Reveal are on the screen, not under the fold
        reveal = teacher.get_by_role("button", name="Reveal to everyone").bounding_box()
        chart = teacher.locator(".st-key-lmlab-live-results .js-plotly-plot").first.bounding_box()
        assert max(reveal["y"] + reveal["height"], chart["y"] + chart["height"]) <= 720, (reveal, chart)
        for page in (laptop, chinese):  # (the phone typed it)
            assert answer not in page.content()
        for page in students:
            box = page.locator(".st-key-lmlab-live-box").inner_text()
            assert not re.search(r"(?m)^(The answer:|答案：)", box), box

        # the reveal reaches everyone, with their own result
        teacher.get_by_role("button", name="Reveal to everyone").click()
        phone.wait_for_selector("text=right!", timeout=WAIT)
        laptop.wait_for_selector("text=not this time", timeout=WAIT)
        chinese.wait_for_selector("text=这次不对", timeout=WAIT)
        teacher.wait_for_selector("text=33% correct", timeout=WAIT)
        _shot(phone, "live-phone-revealed")
        _shot(teacher, "live-teacher-revealed")
        for page in students:
            assert token not in page.content()

        # Redis goes away: paused, nothing raises; back: the class carries on
        store.stop()
        phone.wait_for_selector("text=The class is paused", timeout=WAIT)
        teacher.wait_for_selector("text=The class is paused", timeout=WAIT)
        _shot(phone, "live-phone-paused")
        store.start()
        phone.wait_for_selector("text=The answer:", timeout=WAIT)
        teacher.wait_for_selector("text=33% correct", timeout=WAIT)
        for page in (teacher, *students):
            assert page.locator("[data-testid='stException']").count() == 0
