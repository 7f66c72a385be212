"""Shared parts of the classroom load test: what a session records, the texts it uploads, the page map.

Every session client (websocket protocol or real browser) reports to one :class:`Recorder`:
actions with their settle time, errors by kind, leaks (another session's marker word seen on this
session's page) and the replica cookie it was given. Percentiles are nearest-rank.
"""
from __future__ import annotations

import math
import random
import secrets
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ui.navigation import PAGES  # noqa: E402

# The URL path of each page as the navigation links to it: "" for the default page (its own path,
# "/welcome", shows "Page not found" as a deep link in Streamlit 1.67).
URL_PATHS = {stem: "" if stem == "home" else url for stem, url, _ in PAGES}
REPLICA_COOKIE = "lmlab_replica"
XSRF_COOKIE = "_streamlit_xsrf"
PART_BAR = "[data-testid='stButtonGroup']:has([role='radiogroup'][aria-required='true'])"
"""A page's bar of parts in the browser (ui/sections.py: a segmented control, a part always chosen;
its buttons are radios, ``aria-checked`` on the open part's)."""
# Widgets a student moves at random: every keyed widget except these (training recipes, whose
# random values would make one training take minutes, free text, and the uploader itself).
NOT_MOVED = ("uploader", "lstm_cell", "lstm_level", "lstm_hidden", "lstm_steps", "lstm_lr", "lstm_clip",
             "lstm_dropout", "lstm_seed", "lstm_custom", "seq2seq_train_variant", "seq2seq_train_steps",
             "seq2seq_train_len_", "seq2seq_source_", "synthetic_size", "min_count", "max_vocab")
# The Train buttons and the page each one is on.
TRAIN_BUTTONS = {"lstm_train": "lstm", "seq2seq_train": "seq2seq"}
BIG_UPLOAD_BYTES = 5 * 2**20


class SettleTimeout(Exception):
    """The page did not settle within the time allowed for one action."""


def new_marker() -> str:
    """A word no corpus and no other session contains: 'zqx' and 12 random lowercase hex digits."""
    return "zqx" + secrets.token_hex(6)


