"""Laws of certified optimal composition (Kairouz–Oh–Viswanath 2015 Thm 3.3; Murtagh–Vadhan 2016
Thm 1.5), each checked against an independent reference computed here at high precision."""

from __future__ import annotations

import itertools
import math
from typing import Any, cast

import mpmath
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.accountant.numerics.optimal_composition import (
    heterogeneous_optimal_epsilon,
    homogeneous_optimal_delta,
    homogeneous_optimal_epsilon,
)

REF_DPS = 60
GAP_REL = mpf("1e-9")
GAP_ABS = mpf("1e-12")

epsilons = st.floats(1e-3, 5.0).map(mpf)
small_deltas = st.one_of(st.just(0.0), st.floats(1e-12, 1e-4)).map(mpf)
log_targets = st.floats(-12.0, -0.4)


def tight(lo: mpf, hi: mpf, ref: mpf) -> bool:
    with mp.workdps(REF_DPS):
        return hi - lo <= max(GAP_ABS, GAP_REL * abs(ref))


def contains(lo: mpf, hi: mpf, ref: mpf) -> bool:
    """lo ≤ ref ≤ hi, allowing the reference's own 60-digit error."""
    with mp.workdps(REF_DPS):
        slack = mpf(10) ** (10 - REF_DPS) * max(1, abs(ref))
        return lo <= ref + slack and ref - slack <= hi


def reachable_target(eps0: mpf, delta0: mpf, k: int, log_target: float) -> mpf:
    """A target δ strictly above 1 − (1 − δ0)^k (exact binary, like the caller's inputs)."""
    with mp.workdps(REF_DPS):
        floor = 1 - (1 - delta0) ** k
    return mpf(float(floor) + 10**log_target)


# ------------------------------------------------------------------------------------------------
# Independent references


def binomial_reference(eps0: mpf, k: int) -> list[mpf]:
    """Binomial(k, 1/(1+e^ε0)) pmf, term by term (caller sets mp.dps)."""
    r = 1 / (1 + mpmath.exp(eps0))
    return [math.comb(k, j) * r**j * (1 - r) ** (k - j) for j in range(k + 1)]


def delta_rr_reference(pmf: list[mpf], eps: mpf) -> mpf:
    """KOV Thm 3.3, literally: Σ_{j=0}^{k} max(0, pmf(j) − e^ε pmf(k−j))."""
    k = len(pmf) - 1
    scale = mpmath.exp(eps)
    return mpmath.fsum(max(mpf(0), pmf[j] - scale * pmf[k - j]) for j in range(k + 1))


def epsilon_reference(eps0: mpf, delta0: mpf, k: int, target: mpf) -> mpf:
    """Direct summation of all k+1 terms at 60 digits: bisection over the grid (k − 2i)ε0 for
    the interval where δ_RR crosses δ′, then the closed form on that interval."""
    with mp.workdps(REF_DPS + max(0, int(-mpmath.log10(target)))):  # 1 − target must not round
        pmf = binomial_reference(eps0, k)
        dprime = 1 - (1 - target) / (1 - delta0) ** k
        if delta_rr_reference(pmf, mpf(0)) <= dprime:
            return mpf(0)
        lo, hi = 0, (k + 1) // 2  # δ_RR((k − 2lo)ε0) ≤ δ′ < δ_RR(max(0, (k − 2hi)ε0))
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if delta_rr_reference(pmf, (k - 2 * mid) * eps0) <= dprime:
                lo = mid
            else:
                hi = mid
        a = mpmath.fsum(pmf[:hi])
        b = mpmath.fsum(pmf[k - hi + 1 :])
        return +mpmath.log((a - dprime) / b)


def delta_reference(eps0: mpf, delta0: mpf, k: int, eps: mpf) -> mpf:
    with mp.workdps(REF_DPS):
        rr = delta_rr_reference(binomial_reference(eps0, k), eps)
        return 1 - (1 - delta0) ** k * (1 - rr)


