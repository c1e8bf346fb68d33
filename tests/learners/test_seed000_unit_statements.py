"""Unit checks of seed 000 statements that had none: Definition 4.2 (realizable prefix state),
Assumption 4.4's totality and utility for the completion-score oracle, Definition C.5 (independent
perturbation)."""

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.learners.completion_scores import restrict
from dpledger.learners.component_oracles import (
    CompletionScoreOracle,
    completion_oracle_m,
    largest_component_domain,
)
from dpledger.learners.concept_classes import make_class
from dpledger.learners.halfspaces.perturbation import perturb
from dpledger.learners.labelboost import realizable
from dpledger.learners.randomness import Sampled, enumerate_outputs
from dpledger.learners.synthetic import random_concept


def test_definition_c_5_perturbation_adds_independent_uniform_noise_to_every_coordinate():
    """Definition C.5 with A = [[±Δ]]/Δ′, read after the rescaling by Δ′: each coordinate becomes
    Δ′·x + z with z uniform on [[±Δ]], independently across coordinates and points (pairs of
    coordinates are jointly uniform on [[±Δ]]²); the points' order, and so their labels, is kept."""
    points = np.array([[0, 1], [2, -1], [1, 1]])
    delta, delta_prime, draws = 1, 5, 6000
    rng = Sampled(7)
    noise = np.array([perturb(points, delta, delta_prime, rng) - delta_prime * points for _ in range(draws)])
    assert noise.shape == (draws, 3, 2) and set(np.unique(noise)) == {-1, 0, 1}
    values = noise.reshape(draws, -1)
    for column in range(values.shape[1]):
        counts = Counter(values[:, column].tolist())
        assert all(abs(counts[v] / draws - 1 / 3) < 0.03 for v in (-1, 0, 1)), counts
    for a, b in itertools.combinations(range(values.shape[1]), 2):
        pairs: Counter[tuple[int, ...]] = Counter(
            zip(values[:, a].tolist(), values[:, b].tolist(), strict=True)
        )
        assert all(abs(pairs[p] / draws - 1 / 9) < 0.025 for p in itertools.product((-1, 0, 1), repeat=2)), (
            pairs
        )


@pytest.mark.parametrize(
    "name, domain, size",
    [("thresholds", 4, 3), ("intervals", 4, 3), pytest.param("rectangles", 2, 2, marks=pytest.mark.slow)],
)
def test_definition_4_2_realizable_prefix_state_iff_a_completion_of_the_prefix_labels_the_sample(
    name, domain, size
):
    """Definition 4.2: (y≤i, S) is a realizable prefix state iff some h ∈ C(y≤i) has S = U(S)^h.
    For every valid prefix y≤i (every length 0..k) and every labeled sample S of the given size,
    the realizability test dpledger applies to prefix states (:func:`realizable` on C(y≤i), both
    the geometric restriction the learner uses and the generic one) agrees with the definition
    read literally: a witness among all completions of y≤i; and every witness has err_S(h) = 0."""
    C = make_class(name, domain)
    grid = itertools.product(range(domain), repeat=C.dimension)
    records = [(x, y) for x in grid for y in (0, 1)]
    prefixes = sorted({h[:i] for h in C.completions() for i in range(C.k + 1)})
    verdicts: Counter[tuple[int, bool]] = Counter()
    for prefix in prefixes:
        completions = list(C.completions(prefix))
        for sample in itertools.combinations_with_replacement(records, size):
            X = C.points(np.array([x for x, _ in sample]))
            y = np.array([label for _, label in sample])
            witnesses = [h for h in completions if np.array_equal(C.evaluate(h, X), y)]
            assert all(np.mean(C.evaluate(h, X) != y) == 0 for h in witnesses)
            verdict = bool(witnesses)
            assert realizable(restrict(C, prefix), X, y) is verdict, (prefix, sample)
            assert realizable(C.restrict(prefix), X, y) is verdict, (prefix, sample)
            verdicts[len(prefix), verdict] += 1
    assert all(verdicts[i, True] and verdicts[i, False] for i in range(C.k + 1)), verdicts


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["thresholds", "intervals", "rectangles"]), st.integers(0, 2**32 - 1), st.integers(1, 8)
)
def test_assumption_4_4_totality_completion_score_oracle_returns_a_valid_component_on_any_labels(
    name, seed, size
):
    """Assumption 4.4, totality: on every input — labels drawn at random, so mostly not realizable,
    repeated points with contradictory labels included — the completion-score oracle returns a
    component that extends the prefix validly, round after round up to a complete hypothesis."""
    C = make_class(name, 6)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(size, C.dimension))
    y = rng.integers(0, 2, size=size)
    oracle = CompletionScoreOracle()
    prefix: tuple[Any, ...] = ()
    for _ in range(C.k):
        prefix += (oracle.select(C, prefix, C.points(X), y, Sampled(seed)),)
        assert C.prefix_valid(prefix)
    assert C.contains(prefix)


@pytest.mark.parametrize("name", ["thresholds", "intervals"])
def test_assumption_4_4_utility_completion_score_oracle_is_tau_accurate_at_its_m_a_exactly(name):
    """Assumption 4.4, utility, for the completion-score oracle: on realizable states (y≤i−1, S)
    with |S| = M_A(τ, β_A) (its formula, :func:`completion_oracle_m`), the probability — exact,
    every branch of the exponential mechanism enumerated — that no completion g of the chosen
    y≤i has disc_{U(S)}(g, h_{i−1}) ≤ τ is at most β_A; τ = β_A = 1/4, ε_A = 4, on [0, 16), for
    random witnesses and samples, every round. The failure probability is not zero somewhere at
    |S| = 2 (the check can fail)."""
    C = make_class(name, 16)
    tau = beta_a = Fraction(1, 4)
    m = completion_oracle_m(largest_component_domain(C), tau, beta_a)
    oracle, rng = CompletionScoreOracle(), np.random.default_rng(0)

    def failure(prefix, X, witness) -> float:
        h = C.evaluate(witness, X)
        chosen = enumerate_outputs(lambda r: oracle.select(C, prefix, X, h, r))
        far = [
            v
            for v in chosen
            if min(np.mean(C.evaluate(g, X) != h) for g in C.completions((*prefix, v))) > tau
        ]
        return sum(float(chosen[v].b) for v in far)

    small = 0.0
    for _ in range(6):
        witness = random_concept(C, rng)
        X = C.points(rng.integers(0, 16, size=m))
        for i in range(C.k):
            assert failure(tuple(witness[:i]), X, witness) <= float(beta_a)
        small = max(small, failure((), X[:2], witness))
    assert small > 0
