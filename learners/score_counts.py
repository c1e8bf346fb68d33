"""The interface of a trace counted by score (Algorithm 1 line 5 without the list).

Algorithm 1 line 5 draws g ∈ Π_C(P) with probability ∝ exp(ε·q(S, g)/2). A *counted trace* gives
N_s = #{g ∈ Π_C(P) : q(S, g) = s} for every score (:meth:`CountedTraceLike.score_counts`), the
rank-th labeling of a score in a fixed deterministic order (:meth:`labeling`), and a hypothesis of
C realizing a labeling, as a function of the labeling alone (:meth:`representative`).
Implementations: :mod:`dpledger.learners.trace_counting` (line compositions) and
:mod:`dpledger.learners.halfspaces.arrangement_counting` (halfspaces, d ≤ 2) and
:mod:`dpledger.learners.halfspaces.arrangement3d` (d = 3); :class:`SignUnion` is the union over
w ∈ {−1, 1} both halfspace traces share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

from dpledger.learners.concept_classes import Components

Cell = TypeVar("Cell")  # however a trace names its cells


@dataclass(frozen=True)
class ScoreCounts:
    """N_s for every score s with N_s > 0: ``scores`` increasing, ``counts`` Python ints."""

    scores: list[int]
    counts: list[int]

    @property
    def size(self) -> int:
        """|Π_C(P)|."""
        return sum(self.counts)

    @classmethod
    def of_histogram(cls, histogram: np.ndarray) -> ScoreCounts:
        """From ``histogram[s]`` = N_s (s = 0, 1, …)."""
        present = np.flatnonzero(histogram)
        return cls(present.tolist(), [int(histogram[s]) for s in present])


class CountedTraceLike(Protocol):
    """Π_C(P) counted by the score of a labeled sample, never listed."""

    def score_counts(self) -> ScoreCounts:
        """N_s for the scores present."""

    def labeling(self, score: int, rank: int) -> np.ndarray:
        """The rank-th labeling (0 ≤ rank < N_score) of score ``score`` (0/1 over the points)."""

    def representative(self, labels: np.ndarray) -> Components:
        """A hypothesis of the class realizing ``labels``, a function of ``labels`` only."""


def unranked(trace: CountedTraceLike) -> Iterator[tuple[int, np.ndarray]]:
    """Every (score, labeling) of a counted trace, by unranking every rank of every score — the
    listing of a small instance (the exact auditor's, and the tests' check against a listing)."""
    table = trace.score_counts()
    for score, count in zip(table.scores, table.counts, strict=True):
        for rank in range(count):
            yield score, trace.labeling(score, rank)


class SignUnion:
    """Π over w ∈ ``signs`` of halfspaces 1[⟨a, x⟩ ≥ w], counted from the cells of the single
    arrangement {⟨a, x⟩ = 1} (T_1): the labelings of T_{−1} are the complements of T_1's (score
    |S| − s), and for signs (−1, 1) a labeling of both (``shared()``: the cells of T_1 whose
    complement is also a cell) is counted once, under w = −1. Order within a score: T_{−1}'s
    labelings first, then T_1's outside T_{−1} — :meth:`cell` gives the rank's cell of T_1 and
    whether its labeling is complemented."""

    def __init__(
        self, cell_score: np.ndarray, total: int, signs: tuple[int, ...], shared: Callable[[], np.ndarray]
    ) -> None:
        self.cell_score, self.total, self.signs = cell_score, total, signs
        upper = np.bincount(cell_score, minlength=total + 1)
        self.shared = np.zeros(len(cell_score), dtype=bool)
        self.negative = upper[::-1].copy() if signs != (1,) else np.zeros_like(upper)  # T_{−1} by score
        if signs == (-1, 1):
            self.shared = shared()
            self.histogram = self.negative + np.bincount(cell_score[~self.shared], minlength=total + 1)
        else:
            self.histogram = upper if signs == (1,) else self.negative

    @property
    def size(self) -> int:
        """|Π_C(P)|."""
        return int(self.histogram.sum())

    def score_counts(self) -> ScoreCounts:
        return ScoreCounts.of_histogram(self.histogram)

    def cell(self, score: int, rank: int) -> tuple[int, bool]:
        """(cell of T_1, complemented) of the rank-th labeling of score ``score``."""
        if not 0 <= score <= self.total or not 0 <= rank < self.histogram[score]:
            raise ValueError(f"rank out of range for score {score}")
        if rank < self.negative[score]:
            return int(np.flatnonzero(self.cell_score == self.total - score)[rank]), True
        outside = (self.cell_score == score) & ~self.shared
        return int(np.flatnonzero(outside)[rank - self.negative[score]]), False

    def located(self, labels: np.ndarray, locate: Callable[[np.ndarray], Cell | None]) -> tuple[int, Cell]:
        """(w, the cell ``locate`` finds) for a labeling, preferring w = −1 (as the order does)."""
        for w in self.signs:
            name = locate(labels if w == 1 else 1 - labels)
            if name is not None:
                return w, name
        raise ValueError("labels is not a labeling of the trace")
