"""The mechanisms DP-Sniper adds to StatDP's suite, written here from their papers.

DP-Sniper (Bichsel, Steffen, Bogunovic, Vechev 2021, IEEE S&P, Section VI and its evaluation
configuration) audits, besides StatDP's noisy-max, histogram and sparse-vector mechanisms (the
catalog's :class:`~dpledger.verify.audit.montecarlo.catalogs.known_epsilon.NoisyMax`, ``Laplace`` and
``SparseVector``), these mechanisms, each at ε = 0.1:

* :class:`TruncatedGeometric` — GeoSample (Balcer & Vadhan 2018, "Differential Privacy on Finite
  Computers", Alg. 4.8): a count in {0, …, n} released by inverting an integer CDF with a uniform
  integer, exactly — no floating point;
* :class:`Rappor` — RAPPOR's Bloom filter, permanent and instantaneous randomized response
  (Erlingsson, Pihur, Korolova 2014, CCS, steps 1–3); ``instantaneous=False`` is one-time RAPPOR
  (steps 1–2); the filter's bits come from :func:`murmur3_32`, the hash DP-Sniper's RAPPOR uses;
* :class:`AboveThresholdRefresh` — the sparse vector technique of Lyu, Su, Li 2017 (PVLDB),
  Alg. 2: the threshold noise is drawn again after every positive answer;
* :class:`NumericSparseVector` — sparse vector variants releasing a number for a positive
  answer: Lyu–Su–Li Alg. 3 (Roth's lecture notes: the noisy query answer used in the comparison
  itself, not ε′-DP for any ε′ over unbounded query streams) and NumericalSVT (Wang, Ding, Wang,
  Kifer, Zhang 2019, "Proving differential privacy with shadow execution", PLDI: a fresh Laplace
  release, ε-DP);
* :class:`PrefixSum` — the prefix sums of Laplace-noised answers (Wang et al. 2019);
* :class:`Parallel` — mechanisms run on the same input and their outputs concatenated
  (DP-Sniper's LaplaceParallel and SVT34Parallel);
* :class:`AtThreshold` — a catalog sparse vector at another threshold than its fixed 1.

Continuous releases are snapped to the grid 2⁻¹⁰ like the catalog's (post-processing; see
:mod:`dpledger.verify.audit.montecarlo.catalogs.known_epsilon`). Every mechanism is a picklable module-level
object with the vectorised signature ``mechanism(data, n, rng)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import SVT_THRESHOLD, snap

BELOW = -1000.0
"""A numeric sparse vector's output for a query answered ⊥ (DP-Sniper's code for FALSE)."""
STOPPED = -2000.0
"""A numeric sparse vector's output for a query not answered after the cutoff (DP-Sniper's ABORTED)."""


def _answers(data: Any) -> np.ndarray:
    return np.atleast_1d(np.asarray(data, dtype=float))


def _integer(data: Any, what: str) -> int:
    """The single integer input of a counting or value mechanism; ValueError otherwise."""
    values = np.asarray(data).ravel()
    if values.size != 1 or float(values[0]) != int(values[0]):
        raise ValueError(f"{what} takes one integer input, got {np.asarray(data).tolist()}")
    return int(values[0])


@dataclass(frozen=True)
class TruncatedGeometric:
    """GeoSample (Balcer & Vadhan 2018, Alg. 4.8) for a count c ∈ {0, …, n}.

    With d = (2^{k+1} + 1)(2^k + 1)^{n−1}, the integer CDF is
    F(z) = 2^{k(c−z)} (2^k + 1)^{n−(c−z)} for z < c, F(z) = d − 2^{k(z−c+1)} (2^k + 1)^{n−1−(z−c)}
    for c ≤ z < n, F(n) = d; the output is the least z with F(z) ≥ U, U uniform on {1, …, d}.
    This is c plus two-sided geometric noise of ratio α = 2^k/(2^k + 1), clamped to [0, n], so the
    mechanism is exactly ln(1 + 2^{−k})-DP (Thm 4.7). DP-Sniper instantiates ε = 0.1, n = 5 with
    k = ⌈ln(2/ε)⌉ = 3 (natural logarithm), i.e. ln(9/8) = 0.1178.
    """

    k: int = 3
    n: int = 5

    @property
    def epsilon(self) -> float:
        return math.log1p(2.0**-self.k)

    def cdf(self, count: int) -> list[int]:
        """F(0), …, F(n) as exact integers, and d = F(n)."""
        two_k, base = 2**self.k, 2**self.k + 1
        d = (2 * two_k + 1) * base ** (self.n - 1)
        below = [two_k ** (count - z) * base ** (self.n - (count - z)) for z in range(count)]
        above = [
            d - two_k ** (z - count + 1) * base ** (self.n - 1 - (z - count)) for z in range(count, self.n)
        ]
        return below + above + [d]

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        count = _integer(data, "GeoSample")
        if not 0 <= count <= self.n:
            raise ValueError(f"GeoSample counts lie in [0, {self.n}], got {count}")
        cdf = np.array(self.cdf(count), dtype=np.int64)
        uniform = rng.integers(1, cdf[-1], size=n, endpoint=True, dtype=np.int64)
        return np.searchsorted(cdf, uniform, side="left").astype(np.int8)


def murmur3_32(data: bytes, seed: int) -> int:
    """MurmurHash3_x86_32 (Appleby 2011) of ``data``, as a signed 32-bit integer."""
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF

    def scramble(k: int) -> int:
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        return (k * c2) & mask

    h = seed & mask
    whole = len(data) - len(data) % 4
    for start in range(0, whole, 4):
        h ^= scramble(int.from_bytes(data[start : start + 4], "little"))
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    if len(data) % 4:
        h ^= scramble(int.from_bytes(data[whole:], "little"))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


@dataclass(frozen=True)
class Rappor:
    """RAPPOR (Erlingsson, Pihur, Korolova 2014) on an integer value, one report.

    1. Bloom filter B of ``size`` bits: bit ``murmur3_32(str(v), i) mod size`` set for i < ``hashes``.
    2. Permanent randomized response: each bit set to 1 with probability f/2, to 0 with f/2, kept
       with 1 − f.
    3. Instantaneous randomized response (``instantaneous``): report 1 with probability q where the
       permanent bit is 1, p where it is 0.

    A bit of B reaches the report as 1 with probability q* = f(p+q)/2 + (1−f)q if set, p* =
    f(p+q)/2 + (1−f)p if not: values whose filters differ in m bits are m·ln(q*(1−p*)/(p*(1−q*)))/2
    apart exactly (:meth:`pair_epsilon`); the paper's guarantee is ε₁ = h·ln(q*(1−p*)/(p*(1−q*)))
    for one report, ε∞ = 2h·ln((1 − f/2)/(f/2)) for the permanent response alone (one-time
    RAPPOR; :meth:`claimed_epsilon`). DP-Sniper's parameters: h = 4, 20 bits, f = 0.75,
    p = 0.45, q = 0.55; one-time RAPPOR f = 0.95.
    """

    f: float
    p: float = 0.45
    q: float = 0.55
    hashes: int = 4
    size: int = 20
    instantaneous: bool = True

    def bits(self, value: int) -> frozenset[int]:
        """The set bits of the Bloom filter of ``value``."""
        return frozenset(murmur3_32(str(value).encode(), seed) % self.size for seed in range(self.hashes))

    def reported_one(self) -> tuple[float, float]:
        """(q*, p*): the probability a set and an unset filter bit are reported as 1."""
        if not self.instantaneous:
            return 1 - self.f / 2, self.f / 2
        mixed = self.f * (self.p + self.q) / 2
        return mixed + (1 - self.f) * self.q, mixed + (1 - self.f) * self.p

    def bit_epsilon(self) -> float:
        """The privacy loss of one filter bit that differs: ln(q*/p*) = ln((1−p*)/(1−q*)) here (p + q = 1)."""
        high, low = self.reported_one()
        return max(math.log(high / low), math.log((1 - low) / (1 - high)))

    def pair_epsilon(self, a: int, b: int) -> float:
        """The exact ε between values ``a`` and ``b``: one bit loss per differing filter bit."""
        return len(self.bits(a) ^ self.bits(b)) * self.bit_epsilon()

    def claimed_epsilon(self) -> float:
        """ε₁ (one report) or, for one-time RAPPOR, ε∞ — 2h bit losses, as if no two hashes collided."""
        return 2 * self.hashes * self.bit_epsilon()

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        bloom = np.zeros(self.size, dtype=bool)
        bloom[list(self.bits(_integer(data, "RAPPOR")))] = True
        draw = rng.random((n, self.size))
        permanent = np.where(draw < self.f / 2, True, np.where(draw < self.f, False, bloom))
        if not self.instantaneous:
            return permanent.astype(np.int8)
        report = rng.random((n, self.size)) < np.where(permanent, self.q, self.p)
        return report.astype(np.int8)


@dataclass(frozen=True)
class AboveThresholdRefresh:
    """Lyu–Su–Li 2017, Alg. 2: ⊤ when q_i + Lap(nu_scale) ≥ T + ρ, ρ ~ Lap(rho_scale) drawn
    again after every ⊤, stopping after ``cutoff`` ⊤'s (outputs 1, 0, −1 as the catalog's
    ``SparseVector``). ε-DP with ρ ~ Lap(c/ε₁), ν ~ Lap(2c/ε₂), ε = ε₁ + ε₂."""

    rho_scale: float
    nu_scale: float
    cutoff: int
    threshold: float = SVT_THRESHOLD

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        noisy = answers + rng.laplace(0.0, self.nu_scale, (n, answers.size))
        rho = rng.laplace(0.0, self.rho_scale, n)
        positives = np.zeros(n, dtype=np.int64)
        out = np.empty((n, answers.size), dtype=np.int8)
        for i in range(answers.size):
            above = noisy[:, i] >= self.threshold + rho
            out[:, i] = np.where(positives < self.cutoff, above, -1)
            positives += above
            rho = np.where(above, rng.laplace(0.0, self.rho_scale, n), rho)
        return out


@dataclass(frozen=True)
class NumericSparseVector:
    """Sparse vector releasing a number for each ⊤ (q_i + ν_i ≥ T + ρ, ρ ~ Lap(rho_scale) drawn
    once, ν_i ~ Lap(nu_scale)), stopping after ``cutoff`` ⊤'s; ⊥ is :data:`BELOW`, a query after
    the cutoff :data:`STOPPED`.

    ``release_scale=None`` releases q_i + ν_i itself — Lyu–Su–Li Alg. 3, whose comparison noise
    then leaks (not ε′-DP for any ε′ over unbounded query streams). A scale releases
    q_i + Lap(release_scale) afresh — NumericalSVT (Wang et al. 2019): ρ ~ Lap(3/ε),
    ν ~ Lap(6c/ε), release Lap(3c/ε), ε-DP. Released numbers are snapped to the grid 2⁻¹⁰.
    """

    rho_scale: float
    nu_scale: float
    cutoff: int
    release_scale: float | None = None
    threshold: float = SVT_THRESHOLD

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        rho = rng.laplace(0.0, self.rho_scale, (n, 1))
        noisy = answers + rng.laplace(0.0, self.nu_scale, (n, answers.size))
        above = noisy >= self.threshold + rho
        released = (
            noisy
            if self.release_scale is None
            else answers + rng.laplace(0.0, self.release_scale, noisy.shape)
        )
        answered = np.cumsum(above, axis=1) - above < self.cutoff
        return np.where(answered, np.where(above, snap(released), BELOW), STOPPED)


@dataclass(frozen=True)
class PrefixSum:
    """The prefix sums of q_i + Lap(scale) (Wang et al. 2019), snapped: post-processing of the
    Laplace mechanism, so inputs differing by at most 1 in m answers are m/scale apart."""

    scale: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        return snap(np.cumsum(answers + rng.laplace(0.0, self.scale, (n, answers.size)), axis=1))


@dataclass(frozen=True)
class Parallel:
    """The mechanisms run independently on the same input, outputs side by side (DP-Sniper's
    ParallelMechanism): by basic composition the sum of their ε."""

    mechanisms: Sequence[Any]

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        parts = [
            np.asarray(mechanism(data, n, rng), dtype=float).reshape(n, -1) for mechanism in self.mechanisms
        ]
        return np.concatenate(parts, axis=1)


@dataclass(frozen=True)
class AtThreshold:
    """A catalog sparse vector (threshold fixed at 1) at threshold T: q + ν ≥ T + ρ ⟺
    (q + 1 − T) + ν ≥ 1 + ρ, so the queries are shifted by 1 − T — the same mechanism exactly."""

    mechanism: Any
    threshold: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.mechanism(_answers(data) + (SVT_THRESHOLD - self.threshold), n, rng)
