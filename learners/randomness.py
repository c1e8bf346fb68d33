"""One interface for every random choice a learner makes.

Algorithms take a :class:`Randomness` and never touch ``numpy.random`` directly, so the same
code runs *sampled* (:class:`Sampled`, wrapping ``numpy.random.Generator``) and *enumerated*
(:class:`Enumerated` with the driver :func:`enumerate_outputs`: the algorithm is replayed along
every branch of its discrete choices and its exact output distribution is returned, with
certified probability intervals, for the exact auditor).

Exactness of :class:`Sampled`: every discrete choice is drawn from *exactly* the stated
distribution (up to the quality of the underlying bit generator). Weighted choices from
log-weights are not done with a floating-point softmax or Gumbel trick: the weights are
enclosed in certified fixed-point intervals and compared with a uniform whose binary expansion
is drawn lazily; when the uniform falls in a zone the enclosure cannot decide, both the
precision and the uniform are refined (Devroye-style exact inversion). Hence the exponential
mechanism samples the analysed distribution with total-variation gap 0 and nothing extra is
charged to the accountant.
"""

from __future__ import annotations

import bisect
import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np
from mpmath import iv
from mpmath.libmp import libmpi

from dpledger.accountant.numerics.certified import Enclosure, interval_precision

Number = int | float | Fraction

DEFAULT_LEAF_LIMIT = 1_000_000
"""Default maximum number of leaves (complete branch paths) :func:`enumerate_outputs` visits."""

_START_BITS = 64
_ONE = iv.mpf(1)._mpi_


def as_fraction(value: object, name: str) -> Fraction:
    """An exact rational for a number: floats by their exact binary value, decimal strings
    exactly ("0.1" is 1/10); ``ValueError`` naming ``name`` otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not isinstance(value, (int, float, Fraction)):
        raise ValueError(
            f"{name} must be an int, float, Fraction or decimal string, got {type(value).__name__}"
        )
    return Fraction(value)


def _floor(x: mpmath.mpf) -> int:
    """⌊x⌋ exactly for x ≥ 0 (``int`` truncates an mpf exactly; ``mpmath.floor`` would round
    its result to the working precision)."""
    return int(x)


def _ceil(x: mpmath.mpf) -> int:
    """⌈x⌉ exactly for x ≥ 0."""
    whole = int(x)
    return whole + (x > whole)


def _iv_fraction(value: Fraction) -> iv.mpf:
    return iv.mpf(value.numerator) / iv.mpf(value.denominator)


def _grouped_weights(
    log_weights: Sequence[Number] | np.ndarray,
    counts: Sequence[int] | np.ndarray,
) -> tuple[list[Fraction], list[int]]:
    """Validated exact (log-weight, count) pairs."""
    logs = [v if type(v) is Fraction else as_fraction(v, "log_weights") for v in log_weights]
    sizes = [int(c) for c in counts]
    if len(logs) != len(sizes):
        raise ValueError(f"counts must have the length of log_weights ({len(logs)}), got {len(sizes)}")
    if any(c < 0 for c in sizes) or not any(sizes):
        raise ValueError("counts must be non-negative integers, not all zero")
    return logs, sizes


def _enclosed_weights(log_weights: Sequence[Fraction], counts: Sequence[int]) -> list[iv.mpf]:
    """Intervals (at the current ``iv`` precision) for counts[i]·exp(log_weights[i] − max_j log_weights[j]):
    the common factor exp(max) is dropped, so large scores never overflow."""
    top = max(w for w, c in zip(log_weights, counts, strict=True) if c)
    return [
        iv.mpf(c) * iv.exp(_iv_fraction(w - top)) if c else iv.mpf(0)
        for w, c in zip(log_weights, counts, strict=True)
    ]


@lru_cache(maxsize=65536)
def grouped_probabilities(
    log_weights: tuple[Fraction, ...], counts: tuple[int, ...], prec: int
) -> tuple[iv.mpf, ...]:
    """Certified intervals for counts[i]·exp(log_weights[i]) / Σ_j counts[j]·exp(log_weights[j])
    (memoised: an enumeration replays the same choice once per leaf)."""
    with interval_precision(prec):
        weights = _enclosed_weights(log_weights, counts)
        total = iv.mpf(0)
        for w in weights:
            total += w
        return tuple(w / total for w in weights)


@lru_cache(maxsize=4096)
def _uniform_probability(n: int, prec: int) -> iv.mpf:
    with interval_precision(prec):
        return iv.mpf(1) / n


# --- exact discrete Laplace and discrete Gaussian samplers ---------------------------------

_UNIFORM_BITS = 53
_SCALE_53 = 2.0**-53
_BAND = 2.0**-40
"""Relative error band of the float64 fast paths below. Each float quantity there is a handful
of IEEE operations (relative error ≤ u = 2⁻⁵³ each) and one ``log`` or ``exp`` (numpy's are
within a few ulp); 2⁻⁴⁰ = 2¹³·u leaves a factor ≥ 2⁸ over that sum. Draws inside the band are
decided again with certified ``mpmath.iv`` intervals, so the band's size affects only speed."""


