"""The progress bar on stderr that long commands and ``dpledger report`` draw (stdout keeps the
result, so that ``--json`` output stays parseable).

A bar appears only once its job has run for :data:`DELAY` seconds, so that a tiny job prints
nothing; the library reports progress through ``on_progress(done, total)`` callbacks and never
prints (:func:`progress_callback` turns one into a bar)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

DELAY = 1.0
"""Seconds a job runs before its bar is first drawn (a job done sooner draws none)."""

WIDTH = 30


LOG_STEP = 0.1
"""Where stderr is not a terminal (a log, a pipe), a new line needs this much more progress …"""

LOG_INTERVAL = 10.0
"""… or this many seconds since the last line (so that a slow job still shows it is alive)."""


class _Bar:
    """One bar: redrawn in place on a terminal; elsewhere (logs, pipes) a line at most every
    :data:`LOG_STEP` of progress or :data:`LOG_INTERVAL` seconds, and the closing line."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.shown = False
        self.closed = False
        self.last_step = -1
        self.logged = (-1.0, 0.0)  # (fraction, time) of the last line written to a log

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.closed or total <= 1 or (not self.shown and (done >= total or now - self.started < DELAY)):
            return  # closed already, a tiny job, or one not yet (or never) long enough to show
        fraction = min(done / total, 1.0)
        step = int(fraction * WIDTH)
        if self.shown and done < total:
            if self.tty and step == self.last_step:
                return
            if not self.tty and fraction < self.logged[0] + LOG_STEP and now - self.logged[1] < LOG_INTERVAL:
                return
        self.shown, self.closed, self.last_step, self.logged = True, done >= total, step, (fraction, now)
        line = f"{self.label} [{'#' * int(fraction * WIDTH):<{WIDTH}}] {done}/{total}"
        if self.tty:
            sys.stderr.write("\r" + line + ("\n" if done >= total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def progress(total: int, label: str) -> Callable[[int], None]:
    """A progress bar on stderr for a job of ``total`` steps: returns ``advance(done)``."""
    bar = _Bar(label)
    return lambda done: bar.update(done, total)


def progress_callback(label: str) -> Callable[[int, int], None]:
    """An ``on_progress(done, total)`` callback (the Monte Carlo auditor's, the learners' ``fit``,
    the Section 6 searches') drawing a bar on stderr; ``total`` may change between calls (a search
    re-estimates it as it narrows)."""
    return _Bar(label).update
