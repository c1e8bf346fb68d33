"""The exponential mechanism on an implicit ordered domain, and PrivateIP by it.

:func:`domain_exponential_mechanism` draws an element of a finite coordinate domain
(:mod:`dpledger.learners.halfspaces.domains`) with probability ∝ exp(ε·score/2) for a sensitivity-one
score that is constant on the slots of a :class:`~dpledger.learners.halfspaces.depth.SlotScores`:
a score level (grouped, exact), a slot of that level (weights = element counts, exact), then a
uniform element of the slot — the same distribution as listing the domain, which is never listed.

:func:`exponential_interior_point` is **the substitute for PrivateIP** (Theorem 8.9, Cohen et
al.'s log*-type interior point): the exponential mechanism with the interior-point score
q(x) = min(#{j : z_j ≤ x}, #{j : z_j ≥ x}) (sensitivity one in the multiset z; x is an interior
point iff q(x) ≥ 1). It is ε-DP on every input and returns an interior point except with
probability ≤ N·exp(−ε·t/4), so it needs t ≥ 4·ln(N/β)/ε points — O(log N/ε) instead of
Õ(log* N/ε) (:func:`interior_point_sample_size`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from dpledger.accountant.events import ExponentialMechanism
from dpledger.learners import releases
from dpledger.learners.halfspaces.depth import SlotScores
from dpledger.learners.halfspaces.domains import RationalDomain, SignDomain
from dpledger.learners.randomness import Randomness, as_fraction

PRIVATE_IP_SUBSTITUTE = (
    "exponential-mechanism interior point (substitute for Cohen et al.'s log* interior point)"
)
"""How the PrivateIP substitute is named in docs and CLI output."""

QCOPT_SUBSTITUTE = (
    "exponential-mechanism quasi-concave optimizer (substitute for Cohen et al.'s "
    "2^(log* N) QCOpt, Proposition 8.6)"
)
"""How the QCOpt substitute is named in docs and CLI output."""


def domain_exponential_mechanism_release(
    domain: SignDomain | RationalDomain, scores: SlotScores, epsilon: Fraction, rng: Randomness
) -> tuple[Fraction, ExponentialMechanism]:
    """Draw and record in one call: an element x of ``domain`` with probability
    ∝ exp(ε·scores(x)/2) (McSherry–Talwar, sensitivity one), exactly, and its event.

    Args:
        domain: The finite coordinate domain (never listed).
        scores: The sensitivity-one score, constant on each slot.
        epsilon: The ε of the mechanism.
        rng: The randomness.

    Returns:
        The element drawn (slots holding no element get probability 0) and
        ``ExponentialMechanism(epsilon, domain.size)``; the release is reported to
        :mod:`dpledger.learners.releases` with layout ``"slots"``.

    Raises:
        ValueError: If ε is not positive.
    """
    counts = np.array(domain.counts(scores.breakpoints), dtype=object)
    levels = sorted({int(s) for s, c in zip(scores.scores.tolist(), counts.tolist(), strict=True) if c})
    level_of = np.array(scores.scores.tolist(), dtype=object)
    totals = [sum(counts[level_of == level].tolist()) for level in levels]
    sensitivity = Fraction(1)
    scale = as_fraction(epsilon, "epsilon") / (2 * sensitivity)
    if scale <= 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    level = levels[rng.choice_grouped([scale * v for v in levels], totals)]
    members = np.flatnonzero((level_of == level) & (counts > 0))
    slot = members[rng.choice(counts[members].tolist())]
    value = domain.sample(scores.slot(int(slot)), rng)
    event = ExponentialMechanism(epsilon=as_fraction(epsilon, "epsilon"), candidates=domain.size)
    if not releases.active():
        return value, event
    chosen = releases.observe(
        releases.Release(
            kind="exponential_mechanism",
            statistic=scores.scores.astype(np.float64),
            sensitivity=sensitivity,
            event=event,
            output=value,
            epsilon=as_fraction(epsilon, "epsilon"),
            layout="slots",
            counts=tuple(int(c) for c in counts.tolist()),
            breakpoints=tuple(scores.breakpoints),
        )
    )
    return chosen, event


def domain_exponential_mechanism(
    domain: SignDomain | RationalDomain, scores: SlotScores, epsilon: Fraction, rng: Randomness
) -> Fraction:
    """The element of :func:`domain_exponential_mechanism_release` without its event (the
    :data:`~dpledger.learners.halfspaces.oracles.Optimizer` interface)."""
    return domain_exponential_mechanism_release(domain, scores, epsilon, rng)[0]


def interior_point_scores(values: Sequence[Fraction]) -> SlotScores:
    """q(x) = min(#{z_j ≤ x}, #{z_j ≥ x}) on the slots of the distinct values z_j."""
    ordered = sorted(Fraction(v) for v in values)
    breakpoints = sorted(set(ordered))
    t = len(ordered)
    scores, below = [], 0  # below = #{z_j < current slot}
    for b in breakpoints:
        here = ordered.count(b)
        scores += [min(below, t - below), min(below + here, t - below)]
        below += here
    scores.append(0)
    return SlotScores(breakpoints, np.array(scores, dtype=np.int64))


def exponential_interior_point(
    values: Sequence[Fraction], domain: SignDomain | RationalDomain, epsilon: Fraction, rng: Randomness
) -> Fraction:
    """PrivateIP substitute (see the module docstring): ε-DP, an element of ``domain``."""
    if not len(values):
        raise ValueError("values: PrivateIP needs at least one point")
    return domain_exponential_mechanism(domain, interior_point_scores(values), epsilon, rng)


def interior_point_sample_size(domain_size: int, beta: float, epsilon: Fraction) -> int:
    """The t with N·exp(−ε·t/4) ≤ β: enough points for the exponential interior point to
    succeed with probability ≥ 1 − β (the median has score ≥ t/2, non-interior points 0)."""
    if not 0 < beta < 1:
        raise ValueError(f"beta must be in (0, 1), got {beta}")
    return max(1, math.ceil(4 * math.log(domain_size / beta) / float(epsilon)))