def product_pair(pairs: list[tuple[mpf, mpf]]) -> tuple[list[mpf], list[mpf]]:
    """The k-fold product of the KOV worst-case pairs, outcome by outcome:
    P = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0), Q = P reversed."""
    factors = []
    for eps, delta in pairs:
        up = (1 - delta) * mpmath.exp(eps) / (1 + mpmath.exp(eps))
        down = (1 - delta) / (1 + mpmath.exp(eps))
        factors.append(([delta, up, down, mpf(0)], [mpf(0), down, up, delta]))
    p_all, q_all = [], []
    for outcome in itertools.product(range(4), repeat=len(pairs)):
        p_all.append(mpmath.fprod(factors[i][0][o] for i, o in enumerate(outcome)))
        q_all.append(mpmath.fprod(factors[i][1][o] for i, o in enumerate(outcome)))
    return p_all, q_all


def bruteforce_epsilon(pairs: list[tuple[mpf, mpf]], target: mpf) -> mpf:
    """Smallest ε ≥ 0 with hockey-stick Σ max(0, P − e^ε Q) ≤ target, by bisection."""
    with mp.workdps(REF_DPS):
        p_all, q_all = product_pair(pairs)

        def hockey(eps: mpf) -> mpf:
            scale = mpmath.exp(eps)
            return mpmath.fsum(max(mpf(0), p - scale * q) for p, q in zip(p_all, q_all, strict=True))

        if hockey(mpf(0)) <= target:
            return mpf(0)
        lo, hi = mpf(0), sum(eps for eps, _ in pairs)
        for _ in range(200):  # 2^-200 · Σε is below the 60-digit slack
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if hockey(mid) <= target else (mid, hi)
        return hi


# ------------------------------------------------------------------------------------------------
# Laws


@settings(max_examples=40, deadline=None)
@given(eps0=epsilons, delta0=small_deltas, k=st.integers(1, 5000), log_target=log_targets)
@example(eps0=mpf(0.1), delta0=mpf(1e-6), k=100, log_target=-6.0)  # both comparisons apply
def test_optimal_at_most_advanced_and_basic(eps0, delta0, k, log_target):
    """KOV Thm 3.3 is optimal, so it is never worse than basic composition (kε0, kδ0) nor the
    advanced composition theorem (Thm 3.5: √(2k log(1/δ′))ε0 + kε0(e^{ε0}−1), kδ0 + δ′)."""
    advanced_slack = mpf(10) ** log_target
    with mp.workdps(40):
        basic_eps, basic_delta = k * eps0, k * delta0
        adv_eps = mpmath.sqrt(2 * k * mpmath.log(1 / advanced_slack)) * eps0 + k * eps0 * mpmath.expm1(eps0)
        adv_delta = basic_delta + advanced_slack
        reachable = 1 - (1 - delta0) ** k
    if adv_delta < 1:
        lo, hi = homogeneous_optimal_epsilon(
            eps0, delta0, k, mpmath.fadd(adv_delta, 0, prec=53, rounding="u")
        )
        assert lo <= adv_eps and hi <= adv_eps * (1 + GAP_REL) + GAP_ABS
    if reachable < basic_delta < 1:
        lo, hi = homogeneous_optimal_epsilon(eps0, delta0, k, basic_delta)
        assert lo <= basic_eps and hi <= basic_eps


@settings(max_examples=12, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from([0.1, 0.5, 1.0, 1.5]).map(mpf), small_deltas),
        min_size=1,
        max_size=4,
    ),
    log_target=st.floats(-8.0, -0.5),
)
@example(pairs=[(mpf(0.5), mpf(1e-6))] * 3, log_target=-4.0)  # equal pairs: homogeneous solver too
def test_optimal_equals_bruteforce_randomized_response(pairs, log_target):
    """Both solvers equal the hockey-stick divergence of the explicit product of KOV pairs."""
    with mp.workdps(REF_DPS):
        floor = 1 - mpmath.fprod(1 - d for _, d in pairs)
    target = mpf(float(floor) + 10**log_target)
    ref = bruteforce_epsilon(pairs, target)
    lo, hi, exact = heterogeneous_optimal_epsilon(pairs, target)
    assert exact and contains(lo, hi, ref) and tight(lo, hi, ref)
    if len({eps for eps, _ in pairs}) == 1 and len({d for _, d in pairs}) == 1:
        lo, hi = homogeneous_optimal_epsilon(pairs[0][0], pairs[0][1], len(pairs), target)
        assert contains(lo, hi, ref) and tight(lo, hi, ref)


