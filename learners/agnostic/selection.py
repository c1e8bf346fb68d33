"""Private selection on a held-out block (Lemma B.5): the exponential mechanism (McSherry–Talwar
2007) with score −(number of misclassified examples of the block), whose sensitivity under
substitution is 1 (equivalently, the error fraction with sensitivity 1/m). The sampler is exact
(:func:`dpledger.learners.exponential_mechanism.exponential_mechanism`). With privacy off: arg-min.

Every selection of the learners — the seed's own validation step, the degree / subspace / OPT-guess
model selection folded into it, and the semi-agnostic learner's threshold — goes through
:func:`select` and is described by a :class:`Selection` (``selections_`` of a fitted learner):
its candidate groups and its choice, never its scores (the error counts are not released)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import ExponentialMechanism
from dpledger.learners.exponential_mechanism import exponential_mechanism
from dpledger.learners.randomness import Randomness


@dataclass(frozen=True)
class Selection:
    """One selection step: its name, the candidate groups (public: fixed before the block is read),
    the number of candidates, and the chosen one (the mechanism's output)."""

    step: str
    candidates: tuple[str, ...]
    count: int
    chosen: str
    private: bool

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "candidates": list(self.candidates), "count": self.count,
                "chosen": self.chosen, "mechanism": "exponential mechanism (ε, sensitivity 1)" if self.private else "arg-min (privacy off)"}

    def to_text(self) -> str:
        return f"{self.step}: {self.chosen} (of {self.count} candidates: {'; '.join(self.candidates)})"


def select(
    errors: np.ndarray, epsilon: Fraction | None, rng: Randomness
) -> tuple[int, ExponentialMechanism | None]:
    """The chosen candidate index and its event (None when privacy is off)."""
    counts = np.asarray(errors, dtype=np.int64)
    if epsilon is None:
        return int(np.argmin(counts)), None
    index = exponential_mechanism([-int(c) for c in counts], epsilon, 1, rng)
    return index, ExponentialMechanism(epsilon=epsilon, candidates=int(counts.size))


def threshold_errors(scores: np.ndarray, labels: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Errors of sign(score − θ) (+1 when score ≥ θ) for every θ, by sorting once."""
    positive = np.sort(scores[labels > 0])
    negative = np.sort(scores[labels <= 0])
    false_negatives = np.searchsorted(positive, thresholds, side="left")
    false_positives = negative.size - np.searchsorted(negative, thresholds, side="left")
    return false_negatives + false_positives


def grid_text(values: np.ndarray, name: str = "θ") -> str:
    """'k values of θ in [a, b]' for an evenly spaced grid."""
    return f"{values.size} values of {name} in [{values[0]:g}, {values[-1]:g}]"
