"""The discrete Gaussian and discrete Laplace events (Canonne–Kamath–Steinke 2020): their rules
are certified upper bounds on the exact privacy profile, computed here independently by summing
the pmfs at 60 digits."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.accountant.numerics.certified import certainly_le, enclose
from dpledger.accountant.serialization import dumps, loads

mpmath.mp.dps = 60


def _pmf(s: int | float, width: int) -> dict[int, mpmath.mpf]:
    """N_Z(0, s²) on |z| ≤ width, normalised over that range (the tail beyond is < 10⁻⁶⁰)."""
    weights = {
        z: mpmath.exp(-(mpmath.mpf(z) ** 2) / (2 * mpmath.mpf(s) ** 2)) for z in range(-width, width + 1)
    }
    total = mpmath.fsum(weights.values())
    return {z: w / total for z, w in weights.items()}


def _convolve(a: dict[int, mpmath.mpf], b: dict[int, mpmath.mpf]) -> dict[int, mpmath.mpf]:
    out: dict[int, mpmath.mpf] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, mpmath.mpf(0)) + p * q
    return out


def exact_delta(s: int | float, shift: int, epsilon: mpmath.mpf, coordinates: int = 1) -> mpmath.mpf:
    """Hockey-stick δ(ε) = Σ_z max(0, P(z) − e^ε Q(z)) between N_Z(0, s²)^T and N_Z(μ, s²)^T with
    μ = (shift, …, shift): the log-ratio ((Tshift² − 2shift·Σz_i)/(2s²)) depends only on w = Σz_i,
    so δ = Σ_w P(w)·max(0, 1 − e^{ε − L(w)}), P(w) the T-fold convolution of the pmf."""
    base = _pmf(s, int(20 * s) + 20)
    total = base
    for _ in range(coordinates - 1):
        total = _convolve(total, base)
    loss = lambda w: (coordinates * shift**2 - 2 * shift * w) / (2 * mpmath.mpf(s) ** 2)  # noqa: E731
    return mpmath.fsum(p * max(mpmath.mpf(0), 1 - mpmath.exp(epsilon - loss(w))) for w, p in total.items())


def _epsilon_lower(expression: sympy.Expr) -> mpmath.mpf:
    return mpmath.mpf(enclose(expression).a)


@pytest.mark.parametrize("s, shift", [(2, 1), (3, 2), (5, 1), (1, 1)])
@pytest.mark.parametrize("delta", ["1e-3", "1e-6"])
def test_discrete_gaussian_rule_bounds_the_exact_hockey_stick_of_the_shifted_pmf(
    s: int, shift: int, delta: str
) -> None:
    derivation = account(ev.DiscreteGaussian(s, shift, delta))
    epsilon = _epsilon_lower(derivation.guarantee.epsilon)  # the smallest ε the rule could mean
    assert exact_delta(s, shift, epsilon) <= mpmath.mpf(delta)


def test_discrete_gaussian_rule_is_not_vacuous() -> None:
    """The rule's ε is within a factor 1.5 of the exact smallest ε at the same δ (a rule that
    always answered a huge ε would pass the bound test above)."""
    s, shift, delta = 3, 2, mpmath.mpf("1e-6")
    claimed = _epsilon_lower(account(ev.DiscreteGaussian(s, shift, "1e-6")).guarantee.epsilon)
    exact = mpmath.findroot(
        lambda e: exact_delta(s, shift, e) - delta, (claimed / 4, claimed), solver="anderson"
    )
    assert exact <= claimed <= 1.5 * exact


def test_discrete_gaussian_rule_is_cks_corollary_13_and_beats_bun_steinke() -> None:
    derivation = account(ev.DiscreteGaussian(4, 1, "1e-5"))
    rho, log_inv = 1 / 32, math.log(1e5)
    epsilon = float(derivation.guarantee.epsilon_upper)
    assert epsilon <= rho + 2 * math.sqrt(rho * log_inv)  # Bun–Steinke 2016, Prop 1.3
    assert epsilon >= rho + log_inv / 100  # a real (ε, δ) bound, not ρ alone
    assert "Canonne–Kamath–Steinke 2020" in derivation.source


@pytest.mark.parametrize("steps", [2, 4])
def test_zcdp_composition_of_discrete_gaussians_bounds_the_exact_composed_hockey_stick(steps: int) -> None:
    step = ev.DiscreteGaussian(2, 1, "1e-9")
    composed = account(ev.Composition((step,), method="optimal", target_delta="1e-4", repeat=steps))
    assert "zCDP composition" in composed.rule
    epsilon = _epsilon_lower(composed.guarantee.epsilon)
    assert exact_delta(2, 1, epsilon, coordinates=steps) <= mpmath.mpf("1e-4")
    # ρ adds up: T steps of ρ are one step of Tρ (shift √T in one coordinate has ρ = T/(2s²))
    single = account(ev.DiscreteGaussian(2, sympy.sqrt(steps), "1e-4"))
    assert certainly_le(composed.guarantee.epsilon, single.guarantee.epsilon)
    assert certainly_le(single.guarantee.epsilon, composed.guarantee.epsilon)


def test_zcdp_composition_is_tighter_than_advanced_composition_of_the_same_steps() -> None:
    step = ev.DiscreteGaussian(8, 1, "1e-8")
    optimal = account(ev.Composition((step,), method="optimal", target_delta="1e-5", repeat=100))
    advanced = account(ev.Composition((step,), method="advanced", target_delta="1e-5", repeat=100))
    assert certainly_le(optimal.guarantee.epsilon, advanced.guarantee.epsilon)


@pytest.mark.parametrize("t, shift", [(Fraction(3, 2), 1), (4, 3), (1, 2)])
def test_discrete_laplace_rule_is_the_exact_worst_log_ratio_of_the_shifted_pmf(
    t: Fraction, shift: int
) -> None:
    derivation = account(ev.DiscreteLaplace(t, shift))
    assert derivation.guarantee.delta == 0
    scale = mpmath.mpf(t.numerator) / t.denominator if isinstance(t, Fraction) else mpmath.mpf(t)
    worst = max(abs(mpmath.mpf(abs(z) - abs(z - shift))) / scale for z in range(-50, 51))
    assert derivation.guarantee.epsilon == sympy.Rational(shift) / sympy.Rational(
        Fraction(t).numerator, Fraction(t).denominator
    )
    assert abs(shift / scale - worst) < mpmath.mpf(10) ** -50


def test_discrete_events_keep_their_relation_and_survive_the_json_round_trip() -> None:
    for event in (ev.DiscreteGaussian(3, 1, "1e-6", relation="add_remove"), ev.DiscreteLaplace(2, 1)):
        assert loads(dumps(event)) == event
    with pytest.raises(ValueError, match="different neighbouring relations"):
        account(
            ev.Composition(
                (ev.DiscreteGaussian(3, 1, "1e-6", relation="add_remove"), ev.DiscreteLaplace(2, 1))
            )
        )


def test_discrete_events_refuse_invalid_parameters() -> None:
    with pytest.raises(ValueError):
        ev.DiscreteGaussian(0, 1, "1e-6")
    with pytest.raises(ValueError):
        ev.DiscreteGaussian(1, 1, 0)
    with pytest.raises(ValueError):
        ev.DiscreteLaplace(1, -1)
