"""Privacy quantities without a closed form, as sympy functions with certified enclosures.

Each class stays unevaluated in expressions (so a report prints e.g.
``OptimalCompositionEpsilon(1/100, 0, 10000, 1/1000000)``) and defines ``_enclose(prec)``,
which :func:`dpledger.accountant.numerics.certified.enclose` calls to get an interval containing the value.
"""

from __future__ import annotations

import flint
import mpmath
import sympy
from mpmath import iv, mpf
from mpmath.libmp import from_man_exp

from dpledger.accountant.numerics.certified import enclose, lower_end, upper_end

_BISECTION_TOLERANCE = mpf(2) ** -40
"""Relative width at which bisections stop: the upper end is certified whatever the width."""


class _CertifiedFunction(sympy.Function):
    is_real = True
    is_nonnegative = True

    @classmethod
    def eval(cls, *args: sympy.Expr) -> None:
        return None


def _normal_cdf(x: mpf, prec: int) -> iv.mpf:
    """Certified enclosure of Φ(x) = erfc(−x/√2)/2 by ball arithmetic (FLINT's arb, through
    python-flint: every operation returns a ball that contains the exact result), converted to an
    ``mpmath.iv`` interval with its ends exact. ``x`` is a binary number, passed exactly."""
    if mpmath.isinf(x):
        return iv.mpf(1 if x > 0 else 0)
    saved = flint.ctx.prec
    flint.ctx.prec = prec + 32
    try:
        sign, mantissa, exponent, _ = x._mpf_
        point = flint.arb(-int(mantissa) if sign else int(mantissa)) * flint.arb(2) ** int(exponent)
        ball = (-point / flint.arb(2).sqrt()).erfc() / 2
        low, high = _exact_mpf(ball.lower()), _exact_mpf(ball.upper())
    finally:
        flint.ctx.prec = saved
    return iv.mpf([max(low, mpf(0)), min(high, mpf(1))])


def _exact_mpf(value: flint.arb) -> mpf:
    """An exact arb number (radius 0, such as a ball's end) as an mpf, without rounding."""
    mantissa, exponent = value.man_exp()
    return mpmath.mp.make_mpf(from_man_exp(int(mantissa), int(exponent)))


def _gaussian_delta(ratio: iv.mpf, epsilon: mpf, prec: int) -> iv.mpf:
    """Enclosure of δ(ε) = Φ(r/2 − ε/r) − e^ε Φ(−r/2 − ε/r), r = Δ/σ (Balle–Wang 2018, Thm 8),
    valid for an interval r: δ is increasing in r, so the ends of r bound it."""
    ends = []
    for r in (lower_end(ratio), upper_end(ratio)):
        r_iv = iv.mpf(r)
        plus = r_iv / 2 - iv.mpf(epsilon) / r_iv
        minus = -r_iv / 2 - iv.mpf(epsilon) / r_iv
        first = iv.mpf([_normal_cdf(lower_end(plus), prec).a, _normal_cdf(upper_end(plus), prec).b])
        second = iv.mpf([_normal_cdf(lower_end(minus), prec).a, _normal_cdf(upper_end(minus), prec).b])
        ends.append(first - iv.exp(iv.mpf(epsilon)) * second)
    return iv.mpf([min(e.a for e in ends), max(e.b for e in ends)])


class AnalyticGaussianEpsilon(_CertifiedFunction):
    """The smallest ε ≥ 0 for which the Gaussian mechanism with sensitivity-to-noise ratio
    r = Δ/σ is (ε, δ)-DP (Balle–Wang 2018, Theorem 8). Arguments: (r, δ)."""

    def _enclose(self, prec: int) -> iv.mpf:
        ratio = enclose(self.args[0], prec)
        delta = enclose(self.args[1], prec)
        if _gaussian_delta(ratio, mpf(0), prec).b <= delta.a:
            return iv.mpf([0, 0])
        with mpmath.workprec(prec):
            high = mpf(1)
            while _gaussian_delta(ratio, high, prec).b > delta.a:
                high *= 2
            low = mpf(0)
            while high - low > _BISECTION_TOLERANCE * max(high, mpf(1)):
                middle = (low + high) / 2
                value = _gaussian_delta(ratio, middle, prec)
                if value.b <= delta.a:
                    high = middle
                elif value.a > delta.b:
                    low = middle
                else:
                    break
        return iv.mpf([low, high])


class OptimalCompositionEpsilon(_CertifiedFunction):
    """The optimal ε of the k-fold composition of an (ε₀, δ₀)-DP mechanism at total δ
    (Kairouz–Oh–Viswanath 2015, Theorem 3.3, at any target ε). Arguments: (ε₀, δ₀, k, δ)."""

    def _enclose(self, prec: int) -> iv.mpf:
        from dpledger.accountant.numerics.optimal_composition import homogeneous_optimal_epsilon

        eps0, delta0, target = (enclose(self.args[i], prec) for i in (0, 1, 3))
        k = int(self.args[2])
        _, high = homogeneous_optimal_epsilon(upper_end(eps0), upper_end(delta0), k, lower_end(target))
        if lower_end(eps0) <= 0:  # an enclosure of a tiny ε₀ may reach below 0: the optimum is ≥ 0 anyway
            return iv.mpf([0, high])
        low, _ = homogeneous_optimal_epsilon(
            lower_end(eps0), max(lower_end(delta0), mpf(0)), k, upper_end(target)
        )
        return iv.mpf([low, high])


class HeterogeneousOptimalEpsilon(_CertifiedFunction):
    """The optimal ε of the composition of (ε_i, δ_i)-DP mechanisms at total δ
    (Murtagh–Vadhan 2016, Theorem 1.5), or a certified upper bound when the exact computation
    is too large. Arguments: (Tuple(ε_i), Tuple(δ_i), δ)."""

    def _enclose(self, prec: int) -> iv.mpf:
        from dpledger.accountant.numerics.optimal_composition import heterogeneous_optimal_epsilon

        epsilons = [enclose(e, prec) for e in self.args[0]]
        deltas = [enclose(d, prec) for d in self.args[1]]
        target = enclose(self.args[2], prec)
        uppers = [(upper_end(e), upper_end(d)) for e, d in zip(epsilons, deltas, strict=True)]
        lowers = [(lower_end(e), lower_end(d)) for e, d in zip(epsilons, deltas, strict=True)]
        _, high, _ = heterogeneous_optimal_epsilon(uppers, lower_end(target))
        if any(e <= 0 for e, _ in lowers):  # as above: the optimum is ≥ 0
            return iv.mpf([0, high])
        low, _, _ = heterogeneous_optimal_epsilon([(e, max(d, mpf(0))) for e, d in lowers], upper_end(target))
        return iv.mpf([low, high])
