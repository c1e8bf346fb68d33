"""Unit checks of seed 000 statements that had none: Definition 4.2 (realizable prefix state),
Definition C.5 (independent perturbation)."""
import itertools
from collections import Counter

import numpy as np
import pytest
from dpledger.learners.completion_scores import restrict
from dpledger.learners.concept_classes import make_class
from dpledger.learners.halfspaces.perturbation import perturb
from dpledger.learners.labelboost import realizable
from dpledger.learners.randomness import Sampled


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
        pairs = Counter(zip(values[:, a].tolist(), values[:, b].tolist()))
        assert all(abs(pairs[p] / draws - 1 / 9) < 0.025 for p in itertools.product((-1, 0, 1), repeat=2)), pairs


@pytest.mark.parametrize("name, domain, size", [("thresholds", 4, 3), ("intervals", 4, 3),
                                                pytest.param("rectangles", 2, 2, marks=pytest.mark.slow)])
def test_definition_4_2_realizable_prefix_state_iff_a_completion_of_the_prefix_labels_the_sample(name, domain, size):
    """Definition 4.2: (y≤i, S) is a realizable prefix state iff some h ∈ C(y≤i) has S = U(S)^h.
    For every valid prefix y≤i (every length 0..k) and every labeled sample S of the given size,
    the realizability test dpledger applies to prefix states (:func:`realizable` on C(y≤i), both
    the geometric restriction the learner uses and the generic one) agrees with the definition
    read literally: a witness among all completions of y≤i; and every witness has err_S(h) = 0."""
    C = make_class(name, domain)
    grid = itertools.product(range(domain), repeat=C.dimension)
    records = [(x, y) for x in grid for y in (0, 1)]
    prefixes = sorted({h[:i] for h in C.completions() for i in range(C.k + 1)})
    verdicts = Counter()
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
