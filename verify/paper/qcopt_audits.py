"""Exact audits of QCOpt (seed 000, Proposition 8.6) as implemented — RecConcave
(:mod:`dpledger.learners.halfspaces.recconcave`) — and of its steps, on small ordered domains,
against their claimed (ε, δ), by the generic :func:`~dpledger.verify.audit.exact.worst_case`.

Proposition 8.6 takes a sensitivity-one quasi-concave quality, so the audited inputs are the
qualities themselves: a dataset is an integer quality vector on the positions [0, size), its
neighbours the quasi-concave vectors within 1 at every position. PrivateIP (Theorem 8.9) is
RecConcave on the interior-point quality, one such quality for every multiset of points, so
these audits cover it too.

* ``choosing`` — the choosing mechanism alone (:class:`~dpledger.accountant.events.ChoosingMechanism`)
  on every score vector of ``candidates`` ≤ 3 scores in [0, ``top``] (the positive set has at most
  3 members), neighbours within 1 per score. Scores well above the reserve t make ⊥ rare, where
  the ratio e^ε(1 + k e^{−εt/2}) is approached; scores 0 → 1 exercise the δ.
* ``level`` — a level's steps 3–4 (:func:`~dpledger.learners.halfspaces.recconcave.interval_point`:
  the block scores, the choosing mechanism over them, the two-candidate exponential mechanism) for
  a fixed recursion output k — what adaptive composition charges once k is released — on every
  quasi-concave quality of ``size`` positions with values in the window [θ − 1, θ + ``span``]
  around the block threshold θ (values further below θ score like θ − 1 in the choosing step).
  Claim: the basic composition of the two mechanisms.
* ``recconcave`` — the whole optimiser at a forced depth on every quasi-concave quality of
  ``size`` positions with values in [0, ``top``], against the accountant's guarantee of the plan's
  composed mechanisms. Its measured ε is far below the claim: the steps' worst cases do not
  coincide on one pair, and the small inputs rarely pass the choosing steps' reserve.

The first two are where a doubled ε would show (their measured ε at the claimed δ is within a
few per cent of the claim at the default sizes); the third checks the composition holds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import sympy

from dpledger.accountant.events import ChoosingMechanism, Composition, ExponentialMechanism
from dpledger.accountant.rules import account, choosing_guarantee
from dpledger.learners.exponential_mechanism import choosing_mechanism_release
from dpledger.learners.halfspaces.recconcave import (
    POSITIVES,
    RecConcavePlan,
    StepQuality,
    interval_point,
    recconcave,
    recconcave_plan,
)
from dpledger.learners.randomness import Randomness, as_fraction
from dpledger.verify.audit.exact import ExactAuditResult, worst_case

AUDITS = ("choosing", "level", "recconcave")
MAX_SIZE = 5
"""Most positions of an audited quality (the quasi-concave vectors and their 3^size neighbours)."""


@dataclass(frozen=True)
class Claimed:
    """An audit's claim (ε, δ) and the statement it checks."""

    statement: str
    epsilon: sympy.Expr
    delta: sympy.Expr

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "epsilon": str(self.epsilon), "delta": str(self.delta)}


def unimodal(values: tuple[int, ...]) -> bool:
    """Quasi-concave on a line: non-decreasing, then non-increasing."""
    i = 0
    while i + 1 < len(values) and values[i] <= values[i + 1]:
        i += 1
    while i + 1 < len(values) and values[i] >= values[i + 1]:
        i += 1
    return i == len(values) - 1


def quasi_concave_qualities(
    size: int, low: int, high: int
) -> tuple[list[tuple[int, ...]], Callable[[tuple[int, ...]], Iterable[tuple[int, ...]]]]:
    """Every quasi-concave quality on [0, size) with values in [low, high], and its neighbours:
    the listed qualities within 1 at every position."""
    if not 1 <= size <= MAX_SIZE:
        raise ValueError(f"size must be in [1, {MAX_SIZE}] for an exact audit, got {size}")
    qualities = [v for v in itertools.product(range(low, high + 1), repeat=size) if unimodal(v)]

    def neighbours(values: tuple[int, ...]) -> Iterable[tuple[int, ...]]:
        for shift in itertools.product((-1, 0, 1), repeat=size):
            other = tuple(a + b for a, b in zip(values, shift, strict=True))
            if other != values and all(low <= x <= high for x in other) and unimodal(other):
                yield other

    return qualities, neighbours


# -- the choosing mechanism alone -------------------------------------------------------------


def _choose(
    epsilon: Fraction, threshold: int, positives: int, scores: tuple[int, ...], rng: Randomness
) -> Hashable:
    members = [c for c, s in enumerate(scores) if s >= 1]
    chosen, _ = choosing_mechanism_release(
        [scores[c] for c in members], threshold, epsilon, positives, rng, tuple(members)
    )
    return None if chosen is None else members[chosen]


