"""Certified calibration solvers against closed forms."""

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.accountant.calibration import (
    largest_integer,
    largest_integer_from,
    largest_rate,
    smallest_integer,
    smallest_noise,
)


@given(st.integers(1, 10**6), st.integers(1, 10**6))
def test_integer_searches_find_the_threshold(threshold, high):
    ok = lambda x: x <= threshold  # noqa: E731
    expected = min(threshold, high)
    assert largest_integer(ok, 1, high) == expected
    assert largest_integer_from(ok, max(1, high // 7), high) == expected
    assert smallest_integer(lambda x: x >= threshold, 1, high) == (threshold if threshold <= high else None)


@settings(max_examples=15)
@given(
    st.fractions(min_value=Fraction(1, 2), max_value=5, max_denominator=10),
    st.fractions(min_value=Fraction(1, 100), max_value=Fraction(1, 2), max_denominator=100),
)
def test_largest_rate_matches_theorem_3_4_inverse_and_is_certified(inner, target):
    rate = largest_rate(lambda q: ev.PoissonSubsample(ev.PureDP(inner, relation="add_remove"), q), target, 0)
    exact = (mpmath.exp(mpmath.mpf(target.numerator) / target.denominator) - 1) / (
        mpmath.exp(mpmath.mpf(inner.numerator) / inner.denominator) - 1
    )
    assert rate is not None
    rate_value = mpmath.mpf(rate.numerator) / rate.denominator
    assert rate_value <= exact
    assert exact - rate_value <= mpmath.mpf(2) ** -29
    assert (
        account(ev.PoissonSubsample(ev.PureDP(inner, relation="add_remove"), rate))
        .guarantee.meets(target, 0)
        .holds
    )


@settings(max_examples=15)
@given(st.fractions(min_value=Fraction(1, 10), max_value=5, max_denominator=10))
def test_smallest_laplace_noise_is_sensitivity_over_epsilon(target):
    scale = smallest_noise(lambda b: ev.Laplace(b, 1), target, 0)
    assert scale >= 1 / target
    assert scale - 1 / target <= scale * Fraction(1, 2**29)


def test_smallest_integer_to_precision_is_exact_below_2_to_60_and_relative_beyond():
    from dpledger.accountant.calibration import smallest_integer, smallest_integer_to_precision

    for threshold in (1, 17, 10**6 + 3):
        at_least = lambda x, t=threshold: x >= t  # noqa: E731
        assert (
            smallest_integer_to_precision(at_least, 1, 10**7)
            == smallest_integer(at_least, 1, 10**7)
            == threshold
        )
    calls = []
    threshold = 3 * 10**300 + 12345

    def ok(x: int) -> bool:
        calls.append(x)
        return x >= threshold

    found = smallest_integer_to_precision(ok, 1, 10**301)
    assert found is not None and ok(found) and found - threshold <= found >> 60 and len(calls) < 200
    assert smallest_integer_to_precision(lambda x: False, 1, 10) is None
