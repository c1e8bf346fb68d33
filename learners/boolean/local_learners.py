"""Proper pure-ε_B local learners B_i (Section 8.4) and the empirical learner of Lemma 8.15.

:func:`exponential_learner` is the generic proper private learner (Kasiviswanathan et al. 2011,
Theorem 3.4): the exponential mechanism over *all* of H with score the agreement with the sample
(sensitivity 1), hence ε_B-DP on arbitrary inputs and proper. The candidate set is the whole
class, fixed in advance, so no data-dependent candidate set enters the privacy argument.
Sampling is exact and grouped by score: thresholds by runs of t (O(|P|)); intervals by cells
(a-run, b-run) of the pairs a ≤ b (O(|P|²)) with a uniform pair inside the chosen cell; any other
class by listing its hypotheses (small classes). Its sample requirement is
:func:`dpledger.learners.calibration.boolean.exponential_learner_m`.

:func:`empirical_learner` is B̂ of Lemma 8.15 (Bun et al. Lemma 5.9): draw examples uniformly
*with replacement* from the labeled sample and run B on them.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import ExponentialMechanism
from dpledger.learners import releases
from dpledger.learners.boolean.composition import HypothesisSpace, ordered_pair
from dpledger.learners.completion_scores import completion_runs
from dpledger.learners.concept_classes import Components, ConceptClass, Intervals, Thresholds
from dpledger.learners.exponential_mechanism import (
    exponential_mechanism_ordered_release,
    exponential_mechanism_release,
)
from dpledger.learners.randomness import Randomness, as_fraction

LISTING_LIMIT = 2_000_000
"""Largest class the generic (listing) branch of :func:`exponential_learner` scores."""


def exponential_learner(H: ConceptClass, X: Any, y: Any, epsilon: Any, rng: Randomness) -> Components:
    """B: a hypothesis of H drawn with probability ∝ exp(ε·agree_S(h)/2) over all h ∈ H (ε-DP, proper)."""
    points = H.points(X)
    labels = np.asarray(y, dtype=np.int64).reshape(-1)
    if len(labels) != len(points):
        raise ValueError(f"y must have one label per point ({len(points)}), got {len(labels)}")
    if type(H) is Thresholds:
        runs = completion_runs(H, (), points, labels)
        assert runs is not None  # thresholds have their scores as runs
        return (exponential_mechanism_ordered_release(runs.breakpoints, runs.scores, epsilon, 1, rng)[0],)
    if type(H) is Intervals:
        return _interval_learner(H, points, labels, epsilon, rng)
    space = HypothesisSpace(H)
    if len(space) > LISTING_LIMIT:
        raise ValueError(
            f"components: {H!r} has {len(space)} hypotheses, more than the {LISTING_LIMIT} the "
            "exponential learner lists; use a smaller domain"
        )
    hypotheses = list(space)
    scores = [int(np.sum(H.evaluate(h, points) == labels)) for h in hypotheses]
    return tuple(hypotheses[exponential_mechanism_release(scores, epsilon, 1, rng)[0]])


def _interval_learner(
    H: Intervals,
    points: np.ndarray,
    labels: np.ndarray,
    epsilon: Any,
    rng: Randomness,
) -> Components:
    """The exponential mechanism over all intervals [a, b), 0 ≤ a ≤ b ≤ N, grouped by cells.

    With p_0 < … < p_{r−1} the distinct sample points, a lies in run R_i = {a : #(p < a) = i},
    i = 0..r (R_i = [p_{i−1} + 1, p_i + 1), the last ending at N + 1); the score of (a, b) with
    a ∈ R_i, b ∈ R_j (i ≤ j) is #(y = 0) + Σ_{i ≤ l < j} gain_l, gain_l = #(y=1 at p_l) − #(y=0 at p_l).
    Cell (i, j) holds |R_i|·|R_j| pairs when i < j and L(L + 1)/2 when i = j (L = |R_i|). The draw
    is reported to :mod:`dpledger.learners.releases` with layout ``"cells"`` (the cells in
    ``numpy.triu_indices`` order over the runs ``breakpoints``; sensitivity 1)."""
    distinct, position = np.unique(points, return_inverse=True)
    gain = np.bincount(position.reshape(-1), weights=np.where(labels == 1, 1, -1), minlength=len(distinct))
    cumulative = np.concatenate(([0], np.cumsum(gain.astype(np.int64))))
    zeros = int(np.sum(labels == 0))
    starts = [0, *(distinct + 1).tolist()]
    ends = [*(distinct + 1).tolist(), H.domain_size + 1]
    sizes = [e - s for s, e in zip(starts, ends, strict=True)]
    r = len(distinct)
    rows, cols = np.triu_indices(r + 1)
    sensitivity = Fraction(1)  # one record changes the agreement of every (a, b) by at most 1
    scale = as_fraction(epsilon, "epsilon") / (2 * sensitivity)
    if scale <= 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    scores = zeros + cumulative[cols] - cumulative[rows]
    counts = [
        sizes[i] * sizes[j] if i < j else sizes[i] * (sizes[i] + 1) // 2
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
    ]
    cell = rng.choice_grouped([scale * Fraction(int(s)) for s in scores.tolist()], counts)
    i, j = int(rows[cell]), int(cols[cell])
    if i < j:
        interval = starts[i] + rng.integer(sizes[i]), starts[j] + rng.integer(sizes[j])
    else:
        low, high = ordered_pair(rng.integer(counts[cell]), sizes[i])
        interval = starts[i] + low, starts[i] + high
    if not releases.active():
        return interval
    return releases.observe(
        releases.Release(
            kind="exponential_mechanism",
            statistic=scores.astype(np.float64),
            sensitivity=sensitivity,
            event=ExponentialMechanism(as_fraction(epsilon, "epsilon"), sum(counts)),
            output=interval,
            epsilon=as_fraction(epsilon, "epsilon"),
            layout="cells",
            counts=tuple(counts),
            breakpoints=(*starts, H.domain_size + 1),
        )
    )


def empirical_draws(sample_size: int, m_b: int) -> int:
    """How many examples B̂ draws from a sample of size |S|: m_B when |S| ≥ 9m_B (Lemma 8.15),
    otherwise ⌊|S|/9⌋ (at least 1) — so B̂ is total and never draws more than |S|/9 (|S| ≥ 9)."""
    if isinstance(m_b, bool) or not isinstance(m_b, int) or m_b < 1:
        raise ValueError(f"m_b must be an integer ≥ 1, got {m_b!r}")
    return max(1, min(m_b, sample_size // 9))


def empirical_learner(H: ConceptClass, X: Any, y: Any, epsilon: Any, m_b: int, rng: Randomness) -> Components:
    """B̂ of Lemma 8.15: :func:`empirical_draws` examples uniformly with replacement, then B."""
    points = H.points(X)
    labels = np.asarray(y, dtype=np.int64).reshape(-1)
    if len(points) == 0:
        raise ValueError("X must hold at least one example")
    chosen = np.array(
        [rng.integer(len(points)) for _ in range(empirical_draws(len(points), m_b))], dtype=np.int64
    )
    return exponential_learner(H, points[chosen], labels[chosen], epsilon, rng)
