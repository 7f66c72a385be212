"""Hosts of a multi-host drill as network namespaces on one machine (see deploy/multihost_drill.py):
one namespace per host with its address from 198.18.0.0/15 (no default route: a host reaches only
the others), joined by a bridge inside a namespace of its own (the "switch"), processes started
inside a host, the drill itself moved into the client host (:meth:`Hosts.enter`), a host killed
(every process inside its namespace), and everything removed again, also after a failure
(:meth:`Hosts.remove`). Nothing is added to the machine's own namespace: a new address or link
there is a network change to every program on the machine (Chromium drops its requests in flight
with ``net::ERR_NETWORK_CHANGED``: the browser tests running beside the drill in the suite did)."""
from __future__ import annotations

import ctypes
import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ADDRESSES = {"bal": "198.18.0.11", "app1": "198.18.0.12", "app2": "198.18.0.13", "store": "198.18.0.20",
             "cli": "198.18.0.30"}  # cli: the class's students (the drill process itself)
CLONE_NEWNET = 0x40000000
START_SECONDS = 600  # at most, for a host's processes to be ready


def cannot_run() -> str | None:
    """Why namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is missing"
    for binary in ("redis-server", "haproxy"):
        if shutil.which(binary) is None and not Path(f"/usr/sbin/{binary}").exists():
            return f"{binary} is not installed"
    return None


def _setns(fd: int) -> None:
    if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


class Hosts:
    """The namespaces; :meth:`remove` deletes all of them (idempotent)."""

    def __init__(self) -> None:
        self.tag = "lmx" + secrets.token_hex(2)
        self.switch, self.made = f"{self.tag}-sw", []  # the namespaces made, in order
        self.processes: list[subprocess.Popen] = []
        self.home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)  # the namespace this thread is in now

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def create(self) -> None:
        sw = ("ip", "-n", self.switch)
        sh("ip", "netns", "add", self.switch)
        self.made.append(self.switch)
        sh(*sw, "link", "add", "name", "br0", "type", "bridge")
        sh(*sw, "link", "set", "dev", "br0", "up")
        for host, address in ADDRESSES.items():
            ns = self.ns(host)
            sh("ip", "netns", "add", ns)
            self.made.append(ns)
            sh(*sw, "link", "add", "name", host, "type", "veth", "peer", "name", "eth0", "netns", ns)  # made in the switch
            sh(*sw, "link", "set", "dev", host, "master", "br0")
            sh(*sw, "link", "set", "dev", host, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")

    def enter(self, host: str) -> None:
        """Move this process into ``host``'s namespace (:meth:`leave` moves it back). Linux moves the
        calling thread alone, so this must run before the process starts any thread that uses the
        network (those made after it inherit it)."""
        fd = os.open(f"/run/netns/{self.ns(host)}", os.O_RDONLY)
        try:
            _setns(fd)
        finally:
            os.close(fd)

    def leave(self) -> None:
        """Back into the namespace this object was made in (the machine's own, for the drill)."""
        _setns(self.home)

    def run(self, host: str, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        process = subprocess.Popen(["ip", "netns", "exec", self.ns(host), "env", *(f"{k}={v}" for k, v in env.items()),
                                    *argv], cwd=ROOT, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append(process)
        return process

    def kill_host(self, host: str) -> int:
        """SIGKILL every process inside the host's namespace (this one aside); how many."""
        found = subprocess.run(["ip", "netns", "pids", self.ns(host)], capture_output=True, text=True, timeout=30)
        pids = [int(p) for p in found.stdout.split() if int(p) != os.getpid()]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def remove(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 20
        for process in self.processes:
            try:
                process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        for host in ADDRESSES:  # anything left inside (work horses, replicas' children)
            if self.ns(host) in self.made:
                self.kill_host(host)
        for name in reversed(self.made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
        self.made.clear()


def wait_for(log: Path, pattern: str, process: subprocess.Popen, seconds: float = START_SECONDS) -> re.Match:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace")) if log.exists() else None
        if found:
            return found
        if process.poll() is not None:
            raise RuntimeError(f"{log.name}: exited with {process.returncode}:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.5)
    raise RuntimeError(f"{log.name}: no {pattern!r} within {seconds:.0f} s")


def network_here() -> set[str]:
    """The calling thread's network namespace: its links' names and its addresses."""
    def listed(what: str) -> list[list[str]]:
        out = subprocess.run(["ip", "-o", what], capture_output=True, text=True, timeout=30, check=True).stdout
        return [line.split() for line in out.splitlines() if line.strip()]

    return {f[1].rstrip(":") for f in listed("link")} | {f"{f[1]} {f[3]}" for f in listed("addr")}


def netns_list() -> list[str]:
    """The names of the machine's network namespaces."""
    found = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30)
    return [line.split()[0] for line in found.stdout.splitlines() if line.strip()]
