"""Discretised privacy-loss distributions on a binary grid, with a certified error budget.

A :class:`LossVector` holds float64 masses ``m_i`` at the losses ``(offset + i)·h``, h = 2^{−j}
(exact binary numbers), a mass ``infinity`` at the loss +∞ and an ``error`` e. Its invariant:

    there is the privacy-loss distribution ω of a pair of distributions that dominates the
    mechanism (H_α(P‖Q) ≤ H_α(P̃‖Q̃) for every α ≥ 0) and a vector r ≥ 0 with ‖r‖₁ ≤ e such that
    ω ≤ m + r entrywise (the +∞ entry included).

Then for every ε, δ(ε) = Σ_i ω_i (1 − e^{ε − L_i})₊ + ω_∞ ≤ Σ_i m_i (1 − e^{ε−L_i})₊ + m_∞ + e,
because each weight (1 − e^{ε−L})₊ lies in [0, 1]: :func:`delta_upper` returns that right-hand
side rounded up, and :func:`epsilon_upper` an ε at which it is ≤ the target δ (certified there:
it does not rely on monotonicity).

Operations, each keeping the invariant
--------------------------------------
* **Composition** (:func:`convolve`). The product of dominating pairs dominates the composition
  (Zhu–Dong–Wang 2022, Thm 10), and its loss law is the convolution ω_a ∗ ω_b, with +∞ mass
  ω_a∞|ω_b| + |ω_a|ω_b∞ ≤ ω_a∞ + ω_b∞. From ω_a ≤ m_a + r_a, ω_b ≤ m_b + r_b (all ≥ 0):
  ω_a ∗ ω_b ≤ m_a ∗ m_b + r_a ∗ ω_b + m_a ∗ r_b, and ‖r_a ∗ ω_b‖₁ ≤ e_a, ‖m_a ∗ r_b‖₁ ≤ ‖m_a‖₁e_b.
  The computed ĉ of m_a ∗ m_b enters with ‖ĉ − m_a ∗ m_b‖₁ ≤ e_fft, so
  e_c = e_fft + e_a + max(1, ‖m_a‖₁)·e_b and m_c∞ = m_a∞ + m_b∞. Negative entries of ĉ are set to
  0: against an exact vector ≥ 0 that never increases the error.
* **Truncation** (:func:`truncate`): finite mass above a cut moves to +∞ (the truncated tail is
  added to δ), mass below a cut is lumped onto the cut. Moving P-mass to a larger loss keeps a
  valid pair (the Q-mass e^{−L}ω shrinks, the rest of Q goes to loss −∞) whose δ(ε) is no smaller
  for every ε, and the map is linear, monotone and preserves ‖·‖₁, so it carries the invariant.
  The moved sums are rounded up.

The convolution error e_fft
---------------------------
Direct convolution (``numpy.convolve``, small inputs): every output is a sum of at most n
products of non-negative floats, so it is within a factor (1 ± γ_{n+1}) of the exact value,
γ_n = nu/(1 − nu), u = 2^{−53} (Higham 2002, Lemma 3.1 and §3.1): e_fft = γ_{n+1}‖m_a‖₁‖m_b‖₁.

FFT convolution (``numpy.fft``, radix-2ᵗ transforms of length N = 2ᵗ): Higham 2002, Thm 24.2 —
the computed transform of x satisfies ‖ŷ − y‖₂ ≤ ψ‖y‖₂, ψ = tη/(1 − tη), η = μ + γ₄(√2 + μ), with
μ a bound on the error of the twiddle factors. With ‖Fx‖₂ = √N‖x‖₂, ‖Fx‖_∞ ≤ ‖x‖₁, the pointwise
product rounded with relative error √2γ₂ (Higham, Lemma 3.5) and the inverse transform (F*/N, the
division by N = 2ᵗ exact) treated the same way:

    ‖ĉ − c‖₂ ≤ (1/√N)·[(1 + ψ)·E_Z + ψ·√N‖a‖₂‖b‖₁],
    E_Z = ψ√N(‖a‖₂(‖b‖₁ + ψ√N‖b‖₂) + ‖a‖₁‖b‖₂) + √2γ₂(1 + ψ)√N‖a‖₂(‖b‖₁ + ψ√N‖b‖₂),

and ‖ĉ − c‖₁ ≤ √n‖ĉ − c‖₂ over the n kept entries. The bound takes numpy's pocketfft as a
Cooley–Tukey FFT in that theorem's model — radix-4 passes counted as two radix-2 stages, the real
transform's post-processing as one more stage, and twiddle factors within μ = 8u (pocketfft
computes them in extended precision) — with η doubled as a margin. This modelling step is the one
part of the argument not checked by machine; ``tests/accountant/test_pld_vector.py`` compares
the FFT path with an exact integer convolution (FLINT) and with this bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UNIT = 2.0**-53
"""u, the unit roundoff of float64."""
DIRECT_MAX = 2**22
"""Convolutions with len(a)·len(b) up to this are direct (exact error bound, no FFT model)."""
TINY = 2.0**-500
"""Computed masses below this are set to 0 (each charged TINY to the error)."""
LARGE = 32
"""At least this many of the largest entries of each factor are convolved directly, and more (up
to 256) while that costs at most :data:`DIRECT_WORK` multiply-adds (see :func:`_convolve_masses`)."""
DIRECT_WORK = 2**23
MAX_LENGTH = 2**24
"""The longest loss vector composed (2²⁴ floats, 128 MiB; its FFT buffers about 4× that)."""


def _gamma(n: int) -> float:
    """γ_n = nu/(1 − nu), rounded up."""
    value = n * UNIT
    return _up(value / (1 - value))


def _up(value: float) -> float:
    """The next float above ``value`` (a margin for the one rounding that produced it)."""
    return math.nextafter(value, math.inf)


def _sum_up(values: np.ndarray) -> float:
    """An upper bound of the exact sum of non-negative floats (numpy's pairwise sum is within
    γ_{n−1} of it)."""
    if values.size == 0:
        return 0.0
    total = float(np.sum(values))
    return _up(total * (1 + 2 * _gamma(values.size)))


@dataclass(frozen=True)
class LossVector:
    """Masses ``masses[i]`` at the losses ``(offset + i)·2^{−grid}``, ``infinity`` at +∞, and the
    certified l1 slack ``error`` (see the module docstring for the invariant)."""

    grid: int
    offset: int
    masses: np.ndarray
    infinity: float
    error: float

    @property
    def step(self) -> float:
        """h = 2^{−grid}."""
        return math.ldexp(1.0, -self.grid)

    def losses(self) -> np.ndarray:
        """The exact losses of the entries (floats: integers times a power of two)."""
        return np.ldexp(np.arange(self.offset, self.offset + self.masses.size, dtype=np.float64), -self.grid)

    def estimate(self) -> LossVector:
        """The same masses marked as a float estimate (error +∞: no certified bound is kept)."""
        return LossVector(self.grid, self.offset, self.masses, self.infinity, math.inf)

    def finite_mass(self) -> float:
        """An upper bound of Σ m_i."""
        return _sum_up(self.masses)


def _norm_up(x: np.ndarray) -> float:
    """An upper bound of ‖x‖₂ (squares and their sum each within γ_{n+1}; numpy's own sum, not BLAS,
    whose threads contend on a shared machine)."""
    return _up(math.sqrt(_sum_up(x * x) * (1 + 2 * UNIT)) * (1 + 2 * UNIT))


def _fft_error(n: int, a: np.ndarray, b: np.ndarray, kept: int) -> float:
    """The l1 error bound of the FFT convolution of length n = 2ᵗ (module docstring), rounded up."""
    stages = n.bit_length()  # t passes of radix 2, and one for the real transform
    mu = 8 * UNIT
    eta = 2 * (mu + _gamma(4) * (math.sqrt(2) + mu))
    psi = stages * eta / (1 - stages * eta)
    root = math.sqrt(n)
    a2, b2 = _norm_up(a), _norm_up(b)
    a1, b1 = _sum_up(a), _sum_up(b)
    spread = b1 + psi * root * b2
    e_z = psi * root * (a2 * spread + a1 * b2) + math.sqrt(2) * _gamma(2) * (1 + psi) * root * a2 * spread
    e2 = ((1 + psi) * e_z + psi * root * a2 * b1) / root
    return _up(e2 * math.sqrt(kept) * 1.01)


def _split(x: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices of the ``count`` largest entries, x with those entries set to 0)."""
    if x.size <= count:
        return np.arange(x.size), np.zeros_like(x)
    large = np.argpartition(x, x.size - count)[x.size - count :]
    small = x.copy()
    small[large] = 0.0
    return large, small