def upload_payload(kind: str, marker: str, seed: int) -> tuple[str, bytes]:
    """(file name, bytes) of one upload: an English text, a Chinese text or a 5 MB English file.

    The marker is in the file name and in the first line (the Corpus page previews the first
    3000 characters); the body is the shipped sample corpus in a per-session line order."""
    rng = random.Random(seed)
    language = "chinese" if kind == "zh" else "english"
    lines = [ln for p in sorted((ROOT / "assets" / "corpora" / language).glob("*.txt"))
             for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    rng.shuffle(lines)
    first = f"今天 {marker} 来到了课堂。" if kind == "zh" else f"The word {marker} opens this text."
    body = "\n".join(lines[: len(lines) // 2])
    text = first + "\n" + body + "\n"
    if kind == "big":
        block = ("\n".join(lines) + "\n").encode("utf-8")
        data = (first + "\n").encode("utf-8") + block * (BIG_UPLOAD_BYTES // len(block) + 1)
        return f"{marker}-big.txt", data[:BIG_UPLOAD_BYTES].rsplit(b"\n", 1)[0] + b"\n"
    return f"{marker}-{kind}.txt", text.encode("utf-8")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass
class Action:
    session: int
    kind: str
    started: float
    seconds: float
    during_training: bool
    page: str = ""  # the page acted on (a navigation's target)


@dataclass
class Recorder:
    """Everything the sessions observe, in one place (asyncio: one thread, no lock needed)."""

    t0: float = field(default_factory=time.monotonic)
    actions: list[Action] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    error_details: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    replicas: dict[int, str] = field(default_factory=dict)
    markers: dict[str, int] = field(default_factory=dict)  # marker -> session that uploaded it
    own_marker_checks: Counter = field(default_factory=Counter)
    training: set[int] = field(default_factory=set)  # sessions whose training is running now
    trainings_started: int = 0
    uploads_held: list[tuple[int | None, int]] = field(default_factory=list)  # (bytes the server held, file size)

    def action(self, session: int, kind: str, started: float, seconds: float, page: str = "") -> None:
        self.actions.append(Action(session, kind, started - self.t0, seconds, bool(self.training), page))

    def error(self, session: int, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if self.errors[kind] <= 5:  # the first few of each kind
            self.error_details.append(f"session {session} {kind}: {detail[:300]!r}")

    def check_leaks(self, session: int, text: str | bytes) -> None:
        """Search one session's page for every other session's marker word."""
        for marker, owner in self.markers.items():
            needle = marker.encode() if isinstance(text, bytes) else marker
            if owner != session and needle in text:
                self.leaks.append(f"session {session} saw the upload of session {owner} ({marker})")
                if len(self.leaks) <= 10:
                    self.error_details.append(self.leaks[-1])

    def report(self, n_sessions: int, n_browsers: int, duration: float, elapsed: float) -> list[tuple[str, str]]:
        """The printed figures, as (name, value) pairs."""
        times = [a.seconds for a in self.actions]
        busy = [a.seconds for a in self.actions if a.during_training]
        lines = [("sessions", str(n_sessions)), ("browser_sessions", str(n_browsers)),
                 ("duration_s", f"{duration:.0f}"), ("elapsed_s", f"{elapsed:.1f}"), ("actions", str(len(self.actions)))]
        for kind, count in sorted(Counter(a.kind for a in self.actions).items()):
            lines.append((f"actions_{kind}", str(count)))
        lines += [("errors", str(sum(self.errors.values())))]
        lines += [(f"errors_{kind}", str(n)) for kind, n in sorted(self.errors.items())]
        lines += [("leaks", str(len(self.leaks))),
                  ("uploads_checked", str(self.own_marker_checks["ok"])),
                  ("uploads_not_shown", str(self.own_marker_checks["missing"])),
                  ("uploads_unchecked", str(self.own_marker_checks["unchecked"])),
                  ("uploads_refused_with_a_message", str(self.own_marker_checks["refused"])),
                  ("uploads_held_while_open", f"{sum(held is not None and held >= size for held, size in self.uploads_held)} "
                                              f"of {len(self.uploads_held)}"),
                  ("trainings_started", str(self.trainings_started))]
        for name, values in (("settle", times), ("settle_during_training", busy)):
            if values:
                lines += [(f"{name}_p50_s", f"{percentile(values, 50):.2f}"),
                          (f"{name}_p95_s", f"{percentile(values, 95):.2f}"),
                          (f"{name}_max_s", f"{max(values):.2f}"), (f"{name}_n", str(len(values)))]
            else:
                lines.append((f"{name}_n", "0"))
        for kind in sorted({a.kind for a in self.actions}):
            values = [a.seconds for a in self.actions if a.kind == kind]
            lines.append((f"settle_{kind}_p50_p95_s", f"{percentile(values, 50):.2f} {percentile(values, 95):.2f}"))
        moves = [a for a in self.actions if a.kind == "control"]
        for page in sorted({a.page for a in moves}):  # which pages' controls are slow
            values = [a.seconds for a in moves if a.page == page]
            lines.append((f"settle_control_on_{page or 'home'}_p50_p95_n", f"{percentile(values, 50):.2f} "
                          f"{percentile(values, 95):.2f} {len(values)}"))
        slowest = sorted(self.actions, key=lambda a: -a.seconds)[:8]  # session, kind, page, start (s into the run)
        lines.append(("settle_slowest", "; ".join(f"s{a.session} {a.kind} on {a.page or 'home'} at {a.started:.0f} s: "
                                                  f"{a.seconds:.1f}" for a in slowest)))
        per_replica = Counter(self.replicas.values())
        if per_replica:
            lines += [(f"replica_{value}_sessions", str(n)) for value, n in sorted(per_replica.items())]
        else:
            lines.append(("replica_cookie", f"absent (no {REPLICA_COOKIE} cookie)"))
        return lines
