"""Seed 000, Section 3.4–3.5: Algorithm 1's selection (line 5) exactly, and Lemma 3.15 with an
approximate-DP continuation — the 4eδ term checked exactly (the pure continuation of
tests/verify/test_exact_audit.py exercises only ε + ln 4e).

The continuation A_δ is (1/2, δ)-DP on C-realizable inputs only (Definition 3.6) with δ = 1/64: on
a realizable sample it releases the whole sample with probability δ and otherwise the label of the
smallest point by randomized response (ε = 1/2); on a non-realizable sample it releases the sample.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import partial
from itertools import combinations_with_replacement
from typing import Any, cast

import numpy as np
import pytest
import sympy

from dpledger.accountant.events import ApproxDP, OnRealizableInputs
from dpledger.accountant.rules import C_LB
from dpledger.learners.labelboost import Release, labelboost, labelboost_then, realizable
from dpledger.learners.randomness import Randomness, enumerate_outputs
from dpledger.verify.audit.exact import worst_case
from dpledger.verify.paper.labelboost_audit import LabelBoostAudit, _enumeration_key, shared_class

EPSILON_A = Fraction(1, 2)
DELTA_A = Fraction(1, 64)
FOUR_E_LOW = 4 * Fraction(2718, 1000)
"""A rational lower bound on 4e: a certified δ below FOUR_E_LOW·δ_A is below 4e·δ_A."""


def _leaky_continuation(X: np.ndarray, y: np.ndarray, rng: Randomness) -> Release:
    """A_δ: (ε_A, δ_A)-DP on Intervals(4)-realizable samples, blatantly non-private elsewhere."""
    rows = tuple(sorted(zip(np.asarray(X).reshape(-1).tolist(), np.asarray(y).tolist(), strict=True)))
    event = OnRealizableInputs(ApproxDP(EPSILON_A, DELTA_A))
    if not realizable(shared_class("intervals", 4), X, y) or rng.choice([DELTA_A, 1 - DELTA_A]) == 0:
        return Release(("sample", rows), event)
    bit = rows[0][1]
    keep = rng.choice_log_weights([EPSILON_A, 0]) == 0
    return Release(bit if keep else 1 - bit, event)


def _continuation_alone(sample: tuple, rng: Randomness) -> object:
    return _leaky_continuation(np.array([x for x, _ in sample]), np.array([y for _, y in sample]), rng).output


def _labelboost_then_leaky(dataset: tuple, rng: Randomness) -> object:
    s, t = dataset
    return labelboost_then(
        shared_class("intervals", 4), [x for x, _ in s], [y for _, y in s], list(t), _leaky_continuation, rng
    ).output


def _substitutions(sample: tuple, records: list) -> list:
    out = []
    for old in set(sample):
        for new in records:
            rest = list(sample)
            rest.remove(old)
            out.append(tuple(sorted([*rest, new])))
    return out


def test_lemma_3_15_continuation_with_delta_is_approximately_private_on_realizable_inputs_only():
    """The hypothesis: A_δ has δ(ε_A) = δ_A exactly between realizable neighbours (its leaks never
    coincide), and is not (ε_A, δ_A)-DP between arbitrary ones."""
    records = [(x, y) for x in range(4) for y in (0, 1)]
    samples = list(combinations_with_replacement(records, 3))
    realizable_only = [
        s for s in samples if realizable(shared_class("intervals", 4), [x for x, _ in s], [y for _, y in s])
    ]
    exact = worst_case(
        _continuation_alone,
        realizable_only,
        partial(_substitutions, records=records),
        sympy.Rational(EPSILON_A.numerator, EPSILON_A.denominator),
        leaves_per_run=3,
        workers=1,
    )
    assert float(DELTA_A) - 1e-12 <= exact.delta_at_bound <= float(DELTA_A) + 1e-12
    anywhere = worst_case(
        _continuation_alone,
        samples,
        partial(_substitutions, records=records),
        sympy.Rational(EPSILON_A.numerator, EPSILON_A.denominator),
        leaves_per_run=3,
        workers=1,
    )
    assert anywhere.delta_at_bound > 0.9  # a non-realizable neighbour: its sample is released outright


def test_lemma_3_15_delta_term_labelboost_then_approximate_realizable_continuation_is_within_4e_delta():
    """B = A_δ ∘ LabelBoost over every (S, T) of intervals on [0, 4), |S| = 2, |T| = 1, neighbours
    substituting one record of S or one point of T: the exact δ of B at ε_A + ln 4e is at most
    4e·δ_A, and positive (the δ term is exercised: pure ε is ∞ because leaked samples differ)."""
    audit = LabelBoostAudit("intervals", 4, 2, 1, "continuation", EPSILON_A)
    bound = sympy.Rational(EPSILON_A.numerator, EPSILON_A.denominator) + C_LB
    result = worst_case(
        _labelboost_then_leaky,
        audit.datasets(),
        audit.neighbours,
        bound,
        key=_enumeration_key,
        leaves_per_run=2 * audit.leaves_per_run(),
        workers=1,
    )
    assert result.pairs > 0 and result.holds is False  # not (ε_A + ln 4e, 0)-DP: δ is needed ...
    assert 0 < result.delta_at_bound < float(FOUR_E_LOW * DELTA_A)  # ... and 4eδ_A suffices
    assert result.delta_at_bound > float(DELTA_A) / 4


@pytest.mark.parametrize("name", ["thresholds", "intervals", "rectangles"])
def test_algorithm_1_line_5_selects_each_labeling_of_p_with_the_exponential_mechanisms_probability(name):
    """Algorithm 1, line 5, exactly: with H one representative per labeling of P (line 4), the
    probability LabelBoost selects the representative of labeling z is exp(q(S, z)/2)/Σ_z′ exp(q(S, z′)/2)
    — the exponential mechanism with ε = 1 and the agreement score q of sensitivity 1 — for every
    z (enumerated, compared to 10⁻¹²); S has a repeated point with both labels, T adds points."""
    C = shared_class(name, 3)
    grid = [tuple(p) for p in itertools.product(range(3), repeat=C.dimension)]
    xs = C.points(np.array([grid[0], grid[1], grid[1], grid[-1]]))
    ys = np.array([1, 0, 1, 1])
    xt = C.points(np.array([grid[2], grid[-2]]))
    exact = cast(
        dict[tuple[int, ...], Any],
        enumerate_outputs(lambda rng: tuple(labelboost(C, xs, ys, xt, rng).labeling.tolist())),
    )  # output -> probability interval; the outputs are the labelings, as tuples
    P = C.distinct(np.concatenate((xs, xt)))
    trace = C.trace(P)
    assert len(exact) == trace.size  # every labeling of Π_C(P) is a candidate, once
    position = [int(np.flatnonzero((P == x).all(axis=-1) if P.ndim > 1 else P == x)[0]) for x in xs]
    weights = {
        tuple(trace.labeling(i).tolist()): math.exp(
            sum(int(trace.labeling(i)[j] == y) for j, y in zip(position, ys, strict=True)) / 2
        )
        for i in range(trace.size)
    }
    total = sum(weights.values())
    for labeling, probability in exact.items():
        assert abs(float(probability.mid) - weights[labeling] / total) < 1e-12
