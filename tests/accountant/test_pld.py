"""Certified PLD accounting (accountant/pld.py, numerics/pld_pairs.py, numerics/pld_vector.py): the
certified δ(ε) and ε(δ) are never below an independent 30-digit quadrature of the hockey-stick
divergence (k = 1, 2) and close to it; never below dp_accounting's optimistic PLD on random
heterogeneous compositions; nested compositions compose their distributions; relations stay typed."""

import math

import flint
import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpledger.accountant import events as ev
from dpledger.accountant.numerics import pld_vector
from dpledger.accountant.numerics.pld_pairs import GaussianPair, LaplacePair, MixturePair, discretize
from dpledger.accountant.pld import compose, steps
from dpledger.accountant.rules import account

mpmath.mp.dps = 30


def _mixture_delta_quadrature(q: float, r: float, epsilon: float, add: bool) -> mpmath.mpf:
    """H_{e^ε} of (qN(r,1) + (1−q)N(0,1), N(0,1)) (or the reverse) by quadrature of the densities,
    split where the integrand's sign changes."""
    q, r, e = mpmath.mpf(q), mpmath.mpf(r), mpmath.e ** mpmath.mpf(epsilon)

    def phi(x):
        return mpmath.npdf(x)

    def mix(x):
        return q * phi(x - r) + (1 - q) * phi(x)

    first, second = (phi, mix) if add else (mix, phi)
    # the likelihood ratio mix/phi = 1 − q + q e^{rx − r²/2} is increasing in x
    ratio = (1 / e) if add else e
    argument = (ratio - (1 - q)) / q
    if argument <= 0:  # the ratio exceeds the threshold everywhere
        crossing = -mpmath.inf
    else:
        crossing = (mpmath.log(argument) + r * r / 2) / r
    if add:  # phi > e·mix where the ratio is small: x below the crossing
        if crossing == -mpmath.inf:
            return mpmath.mpf(0)
        return mpmath.quad(lambda x: first(x) - e * second(x), [-mpmath.inf, crossing])
    return mpmath.quad(lambda x: first(x) - e * second(x), [crossing, crossing + 10, mpmath.inf])


def _single_vector(pair, grid=14):
    return discretize(pair, grid, 1e-25)


@pytest.mark.parametrize("q, r", [(0.01, 1.0), (0.1, 1.25), (1.0, 0.5)])
@pytest.mark.parametrize("add", [False, True])
def test_single_step_delta_is_an_upper_bound_within_a_small_margin_of_the_quadrature(q, r, add):
    pair = MixturePair(GaussianPair(r), q, add)
    vector = _single_vector(pair)
    for epsilon in (0.0, 0.05, 0.3, 1.0):
        exact = _mixture_delta_quadrature(q, r, epsilon, add)
        certified = pld_vector.delta_upper(vector, epsilon)
        assert certified >= exact
        assert certified <= exact * (1 + 1e-3) + 1e-12


@pytest.mark.slow
def test_two_fold_composition_delta_bounds_the_nested_quadrature():
    """H of the 2-fold product = ∫ p(x)·H₁(ε − L(x)) dx, with H₁ itself a quadrature."""
    q, r = 0.1, 1.0
    pair = MixturePair(GaussianPair(r), q)
    vector = _single_vector(pair, 13)
    two = pld_vector.self_compose(vector, 2, 1e-15)
    qm, rm = mpmath.mpf(q), mpmath.mpf(r)
    for epsilon in (0.2, 0.8):

        def integrand(x, epsilon=epsilon):
            p = qm * mpmath.npdf(x - rm) + (1 - qm) * mpmath.npdf(x)
            loss = mpmath.log(1 - qm + qm * mpmath.e ** (rm * x - rm * rm / 2))
            return p * _mixture_delta_quadrature(q, r, float(epsilon - loss), False)

        mpmath.mp.dps = 15
        try:
            exact = mpmath.quad(integrand, [-12, -3, 0, 3, 12])
        finally:
            mpmath.mp.dps = 30
        certified = pld_vector.delta_upper(two, epsilon)
        assert certified >= exact * (1 - 1e-9)
        assert certified <= exact * 1.01 + 1e-10


