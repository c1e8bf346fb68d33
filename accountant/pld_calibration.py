"""Searches through the PLD accountant: the smallest noise (or the largest parameter) whose event is
certified to meet a target, found with the float construction and certified at the choice.

The float construction of :func:`dpledger.accountant.pld.compose` (``certified=False``) is the same
computation with float masses; it steers the search only. The search brackets the answer on a
coarse grid (16 points per loss spread) by regula falsi, moves it by one Newton step on the fine grid
(the coarse slope) and raises it until the fine estimate meets the target, and then certifies the
choice: :func:`~dpledger.accountant.rules.account` of the event at the value must meet
the target, else the value is raised by a relative 2⁻¹⁰ and certified again (at most 8 times).
The returned value always passed the certified check.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy

from dpledger.accountant import events as ev
from dpledger.accountant import pld
from dpledger.accountant.numerics.certified import enclose, lower_float
from dpledger.accountant.rules import account

COARSE = 16
"""Grid points per loss spread while bracketing."""
MAX_SEARCH_WORK = 6e7
"""The most work (:func:`dpledger.accountant.pld.estimated_work`) one evaluation of a search may take:
a search makes tens of them, so beyond it the answer would take minutes (a Laplace mechanism
composed 3·10⁶ times is about 4·10⁷, 10⁷ times about 9·10⁷)."""
RELATIVE = 2.0**-14
"""The fine search stops within this relative width; the certified value is then at most about
(1 + 2⁻¹⁰)⁸ above it, and typically within 2⁻¹³."""


def _estimate(event: ev.Event, delta: float, resolution: int) -> float:
    """The float PLD ε of ``event`` at ``delta`` (+∞ when the target is out of reach or too large)."""
    found, _ = pld.steps(event)
    try:
        return pld.compose(found, delta, certified=False, resolution=resolution).epsilon
    except ValueError:
        return math.inf


def smallest_noise(
    event_for: Callable[[Fraction], ev.Event],
    epsilon: sympy.Expr,
    delta: sympy.Expr,
    start: float,
    on_evaluation: Callable[[int], None] | None = None,
) -> float:
    """The smallest float noise scale (to a relative 2⁻¹⁴, then certified) for which
    ``event_for(scale)`` is certified (ε, δ)-DP; privacy must improve as the scale grows.

    Args:
        event_for: the event of the mechanism at a noise scale (a composition with method "pld").
        epsilon: target ε (exact).
        delta: target δ (exact).
        start: a positive first guess.
        on_evaluation: called with the running count of evaluations (a progress bar).

    Returns:
        A float scale whose event meets the target (certified by ``account``).

    Raises:
        ValueError: when the target δ is below the composition's rounding floor
            (:func:`~dpledger.accountant.pld.check_rounding_floor`), no scale up to 2²⁰⁰·start
            meets the target, every scale down to 2⁻²⁰⁰·start (or to the smallest float) does (no
            bracket), or one evaluation's estimated work at ``start`` exceeds
            :data:`MAX_SEARCH_WORK`."""
    target = lower_float(enclose(epsilon))
    target_delta = lower_float(enclose(delta))
    scale = start if math.isfinite(start) and start > 0 else 1.0
    found, _ = pld.steps(event_for(Fraction(scale)))
    pld.check_rounding_floor(found, target_delta)
    work = pld.estimated_work(found, target_delta)
    if work > MAX_SEARCH_WORK:
        raise ValueError(
            f"a PLD search would process about {work:.2g} vector entries per evaluation, over tens of "
            f"evaluations (at most {MAX_SEARCH_WORK:.0e}): too many steps for a PLD calibration; use "
            "fewer steps or another composition method"
        )
    calls = [0]

    def value(scale: float, resolution: int) -> float:
        calls[0] += 1
        if on_evaluation is not None:
            on_evaluation(calls[0])
        return _estimate(event_for(Fraction(scale)), target_delta, resolution) - target

    low, high = scale, scale
    f_low = f_high = value(scale, COARSE)
    if f_high > 0:
        for _ in range(200):
            low, f_low, high = high, f_high, high * 2
            f_high = value(high, COARSE)
            if f_high <= 0:
                break
        else:
            raise ValueError("no noise scale up to 2^200 times the first guess meets the target")
    else:
        step = 2.0
        for _ in range(200):
            high, f_high, low = low, f_low, low / step
            if low < sys.float_info.min:
                raise ValueError(
                    f"the PLD estimate meets the target at every noise scale down to {high:.3g}, and "
                    "smaller ones leave the float range: no scale to certify (at a sampling rate this "
                    "small use another composition method)"
                )
            f_low = value(low, COARSE)
            if f_low > 0:
                break
            step = min(step * step, 2.0**64)  # a first guess far too large is left fast
        else:
            raise ValueError("every noise scale down to 2^-200 times the first guess meets the target")
    low, high = _illinois(lambda x: value(x, COARSE), low, f_low, high, f_high, RELATIVE)
    slope = (value(low, COARSE) - value(high, COARSE)) / (low - high) if high > low else 0.0
    # one Newton step on the fine grid from the coarse root (the two grids differ by ~10⁻³)
    f_fine = value(high, pld.RESOLUTION)
    if slope < 0 and math.isfinite(f_fine):
        high = max(high - f_fine / slope, high / 2) * (1 + RELATIVE)
    for _ in range(64):
        if value(high, pld.RESOLUTION) <= 0:
            break
        high *= 1 + 2.0**-10
    return certify(event_for, epsilon, delta, high)


def _illinois(
    f: Callable[[float], float], low: float, f_low: float, high: float, f_high: float, relative: float
) -> tuple[float, float]:
    """A bracket [low, high] of the root of a decreasing f (f(low) > 0 ≥ f(high)) of relative width
    ≤ ``relative``, by the Illinois variant of regula falsi (bisection where f is infinite or
    the halved end values no longer differ)."""
    side = 0
    while high / low > 1 + relative:
        spread = f_high - f_low
        middle = (
            high - f_high * (high - low) / spread
            if math.isfinite(f_low) and spread != 0
            else math.sqrt(low * high)
        )
        if not low < middle < high:
            middle = math.sqrt(low * high)
        f_middle = f(middle)
        if f_middle > 0:
            low, f_low = middle, f_middle
            if side == -1:
                f_high /= 2  # no endpoint sticks
            side = -1
        else:
            high, f_high = middle, f_middle
            if side == 1:
                f_low /= 2
            side = 1
    return low, high


def certify(event_for: Callable[[Fraction], ev.Event], epsilon: Any, delta: Any, scale: float) -> float:
    """The first of scale·(1 + 2⁻¹⁰)^i, i = 0 … 8, whose event ``account`` certifies (ε, δ)-DP.

    Raises:
        ValueError: when none is certified (the float steering was far off)."""
    for _ in range(9):
        if account(event_for(Fraction(scale))).guarantee.meets(epsilon, delta).holds:
            return scale
        scale = math.nextafter(scale * (1 + 2.0**-10), math.inf)
    raise ValueError("the PLD search could not certify its answer; try composition='optimal'")
