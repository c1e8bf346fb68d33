"""Discrete Gaussian and discrete Laplace noise calibrated so that the accountant *certifies* the target.

The learners draw their noise exactly on a grid (:mod:`dpledger.learners.noise`): a statistic of
L2 sensitivity Δ in D coordinates, noise scale σ and grid γ gives the event
DiscreteGaussian(s = σ/γ, Δ′ = Δ/γ + √D, δ), which is ρ-zCDP with ρ = Δ′²/(2s²) = μ²/2 for the
scale-free ratio μ = Δ′/s = (Δ + √D·γ)/σ (Canonne–Kamath–Steinke 2020, Thm 4). ρ-zCDP gives
(ε, δ)-DP with ε = min_{α>1} αρ + (ln(1/δ) + (α−1)ln(α−1) − α ln α)/(α−1) (CKS 2020, Cor 13).

:func:`certified_ratio` returns a ratio μ for which the accountant certifies the target for the
noise event: we find the largest ρ with ε(ρ, δ) ≤ ε by float bisection, shrink μ by a relative
margin of 10⁻⁶ and have the accountant confirm the event at that exact ratio (shrinking further
until it does). :func:`sigma_for` then picks σ (a float, rounded up) with (Δ + √D·γ(σ))/σ ≤ μ,
so the grid-rounding term is paid for.

T adaptive steps on the same data (the private L1 optimiser) are recorded as
``Composition(DiscreteGaussian(s, Δ′, δ₀) × T, method, target_delta=δ)`` with δ₀ = δ/(2T).
``optimal``: zCDP composition, ρ = Tμ²/2 converted once at δ (Bun–Steinke 2016, Lemma 2.3);
``advanced``: the per-step ε₀ at δ₀ solves √(2T ln(1/δ′))ε₀ + Tε₀(e^{ε₀} − 1) = ε with
δ′ = δ/2 (Dwork–Roth 2014, Theorem 3.20).

Laplace noise: the discrete Laplace of scale b (grid γ) on D coordinates of L1 sensitivity Δ₁ is
((Δ₁ + D·γ)/b)-DP; :func:`laplace_scale` picks b with that ≤ ε.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from scipy.optimize import brentq

from dpledger.accountant import account
from dpledger.accountant.events import Composition, DiscreteGaussian, Event
from dpledger.accountant.rules import zcdp_alpha
from dpledger.learners.noise import grid
from dpledger.learners.randomness import as_fraction

MARGIN = 1e-6
SMALLEST_DELTA = Fraction(1, 10**300)
"""The smallest target δ the noise search takes: its starting point is a float computation."""
COMPOSITION_METHODS = ("advanced", "optimal")


def check_privacy(epsilon: Any, delta: Any) -> tuple[Fraction, Fraction] | None:
    """(ε, δ) as Fractions with 0 < ε ≤ 100 and 10⁻³⁰⁰ ≤ δ < 1; None when ``epsilon`` is None
    (privacy off)."""
    if epsilon is None:
        return None
    eps = as_fraction(epsilon, "epsilon")
    if not 0 < eps <= 100:
        raise ValueError(f"epsilon must be in (0, 100], got {epsilon}")
    if delta is None:
        raise ValueError("delta must be given (in (0, 1)) when epsilon is")
    dlt = as_fraction(delta, "delta")
    if not 0 < dlt < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    if dlt < SMALLEST_DELTA:
        raise ValueError(
            "delta is below 1e-300: the noise search starts from a float estimate, "
            "which cannot represent it; use δ ≥ 1e-300"
        )
    return eps, dlt


def advanced_step_epsilon(epsilon: float, steps: int, slack: float) -> float:
    """ε₀ with √(2T ln(1/δ′))ε₀ + Tε₀(e^{ε₀} − 1) = ε (Dwork–Roth 2014, Theorem 3.20)."""
    root = math.sqrt(2 * steps * math.log(1 / slack))
    return brentq(lambda e: root * e + steps * e * math.expm1(e) - epsilon, 0.0, epsilon)


def step_delta(delta: Fraction, steps: int) -> Fraction:
    """δ₀ = δ/(2T) for T composed steps; δ itself for a single step."""
    return delta if steps == 1 else delta / (2 * steps)


def noise_event(sigma_units: Any, sensitivity_units: Any, delta: Fraction, steps: int, method: str) -> Event:
    """The event of one discrete Gaussian step (grid units: s, Δ′), or of T adaptively composed
    steps on the same data."""
    step = DiscreteGaussian(
        sigma_units=sigma_units, sensitivity_units=sensitivity_units, delta=step_delta(delta, steps)
    )
    if steps == 1:
        return step
    return Composition(children=(step,), method=method, target_delta=delta, repeat=steps)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """ε of ρ-zCDP at δ by CKS 2020, Cor 13 at a near-optimal α (floats)."""
    alpha = float(zcdp_alpha(rho, delta))
    return alpha * rho + (
        math.log(1 / delta) + (alpha - 1) * math.log(alpha - 1) - alpha * math.log(alpha)
    ) / (alpha - 1)


def largest_rho(epsilon: float, delta: float) -> float:
    """The largest ρ with zcdp_epsilon(ρ, δ) ≤ ε (float bisection; not yet certified)."""
    high = 1.0
    while zcdp_epsilon(high, delta) < epsilon:
        high *= 2
    return brentq(lambda rho: zcdp_epsilon(rho, delta) - epsilon, 1e-300, high, xtol=1e-300, rtol=1e-13)


def _certified(ratio: Fraction, epsilon: Fraction, delta: Fraction, steps: int, method: str) -> bool:
    event = noise_event(1, ratio, delta, steps, method)
    return account(event).guarantee.meets(epsilon, delta).holds


@lru_cache(maxsize=256)
def certified_ratio(epsilon: Fraction, delta: Fraction, steps: int = 1, method: str = "advanced") -> Fraction:
    """A ratio μ = Δ′/s (grid units) for which the accountant certifies (ε, δ) for the noise event."""
    if method not in COMPOSITION_METHODS:
        raise ValueError(f"composition must be one of {COMPOSITION_METHODS}, got {method!r}")
    if not (isinstance(steps, int) and steps >= 1):
        raise ValueError(f"steps must be an integer ≥ 1, got {steps!r}")
    if steps == 1 or method == "optimal":
        guess = math.sqrt(2 * largest_rho(float(epsilon), float(delta)) / steps)
    else:
        eps0 = advanced_step_epsilon(float(epsilon), steps, float(delta) / 2)
        guess = math.sqrt(2 * largest_rho(eps0, float(step_delta(delta, steps))))
    ratio = Fraction(guess * (1 - MARGIN))
    for _ in range(60):
        if _certified(ratio, epsilon, delta, steps, method):
            return ratio
        ratio *= Fraction(999, 1000)
    raise RuntimeError(
        f"could not certify a discrete Gaussian noise level for ε={epsilon}, δ={delta}, T={steps}"
    )


def _sqrt_upper(dimension: int) -> Fraction:
    """A rational ≥ √D (within 2⁻⁴⁰)."""
    return Fraction(math.isqrt(dimension * 4**40) + 1, 2**40)


def _float_up(value: Fraction) -> float:
    rounded = float(value)
    return rounded if Fraction(rounded) >= value else math.nextafter(rounded, math.inf)


def sigma_for(sensitivity: Fraction, ratio: Fraction, dimension: int = 1) -> float:
    """σ (a float) with (Δ + √D·γ(σ))/σ ≤ μ = ``ratio``, γ(σ) = :func:`~dpledger.learners.noise.grid`
    (σ): the discrete Gaussian event of the draw then has Δ′/s ≤ μ, grid rounding included.
    Iterated because γ depends on σ (it grows at most once: a step past a power of two)."""
    sensitivity = as_fraction(sensitivity, "sensitivity")
    sigma = _float_up(sensitivity / ratio)
    for _ in range(8):
        needed = (sensitivity + _sqrt_upper(dimension) * Fraction(grid(sigma))) / ratio
        if Fraction(sigma) >= needed:
            return sigma
        sigma = _float_up(needed)
    raise RuntimeError("sigma_for did not settle")  # unreachable: γ grows at most once


def laplace_scale(sensitivity: Fraction, epsilon: Fraction, dimension: int = 1) -> float:
    """b (a float) with (Δ₁ + D·γ(b))/b ≤ ε: the discrete Laplace event of the draw, (Δ₁/γ + D)/(b/γ),
    is then ≤ ε, grid rounding included."""
    sensitivity, epsilon = as_fraction(sensitivity, "sensitivity"), as_fraction(epsilon, "epsilon")
    scale = _float_up(sensitivity / epsilon)
    for _ in range(8):
        needed = (sensitivity + dimension * Fraction(grid(scale))) / epsilon
        if Fraction(scale) >= needed:
            return scale
        scale = _float_up(needed)
    raise RuntimeError("laplace_scale did not settle")