def test_gaussian_composition_matches_the_exact_composed_gaussian():
    """k Gaussians of ratio r compose into one of ratio √k·r (Dong–Roth–Su): the PLD ε is above the
    exact analytic ε and within 10⁻³ relative of it."""
    event = ev.Composition((ev.Gaussian(2, "1e-6"),), method="pld", target_delta="1e-5", repeat=16)
    exact = ev.Composition((ev.Gaussian(2, "1e-6"),), method="optimal", target_delta="1e-5", repeat=16)
    pld_epsilon = account(event).guarantee.epsilon_upper
    exact_epsilon = float(account(exact).guarantee.epsilon_interval.a)
    assert exact_epsilon <= pld_epsilon <= exact_epsilon * (1 + 1e-3)


def test_laplace_single_step_matches_the_closed_form_profile():
    vector = discretize(LaplacePair(1.0), 12, 1e-25)
    for epsilon in (0.0, 0.25, 0.75):
        exact = 1 - math.exp((epsilon - 1) / 2)
        certified = pld_vector.delta_upper(vector, epsilon)
        assert exact <= certified <= exact + 1e-3


def test_nested_compositions_compose_their_distributions():
    gaussian = ev.Gaussian(3, "1e-6")
    inner = ev.Composition((gaussian,), method="optimal", target_delta="1e-6", repeat=10)
    nested = account(ev.Composition((inner,), method="pld", target_delta="1e-5", repeat=10))
    flat = account(ev.Composition((gaussian,), method="optimal", target_delta="1e-5", repeat=100))
    assert nested.guarantee.epsilon_upper == pytest.approx(flat.guarantee.epsilon_upper, rel=1e-4)
    assert nested.guarantee.epsilon_upper >= float(flat.guarantee.epsilon_interval.a)


def test_pld_composition_refuses_mixed_relations():
    mixed = ev.Composition(
        (ev.Gaussian(1, "1e-5", relation="add_remove"), ev.Gaussian(1, "1e-5")),
        method="pld",
        target_delta="1e-5",
    )
    with pytest.raises(ValueError, match="different neighbouring relations"):
        account(mixed)


def test_the_rule_states_the_grid_and_the_terms_inside_delta():
    step = ev.PoissonSubsample(ev.Gaussian(1, "1e-5", relation="add_remove"), "0.01")
    derivation = account(ev.Composition((step,), method="pld", target_delta="1e-5", repeat=100))
    assert "connect-the-dots on the grid h = 2^-" in derivation.rule
    assert "tails cut to +∞ inside δ" in derivation.rule
    assert "convolution error bound inside δ" in derivation.rule
    assert "2 orientations" in derivation.rule


def test_an_unreachable_delta_is_refused():
    step = ev.ApproxDP("0.1", "1e-3")
    with pytest.raises(ValueError, match="no ε reaches"):
        account(ev.Composition((step,), method="pld", target_delta="1e-5", repeat=10))


def test_fft_convolution_error_is_within_its_bound_against_exact_integer_convolution():
    rng = np.random.default_rng(7)
    a = rng.random(3000) ** 8
    b = rng.random(2500) ** 8
    a, b = a / a.sum() / 2, b / b.sum() / 2
    scale = 2**60
    ia = [int(x * scale) for x in a]
    ib = [int(x * scale) for x in b]
    exact = [int(c) for c in (flint.fmpz_poly(ia) * flint.fmpz_poly(ib)).coeffs()]
    da = np.array(ia, dtype=np.float64) / scale
    db = np.array(ib, dtype=np.float64) / scale
    old = pld_vector.DIRECT_MAX
    pld_vector.DIRECT_MAX = 0
    try:
        computed, bound = pld_vector._convolve_masses(da, db)
    finally:
        pld_vector.DIRECT_MAX = old
    exact_float = np.array([mpmath.mpf(c) / mpmath.mpf(scale) ** 2 for c in exact], dtype=np.float64)
    assert float(np.abs(computed - exact_float).sum()) <= bound