def audit_choosing(
    epsilon: Any, threshold: int, candidates: int = 3, top: int = 16, workers: int = 1
) -> tuple[Claimed, ExactAuditResult]:
    """The choosing mechanism (weights e^{ε·s/2}, reserve ``threshold``) on every vector of
    ``candidates`` scores in [0, ``top``], against (ε + ln(1 + k e^{−εt/2}), k e^{ε(1−t)/2}), k =
    ``candidates``."""
    if not 1 <= candidates <= POSITIVES:
        raise ValueError(
            f"candidates must be in [1, {POSITIVES}] (the positive set's bound), got {candidates}"
        )
    event = ChoosingMechanism(epsilon, threshold, candidates)
    claim = Claimed("Proposition 8.6 (the choosing mechanism)", *choosing_guarantee(event))
    vectors = list(itertools.product(range(top + 1), repeat=candidates))
    members = set(vectors)

    def neighbours(v: tuple[int, ...]) -> Iterable[tuple[int, ...]]:
        for shift in itertools.product((-1, 0, 1), repeat=candidates):
            other = tuple(a + b for a, b in zip(v, shift, strict=True))
            if other != v and other in members:
                yield other

    mechanism = partial(_choose, as_fraction(epsilon, "epsilon"), threshold, candidates)
    result = worst_case(
        mechanism,
        vectors,
        neighbours,
        claim.epsilon,
        claimed_delta=claim.delta,
        leaves_per_run=candidates + 1,
        workers=workers,
    )
    return claim, result


# -- one level's steps 3–4 ---------------------------------------------------------------------


def _run_level(
    plan: RecConcavePlan, promise: int, k: int, values: tuple[int, ...], rng: Randomness
) -> Hashable:
    return interval_point(StepQuality.of_values(values).clamped(), promise, plan.levels[0], k, rng)[0]


def level_plan(epsilon: Any, delta: Any, beta: Any = "1/2") -> RecConcavePlan:
    """The one-level plan whose top level the ``level`` audit runs (on a domain of 4 positions)."""
    return recconcave_plan(4, epsilon, delta, beta, 1)


def audit_level(
    epsilon: Any, delta: Any, size: int = 3, span: int = 14, k: int = 0, workers: int = 1
) -> tuple[Claimed, ExactAuditResult]:
    """Steps 3–4 of the top level of :func:`level_plan` for recursion output ``k`` on every
    quasi-concave quality of ``size`` positions with values in [θ − 1, θ + ``span``] (θ = 40, the
    promise r = θ + ⌈g₀/2⌉), against the basic composition of its two mechanisms."""
    plan = level_plan(epsilon, delta)
    step = plan.levels[0]
    steps = (
        ChoosingMechanism(step.choosing_epsilon, step.threshold, POSITIVES),
        ExponentialMechanism(step.final_epsilon, 2),
    )
    guarantee = account(Composition(steps, method="basic")).guarantee
    claim = Claimed("Proposition 8.6 (one level, given k)", guarantee.epsilon, guarantee.delta)
    theta = 40
    qualities, neighbours = quasi_concave_qualities(size, theta - 1, theta + span)
    result = worst_case(
        partial(_run_level, plan, theta + (step.guaranteed + 1) // 2, k),
        qualities,
        neighbours,
        claim.epsilon,
        claimed_delta=claim.delta,
        leaves_per_run=2 * (POSITIVES + 1),
        workers=workers,
    )
    return claim, result


# -- the whole optimiser -----------------------------------------------------------------------


def _run_recconcave(plan: RecConcavePlan, promise: int, values: tuple[int, ...], rng: Randomness) -> Hashable:
    return recconcave(StepQuality.of_values(values), promise, plan, rng)[0]


def plan_claim(plan: RecConcavePlan, statement: str) -> Claimed:
    """The guarantee the accountant derives for a plan's composed mechanisms."""
    guarantee = account(plan.event(statement)).guarantee
    return Claimed(statement, guarantee.epsilon, guarantee.delta)


def audit_recconcave(
    epsilon: Any, delta: Any, size: int = 4, top: int = 12, depth: int = 1, workers: int = 1
) -> tuple[Claimed, ExactAuditResult]:
    """RecConcave at ``depth`` (β = 1/2, promise r = ``top``) on every quasi-concave quality of
    ``size`` positions with values in [0, ``top``], against the accountant's guarantee of its plan."""
    plan = recconcave_plan(size, epsilon, delta, "1/2", depth)
    claim = plan_claim(plan, "Proposition 8.6")
    qualities, neighbours = quasi_concave_qualities(size, 0, top)
    assert plan.base_size is not None
    result = worst_case(
        partial(_run_recconcave, plan, top),
        qualities,
        neighbours,
        claim.epsilon,
        claimed_delta=claim.delta,
        leaves_per_run=(2 * (POSITIVES + 1)) ** plan.depth * plan.base_size,
        workers=workers,
    )
    return claim, result
