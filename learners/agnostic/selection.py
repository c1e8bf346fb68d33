"""Private selection on a validation block (Lemma B.5): the exponential mechanism with score
−(number of misclassified validation examples), whose sensitivity under substitution is 1
(equivalently, the error fraction with sensitivity 1/m_val). With privacy off: arg-max."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpledger.accountant.events import ExponentialMechanism
from dpledger.learners.exponential_mechanism import exponential_mechanism
from dpledger.learners.randomness import Randomness


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