def _dp_accounting_optimistic(specs, delta):
    """dp_accounting's optimistic PLD (pessimistic_estimate=False): a lower estimate of ε."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for kind, parameter, rate, times in specs:
        make = pld.from_gaussian_mechanism if kind == "gaussian" else pld.from_laplace_mechanism
        one = make(
            parameter, pessimistic_estimate=False, value_discretization_interval=1e-3, sampling_prob=rate
        )
        part = one.self_compose(times)
        total = part if total is None else total.compose(part)
    assert total is not None, "no mechanism to compose"
    return total.get_epsilon_for_delta(delta)


mechanism_specs = st.tuples(
    st.sampled_from(["gaussian", "laplace"]),
    st.floats(0.7, 4.0),
    st.sampled_from([1, 0.5, 0.1, 0.02]),
    st.integers(1, 12),
)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=st.lists(mechanism_specs, min_size=1, max_size=3))
def test_certified_epsilon_is_never_below_the_optimistic_pld(specs):
    pytest.importorskip("dp_accounting.pld")  # an optional comparison library (CI installs it)
    children = []
    for kind, parameter, rate, times in specs:
        mechanism = (
            ev.Gaussian(parameter, "1e-5", relation="add_remove")
            if kind == "gaussian"
            else ev.Laplace(parameter, relation="add_remove")
        )
        child = mechanism if rate == 1 else ev.PoissonSubsample(mechanism, rate)
        children.append(ev.Composition((child,), method="basic", repeat=times))
    found, _ = steps(ev.Composition(tuple(children), method="pld", target_delta="1e-5"))
    certified = compose(found, 1e-5).epsilon
    assert certified >= _dp_accounting_optimistic(specs, 1e-5) - 1e-12


def _discrete_gaussian_exact_epsilon(sigma: float, delta: float) -> float:
    """ε of one unit-shift discrete Gaussian at δ, from a 30-digit sum over its atoms (bisection)."""
    s = mpmath.mpf(sigma)
    bound = int(20 * sigma) + 5

    def weight(z):
        return mpmath.e ** (-(mpmath.mpf(z) ** 2) / (2 * s * s))

    norm = sum(weight(z) for z in range(-bound, bound + 1))

    def profile(epsilon):
        alpha = mpmath.e**epsilon
        return sum(max(weight(z - 1) / norm - alpha * weight(z) / norm, 0) for z in range(-bound, bound + 2))

    low, high = mpmath.mpf(0), mpmath.mpf(30)
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (middle, high) if profile(middle) > delta else (low, middle)
    return float(high)


@pytest.mark.parametrize("sigma", [1.0, 3.0])
def test_discrete_gaussian_pld_is_the_exact_discrete_epsilon_from_above(sigma):
    event = ev.Composition((ev.DiscreteGaussian(sigma, 1, "1e-5"),), method="pld", target_delta="1e-5")
    certified = account(event).guarantee.epsilon_upper
    exact = _discrete_gaussian_exact_epsilon(sigma, mpmath.mpf("1e-5"))
    assert exact * (1 - 1e-12) <= certified <= exact * (1 + 1e-6)
    assert certified < account(ev.DiscreteGaussian(sigma, 1, "1e-5")).guarantee.epsilon_upper


def test_a_composition_below_the_float_rounding_floor_is_refused_before_any_convolution():
    gaussian = ev.Gaussian(1, "1e-6", 1, relation="add_remove")
    two, _ = steps(ev.Composition((gaussian,), method="pld", target_delta="1e-20", repeat=2))
    with pytest.raises(ValueError, match="2\\^-53"):
        compose(two, 1e-20)
    one, _ = steps(gaussian)
    assert math.isfinite(compose(one, 1e-20).epsilon)  # one step: no convolution, no floor


def test_a_subsampled_step_whose_losses_pass_e_to_the_709_is_refused_not_computed_as_nan():
    event = ev.PoissonSubsample(ev.Gaussian("0.01", "1e-6", 1, relation="add_remove"), "0.004")
    found, _ = steps(ev.Composition((event,), method="pld", target_delta="1e-5", repeat=2))
    with pytest.raises(ValueError, match="not representable in float64"):
        compose(found, 1e-5)


def test_a_gaussian_ratio_beyond_the_float_range_is_refused():
    with pytest.raises(ValueError, match="beyond the float range"):
        steps(ev.Gaussian("1e-400", "1e-6", 1))
