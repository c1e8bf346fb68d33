"""Mironov's snapping mechanism: a floating-point Laplace mechanism that keeps its guarantee.

Mironov 2012 ("On significance of the least significant bits for differential privacy", CCS,
Section 5.2) shows that the textbook ``f(D) + Lap(λ)`` computed in floating point is not
differentially private — the set of doubles it can output depends on f(D) — and gives the
remedy implemented here (Theorem 1 there):

    f̃(D) = clamp_B( ⌊ clamp_B(f(D)) ⊕ S ⊗ λ ⊗ LN(U*) ⌉_Λ ),

where ⊕, ⊗ are floating-point (IEEE 754, round to nearest) addition and multiplication; U* is
uniform over the doubles in (0, 1), each drawn with probability proportional to its ulp (the
floor of a uniform real to the double grid); LN is the natural logarithm *correctly rounded*; S
a fair sign; Λ the smallest power of two ≥ λ; ⌊·⌉_Λ rounds to the nearest multiple of Λ (ties to
the even multiple); clamp_B clips to [−B, B]. **Guarantee** (Theorem 1): for f of sensitivity 1
and λ < B < 2⁴⁶·λ the mechanism is (1/λ + 2⁻⁴⁹·B/λ)-differentially private.

Sensitivity Δ. The mechanism run with λ·Δ*, B·Δ* for Δ* = 2^⌈log₂ Δ⌉ ≥ Δ is exactly the
sensitivity-1 mechanism on f/Δ* scaled back by Δ* (multiplying every operand by a power of two
commutes with every rounding, outside the subnormal range), so it is (Δ*/λ + 2⁻⁴⁹·B/λ)-DP
(:func:`snapping_epsilon`); :func:`snapping_scale` inverts it exactly.

How each ingredient is exact here:

* U*: the exponent from a stream of fair bits (one plus the number of leading zeros), 52 fair
  mantissa bits; below 2⁻¹⁰²² (probability 2⁻¹⁰²²) the subnormal is the floor of the value,
  redrawn if that is 0 — exactly the ulp-weighted distribution.
* LN: the logarithm in 64-bit extended precision, rounded to double where it lies more than
  4 extended ulps from a rounding boundary (glibc's x86-64 ``logl`` errs by at most 1);
  else — and everywhere on platforms without extended precision — mpmath at 200 bits, far above
  the 2·53 + 14 bits known to decide the rounding of log on every double (Lefèvre & Muller 2001,
  "Worst cases for correct rounding of the elementary functions in double precision").

Remedies that need no floating-point argument at all: the exact discrete Laplace and Gaussian
samplers (:meth:`dpledger.learners.randomness.Sampled.discrete_laplace`,
:meth:`~dpledger.learners.randomness.Sampled.discrete_gaussian`) and the snapped-grid release of
:mod:`dpledger.learners.noise` (Canonne–Kamath–Steinke 2020).
"""

from __future__ import annotations

import math
import numbers
import sys
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from mpmath.libmp import round_nearest, to_float

_EXTENDED = np.finfo(np.longdouble).nmant >= 63
_MARGIN_BITS = 61  # 4 extended ulps (2⁻⁶³ relative each) around a double rounding boundary
_FALLBACK_PRECISION = 200
_MAX_RATIO = 2**46


def _power_of_two_at_least(value: float) -> float:
    """The smallest power of two ≥ a positive finite ``value``; ``ValueError`` when it is 2^1024,
    beyond the largest float."""
    mantissa, exponent = math.frexp(value)  # value = mantissa·2^exponent, mantissa ∈ [1/2, 1)
    if mantissa == 0.5:
        return value
    if exponent > sys.float_info.max_exp - 1:
        raise ValueError(
            f"snapping mechanism: the sensitivity {value!r} rounded up to a power of two, 2^{exponent}, "
            "overflows a float"
        )
    return math.ldexp(1.0, exponent)