@settings(max_examples=15, deadline=None)
@given(
    eps0=st.floats(1e-3, 3.0).map(mpf),
    delta0=small_deltas,
    k=st.integers(1, 2000),
    log_target=log_targets,
)
def test_certified_bound_above_60_digit_reference(eps0, delta0, k, log_target):
    """lo ≤ ε* ≤ hi against direct 60-digit summation of all k+1 terms, with a tiny gap."""
    target = reachable_target(eps0, delta0, k, log_target)
    assume(target < 1)
    ref = epsilon_reference(eps0, delta0, k, target)
    lo, hi = homogeneous_optimal_epsilon(eps0, delta0, k, target)
    assert contains(lo, hi, ref) and tight(lo, hi, ref)


@settings(max_examples=15, deadline=None)
@given(
    eps0=st.floats(1e-3, 3.0).map(mpf),
    delta0=small_deltas,
    k=st.integers(1, 1000),
    frac=st.floats(0.0, 1.2),
)
def test_optimal_delta_encloses_60_digit_reference(eps0, delta0, k, frac):
    """δ_total(ε) at arbitrary ε (not only grid points) is enclosed, with a small relative gap."""
    eps = mpf(float(frac * k * eps0))
    ref = delta_reference(eps0, delta0, k, eps)
    lo, hi = homogeneous_optimal_delta(eps0, delta0, k, eps)
    assert contains(lo, hi, ref)
    assert hi - lo <= max(GAP_REL * ref, mpf("1e-30"))


@settings(max_examples=25, deadline=None)
@given(eps0=epsilons, delta0=small_deltas, k=st.integers(1, 5000), log_target=log_targets)
@example(eps0=mpf(0.1), delta0=mpf(0), k=100, log_target=-6.0)  # lo > 0: both sides checked
def test_optimal_delta_inverse_of_epsilon(eps0, delta0, k, log_target):
    """δ_total(hi) ≤ target ≤ δ_total(lo), and just below hi the target is exceeded."""
    target = reachable_target(eps0, delta0, k, log_target)
    assume(target < 1)
    lo, hi = homogeneous_optimal_epsilon(eps0, delta0, k, target)
    assert homogeneous_optimal_delta(eps0, delta0, k, hi)[0] <= target
    if lo > 0:
        assert homogeneous_optimal_delta(eps0, delta0, k, lo)[1] >= target
        below = hi - max(GAP_ABS, GAP_REL * hi)
        assert below <= 0 or homogeneous_optimal_delta(eps0, delta0, k, below)[0] > target


@pytest.mark.slow
def test_large_k_does_not_overflow():
    """k = 10^6, ε0 = 1 (k·ε0 ≫ 709): finite, within [0, kε0], and δ_total at the reported ε
    matches an independent float64 log-space evaluation (scipy) of KOV Thm 3.3."""
    stats = pytest.importorskip("scipy.stats")
    special = pytest.importorskip("scipy.special")
    k, eps0, target = 10**6, mpf(1), mpf(2) ** -20
    lo, hi = homogeneous_optimal_epsilon(eps0, mpf(0), k, target)
    assert mpmath.isfinite(hi) and 0 <= lo <= hi <= k * eps0
    assert hi - lo <= GAP_REL * hi
    j = np.arange(k + 1)
    r = 1 / (1 + math.exp(1.0))
    log_pmf = stats.binom.logpmf(j, k, r)
    positive = (k - 2 * j) * 1.0 > float(hi)
    terms = log_pmf[positive] + np.log(-np.expm1(float(hi) - (k - 2 * j[positive]) * 1.0))
    delta_at_hi = math.exp(special.logsumexp(terms))
    assert delta_at_hi <= float(target) * (1 + 1e-6)
    assert delta_at_hi >= float(target) * (1 - 1e-4)


def test_heterogeneous_exact_equals_homogeneous_when_pairs_equal():
    eps0, delta0, k, target = mpf(0.25), mpf(1e-9), 300, mpf(1e-5)
    lo_h, hi_h = homogeneous_optimal_epsilon(eps0, delta0, k, target)
    lo, hi, exact = heterogeneous_optimal_epsilon([(eps0, delta0)] * k, target)
    assert exact
    assert lo <= hi_h and lo_h <= hi and tight(lo, hi, hi_h)


