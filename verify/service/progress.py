"""The progress bar on stderr that long commands and ``dpledger report`` draw (stdout keeps the
result, so that ``--json`` output stays parseable)."""
from __future__ import annotations

import sys
from collections.abc import Callable


def progress(total: int, label: str) -> Callable[[int], None]:
    """A progress bar on stderr: returns ``advance(done)``; silent for tiny jobs."""
    width = 30
    tty = sys.stderr.isatty()
    last_shown = [-1]

    def advance(done: int) -> None:
        if total <= 1:
            return
        fraction = min(done / total, 1.0)
        step = int(fraction * (width if tty else 4))
        if step == last_shown[0] and done < total:
            return
        last_shown[0] = step
        bar = "#" * int(fraction * width)
        line = f"{label} [{bar:<{width}}] {done}/{total}"
        if tty:
            sys.stderr.write("\r" + line + ("\n" if done >= total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    return advance


def progress_callback(label: str) -> Callable[[int, int], None]:
    """A ``report(done, total)`` callback (the Monte Carlo auditor's ``on_progress``) drawing
    :func:`progress`, whose total is known at the first call."""
    advance: Callable[[int], None] | None = None

    def report(done: int, total: int) -> None:
        nonlocal advance
        if advance is None:
            advance = progress(total, label)
        advance(done)

    return report
