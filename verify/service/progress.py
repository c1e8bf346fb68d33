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


class _Bar:
    """One bar: redrawn in place on a terminal; elsewhere (logs, pipes) one line per quarter."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.shown = False
        self.closed = False
        self.last_step = -1

    def update(self, done: int, total: int) -> None:
        if (
            self.closed
            or total <= 1
            or (not self.shown and (done >= total or time.monotonic() - self.started < DELAY))
        ):
            return  # closed already, a tiny job, or one not yet (or never) long enough to show
        fraction = min(done / total, 1.0)
        step = int(fraction * (WIDTH if self.tty else 4))
        if self.shown and step == self.last_step and done < total:
            return
        self.shown, self.closed, self.last_step = True, done >= total, step
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