def _exact_positive(value: float, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a positive float, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return value


def _count(size: int | tuple[int, ...] | None) -> int:
    return 1 if size is None else int(np.prod(size))


def _shape(values: np.ndarray, size: int | tuple[int, ...] | None) -> int | np.ndarray:
    return int(values[0]) if size is None else values.reshape(size)


class ContinuousDrawError(ValueError):
    """A continuous draw was requested from randomness that can only enumerate discrete choices."""


class Randomness(ABC):
    """The random choices available to a learner.

    Primitives: :meth:`integer` (uniform on ``range(n)``), :meth:`choice_grouped` (group i with
    probability ∝ counts[i]·exp(log_weights[i])), :meth:`choice` (rational weights) and the
    continuous draws. :meth:`choice_log_weights`, :meth:`subset` and :meth:`permutation` are
    built from the primitives, so every implementation realises the same distributions.
    """

    @abstractmethod
    def integer(self, n: int) -> int:
        """A uniform integer in ``range(n)``; ``n`` may be an arbitrarily large Python int."""

    @abstractmethod
    def choice_grouped(
        self, log_weights: Sequence[Number] | np.ndarray, counts: Sequence[int] | np.ndarray
    ) -> int:
        """An index i drawn with probability counts[i]·exp(log_weights[i]) / Σ_j counts[j]·exp(log_weights[j]).

        ``log_weights`` are read exactly (floats by their binary value); counts are integers ≥ 0
        and may be astronomically large (runs of an ordered domain)."""

    @abstractmethod
    def choice(self, weights: Sequence[Number] | np.ndarray) -> int:
        """An index i drawn with probability weights[i] / Σ_j weights[j] (weights ≥ 0, read exactly)."""

    @abstractmethod
    def laplace(self, scale: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """Laplace(0, scale) draws (continuous: unavailable under enumeration)."""

    @abstractmethod
    def gaussian(self, sigma: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """Normal(0, sigma²) draws (continuous: unavailable under enumeration)."""

    def discrete_laplace(self, scale: float, size: int | tuple[int, ...] | None = None) -> int | np.ndarray:
        """Discrete Laplace draws, Pr[z] ∝ e^{−|z|/scale} on the integers (unbounded support:
        unavailable under enumeration)."""
        raise ContinuousDrawError("discrete_laplace: unbounded integer noise cannot be enumerated")

    def discrete_gaussian(self, sigma: float, size: int | tuple[int, ...] | None = None) -> int | np.ndarray:
        """Discrete Gaussian draws, Pr[z] ∝ e^{−z²/(2σ²)} on the integers (unbounded support:
        unavailable under enumeration)."""
        raise ContinuousDrawError("discrete_gaussian: unbounded integer noise cannot be enumerated")

    def choice_log_weights(self, log_weights: Sequence[Number] | np.ndarray) -> int:
        """An index i drawn with probability exp(log_weights[i]) / Σ_j exp(log_weights[j])
        (log-weights read exactly; see :func:`choice_by_value`)."""
        return choice_by_value(self, log_weights, lambda value: as_fraction(value, "log_weights"))

    def subset(self, population: int, size: int) -> np.ndarray:
        """A uniformly random size-``size`` subset of ``range(population)`` drawn without
        replacement, returned in uniformly random order (so it is also a random ordering).
        Partial Fisher–Yates shuffle on :meth:`integer`."""
        if not 0 <= size <= population:
            raise ValueError(f"size must be in [0, population={population}], got {size}")
        pool = list(range(population))
        for position in range(size):
            swap = position + self.integer(population - position)
            pool[position], pool[swap] = pool[swap], pool[position]
        return np.asarray(pool[:size], dtype=np.int64)

    def permutation(self, n: int) -> np.ndarray:
        """A uniformly random permutation of ``range(n)``."""
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        return self.subset(n, n)


def choice_by_value(
    rng: Randomness, values: Sequence[Number] | np.ndarray, log_weight: Callable[[Number], Fraction]
) -> int:
    """An index i drawn with probability ∝ exp(log_weight(values[i])).

    Equal values are grouped: a group is drawn by :meth:`Randomness.choice_grouped` with its
    size as count, then a member uniformly by :meth:`Randomness.integer` — the same
    distribution, with one exact weight per distinct value (fast for integer scores on huge
    candidate sets: an integer array of 10⁶ scores costs one ``np.unique``)."""
    array = (
        values
        if isinstance(values, np.ndarray)
        else np.asarray(values, dtype=object if any(isinstance(v, Fraction) for v in values) else None)
    )
    if array.ndim != 1 or array.size == 0:
        raise ValueError("scores/log_weights must be a non-empty 1-D sequence")
    if array.dtype.kind in "iu" and int(array.max()) - int(array.min()) <= 4 * array.size:
        low = int(array.min())
        keys = array - low  # integer scores of small range: O(n) counting instead of a sort
        histogram = np.bincount(keys)
        present = np.flatnonzero(histogram)
        distinct, counts = present + low, histogram[present]
    else:
        distinct, inverse, counts = np.unique(array, return_inverse=True, return_counts=True)
        keys, present = inverse.reshape(-1), np.arange(len(distinct))
    group = rng.choice_grouped([log_weight(v) for v in distinct.tolist()], counts.tolist())
    members = np.flatnonzero(keys == present[group])
    return int(members[rng.integer(len(members))])


class Sampled(Randomness):
    """Randomness drawn from a ``numpy.random.Generator``, exactly (see the module docstring).

    ``random_state`` is None (fresh entropy), an int seed ≥ 0, a ``numpy.random.SeedSequence``
    (e.g. one child of a run's root sequence), or a Generator (used as is, so its stream is
    consumed); None, an int and a SeedSequence go through ``numpy.random.default_rng``, so the
    same int or SeedSequence gives the same draws.
    """

    def __init__(
        self, random_state: int | np.random.SeedSequence | np.random.Generator | None = None
    ) -> None:
        if isinstance(random_state, np.random.Generator):
            self.generator = random_state
        elif (
            random_state is None
            or isinstance(random_state, np.random.SeedSequence)
            or (
                isinstance(random_state, (int, np.integer))
                and not isinstance(random_state, bool)
                and random_state >= 0
            )
        ):
            self.generator = np.random.default_rng(random_state)
        else:
            raise ValueError(
                "random_state must be None, an int ≥ 0, a numpy SeedSequence or a numpy Generator, "
                f"got {type(random_state).__name__}"
            )

    def _bits(self, count: int) -> int:
        """``count`` fresh uniform random bits as an int."""
        raw = int.from_bytes(self.generator.bytes((count + 7) // 8), "little")
        return raw >> (-count % 8)

    def integer(self, n: int) -> int:
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        if n <= 2**62:
            return int(self.generator.integers(n))
        bits = n.bit_length()
        while True:  # rejection: exact uniform on range(n)
            value = self._bits(bits)
            if value < n:
                return value

    def choice_grouped(
        self, log_weights: Sequence[Number] | np.ndarray, counts: Sequence[int] | np.ndarray
    ) -> int:
        logs, sizes = _grouped_weights(log_weights, counts)
        uniform, uniform_bits = 0, 0
        precision = _START_BITS
        while True:
            # certified fixed-point enclosures lo_i ≤ 2^p·w_i/M ≤ hi_i of the weights (M: a common scale)
            with interval_precision(precision + 16):
                weights = _enclosed_weights(logs, sizes)
                scale = iv.mpf(2) ** precision / iv.mpf(max(w.b for w in weights))
                scaled = [weight * scale for weight in weights]
                cum_low = [0, *itertools.accumulate(_floor(w.a) for w in scaled)]
                cum_high = [0, *itertools.accumulate(_ceil(w.b) for w in scaled)]
            extra = precision + 8 - uniform_bits
            uniform, uniform_bits = (uniform << extra) | self._bits(extra), uniform_bits + extra
            # U ∈ [u, u+1)/2^k; U·W ∈ [u·W_lo, (u+1)·W_hi)/2^k; pick i with C_i ≤ U·W < C_{i+1}
            target_low = uniform * cum_low[-1]
            target_high = (uniform + 1) * cum_high[-1]
            # the largest i with C_hi[i]·2^k ≤ target_low (the lower end is certainly past C_i) ...
            index = bisect.bisect_right(cum_high, target_low >> uniform_bits) - 1
            # ... is the answer when the upper end is certainly before C_{i+1}; otherwise refine
            if index < len(sizes) and target_high <= (cum_low[index + 1] << uniform_bits):
                return index
            precision *= 2

    def choice(self, weights: Sequence[Number] | np.ndarray) -> int:
        exact = [as_fraction(w, "weights") for w in weights]
        if not exact or any(w < 0 for w in exact) or not any(exact):
            raise ValueError("weights must be non-negative with a positive sum")
        common = math.lcm(*(w.denominator for w in exact))
        cumulative = np.cumsum([0] + [int(w * common) for w in exact], dtype=object)
        draw = self.integer(int(cumulative[-1]))
        return bisect.bisect_right(list(cumulative), draw) - 1

    def subset(self, population: int, size: int) -> np.ndarray:
        """As :meth:`Randomness.subset`, by numpy's (unbiased) ``Generator.choice``."""
        if not 0 <= size <= population:
            raise ValueError(f"size must be in [0, population={population}], got {size}")
        return self.generator.choice(population, size=size, replace=False)

    def permutation(self, n: int) -> np.ndarray:
        """As :meth:`Randomness.permutation`, by numpy's ``Generator.permutation``."""
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        return self.generator.permutation(n)

    def _geometric(self, t: float, count: int) -> np.ndarray:
        """G = ⌊−t·ln U⌋ for U uniform on (0, 1): Pr[G ≥ k] = Pr[U ≤ e^{−k/t}] = q^k with
        q = e^{−1/t}, i.e. Pr[G = k] = (1 − q)q^k exactly.

        U's first 53 bits u put U in [u, u + 1)·2⁻⁵³, so −t·ln U lies in
        (−t·ln((u+1)2⁻⁵³), −t·ln(u·2⁻⁵³)]. Both ends are evaluated in float64 and widened by the
        relative band ``_BAND``; where the widened interval holds one integer part, that is G.
        Elsewhere (probability about t·2⁻⁴⁰ per draw, and u = 0) :meth:`_geometric_exact`
        draws further bits of the same U and decides with certified intervals."""
        u = self.generator.integers(0, 2**_UNIFORM_BITS, size=count, dtype=np.int64)
        with np.errstate(divide="ignore"):
            high = -t * np.log(u * _SCALE_53)  # the end at U = u·2⁻⁵³ (inf for u = 0)
            low = -t * np.log((u + 1) * _SCALE_53)  # the end at U = (u + 1)·2⁻⁵³ (≥ 0)
        k_low = np.floor(low * (1 - _BAND) - 2.0**-1000)
        k_high = np.floor(high * (1 + _BAND) + 2.0**-1000)
        out = np.where(np.isfinite(k_high), k_low, -1).astype(np.int64)
        for i in np.flatnonzero(~np.isfinite(k_high) | (k_low != k_high)):
            out[i] = self._geometric_exact(t, int(u[i]))
        return out

    def _geometric_exact(self, t: float, u: int) -> int:
        """⌊−t·ln U⌋ decided exactly: U's expansion is extended (u, bits) and −t·ln of the
        interval [u, u + 1)·2^−bits is enclosed with ``mpmath.iv`` until one integer part remains."""
        bits = _UNIFORM_BITS
        while True:
            extra = bits
            u, bits = (u << extra) | self._bits(extra), bits + extra
            if u == 0:
                continue
            with interval_precision(bits + 64):
                ends = iv.mpf([mpmath.ldexp(u, -bits), mpmath.ldexp(u + 1, -bits)])
                x = -iv.mpf(t) * iv.log(ends)
                low, high = _floor(x.a), _floor(x.b)
            if low == high:
                return low

    def discrete_laplace(self, scale: float, size: int | tuple[int, ...] | None = None) -> int | np.ndarray:
        """Exact discrete Laplace draws on the integers: Pr[z] = ((1 − q)/(1 + q))·q^{|z|},
        q = e^{−1/t}, t = ``scale`` (a positive float, read exactly). The difference of two
        independent geometrics (Pr[G = k] = (1 − q)q^k, :meth:`_geometric`) has exactly this law:
        Pr[G₁ − G₂ = z] = Σ_k (1 − q)²q^{k+|z|}q^k = (1 − q)q^{|z|}/(1 + q)."""
        t = _exact_positive(scale, "scale")
        count = _count(size)
        return _shape(self._geometric(t, count) - self._geometric(t, count), size)

    def discrete_gaussian(self, sigma: float, size: int | tuple[int, ...] | None = None) -> int | np.ndarray:
        """Exact discrete Gaussian draws N_Z(0, s²): Pr[z] ∝ exp(−z²/(2s²)) on the integers,
        s = ``sigma`` (a positive float, read exactly). Canonne–Kamath–Steinke 2020, Algorithm 3,
        vectorised: with t = ⌊s⌋ + 1, propose Y from the discrete Laplace of scale t and accept
        with probability A(Y) = exp(−(|Y| − s²/t)²/(2s²)) ≤ 1; the accepted Y have exactly the
        law N_Z(0, s²), since e^{−|y|/t}·A(y) = e^{−y²/(2s²)}·e^{−s²/(2t²)}.

        The acceptance compares a uniform V with A(Y): V's first 53 bits v give
        V ∈ [v, v + 1)·2⁻⁵³; A is evaluated in float64 with the relative band ``_BAND`` (its
        error bound, see there): accept when (v + 1)·2⁻⁵³ ≤ A(1 − band), reject when
        v·2⁻⁵³ ≥ A(1 + band); only in between (probability ≈ 2⁻³⁹) :meth:`_accept_exact` draws
        more bits of V and compares with a certified enclosure of A at exact rational inputs."""
        s = _exact_positive(sigma, "sigma")
        t = math.floor(s) + 1
        wanted = _count(size)
        found: list[np.ndarray] = []
        missing = wanted
        s2 = s * s
        while missing > 0:
            batch = int(missing * 1.5) + 8
            y = np.asarray(self.discrete_laplace(float(t), batch))
            v = self.generator.integers(0, 2**_UNIFORM_BITS, size=batch, dtype=np.int64)
            d = np.abs(y).astype(np.float64) - s2 / t
            z = d * d / (2 * s2)
            accept_prob = np.exp(-z)
            band = accept_prob * (_BAND * (2 + z + np.abs(d) * (s2 / t + np.abs(d)) / s2))
            low_v, high_v = v * _SCALE_53, (v + 1) * _SCALE_53
            accepted = high_v <= accept_prob - band
            unsure = ~accepted & (low_v < accept_prob + band)
            for i in np.flatnonzero(unsure):
                accepted[i] = self._accept_exact(int(y[i]), s, t, int(v[i]))
            kept = y[accepted]
            found.append(kept[:missing])
            missing -= min(missing, kept.size)
        return _shape(np.concatenate(found), size)

    def _accept_exact(self, y: int, s: float, t: int, v: int) -> bool:
        """Decides V < exp(−(|y| − s²/t)²/(2s²)) exactly, V = [v, v + 1)·2⁻⁵³ refined lazily:
        the exponent is the exact rational (|y|t − s²)²/(2s²t²) (s a float, so rational), the
        exponential is enclosed with ``mpmath.iv`` at a precision above V's bits."""
        s_exact = Fraction(s)
        exponent = Fraction((abs(y) * t - s_exact**2) ** 2, 1) / (2 * s_exact**2 * t * t)
        bits = _UNIFORM_BITS
        while True:
            extra = bits
            v, bits = (v << extra) | self._bits(extra), bits + extra
            with interval_precision(bits + 64):
                threshold = iv.exp(-_iv_fraction(exponent))
                low_v, high_v = mpmath.ldexp(v, -bits), mpmath.ldexp(v + 1, -bits)
                if high_v <= threshold.a:
                    return True
                if low_v >= threshold.b:
                    return False

    def laplace(self, scale: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """numpy's floating-point Laplace sampler. NOT exactly the continuous distribution the
        privacy proofs analyse: its outputs are doubles, and Mironov (2012) shows the resulting
        support gaps can be distinguished (the Monte Carlo catalog's ``naive_float_laplace`` is
        flagged by ``dpledger audit catalog``). A snapping or discrete-Laplace sampler is the goal;
        until then continuous noise is a known, stated gap (see docs/ARCHITECTURE.md)."""
        if not scale > 0:
            raise ValueError(f"scale must be positive, got {scale}")
        return self.generator.laplace(0.0, scale, size)

    def gaussian(self, sigma: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """numpy's floating-point normal sampler: the same caveat as :meth:`laplace` (the goal is a
        discrete Gaussian, Canonne–Kamath–Steinke 2020, with its own exact accounting)."""
        if not sigma > 0:
            raise ValueError(f"sigma must be positive, got {sigma}")
        return self.generator.normal(0.0, sigma, size)


class Enumerated(Randomness):
    """Replays one branch path of an algorithm's discrete choices (used by :func:`enumerate_outputs`).

    Choice number d follows ``path[d]`` when the path is that long; beyond it, the branch
    probabilities are recorded and branch 0 (the first of non-zero probability) is taken.
    Continuous draws raise :class:`ContinuousDrawError`.
    """

    def __init__(self, path: Sequence[int], prec: int) -> None:
        self.path = list(path)
        self.prec = prec
        self.taken: list[int] = []
        self.factors: list[iv.mpf] = []
        self.branches: list[Sequence[int]] = []  # per choice: the branches of non-zero probability

    def _branch(self, probability: Callable[[int], iv.mpf], live: Sequence[int]) -> int:
        """Take the next branch; ``probability(b)`` is branch b's probability, ``live`` the
        branches of non-zero probability (a ``range`` for uniform choices, never listed)."""
        depth = len(self.taken)
        chosen = self.path[depth] if depth < len(self.path) else live[0]
        self.branches.append(live)
        self.taken.append(chosen)
        self.factors.append(probability(chosen))
        return chosen

    @property
    def probability(self) -> iv.mpf:
        """The probability of the path taken so far (product of its branch probabilities)."""
        product = _ONE
        for factor in self.factors:
            product = libmpi.mpi_mul(product, factor._mpi_, self.prec)
        return iv.make_mpf(product)

    def integer(self, n: int) -> int:
        n = int(n)
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        share = _uniform_probability(n, self.prec)
        return self._branch(lambda _: share, range(n))

    def choice_grouped(
        self, log_weights: Sequence[Number] | np.ndarray, counts: Sequence[int] | np.ndarray
    ) -> int:
        logs, sizes = _grouped_weights(log_weights, counts)
        probabilities = grouped_probabilities(tuple(logs), tuple(sizes), self.prec)
        return self._branch(probabilities.__getitem__, [i for i, c in enumerate(sizes) if c])

    def choice(self, weights: Sequence[Number] | np.ndarray) -> int:
        exact = [as_fraction(w, "weights") for w in weights]
        if not exact or any(w < 0 for w in exact) or not any(exact):
            raise ValueError("weights must be non-negative with a positive sum")
        total = sum(exact)
        with interval_precision(self.prec):
            probabilities = [_iv_fraction(w / total) for w in exact]
        return self._branch(probabilities.__getitem__, [i for i, w in enumerate(exact) if w])

    def laplace(self, scale: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        raise ContinuousDrawError(
            "laplace: continuous draws cannot be enumerated (exact mode supports discrete choices only)"
        )

    def gaussian(self, sigma: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        raise ContinuousDrawError(
            "gaussian: continuous draws cannot be enumerated (exact mode supports discrete choices only)"
        )


def _size(branches: Sequence[int]) -> int:
    """len() that also works for a ``range`` longer than sys.maxsize."""
    return branches.stop - branches.start if isinstance(branches, range) else len(branches)


def enumerate_outputs(
    algorithm: Callable[[Randomness], Hashable], *, limit: int = DEFAULT_LEAF_LIMIT, prec: int = 128
) -> dict[Hashable, iv.mpf]:
    """The exact output distribution of ``algorithm(rng)`` over all branches of its discrete choices.

    Depth-first over branch paths: each leaf (complete path) is run once; its probability is the
    product of its branch probabilities (certified ``mpmath.iv`` intervals at ``prec`` bits); equal
    outputs (which must be hashable) are aggregated. ``algorithm`` must draw all its randomness
    from ``rng`` (same path, same choices). Raises ``ValueError`` as soon as the leaves visited or
    pending exceed ``limit`` — before running them (a choice among 10^30 branches fails at once).

    Args:
        algorithm: ``algorithm(rng) -> output``, drawing all randomness from ``rng``.
        limit: Bound on the leaves visited or pending.
        prec: Interval precision in bits.

    Returns:
        Output → certified probability interval.

    Raises:
        ValueError: more than ``limit`` leaves, or a continuous draw (not enumerable).
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    distribution: dict[Hashable, iv.mpf] = {}
    pending: list[list[int]] = [[]]
    leaves = 0
    while pending:
        prefix = pending.pop()
        leaves += 1
        rng = Enumerated(prefix, prec)
        output = algorithm(rng)
        new_depths = range(len(prefix), len(rng.taken))
        if leaves + len(pending) + sum(_size(rng.branches[d]) - 1 for d in new_depths) > limit:
            raise ValueError(
                f"limit: the enumeration exceeds {limit} leaves; use smaller inputs or raise the limit"
            )
        for depth in new_depths:
            pending.extend(
                [*rng.taken[:depth], b] for b in reversed(rng.branches[depth]) if b != rng.taken[depth]
            )
        with interval_precision(prec):
            distribution[output] = distribution.get(output, iv.mpf(0)) + rng.probability
    return distribution


def enumerate_enclosures(
    algorithm: Callable[[Randomness], Hashable], *, limit: int = DEFAULT_LEAF_LIMIT, prec: int = 128
) -> dict[Hashable, Enclosure]:
    """The exact output distribution of ``algorithm(rng)`` (:func:`enumerate_outputs`), each
    probability as an :class:`~dpledger.accountant.numerics.certified.Enclosure`: the certified
    interval and its ends rounded outward to floats (``lower`` down, ``upper`` up), so the true
    probability lies between the two floats.

    Args:
        algorithm: ``algorithm(rng) -> output``, drawing all randomness from ``rng``.
        limit: Bound on the leaves visited or pending.
        prec: Interval precision in bits.

    Returns:
        Output → certified probability.

    Raises:
        ValueError: more than ``limit`` leaves, or a continuous draw (not enumerable).
    """
    distribution = enumerate_outputs(algorithm, limit=limit, prec=prec)
    return {output: Enclosure.of(p) for output, p in distribution.items()}
