"""Unit checks of seed 000 statements that had none: Definition C.5 (independent perturbation)."""
import itertools
from collections import Counter

import numpy as np
from dpledger.learners.halfspaces.perturbation import perturb
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
