"""Dominating pairs of distributions and their pessimistic discretisation (connect-the-dots).

A pair (P, Q) is described by its hockey-stick curve H(ε) = H_{e^ε}(P‖Q) = sup_E P(E) − e^ε Q(E),
in floats (``hockey_float``, for choosing grids and for searches) and as a certified ball
(``hockey_ball``, FLINT's arb through python-flint: the exact value lies in the ball).

* :class:`GaussianPair` (N(r, 1), N(0, 1)): H(ε) = Φ(r/2 − ε/r) − e^ε Φ(−r/2 − ε/r)
  (Balle–Wang 2018, Thm 8);
* :class:`LaplacePair` (Lap(t, 1), Lap(0, 1)): H(ε) = 1 − e^{(ε−t)/2} on [−t, t], 1 − e^ε below,
  0 above (the loss is (|x| − |x − t|) ∈ [−t, t]);
* :class:`AtomPair`: finitely many outputs with masses (p, q), H(ε) = Σ (p − e^ε q)₊ — randomized
  response, and the pair (δ, (1 − δ)e^ε/(1 + e^ε), (1 − δ)/(1 + e^ε), 0) vs its mirror, which
  dominates every (ε, δ)-DP mechanism (Kairouz–Oh–Viswanath 2015, Thm 2.4 / Murtagh–Vadhan);
* :class:`MixturePair` (qP + (1 − q)Q, Q) and its reverse (Q, qP + (1 − q)Q): the dominating pairs
  of Poisson subsampling at rate q under add/remove (remove and add direction, Zhu–Dong–Wang
  2022, Thm 10). H_{qP+(1−q)Q‖Q}(α) = q·H_{P‖Q}((α − 1 + q)/q) for α > 1 − q and 1 − α below;
  H_{Q‖qP+(1−q)Q}(α) = (1 − α(1 − q))·H_{Q‖P}(αq/(1 − α(1 − q))) for α < 1/(1 − q) and 0 above;
* :class:`SymmetrizedPair` of the mixture: sampling m of n records without replacement under
  substitution, q = m/n (Balle–Barthe–Gaboardi 2018, Thm 9, which bounds the profile at ε ≥ 0:
  δ′(log(1 + q(e^ε − 1))) ≤ q·δ(ε), i.e. the mixture's curve for α ≥ 1).

Discretisation: connect-the-dots (Doroshenko–Ghazi–Kamath–Kumar–Manurangsi 2022)
---------------------------------------------------------------------------------
For support points ε_1 < … < ε_n (multiples of the grid step h) the piecewise-linear interpolation
of α ↦ H(α) through (0, 1), (e^{ε_i}, H(ε_i)) and constant H(ε_n) beyond lies above H (H is convex
and decreasing with H(0) = 1), and it is the curve of the pair with P-masses

    ω_i = α_i(s_i − s_{i−1}) at the loss ε_i,   ω_∞ = H(ε_n) at +∞,

s_0 = (H(ε_1) − 1)/α_1, s_i = (H(ε_{i+1}) − H(ε_i))/(α_{i+1} − α_i), s_n = 0, α_i = e^{ε_i} (its
Q-masses ω_i/α_i sum to (1 − H(ε_1))/α_1 ≤ 1, the rest of Q at −∞): a dominating pair whose losses
lie on the grid. This is the pessimistic discretisation; its curve equals H at every support
point. The masses are computed in ball arithmetic and their upper ends rounded up to floats (a
vector ≥ the exact one, as :mod:`.pld_vector` needs); the tail beyond ε_n is the mass at +∞
(added to δ). Support points are every grid point where the loss has mass and sparser where
little mass lies (spacing h·⌊S^{−1/4}⌋ with S the float estimate of the mass beyond): any
support is valid, the choice only affects tightness.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import flint
import numpy as np
from scipy.special import log_ndtr

from dpledger.accountant.numerics.pld_vector import LossVector, drop_tiny

BALL_PREC = 128
"""Bits of the ball arithmetic (widths about 2^{−120} absolute, far below any mass that counts)."""
TAIL = 1e-30
"""Float estimate of H at the last support point unless the caller asks for less."""
MAX_SUPPORT = 2**21
"""Refuse a single-step grid finer than this many points (work estimated before it is done)."""


class Pair:
    """A pair of distributions (P, Q), through its hockey-stick curve."""

    def hockey_float(self, eps: np.ndarray) -> np.ndarray:
        """H(ε) in floats (not certified)."""
        raise NotImplementedError

    def hockey_ball(self, eps: flint.arb) -> flint.arb:
        """A ball containing H(ε) for every ε in the ball ``eps``."""
        raise NotImplementedError

    def support(self) -> tuple[float, float]:
        """(lo, hi): no loss below lo; H is negligible (≤ ~10⁻³⁰, or its mass at +∞) at hi."""
        raise NotImplementedError

    def scale(self) -> float:
        """The spread of the loss (its standard deviation, roughly): grids are chosen from it."""
        raise NotImplementedError

    def reversed(self) -> Pair:
        """The pair (Q, P)."""
        return self


def _phi_ball(x: flint.arb) -> flint.arb:
    return (-x / flint.arb(2).sqrt()).erfc() / 2


@dataclass(frozen=True)
class GaussianPair(Pair):
    """(N(r, 1), N(0, 1)), r = Δ/σ; symmetric."""

    ratio: float

    def hockey_float(self, eps: np.ndarray) -> np.ndarray:
        r = self.ratio
        with np.errstate(over="ignore", invalid="ignore"):
            first = np.exp(log_ndtr(r / 2 - eps / r))
            second = np.exp(eps + log_ndtr(-r / 2 - eps / r))
        return np.maximum(first - second, 0.0)

    def hockey_ball(self, eps: flint.arb) -> flint.arb:
        r = flint.arb(self.ratio)
        return _phi_ball(r / 2 - eps / r) - eps.exp() * _phi_ball(-r / 2 - eps / r)

    def support(self) -> tuple[float, float]:
        r = self.ratio
        return r * r / 2 - 13 * r, r * r / 2 + 13 * r

    def scale(self) -> float:
        return self.ratio


@dataclass(frozen=True)
class LaplacePair(Pair):
    """(Lap(t, 1), Lap(0, 1)), t = Δ₁/b; symmetric. The losses lie in [−t, t]."""

    ratio: float

    def hockey_float(self, eps: np.ndarray) -> np.ndarray:
        t = self.ratio
        inside = -np.expm1(np.minimum((eps - t) / 2, 0.0))
        below = -np.expm1(np.minimum(eps, 0.0))
        return np.where(eps >= t, 0.0, np.where(eps <= -t, below, inside))

    def hockey_ball(self, eps: flint.arb) -> flint.arb:
        t = flint.arb(self.ratio)
        if eps >= t:
            return flint.arb(0)
        if eps <= -t:
            return 1 - eps.exp()
        if eps > -t and eps < t:
            return 1 - ((eps - t) / 2).exp()
        # the ball straddles ±t: the union of the neighbouring pieces (H is continuous)
        low = min(flint.arb(0), 1 - eps.exp(), 1 - ((eps - t) / 2).exp(), key=lambda b: b.lower())
        high = max(1 - eps.exp(), 1 - ((eps - t) / 2).exp(), key=lambda b: b.upper())
        return flint.arb.union(low, high)

    def support(self) -> tuple[float, float]:
        return -self.ratio, self.ratio

    def scale(self) -> float:
        return self.ratio


class AtomPair(Pair):
    """Finitely many outputs with masses (p, q): H(ε) = Σ (p − e^ε q)₊. Subclasses give the masses
    as balls (``atoms``); the pairs here are their own reverse (swapping the outputs)."""

    def atoms(self) -> list[tuple[flint.arb, flint.arb]]:
        """The (p, q) masses as balls."""
        raise NotImplementedError

    def _float_atoms(self) -> list[tuple[float, float]]:
        return [(float(p.mid()), float(q.mid())) for p, q in self.atoms()]

    def hockey_float(self, eps: np.ndarray) -> np.ndarray:
        total = np.zeros_like(eps, dtype=np.float64)
        with np.errstate(over="ignore"):
            alpha = np.exp(eps)
            for p, q in self._float_atoms():
                total += np.maximum(p - alpha * q, 0.0)
        return total

    def hockey_ball(self, eps: flint.arb) -> flint.arb:
        alpha = eps.exp()
        total = flint.arb(0)
        for p, q in self.atoms():
            term = p - alpha * q
            if term > 0:
                total += term
            elif not term < 0:  # straddles 0: (·)₊ lies in [0, upper]
                total += flint.arb.union(flint.arb(0), term.upper())
        return total

    def _losses(self) -> list[float]:
        return [math.log(p / q) for p, q in self._float_atoms() if p > 0 and q > 0]

    def support(self) -> tuple[float, float]:
        finite = self._losses()
        return (min(finite), max(finite)) if finite else (0.0, 0.0)

    def scale(self) -> float:
        return max((abs(x) for x in self._losses()), default=1.0) or 1.0

    def grid_points(self, grid: int) -> np.ndarray:
        """The grid points on both sides of every finite loss: the connect-the-dots curve through
        them is the exact curve (H is linear in α between atoms), so no support is thinned."""
        losses = np.array(self._losses())
        scaled = np.ldexp(losses, grid)
        return np.unique(np.concatenate((np.floor(scaled), np.ceil(scaled)))).astype(np.int64)


@dataclass(frozen=True)
class RandomizedResponsePair(AtomPair):
    """k-ary randomized response (the true value with probability e^ε/(e^ε + k − 1)): the output
    "the true value of S" has masses (e^ε, 1)/(e^ε + k − 1), "the true value of S′" the mirror,
    the k − 2 others (1, 1)/(e^ε + k − 1). Exact; k = 2 dominates every ε-DP mechanism
    (Kairouz–Oh–Viswanath 2015, Thm 2.4). ``epsilon`` is read exactly."""

    epsilon: float
    values: int = 2

    def atoms(self) -> list[tuple[flint.arb, flint.arb]]:
        e = flint.arb(self.epsilon).exp()
        norm = e + (self.values - 1)
        out = [(e / norm, 1 / norm), (1 / norm, e / norm)]
        if self.values > 2:
            out.append(((self.values - 2) / norm, (self.values - 2) / norm))
        return out


@dataclass(frozen=True)
class ApproximateDPPair(AtomPair):
    """(δ, (1 − δ)e^ε/(1 + e^ε), (1 − δ)/(1 + e^ε), 0) against its mirror: dominates every
    (ε, δ)-DP mechanism (Kairouz–Oh–Viswanath 2015, Thm 2.4). Floats read exactly."""

    epsilon: float
    delta: float

    def atoms(self) -> list[tuple[flint.arb, flint.arb]]:
        e = flint.arb(self.epsilon).exp()
        keep = 1 - flint.arb(self.delta)
        d = flint.arb(self.delta)
        zero = flint.arb(0)
        return [
            (d, zero),
            (keep * e / (1 + e), keep / (1 + e)),
            (keep / (1 + e), keep * e / (1 + e)),
            (zero, d),
        ]


@dataclass(frozen=True)
class DiscreteGaussianPair(AtomPair):
    """(N_Z(1, s²), N_Z(0, s²)): the discrete Gaussian Pr[z] ∝ w(z) = e^{−z²/(2s²)} shifted by one
    unit (Canonne–Kamath–Steinke 2020); the loss at z is (2z − 1)/(2s²). Atoms z ∈ [−Z, Z + 1],
    Z = ⌈14s⌉ + 2, with the normaliser N enclosed between the partial sum S = Σ_{|z|≤Z} w(z) and
    S + T, T = 2w(Z + 1)/(1 − e^{−(2Z+3)/(2s²)}) bounding the rest (consecutive terms shrink by at
    least that ratio); the P-mass outside the atoms, ≤ T/S, is an atom at loss +∞ (pessimistic).
    ``sigma`` is read exactly; symmetric (z ↦ 1 − z swaps P and Q)."""

    sigma: float

    def atoms(self) -> list[tuple[flint.arb, flint.arb]]:
        return _discrete_gaussian_atoms(self.sigma)

    def scale(self) -> float:
        return 1 / self.sigma


@lru_cache(maxsize=32)
def _discrete_gaussian_atoms(sigma: float) -> list[tuple[flint.arb, flint.arb]]:
    s2 = 2 * flint.arb(sigma) ** 2
    bound = math.ceil(14 * sigma) + 2
    weights = {z: (-(flint.arb(z) ** 2) / s2).exp() for z in range(-bound - 1, bound + 2)}
    partial = sum((weights[z] for z in range(-bound, bound + 1)), flint.arb(0))
    rest = 2 * weights[bound + 1] / (1 - (-(flint.arb(2 * bound + 3)) / s2).exp())
    norm = flint.arb.union(partial, partial + rest)
    atoms = [(weights[z - 1] / norm, weights[z] / norm) for z in range(-bound + 1, bound + 1)]
    atoms.append((rest / partial, flint.arb(0)))
    return atoms


@dataclass(frozen=True)
class MixturePair(Pair):
    """(qP + (1 − q)Q, Q) for ``base`` = (P, Q) (``add=False``, the remove direction), or
    (Q, qP + (1 − q)Q) (``add=True``)."""

    base: Pair
    rate: float
    add: bool = False

    def hockey_float(self, eps: np.ndarray) -> np.ndarray:
        q = self.rate
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            alpha = np.exp(eps)
            if not self.add:
                inner = np.log(np.maximum((alpha - (1 - q)) / q, 1e-300))
                value = q * self.base.hockey_float(inner)
                return np.where(alpha <= 1 - q, 1 - alpha, value)
            scale = 1 - alpha * (1 - q)
            inner = np.log(np.maximum(alpha * q / np.maximum(scale, 1e-300), 1e-300))
            value = scale * self.base.reversed().hockey_float(inner)
            return np.where(scale <= 0, 0.0, value)

    def hockey_ball(self, eps: flint.arb) -> flint.arb:
        q = flint.arb(self.rate)
        alpha = eps.exp()
        if not self.add:
            if alpha <= 1 - q:
                return 1 - alpha
            argument = (alpha - (1 - q)) / q
            if not argument > 0:
                return flint.arb.union(flint.arb(0), flint.arb(1))
            return q * self.base.hockey_ball(argument.log())
        scale = 1 - alpha * (1 - q)
        if scale <= 0:
            return flint.arb(0)
        if not scale > 0:
            return flint.arb.union(flint.arb(0), flint.arb(1))
        return scale * self.base.reversed().hockey_ball((alpha * q / scale).log())

    def support(self) -> tuple[float, float]:
        q = self.rate
        log_keep = math.log1p(-q) if q < 1 else -math.inf

        def mixed(x: float) -> float:  # log(1 − q + q e^x)
            return float(np.logaddexp(log_keep, math.log(q) + x))

        if not self.add:
            lo, hi = self.base.support()
            return mixed(lo), mixed(hi)
        lo, hi = self.base.reversed().support()
        return -mixed(-lo), -mixed(-hi)

    def scale(self) -> float:
        base = self.base.scale()
        return min(base, self.rate * math.sqrt(math.expm1(min(base * base, 50.0))))

    def reversed(self) -> Pair:
        return MixturePair(self.base, self.rate, not self.add)


@dataclass(frozen=True)
class SymmetrizedPair(Pair):
    """The curve H(ε) = H_{P‖Q}(ε) for ε ≥ 0 and H_{Q‖P}(ε) for ε < 0, for a pair that bounds the
    profile of a *symmetric* relation only at ε ≥ 0 (sampling without replacement under
    substitution, Balle–Barthe–Gaboardi 2018, Thm 9): every ordered neighbour pair (X, Y) then has
    H_α(X‖Y) ≤ H_{P‖Q}(α) for α ≥ 1 and, by H_α(X‖Y) = 1 − α + αH_{1/α}(Y‖X), ≤ H_{Q‖P}(α) for
    α < 1. The two curves cross at α = 1 (both are the total variation) with H_{Q‖P} ≤ H_{P‖Q}
    above and ≥ below (the same identity), so the curve is their maximum: convex, decreasing,
    1 at α = 0 — the curve of a pair, which dominates every ordered neighbour pair. Its own
    reverse."""

    base: Pair

    def hockey_float(self, eps: np.ndarray) -> np.ndarray:
        return np.where(eps >= 0, self.base.hockey_float(eps), self.base.reversed().hockey_float(eps))

    def hockey_ball(self, eps: flint.arb) -> flint.arb:
        if eps >= 0:
            return self.base.hockey_ball(eps)
        if eps < 0:
            return self.base.reversed().hockey_ball(eps)
        return flint.arb.union(self.base.hockey_ball(eps), self.base.reversed().hockey_ball(eps))

    def support(self) -> tuple[float, float]:
        (lo1, hi1), (lo2, hi2) = self.base.support(), self.base.reversed().support()
        return min(lo1, lo2), max(hi1, hi2)

    def scale(self) -> float:
        return self.base.scale()


LARGEST_LOSS = math.log(sys.float_info.max)
"""The largest privacy loss a discretised pair may carry mass at: e^loss must be a float."""


@lru_cache(maxsize=128)
def _support_points(pair: Pair, grid: int, tail: float) -> np.ndarray:
    """Integer indices i (losses i·h) of the support: the grid points of [lo, hi] with the float
    estimate of H above ``tail`` at the last one, thinned where little mass lies beyond."""
    if isinstance(pair, AtomPair):
        return pair.grid_points(grid)
    h = math.ldexp(1.0, -grid)
    lo, hi = pair.support()
    first, last = math.floor(lo / h), math.ceil(hi / h)
    if last - first + 1 > MAX_SUPPORT * 8:
        raise ValueError(
            f"the loss of one step spans {last - first + 1:,} grid points of width {h:.3g}: "
            "coarsen the grid or check the parameters"
        )
    indices = np.arange(first, last + 1, dtype=np.int64)
    eps = np.ldexp(indices.astype(np.float64), -grid)
    with np.errstate(over="ignore", invalid="ignore"):  # e^ε past the float range: refused below
        values = pair.hockey_float(eps)
    beyond = np.nonzero(values <= tail)[0]
    if beyond.size:
        indices, values = indices[: beyond[0] + 1], values[: beyond[0] + 1]
    if math.ldexp(float(indices[-1]), -grid) > LARGEST_LOSS or np.isnan(values).any():
        raise ValueError(
            "a step's privacy-loss distribution is not representable in float64 (its losses "
            f"reach beyond {LARGEST_LOSS:.0f} nats, where e^loss overflows): its ε is "
            "astronomically large; add noise (a larger σ, scale or noise multiplier)"
        )
    if indices.size < 3:
        return indices
    alpha = np.exp(np.ldexp(indices.astype(np.float64), -grid))
    slopes = np.diff(values) / np.diff(alpha)
    slopes = np.concatenate(([(values[0] - 1) / alpha[0]], slopes, [0.0]))
    mass = np.maximum(alpha * np.diff(slopes), 0.0)
    beyond = np.cumsum(mass[::-1])[::-1] + values[-1]
    below = np.cumsum(mass)

    def allowed(position: int, jump: int) -> bool:  # the mass around a jump bounds its length
        tail = max(min(beyond[position], below[position + jump]), 1e-300)
        return jump <= tail**-0.25

    keep = [0]
    position, last, jump = 0, indices.size - 1, 1
    while position < last:
        jump = min(2 * jump, last - position)
        while jump > 1 and not allowed(position, jump):
            jump //= 2
        position += jump
        keep.append(position)
    chosen = indices[np.array(keep)]
    if chosen.size > MAX_SUPPORT:
        raise ValueError(f"one step needs {chosen.size:,} support points (at most {MAX_SUPPORT:,})")
    return chosen


@lru_cache(maxsize=128)
def discretize(pair: Pair, grid: int, tail: float = TAIL) -> LossVector:
    """The certified connect-the-dots loss vector of ``pair`` on the grid h = 2^{−grid} (module
    docstring): masses ≥ the exact ones, the tail beyond the last support point at +∞."""
    points = _support_points(pair, grid, tail)
    saved = flint.ctx.prec
    flint.ctx.prec = BALL_PREC
    try:
        eps = [flint.arb(int(i)) * flint.arb(2) ** (-grid) for i in points]
        alphas = [e.exp() for e in eps]
        hs = [pair.hockey_ball(e) for e in eps]
        n = len(points)
        slopes = [(hs[0] - 1) / alphas[0]]
        slopes += [(hs[i + 1] - hs[i]) / (alphas[i + 1] - alphas[i]) for i in range(n - 1)]
        slopes.append(flint.arb(0))
        uppers = [_upper_float(alphas[i] * (slopes[i + 1] - slopes[i])) for i in range(n)]
        infinity = _upper_float(hs[-1])
    finally:
        flint.ctx.prec = saved
    offset = int(points[0])
    masses = np.zeros(int(points[-1]) - offset + 1)
    masses[points - offset] = np.clip(uppers, 0.0, 1.0)
    error = drop_tiny(masses)
    return LossVector(grid, offset, masses, min(max(infinity, 0.0), 1.0), error)


@lru_cache(maxsize=128)
def discretize_float(pair: Pair, grid: int, tail: float = TAIL) -> LossVector:
    """The same construction in floats (fast, not certified): for searches, whose answer is then
    certified with :func:`discretize`."""
    points = _support_points(pair, grid, tail)
    eps = np.ldexp(points.astype(np.float64), -grid)
    alpha = np.exp(eps)
    values = pair.hockey_float(eps)
    slopes = np.concatenate(([(values[0] - 1) / alpha[0]], np.diff(values) / np.diff(alpha), [0.0]))
    masses = np.zeros(int(points[-1] - points[0]) + 1)
    masses[points - points[0]] = np.clip(alpha * np.diff(slopes), 0.0, 1.0)
    drop_tiny(masses)
    return LossVector(grid, int(points[0]), masses, float(values[-1]), 0.0).estimate()


def _upper_float(ball: flint.arb) -> float:
    """A float ≥ every point of ``ball`` (+∞ for a ball that is not finite)."""
    if not ball.is_finite():
        return math.inf
    upper = ball.upper()
    value = float(upper)
    if flint.arb(value) < upper:
        value = math.nextafter(value, math.inf)
    return value


def grid_for(pairs: Sequence[Pair], resolution: int = 128) -> int:
    """The grid exponent j (h = 2^{−j}) with h ≤ (smallest loss spread)/``resolution``, kept within
    [2^{−26}, 2^{−4}]."""
    spread = min(p.scale() for p in pairs)
    if not spread > 0 or not math.isfinite(spread):
        spread = 1.0
    exponent = math.ceil(-math.log2(spread / resolution))
    return min(max(exponent, 4), 26)