def _shifted_sum(indices: np.ndarray, x: np.ndarray, other: np.ndarray, out: np.ndarray) -> None:
    """out += Σ_{i ∈ indices} x_i · (other shifted by i): the direct part of a product."""
    for i in indices:
        if x[i] > 0:
            out[i : i + other.size] += x[i] * other


def _convolve_masses(a: np.ndarray, b: np.ndarray, certified: bool = True) -> tuple[np.ndarray, float]:
    """a ∗ b (computed) and the l1 error bound of that computation.

    Small inputs are convolved directly. Otherwise the L largest entries of a and of b (L ≥ :data:`LARGE`)
    are split off: a ∗ b = a_L ∗ b + a_S ∗ b_L + a_S ∗ b_S, the first two direct (shifted sums of
    at most 2L + 1 non-negative terms per entry with the third part, so within γ_{2L+2} of
    the exact values), the last by FFT, whose bound scales with ‖a_S‖₂‖b_S‖₂-like norms — small
    once the few heavy atoms of a concentrated loss are taken out (‖a_S‖₂² ≤ max(a_S)·‖a_S‖₁)."""
    kept = a.size + b.size - 1
    if not certified and a.size * b.size > DIRECT_MAX:  # float steering only: no bound, no split
        n = 1 << (kept - 1).bit_length()
        product = np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)[:kept]
        return np.maximum(product, 0.0, out=product), math.inf
    if a.size * b.size <= DIRECT_MAX or min(a.size, b.size) <= LARGE:
        product = np.convolve(a, b)
        return product, _up(_gamma(min(a.size, b.size) + 1) * _sum_up(a) * _sum_up(b))
    count = max(LARGE, min(256, DIRECT_WORK // kept))
    large_a, small_a = _split(a, count)
    large_b, small_b = _split(b, count)
    n = 1 << (kept - 1).bit_length()
    product = np.fft.irfft(np.fft.rfft(small_a, n) * np.fft.rfft(small_b, n), n)[:kept]
    np.maximum(product, 0.0, out=product)
    fft_error = _fft_error(n, small_a, small_b, kept)
    _shifted_sum(large_a, a, b, product)
    _shifted_sum(large_b, b, small_a, product)
    direct = _gamma(2 * count + 2) * (_sum_up(a) * _sum_up(b))
    return product, _up(fft_error * (1 + _gamma(2 * count + 2)) + direct)


def drop_tiny(masses: np.ndarray) -> float:
    """Set masses below :data:`TINY` to 0 in place (their squares would be subnormal, which slows
    every later operation) and return the l1 error this adds (TINY per entry dropped)."""
    tiny = (masses < TINY) & (masses > 0)
    masses[tiny] = 0.0
    return float(np.count_nonzero(tiny)) * TINY


def convolve(a: LossVector, b: LossVector) -> LossVector:
    """The loss vector of the composition of the two pairs (module docstring). Vectors with an
    infinite ``error`` are float estimates (:func:`estimate`): their products skip the bound."""
    if a.grid != b.grid:
        raise ValueError("loss vectors on different grids")
    if a.masses.size + b.masses.size - 1 > MAX_LENGTH:
        raise ValueError(
            f"the composed loss vector would hold {a.masses.size + b.masses.size - 1:,} entries "
            f"(at most {MAX_LENGTH:,}): use a coarser grid or fewer steps"
        )
    masses, fft_error = _convolve_masses(
        a.masses, b.masses, math.isfinite(a.error) and math.isfinite(b.error)
    )
    dropped = drop_tiny(masses)
    error = _up(fft_error + dropped + a.error + max(1.0, a.finite_mass()) * b.error)
    return LossVector(a.grid, a.offset + b.offset, masses, _up(a.infinity + b.infinity), error)


def truncate(vector: LossVector, upper_budget: float, lower_budget: float) -> LossVector:
    """Move the largest losses whose total mass is ≤ ``upper_budget`` to +∞ and lump the smallest
    losses of total mass ≤ ``lower_budget`` onto the next entry (module docstring)."""
    masses = vector.masses
    if masses.size == 0:
        return vector
    slack = 1 + 2 * _gamma(masses.size)
    from_top = np.cumsum(masses[::-1]) * slack
    cut_top = int(np.searchsorted(from_top, upper_budget, side="right"))
    from_bottom = np.cumsum(masses) * slack
    cut_bottom = int(np.searchsorted(from_bottom, lower_budget, side="right"))
    high = masses.size - cut_top
    if cut_bottom >= high - 1:
        cut_bottom = max(0, high - 2)
    if high <= 0:
        return LossVector(
            vector.grid, vector.offset, masses[:1] * 0, _up(vector.infinity + _sum_up(masses)), vector.error
        )
    moved_up = _sum_up(masses[high:])
    kept = masses[cut_bottom:high].copy()
    if cut_bottom:
        kept[0] = _up(_sum_up(masses[: cut_bottom + 1]))
    return LossVector(
        vector.grid, vector.offset + cut_bottom, kept, _up(vector.infinity + moved_up), vector.error
    )


def compose_many(vectors: list[LossVector], budget: float) -> LossVector:
    """The composition of ``vectors`` (each used once), truncated after each product with an equal
    share of ``budget`` on each side."""
    result = vectors[0]
    share = budget / max(1, len(vectors) - 1)
    for other in vectors[1:]:
        result = truncate(convolve(result, other), share, share)
    return result


def self_compose(vector: LossVector, times: int, budget: float) -> LossVector:
    """The ``times``-fold composition by repeated squaring, truncated after each product. The mass a
    truncation moves to +∞ is repeated by every later product that uses the truncated vector: a
    square standing for m steps enters the result times/m times at most, so its truncation gets
    ``budget``·m/(times·T) (T the number of truncations) and the tails cut total ≤ ``budget`` on
    each side."""
    if times < 1:
        raise ValueError("times must be ≥ 1")
    total, cuts = times, max(1, products_needed(times))
    result: LossVector | None = None
    power, steps, done = vector, 1, 0
    while True:
        if times & 1:
            if result is None:
                result = power
            else:
                share = budget * (done + steps) / (total * cuts)
                result = truncate(convolve(result, power), share, share)
            done += steps
        times >>= 1
        if not times:
            break
        steps *= 2
        share = budget * steps / (total * cuts)
        power = truncate(convolve(power, power), share, share)
    assert result is not None
    return result


def products_needed(times: int) -> int:
    """How many truncations :func:`self_compose` makes for ``times``."""
    return max(0, times.bit_length() - 1) + max(0, bin(times).count("1") - 1)


def _exp_lower(x: float) -> float:
    """A float ≤ e^x (x a float, read exactly), from FLINT's ball arithmetic."""
    import flint

    saved = flint.ctx.prec
    flint.ctx.prec = 80
    try:
        ball = flint.arb(x).exp()
        low = ball.lower()
    finally:
        flint.ctx.prec = saved
    value = float(low)
    if flint.arb(value) > low:
        value = math.nextafter(value, -math.inf)
    return max(value, 0.0)


def delta_upper(vector: LossVector, epsilon: float) -> float:
    """A float ≥ δ(ε) = Σ ω_i (1 − e^{ε − L_i})₊ + ω_∞ of every PLD the vector stands for
    (``epsilon`` a float, read exactly).

    For L_j the first loss > ε, the weights are 1 − e^{ε−L_j}·(e^{−h})^m (m = i − j). With a ≤ e^{ε−L_j}
    and b ≤ e^{−h} (certified lower ends), t̂_m = fl(t̂_{m−1}·b) satisfies t̂_m ≤ a·b^m·(1 + u)^m,
    so t̂_m(1 − (m + 1)u) is ≤ the true e^{ε−L_i}; each weight is then rounded up by 4u (three
    operations on numbers in [0, 1]) and the sum by γ_n."""
    losses_start = vector.offset
    h = vector.step
    first = math.floor(epsilon / h) + 1 - losses_start
    first = max(first, 0)
    masses = vector.masses[first:]
    total = vector.infinity + (vector.error if math.isfinite(vector.error) else 0.0)  # estimates: no bound
    if masses.size:
        start_loss = math.ldexp(float(losses_start + first), -vector.grid)
        a = _exp_lower(epsilon - start_loss) if epsilon - start_loss > -745 else 0.0
        b = _exp_lower(-h)
        steps = np.full(masses.size, b)
        steps[0] = a
        powers = np.cumprod(steps)
        powers *= 1 - (np.arange(1, masses.size + 1, dtype=np.float64) + 1) * UNIT
        weights = np.minimum(1.0, 1.0 - powers + 4 * UNIT)
        np.maximum(weights, 0.0, out=weights)
        total += _sum_up(masses * weights) * (1 + 2 * UNIT)
    return _up(_up(total))


def epsilon_upper(vector: LossVector, delta: float, tolerance: float = 2.0**-30) -> float | None:
    """A float ε ≥ 0 with :func:`delta_upper` (ε) ≤ ``delta``, within about a relative ``tolerance``
    of the smallest such ε (bisection); None when even the largest loss leaves δ above the target
    (the mass at +∞ plus the error already exceeds it)."""
    top = math.ldexp(float(vector.offset + vector.masses.size), -vector.grid)
    high = max(top, 0.0)
    if delta_upper(vector, high) > delta:
        return None
    if delta_upper(vector, 0.0) <= delta:
        return 0.0
    low = 0.0
    while high - low > tolerance * max(high, 2.0**-40):
        middle = (low + high) / 2
        if delta_upper(vector, middle) <= delta:
            high = middle
        else:
            low = middle
    return high
