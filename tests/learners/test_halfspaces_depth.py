"""Depth, Q_i^S (Definition 8.1) and the statements of Appendices A and C that rest on them."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.learners.halfspaces.depth import (
    _plane_pieces,
    coordinate_constraints,
    coordinate_objective,
    depth,
    signed_labels,
    threshold_objective,
)
from dpledger.learners.halfspaces.geometry import GridHalfspaces
from dpledger.learners.halfspaces.oracles import block_maximizer
from dpledger.learners.halfspaces.perturbation import in_general_position
from dpledger.learners.synthetic import random_concept


def realizable_sample(dimension, grid, m, seed):
    C = GridHalfspaces(dimension, grid)
    rng = np.random.default_rng(seed)
    target = random_concept(C, rng)
    X = rng.integers(-grid, grid + 1, size=(m, dimension))
    return C, X, C.evaluate(target, X).astype(np.int64), target


def brute_objective(X, y, prefix, z):
    """Q_i^S(z) by trying every candidate value of the single free coefficient (d = 2, i = 2):
    the thresholds of the constraints at z (the maximum over u is attained at one of them)."""
    w = Fraction(prefix[0])
    candidates = [(w - z * x[0]) / x[1] for x in X.tolist() if x[1]] or [Fraction(0)]
    return max(depth(X, y, (w, z, u)) for u in candidates)


def brute_plane_objective(X, y, w, z):
    """Q_2^S(z) for d = 3 by evaluating depth at every crossing of two constraint lines in the
    (a_2, a_3)-plane, at a point of every line and at the origin (a maximizer is among them)."""
    system = coordinate_constraints(X, y, (w,))
    alpha, beta, gamma = system.alpha.tolist(), system.beta.tolist(), system.gamma.tolist()
    offset = [-(a * z + g) for a, g in zip(alpha, gamma, strict=True)]  # line j: ⟨β_j, u⟩ = offset_j
    candidates = [(Fraction(0), Fraction(0))]
    for i, (b, r) in enumerate(zip(beta, offset, strict=True)):
        if b != [0, 0]:
            candidates.append((r * b[0] / (b[0] ** 2 + b[1] ** 2), r * b[1] / (b[0] ** 2 + b[1] ** 2)))
        for c, s in zip(beta[i + 1 :], offset[i + 1 :], strict=True):
            D = b[0] * c[1] - b[1] * c[0]
            if D:
                candidates.append(((c[1] * r - b[1] * s) / D, (b[0] * s - c[0] * r) / D))
    return max(depth(X, y, (w, z, *u)) for u in candidates)


def is_quasi_concave(scores):
    """No slot strictly below both a slot to its left and one to its right (Lemma A.2)."""
    left = np.maximum.accumulate(scores)
    right = np.maximum.accumulate(scores[::-1])[::-1]
    return bool(np.all(scores >= np.minimum(left, right)))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9))
def test_definition_8_1_objective_equals_brute_force_maximum_over_completions(seed, m):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(m, 2))
    y = rng.integers(0, 2, size=m)
    w = int(rng.choice([-1, 1]))
    Q = coordinate_objective(X, y, (w,))
    for z in list(Q.breakpoints) + [Fraction(k, 7) for k in range(-25, 26, 3)]:
        assert Q(z) == brute_objective(X, y, (w,), z)
    a1 = Fraction(int(rng.integers(-5, 6)), int(rng.integers(1, 4)))
    last = coordinate_objective(X, y, (w, a1))
    for z in list(last.breakpoints) + [Fraction(k, 5) for k in range(-25, 26, 3)]:
        assert last(z) == depth(X, y, (w, a1, z))
    assert threshold_objective(X, y, w) == Q.maximum


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.booleans())
def test_definition_8_1_objective_in_three_dimensions_equals_brute_force_over_crossings(seed, m, parallel):
    """d = 3, i = 2 (two free coefficients, lines with point-dependent offsets): Q_2^S equals the
    brute-force maximum at every breakpoint before merging, between them and on a grid of z;
    ``parallel`` makes every β_j parallel (the one-coefficient reduction); Q_1^S is its maximum."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(m, 3))
    if parallel:
        X[:, 2] = -2 * X[:, 1]
    y = rng.integers(0, 2, size=m)
    w = int(rng.choice([-1, 1]))
    system = coordinate_constraints(X, y, (w,))
    Q = coordinate_objective(X, y, (w,))
    found = _plane_pieces(system)
    assert found is None or not parallel
    raw = (
        [Fraction(int(a), int(b)) for a, b in found[0].tolist()] if found is not None else list(Q.breakpoints)
    )
    zs = raw + [(a + b) / 2 for a, b in itertools.pairwise(raw)] + [Fraction(k, 7) for k in range(-30, 31, 4)]
    for z in zs + ([raw[0] - 1, raw[-1] + 1] if raw else []):
        assert Q(z) == brute_plane_objective(X, y, w, z)
    assert threshold_objective(X, y, w) == Q.maximum


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3]), st.integers(1, 40))
def test_lemma_a_2_objective_is_quasi_concave_on_realizable_prefix_states(seed, dimension, m):
    C, X, y, target = realizable_sample(dimension, 4, m, seed)
    for i in range(2, C.k + 1):
        Q = coordinate_objective(X, y, target[: i - 1])  # the target's prefix: a realizable prefix state
        assert Q.maximum == m and is_quasi_concave(Q.scores)


