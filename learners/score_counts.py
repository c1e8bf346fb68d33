"""The interface of a trace counted by score (Algorithm 1 line 5 without the list, issue 20).

Algorithm 1 line 5 draws g ∈ Π_C(P) with probability ∝ exp(ε·q(S, g)/2). A *counted trace* gives
N_s = #{g ∈ Π_C(P) : q(S, g) = s} for every score (:meth:`CountedTraceLike.score_counts`), the
rank-th labeling of a score in a fixed deterministic order (:meth:`labeling`), and a hypothesis of
C realizing a labeling, as a function of the labeling alone (:meth:`representative`).
Implementations: :mod:`dpledger.learners.trace_counting` (line compositions) and
:mod:`dpledger.learners.halfspaces.arrangement_counting` (halfspaces, d ≤ 2).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from dpledger.learners.concept_classes import Components


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