@settings(max_examples=10, deadline=None)
@given(
    counts=st.lists(st.integers(1, 60), min_size=2, max_size=3),
    eps_values=st.lists(st.floats(0.01, 2.0), min_size=3, max_size=3, unique=True),
    delta0=small_deltas,
    log_target=st.floats(-10.0, -1.0),
)
# Regressions: with a fixed max_states=8 these 4 atoms were convolved exactly, so the fallback was
# never reached (the case hypothesis 6.170 reports); 61³ incommensurate atoms exceed the default
# max_states, so the "exact" side fell back too; binomials cut to windows made "atoms − 1" too
# large a limit to force the fallback (counts 1 and 44).
@example(counts=[1, 44], eps_values=[1.0, 2.0, 1.5], delta0=mpf(0), log_target=-1.0)
@example(counts=[1, 1], eps_values=[1.0, 2.0, 0.5], delta0=mpf(0), log_target=-1.0)
@example(
    counts=[60, 60, 60],
    eps_values=[1 / math.pi, 1 / math.e, math.sqrt(2) / 3],
    delta0=mpf(1e-9),
    log_target=-6.0,
)
def test_heterogeneous_fallback_at_least_exact(counts, eps_values, delta0, log_target):
    """The fallback (monotonicity in every ε_i) encloses the exact optimum: fallback.lo ≤
    exact.hi and fallback.hi ≥ exact.lo; its hi is at least the true value.

    max_states = 1 forces the fallback for every input (two groups give at least two atoms
    whatever windows their binomials are cut to), and 10^6 (above 61³, the most atoms three groups
    of at most 60 can have) keeps the other exact."""
    groups = dict(zip(eps_values, counts, strict=False))  # the first len(counts) of the ε values
    pairs = [(mpf(e), delta0) for e, c in groups.items() for _ in range(c)]
    target = reachable_target(mpf(1), delta0, len(pairs), log_target)
    assume(target < 1)
    lo, hi, exact = heterogeneous_optimal_epsilon(pairs, target, max_states=10**6)
    f_lo, f_hi, f_exact = heterogeneous_optimal_epsilon(pairs, target, max_states=1)
    assert exact and not f_exact
    assert f_lo <= hi and lo <= f_hi and f_lo <= f_hi


def test_heterogeneous_falls_back_past_default_max_states():
    """ε = 1/π, 1/e, √2/3 (as doubles) with 60 mechanisms each: 61³ > 200 000 distinct sums."""
    pairs = [(mpf(e), mpf(0)) for e in (1 / math.pi, 1 / math.e, math.sqrt(2) / 3) for _ in range(60)]
    lo, hi, exact = heterogeneous_optimal_epsilon(pairs, mpf(1e-6), max_states=300_000)
    f_lo, f_hi, f_exact = heterogeneous_optimal_epsilon(pairs, mpf(1e-6))
    assert exact and not f_exact
    assert f_lo <= lo and hi <= f_hi


def test_heterogeneous_merges_commensurate_losses_and_is_monotone():
    """ε ∈ {0.5, 1} merge to 401 distinct sums, so 200 + 100 mechanisms stay exact; the optimum
    lies between 400-fold ε=0.5 (RR(1) dominates RR(0.5)∘RR(0.5)) and 300-fold ε=1."""
    pairs = [(mpf(0.5), mpf(0))] * 200 + [(mpf(1), mpf(0))] * 100
    lo, hi, exact = heterogeneous_optimal_epsilon(pairs, mpf(1e-6), max_states=1000)
    assert exact and tight(lo, hi, hi)
    below = homogeneous_optimal_epsilon(mpf(0.5), mpf(0), 400, mpf(1e-6))
    above = homogeneous_optimal_epsilon(mpf(1), mpf(0), 300, mpf(1e-6))
    assert below[0] <= hi and lo <= above[1]


def test_heterogeneous_exact_keys_beyond_int64():
    """ε = 1e-3 and 1.5 share the unit 2^-62, so exact sums exceed int64: still exact."""
    pairs = [(mpf(1e-3), mpf(0)), (mpf(1e-3), mpf(1e-9)), (mpf(1.5), mpf(0)), (mpf(1.5), mpf(0))]
    target = mpf(1e-4)
    ref = bruteforce_epsilon(pairs, target)
    lo, hi, exact = heterogeneous_optimal_epsilon(pairs, target)
    assert exact and contains(lo, hi, ref) and tight(lo, hi, ref)