def test_lemma_a_2_fails_without_realizability_the_reason_the_learner_restores_it():
    """S = ((1, +), (−1, +)) with w = 1 needs a ≥ 1 and a ≤ −1: not realizable, and Q_2 is 1, 0, 1
    at the domain points −1 < 0 < 1."""
    C = GridHalfspaces(1, 1)
    X, y = np.array([[1], [-1]]), np.array([1, 1])
    Q = coordinate_objective(X, y, (1,))
    assert [Q(z) for z in (-1, 0, 1)] == [1, 0, 1]
    assert all(z in C.next_values((1,)) for z in (-1, 0, 1))
    assert not is_quasi_concave(Q.scores)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3]), st.integers(1, 30), st.integers(1, 6))
def test_lemma_8_3_c_4_finite_domain_contains_a_full_depth_coordinate_at_every_round(
    seed, dimension, m, grid
):
    """Walk the rounds choosing a full-depth domain element each time: the domain of the next
    coordinate must again hold one (Lemma C.4); w from {−1, 1} too (Lemma C.9, i = 1)."""
    C, X, y, _ = realizable_sample(dimension, grid, m, seed)
    prefix: tuple[Fraction, ...] = ()
    for _ in range(C.k):
        domain = C.next_values(prefix)
        value = block_maximizer(X, y, prefix, domain)
        assert value in domain
        prefix += (value,)
        assert (
            threshold_objective(X, y, int(value))
            if len(prefix) == 1
            else coordinate_objective(X, y, prefix[:-1])(value)
        ) == m
    assert C.prefix_valid(prefix) and depth(X, y, prefix) == m


def general_position_sample(m, grid, seed):
    rng = np.random.default_rng(seed)
    while True:
        X = rng.integers(-grid, grid + 1, size=(m, 2))
        if in_general_position(X):
            return X


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 12))
def test_corollary_c_10_satisfied_constraints_transfer_to_errors_plus_d(seed, m):
    """Under general position a completion violating E constraints errs on ≤ E + d points; the
    hyperplanes through two sample points are the hardest case (two points on the boundary)."""
    C = GridHalfspaces(2, 20)
    X = general_position_sample(m, 20, seed)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=m)
    for i in range(m):
        for j in range(i + 1, m):
            D = X[i, 0] * X[j, 1] - X[i, 1] * X[j, 0]
            if not D:
                continue
            for w in (-1, 1):
                h = (
                    w,
                    Fraction(int(w * (X[j, 1] - X[i, 1])), int(D)),
                    Fraction(int(w * (X[i, 0] - X[j, 0])), int(D)),
                )
                errors = int(np.sum(C.evaluate(h, X) != y))
                assert errors <= (m - depth(X, y, h)) + 2


def test_corollary_c_10_needs_general_position():
    """Three negatives on the hyperplane satisfy their constraints but are misclassified: E = 0, 3 errors > d = 2."""
    X, y = np.array([[1, 0], [1, 1], [1, 2]]), np.array([0, 0, 0])
    h = (1, Fraction(1), Fraction(0))
    assert depth(X, y, h) == 3 and int(np.sum(GridHalfspaces(2, 2).evaluate(h, X) != y)) == 3


@pytest.mark.slow
def test_lemmas_8_11_8_12_block_maximizers_keep_most_of_the_full_sample_depth():
    """Empirical Lemma 8.12: blocks of r = 60 from a realizable S of m = 600 (d = 2); every block
    maximizer z_j satisfies Q_i^S(z_j) ≥ (1 − ρ)m with ρ = 0.1 (the VC bound's order d/r)."""
    C, X, y, target = realizable_sample(2, 16, 600, 3)
    rng = np.random.default_rng(4)
    for prefix in ((), target[:1]):
        domain = C.next_values(prefix)
        objective = coordinate_objective(X, y, prefix) if prefix else None
        for block in np.array_split(rng.permutation(600), 10):
            z = block_maximizer(X[block], y[block], prefix, domain)
            score = threshold_objective(X, y, int(z)) if objective is None else objective(z)
            assert score >= 0.9 * 600


def test_reduction_appendix_c_constraint_signs():
    """ℓ(⟨a, x⟩ − w) ≥ 0: a positive point on the boundary satisfies its constraint, a negative one too."""
    X = np.array([[1, 1], [1, 1], [3, 0]])
    assert signed_labels([0, 1, 1]).tolist() == [-1, 1, 1]
    assert depth(X, np.array([0, 1, 0]), (2, 1, 1)) == 2  # (3,0)·(1,1) = 3 ≥ 2 violates the negative


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40))
def test_proposition_a_1_two_lps_give_the_full_depth_interval_of_the_exact_objective(seed, m):
    """The superlevel set {Q_2^S = m} is the interval I_[m]: its exact slot hull matches the two LPs."""
    from dpledger.learners.halfspaces.depth import (
        coordinate_constraints,
        coordinate_scores,
        feasible_interval,
    )

    _, X, y, target = realizable_sample(2, 5, m, seed)
    system = coordinate_constraints(X, y, target[:1])
    Q = coordinate_scores(system)
    full = np.flatnonzero(Q.scores == m)
    low, high = Q.slot(int(full[0])).low, Q.slot(int(full[-1])).high
    interval = feasible_interval(system)
    assert interval is not None
    lp_low, lp_high = interval
    assert lp_low == -np.inf if low is None else abs(float(low) - lp_low) < 1e-7
    assert lp_high == np.inf if high is None else abs(float(high) - lp_high) < 1e-7
    assert feasible_interval(coordinate_constraints(np.array([[0, 0]]), np.array([1]), (1,))) is None  # 0 ≥ 1
