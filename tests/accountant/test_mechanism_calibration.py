"""Calibrating one's own mechanism (accountant/mechanism_calibration.py): every value is certified by
``account`` to meet its target, a slightly better value is not, closed forms are met exactly, and
the analytic Gaussian agrees with an independent 50-digit solution of Balle–Wang's condition."""

import math
from fractions import Fraction
from typing import Any

import mpmath
import pytest
import sympy

from dpledger.accountant import account, pld_calibration
from dpledger.accountant import events as ev
from dpledger.accountant.mechanism_calibration import (
    RELATIVE_TOLERANCE,
    composition_epsilon,
    composition_noise,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
    gaussian_sigma,
    laplace_scale,
)

SLIGHTLY = 1 - 4 * RELATIVE_TOLERANCE


def _meets(calibration, value=None) -> bool:
    event = calibration.event if value is None else calibration.event_for(value)
    return account(event).guarantee.meets(calibration.target_epsilon, calibration.target_delta).holds


def _balle_wang_sigma(epsilon: str, delta: str) -> mpmath.mpf:
    """σ with Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) = δ (Balle–Wang 2018, Thm 8, Δ = 1), solved
    at 50 digits with mpmath's own erfc — independent of the project's certified Φ."""
    with mpmath.workdps(50):
        eps, dlt = mpmath.mpf(epsilon), mpmath.mpf(delta)
        phi = lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2  # noqa: E731
        gap = lambda s: phi(1 / (2 * s) - eps * s) - mpmath.exp(eps) * phi(-1 / (2 * s) - eps * s) - dlt  # noqa: E731
        low, high = mpmath.mpf("0.01"), mpmath.mpf(1000)  # δ(σ) decreases in σ: bisect
        for _ in range(200):
            middle = (low + high) / 2
            low, high = (middle, high) if gap(middle) > 0 else (low, middle)
        return high


def test_laplace_scale_is_sensitivity_over_epsilon_rounded_up():
    result = laplace_scale("3", "0.7")
    exact = Fraction(30, 7)
    assert Fraction(result.value) >= exact and Fraction(math.nextafter(result.value, 0)) < exact
    assert _meets(result) and not _meets(result, math.nextafter(result.value, 0))
    discrete = discrete_laplace_scale(2, 1)
    assert discrete.value == 2.0 and account(discrete.event).guarantee.epsilon == 1


def test_classic_gaussian_sigma_is_dwork_roth_closed_form_rounded_up():
    result = gaussian_sigma(1, "0.5", "1e-5", method="classic")
    exact = 2 * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) * 10**5))
    assert sympy.Rational(result.value) >= exact > sympy.Rational(math.nextafter(result.value, 0))
    assert _meets(result) and not _meets(result, math.nextafter(result.value, 0))


@pytest.mark.parametrize(("epsilon", "delta"), [("1", "1e-5"), ("0.2", "1e-6")])
def test_analytic_gaussian_sigma_is_balle_wang_root_rounded_up_within_tolerance(epsilon, delta):
    result = gaussian_sigma(1, epsilon, delta)
    reference = _balle_wang_sigma(epsilon, delta)
    assert reference <= result.value <= reference * (1 + 2 * RELATIVE_TOLERANCE)
    assert _meets(result) and not _meets(result, Fraction(result.value) * SLIGHTLY)


def test_analytic_gaussian_needs_less_noise_than_classic_and_discrete_gaussian_more():
    analytic = gaussian_sigma(1, "0.5", "1e-5").value
    assert analytic < gaussian_sigma(1, "0.5", "1e-5", method="classic").value
    assert analytic < discrete_gaussian_sigma(1, "0.5", "1e-5").value  # zCDP conversion is looser


CASES = [
    dict(mechanism="gaussian", k=10, method="optimal"),
    dict(mechanism="gaussian", k=10, method="basic"),
    dict(mechanism="laplace", k=10, method="advanced"),
    dict(mechanism="laplace", k=10, method="optimal"),
    dict(mechanism="discrete-gaussian", k=5, method="optimal"),
    dict(mechanism="gaussian", k=20, method="optimal", poisson_rate="0.05"),
    dict(mechanism="discrete-laplace", k=20, method="advanced", sample_size=5, population_size=100),
    pytest.param(
        dict(mechanism="gaussian", k=10, method="basic", poisson_rate="0.1", relation="substitute"),
        marks=pytest.mark.slow,
    ),  # δ₀ bound of the coupling (c = 2q); seconds of certified search
    pytest.param(
        dict(mechanism="gaussian", k=10, method="advanced", poisson_rate="0.7", relation="substitute"),
        marks=pytest.mark.slow,
    ),  # q > 1/2: c = q/(1 − q)
]


def _case_id(case: object) -> str | None:
    return "-".join(str(v) for v in case.values()) if isinstance(case, dict) else None


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_calibrated_noise_meets_the_target_and_slightly_less_noise_does_not(case):
    result = composition_noise(sensitivity=1, epsilon=1, delta="1e-5", **case)
    assert _meets(result)
    assert result.guarantee == account(result.event).guarantee
    distributions = (
        getattr(result.event, "method", None) == "pld"
    )  # the privacy-loss-distribution search's tolerance
    slightly = 1 - 4 * Fraction(pld_calibration.RELATIVE) if distributions else SLIGHTLY
    assert not _meets(result, Fraction(result.value) * slightly)


def test_optimal_gaussian_composition_is_root_k_times_one_release():
    one, ten = gaussian_sigma(1, 1, "1e-5").value, composition_noise("gaussian", 1, 1, "1e-5", k=10).value
    assert abs(ten / (one * math.sqrt(10)) - 1) < 4 * float(RELATIVE_TOLERANCE)