def test_zero_epsilon_when_total_variation_within_budget():
    """δ_RR(0) ≤ δ′ gives exactly ε* = 0, reported as (0, 0)."""
    assert homogeneous_optimal_epsilon(mpf(1), mpf(0), 4, mpf(0.99)) == (0, 0)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: homogeneous_optimal_epsilon(mpf(0), mpf(0), 10, mpf(1e-6)), "epsilon"),
        (lambda: homogeneous_optimal_epsilon(mpmath.nan, mpf(0), 10, mpf(1e-6)), "epsilon"),
        (lambda: homogeneous_optimal_epsilon(mpmath.inf, mpf(0), 10, mpf(1e-6)), "epsilon"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(1), 10, mpf(1e-6)), "delta"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(-1e-9), 10, mpf(1e-6)), "delta"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(0), 0, mpf(1e-6)), "k"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(0), cast(Any, 2.5), mpf(1e-6)), "k"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(0), 10, mpf(0)), "target_delta"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(0), 10, mpf(1)), "target_delta"),
        (lambda: homogeneous_optimal_epsilon(mpf(1), mpf(1e-3), 10, mpf(1e-3)), "target_delta"),
        (lambda: homogeneous_optimal_delta(mpf(1), mpf(0), 10, mpf(-1)), "at_epsilon"),
        (lambda: homogeneous_optimal_delta(mpf(1), mpf(0), 10, mpmath.nan), "at_epsilon"),
        (lambda: heterogeneous_optimal_epsilon([], mpf(1e-6)), "pairs"),
        (
            lambda: heterogeneous_optimal_epsilon([(mpf(1), mpf(0)), (mpf(-1), mpf(0))], mpf(1e-6)),
            r"pairs\[1\] epsilon",
        ),
        (lambda: heterogeneous_optimal_epsilon([(mpf(1), mpf(2))], mpf(1e-6)), r"pairs\[0\] delta"),
        (lambda: heterogeneous_optimal_epsilon([(mpf(1), mpf(0.1))], mpf(0.05)), "target_delta"),
        (
            lambda: heterogeneous_optimal_epsilon([(mpf(1), mpf(0))], mpf(1e-6), max_states=0),
            "max_states",
        ),
        (lambda: homogeneous_optimal_epsilon(mpf(2) ** 40, mpf(0), 2**13, mpf(1e-6)), "epsilon"),
        (
            lambda: heterogeneous_optimal_epsilon([(mpf(2) ** 53, mpf(0))], mpf(1e-6)),
            "pairs epsilon",
        ),
    ],
)
def test_bad_input_raises_value_error_naming_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


# ------------------------------------------------------------------------------------------------
# Cross-check against Google's dp_accounting


@pytest.mark.parametrize(
    ("eps0", "delta0", "k", "target"),
    [(0.1, 0.0, 50, 1e-6), (0.5, 1e-7, 20, 1e-4), (1.0, 0.0, 10, 1e-3)],
)
def test_agrees_with_dp_accounting_pld_and_advanced_composition(eps0, delta0, k, target):
    """dp_accounting's pessimistic PLD lies within its discretisation (k·1e-4) above the optimum,
    up to its float64 error (at k = 1e4 it was seen 9e-9 relative *below* the certified value,
    hence the relative slack); its advanced_composition (KOV at grid points (k − 2i)ε0 only) is
    ≥ ours and within 2ε0."""
    dp_accounting = pytest.importorskip("dp_accounting")
    pld = dp_accounting.pld.privacy_loss_distribution
    params = dp_accounting.pld.common.DifferentialPrivacyParameters(eps0, delta0)
    lo, hi = homogeneous_optimal_epsilon(mpf(eps0), mpf(delta0), k, mpf(target))
    interval = 1e-4
    composed = pld.from_privacy_parameters(params, value_discretization_interval=interval).self_compose(k)
    pld_eps = composed.get_epsilon_for_delta(target)
    assert float(lo) <= pld_eps * (1 + 1e-7)
    assert pld_eps <= float(hi) + k * interval + 1e-9
    advanced_composition = getattr(dp_accounting.pld.accountant, "advanced_composition", None)
    if advanced_composition is not None:
        grid_eps = advanced_composition(params, k, target)
        assert float(lo) <= grid_eps + 1e-9 and grid_eps <= float(hi) + 2 * eps0 + 1e-9


