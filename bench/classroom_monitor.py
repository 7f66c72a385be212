"""Server memory and CPU during the load test, sampled by a thread (psutil) every 0.25 s.

RSS is summed over the given server processes and their children. CPU seconds are kept per pid
(the last value seen), so processes that end during the test (a browser context's renderer) still
count: the server's, this client's own, and every other descendant of this client (Chromium and
Playwright's driver) are reported apart, as average cores busy over the test.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import psutil

MB = 2**20


def wait_at_rest(cpu_seconds: Callable[[], float], at_least: float, quiet: float = 2.0, idle_cores: float = 0.05,
                 cap: float = 90.0) -> float:
    """Wait ``at_least`` seconds, then until the server used under ``idle_cores`` of CPU (``cpu_seconds``:
    its CPU time so far) for ``quiet`` seconds, at most ``cap`` in all; the seconds waited."""
    start = time.monotonic()
    time.sleep(at_least)
    while time.monotonic() - start < cap:
        before = cpu_seconds()
        time.sleep(quiet)
        if cpu_seconds() - before < idle_cores * quiet:
            break
    return time.monotonic() - start


class Monitor:
    def __init__(self, server_pids: list[int], period: float = 0.25) -> None:
        self.servers = [psutil.Process(p) for p in server_pids]
        self.period = period
        self.marks: dict[str, int] = {}
        self.apart: dict[str, tuple[int, int]] = {}
        self.peak = 0
        self.server_seconds: list[float] = []  # cores the server used in each second of the test
        self.cpu = {"server": {}, "client": {}, "browser": {}}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._me = psutil.Process(os.getpid())
        self._cpu0 = self._cpu_seconds()

    def _server_tree(self) -> list[psutil.Process]:
        tree = []
        for process in self.servers:
            try:
                tree += [process, *process.children(recursive=True)]
            except psutil.NoSuchProcess:
                pass
        return tree

    def rss(self) -> int:
        return sum(self.rss_apart())

    def rss_apart(self) -> tuple[int, int]:
        """(RSS of the server processes, RSS of their children: the corpus workers)."""
        own, children = 0, 0
        for process in self._server_tree():
            try:
                if process in self.servers:
                    own += process.memory_info().rss
                else:
                    children += process.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        return own, children

    def _sample_cpu(self) -> None:
        server = {p.pid for p in self._server_tree()}
        groups = [("server", p) for p in self._server_tree()] + [("client", self._me)]
        try:
            groups += [("browser", p) for p in self._me.children(recursive=True) if p.pid not in server]
        except psutil.NoSuchProcess:
            pass
        for group, process in groups:
            try:
                times = process.cpu_times()
                self.cpu[group][process.pid] = times.user + times.system
            except psutil.NoSuchProcess:
                pass

    def _cpu_seconds(self) -> dict[str, float]:
        self._sample_cpu()
        return {group: sum(values.values()) for group, values in self.cpu.items()}

    def _loop(self) -> None:
        last, last_t, n = None, time.monotonic(), 0
        while not self._stop.wait(self.period):
            self.peak = max(self.peak, self.rss())
            self._sample_cpu()
            n += 1
            if n % 4 == 0 and "closed" not in self.marks:  # the server's cores busy, second by second
                now, used = time.monotonic(), sum(self.cpu["server"].values())
                if last is not None:
                    self.server_seconds.append((used - last) / (now - last_t))
                last, last_t = used, now

    def wait_at_rest(self, at_least: float) -> float:
        """:func:`wait_at_rest` on the server's CPU time; the seconds waited."""
        return wait_at_rest(self._server_cpu, at_least)

    def _server_cpu(self) -> float:
        self._sample_cpu()
        return sum(self.cpu["server"].values())

    def mark(self, name: str) -> None:
        """Note the RSS now; at "closed" (every student gone) also close the CPU accounting window."""
        self.apart[name] = self.rss_apart()
        self.marks[name] = sum(self.apart[name])
        self.peak = max(self.peak, self.marks[name])
        if name == "closed":
            self._cpu1 = self._cpu_seconds()
            self._t1 = time.monotonic()
            self._load1, self._busy1 = os.getloadavg()[0], self._machine_busy()

    @staticmethod
    def _machine_busy() -> float:
        times = psutil.cpu_times()
        return sum(times) - times.idle - getattr(times, "iowait", 0.0)

    def start(self) -> None:
        self._load0, self._busy0 = os.getloadavg()[0], self._machine_busy()
        self._cpu0 = self._cpu_seconds()
        self._t0 = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def report(self, elapsed: float) -> list[tuple[str, str]]:
        pre, final = self.marks["pre"], self.marks["final"]
        lines = [("rss_pre_mb", f"{pre / MB:.0f}"), ("rss_peak_mb", f"{self.peak / MB:.0f}"),
                 ("rss_at_close_mb", f"{self.marks['closed'] / MB:.0f}"), ("rss_final_mb", f"{final / MB:.0f}"),
                 ("rss_final_vs_pre", f"{final / pre:.2f}")]
        for mark in ("pre", "final"):  # where it is: the server process itself, or its corpus workers
            own, children = self.apart[mark]
            lines.append((f"rss_{mark}_server_workers_mb", f"{own / MB:.0f} {children / MB:.0f}"))
        wall = self._t1 - self._t0
        for group in ("server", "client", "browser"):
            used = self._cpu1[group] - self._cpu0[group]
            lines.append((f"cpu_{group}_cores_avg", f"{used / wall:.2f}"))
            if group == "server" and self.server_seconds:
                busy = sorted(self.server_seconds)
                lines.append(("cpu_server_cores_per_second_p95_max",
                              f"{busy[int(0.95 * (len(busy) - 1))]:.2f} {busy[-1]:.2f}"))
        lines += [("cpu_machine_busy_cores_avg", f"{(self._busy1 - self._busy0) / wall:.2f} of {psutil.cpu_count()}"),
                  ("loadavg_1min_start_end", f"{self._load0:.1f} {self._load1:.1f}")]
        return lines
