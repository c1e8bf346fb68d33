"""Mechanisms with known privacy, correct and buggy, from the DP-testing literature.

Sources: Dwork & Roth 2014 (Laplace, Gaussian, Report Noisy Max, histograms); Ding, Wang,
Wang, Zhang, Kifer 2018 (StatDP: noisy-max variants and their neighbour patterns); Lyu, Su, Li
2017 ("Understanding the Sparse Vector Technique for Differential Privacy", PVLDB; Algorithms
1, 4, 5, 6); Warner 1965 (randomized response); Erlingsson, Pihur, Korolova 2014 (RAPPOR);
Mironov 2012 (floating-point Laplace); Balle & Wang 2018 (exact ε(δ) of the Gaussian mechanism).

Continuous outputs of the correct literature mechanisms are *snapped* to the grid 2⁻¹⁰ (rounding
is post-processing of the ideal mechanism; it removes the low-bit artefacts of Mironov's attack,
which would otherwise make every textbook float implementation fail its claim). The floating-point
entries test the separation of the verdicts: the naive float Laplace, scalar and 5-d (expected
``FLOAT LEAK``: right mathematics, leaking implementation), the naive float Laplace at the wrong
scale (expected ``VIOLATION``: the mathematics is wrong too), and the two proven remedies —
Mironov's snapping mechanism (:mod:`dpledger.learners.snapping`) and the exact discrete Laplace on
a grid (:mod:`dpledger.learners.noise`) — expected to pass. Every mechanism is a picklable
module-level object with the vectorised signature ``mechanism(data, n, rng)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from scipy import optimize, stats

from dpledger.learners.calibration.agnostic_noise import laplace_scale
from dpledger.learners.noise import laplace_noise
from dpledger.learners.randomness import Sampled
from dpledger.learners.snapping import snapping_laplace
from dpledger.verify.audit.montecarlo.audit import (
    FLOAT_LEAK,
    NO_VIOLATION,
    VIOLATION,
    MonteCarloAuditResult,
    Progress,
    audit,
)
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair, statdp_patterns

GRID = 2.0**-10
QUERIES = 5
SVT_QUERIES = 10
SVT_THRESHOLD = 1.0
SNAPPING_BOUND = 1000.0


def snap(values: np.ndarray) -> np.ndarray:
    """Round to the grid 2⁻¹⁰ (Mironov 2012's remedy, without the clamp)."""
    return np.round(values / GRID) * GRID


def standard_laplace(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Draws of the standard Laplace distribution (density e^(−|x|)/2), as ``S · E``.

    A Laplace variable is a fair random sign times an independent standard exponential variable
    (the density of ``S·E`` at x is ½·e^(−|x|)); ``E`` comes from numpy's ziggurat
    (``standard_exponential``, float64) and the signs from the bits of raw 64-bit draws of the same
    generator, 64 signs a draw. Same distribution as ``rng.laplace(0, 1, shape)`` (inversion of a
    uniform through ``log``), at about a third of its cost. Its floating-point artefacts differ
    from numpy's, so the float-naive catalog entries keep ``rng.laplace`` — the textbook
    implementation whose leak they demonstrate.
    """
    draws = rng.standard_exponential(shape)
    size = draws.size
    raw = rng.bit_generator.random_raw(-(-size // 64))
    negative = np.unpackbits(raw.view(np.uint8), count=size).view(bool).reshape(draws.shape)
    np.negative(draws, out=draws, where=negative)
    return draws


def snapped_laplace(answers: np.ndarray, scale: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``snap(answers + scale · L)`` for n runs of Laplace noise L per coordinate, computed in place.

    The grid scaling is folded into the arithmetic: ``(a + s·L) / 2⁻¹⁰ = a·2¹⁰ + (s·2¹⁰)·L`` exactly
    in floating point (scaling by a power of two commutes with rounding), so the result equals
    :func:`snap` of the sum bit for bit.
    """
    noisy = standard_laplace(rng, (n, answers.size))
    noisy *= scale / GRID
    noisy += answers / GRID
    np.rint(noisy, out=noisy)
    noisy *= GRID
    return noisy


def _answers(data: Any) -> np.ndarray:
    return np.atleast_1d(np.asarray(data, dtype=float))


@dataclass(frozen=True)
class Laplace:
    """``f(D) + Lap(scale)`` per coordinate, snapped (:func:`snapped_laplace`, noise by
    :func:`standard_laplace`); ``naive``: numpy's textbook float Laplace, not snapped (Mironov 2012)."""

    scale: float
    naive: bool = False

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        if self.naive:
            noisy = answers + rng.laplace(0.0, self.scale, (n, answers.size))
        else:
            noisy = snapped_laplace(answers, self.scale, n, rng)
        return noisy[:, 0] if answers.size == 1 else noisy


@dataclass(frozen=True)
class MarkedLaplace:
    """:class:`Laplace` (snapped) on a vector whose every coordinate is, independently of the
    input and with probability ``marked``, replaced by the marker ``MARKER`` — a numeric sparse
    vector's ⊥ among released numbers, without the sparse vector. The markers carry no
    information, so neighbours differing by Δ in every one of d coordinates are exactly dΔ/scale
    apart (the loss of the runs with no marker); a tight mechanism for the search's marker
    features (``benchmarks/bench_montecarlo_choice.py``)."""

    scale: float
    marked: float = 0.3

    MARKER: ClassVar[float] = -1000.0

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        noisy = snapped_laplace(answers, self.scale, n, rng)
        noisy[rng.random(noisy.shape) < self.marked] = self.MARKER
        return noisy


@dataclass(frozen=True)
class SnappingLaplace:
    """Mironov's snapping mechanism at ε, clamp ``bound`` (:func:`dpledger.learners.snapping.snapping_laplace`)."""

    epsilon: float
    bound: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(
            snapping_laplace(float(np.asarray(data)), epsilon=self.epsilon, bound=self.bound, rng=rng, size=n)
        )


@dataclass(frozen=True)
class DiscreteLaplaceOnGrid:
    """The value snapped to a power-of-two grid plus exact discrete Laplace noise
    (:func:`dpledger.learners.noise.laplace_noise`; each run one coordinate, sensitivity 1)."""

    scale: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(laplace_noise(np.full(n, float(np.asarray(data))), self.scale, 1, Sampled(rng))[0])


@dataclass(frozen=True)
class Gaussian:
    """``f(D) + N(0, sigma²)``, snapped."""

    sigma: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap(float(np.asarray(data)) + rng.normal(0.0, self.sigma, n))


@dataclass(frozen=True)
class NoisyMax:
    """Report Noisy Max: the index (or, buggy, the value) of the largest noisy answer.

    ``noise`` is ``"laplace"`` or ``"exponential"`` with the given scale (StatDP's
    NoisyMax1/2 return the index; NoisyMax3 returns the value, which is not ε-DP).
    """

    scale: float
    noise: str = "laplace"
    return_value: bool = False

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        if self.noise == "laplace":
            noise = rng.laplace(0.0, self.scale, (n, answers.size))
        else:
            noise = rng.exponential(self.scale, (n, answers.size))
        noisy = answers + noise
        return snap(noisy.max(axis=1)) if self.return_value else np.argmax(noisy, axis=1)


@dataclass(frozen=True)
class SparseVector:
    """Sparse vector technique with threshold noise Lap(rho_scale), query noise Lap(nu_scale).

    Output per query: 1 (⊤, above), 0 (⊥), −1 (not answered: stopped after ``cutoff`` ⊤'s;
    ``cutoff=None`` never stops). The threshold noise is drawn once (Lyu–Su–Li 2017, Alg. 1, 4–6).
    """

    rho_scale: float
    nu_scale: float
    cutoff: int | None

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = _answers(data)
        rho = rng.laplace(0.0, self.rho_scale, (n, 1))
        nu = rng.laplace(0.0, self.nu_scale, (n, answers.size)) if self.nu_scale > 0 else 0.0
        above = (answers + nu >= SVT_THRESHOLD + rho).astype(np.int8)
        if self.cutoff is None:
            return above
        answered = np.cumsum(above, axis=1) - above < self.cutoff
        return np.where(answered, above, np.int8(-1)).astype(np.int8)


@dataclass(frozen=True)
class RandomizedResponse:
    """Binary randomized response (Warner 1965): the true bit with probability e^ε/(1+e^ε)."""

    epsilon: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        keep = rng.random(n) < math.exp(self.epsilon) / (1.0 + math.exp(self.epsilon))
        bit = int(np.asarray(data))
        return np.where(keep, bit, 1 - bit).astype(np.int8)


@dataclass(frozen=True)
class RandomizedResponseVector:
    """Randomized response on every bit of a bit vector, each at ``epsilon`` (Warner 1965):
    neighbours differing in k bits are exactly kε apart (parallel composition of k bits)."""

    epsilon: float

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        bits = np.asarray(data, dtype=np.int8).reshape(-1)
        flip = rng.random((n, bits.size)) >= math.exp(self.epsilon) / (1.0 + math.exp(self.epsilon))
        return np.bitwise_xor(bits, flip.astype(np.int8))


@dataclass(frozen=True)
class Rappor:
    """One-time RAPPOR with a one-hot encoding of ``domain`` values (Erlingsson et al. 2014).

    Each bit of the one-hot vector is replaced by a fair coin with probability f, i.e. flipped
    with probability f/2; neighbouring values differ in two bits, so ε = 2 ln((1 − f/2)/(f/2)).
    """

    f: float
    domain: int = 4

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        onehot = np.zeros(self.domain, dtype=np.int8)
        onehot[int(np.asarray(data))] = 1
        flip = rng.random((n, self.domain)) < self.f / 2
        return np.bitwise_xor(onehot, flip.astype(np.int8))


LEAK_PLACES = ("tail", "bulk", "float", "discrete", "vector", "input", "shifted")
"""Where :class:`OneSidedLeak` puts its leak."""


@dataclass(frozen=True)
class OneSidedLeak:
    """An ε = 1 mechanism on the sum x that, with probability ``p``, emits an output the other input
    of the pair (x = 0 against x = 1) cannot produce, or only with a vanishing probability — true
    ε = ∞ (or past 20), and δ(ε) = p at every ε below (the rare one-sided leaks of
    :mod:`~dpledger.verify.audit.montecarlo.one_sided`). ``where``, the leak when x = 1: ``tail``
    (1000 from the snapped Laplace of scale 1), ``bulk`` (0.5 + 2⁻¹², off the snapped Laplace's
    grid, inside its bulk), ``float`` (exactly 0.5 from numpy's float Laplace: an atom among
    distinct values), ``discrete`` (1 among the even integers 2·(x + two-sided geometric of ratio
    e⁻¹)), ``vector`` (a fixed row of the 4-d snapped Laplace of scale 4 per coordinate on
    (x, x, x, x)) or ``shifted`` (a draw of the snapped Laplace around 30 x instead of x: 30, deep
    in the other input's tail, where it has probability e⁻³⁰); or ``input``: numpy's float Laplace
    that releases its input x exactly, whatever x. ``p = 0``: the tight mechanism without the leak."""

    where: str
    p: float

    def __post_init__(self) -> None:
        if self.where not in LEAK_PLACES or not 0 <= self.p < 1:
            raise ValueError(
                f"where must be one of {LEAK_PLACES} and p in [0, 1), got {self.where!r}, {self.p}"
            )

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        x = float(np.sum(np.asarray(data, dtype=float)))
        leak: Any
        out: np.ndarray
        if self.where == "discrete":
            ratio = 1 - math.exp(-1.0)
            out = 2 * (round(x) + rng.geometric(ratio, n) - rng.geometric(ratio, n))
            leak = 1
        elif self.where == "vector":
            out = snapped_laplace(np.full(4, x), 4.0, n, rng)
            leak = np.asarray([0.25, -0.5, 0.125, 1.0])
        elif self.where in ("float", "input"):
            out = x + rng.laplace(0.0, 1.0, n)
            leak = 0.5 if self.where == "float" else x
        else:
            out = snapped_laplace(np.asarray([x]), 1.0, n, rng)[:, 0]
            leak = 1000.0 if self.where == "tail" else 0.5 + 2.0**-12
        if (x == 1.0 or self.where == "input") and self.p > 0:
            leaking = rng.random(n) < self.p
            if self.where == "shifted":
                leak = snapped_laplace(np.asarray([30 * x]), 1.0, int(leaking.sum()), rng)[:, 0]
            out[leaking] = leak
        return out


def gaussian_classic_sigma(epsilon: float, delta: float) -> float:
    """σ = √(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1), for sensitivity 1."""
    return math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def gaussian_exact_epsilon(sigma: float, delta: float) -> float:
    """The exact ε at δ of the Gaussian mechanism with sensitivity 1 (Balle & Wang 2018, Thm 8).

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = 1/σ; the root of δ(ε) = δ (0 if δ(0) ≤ δ).
    """
    mu = 1.0 / sigma

    def excess(epsilon: float) -> float:
        return (
            stats.norm.cdf(mu / 2 - epsilon / mu)
            - math.exp(epsilon) * stats.norm.cdf(-mu / 2 - epsilon / mu)
            - delta
        )

    if excess(0.0) <= 0:
        return 0.0
    high = 1.0
    while excess(high) > 0:
        high *= 2
    return float(optimize.brentq(excess, 0.0, high, xtol=1e-12))


def rappor_f(epsilon: float) -> float:
    """The f for which one-hot RAPPOR is exactly ε-DP: 2 ln((1 − f/2)/(f/2)) = ε."""
    return 2.0 / (1.0 + math.exp(epsilon / 2))


@dataclass(frozen=True)
class CatalogEntry:
    """A mechanism, the neighbour pairs to audit it on, the claim and the truth.

    ``true_epsilon`` is the exact privacy loss on the audited pairs when known (``math.inf``
    for mechanisms that are not ε′-DP for any ε′); ``None`` when only ``truth`` describes it.
    """

    name: str
    mechanism: Callable[[Any, int, np.random.Generator], np.ndarray]
    pairs: tuple[NeighbourPair, ...]
    claimed_epsilon: float
    correct: bool
    truth: str
    true_epsilon: float | None
    delta: float = 0.0
    float_only: bool = False

    @property
    def expected_verdict(self) -> str:
        """``NO VIOLATION FOUND`` for correct entries; ``FLOAT LEAK`` for those whose mathematics is
        right but whose float implementation leaks (``float_only``); else ``VIOLATION``."""
        return NO_VIOLATION if self.correct else FLOAT_LEAK if self.float_only else VIOLATION


def _pair(a: Any, b: Any, label: str) -> tuple[NeighbourPair, ...]:
    return (NeighbourPair(np.asarray(a), np.asarray(b), label),)


def catalog() -> list[CatalogEntry]:
    """The catalog (ε = 1 claims; δ = 1e-5 for the Gaussian entries)."""
    eps, delta = 1.0, 1e-5
    patterns = tuple(statdp_patterns(QUERIES))
    svt_patterns = tuple(statdp_patterns(SVT_QUERIES))
    classic = gaussian_classic_sigma(eps, delta)
    vector_pair = _pair([0.0] * QUERIES, [1.0] + [0.0] * (QUERIES - 1), "coordinate 0: 0 vs 1")
    histogram = _pair([5, 5, 5, 5], [6, 5, 5, 5], "add one record (bin 0)")
    return [
        CatalogEntry(
            "laplace", Laplace(1 / eps), _pair(0, 1, "0 vs 1"), eps, True, "exactly ε (Dwork–Roth 2014)", eps
        ),
        CatalogEntry(
            "laplace_wrong_scale",
            Laplace(0.5 / eps),
            _pair(0, 1, "0 vs 1"),
            eps,
            False,
            "scale 1/(2ε): exactly 2ε",
            2 * eps,
        ),
        CatalogEntry(
            "gaussian",
            Gaussian(classic),
            _pair(0, 1, "0 vs 1"),
            eps,
            True,
            "classic σ = √(2ln(1.25/δ))/ε; exact ε(δ) by Balle–Wang 2018",
            gaussian_exact_epsilon(classic, delta),
            delta,
        ),
        CatalogEntry(
            "gaussian_wrong_scale",
            Gaussian(1.0),
            _pair(0, 1, "0 vs 1"),
            eps,
            False,
            "σ = 1 instead of 4.84; exact ε(δ) by Balle–Wang 2018",
            gaussian_exact_epsilon(1.0, delta),
            delta,
        ),
        CatalogEntry(
            "noisy_max_laplace",
            NoisyMax(2 / eps),
            patterns,
            eps,
            True,
            "≤ ε (Dwork–Roth 2014 Claim 3.9; StatDP NoisyMax1)",
            None,
        ),
        CatalogEntry(
            "noisy_max_exponential",
            NoisyMax(2 / eps, "exponential"),
            patterns,
            eps,
            True,
            "≤ ε (StatDP NoisyMax2)",
            None,
        ),
        CatalogEntry(
            "noisy_max_value",
            NoisyMax(2 / eps, return_value=True),
            patterns,
            eps,
            False,
            f"returns the noisy maximum (StatDP NoisyMax3): exactly {QUERIES}ε/2 on 'all above/below'",
            QUERIES * eps / 2,
        ),
        CatalogEntry(
            "svt_1",
            SparseVector(2 / eps, 4 / eps, 1),
            svt_patterns,
            eps,
            True,
            "≤ ε (Lyu–Su–Li 2017, Alg. 1, c = 1)",
            None,
        ),
        CatalogEntry(
            "svt_4",
            SparseVector(4 / eps, 4 / (3 * eps), 1),
            svt_patterns,
            eps,
            False,
            "Lee–Clifton 2014 (Lyu–Su–Li Alg. 4, c = 1): not ε-DP, ≤ 7ε/4",
            None,
        ),
        CatalogEntry(
            "svt_5",
            SparseVector(2 / eps, 0.0, None),
            svt_patterns,
            eps,
            False,
            "Stoddard et al. 2014 (Lyu–Su–Li Alg. 5): no query noise, ∞",
            math.inf,
        ),
        CatalogEntry(
            "svt_6",
            SparseVector(2 / eps, 2 / eps, None),
            svt_patterns,
            eps,
            False,
            "Chen et al. 2015 (Lyu–Su–Li Alg. 6): no cutoff, not ε-DP, unbounded in the number of queries",
            None,
        ),
        CatalogEntry(
            "histogram",
            Laplace(1 / eps),
            histogram,
            eps,
            True,
            "Lap(1/ε) per bin, add/remove: exactly ε",
            eps,
        ),
        CatalogEntry(
            "histogram_substitution",
            Laplace(1 / eps),
            _pair([5, 5, 5, 5], [6, 4, 5, 5], "substitute one record (bin 1→0)"),
            eps,
            False,
            "sensitivity 2 under substitution, noise for 1: exactly 2ε",
            2 * eps,
        ),
        CatalogEntry(
            "randomized_response",
            RandomizedResponse(eps),
            _pair(0, 1, "bit 0 vs 1"),
            eps,
            True,
            "exactly ε (Warner 1965)",
            eps,
        ),
        CatalogEntry(
            "rappor",
            Rappor(rappor_f(eps)),
            _pair(0, 1, "value 0 vs 1"),
            eps,
            True,
            "exactly ε (Erlingsson et al. 2014)",
            eps,
        ),
        CatalogEntry(
            "rappor_one_bit_accounting",
            Rappor(rappor_f(2 * eps)),
            _pair(0, 1, "value 0 vs 1"),
            eps,
            False,
            "accounts one flipped bit where two change: exactly 2ε",
            2 * eps,
        ),
        CatalogEntry(
            "naive_float_laplace",
            Laplace(1 / eps, naive=True),
            _pair(0, 1, "0 vs 1"),
            eps,
            False,
            "textbook float Laplace: ε over the reals, but the float supports differ: ∞ (Mironov 2012)",
            math.inf,
            float_only=True,
        ),
        CatalogEntry(
            "naive_float_laplace_5d",
            Laplace(1 / eps, naive=True),
            vector_pair,
            eps,
            False,
            f"textbook float Laplace on {QUERIES} coordinates, one differing: ε over the reals, ∞ in floats",
            math.inf,
            float_only=True,
        ),
        CatalogEntry(
            "naive_float_laplace_wrong_scale",
            Laplace(0.5 / eps, naive=True),
            _pair(0, 1, "0 vs 1"),
            eps,
            False,
            "float Laplace at scale 1/(2ε): 2ε over the reals (and ∞ in floats)",
            math.inf,
        ),
        CatalogEntry(
            "snapping_laplace",
            SnappingLaplace(eps, SNAPPING_BOUND),
            _pair(0, 1, "0 vs 1"),
            eps,
            True,
            f"Mironov 2012 Thm 1, B = {SNAPPING_BOUND:g}: ≤ ε in floating point",
            None,
        ),
        CatalogEntry(
            "discrete_laplace",
            DiscreteLaplaceOnGrid(laplace_scale(Fraction(1), Fraction(eps))),
            _pair(0, 1, "0 vs 1"),
            eps,
            True,
            "grid + exact discrete Laplace (Canonne–Kamath–Steinke 2020), grid rounding accounted: ≤ ε",
            None,
        ),
    ]


@dataclass(frozen=True)
class CatalogRow:
    """One catalog audit: the entry and the audit's result."""

    entry: CatalogEntry
    result: MonteCarloAuditResult

    @property
    def ratio(self) -> float | None:
        """Certified lower bound / true ε, where the true ε is known and finite."""
        truth = self.entry.true_epsilon
        return (
            None
            if truth is None or not math.isfinite(truth) or truth == 0
            else self.result.epsilon_lower / truth
        )

    @property
    def as_expected(self) -> bool:
        return self.result.verdict == self.entry.expected_verdict

    def to_json(self) -> dict[str, Any]:
        truth = self.entry.true_epsilon
        return {
            "name": self.entry.name,
            "correct": self.entry.correct,
            "true_epsilon": None if truth is None else (truth if math.isfinite(truth) else "inf"),
            "truth": self.entry.truth,
            "claimed_epsilon": self.entry.claimed_epsilon,
            "delta": self.entry.delta,
            "epsilon_lower": self.result.epsilon_lower,
            "real_epsilon_lower": self.result.real_epsilon_lower,
            "float_epsilon_lower": self.result.float_epsilon_lower,
            "violation": self.result.violation,
            "verdict": self.result.verdict,
            "expected_verdict": self.entry.expected_verdict,
            "as_expected": self.as_expected,
            "ratio_to_true_epsilon": self.ratio,
            "pairs": len(self.entry.pairs),
            "samples": self.result.samples,
            "seconds": round(self.result.seconds, 3),
            "witness": self.result.witness,
        }


def run_catalog(
    executor: Executor,
    samples: int = 200_000,
    confidence: float = 0.95,
    seed: int = 0,
    names: Sequence[str] | None = None,
    on_progress: Callable[[str], Progress | None] | None = None,
    stages: int = 4,
) -> list[CatalogRow]:
    """Audit every (or the named) catalog entries; ``on_progress(name)`` may give a progress callback.

    ``stages=1`` turns sequential stopping off, so that the bound measures power rather than
    stopping just above the claim.
    """
    entries = catalog()
    if names:
        known = {entry.name for entry in entries}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(
                f"unknown catalog mechanism(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        entries = [entry for entry in entries if entry.name in names]
    return [
        CatalogRow(
            entry,
            audit(
                entry.mechanism,  # type: ignore[arg-type]  # the catalogue's callables have Mechanism's signature
                entry.pairs,
                entry.claimed_epsilon,
                claimed_delta=entry.delta,
                samples=samples,
                confidence=confidence,
                seed=seed,
                executor=executor,
                stages=stages,
                on_progress=on_progress(entry.name) if on_progress else None,
            ),
        )
        for entry in entries
    ]
