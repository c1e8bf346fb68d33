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

Each has a ``*_release`` twin that draws and records in one call: it returns the event of exactly
that draw and reports the scores, the declared sensitivity and the output to
:mod:`dpledger.learners.releases` (grouped by run, or by score level, where the candidates are
never listed).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from dpledger.accountant.events import ChoosingMechanism, Event, ExponentialMechanism
from dpledger.learners import releases
from dpledger.learners.randomness import Number, Randomness, as_fraction, choice_by_value

T = TypeVar("T")


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


def _observed(
    output: T,
    scores: Sequence[Number] | np.ndarray,
    epsilon: Number,
    sensitivity: Number,
    event: Event,
    **grouping: Any,
) -> T:
    """Report a draw to the tap (:mod:`dpledger.learners.releases`) and return what to output."""
    if not releases.active():
        return output
    statistic = np.array([float(s) for s in scores], dtype=np.float64)
    return releases.observe(
        releases.Release(
            kind="exponential_mechanism",
            statistic=statistic,
            sensitivity=as_fraction(sensitivity, "sensitivity"),
            event=event,
            output=output,
            epsilon=as_fraction(epsilon, "epsilon"),
            **grouping,
        )
    )


def exponential_mechanism_release(
    scores: Sequence[Number] | np.ndarray,
    epsilon: Number,
    sensitivity: Number,
    rng: Randomness,
    candidates: Hashable | None = None,
) -> tuple[int, ExponentialMechanism]:
    """Draw and record in one call: the exponential mechanism and the event of exactly that draw.

    Args:
        scores: One score per candidate (read exactly; floats by their binary value).
        epsilon: The ε of the mechanism; the weights are exp(ε·score/(2Δ)).
        sensitivity: Δ, the largest change of any one score between neighbouring datasets.
        rng: The randomness.
        candidates: A key naming the candidate set when it depends on the data (the tap's
            :attr:`~dpledger.learners.releases.Release.candidates`).

    Returns:
        The chosen index, drawn as :func:`exponential_mechanism` draws it, and
        ``ExponentialMechanism(epsilon, len(scores))`` (McSherry–Talwar 2007: ε-DP when the scores
        have sensitivity Δ). The release is reported to :mod:`dpledger.learners.releases`.

    Raises:
        ValueError: If ε or Δ is not positive, or ``scores`` is empty.
    """
    index = exponential_mechanism(scores, epsilon, sensitivity, rng)
    event = ExponentialMechanism(epsilon=as_fraction(epsilon, "epsilon"), candidates=len(scores))
    chosen = _observed(
        index, np.asarray(scores).reshape(-1), epsilon, sensitivity, event, candidates=candidates
    )
    return int(chosen), event


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


def exponential_mechanism_counted_release(
    scores: Sequence[int],
    counts: Sequence[int],
    epsilon: Number,
    sensitivity: Number,
    rng: Randomness,
    member: Callable[[int], T],
    candidates: Hashable | None = None,
) -> tuple[T, ExponentialMechanism]:
    """Draw and record in one call: :func:`exponential_mechanism_counted`'s score group, then
    ``member(group)`` — the candidate of that group the caller draws (uniformly) — and the event.

    Args:
        scores: The distinct scores, strictly increasing.
        counts: How many candidates have each score.
        epsilon: The ε of the mechanism.
        sensitivity: Δ, the largest change of any one candidate's score between neighbours.
        rng: The randomness.
        member: Maps the drawn group to the candidate released (it may draw from ``rng``).
        candidates: A key naming the candidate set when it depends on the data.

    Returns:
        The candidate ``member`` returned (inside :func:`dpledger.learners.releases.replay`, the
        recorded one) and ``ExponentialMechanism(epsilon, sum(counts))``. The release is
        reported with layout ``"levels"``.

    Raises:
        ValueError: If ε or Δ is not positive, or scores and counts do not match.
    """
    output = member(exponential_mechanism_counted(scores, counts, epsilon, sensitivity, rng))
    sizes = tuple(int(c) for c in counts)
    event = ExponentialMechanism(epsilon=as_fraction(epsilon, "epsilon"), candidates=sum(sizes))
    grouping = {"layout": "levels", "counts": sizes, "candidates": candidates}
    return _observed(output, scores, epsilon, sensitivity, event, **grouping), event


def exponential_mechanism_ordered_release(
    breakpoints: Sequence[int],
    scores: Sequence[Number],
    epsilon: Number,
    sensitivity: Number,
    rng: Randomness,
) -> tuple[int, ExponentialMechanism]:
    """Draw and record in one call: :func:`exponential_mechanism_ordered` and its event.

    Args:
        breakpoints: Strictly increasing ints; run r is [breakpoints[r], breakpoints[r+1]).
        scores: The score on each run.
        epsilon: The ε of the mechanism.
        sensitivity: Δ, the largest change of any one point's score between neighbours.
        rng: The randomness.

    Returns:
        The point drawn and ``ExponentialMechanism(epsilon, breakpoints[-1] − breakpoints[0])``.
        The release is reported with layout ``"runs"``.

    Raises:
        ValueError: If ε or Δ is not positive, or breakpoints and scores do not match.
    """
    point = exponential_mechanism_ordered(breakpoints, scores, epsilon, sensitivity, rng)
    bounds = tuple(int(b) for b in breakpoints)
    event = ExponentialMechanism(epsilon=as_fraction(epsilon, "epsilon"), candidates=bounds[-1] - bounds[0])
    lengths = tuple(b - a for a, b in itertools.pairwise(bounds))
    grouping = {"layout": "runs", "counts": lengths, "breakpoints": bounds}
    return _observed(point, scores, epsilon, sensitivity, event, **grouping), event


def choosing_mechanism_release(
    scores: Sequence[int],
    threshold: int,
    epsilon: Number,
    positives: int,
    rng: Randomness,
    candidates: Hashable,
) -> tuple[int | None, ChoosingMechanism]:
    """Draw and record in one call: the choosing mechanism of
    :class:`~dpledger.accountant.events.ChoosingMechanism` over the candidates of positive score —
    ⊥ with probability ∝ e^{ε·threshold/2}, candidate i with probability ∝ e^{ε·scores[i]/2} (the
    exponential mechanism over them and a reserve output of score ``threshold``) — and its event.

    Args:
        scores: The scores (≥ 1, sensitivity 1) of the positive candidates, at most ``positives``.
        threshold: t, the reserve output's score.
        epsilon: The ε of the weights e^{ε·score/2}.
        positives: k, the most candidates of positive score on any input (the score's structure).
        rng: The randomness.
        candidates: A key naming the positive candidates (they depend on the data).

    Returns:
        The index of the chosen candidate, or None for ⊥, and ``ChoosingMechanism(epsilon,
        threshold, positives)``; the release (scores, then the reserve's) is reported to
        :mod:`dpledger.learners.releases` with ``candidates``.

    Raises:
        ValueError: more than ``positives`` candidates, a score below 1, ε not positive, or a
            threshold leaving δ ≥ 1.
    """
    if len(scores) > positives or any(s < 1 for s in scores):
        raise ValueError(
            f"scores: the choosing mechanism takes at most {positives} candidates of positive score, got {list(scores)}"
        )
    event = ChoosingMechanism(as_fraction(epsilon, "epsilon"), threshold, positives)
    weights = [*scores, threshold]
    index = exponential_mechanism(weights, epsilon, 1, rng)
    chosen = _observed(index, np.asarray(weights).reshape(-1), epsilon, 1, event, candidates=candidates)
    return (None if chosen == len(scores) else int(chosen)), event