def test_inputs_are_read_exactly_not_rounded_to_working_precision():
    """A 200-bit ε0 = 1 + 2^-100 must not be read as 1 (that would under-report ε)."""
    with mp.workprec(200):
        eps0 = mpf(1) + mpf(2) ** -100
    _, hi = homogeneous_optimal_epsilon(eps0, mpf(0), 1, mpf(2) ** -900)
    with mp.workprec(200):
        assert hi >= 1 + mpf(2) ** -101


# ------------------------------------------------------------------------------------------------
# Any k: the binomial summed on a window, its tails certified


def windowed_reference_delta(eps0: mpf, k: int, eps: mpf, sigmas: int = 13) -> tuple[mpf, mpf]:
    """[lower, upper] of δ_RR(ε) for k-fold ε0 pure composition, independently of the module:
    every pmf(j) for |j − kr| ≤ 13σ from mpmath's log-gamma at 40 digits, summed literally as
    Σ max(0, pmf(j) − e^ε pmf(k − j)); the mass outside the window (1 − its sum) widens the upper end."""
    with mp.workdps(40):
        r = 1 / (1 + mpmath.exp(eps0))
        log_r, log_s, log_full = mpmath.log(r), mpmath.log(1 - r), mpmath.loggamma(k + 1)

        def pmf(j: int) -> mpf:
            return mpmath.exp(
                log_full - mpmath.loggamma(j + 1) - mpmath.loggamma(k - j + 1) + j * log_r + (k - j) * log_s
            )

        centre, spread = float(k * r), sigmas * math.sqrt(float(k * r * (1 - r))) + 10
        window = range(max(0, math.floor(centre - spread)), min(k, math.ceil(centre + spread)) + 1)
        scale = mpmath.exp(eps)
        mass, total = mpf(0), mpf(0)
        for j in window:
            p = pmf(j)
            mass += p
            if (k - 2 * j) * eps0 > eps:
                total += p - scale * pmf(k - j)
        return total, total + abs(1 - mass) + mpf(10) ** -35


@pytest.mark.slow
def test_two_million_mechanisms_match_an_independent_mpmath_sum():
    """k = 2·10⁶, ε0 = 10⁻⁴, δ = 10⁻⁶: δ_RR at the reported upper end is ≤ δ, and 10⁻⁹ below the
    lower end it is > δ, by the independent 40-digit summation above (the advanced
    bound is 22% above)."""
    eps0, k, target = mpf(1e-4), 2 * 10**6, mpf(1e-6)
    lo, hi = homogeneous_optimal_epsilon(eps0, mpf(0), k, target)
    assert hi - lo <= GAP_REL * hi
    assert windowed_reference_delta(eps0, k, hi)[1] <= target
    assert windowed_reference_delta(eps0, k, lo * (1 - mpf(1e-9)))[0] > target
    assert float(hi) == pytest.approx(0.5750548066592, rel=1e-12)


def test_one_million_and_one_mechanisms_give_the_exact_value_of_issue_17():
    lo, hi = homogeneous_optimal_epsilon(mpf(1e-4), mpf(0), 10**6 + 1, mpf(1e-6))
    assert float(lo) == pytest.approx(0.39686, abs=5e-6) and hi - lo <= GAP_REL * hi


@settings(max_examples=12, deadline=None)
@given(eps0=st.floats(1e-4, 0.5).map(mpf), k=st.integers(2000, 60_000), log_target=st.floats(-14.0, -2.0))
def test_windowed_binomial_encloses_the_full_sum(eps0, k, log_target):
    """The law cut to a window with certified tails and the full law (every j = 0..k) give
    overlapping enclosures of ε*, both tight."""
    from dpledger.accountant.numerics import optimal_composition as oc
    from dpledger.accountant.numerics.certified import interval_precision

    target = mpf(10**log_target)
    with interval_precision(oc._precision_for(target)):
        dprime = oc._dprime(oc._survival([(mpf(0), k)]), target)
        window = oc._homogeneous_distribution(eps0, k, oc._tail_budget(dprime))
        full = oc._homogeneous_distribution(eps0, k)
        w_lo, w_hi = oc._solve_epsilon(window, dprime)
        f_lo, f_hi = oc._solve_epsilon(full, dprime)
    assert w_lo <= f_hi and f_lo <= w_hi
    assert tight(w_lo, w_hi, f_hi) and tight(f_lo, f_hi, f_hi)


