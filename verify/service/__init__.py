"""The service layer: one plain function per ``dpledger`` command, called with typed keyword values
and returning an :class:`Output` — called by the command line (:mod:`dpledger.verify.cli`, which
only parses and prints) and by the reports (:mod:`dpledger.verify.reports`).

Modules: :mod:`.compose` (``compose``), :mod:`.calibrate` (``calibrate …``), :mod:`.run`
(``run …``), :mod:`.audit` (``audit …``), :mod:`.proofs` (``proofs``); :mod:`.progress` draws the
progress bar on stderr. (``dpledger report`` is :func:`dpledger.verify.reports.report`: the reports
call this layer, so they sit above it.) Bad input raises ``ValueError`` with a one-line message;
values the library validates are left to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Exact = str | int | Fraction
"""A number the accountant reads exactly: decimal text (``"1e-6"``), a fraction (``"1/3"``,
``Fraction(1, 3)``) or an integer."""


@dataclass(frozen=True)
class Output:
    """What a command produced: a JSON-ready payload, the text shown without ``--json``, and the
    process exit status."""

    payload: Any
    text: str
    status: int = 0
