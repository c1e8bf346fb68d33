"""The agnostic learners' noise calibration (:mod:`dpledger.learners.calibration.agnostic_noise`)
against the accountant: what it returns is certified for the target and not far below the largest
certified value, so a calibration for the wrong ε, sensitivity or event cannot pass."""

import math
from fractions import Fraction

import pytest

from dpledger.accountant import account
from dpledger.accountant.events import Composition, DiscreteGaussian, DiscreteLaplace, Event
from dpledger.learners.calibration.agnostic_noise import (
    _certified,
    certified_ratio,
    laplace_scale,
    noise_event,
    sigma_for,
    step_delta,
)
from dpledger.learners.noise import grid

DELTA = Fraction(1, 10**6)
CASES = [
    (Fraction(1, 10), 1, "optimal"),
    (Fraction(1), 1, "advanced"),
    (Fraction(4), 1, "optimal"),
    (Fraction(1), 7, "advanced"),
    (Fraction(4), 40, "advanced"),
    (Fraction(1, 2), 7, "optimal"),
    (Fraction(3), 40, "optimal"),
]


@pytest.mark.parametrize(("epsilon", "steps", "method"), CASES)
def test_the_certified_ratio_meets_the_target_and_one_percent_more_does_not(epsilon, steps, method):
    """μ = certified_ratio(ε, δ, T, method): the accountant derives (ε, δ) for T discrete Gaussian
    steps at Δ′/s = μ, and not for 1.01·μ (so μ is within 1 % of the largest certified ratio)."""
    ratio = certified_ratio(epsilon, DELTA, steps, method)
    step = DiscreteGaussian(1, ratio, step_delta(DELTA, steps))
    event: Event = (
        step if steps == 1 else Composition((step,), method=method, target_delta=DELTA, repeat=steps)
    )
    assert noise_event(1, ratio, DELTA, steps, method) == event
    assert account(event).guarantee.meets(epsilon, DELTA).holds
    louder = noise_event(1, ratio * Fraction(101, 100), DELTA, steps, method)
    assert not account(louder).guarantee.meets(epsilon, DELTA).holds


@pytest.mark.parametrize(("epsilon", "steps", "method"), CASES)
def test_the_certification_check_refuses_a_ratio_one_percent_above_the_certified_one(epsilon, steps, method):
    ratio = certified_ratio(epsilon, DELTA, steps, method)
    assert _certified(ratio, epsilon, DELTA, steps, method)
    assert not _certified(ratio * Fraction(101, 100), epsilon, DELTA, steps, method)


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "dimension"),
    [
        (Fraction(2, 100), Fraction(1, 2), 1),
        (Fraction(1, 3), Fraction(2), 1),
        (Fraction(1, 50), Fraction(1), 4),
    ],
)
def test_laplace_scale_makes_the_drawn_discrete_laplace_epsilon_dp_within_a_percent(
    sensitivity, epsilon, dimension
):
    """b = laplace_scale(Δ₁, ε, D) and the event the draw records, DiscreteLaplace(b/γ, Δ₁/γ + D)
    with γ = grid(b): the accountant derives ε′ ≤ ε, and ε′ ≥ 0.99·ε."""
    scale = laplace_scale(sensitivity, epsilon, dimension)
    gamma = Fraction(grid(scale))
    event = DiscreteLaplace(
        scale_units=Fraction(scale) / gamma, sensitivity_units=sensitivity / gamma + dimension
    )
    derived = account(event).guarantee
    assert derived.meets(epsilon, 0).holds
    assert derived.epsilon_upper >= 0.99 * float(epsilon)


@pytest.mark.parametrize(("sensitivity", "dimension"), [(Fraction(2, 100), 1), (Fraction(1, 7), 9)])
def test_sigma_for_pays_the_grid_rounding_and_stays_within_a_percent_of_the_ratio(sensitivity, dimension):
    """σ = sigma_for(Δ, μ, D): (Δ + √D·γ(σ))/σ ≤ μ, and ≥ 0.99·μ, in exact arithmetic (D is a
    perfect square here, so √D is an integer)."""
    ratio = certified_ratio(Fraction(1), DELTA)
    sigma = sigma_for(sensitivity, ratio, dimension)
    root = math.isqrt(dimension)
    assert root * root == dimension
    achieved = (sensitivity + root * Fraction(grid(sigma))) / Fraction(sigma)
    assert Fraction(99, 100) * ratio <= achieved <= ratio
