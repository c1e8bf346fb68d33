"""The exponential mechanism as used by the learners (McSherry–Talwar 2007; Algorithm 1 line 5).

A candidate with score s is chosen with probability ∝ exp(ε·s/(2Δ)). Sampling is *exact*: the
probabilities are never formed in floating point; candidates are grouped by equal score and the
group is drawn by certified-interval inversion (:meth:`dpledger.learners.randomness.Sampled.choice_grouped`,
adaptive precision, total-variation gap 0), so no overflow occurs for large scores and the
analysed distribution is the one sampled. Under :class:`dpledger.learners.randomness.Enumerated` the same
code yields the exact branch probabilities.

:func:`exponential_mechanism_counted` draws the score group of a candidate set given only how many
candidates have each score (a trace counted by score, :mod:`dpledger.learners.trace_counting`); the
caller then draws a member uniformly — the same two draws :func:`exponential_mechanism` makes.

:func:`exponential_mechanism_ordered` is the variant on an ordered integer domain [lo, hi) whose
score is constant on runs: each run is one group weighted by its length, and a point is drawn
uniformly inside the chosen run, so astronomically large domains are never listed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np

from dpledger.learners.randomness import Number, Randomness, as_fraction, choice_by_value


@lru_cache(maxsize=256)
def _scale(epsilon: Number, sensitivity: Number) -> Fraction:
    """ε/(2Δ) exactly, validating both."""
    eps, delta = as_fraction(epsilon, "epsilon"), as_fraction(sensitivity, "sensitivity")
    if eps <= 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    if delta <= 0:
        raise ValueError(f"sensitivity must be positive, got {sensitivity}")
    return eps / (2 * delta)


def exponential_mechanism(
    scores: Sequence[Number] | np.ndarray, epsilon: Number, sensitivity: Number, rng: Randomness
) -> int:
    """Index i drawn with probability ∝ exp(ε·scores[i]/(2Δ)); ε-DP when the score has
    sensitivity Δ (record ``dpledger.accountant.events.ExponentialMechanism``). Scores and ε, Δ are read
    exactly (floats by their binary value)."""
    scale = _scale(epsilon, sensitivity)
    return choice_by_value(
        rng, scores, lambda score: scale * (score if type(score) is int else as_fraction(score, "scores"))
    )


def exponential_mechanism_counted(
    scores: Sequence[int], counts: Sequence[int], epsilon: Number, sensitivity: Number, rng: Randomness
) -> int:
    """Index i drawn with probability ∝ counts[i]·exp(ε·scores[i]/(2Δ)): the score group of the
    exponential mechanism over a candidate set of which counts[i] members have score scores[i]
    (scores distinct and increasing, as :func:`exponential_mechanism` groups them). Followed by a
    uniform member of the group it is exactly :func:`exponential_mechanism`, draw for draw."""
    if len(scores) != len(counts) or any(b <= a for a, b in itertools.pairwise(scores)):
        raise ValueError("scores must be strictly increasing, with one count each")
    scale = _scale(epsilon, sensitivity)
    return rng.choice_grouped([scale * as_fraction(s, "scores") for s in scores], counts)


def exponential_mechanism_ordered(
    breakpoints: Sequence[int],
    scores: Sequence[Number],
    epsilon: Number,
    sensitivity: Number,
    rng: Randomness,
) -> int:
    """A point x of the integer domain [breakpoints[0], breakpoints[-1]) drawn with probability
    ∝ exp(ε·score(x)/(2Δ)), where score(x) = scores[r] on the run breakpoints[r] ≤ x < breakpoints[r+1].

    Breakpoints are strictly increasing Python ints (any size); ``len(scores) == len(breakpoints) - 1``.
    Cost O(#runs), independent of the domain size."""
    bounds = [int(b) for b in breakpoints]
    if len(bounds) < 2 or any(b <= a for a, b in itertools.pairwise(bounds)):
        raise ValueError("breakpoints must be at least two strictly increasing integers")
    if len(scores) != len(bounds) - 1:
        raise ValueError(f"scores must have one entry per run ({len(bounds) - 1}), got {len(scores)}")
    scale = _scale(epsilon, sensitivity)
    lengths = [b - a for a, b in itertools.pairwise(bounds)]
    run = rng.choice_grouped([scale * as_fraction(s, "scores") for s in scores], lengths)
    return bounds[run] + rng.integer(lengths[run])