def _positive(name: str, value: float) -> float:
    """``value`` as a float, refused unless it is a finite real number > 0 (an integer beyond the
    float range included)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"snapping mechanism: {name} must be a finite number > 0, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and number > 0):
        shown = repr(value) if len(repr(value)) <= 30 else f"a number of {len(str(value))} digits"
        raise ValueError(f"snapping mechanism: {name} must be a finite float > 0, got {shown}")
    return number


def _unit(sensitivity: float) -> Fraction:
    """Δ* = 2^⌈log₂ Δ⌉, the sensitivity rounded up to a power of two."""
    return Fraction(_power_of_two_at_least(_positive("sensitivity", sensitivity)))


def _check_range(scale: float, bound: float) -> None:
    """Refuse λ, B outside Theorem 1's range λ < B < 2⁴⁶·λ."""
    if not _positive("scale", scale) < _positive("bound", bound) < _MAX_RATIO * scale:
        raise ValueError(
            f"snapping mechanism: Mironov 2012, Theorem 1 needs λ < B < 2^46·λ, got λ = {scale!r}, B = {bound!r}"
        )


def snapping_epsilon(scale: float, bound: float, sensitivity: float = 1.0) -> Fraction:
    """The exact ε of :func:`snapping_laplace` with noise scale λ and clamp B:
    Δ*/λ + 2⁻⁴⁹·B/λ (Mironov 2012, Theorem 1, rescaled by Δ* = 2^⌈log₂ Δ⌉).

    Args:
        scale: The noise scale λ.
        bound: The clamp B.
        sensitivity: The statistic's sensitivity Δ.

    Returns:
        The exact ε.
    """
    _check_range(scale, bound)
    return (_unit(sensitivity) + Fraction(bound) / 2**49) / Fraction(scale)


def snapping_scale(epsilon: float, bound: float, sensitivity: float = 1.0) -> float:
    """The smallest double λ with ``snapping_epsilon(λ, bound, sensitivity) ≤ epsilon``:
    λ = (Δ* + 2⁻⁴⁹·B)/ε, rounded up.

    Args:
        epsilon: Target ε.
        bound: The clamp B.
        sensitivity: The statistic's sensitivity Δ.

    Returns:
        The noise scale λ.

    Raises:
        ValueError: a non-positive ε, bound or sensitivity, or a scale beyond the float range.
    """
    exact = (_unit(sensitivity) + Fraction(_positive("bound", bound)) / 2**49) / Fraction(
        _positive("epsilon", epsilon)
    )
    try:
        scale = float(exact)
    except OverflowError:
        raise ValueError(
            "snapping mechanism: the noise scale (Δ* + 2^-49·B)/ε overflows a float (it exceeds 1.8e308): "
            "use a larger epsilon, a smaller bound or a smaller sensitivity"
        ) from None
    if Fraction(scale) < exact:
        scale = math.nextafter(scale, math.inf)
    _check_range(scale, bound)
    return scale


def snapping_laplace(
    value: Any,
    *,
    epsilon: float,
    bound: float,
    rng: np.random.Generator,
    sensitivity: float = 1.0,
    size: int | tuple[int, ...] | None = None,
) -> float | np.ndarray:
    """Release ``value`` (a statistic of sensitivity ``sensitivity``, or an array of them) with
    Mironov's snapping mechanism at privacy ``epsilon``: clamped to [−bound, bound], Laplace
    noise of scale :func:`snapping_scale`, rounded to a power-of-two grid, clamped again.

    Each released coordinate is ``epsilon``-DP with respect to its statistic (Mironov 2012,
    Theorem 1; the exact ε in :func:`snapping_epsilon`); ``size`` draws that many independent
    releases of ``value`` (broadcast). Choose ``bound`` above the statistic's plausible range:
    values beyond it are clipped, and the grid is the power of two ≥ the noise scale.

    Args:
        value: The statistic (a number or an array).
        epsilon: Target ε of each released coordinate.
        bound: The clamp B.
        rng: The generator the noise is drawn from.
        sensitivity: The statistic's sensitivity Δ.
        size: Independent releases of ``value`` (broadcast), if any.

    Returns:
        The released value(s), on the power-of-two grid within [−B, B].

    Raises:
        ValueError: a non-positive ε, bound or sensitivity.
    """
    scale = snapping_scale(epsilon, bound, sensitivity)
    values = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError("snapping mechanism: the statistic must be finite")
    shape = values.shape if size is None else size
    clamped = np.broadcast_to(np.clip(values, -bound, bound), shape)
    count = int(np.prod(shape, dtype=np.int64))
    uniform = uniform_by_ulp(rng, count)
    sign = np.where(rng.integers(0, 2, count) == 1, 1.0, -1.0)
    noise = sign * (scale * correctly_rounded_log(uniform))
    grid = _power_of_two_at_least(scale)
    noisy = clamped.reshape(count) + noise
    released = np.clip(np.round(noisy / grid) * grid, -bound, bound).reshape(shape)
    return float(released) if released.ndim == 0 else released