@pytest.mark.parametrize("k", [10**8, 10**9])
def test_up_to_a_billion_mechanisms_within_the_advanced_bound(k):
    """Certified at any k: finite, tight, and below Theorem 3.5's bound (the optimum is)."""
    eps0, target = mpf(1e-4), mpf(1e-6)
    lo, hi = homogeneous_optimal_epsilon(eps0, mpf(0), k, target)
    advanced = math.sqrt(2 * k * math.log(1 / float(target))) * float(eps0) + k * float(eps0) * math.expm1(
        float(eps0)
    )
    assert 0 < lo <= hi < advanced and hi - lo <= GAP_REL * hi


def test_heterogeneous_lattice_bracket_encloses_the_exact_optimum_and_beats_the_homogeneous_one():
    """300 + 300 mechanisms with ε = 1/10, 1/7: forced past a 20 000-atom limit, every ε rounded up
    (down) to a binary lattice brackets the exact optimum, far tighter than the homogeneous
    optima at max and min ε."""
    # Doubles, read exactly: mpf(1)/10 and mpf(1)/7 at another module's mp.dps = 60 happen to be
    # in the exact ratio 7 : 10, and their law then merges into a few thousand atoms.
    tenth, seventh = mpf(0.1), mpf(1 / 7)
    pairs = [(tenth, mpf(0))] * 300 + [(seventh, mpf(0))] * 300
    target = mpf(1e-6)
    lo, hi, exact = heterogeneous_optimal_epsilon(pairs, target)
    f_lo, f_hi, f_exact = heterogeneous_optimal_epsilon(pairs, target, max_states=20_000)
    assert exact and not f_exact
    assert f_lo <= lo and hi <= f_hi
    h_lo = homogeneous_optimal_epsilon(tenth, mpf(0), 600, target)[0]
    h_hi = homogeneous_optimal_epsilon(seventh, mpf(0), 600, target)[1]
    assert (f_hi - f_lo) * 4 < h_hi - h_lo


@pytest.mark.slow
def test_optimal_delta_inverts_optimal_epsilon_at_a_billion_mechanisms():
    """k = 10⁹: the optimal δ (its own window, the atoms near ε summed one by one) at the reported
    upper end of ε is ≤ the target, and 10⁻⁹ below the lower end it is above it."""
    eps0, k, target = mpf(1e-4), 10**9, mpf(1e-6)
    lo, hi = homogeneous_optimal_epsilon(eps0, mpf(0), k, target)
    assert homogeneous_optimal_delta(eps0, mpf(0), k, hi)[1] <= target
    assert homogeneous_optimal_delta(eps0, mpf(0), k, lo * (1 - mpf(1e-9)))[0] > target


@pytest.mark.parametrize(
    "leaf",
    [
        ev.Laplace(sensitivity=1, scale=10),
        ev.PureDP("0.1"),
        ev.Gaussian(sensitivity=1, sigma=8, delta="1e-7"),
    ],
    ids=["laplace", "pure", "gaussian"],
)
def test_nested_optimal_compositions_are_as_tight_as_the_flat_composition(leaf):
    epoch = ev.Composition((leaf,), method="optimal", target_delta="1e-6", repeat=10)
    nested = ev.Composition((epoch,), method="optimal", target_delta="1e-5", repeat=10)
    flat = ev.Composition((leaf,), method="optimal", target_delta="1e-5", repeat=100)
    assert account(nested).guarantee.epsilon_upper <= account(flat).guarantee.epsilon_upper
    grouped = ev.Composition((epoch,), method="basic", repeat=10)
    assert account(nested).guarantee.epsilon_upper < account(grouped).guarantee.epsilon_upper / 2


def test_a_flattened_composition_whose_delta_cannot_be_reached_is_left_out():
    # 50 Gaussians at δ_i = 10⁻⁶ each compose exactly inside the epoch; flat with a Laplace release their
    # own δ_i would sum past the target, so only the children's composition certifies
    gaussians = ev.Composition(
        (ev.Gaussian(sensitivity=1, sigma=2, delta="1e-6"),), method="optimal", target_delta="1e-6", repeat=50
    )
    mixed = ev.Composition(
        (gaussians, ev.Laplace(sensitivity=1, scale=10)), method="optimal", target_delta="1e-5"
    )
    derivation = account(mixed)
    assert derivation.guarantee.epsilon_upper < 30
    assert "nested mechanisms, flat" not in derivation.rule
