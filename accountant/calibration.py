"""Certified calibration: monotone searches whose every verdict is a rigorous comparison.

A predicate ``ok(x)`` says whether parameter ``x`` meets the target (computed by
:meth:`dpledger.accountant.guarantee.Guarantee.meets`, so it is never True through rounding). The
searches assume monotonicity — stated by the caller, e.g. "a larger sampling rate never
improves privacy" — and return the best parameter for which ``ok`` was *proved*.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dpledger.accountant.events import Event
from dpledger.accountant.rules import account


def largest_integer(ok: Callable[[int], bool], low: int, high: int) -> int | None:
    """The largest x in [low, high] with ok(x), for ok true on an initial segment; None if
    ok(low) fails."""
    if low > high or not ok(low):
        return None
    if ok(high):
        return high
    good, bad = low, high
    while bad - good > 1:
        middle = (good + bad) // 2
        if ok(middle):
            good = middle
        else:
            bad = middle
    return good


def largest_integer_from(ok: Callable[[int], bool], start: int, high: int) -> int | None:
    """Like :func:`largest_integer`, galloping up from ``start`` (a good guess of the answer):
    about 2·log2(answer/start) evaluations instead of log2(high)."""
    if not ok(start):
        return largest_integer(ok, 1, start - 1) if start > 1 else None
    good, step = start, max(1, start)
    while good < high:
        probe = min(good + step, high)
        if not ok(probe):
            return largest_integer(ok, good, probe - 1)
        good, step = probe, step * 2
    return good


def smallest_integer(ok: Callable[[int], bool], low: int, high: int) -> int | None:
    """The smallest x in [low, high] with ok(x), for ok true on a final segment; None if
    ok(high) fails."""
    found = largest_integer(lambda x: ok(high + low - x), low, high)
    return None if found is None else high + low - found


def smallest_integer_to_precision(
    ok: Callable[[int], bool], low: int, high: int, bits: int = 60
) -> int | None:
    """Like :func:`smallest_integer`, exact up to 2^bits; beyond, bisecting geometrically while the
    bracket is wide and stopping once it is within a relative 2^-bits: the result always passed
    ``ok`` and is at most (1 + 2^-bits) times the smallest such integer (about 2·log2(bits) +
    bits evaluations instead of log2(high) — a thousand at n ≈ 10³⁰⁰)."""
    if low > high or not ok(high):
        return None
    if ok(low):
        return low
    bad, good = low, high
    while good - bad > 1 and ((good - bad) << bits) > good:
        middle = math.isqrt(bad * good) if good > 4 * bad else (bad + good) // 2
        middle = min(max(middle, bad + 1), good - 1)
        if ok(middle):
            good = middle
        else:
            bad = middle
    return good


def _bisect(ok: Callable[[Fraction], bool], good: Fraction, bad: Fraction, tolerance: Fraction) -> Fraction:
    while abs(bad - good) > tolerance:
        middle = (good + bad) / 2
        if ok(middle):
            good = middle
        else:
            bad = middle
    return good


def meets(event_for: Callable[[Any], Event], epsilon: Any, delta: Any) -> Callable[[Any], bool]:
    """The predicate "the event built for x is certified (ε, δ)-DP"."""
    return lambda x: account(event_for(x)).guarantee.meets(epsilon, delta).holds


def largest_rate(
    event_for: Callable[[Fraction], Event], epsilon: Any, delta: Any, tolerance: Fraction = Fraction(1, 2**30)
) -> Fraction | None:
    """The largest sampling rate q ∈ (0, 1] (to within ``tolerance``) for which
    ``event_for(q)`` meets (ε, δ); privacy must worsen as q grows."""
    ok = meets(event_for, epsilon, delta)
    if ok(Fraction(1)):
        return Fraction(1)
    if not ok(tolerance):
        return None
    return _bisect(ok, tolerance, Fraction(1), tolerance)


def smallest_noise(
    event_for: Callable[[Fraction], Event],
    epsilon: Any,
    delta: Any,
    start: Fraction = Fraction(1),
    relative_tolerance: Fraction = Fraction(1, 2**30),
) -> Fraction:
    """The smallest noise scale (to within a relative tolerance) for which ``event_for(scale)``
    meets (ε, δ); privacy must improve as the scale grows."""
    ok = meets(event_for, epsilon, delta)
    high = start
    for _ in range(200):
        if ok(high):
            break
        high *= 2
    else:
        raise ValueError("no noise scale up to 2^200 meets the target")
    low = high / 2
    while ok(low) and low > high * relative_tolerance:
        high, low = low, low / 2
    return _bisect(ok, high, low, high * relative_tolerance)
