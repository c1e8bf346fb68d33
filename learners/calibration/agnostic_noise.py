"""Gaussian and Laplace noise calibrated so that the accountant *certifies* the target.

Gaussian noise uses the analytic calibration (Balle–Wang 2018, Theorem 8): the mechanism with
sensitivity-to-noise ratio r = Δ/σ is (ε, δ)-DP iff
δ(ε; r) = Φ(r/2 − ε/r) − e^ε Φ(−r/2 − ε/r) ≤ δ, and δ(ε; r) increases with r. We find the
largest r by float bisection, shrink it by a relative margin of 10⁻⁶, and have the accountant
confirm the event at that exact ratio (shrinking further until it does). A learner then uses
σ = Δ/r rounded *up* to a float, so its event's ratio is ≤ the certified one.

T adaptive steps on the same data (the private L1 optimiser) are recorded as
``Composition(Gaussian(σ, δ₀, Δ) × T, method, target_delta=δ)`` with δ₀ = δ/(2T) (our choice:
half of δ to the steps, half to the composition slack δ′). ``advanced``: the per-step ε₀ solves
√(2T ln(1/δ′))ε₀ + Tε₀(e^{ε₀} − 1) = ε (Dwork–Roth 2014, Theorem 3.20); ``optimal``: the
certified search continues on the accountant's optimal-composition rule from the advanced ratio.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from scipy.optimize import brentq
from scipy.special import log_ndtr

from dpledger.accountant import account
from dpledger.accountant.events import Composition, Event, Gaussian
from dpledger.learners.randomness import as_fraction

MARGIN = 1e-6
COMPOSITION_METHODS = ("advanced", "optimal")


def check_privacy(epsilon: Any, delta: Any) -> tuple[Fraction, Fraction] | None:
    """(ε, δ) as Fractions with 0 < ε ≤ 100 and 0 < δ < 1; None when ``epsilon`` is None
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
    return eps, dlt


def gaussian_delta(epsilon: float, ratio: float) -> float:
    """δ(ε; r) of the Gaussian mechanism (Balle–Wang 2018, Theorem 8), in floats."""
    a, b = ratio / 2 - epsilon / ratio, -ratio / 2 - epsilon / ratio
    return math.exp(log_ndtr(a)) - math.exp(epsilon + log_ndtr(b))


def analytic_ratio(epsilon: float, delta: float) -> float:
    """The largest r = Δ/σ with δ(ε; r) ≤ δ (float bisection; not yet certified)."""
    high = 1.0
    while gaussian_delta(epsilon, high) < delta:
        high *= 2
    return brentq(lambda r: gaussian_delta(epsilon, r) - delta, 1e-12, high, xtol=1e-15, rtol=1e-13)


def advanced_step_epsilon(epsilon: float, steps: int, slack: float) -> float:
    """ε₀ with √(2T ln(1/δ′))ε₀ + Tε₀(e^{ε₀} − 1) = ε (Dwork–Roth 2014, Theorem 3.20)."""
    root = math.sqrt(2 * steps * math.log(1 / slack))
    return brentq(lambda e: root * e + steps * e * math.expm1(e) - epsilon, 0.0, epsilon)


def step_delta(delta: Fraction, steps: int) -> Fraction:
    """δ₀ = δ/(2T) for T composed steps; δ itself for a single step."""
    return delta if steps == 1 else delta / (2 * steps)


def noise_event(sigma: Any, sensitivity: Any, delta: Fraction, steps: int, method: str) -> Event:
    """The event of one Gaussian step, or of T adaptively composed steps on the same data."""
    gaussian = Gaussian(sigma=sigma, delta=step_delta(delta, steps), sensitivity=sensitivity)
    if steps == 1:
        return gaussian
    return Composition(children=(gaussian,), method=method, target_delta=delta, repeat=steps)


def _certified(ratio: Fraction, epsilon: Fraction, delta: Fraction, steps: int, method: str) -> bool:
    event = noise_event(1, ratio, delta, steps, method)
    return account(event).guarantee.meets(epsilon, delta).holds


@lru_cache(maxsize=256)
def certified_ratio(epsilon: Fraction, delta: Fraction, steps: int = 1, method: str = "advanced") -> Fraction:
    """A ratio r = Δ/σ for which the accountant certifies (ε, δ) for the noise event."""
    if method not in COMPOSITION_METHODS:
        raise ValueError(f"composition must be one of {COMPOSITION_METHODS}, got {method!r}")
    if not (isinstance(steps, int) and steps >= 1):
        raise ValueError(f"steps must be an integer ≥ 1, got {steps!r}")
    if steps == 1:
        guess = analytic_ratio(float(epsilon), float(delta))
    else:
        eps0 = advanced_step_epsilon(float(epsilon), steps, float(delta) / 2)
        guess = analytic_ratio(eps0, float(step_delta(delta, steps)))
    ratio = Fraction(guess * (1 - MARGIN))
    for _ in range(60):
        if _certified(ratio, epsilon, delta, steps, method):
            break
        ratio *= Fraction(999, 1000)
    else:
        raise RuntimeError(f"could not certify a Gaussian noise level for ε={epsilon}, δ={delta}, T={steps}")
    if method == "optimal" and steps > 1:
        ratio = _grow(ratio, epsilon, delta, steps, method)
    return ratio


def _grow(ratio: Fraction, epsilon: Fraction, delta: Fraction, steps: int, method: str) -> Fraction:
    """Certified search upward from a certified ratio (optimal composition allows a larger r):
    doubling while certified, then 12 bisection steps."""
    low, high = ratio, 2 * ratio
    for _ in range(10):
        if not _certified(high, epsilon, delta, steps, method):
            break
        low, high = high, 2 * high
    for _ in range(12):
        middle = (low + high) / 2
        if _certified(middle, epsilon, delta, steps, method):
            low = middle
        else:
            high = middle
    return low


def sigma_for(sensitivity: Fraction, ratio: Fraction) -> float:
    """σ = Δ/r rounded up to a float, so that the exact ratio Δ/σ is ≤ r."""
    exact = sensitivity / ratio
    value = float(exact)
    return value if Fraction(value) >= exact else math.nextafter(value, math.inf)


def laplace_scale(sensitivity: Fraction, epsilon: Fraction) -> float:
    """b = Δ₁/ε rounded up to a float, so that the Laplace event's Δ₁/b is ≤ ε."""
    return sigma_for(sensitivity, epsilon)
