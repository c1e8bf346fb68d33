"""What each private release computed, drew and declared: the tap a checker reads.

A learner's ledger (``trace_``) says what its releases *should* be. A learner whose code halves a
sensitivity records the halved sensitivity and the halved σ together, and an accountant that
re-reads the record certifies it. This module lets a checker see what the code *did*: every noisy
release (:mod:`dpledger.learners.noise`) and every exponential-mechanism draw
(:func:`dpledger.learners.exponential_mechanism.exponential_mechanism_release`) reports, through
:func:`observe`, a :class:`Release` — the statistic before noise (or the score vector), the
sensitivity the call declared in real units, the integer noise actually drawn, the event the call
returned and the output.

Two sessions, both off unless entered (outside them :func:`observe` returns its output at the
cost of one global read):

* :func:`record` collects the releases of a run, in the order they are made;
* :func:`replay` runs again (on a neighbouring dataset, or with other data) while forcing the j-th
  release to output what the j-th recorded release output. Every random draw is still made, so the
  generator stays in step; only the output is replaced. Conditioned on a fixed history of outputs,
  adaptive composition requires that the j-th statistic on neighbouring datasets differ by at most
  its declared sensitivity, and that everything released after the last release be the same on
  both (the model is post-processing of the releases and of data-independent coins). A replay
  whose j-th release differs in kind, size or candidate count from the recorded one — the shape of
  the computation depending on the data — raises :class:`ReplayMismatch`.

The tap is for checking (tests, ``dpledger audit learner --white-box``); it never changes what a
run outside a session releases. Sessions are process-wide and not re-entrant.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

Kind = Literal["discrete_gaussian", "discrete_laplace", "exponential_mechanism"]
NORMS: dict[str, str] = {
    "discrete_gaussian": "l2",
    "discrete_laplace": "l1",
    "exponential_mechanism": "linf",
}
"""The norm in which each kind's sensitivity is declared (a score's is the largest change of any
one candidate's score)."""


class ReplayMismatch(ValueError):
    """A replayed run made a release of another kind, size or candidate count than the recorded run
    at the same position, or a different number of releases: its shape depends on the data."""


@dataclass(frozen=True)
class Release:
    """One private release as the code made it.

    Attributes:
        kind: ``"discrete_gaussian"``, ``"discrete_laplace"`` or ``"exponential_mechanism"``.
        statistic: The statistic before snapping and noise (float64 copy, real units); for the
            exponential mechanism the candidates' scores.
        sensitivity: The sensitivity the call declared, in real units (L2, L1, or the largest
            change of one score; :data:`NORMS`).
        event: The event the call returned (the one the ledger should hold).
        output: What the release returned (the noisy statistic, or the chosen index).
        noise: The integer noise drawn, in grid units (None for the exponential mechanism).
        scale_units: The noise scale in grid units, σ/γ or b/γ (None for the exponential mechanism).
        gamma: The grid γ (None for the exponential mechanism).
        epsilon: The ε the exponential mechanism weighted by (None for noise).
    """

    kind: Kind
    statistic: np.ndarray
    sensitivity: Fraction
    event: Any
    output: Any
    noise: np.ndarray | None = None
    scale_units: float | None = None
    gamma: float | None = None
    epsilon: Fraction | None = None

    @property
    def size(self) -> int:
        """The number of coordinates (or candidates)."""
        return int(self.statistic.size)


class Tape(list[Release]):
    """The releases of a session in order (a list), and the value-independent partitions of the
    sample the run drew (``partitions``: each a list of index blocks, in the order drawn), so that a
    checker can place a record in the block — and so the release — that reads it."""

    def __init__(self) -> None:
        super().__init__()
        self.partitions: list[list[np.ndarray]] = []


class _Session:
    def __init__(self, forced: Sequence[Release] | None) -> None:
        self.releases = Tape()
        self.forced = forced

    def take(self, release: Release) -> Any:
        position = len(self.releases)
        # The record keeps its own copy: a run may modify its release in place afterwards.
        self.releases.append(dataclasses.replace(release, output=copy.deepcopy(release.output)))
        if self.forced is None:
            return release.output
        if position >= len(self.forced):
            raise ReplayMismatch(
                f"release {position} has no counterpart: the recorded run made {len(self.forced)}"
            )
        recorded = self.forced[position]
        if recorded.kind != release.kind or recorded.size != release.size:
            raise ReplayMismatch(
                f"release {position} is a {release.kind} of size {release.size}; "
                f"the recorded run's is a {recorded.kind} of size {recorded.size}"
            )
        return copy.deepcopy(recorded.output)


_SESSION: _Session | None = None


def active() -> bool:
    """Whether a session is collecting releases (callers skip building a :class:`Release` otherwise)."""
    return _SESSION is not None


def observe(release: Release) -> Any:
    """Report a release to the active session and return the output the run must use.

    Args:
        release: The release as the code made it.

    Returns:
        ``release.output`` — or, inside :func:`replay`, the output of the recorded release at the
        same position.

    Raises:
        ReplayMismatch: Inside :func:`replay`, when the release does not match the recorded one.
    """
    session = _SESSION
    return release.output if session is None else session.take(release)


def note_partition(blocks: Sequence[np.ndarray]) -> None:
    """Report a value-independent partition of the sample into blocks to the active session.

    Args:
        blocks: The index blocks, in the order the run reads them.
    """
    session = _SESSION
    if session is not None:
        session.releases.partitions.append([np.asarray(block).copy() for block in blocks])


@contextmanager
def _session(forced: Sequence[Release] | None) -> Iterator[Tape]:
    global _SESSION
    if _SESSION is not None:
        raise RuntimeError("a release session is already active")
    _SESSION = _Session(forced)
    try:
        yield _SESSION.releases
    finally:
        _SESSION = None


def record() -> Any:
    """Collect every release made inside the ``with`` block.

    Returns:
        A context manager yielding the :class:`Tape` that fills with :class:`Release` records in
        order.
    """
    return _session(None)


def replay(recorded: Sequence[Release]) -> Any:
    """Run with every release forced to the output of ``recorded`` at the same position.

    Args:
        recorded: The releases of an earlier run (from :func:`record`).

    Returns:
        A context manager yielding the :class:`Tape` of this run's own releases (statistics, noise
        and events as computed here; outputs replaced).
    """
    return _session(tuple(recorded))