def uniform_by_ulp(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` draws of Mironov's U*: doubles in (0, 1), each with probability its ulp."""
    exponent = _leading_zeros_plus_one(rng, count)  # P(exponent = g) = 2⁻ᵍ: the binade [2⁻ᵍ, 2¹⁻ᵍ)
    significand = np.int64(1 << 52) + rng.integers(0, 1 << 52, count, dtype=np.int64)
    out = np.ldexp(significand.astype(np.float64), -(52 + exponent.astype(np.int64)))
    for index in np.flatnonzero(exponent > 1022):  # probability 2⁻¹⁰²² each
        out[index] = _subnormal_by_ulp(rng, int(exponent[index]), int(significand[index]))
    return out


def _subnormal_by_ulp(rng: np.random.Generator, exponent: int, significand: int) -> float:
    """A draw that fell below 2⁻¹⁰²²: the floor of its value to the subnormal grid 2⁻¹⁰⁷⁴,
    redrawn while that floor is 0 (U* excludes 0)."""
    while True:
        if exponent <= 1022:
            return math.ldexp(float(significand), -(52 + exponent))
        shift = exponent - 1022
        ticks = significand >> shift if shift < 64 else 0
        if ticks:
            return math.ldexp(float(ticks), -1074)
        exponent = int(_leading_zeros_plus_one(rng, 1)[0])
        significand = (1 << 52) + int(rng.integers(0, 1 << 52))


def _leading_zeros_plus_one(rng: np.random.Generator, count: int) -> np.ndarray:
    """One plus the number of zeros before the first one in a stream of fair bits, per draw."""
    result = np.ones(count, dtype=np.int64)
    pending = np.arange(count)
    while len(pending):
        words = rng.integers(0, 1 << 32, len(pending), dtype=np.int64)
        _, exponent = np.frexp(words.astype(np.float64))  # word = m·2^e, m ∈ [1/2, 1): bit length e
        result[pending] += np.where(words > 0, 32 - exponent, 32)
        pending = pending[words == 0]
    return result


def correctly_rounded_log(values: np.ndarray) -> np.ndarray:
    """The natural logarithm of positive doubles, correctly rounded to nearest double."""
    values = np.asarray(values, dtype=np.float64)
    out = np.empty_like(values)
    undecided = np.ones(values.shape, dtype=bool)
    if _EXTENDED:
        extended = np.log(values.astype(np.longdouble))
        rounded = extended.astype(np.float64)
        below = (rounded.astype(np.longdouble) + np.nextafter(rounded, -np.inf).astype(np.longdouble)) / 2
        above = (rounded.astype(np.longdouble) + np.nextafter(rounded, np.inf).astype(np.longdouble)) / 2
        margin = np.abs(extended) * np.longdouble(2.0) ** -_MARGIN_BITS
        undecided = ~((extended - below > margin) & (above - extended > margin))
        out[~undecided] = rounded[~undecided]
    with mpmath.workprec(_FALLBACK_PRECISION):
        for index in zip(*np.nonzero(undecided), strict=True):
            out[index] = to_float(mpmath.log(mpmath.mpf(float(values[index])))._mpf_, rnd=round_nearest)
    return out
