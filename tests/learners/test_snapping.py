"""Mironov's snapping mechanism (learners/snapping.py): its ingredients and its guarantee."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath.libmp import round_nearest, to_float

from dpledger.learners.snapping import (
    correctly_rounded_log,
    snapping_epsilon,
    snapping_laplace,
    snapping_scale,
    uniform_by_ulp,
)


def reference_log(value: float) -> float:
    with mpmath.workprec(300):
        return to_float(mpmath.log(mpmath.mpf(value))._mpf_, rnd=round_nearest)


def test_log_is_correctly_rounded_on_random_and_boundary_values():
    values = np.concatenate(
        [
            uniform_by_ulp(np.random.default_rng(0), 3000),
            [1 - 2**-53, 0.5, 2**-1022, 5e-324, 0.1, math.nextafter(1.0, 0.0) / 3],
        ]
    )
    logs = correctly_rounded_log(values)
    assert [reference_log(float(v)) for v in values] == logs.tolist()


def test_uniform_by_ulp_draws_each_binade_with_its_length():
    draws = uniform_by_ulp(np.random.default_rng(1), 400_000)
    assert np.all((draws > 0) & (draws < 1))
    # P[U* < 2^-k] = 2^-k; four-sigma tolerance of a binomial.
    for k in (1, 2, 5):
        share = float(np.mean(draws < 2.0**-k))
        assert abs(share - 2.0**-k) < 4 * math.sqrt(2.0**-k / 400_000)


def test_epsilon_is_mironovs_theorem_1_rescaled_by_the_power_of_two_sensitivity():
    assert snapping_epsilon(2.0, 100.0) == Fraction(1, 2) + Fraction(100, 2**49 * 2)
    assert snapping_epsilon(8.0, 100.0, sensitivity=3) == (4 + Fraction(100, 2**49)) / 8


def test_scale_is_the_smallest_double_meeting_the_target():
    scale = snapping_scale(1.0, 1000.0)
    assert snapping_epsilon(scale, 1000.0) <= 1 < snapping_epsilon(math.nextafter(scale, 0.0), 1000.0)


@pytest.mark.parametrize("scale,bound", [(1.0, 1.0), (1.0, 2.0**47), (0.0, 1.0), (math.inf, 1.0)])
def test_parameters_outside_the_theorem_are_refused(scale, bound):
    with pytest.raises(ValueError, match="snapping mechanism"):
        snapping_epsilon(scale, bound)


def test_releases_lie_on_the_power_of_two_grid_within_the_bound_and_repeat_with_the_seed():
    first = snapping_laplace(3.0, epsilon=0.5, bound=50.0, rng=np.random.default_rng(2), size=20_000)
    again = snapping_laplace(3.0, epsilon=0.5, bound=50.0, rng=np.random.default_rng(2), size=20_000)
    grid = 4.0  # the power of two ≥ λ = 2(1 + 2^-49·50)
    assert np.array_equal(first, again) and np.all(np.abs(first) <= 50.0)
    assert np.all((first % grid == 0) | (np.abs(first) == 50.0))
    assert abs(float(np.mean(first)) - 3.0) < 0.2
