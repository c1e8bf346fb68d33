"""Exact privacy noise, drawn and recorded in one call.

A float sampler is not the distribution a privacy proof analyses (Mironov 2012): its outputs
are doubles whose gaps leak the input. Here the statistic is moved onto a power-of-two grid
and integer noise is drawn exactly, so the release is exactly the analysed mechanism.

The mechanism, for a statistic v ∈ ℝ^D and noise scale σ (or b):

* grid γ = 2^{⌊log₂ σ⌋ − 20} (:func:`grid`, about σ/2²⁰; a power of two, so v/γ is exact);
* q = round(v/γ) ∈ ℤ^D; Z integer noise drawn exactly (:meth:`Sampled.discrete_gaussian`,
  :meth:`Sampled.discrete_laplace`); release γ·(q + Z), exact in float64 while |q + Z| < 2⁵³
  (refused otherwise).

Sensitivity in grid units. For neighbours with ‖v − v′‖₂ ≤ Δ₂ (‖v − v′‖₁ ≤ Δ₁): rounding moves
each coordinate by at most 1/2, so the rounding errors of v and v′ differ by at most 1 per
coordinate and, by the triangle inequality, ‖q − q′‖₂ ≤ Δ₂/γ + √D and ‖q − q′‖₁ ≤ Δ₁/γ + D.
q − q′ is an integer vector, which is what the discrete mechanisms' guarantees need:

* Gaussian steps: N_Z(0, s²) per coordinate with s = σ/γ is ρ-zCDP, ρ = Δ′²/(2s²),
  Δ′ = Δ₂/γ + √D (Canonne–Kamath–Steinke 2020, Thm 4) — event
  :class:`~dpledger.accountant.events.DiscreteGaussian`;
* Laplace steps: discrete Laplace of scale t = b/γ is (Δ′₁/t)-DP, Δ′₁ = Δ₁/γ + D — event
  :class:`~dpledger.accountant.events.DiscreteLaplace`. Note Δ′₁/t = (Δ₁ + Dγ)/b.

Multiplying by γ is a bijection of the integer release (post-processing), so the float output
carries the same guarantee.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from dpledger.accountant.events import DiscreteGaussian, DiscreteLaplace
from dpledger.learners import releases
from dpledger.learners.randomness import Randomness, as_fraction

GRID_BITS = 20
"""γ = 2^{⌊log₂ scale⌋ − GRID_BITS}: the noise spans about 2²⁰ grid points per standard unit."""
_LIMIT = 2**53


def grid(scale: float) -> float:
    """γ = 2^{⌊log₂ scale⌋ − 20} for a positive finite noise scale (exact power of two)."""
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"noise scale must be positive and finite, got {scale!r}")
    _, exponent = math.frexp(scale)  # scale = m·2^e, m ∈ [1/2, 1): ⌊log₂ scale⌋ = e − 1
    return math.ldexp(1.0, exponent - 1 - GRID_BITS)


def _snap(value: Any, gamma: float) -> tuple[np.ndarray, bool]:
    array = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("the statistic to be noised must be finite")
    return np.rint(array / gamma), array.ndim == 0


def _release(snapped: np.ndarray, noise: np.ndarray, gamma: float, scalar: bool) -> float | np.ndarray:
    total = snapped + noise.astype(np.float64).reshape(snapped.shape)
    if np.any(np.abs(snapped) >= _LIMIT / 2) or np.any(np.abs(total) >= _LIMIT):
        raise ValueError(
            "the noised statistic leaves the exactly representable range |q + Z| < 2⁵³ of its grid"
        )
    out = total * gamma
    return float(out) if scalar else out


def _observed(
    kind: releases.Kind,
    value: Any,
    sensitivity: Any,
    event: Any,
    output: float | np.ndarray,
    noise: np.ndarray,
    units: float,
    gamma: float,
) -> float | np.ndarray:
    """Report the release to the tap (:mod:`dpledger.learners.releases`) and return what to output."""
    if not releases.active():
        return output
    return releases.observe(
        releases.Release(
            kind=kind,
            statistic=np.array(value, dtype=np.float64).reshape(-1),
            sensitivity=as_fraction(sensitivity, "sensitivity"),
            event=event,
            output=output,
            noise=np.asarray(noise).reshape(-1),
            scale_units=units,
            gamma=gamma,
        )
    )


def gaussian_noise(
    value: Any,
    sigma: float,
    sensitivity: Any,
    delta: Any,
    rng: Randomness,
) -> tuple[float | np.ndarray, DiscreteGaussian]:
    """Release ``value`` (a scalar or a vector of D coordinates, L2 sensitivity ``sensitivity``)
    with exact discrete Gaussian noise of scale ``sigma`` on the grid :func:`grid`\\ (σ), and the
    event that accounts for exactly that draw (module doc): DiscreteGaussian(s = σ/γ,
    Δ′ = Δ₂/γ + √D, δ)."""
    gamma = grid(float(sigma))
    snapped, scalar = _snap(value, gamma)
    units = float(sigma) / gamma  # exact: γ is a power of two
    dimension = max(snapped.size, 1)
    noise = np.asarray(rng.discrete_gaussian(units, dimension))
    event = DiscreteGaussian(
        sigma_units=units,
        sensitivity_units=sympy.Rational(as_fraction(sensitivity, "sensitivity") / Fraction(gamma))
        + sympy.sqrt(dimension),
        delta=delta,
    )
    output = _release(snapped, noise, gamma, scalar)
    return _observed("discrete_gaussian", value, sensitivity, event, output, noise, units, gamma), event


def laplace_noise(
    value: Any, scale: float, sensitivity: Any, rng: Randomness
) -> tuple[float | np.ndarray, DiscreteLaplace]:
    """Release ``value`` (L1 sensitivity ``sensitivity``) with exact discrete Laplace noise of
    scale ``scale`` on the grid :func:`grid`\\ (b), and its event (module doc):
    DiscreteLaplace(t = b/γ, Δ′₁ = Δ₁/γ + D)."""
    gamma = grid(float(scale))
    snapped, scalar = _snap(value, gamma)
    units = float(scale) / gamma
    dimension = max(snapped.size, 1)
    noise = np.asarray(rng.discrete_laplace(units, dimension))
    event = DiscreteLaplace(
        scale_units=units,
        sensitivity_units=as_fraction(sensitivity, "sensitivity") / Fraction(gamma) + dimension,
    )
    output = _release(snapped, noise, gamma, scalar)
    return _observed("discrete_laplace", value, sensitivity, event, output, noise, units, gamma), event
