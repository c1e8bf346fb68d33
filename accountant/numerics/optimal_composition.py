"""Certified optimal composition of (ε, δ)-differentially private mechanisms.

Every public function returns an enclosure ``(lo, hi)`` of the *true* optimum: the exact value lies
in ``[lo, hi]`` and ``hi`` (what dpledger reports) is never below it.

Mathematics
-----------
Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy" (ICML 2015, Thm 3.3),
and Murtagh and Vadhan, "The Complexity of Computing the Optimal Composition of Differential
Privacy" (TCC 2016, Thm 1.5): the worst case of composing (ε_i, δ_i)-DP mechanisms is the product of
randomized-response pairs, whose privacy loss is L = Σ ±ε_i, ``+ε_i`` with probability
p_i = e^{ε_i}/(1+e^{ε_i}).  For every ε ≥ 0 the optimal total δ is

    δ_total(ε) = 1 − Π(1−δ_i) · (1 − δ_RR(ε)),   δ_RR(ε) = E[max(0, 1 − e^{ε−L})].

Sort the atoms of L decreasingly, L_0 > L_1 > …, with probabilities P_s; by symmetry the probability
of −L_s is Q_s = P_s e^{−L_s}.  On ε ∈ [L_n, L_{n−1}] exactly the n largest atoms are positive, so
δ_RR(ε) = g_n(ε) := A_n − e^ε B_n with A_n = Σ_{s<n} P_s, B_n = Σ_{s<n} Q_s.  Every g_n is a
lower bound of δ_RR (dropping terms of a sum of maxima), hence the optimal ε for the requirement δ_RR(ε) ≤ δ′ is
ε* = max(0, max_n x_n) with x_n = log((A_n − δ′)/B_n): each candidate x_n is a certified *lower*
bound, and a value ε̂ is a certified *upper* bound as soon as δ_RR(ε̂) ≤ δ′ is checked on the exact
piece containing ε̂.  For k identical mechanisms the atoms are (k − 2j)ε0 with P = Binomial(k, r)
pmf(j), r = 1/(1+e^{ε0}), and Q_j = pmf(k − j) (Kairouz–Oh–Viswanath's closed form).

Windows: any k in time ~√k
---------------------------
Only the atoms near the binomial's mean carry mass: the law is cut to a window of j (number of
−ε0 outcomes) of about √(2kr(1−r)·log(2/τ)) atoms on each side of kr, and the probability τ of
the atoms left out is bounded by Chernoff's inequality, exp(−k·D(j/k ‖ r)), in outward-rounded
interval arithmetic.  On the window, δ_RR^W(ε) = Σ_{window} P_s(1 − e^{ε−L_s})^+ satisfies
δ_RR^W ≤ δ_RR ≤ δ_RR^W + τ, so every lower bound x_n stands and the upper bound is certified with
τ added (τ = 2^{−50}δ′: the reported ε pays a relative 2^{−50} of δ′).  Q_s = P_s e^{−L_s} is the
binomial pmf at the mirrored j, computed on the mirrored window; each pmf value comes from a
log-gamma anchor at most 256 ratio steps away, so the cost is linear in the window, not in k
(10⁶ mechanisms: ~0.1 s; 10⁹: ~2 s).  Heterogeneous laws are convolved from the groups' windows
(the left-out mass is at most the sum of the groups' tails).

Error argument
--------------
Probabilities are held as ``mant · 2**exp`` (float64 mantissa in [½, 1), exact integer exponent), so
nothing overflows or underflows however large k·ε0 is.  Every 512 consecutive binomial terms share
an anchor pmf(c) enclosed by log-gamma in ``mpmath.iv`` (outward rounding); the other terms are
products of at most 256 ratios (k−l)/(l+1)·e^{∓ε0}.  Each IEEE-754 operation used (division,
multiplication, addition of non-negative numbers, rounding an enclosure to 53 bits) is correctly
rounded, so a value formed by R of them on exact data lies within a factor (1−u)^{−R}, u = 2^{−53},
of the truth whatever the evaluation order: R is counted a priori (about 4·256 per term and at most
256 per sum: numpy adds blocks of 256, ``math.fsum`` rounds once) and every sum is widened by that
factor, about 1.5·10⁻¹³ relative, independently of k.  Terms below 2^{−1000} of a sum's largest
term are dropped and charged one more rounding.  δ′, logarithms and exponentials use
``mpmath.iv`` at ≥ 192 bits, final values are padded by 2^{16−prec} relative against last-ulp slips
of its directed rounding, and the reported upper bound is re-checked on the exact piece of δ_RR
that contains it (atoms compared with it as exact rationals).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
from mpmath import iv, mp, mpf
from mpmath.libmp import round_nearest, to_float

from dpledger.accountant.numerics.certified import interval_precision

__all__ = [
    "heterogeneous_optimal_epsilon",
    "homogeneous_optimal_delta",
    "homogeneous_optimal_epsilon",
]

_UNIT_ROUNDOFF = mpf(2) ** -53
_CLIP = -1000  # exponent (relative to the largest term) below which terms are bounded, not summed
_BLOCK = 256  # cumprod block length: a product of 256 mantissas in [1/2, 1) stays >= 2**-256
_SEGMENT = 512  # binomial terms per log-gamma anchor: at most 256 ratio steps from an anchor
_SUM_BLOCK = 256  # terms added by numpy before the correctly rounded math.fsum
_BASE_PREC = 192
_MAX_EXTRA_PREC = 4096
_NEAR_ATOMS = 256  # positive atoms closest to ε summed term by term in homogeneous_optimal_delta
_INT64_SAFE = 2**62
_MAX_TOTAL_LOSS = mpf(2) ** 52
_TAIL_BITS = 50  # a window leaves out at most 2^−50 of the δ it is solved for
_FULL_LAW_MAX = 10**6  # homogeneous_optimal_delta sums every atom up to this many mechanisms


# ----------------------------------------------------------------------------------------------
# Input validation


def _finite(name: str, value: object) -> mpf:
    """``value`` as an exact mpf: an mpf is kept as it is (``mpf(x)`` would round it to the
    working precision), anything else is converted at 1024 bits."""
    try:
        if isinstance(value, mpmath.mpf):
            x = value
        else:
            with mpmath.workprec(max(mp.prec, 1024)):
                x = mpf(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real number, got {value!r}") from exc
    if not mpmath.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def _check_epsilon(name: str, value: object) -> mpf:
    x = _finite(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


def _check_delta(name: str, value: object) -> mpf:
    x = _finite(name, value)
    if not 0 <= x < 1:
        raise ValueError(f"{name} must lie in [0, 1), got {value!r}")
    return x


def _check_target(name: str, value: object) -> mpf:
    x = _finite(name, value)
    if not 0 < x < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return x


def _check_total_loss(name: str, total: mpf) -> None:
    """Exponents of probabilities as small as e^{−Σε} must fit int64 with room to spare."""
    if total > _MAX_TOTAL_LOSS:
        raise ValueError(f"{name} must be at most 2**52 in total over all mechanisms, got {total}")


MAX_K = 10**10
"""Most mechanisms an optimal composition takes: an evaluation sums a binomial window of about √k
terms (2 s at 10⁹, some 6 s at 10¹⁰, and a calibration makes about 24 evaluations); beyond it the
work is refused up front, with the closed-form alternative named."""


def _magnitude(k: int) -> str:
    """A large integer for a message: 3 significant digits, or its power of ten beyond floats."""
    return f"{k:.3g}" if k < 10**300 else f"~10^{len(str(k)) - 1}"


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if k > MAX_K:
        raise ValueError(
            f"optimal composition of k = {_magnitude(int(k))} mechanisms is refused above k = 10^10: each evaluation "
            "sums a binomial window of about √k terms (minutes per evaluation beyond); use the advanced "
            "method (Theorem 3.5, a certified closed-form upper bound) or compose fewer steps"
        )
    return int(k)


# ----------------------------------------------------------------------------------------------
# Interval helpers

Interval = Any  # an mpmath.iv.mpf (mpmath ships no type information)


def _ends(x: Interval) -> tuple[mpf, mpf]:
    """Exact endpoints of an ``mpmath.iv`` interval as mpf numbers."""
    a, b = x._mpi_
    return mp.make_mpf(a), mp.make_mpf(b)


def _point(x: mpf) -> Interval:
    return iv.mpf([x, x])


def _precision_for(*small: mpf) -> int:
    """Working precision: enough bits to resolve the smallest given positive quantity."""
    extra = max([0] + [int(-mpmath.mag(x)) for x in small if x > 0])
    return _BASE_PREC + min(extra, _MAX_EXTRA_PREC)


def _rounding_factor(rounds: int) -> mpf:
    """Upper bound of (1 − u)^{−rounds}: a value formed with ``rounds`` correctly rounded
    operations on exact data is within this factor of the truth."""
    one_minus_u = iv.mpf(1) - _point(_UNIT_ROUNDOFF)
    return _ends(1 / one_minus_u**rounds)[1]


def _frexp_mpf(x: Interval) -> tuple[float, int]:
    """53-bit mantissa in [1/2, 1) and exact exponent of a narrow positive interval: within one
    rounding (u plus the interval's 2^−prec relative width) of every point of it."""
    mant, exponent = mpmath.frexp(_ends(x)[0])
    return to_float(mant._mpf_, rnd=round_nearest), int(exponent)


def _exact_loss_threshold(epsilon: mpf, unit: mpf) -> int:
    """floor(epsilon / unit), exactly: atom key·unit > epsilon  ⇔  key > this value."""
    return math.floor(_fraction(epsilon) / _fraction(unit))


def _fraction(x: mpf) -> Fraction:
    """The exact rational value of a (finite) mpf."""
    man, exponent = x.man_exp
    return Fraction(man << exponent) if exponent >= 0 else Fraction(man, 1 << -exponent)


# ----------------------------------------------------------------------------------------------
# Scaled float arrays: value = mant · 2**exp · (1 + θ), |θ| bounded by ``rounds``


@dataclass(frozen=True)
class _LossDistribution:
    """Atoms ``keys[s]·unit`` (strictly decreasing) with probabilities P_s = ``mant[s] · 2**exp[s]``
    and mirrored probabilities Q_s = P_s·e^{−L_s} = ``q_mant[s] · 2**q_exp[s]`` (the probability
    of −L_s), each within a factor (1 − u)^{−rounds} of the truth.  The atoms may be a window of
    the law: ``tail`` is a certified upper bound of the probability P of the atoms left out (0 when
    none is), so δ_RR lies between its value on the window and that value plus ``tail``."""

    keys: np.ndarray
    unit: mpf
    mant: np.ndarray
    exp: np.ndarray
    q_mant: np.ndarray
    q_exp: np.ndarray
    rounds: int
    tail: mpf = mpf(0)

    @property
    def size(self) -> int:
        return int(self.keys.size)

    @staticmethod
    def symmetric(
        keys: np.ndarray, unit: mpf, mant: np.ndarray, exp: np.ndarray, rounds: int
    ) -> _LossDistribution:
        """A complete law symmetric under L ↦ −L with P ↔ Q (a product of randomized-response
        pairs): the mirrored probability of atom s is P of atom size − 1 − s."""
        return _LossDistribution(keys, unit, mant, exp, mant[::-1], exp[::-1], rounds)


def _scaled_cumprod(factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive prefix products of ``factors`` (each in [1/2, 1)) as (mantissa, exponent).

    Blocks of ``_BLOCK`` factors are multiplied directly (no underflow), block totals are
    renormalised by the exact ``frexp`` and combined recursively.  Each output is a product tree
    over its factors, so it carries at most (number of factors − 1) roundings; padding by 1.0 and
    ``frexp`` are exact."""
    n = factors.size
    if n == 0:
        return factors.copy(), np.zeros(0, dtype=np.int64)
    blocks = -(-n // _BLOCK)
    padded = np.ones(blocks * _BLOCK)
    padded[:n] = factors
    within = np.cumprod(padded.reshape(blocks, _BLOCK), axis=1)
    if blocks == 1:
        mant, exponent = np.frexp(within.ravel()[:n])
        return mant, exponent.astype(np.int64)
    total_mant, total_exp = np.frexp(within[:, -1])
    carry_mant, carry_exp = _scaled_cumprod(total_mant)
    carry_exp = carry_exp + np.cumsum(total_exp.astype(np.int64))
    carry_mant = np.concatenate(([1.0], carry_mant[:-1]))
    carry_exp = np.concatenate(([0], carry_exp[:-1]))
    mant, exponent = np.frexp((within * carry_mant[:, None]).ravel()[:n])
    return mant, exponent.astype(np.int64) + np.repeat(carry_exp, _BLOCK)[:n]


def _ratio_products(numer: np.ndarray, denom: np.ndarray, scale: tuple[float, int]):
    """Prefix products of (numer/denom)·scale as (mantissa, exponent); each ratio carries three
    roundings (division, multiplication, the 53-bit scale) and each product one more."""
    scale_mant, scale_exp = scale
    ratio_mant, ratio_exp = np.frexp(numer / denom * scale_mant)
    mant, exponent = _scaled_cumprod(ratio_mant)
    return mant, exponent + np.cumsum(ratio_exp.astype(np.int64) + scale_exp)


def _float_enclosure(x: Interval) -> tuple[float, int, int]:
    """(mantissa, exponent, rounds): a float mantissa within (1 − u)^{−rounds} of every point of
    the positive interval x (one rounding to 53 bits plus x's relative width)."""
    lo, hi = _ends(x)
    relative_width = (_point(hi) - _point(lo)) / _point(lo) / _point(_UNIT_ROUNDOFF)
    width_rounds = int(mpmath.ceil(_ends(relative_width)[1]))
    mant, exponent = _frexp_mpf(x)
    return mant, exponent, 2 + width_rounds


def _binomial_pmf(
    count: int, epsilon: mpf, start: int = 0, stop: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """Binomial(count, r) pmf, r = 1/(1+e^ε), for j = start..stop − 1 (default 0..count; j = number
    of −ε outcomes).

    Returns (mant, exp, rounds) with pmf(j) = mant[j − start]·2**exp[j − start] up to the factor
    (1 − u)^{−rounds}.  Every ``_SEGMENT`` consecutive j share an anchor pmf(c) at their centre,
    enclosed with log-gamma in interval arithmetic; the others follow from the ratios
    pmf(j+1)/pmf(j) = (count−j)/(j+1)·e^{−ε}, so no value is more than _SEGMENT/2 ratio steps
    from its anchor.  The cost is linear in stop − start, not in count."""
    stop = count + 1 if stop is None else stop
    eps_iv = _point(epsilon)
    log_p = -iv.log(1 + iv.exp(-eps_iv))  # log P[+ε]
    log_r = log_p - eps_iv  # log P[−ε]
    log_full = iv.loggamma(count + 1)
    up_scale, down_scale = _frexp_mpf(iv.exp(-eps_iv)), _frexp_mpf(iv.exp(eps_iv))
    mants, exps, rounds = [], [], 0
    for first in range(start, stop, _SEGMENT):
        last = min(first + _SEGMENT, stop)
        c = (first + last) // 2
        log_anchor = (
            log_full - iv.loggamma(c + 1) - iv.loggamma(count - c + 1) + c * log_r + (count - c) * log_p
        )
        a_mant, a_exp, a_rounds = _float_enclosure(iv.exp(log_anchor))
        up = np.arange(c, last - 1, dtype=np.float64)
        up_mant, up_exp = _ratio_products(count - up, up + 1, up_scale)
        down = np.arange(c - 1, first - 1, -1, dtype=np.float64)
        down_mant, down_exp = _ratio_products(down + 1, count - down, down_scale)
        mant, extra = np.frexp(np.concatenate((down_mant[::-1], [1.0], up_mant)) * a_mant)
        exps.append(np.concatenate((down_exp[::-1], [0], up_exp)) + extra + a_exp)
        mants.append(mant)
        rounds = max(rounds, 4 * max(c - first, last - 1 - c) + a_rounds + 1)
    return np.concatenate(mants), np.concatenate(exps), rounds


def _binomial_window(count: int, epsilon: mpf, tail_budget: mpf) -> tuple[int, int, mpf]:
    """A window [a, b] of j (number of −ε outcomes) and a certified bound ``tail`` ≤
    ``tail_budget`` of Pr[J ∉ [a, b]], J ~ Binomial(count, r), r = 1/(1+e^ε).

    The width comes from Bernstein's inequality in floats (an estimate only, ≈ √(2σ² log(2/τ)));
    the bound from Chernoff's, Pr[J ≤ a − 1] ≤ exp(−count·D((a−1)/count ‖ r)) and
    Pr[J ≥ b + 1] ≤ exp(−count·D((b+1)/count ‖ r)) (D the Bernoulli Kullback–Leibler divergence),
    in outward-rounded interval arithmetic.  A window whose bound misses the budget is widened."""
    if tail_budget <= 0:
        return 0, count, mpf(0)
    r_iv = 1 / (1 + iv.exp(_point(epsilon)))
    r = float(_ends(r_iv)[0])
    variance = count * r * (1 - r)
    log_two_over = float(mpmath.log(2 / tail_budget))
    width = log_two_over / 3 + math.sqrt(log_two_over**2 / 9 + 2 * variance * log_two_over) + 2
    while True:
        a = max(0, math.floor(count * r - width))
        b = min(count, math.ceil(count * r + width))
        tail = _chernoff(count, r_iv, a - 1, below=True) + _chernoff(count, r_iv, b + 1, below=False)
        if tail <= tail_budget:
            return a, b, tail
        width *= 1.25


def _chernoff(count: int, r_iv: Interval, j: int, below: bool) -> mpf:
    """Upper bound of Pr[J ≤ j] (``below``) or Pr[J ≥ j]: 0 outside [0, count], 1 where j is not
    certified on the far side of the mean count·r, else exp(−count·D(j/count ‖ r))."""
    if (below and j < 0) or (not below and j > count):
        return mpf(0)
    x = iv.mpf(j) / count
    r_lo, r_hi = _ends(r_iv)
    if (below and not _ends(x)[1] < r_lo) or (not below and not _ends(x)[0] > r_hi):
        return mpf(1)
    divergence = iv.mpf(0)
    if j > 0:
        divergence += x * iv.log(x / r_iv)
    if j < count:
        divergence += (1 - x) * iv.log((1 - x) / (1 - r_iv))
    return _ends(iv.exp(-count * divergence))[1]


def _homogeneous_distribution(epsilon: mpf, k: int, tail_budget: mpf = mpf(0)) -> _LossDistribution:
    """The law of L for k mechanisms (atoms (k − 2j)ε, j ~ Binomial(k, r)), restricted to the
    window of :func:`_binomial_window` (the whole law for a zero budget): Q_j = pmf(k − j)
    (Kairouz–Oh–Viswanath's closed form) is computed on the mirrored window."""
    a, b, tail = _binomial_window(k, epsilon, tail_budget)
    keys = k - 2 * np.arange(a, b + 1, dtype=np.int64)
    mant, exponent, rounds = _binomial_pmf(k, epsilon, a, b + 1)
    if a == 0 and b == k:
        return _LossDistribution.symmetric(keys, epsilon, mant, exponent, rounds)
    q_mant, q_exp, q_rounds = _binomial_pmf(k, epsilon, k - b, k - a + 1)
    return _LossDistribution(
        keys, epsilon, mant, exponent, q_mant[::-1], q_exp[::-1], max(rounds, q_rounds), tail
    )


# ----------------------------------------------------------------------------------------------
# Certified sums and δ_RR


def _nonnegative_sum(values: np.ndarray) -> tuple[float, int]:
    """Sum of n non-negative floats and its rounding count: blocks of ``_SUM_BLOCK`` are added
    by numpy (at most min(n, _SUM_BLOCK) − 1 roundings on any path, whatever the order), the
    block sums by the correctly rounded ``math.fsum`` (one more)."""
    blocks = -(-values.size // _SUM_BLOCK)
    padded = np.zeros(blocks * _SUM_BLOCK)
    padded[: values.size] = values
    block_sums = padded.reshape(blocks, _SUM_BLOCK).sum(axis=1).tolist()
    return math.fsum(block_sums), min(values.size, _SUM_BLOCK)


def _range_sum(dist: _LossDistribution, start: int, stop: int, mirrored: bool = False) -> Interval:
    """Interval enclosing Σ_{start ≤ s < stop} P_s (Q_s if ``mirrored``)."""
    if stop <= start:
        return iv.mpf(0)
    mant = (dist.q_mant if mirrored else dist.mant)[start:stop]
    exponent = (dist.q_exp if mirrored else dist.exp)[start:stop]
    top = int(exponent.max())
    shift = exponent - top
    kept = shift >= _CLIP
    total, sum_rounds = _nonnegative_sum(np.ldexp(mant[kept], shift[kept]))
    # one more rounding's worth for the dropped terms (< count·2^−999 relative)
    factor = _rounding_factor(dist.rounds + sum_rounds + 1)
    lo = _ends(_point(mpf(total)) / factor)[0]
    hi = _ends(_point(mpf(total)) * factor)[1]
    return iv.mpf([mpmath.ldexp(lo, top), mpmath.ldexp(hi, top)])


def _positive_count(dist: _LossDistribution, epsilon: mpf) -> int:
    """Exact number of atoms with loss strictly greater than ``epsilon``."""
    threshold = _exact_loss_threshold(epsilon, dist.unit) + 1
    ascending = dist.keys[::-1]
    lo_key, hi_key = ascending[0], ascending[-1]
    threshold = min(max(threshold, int(lo_key)), int(hi_key) + 1)
    return dist.size - int(np.searchsorted(ascending, threshold, side="left"))


def _piece_sums(dist: _LossDistribution, n: int) -> tuple[Interval, Interval]:
    """(A_n, B_n): mass of the n largest atoms under P and under the mirrored Q."""
    return _range_sum(dist, 0, n), _range_sum(dist, 0, n, mirrored=True)


def _delta_rr(dist: _LossDistribution, epsilon: mpf) -> Interval:
    """Interval enclosing δ_RR(ε) = A_n − e^ε B_n on the exact piece containing ε (plus the
    window's tail at the upper end)."""
    n = _positive_count(dist, epsilon)
    if n == 0:
        return iv.mpf([0, dist.tail])
    a_n, b_n = _piece_sums(dist, n)
    lo, hi = _ends(a_n - iv.exp(_point(epsilon)) * b_n)
    return iv.mpf([max(lo, mpf(0)), _ends(_point(max(hi, mpf(0))) + _point(dist.tail))[1]])


def _atom_probability(dist: _LossDistribution, s: int, factor: mpf) -> Interval:
    value = mpmath.ldexp(mpf(float(dist.mant[s])), int(dist.exp[s]))
    return iv.mpf([_ends(_point(value) / factor)[0], _ends(_point(value) * factor)[1]])


def _delta_rr_accurate(dist: _LossDistribution, epsilon: mpf) -> Interval:
    """δ_RR(ε) with the ``_NEAR_ATOMS`` smallest positive atoms summed term by term as
    P_s·(1 − e^{ε−L_s}) in interval arithmetic: A_n − e^ε B_n cancels badly when those atoms sit
    just above ε, the remaining atoms have 1 − e^{ε−L_s} bounded away from 0."""
    n = _positive_count(dist, epsilon)
    far = max(n - _NEAR_ATOMS, 0)
    a_far, b_far = _piece_sums(dist, far)
    lo, hi = _ends(a_far - iv.exp(_point(epsilon)) * b_far)
    total = iv.mpf([max(lo, mpf(0)), max(hi, mpf(0))]) + iv.mpf([0, dist.tail])
    factor = _rounding_factor(dist.rounds)
    for s in range(far, n):
        gap = _point(epsilon) - _point(_atom(dist, s))
        total += _atom_probability(dist, s, factor) * (1 - iv.exp(gap))
    return total


# ----------------------------------------------------------------------------------------------
# Solving δ_RR(ε) ≤ δ′


def _approximate_piece(dist: _LossDistribution, dprime: Interval, positive_at_zero: int) -> int:
    """Float64 estimate of the piece n holding ε*: the first n with δ_RR(max(L_n, 0)) ≥ δ′."""
    log_p = np.log(dist.mant) + dist.exp.astype(np.float64) * math.log(2.0)
    log_a = np.logaddexp.accumulate(log_p)[:positive_at_zero]
    log_q = np.log(dist.q_mant) + dist.q_exp.astype(np.float64) * math.log(2.0)
    log_b = np.logaddexp.accumulate(log_q)[:positive_at_zero]
    unit_mant, unit_exp = mpmath.frexp(dist.unit)
    raw = dist.keys[1 : positive_at_zero + 1]
    # Keys can be integers beyond float range when the unit is tiny: shift them (an estimate only).
    shift = max(0, max((abs(int(key)).bit_length() for key in raw), default=0) - 1000)
    keys = np.array([int(key) >> shift for key in raw], dtype=np.float64) if shift else raw.astype(np.float64)
    ends = np.maximum(np.ldexp(keys * float(unit_mant), int(unit_exp) + shift), 0.0)
    # A window may have every atom positive: the last piece then reaches down to ε = 0.
    ends = np.concatenate((ends, np.zeros(positive_at_zero - ends.size)))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_share = np.minimum(ends + log_b - log_a, 0.0)  # log(e^ε B_n / A_n)
        log_delta = log_a + np.log1p(-np.exp(log_share))
    log_target = float(mpmath.log(_ends(dprime)[0]))
    reached = np.flatnonzero(log_delta >= log_target)
    return int(reached[0]) + 1 if reached.size else positive_at_zero


def _candidate_bounds(dist: _LossDistribution, n: int, dprime: Interval) -> tuple[mpf | None, mpf | None]:
    """Lower and upper bounds of x_n = log((A_n − δ′)/B_n); None where x_n may be −∞.  On a
    window, A_n and B_n sum its n largest atoms: A_n − e^ε B_n is still below δ_RR(ε), so the lower
    bound stands; the upper one (a guess) takes δ′ less the tail."""
    a_n, b_n = _piece_sums(dist, n)
    a_lo, a_hi = _ends(a_n)
    b_lo, b_hi = _ends(b_n)
    d_lo, d_hi = _ends(dprime)
    upper = lower = None
    if a_hi > d_lo - dist.tail:  # the window's tail is paid out of δ′ (an estimate: certified later)
        upper = _ends(iv.log((_point(a_hi) - _point(d_lo) + _point(dist.tail)) / _point(b_lo)))[1]
    if a_lo > d_hi:
        lower = _ends(iv.log((_point(a_lo) - _point(d_hi)) / _point(b_hi)))[0]
    return lower, upper


def _certified_upper(dist: _LossDistribution, guess: mpf, dprime: Interval) -> mpf:
    """First value, among ``guess`` if it is 0, ``guess`` nudged up, the atom just above that and
    the largest atom, at which δ_RR ≤ δ′ is verified in interval arithmetic (δ_RR is at most the
    tail ≤ δ′ at the largest atom of the window, so that one always holds)."""
    d_lo = _ends(dprime)[0]
    top = _atom(dist, 0)
    trials = [mpf(0)] if guess == 0 else []
    trials.append(min(_nudge(guess, up=True, floor=mpf(1)), top))
    for trial in trials:
        if _ends(_delta_rr(dist, trial))[1] <= d_lo:
            return trial
    above = _atom(dist, max(_positive_count(dist, trials[-1]) - 1, 0))
    return above if _ends(_delta_rr(dist, above))[1] <= d_lo else top


def _atom(dist: _LossDistribution, s: int) -> mpf:
    """Exact loss of atom s."""
    return mpmath.fmul(int(dist.keys[s]), dist.unit, exact=True)


def _nudge(x: mpf, up: bool, floor: mpf = mpf(0)) -> mpf:
    """x moved outward by 2^(16 − prec)·max(|x|, floor), rounded outward: absorbs last-ulp slips
    of mpmath's directed-rounding elementary functions."""
    pad = mpmath.ldexp(max(abs(x), floor), 16 - iv.prec)
    if up:
        return mpmath.fadd(x, pad, prec=iv.prec, rounding="c")
    return mpmath.fsub(x, pad, prec=iv.prec, rounding="f")


def _solve_epsilon(dist: _LossDistribution, dprime: Interval) -> tuple[mpf, mpf]:
    """Enclosure of ε* = min{ε ≥ 0 : δ_RR(ε) ≤ δ′}."""
    positive_at_zero = _positive_count(dist, mpf(0))
    guess = _approximate_piece(dist, dprime, positive_at_zero)
    candidates = {n for n in (guess - 1, guess, guess + 1) if 1 <= n <= positive_at_zero}
    lower, upper = mpf(0), mpf(0)
    for n in sorted(candidates):
        lo_n, hi_n = _candidate_bounds(dist, n, dprime)
        lower = max(lower, lo_n) if lo_n is not None else lower
        upper = max(upper, hi_n) if hi_n is not None else upper
    upper = _certified_upper(dist, upper, dprime)
    lower = max(mpf(0), _nudge(lower, up=False))
    return min(lower, upper), upper


def _dprime(survive: Interval, target: mpf) -> Interval:
    """δ′ = 1 − (1 − target)/Π(1 − δ_i): the budget left for δ_RR."""
    miss = mpmath.fsub(1, target, exact=True)
    return (survive - _point(miss)) / survive


def _survival(deltas: Sequence[tuple[mpf, int]]) -> Interval:
    """Interval enclosing Π(1 − δ_i)^{count_i}."""
    log_total = iv.mpf(0)
    for delta, count in deltas:
        log_total += count * iv.log(_point(mpmath.fsub(1, delta, exact=True)))
    return iv.exp(log_total)


def _require_reachable(dprime: Interval) -> None:
    if _ends(dprime)[0] <= 0:
        raise ValueError(
            "target_delta must exceed 1 - prod(1 - delta_i), the delta paid however large epsilon is"
        )


def _tail_budget(dprime: Interval) -> mpf:
    """The probability a window may leave out when solving δ_RR(ε) ≤ δ′: 2^−50 δ′, so the upper
    bound pays at most a relative 2^−50 of δ′ for not summing the binomial's far tails."""
    return mpmath.ldexp(_ends(dprime)[0], -_TAIL_BITS)


def _widen(value: Interval) -> tuple[mpf, mpf]:
    lo, hi = _ends(value)
    return _nudge(lo, up=False), _nudge(hi, up=True)


# ----------------------------------------------------------------------------------------------
# Public API


def homogeneous_optimal_epsilon(epsilon: mpf, delta: mpf, k: int, target_delta: mpf) -> tuple[mpf, mpf]:
    """Certified enclosure of the optimal total ε of k-fold (ε, δ)-DP composition at a target δ.

    Kairouz–Oh–Viswanath 2015, Theorem 3.3, evaluated at every ε (not only the grid (k − 2i)ε):
    ε* = min{ε ≥ 0 : 1 − (1−δ)^k (1 − δ_RR(ε)) ≤ target_delta}, solved in closed form
    ε = log((A_i − δ′)/B_i) on the right grid interval (see the module docstring for the error
    argument).  Returns (lo, hi) with lo ≤ ε* ≤ hi.

    Raises ValueError for ε ≤ 0 or non-finite, δ ∉ [0, 1), k < 1, target ∉ (0, 1), a target
    that cannot be certified to exceed 1 − (1 − δ)^k, or k·ε > 2^52 (exponent range).
    """
    epsilon = _check_epsilon("epsilon", epsilon)
    delta = _check_delta("delta", delta)
    k = _check_k(k)
    _check_total_loss("epsilon", epsilon * k)
    target_delta = _check_target("target_delta", target_delta)
    with interval_precision(_precision_for(target_delta)):
        dprime = _dprime(_survival([(delta, k)]), target_delta)
        _require_reachable(dprime)
        return _solve_epsilon(_homogeneous_distribution(epsilon, k, _tail_budget(dprime)), dprime)


def homogeneous_optimal_delta(epsilon: mpf, delta: mpf, k: int, at_epsilon: mpf) -> tuple[mpf, mpf]:
    """Certified enclosure of the optimal total δ of k-fold (ε, δ)-DP composition at ``at_epsilon``.

    Kairouz–Oh–Viswanath 2015, Theorem 3.3: δ_total(ε) = 1 − (1−δ)^k (1 − δ_RR(ε)) with
    δ_RR(ε) = Σ_j max(0, pmf(j) − e^ε pmf(k−j)), pmf the Binomial(k, 1/(1+e^{ε})) pmf; evaluated on
    the exact grid interval containing ``at_epsilon``, the terms nearest to it one by one (no
    cancellation).  Returns (lo, hi) ⊂ [0, 1].  Up to ``_FULL_LAW_MAX`` mechanisms every atom is
    summed; beyond, the window of the module docstring leaves out at most 2^−64 first and, when
    that is not below 2^−50 of the lower end found, at most 2^−50 of it (at least 2^−4000): hi
    exceeds the sum on the window by the tail.

    Raises ValueError for ε ≤ 0 or non-finite, δ ∉ [0, 1), k < 1, k·ε > 2^52, or at_epsilon < 0
    or non-finite.
    """
    epsilon = _check_epsilon("epsilon", epsilon)
    delta = _check_delta("delta", delta)
    k = _check_k(k)
    _check_total_loss("epsilon", epsilon * k)
    at_epsilon = _finite("at_epsilon", at_epsilon)
    if at_epsilon < 0:
        raise ValueError(f"at_epsilon must be >= 0, got {at_epsilon!r}")
    with interval_precision(_precision_for(delta)):
        survive = _survival([(delta, k)])
        budget = mpf(0) if k <= _FULL_LAW_MAX else mpmath.ldexp(mpf(1), -64)
        while True:
            rr = _delta_rr_accurate(_homogeneous_distribution(epsilon, k, budget), at_epsilon)
            lo, hi = _widen((1 - survive) + survive * rr)
            wanted = max(mpmath.ldexp(max(lo, mpf(0)), -_TAIL_BITS), mpmath.ldexp(mpf(1), -4000))
            if budget <= wanted:
                break
            budget = wanted
    return max(lo, mpf(0)), min(hi, mpf(1))


def heterogeneous_optimal_epsilon(
    pairs: Sequence[tuple[mpf, mpf]], target_delta: mpf, max_states: int = 200_000
) -> tuple[mpf, mpf, bool]:
    """Certified enclosure of the optimal total ε of composing (ε_i, δ_i)-DP mechanisms.

    Murtagh–Vadhan 2016, Theorem 1.5 (with Kairouz–Oh–Viswanath 2015): δ_total(ε) =
    1 − Π(1−δ_i)(1 − δ_RR(ε)), δ_RR(ε) = E[max(0, 1 − e^{ε−L})], L = Σ ±ε_i.  The law of L is
    convolved exactly, grouped by distinct ε_i (states = distinct sums, exact integer keys), while
    it has at most ``max_states`` atoms.  Returns (lo, hi, exact).

    Otherwise ``exact`` is False and the enclosure comes from monotonicity of the optimal
    composition in every ε_i (an (ε, δ)-DP mechanism is (ε′, δ)-DP for every ε′ ≥ ε): hi solves
    the problem with every ε_i rounded *up* to a multiple of a binary unit u, lo with every ε_i
    rounded *down* (mechanisms rounded to 0 dropped from L; their δ_i stay in Π(1−δ_i)).  On the
    lattice the losses merge into at most ``max_states`` atoms; u is the smallest power of two that
    achieves it, so hi − lo, the most hi can exceed the optimum, shrinks as ``max_states`` grows.
    Each end is also compared with the homogeneous problem at max ε_i (for hi) and min ε_i (for
    lo), both with the exact factor Π(1−δ_i), and the better one is kept.

    Raises ValueError for an empty ``pairs``, a pair with ε ≤ 0, non-finite ε or δ ∉ [0, 1),
    Σε_i > 2^52, target ∉ (0, 1) or not certifiably above 1 − Π(1 − δ_i), or max_states < 1.
    """
    checked = _check_pairs(pairs)
    target_delta = _check_target("target_delta", target_delta)
    if isinstance(max_states, bool) or not isinstance(max_states, int) or max_states < 1:
        raise ValueError(f"max_states must be an integer >= 1, got {max_states!r}")
    groups = tuple(sorted(Counter(eps for eps, _ in checked).items()))
    deltas = tuple(sorted(Counter(d for _, d in checked).items()))
    return _heterogeneous_solution(groups, deltas, target_delta, max_states)


@lru_cache(maxsize=64)
def _heterogeneous_solution(
    groups_items: tuple[tuple[mpf, int], ...],
    deltas: tuple[tuple[mpf, int], ...],
    target_delta: mpf,
    max_states: int,
) -> tuple[mpf, mpf, bool]:
    """:func:`heterogeneous_optimal_epsilon` on validated, grouped inputs (cached: the accountant
    asks once to name a fallback, then again for the enclosure)."""
    groups = dict(groups_items)
    with interval_precision(_precision_for(target_delta)):
        dprime = _dprime(_survival(list(deltas)), target_delta)
        _require_reachable(dprime)
        dist = _heterogeneous_distribution(groups, max_states, _tail_budget(dprime))
        if dist is not None:
            lo, hi = _solve_epsilon(dist, dprime)
            return lo, hi, True
        total, budget = sum(groups.values()), _tail_budget(dprime)
        lo = _solve_epsilon(_homogeneous_distribution(min(groups), total, budget), dprime)[0]
        hi = _solve_epsilon(_homogeneous_distribution(max(groups), total, budget), dprime)[1]
        up, down = _lattice_laws(groups, max_states, budget)
        hi = min(hi, _solve_epsilon(up, dprime)[1])
        if down is not None:
            lo = max(lo, _solve_epsilon(down, dprime)[0])
        return lo, hi, False


# ----------------------------------------------------------------------------------------------
# Heterogeneous convolution


def _check_pairs(pairs: Sequence[tuple[mpf, mpf]]) -> list[tuple[mpf, mpf]]:
    if isinstance(pairs, (str, bytes)) or len(pairs) == 0:
        raise ValueError("pairs must be a non-empty sequence of (epsilon, delta) pairs")
    checked = []
    for i, pair in enumerate(pairs):
        if len(pair) != 2:
            raise ValueError(f"pairs[{i}] must be an (epsilon, delta) pair, got {pair!r}")
        checked.append(
            (
                _check_epsilon(f"pairs[{i}] epsilon", pair[0]),
                _check_delta(f"pairs[{i}] delta", pair[1]),
            )
        )
    _check_total_loss("pairs epsilon", mpmath.fsum(eps for eps, _ in checked))
    return checked


def _lattice_laws(
    groups: dict[mpf, int], max_states: int, tail_budget: mpf
) -> tuple[_LossDistribution, _LossDistribution | None]:
    """The laws of L with every ε rounded up, and down, to multiples of the smallest power of two
    u for which the rounded law fits ``max_states`` atoms (u is sought for each direction; None
    for a rounded-down law with every ε rounded to 0).  The first u tried bounds the number of
    rounded sums, at most Σ_g (w_g − 1)(ε_g/u + 1) + 1 for windows of w_g atoms (the sums differ by
    even multiples of u), by ``max_states``; u doubles until the law fits.  Terminates: once
    u ≥ max ε every ε rounds up to u (a single group) and down to 0."""
    share = mpmath.ldexp(tail_budget, -(len(groups) - 1).bit_length())
    windows = {eps: _binomial_window(count, eps, share) for eps, count in groups.items()}
    spans = {eps: b - a for eps, (a, b, _) in windows.items()}
    room = max(max_states - sum(spans.values()) - 1, 1)
    first = int(mpmath.floor(mpmath.log(sum(eps * spans[eps] for eps in groups) / room, 2)))
    laws = []
    for rounding in (mpmath.ceil, mpmath.floor):
        exponent = first
        while True:
            unit = mpmath.ldexp(mpf(1), exponent)
            rounded: Counter = Counter()
            for eps, count in groups.items():
                value = mpmath.fmul(rounding(eps / unit), unit, exact=True)
                if value > 0:
                    rounded[value] += count
            law = _heterogeneous_distribution(rounded, max_states, tail_budget) if rounded else None
            if law is not None or not rounded:
                laws.append(law)
                break
            exponent += 1
    up, down = laws
    assert up is not None  # every ε > 0 rounds up to a positive multiple of u: the law is never empty
    return up, down


def _integer_units(groups: dict[mpf, int]) -> tuple[mpf, dict[mpf, int]]:
    """Common binary unit 2^e and each distinct ε as an exact integer multiple of it."""
    exponent = min(eps.man_exp[1] for eps in groups)
    return mpmath.ldexp(mpf(1), exponent), {
        eps: eps.man_exp[0] << (eps.man_exp[1] - exponent) for eps in groups
    }


def _heterogeneous_distribution(
    groups: dict[mpf, int], max_states: int, tail_budget: mpf = mpf(0)
) -> _LossDistribution | None:
    """Law of L = Σ ±ε_i as a scaled-float distribution, or None past ``max_states`` atoms.

    Each group's binomial is cut to the window of :func:`_binomial_window` with an equal share of
    ``tail_budget`` (all of it kept for a zero budget); the convolution of the windows leaves out
    at most the sum of their tails (union bound), and its mirrored masses are the convolution of
    the groups' mirrored masses, Π_g P_g e^{−L_g} = P·e^{−L}.  A single distinct ε is the
    homogeneous binomial law (linear size in its window)."""
    if len(groups) == 1:
        ((epsilon, count),) = groups.items()
        return _homogeneous_distribution(epsilon, count, tail_budget)
    share = mpmath.ldexp(tail_budget, -(len(groups) - 1).bit_length())  # ≤ tail_budget / len(groups)
    unit, multiples = _integer_units(groups)
    key_bound = sum(count * multiples[eps] for eps, count in groups.items())
    key_dtype = np.int64 if key_bound < _INT64_SAFE else object
    keys = np.zeros(1, dtype=key_dtype)
    one = (np.array([0.5]), np.array([1], dtype=np.int64))
    masses, rounds, tail = [one, one], 0, iv.mpf(0)
    for epsilon, count in sorted(groups.items()):
        g = _homogeneous_distribution(epsilon, count, share)
        if keys.size * g.size > 50 * max_states:
            return None
        g_keys = np.array([int(key) * multiples[epsilon] for key in g.keys], dtype=key_dtype)
        keys, masses = _convolve(keys, masses, g_keys, [(g.mant, g.exp), (g.q_mant, g.q_exp)])
        rounds += g.rounds + g.size + 2
        tail += _point(g.tail)
        if keys.size > max_states:
            return None
    (mant, exponent), (q_mant, q_exp) = masses
    return _LossDistribution(keys, unit, mant, exponent, q_mant, q_exp, rounds, _ends(tail)[1])


def _convolve(l_keys: np.ndarray, left: list, r_keys: np.ndarray, right: list) -> tuple[np.ndarray, list]:
    """Laws of the sum of two independent scaled-float variables, atoms with equal keys merged:
    ``left`` and ``right`` list (mant, exp) mass arrays on the same keys (P and the mirrored Q),
    convolved pairwise.

    One rounding per product; a merged atom of m terms adds m − 1 roundings plus one for terms
    below 2^−1000 of the largest (at most the right window's size + 2, charged by the caller)."""
    keys = (l_keys[:, None] + r_keys[None, :]).ravel()
    order = np.argsort(-keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    merged = []
    for (l_mant, l_exp), (r_mant, r_exp) in zip(left, right, strict=True):
        mant, extra = np.frexp((l_mant[:, None] * r_mant[None, :]).ravel())
        exponent = (l_exp[:, None] + r_exp[None, :]).ravel() + extra
        mant, exponent = mant[order], exponent[order]
        top = np.maximum.reduceat(exponent, starts)
        shift = exponent - np.repeat(top, np.diff(np.append(starts, keys.size)))
        terms = np.where(shift >= _CLIP, np.ldexp(mant, np.maximum(shift, _CLIP)), 0.0)
        merged_mant, merged_extra = np.frexp(np.add.reduceat(terms, starts))
        merged.append((merged_mant, top + merged_extra))
    return keys[starts], merged