@pytest.mark.slow
def test_poisson_rate_and_fixed_size_share_the_amplification_bound_and_distributions_beat_it():
    sampling: list[dict[str, Any]] = [dict(poisson_rate="0.02"), dict(sample_size=2, population_size=100)]
    poisson, fixed = (
        composition_noise("gaussian", 1, 1, "1e-5", k=50, method="advanced", **s) for s in sampling
    )
    assert poisson.value == fixed.value
    assert poisson.guarantee.relation == "add_remove" and fixed.guarantee.relation == "substitute"
    unsampled = composition_noise("gaussian", 1, 1, "1e-5", k=50).value
    for s, bound in zip(sampling, (poisson, fixed), strict=True):
        tight = composition_noise("gaussian", 1, 1, "1e-5", k=50, **s)
        assert isinstance(tight.event, ev.Composition) and tight.event.method == "pld"
        assert tight.value < bound.value < unsampled


@pytest.mark.parametrize("method", ["advanced", "optimal"])
def test_per_step_epsilon_meets_the_target_and_slightly_more_does_not(method):
    result = composition_epsilon(10, 1, "1e-5", method)
    assert _meets(result) and not _meets(result, Fraction(result.value) / SLIGHTLY)


@pytest.mark.parametrize("sampling", [dict(poisson_rate="0.01"), dict(sample_size=1, population_size=100)])
def test_subsampled_per_step_epsilon_meets_the_target_under_the_sampling_relation(sampling):
    result = composition_epsilon(100, 1, "1e-5", "advanced", step_delta="1e-6", **sampling)
    assert _meets(result) and not _meets(result, Fraction(result.value) / SLIGHTLY)
    assert result.guarantee.relation == ("add_remove" if "poisson_rate" in sampling else "substitute")
    assert result.value > composition_epsilon(100, 1, "1e-5", "advanced").value


def test_per_step_epsilon_basic_is_epsilon_over_k_and_optimal_beats_advanced_and_basic():
    basic = composition_epsilon(10, 1, 0, "basic")
    assert Fraction(basic.value) <= Fraction(1, 10) < Fraction(math.nextafter(basic.value, 1))
    optimal, advanced = (
        composition_epsilon(10, 1, "1e-5").value,
        composition_epsilon(10, 1, "1e-5", "advanced").value,
    )
    assert optimal > basic.value > advanced
    with_step_delta = composition_epsilon(10, 1, "1e-5", "optimal", step_delta="1e-7")
    assert with_step_delta.value < optimal
    assert account(with_step_delta.event).guarantee.delta == sympy.Rational(1, 10**5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: laplace_scale(0, 1), "sensitivity"),
        (lambda: laplace_scale(1, "-1"), "epsilon"),
        (lambda: gaussian_sigma(1, 1, 0), "delta"),
        (lambda: gaussian_sigma(1, 1, 1), "delta"),
        (lambda: gaussian_sigma(1, 1, "1e-5", method="exact"), "method"),
        (lambda: gaussian_sigma(1, 2, "1e-5", method="classic"), "epsilon < 1"),
        (lambda: composition_noise("gauss", 1, 1, "1e-5"), "mechanism"),
        (lambda: composition_noise("gaussian", 1, 1, "1e-5", k=0), "k"),
        (lambda: composition_noise("gaussian", 1, 1, "1e-5", k=2, method="best"), "method"),
        (lambda: composition_noise("gaussian", 1, 1, "1e-5", poisson_rate="1.5"), "poisson_rate"),
        (lambda: composition_noise("gaussian", 1, 1, "1e-5", sample_size=5), "population_size"),
        (
            lambda: composition_noise("gaussian", 1, 1, "1e-5", sample_size=5, population_size=4),
            "sample_size",
        ),
        (
            lambda: composition_noise(
                "gaussian", 1, 1, "1e-5", poisson_rate="0.1", sample_size=1, population_size=9
            ),
            "not both",
        ),
        (
            lambda: composition_noise(
                "gaussian", 1, 1, "1e-5", sample_size=1, population_size=9, relation="add_remove"
            ),
            "relation",
        ),
        (lambda: composition_noise("laplace", 1, 1, 0, k=3, method="optimal"), "delta"),
        (lambda: composition_noise("gaussian-classic", 1, "0.5", "1e-5", k=3), "gaussian-classic"),
        (lambda: composition_epsilon(3, 1, "1e-5", "advanced", step_delta="1e-5"), "step_delta"),
        (lambda: composition_epsilon(3, 1, 0, "optimal"), "delta"),
        (lambda: composition_epsilon(True, 1, 0, "basic"), "k"),
        (lambda: composition_epsilon(10, 1, "1e-5", step_delta="1e-5", poisson_rate="0.1"), "step_delta"),
        (
            lambda: composition_noise("gaussian", 1, 1, "1e-5", poisson_rate=1, relation="substitute"),
            "poisson_rate 1",
        ),
    ],
)
def test_bad_input_is_a_value_error_naming_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_docs_own_code_calibrates_a_gaussian_mechanism_for_k_compositions(docs_blocks):
    """The Python of docs/calibrate.md up to and including "Your
    Gaussian mechanism, k times" runs and certifies σ for k = 10 (the whole page runs in the slow
    docs test)."""
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "calibrate.md"
    text = page.read_text(encoding="utf-8")
    section_end = text.count("\n", 0, text.index("## A per-step budget"))
    namespace: dict = {}
    for language, code, line in docs_blocks(page):
        if language == "python" and line < section_end:
            exec(compile(code, f"docs/calibrate.md, line {line}", "exec"), namespace)
    assert 11.79 < namespace["sigma"] < 11.80
    assert namespace["account"](namespace["result"].event).guarantee.meets("1", "1e-5").holds
