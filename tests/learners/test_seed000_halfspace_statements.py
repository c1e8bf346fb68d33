"""Seed 000, Appendix C / Section 8.3, checked on their own: Lemma C.1 (a realizable halfspace sample
induces a feasible linear system, satisfied by the target on every submultiset) and Lemma 8.11 =
Corollary C.2 (full depth on a random submultiset B transfers to depth ≥ (1 − ρ)n on S, for every
parameter point — exactly, by the sectors of the plane, in dimension d = 1) and Algorithm 3
(IPConcave, as the coordinate oracle runs it)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpledger.learners.halfspaces.oracles as oracles
from dpledger.learners.halfspaces import IPConcaveOracle
from dpledger.learners.halfspaces.depth import coordinate_objective, depth
from dpledger.learners.halfspaces.geometry import GridHalfspaces
from dpledger.learners.randomness import Sampled
from dpledger.learners.synthetic import random_concept


def _realizable(dimension: int, grid: int, n: int, seed: int):
    C = GridHalfspaces(dimension, grid)
    rng = np.random.default_rng(seed)
    target = random_concept(C, rng)
    X = rng.integers(-grid, grid + 1, size=(n, dimension))
    return C, X, C.evaluate(target, X).astype(np.int64), target, rng


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 2), st.integers(1, 60))
def test_lemma_c_1_the_realizing_halfspace_satisfies_every_constraint_of_every_submultiset(
    seed, dimension, n
):
    """Lemma C.1: p* (the target) satisfies every constraint ℓ_j(⟨a, x_j⟩ − w) ≥ 0 of a realizable
    S, so depth_S(p*) = n, and depth_B(p*) = |B| for random submultisets B (repeated points kept);
    flipping one label whose margin is non-zero loses exactly that constraint."""
    _, X, y, target, rng = _realizable(dimension, 4, n, seed)
    assert depth(X, y, target) == n
    for size in {1, n // 2 or 1, n}:
        B = rng.choice(n, size=size, replace=True)
        assert depth(X[B], y[B], target) == size
    strict = [
        j
        for j in range(n)
        if sum(Fraction(int(x)) * v for x, v in zip(X[j], target[1:], strict=True)) != target[0]
    ]
    if strict:
        flipped = y.copy()
        flipped[strict[0]] = 1 - flipped[strict[0]]
        assert depth(X, flipped, target) == n - 1


def _rays_and_sectors(X: np.ndarray) -> list[tuple[int, int]]:
    """One parameter point p = (w, a) ∈ R² on every boundary ray a·x_j = w (p ∝ ±(x_j, 1)) and
    the axis rays, and one strictly inside every open sector between consecutive rays (their sum):
    depth_B and depth_S are constant on each ray and each open sector, so the minimum over these
    points is the minimum over all of R² \\ {0} (p = 0 satisfies every constraint)."""
    rays = {(int(x), 1) for x in X[:, 0]} | {(1, 0)}
    rays |= {(-w, -a) for w, a in rays}
    order = sorted(rays, key=lambda r: math.atan2(r[1], r[0]))
    between = [(r[0] + s[0], r[1] + s[1]) for r, s in zip(order, order[1:] + order[:1], strict=True)]
    return order + between


def _worst_transfer(X: np.ndarray, y: np.ndarray, B: np.ndarray) -> int:
    """min depth_S(p) over every p ∈ R² with depth_B(p) = |B| (exact, d = 1)."""
    return min(depth(X, y, p) for p in _rays_and_sectors(X) if depth(X[B], y[B], p) == len(B))


def test_lemma_8_11_full_depth_on_a_random_submultiset_transfers_to_every_parameter_point_d_1():
    """Lemma 8.11 / Corollary C.2 in d = 1 with the unstated constant c = 1: ρ = β = 1/10,
    m = ⌈(1/ρ)((d + 1)·ln(2/ρ) + ln(1/β))⌉ = 83 of n = 1000 realizable points; over every p ∈ R²
    with depth_B(p) = m, the least depth_S(p) is ≥ (1 − ρ)n in at least (1 − β)·20 of 20 seeded
    draws of (S, B). The check can fail: with m = 2 the least depth falls below (1 − ρ)n."""
    rho, beta, n = 0.1, 0.1, 1000
    m = math.ceil((2 * math.log(2 / rho) + math.log(1 / beta)) / rho)
    assert m == 83
    transferred, too_small = 0, 0
    for seed in range(20):
        _, X, y, _, rng = _realizable(1, 50, n, seed)
        B = rng.choice(n, size=m, replace=False)
        transferred += _worst_transfer(X, y, B) >= (1 - rho) * n
        too_small += _worst_transfer(X, y, B[:2]) < (1 - rho) * n
    assert transferred >= (1 - beta) * 20
    assert too_small > 0


@pytest.mark.parametrize("interior_point", ["recconcave", "exponential"])
def test_algorithm_3_ipconcave_partitions_at_random_takes_each_blocks_full_depth_maximizer_then_privateip(
    monkeypatch, interior_point
):
    """Algorithm 3 (IPConcave) as the coordinate oracle runs it: line 2, a random partition of S
    into t blocks of size ≥ ⌊n/t⌋ (a uniformly random permutation cut into t runs); line 4, for each
    block the y_j it hands on maximizes Q_i^{B_j} over the finite domain Ỹ_i (here the full depth
    |B_j|, the state being realizable); line 5, PrivateIP (the RecConcave interior point, or the
    exponential baseline) on exactly (y_1, …, y_t), its output in Ỹ_i."""
    permutations: list[np.ndarray] = []
    handed: list[list] = []
    name = f"{interior_point}_interior_point"
    original_permutation, original_ip = Sampled.permutation, getattr(oracles, name)

    def permutation(self, n):
        permutations.append(np.array(original_permutation(self, n)))
        return permutations[-1]

    def interior_point_spy(values, domain, *rest):
        handed.append(list(values))
        return original_ip(values, domain, *rest)

    monkeypatch.setattr(Sampled, "permutation", permutation)
    monkeypatch.setattr(oracles, name, interior_point_spy)
    C, X, y, target, _ = _realizable(2, 16, 60, 11)
    prefix, t = tuple(target[:1]), 5
    oracle = IPConcaveOracle(epsilon=4, blocks=t, interior_point=interior_point)
    value = oracle.select(C, prefix, X, y, Sampled(3))
    domain = C.next_values(prefix)
    assert len(permutations) == 1 and sorted(permutations[0].tolist()) == list(range(60)) and len(handed) == 1
    blocks = np.array_split(permutations[0], t)
    assert len(handed[0]) == t and all(len(block) >= 60 // t for block in blocks)
    for block, z in zip(blocks, handed[0], strict=True):
        Q = coordinate_objective(X[block], y[block], prefix)
        assert z in domain and Q(z) == Q.maximum == len(block)
    assert value in domain


def _largest_gap(C, X: np.ndarray, y: np.ndarray, changed: tuple[np.ndarray, np.ndarray]) -> int:
    """max over w ∈ {−1, 1} and every z of Ỹ_2(w) of |Q_2^S(z) − Q_2^{S′}(z)| (d = 1, all listed)."""
    gaps = [0]
    for w in (-1, 1):
        domain = C.next_values((w,))
        before, after = coordinate_objective(X, y, (w,)), coordinate_objective(*changed, (w,))
        gaps += [abs(before(domain[j]) - after(domain[j])) for j in range(domain.size)]
    return max(gaps)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(0, 7), st.integers(-3, 3), st.integers(0, 1))
def test_lemma_8_3_coordinate_objective_has_sensitivity_one_on_every_domain_element(seed, m, slot, x, label):
    """Lemma 8.3, "sensitivity-one": substituting one record of S (realizable, d = 1, grid 3; the
    new record arbitrary) moves Q_i^S(z) by at most 1 at every z of the finite domain Ỹ_i(y_{≤i−1})
    (all 21 elements listed), for both signs of w. Flipping one label of a fixed sample moves it by
    exactly 1 somewhere (the bound is reached)."""
    C, X, y, _, _ = _realizable(1, 3, m, seed)
    changed = X.copy(), y.copy()
    changed[0][slot % m], changed[1][slot % m] = x, label
    assert _largest_gap(C, X, y, changed) <= 1
    fixed_X, fixed_y = np.array([[-1], [0], [2]]), np.array([0, 1, 1])
    assert _largest_gap(C, fixed_X, fixed_y, (fixed_X, np.array([1, 1, 1]))) == 1
