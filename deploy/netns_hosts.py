"""Hosts of a multi-host drill as network namespaces on one machine (see deploy/multihost_drill.py):
a bridge, one namespace per host with its address from 198.18.0.0/15 (no default route: a host
reaches only the others), processes started inside a host, a host killed (every process inside its
namespace), and everything removed again, also after a failure (:meth:`Hosts.remove`)."""
from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ADDRESSES = {"bal": "198.18.0.11", "app1": "198.18.0.12", "app2": "198.18.0.13", "store": "198.18.0.20"}
BRIDGE_ADDRESS = "198.18.0.1"
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


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


class Hosts:
    """The namespaces and their bridge; :meth:`remove` deletes all of them (idempotent)."""

    def __init__(self) -> None:
        self.tag = "lmx" + secrets.token_hex(2)
        self.bridge, self.made = f"{self.tag}br", []
        self.processes: list[subprocess.Popen] = []

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def create(self) -> None:
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        self.made.append(("link", self.bridge))
        sh("ip", "link", "set", self.bridge, "up")
        sh("ip", "addr", "add", f"{BRIDGE_ADDRESS}/24", "dev", self.bridge)
        for host, address in ADDRESSES.items():
            ns, veth = self.ns(host), f"{self.tag}{host}"[:15]
            sh("ip", "netns", "add", ns)
            self.made.append(("netns", ns))
            sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            sh("ip", "link", "set", veth, "master", self.bridge)
            sh("ip", "link", "set", veth, "up")
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up")
            sh("ip", "netns", "exec", ns, "ip", "addr", "add", f"{address}/24", "dev", "eth0")

    def run(self, host: str, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        process = subprocess.Popen(["ip", "netns", "exec", self.ns(host), "env", *(f"{k}={v}" for k, v in env.items()),
                                    *argv], cwd=ROOT, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append(process)
        return process

    def kill_host(self, host: str) -> int:
        """SIGKILL every process inside the host's namespace; how many."""
        found = subprocess.run(["ip", "netns", "pids", self.ns(host)], capture_output=True, text=True, timeout=30)
        pids = [int(p) for p in found.stdout.split()]
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
            if ("netns", self.ns(host)) in self.made:
                self.kill_host(host)
        for kind, name in reversed(self.made):
            cmd = ["ip", "netns", "del", name] if kind == "netns" else ["ip", "link", "del", name]
            subprocess.run(cmd, capture_output=True, timeout=30)
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


def netns_list() -> list[str]:
    """The names of the machine's network namespaces."""
    found = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30)
    return [line.split()[0] for line in found.stdout.splitlines() if line.strip()]
