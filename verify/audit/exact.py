"""Exact auditor: the exact privacy profile of a small discrete mechanism.

A mechanism written once against :class:`dpledger.learners.randomness.Randomness` is run under
:func:`dpledger.learners.randomness.enumerate_outputs`, which returns its exact output distribution as
certified probability intervals (``mpmath.iv``). On a neighbour pair (D, D′):

* :func:`hockey_stick` — δ(ε) = Σ_o max(P(o) − e^ε P′(o), 0), both directions, as a certified interval;
* :func:`pure_epsilon` — max_o |log P(o)/P′(o)| as a certified interval (∞ when supports differ);
* :func:`worst_case` — the worst pure ε over *all* neighbour pairs of a list of datasets, with the
  witness pair, and the rigorous verdict against a claimed bound.

Certified arithmetic over many pairs: each distribution is enclosed once at 128 bits and rounded
outward to float intervals; a pair's ratios and δ are then bounded with IEEE operations whose
results are pushed one ulp outward (``math.nextafter``), which is rigorous because every IEEE
operation is correctly rounded. The final ε interval is ``iv.log`` of the float ratio bounds, and
``holds`` compares the ratio bounds with a certified enclosure of e^bound: ``True`` only when
every pair's upper ratio is below the bound's lower end, ``False`` only when some pair's lower
ratio exceeds its upper end, ``None`` (undecided) otherwise — never from rounding.

It knows no paper: the LabelBoost and CarryForwardLearner audits that instantiate it live in
:mod:`dpledger.verify.paper`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np
import sympy
from mpmath import iv

from dpledger.accountant.deprecation import renamed_attributes, renamed_keyword, warn_renamed
from dpledger.accountant.numerics.certified import (
    Enclosure,
    enclose,
    exact,
    interval_precision,
    lower_float,
    upper_float,
)
from dpledger.learners.randomness import Randomness, enumerate_outputs
from dpledger.verify.audit.montecarlo.executors import InProcessExecutor
from dpledger.verify.audit.results import AuditResultBase

Distribution = dict[Hashable, iv.mpf]
PublicDistribution = Mapping[Hashable, Enclosure | iv.mpf]
FloatDistribution = dict[Hashable, tuple[float, float]]
Progress = Callable[[int, str], Callable[[int], None]]

DEFAULT_LEAF_LIMIT = 20_000_000
"""Most branch leaves an audit may enumerate in total (checked before any work)."""

_INF = math.inf


def _up(x: float) -> float:
    return math.nextafter(x, _INF)


def _down(x: float) -> float:
    return math.nextafter(x, -_INF)


# -- one pair, full precision --------------------------------------------------------------


def hockey_stick(P: PublicDistribution, Q: PublicDistribution, epsilon: Any, prec: int = 128) -> iv.mpf:
    """δ(ε) = max(Σ_o max(P(o) − e^ε Q(o), 0), Σ_o max(Q(o) − e^ε P(o), 0)) as a certified interval.
    ``epsilon`` is exact (int, Fraction, decimal string, sympy expression).

    Args:
        P: A distribution, output → certified probability.
        Q: The neighbouring distribution.
        epsilon: The ε at which δ is computed (exact).
        prec: Interval precision in bits.

    Returns:
        The certified interval enclosing δ(ε).

    Raises:
        ValueError: ``P`` or ``Q`` is not a distribution (see :func:`checked_distribution`).
    """
    P, Q = checked_distribution(P, "P"), checked_distribution(Q, "Q")
    with interval_precision(prec):
        factor = enclose(sympy.exp(exact(epsilon, "epsilon")), prec)
        zero = iv.mpf(0)

        def one_way(A: Distribution, B: Distribution) -> iv.mpf:
            total = iv.mpf(0)
            for output, p in A.items():
                gap = p - factor * B.get(output, zero)
                total += iv.mpf([max(gap.a, 0), max(gap.b, 0)])
            return total

        forward, backward = one_way(P, Q), one_way(Q, P)
        return iv.mpf([max(forward.a, backward.a), max(forward.b, backward.b)])


def pure_epsilon(P: PublicDistribution, Q: PublicDistribution, prec: int = 128) -> iv.mpf:
    """max_o |log(P(o)/Q(o))| as a certified interval; [∞, ∞] when the supports differ.

    Args:
        P: A distribution, output → certified probability.
        Q: The neighbouring distribution.
        prec: Interval precision in bits.

    Returns:
        The certified interval enclosing the pure ε of the pair.

    Raises:
        ValueError: ``P`` or ``Q`` is not a distribution (see :func:`checked_distribution`).
    """
    P, Q = checked_distribution(P, "P"), checked_distribution(Q, "Q")
    support = {output for output, mass in P.items() if mass.b > 0}
    if support != {output for output, mass in Q.items() if mass.b > 0}:
        return iv.mpf([math.inf, math.inf])
    with interval_precision(prec):
        worst = iv.mpf(0)
        for output in support:
            ratio = iv.log(P[output] / Q[output])
            for side in (ratio, -ratio):
                worst = iv.mpf([max(worst.a, side.a), max(worst.b, side.b)])
        return worst


def checked_distribution(distribution: Any, name: str) -> Distribution:
    """``distribution`` as output → certified probability, checked to be one: a non-empty dict
    whose masses (intervals or real numbers) are ≥ 0 and whose total is 1, within
    :data:`MASS_TOLERANCE` for masses given as rounded floats.

    Args:
        distribution: The candidate, as :func:`~dpledger.enumerate_outputs` returns it.
        name: The argument's name, for the message.

    Returns:
        The same masses as intervals.

    Raises:
        ValueError: not a dict, an empty one, a mass that is not a number or is negative or
            non-finite, or masses whose total excludes 1.
    """
    if not isinstance(distribution, dict) or not distribution:
        raise ValueError(f"{name} must be a non-empty dict output → probability, got {distribution!r:.80}")
    masses: Distribution = {}
    for output, mass in distribution.items():
        if isinstance(mass, Fraction):
            mass = iv.mpf(mass.numerator) / mass.denominator
        elif isinstance(mass, Enclosure):
            mass = mass.interval
        if isinstance(mass, bool) or not isinstance(mass, (int, float, type(iv.mpf(0)))):
            raise ValueError(f"{name}[{output!r:.40}] must be a probability, got {type(mass).__name__}")
        interval = iv.mpf(mass)
        if not (0 <= interval.a and interval.b < math.inf):
            raise ValueError(f"{name}[{output!r:.40}] must be a probability in [0, 1], got {mass}")
        masses[output] = interval
    total = sum(masses.values(), iv.mpf(0))
    if not (total.a <= 1 + MASS_TOLERANCE and 1 - MASS_TOLERANCE <= total.b):
        raise ValueError(f"the probabilities of {name} must sum to 1, got {float(total.mid):.6g}")
    return masses


MASS_TOLERANCE = 1e-9
"""How far from 1 the total of a distribution's masses may lie (floats such as 0.1 + 0.2 + 0.7)."""


def hockey_stick_enclosure(
    P: PublicDistribution, Q: PublicDistribution, epsilon: Any, prec: int = 128
) -> Enclosure:
    """The hockey-stick divergence δ(ε) of a neighbour pair (:func:`hockey_stick`), certified: the
    exact interval and its ends rounded outward to floats (``lower`` down, ``upper`` up), so δ(ε)
    lies between the two floats and ``upper`` is never below it.

    Args:
        P: A distribution, output → certified probability (an ``Enclosure`` or ``mpmath.iv`` interval).
        Q: The neighbouring distribution.
        epsilon: The ε at which δ is computed (exact: int, Fraction, decimal string, sympy).
        prec: Interval precision in bits.

    Returns:
        The :class:`~dpledger.accountant.numerics.certified.Enclosure` of δ(ε).
    """
    return Enclosure.of(hockey_stick(P, Q, epsilon, prec))


def pure_epsilon_enclosure(P: PublicDistribution, Q: PublicDistribution, prec: int = 128) -> Enclosure:
    """The pure ε of a neighbour pair, max_o |log(P(o)/Q(o))| (:func:`pure_epsilon`; ∞ when the
    supports differ), certified: the exact interval and its ends rounded outward to floats
    (``lower`` down, ``upper`` up), so ε lies between the two floats and ``upper`` is never below it.

    Args:
        P: A distribution, output → certified probability (an ``Enclosure`` or ``mpmath.iv`` interval).
        Q: The neighbouring distribution.
        prec: Interval precision in bits.

    Returns:
        The :class:`~dpledger.accountant.numerics.certified.Enclosure` of the pure ε.
    """
    return Enclosure.of(pure_epsilon(P, Q, prec))


def privacy_profile(P: PublicDistribution, Q: PublicDistribution, epsilons: Sequence[Any]) -> dict[str, Any]:
    """The exact pure ε and the hockey-stick curve δ(ε) at ``epsilons`` of a neighbour pair, as
    JSON-ready [lower, upper] float pairs rounded outward — lower end down, upper end up, so each
    pair encloses the exact value (see :func:`json_number` for infinities).

    Args:
        P: A distribution, output → certified probability (an ``Enclosure`` or ``mpmath.iv`` interval).
        Q: The neighbouring distribution.
        epsilons: The ε at which δ(ε) is computed (exact).

    Returns:
        ``{"epsilon": [lo, hi], "curve": [{"epsilon": "ε", "delta": [lo, hi]}, ...]}``.
    """
    P, Q = checked_distribution(P, "P"), checked_distribution(Q, "Q")
    return {
        "epsilon": _float_pair(pure_epsilon(P, Q)),
        "curve": [{"epsilon": str(e), "delta": _float_pair(hockey_stick(P, Q, e))} for e in epsilons],
    }


def _float_pair(interval: iv.mpf) -> list[float | str]:
    return [json_number(lower_float(interval)), json_number(upper_float(interval))]


def json_number(value: float) -> float | str:
    """A float for JSON output: infinities as the strings "inf" / "-inf" (JSON has no infinity)."""
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


# -- many pairs: rigorous float screening --------------------------------------------------


def to_floats(distribution: Distribution) -> FloatDistribution:
    """Each probability interval rounded outward to a (lower, upper) float pair."""
    return {o: (lower_float(p), upper_float(p)) for o, p in distribution.items()}


@dataclass(frozen=True)
class Screen:
    """Certified bounds for a batch of neighbour pairs (arrays, one entry per pair):
    ``ratio_low ≤ max_o max(P/Q, Q/P) ≤ ratio_high`` (∞ when supports differ) and
    ``delta_high ≥ δ(ε₀)`` for the ε₀ whose e^ε₀ ≥ ``factor_low`` was given."""

    ratio_low: np.ndarray
    ratio_high: np.ndarray
    delta_high: np.ndarray


def screen_pairs(
    P_lo: np.ndarray, P_hi: np.ndarray, Q_lo: np.ndarray, Q_hi: np.ndarray, factor_low: float
) -> Screen:
    """Certified ratio and δ bounds for pairs given as aligned (pairs × outputs) float bounds on
    P(o) and Q(o) (0 for an output outside a support; a support output has upper bound > 0).

    Each IEEE operation is correctly rounded, so pushing its result one ulp outward
    (``np.nextafter``) encloses the exact value; a float sum of n non-negative terms is at most
    (1 + 2n·2⁻⁵³) times below the exact sum, which the δ bound multiplies back in."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):

        def one_way(
            A_lo: np.ndarray, A_hi: np.ndarray, B_lo: np.ndarray, B_hi: np.ndarray
        ) -> tuple[np.ndarray, ...]:
            low = np.where(B_hi > 0, np.nextafter(A_lo / B_hi, -np.inf), np.where(A_lo > 0, np.inf, 0.0))
            high = np.where(A_hi > 0, np.where(B_lo > 0, np.nextafter(A_hi / B_lo, np.inf), np.inf), 0.0)
            gap = np.nextafter(A_hi - np.nextafter(factor_low * B_lo, -np.inf), np.inf).clip(min=0.0)
            width = gap.shape[1]
            delta = np.nextafter(gap.sum(axis=1) * (1 + 2 * (width + 1) * 2.0**-53), np.inf)
            return low.max(axis=1, initial=0.0), high.max(axis=1, initial=0.0), delta

        forward, backward = one_way(P_lo, P_hi, Q_lo, Q_hi), one_way(Q_lo, Q_hi, P_lo, P_hi)
    return Screen(*(np.maximum(f, b) for f, b in zip(forward, backward, strict=True)))


def delta_bounds(
    P_lo: np.ndarray,
    P_hi: np.ndarray,
    Q_lo: np.ndarray,
    Q_hi: np.ndarray,
    factor_low: float,
    factor_high: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Certified lower and upper bounds on δ(ε) = max of Σ_o max(P − e^ε Q, 0) and the same with P
    and Q swapped, for pairs given as in :func:`screen_pairs`, from factor_low ≤ e^ε ≤ factor_high
    (factor_high may be ∞: δ(∞), the mass outside the other support). Rounding as in
    :func:`screen_pairs`, each bound pushed outward."""
    with np.errstate(invalid="ignore", over="ignore"):

        def one_way(
            A_lo: np.ndarray, A_hi: np.ndarray, B_lo: np.ndarray, B_hi: np.ndarray
        ) -> tuple[np.ndarray, ...]:
            width = A_lo.shape[1]
            slack = 2 * (width + 1) * 2.0**-53
            upper = np.nextafter(A_hi - np.nextafter(factor_low * B_lo, -np.inf), np.inf).clip(min=0.0)
            scaled = np.where(B_hi > 0, np.nextafter(factor_high * B_hi, np.inf), 0.0)
            lower = np.nextafter(A_lo - scaled, -np.inf)
            lower = np.where(np.isnan(lower), 0.0, lower).clip(min=0.0)
            high = np.nextafter(upper.sum(axis=1) * (1 + slack), np.inf)
            low = np.nextafter(lower.sum(axis=1) * (1 - slack), -np.inf).clip(min=0.0)
            return low, high

        (f_low, f_high), (b_low, b_high) = one_way(P_lo, P_hi, Q_lo, Q_hi), one_way(Q_lo, Q_hi, P_lo, P_hi)
    return np.maximum(f_low, b_low), np.maximum(f_high, b_high)


def _exp_bounds(epsilon: float) -> tuple[float, float]:
    """Floats around e^ε (certified)."""
    if epsilon == math.inf:
        return math.inf, math.inf
    with interval_precision(64):
        value = iv.exp(iv.mpf(epsilon))
    return lower_float(value), upper_float(value)


def epsilon_at_delta(batches: Sequence[tuple[np.ndarray, ...]], delta: float) -> tuple[float, float]:
    """An interval [lo, hi] around min{ε ≥ 0 : δ(ε) ≤ ``delta`` for every pair} for the aligned
    pairs of ``batches`` (:func:`screen_pairs`' arrays): every pair is certified to have
    δ(hi) ≤ delta, and some pair δ(lo) > delta (lo = 0 when none is at 0); hi = ∞ when some pair's
    mass outside the other's support alone exceeds delta. Bisection, 60 halvings at most."""

    def worst(epsilon: float) -> tuple[float, float]:
        factors = _exp_bounds(epsilon)
        bounds = [delta_bounds(*batch, *factors) for batch in batches]  # type: ignore[call-arg, arg-type]
        return max(float(b[0].max()) for b in bounds), max(float(b[1].max()) for b in bounds)

    if worst(math.inf)[0] > delta:
        return (math.inf, math.inf)
    low, high = 0.0, 1.0
    while worst(high)[1] > delta:
        low, high = high, 2 * high
        if high > 2.0**20:
            return (low, math.inf)
    if worst(0.0)[0] <= delta:
        low = 0.0
    for _ in range(60):
        middle = (low + high) / 2
        lowest, highest = worst(middle)
        if highest <= delta:
            high = middle
        elif lowest > delta:
            low = middle
        else:
            break
    return low, high


@dataclass(frozen=True)
class ExactAuditResult(AuditResultBase[sympy.Expr]):
    """Worst case over all neighbour pairs: ``epsilon`` the certified [lower, upper] worst pure ε
    (∞ when some pair's supports differ), ``claimed_epsilon`` and ``claimed_delta`` the claim (δ
    rounded up; 0 for a pure claim), ``holds`` the rigorous verdict (None: undecided), ``worst_pair`` the
    witness, ``delta_at_bound`` the largest certified upper bound on δ(claimed ε) over the pairs
    (how far from (claimed ε, 0)-DP the mechanism is; for an (ε, δ) claim, ``holds`` compares it
    with ``claimed_delta`` and ``epsilon_at_delta`` encloses the smallest ε at which every pair
    has δ(ε) ≤ ``claimed_delta``), and ``worst_profile`` /
    ``worst_delta_profile`` the exact profiles (:func:`privacy_profile`) of the ε witness and of
    the pair attaining that δ. ``unlisted`` counts the neighbours D′ ∈ neighbours(D) that are not
    among the datasets: their pairs are outside the audit (0 when the datasets are closed under
    the relation), so the verdict covers the listed pairs only."""

    epsilon: tuple[float, float]
    pairs: int
    datasets: int
    distributions: int
    worst_pair: tuple[Any, Any] | None
    delta_at_bound: float
    worst_delta_pair: tuple[Any, Any] | None
    worst_profile: dict[str, Any] = field(default_factory=dict)
    worst_delta_profile: dict[str, Any] = field(default_factory=dict)
    unlisted: int = 0
    epsilon_at_delta: tuple[float, float] | None = None

    @property
    def bound(self) -> sympy.Expr:
        """The claimed ε, under its former name (deprecated: ``claimed_epsilon``)."""
        warn_renamed("ExactAuditResult.bound", "ExactAuditResult.claimed_epsilon")
        return self.claimed_epsilon

    @property
    def tightness(self) -> float:
        """ε_exact (upper end) / claimed ε."""
        return self.epsilon[1] / float(self.claimed_epsilon)


def _enumerate_chunk(
    mechanism: Callable[[Any, Randomness], Hashable],
    keys: list[Any],
    limit: int,
) -> list[tuple[dict[Hashable, tuple], FloatDistribution]]:
    """Distributions of a chunk of keys: exact as raw ``_mpi_`` tuples (which pickle), and as floats."""
    results = []
    for key in keys:
        distribution = enumerate_outputs(partial(mechanism, key), limit=limit)
        results.append(({o: p._mpi_ for o, p in distribution.items()}, to_floats(distribution)))
    return results


CHUNK_KEYS = 32
"""Keys per enumeration task: small enough to balance a few workers, large enough to amortise a
task's transport. Each key's distribution is computed alone, so the chunking never changes a number."""


def _start_distributions(
    mechanism: Callable[[Any, Randomness], Hashable], keys: list[Any], leaves_per_run: int, executor: Executor
) -> Iterator[list[tuple[dict[Hashable, tuple], FloatDistribution]]]:
    """Submit the enumeration of every key, in chunks, to ``executor`` (``Executor.map`` submits at
    once, so the workers start while the caller goes on); the results come in key order."""
    chunks = [keys[i : i + CHUNK_KEYS] for i in range(0, len(keys), CHUNK_KEYS)]
    return executor.map(partial(_enumerate_chunk, mechanism, limit=leaves_per_run), chunks)


def _collected(
    keys: list[Any],
    results: Iterator[list[tuple[dict[Hashable, tuple], FloatDistribution]]],
    advance: Callable[[int], None] | None,
) -> tuple[dict[Any, dict[Hashable, tuple]], dict[Any, FloatDistribution]]:
    """The distribution of every key (raw exact, float) from the chunks' results, in key order
    (so any executor gives the same numbers)."""
    parts: list[tuple[dict[Hashable, tuple], FloatDistribution]] = []
    for part in results:
        parts.extend(part)
        if advance is not None:
            advance(len(parts))
    return {k: raw for k, (raw, _) in zip(keys, parts, strict=True)}, {
        k: floats for k, (_, floats) in zip(keys, parts, strict=True)
    }


@contextlib.contextmanager
def _default_executor(workers: int, keys: int) -> Iterator[Executor]:
    """``workers`` local processes when there are many keys, else the calling thread."""
    if workers > 1 and keys > 64:
        with ProcessPoolExecutor(workers) as pool:
            yield pool
    else:
        yield InProcessExecutor()


def _neighbour_pairs(
    datasets: Sequence[Any],
    neighbours: Callable[[Any], Iterable[Any]],
    key_of: dict[Any, Any],
) -> tuple[int, int, dict[tuple[Any, Any], tuple[Any, Any]]]:
    """The number of unordered neighbour pairs {D, D′} (D′ ∈ neighbours(D) and D′ listed after D),
    the number of neighbours D′ ∈ neighbours(D) not listed (their pairs are outside the audit), and
    for every key pair (key(D), key(D′)) its first witness (D, D′) in listing order."""
    listed = {d: (i, key_of[d]) for i, d in enumerate(datasets)}  # one hash per neighbour
    witness: dict[tuple[Any, Any], tuple[Any, Any]] = {}
    pairs = unlisted = 0
    for number, d in enumerate(datasets):
        own = key_of[d]
        for other in neighbours(d):
            found = listed.get(other)
            if found is None:
                unlisted += 1
            elif found[0] > number:
                pairs += 1
                pair = (own, found[1])
                if pair not in witness:
                    witness[pair] = (d, other)
    return pairs, unlisted, witness


def _aligned(pairs: list[tuple[FloatDistribution, FloatDistribution]]) -> tuple[np.ndarray, ...]:
    """(P_lo, P_hi, Q_lo, Q_hi) arrays over the union of each pair's outputs, zero-padded."""
    width = max((len(set(P) | set(Q)) for P, Q in pairs), default=0)
    arrays = np.zeros((4, len(pairs), max(width, 1)))
    for row, (P, Q) in enumerate(pairs):
        for column, output in enumerate(set(P) | set(Q)):
            arrays[0, row, column], arrays[1, row, column] = P.get(output, (0.0, 0.0))
            arrays[2, row, column], arrays[3, row, column] = Q.get(output, (0.0, 0.0))
    return tuple(arrays)


def worst_case(
    mechanism: Callable[[Any, Randomness], Hashable],
    datasets: Sequence[Any],
    neighbours: Callable[[Any], Iterable[Any]],
    claimed_epsilon: Any = None,
    *,
    key: Callable[[Any], Any] = lambda d: d,
    view: Callable[[Any, Any], Callable[[Hashable], Hashable]] | None = None,
    leaves_per_run: int,
    limit: int = DEFAULT_LEAF_LIMIT,
    workers: int = 2,
    executor: Executor | None = None,
    progress: Progress | None = None,
    reduce: Callable[[Any], tuple[Any, Callable[[Hashable], Hashable]]] | None = None,
    bound: Any = None,
    claimed_delta: Any = 0,
) -> ExactAuditResult:
    """The worst pure ε of ``mechanism`` over all unordered pairs {D, D′} with D′ ∈ neighbours(D),
    against the claim ``claimed_epsilon`` (``bound=``, its former name, is deprecated).

    ``mechanism(k, rng)`` runs on the enumeration key ``k = key(D)`` (datasets with equal keys
    share one distribution, and pairs with equal keys are screened once); ``view(k, k′)``, when
    given, returns the map from an output of ``k`` to what is compared with ``k′`` on that pair (e.g. the labeling
    restricted to the common points, Lemma 3.14); probabilities of merged outputs are summed.
    ``reduce(k) = (r, rename)``, when given, is an exact invariance of the mechanism: the
    distribution of ``k`` is that of ``r`` with each output o renamed ``rename(o)`` (injective),
    the same certified intervals — so only one distribution per ``r`` is enumerated, while pairs
    stay keyed by ``k`` (for releases whose outputs name the data, where ``key`` cannot merge
    them). ``leaves_per_run`` bounds the
    branches of one enumeration, so the total work is predicted and refused (``ValueError``)
    *before* starting when it exceeds ``limit``. Distributions are computed on ``executor`` (any
    ``concurrent.futures.Executor``: local processes, threads, a Dask client's executor, see
    :mod:`dpledger.verify.audit.montecarlo.executors`; ``mechanism`` must then be picklable), or
    when none is given in ``workers`` local processes; every executor gives the same result, bit
    for bit (each key's enumeration is deterministic and computed alone). ``progress(total, label)``, when given, returns
    the ``advance(done)`` callback of a progress bar (as :func:`dpledger.verify.service.progress.progress`).

    Args:
        mechanism: ``mechanism(k, rng) -> output`` drawing all randomness from ``rng``.
        datasets: The datasets D.
        neighbours: ``neighbours(D)``, the datasets D′ neighbouring D.
        claimed_epsilon: The claimed pure ε (exact: int, Fraction, decimal string, sympy).
        key: The enumeration key of a dataset.
        view: ``view(k, k′)``, what of an output of ``k`` is compared with ``k′``.
        leaves_per_run: Bound on the branches of one enumeration.
        limit: Bound on the total leaves.
        workers: Local processes when no ``executor`` is given.
        executor: Where the distributions are computed.
        progress: ``progress(total, label) -> advance(done)``, a progress bar.
        reduce: ``reduce(k) = (r, rename)``, an exact invariance of the mechanism.
        bound: Deprecated name of ``claimed_epsilon``.
        claimed_delta: The claimed δ (exact; 0: a pure claim). With δ > 0 the verdict is
            δ(claimed ε) ≤ claimed δ on every pair, and ``epsilon_at_delta`` is measured (the pairs'
            outputs are kept in memory for it).

    Returns:
        The :class:`ExactAuditResult`: the certified worst ε, the verdict and its witness pairs.

    Raises:
        ValueError: the predicted work exceeds ``limit``, a mechanism fails, ``workers`` is not a
            positive integer, or no neighbour pair is among the datasets.
        TypeError: no claim given, or both ``claimed_epsilon`` and ``bound``.
    """
    claimed = renamed_keyword("audit_exact", "bound", "claimed_epsilon", bound, claimed_epsilon)
    if claimed is None:
        raise TypeError("audit_exact() needs claimed_epsilon, the claimed pure ε")
    bound = exact(claimed, "claimed_epsilon")  # numbers and arithmetic text only, never evaluated as code
    delta_claim = exact(claimed_delta, "claimed_delta")
    if not (delta_claim.is_nonnegative and delta_claim < 1):
        raise ValueError(f"claimed_delta must be in [0, 1), got {delta_claim}")
    delta_low, delta_high = lower_float(enclose(delta_claim)), upper_float(enclose(delta_claim))
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer ≥ 1, got {workers!r:.40}")
    key_of = {d: key(d) for d in datasets}
    keys = list(dict.fromkeys(key_of.values()))
    reduced: dict[Any, tuple[Any, Callable[[Hashable], Hashable] | None]] = (
        {k: reduce(k) for k in keys} if reduce is not None else {k: (k, None) for k in keys}
    )
    enumerated = list(dict.fromkeys(r for r, _ in reduced.values()))
    predicted = len(enumerated) * leaves_per_run
    if predicted > limit:
        raise ValueError(
            f"limit: the audit would enumerate up to {predicted} leaves "
            f"({len(enumerated)} distributions × {leaves_per_run}), more than {limit}; use smaller sizes"
        )
    with (
        _default_executor(workers, len(enumerated))
        if executor is None
        else contextlib.nullcontext(executor) as pool
    ):
        results = _start_distributions(mechanism, enumerated, leaves_per_run, pool)
        pairs, unlisted, witness = _neighbour_pairs(
            datasets, neighbours, key_of
        )  # while the workers enumerate
        advance = progress(len(enumerated), "distributions") if progress else None
        raw_of, floats_of = _renamed(reduced, *_collected(enumerated, results, advance))

    factor = enclose(sympy.exp(bound))
    factor_low, factor_high = lower_float(factor), upper_float(factor)
    key_pairs = list(witness)
    low, high, delta, delta_floor = (np.zeros(len(key_pairs)) for _ in range(4))
    kept: list[tuple[np.ndarray, ...]] = []
    batch = 4096
    advance = progress(len(key_pairs), "pairs") if progress else None
    for start in range(0, len(key_pairs), batch):
        chunk = key_pairs[start : start + batch]
        if view is None:
            aligned = _aligned([(floats_of[a], floats_of[b]) for a, b in chunk])
        else:
            aligned = _aligned(
                [(_viewed(floats_of[a], view(a, b)), _viewed(floats_of[b], view(b, a))) for a, b in chunk]
            )
        screen = screen_pairs(*aligned, factor_low)  # type: ignore[call-arg, arg-type]  # aligned: P_lo, P_hi, Q_lo, Q_hi
        low[start : start + batch], high[start : start + batch] = screen.ratio_low, screen.ratio_high
        delta[start : start + batch] = screen.delta_high
        if delta_claim > 0:
            delta_floor[start : start + batch] = delta_bounds(*aligned, factor_low, factor_high)[0]  # type: ignore[call-arg, arg-type]
            kept.append(aligned)
        if advance is not None:
            advance(min(start + batch, len(key_pairs)))
    if not key_pairs:
        raise ValueError(
            f"no neighbour pairs to audit: none of the {len(datasets)} datasets has a neighbour among "
            f"the others ({unlisted} neighbours not listed); a claim checked on no pair would hold vacuously"
        )
    worst, worst_delta = int(np.argmax(high)), int(np.argmax(delta))
    low_max, high_max = float(low.max()), float(high.max())
    with interval_precision(128):
        # the true worst ratio is ≥ 1 (both directions of two distributions), so max(·, 1) is sound
        lower_end = iv.log(iv.mpf(max(low_max, 1.0))).a if low_max < _INF else math.inf
        upper_end = iv.log(iv.mpf(max(high_max, 1.0))).b if high_max < _INF else math.inf
        epsilon = iv.mpf([lower_end, upper_end])
    if delta_claim > 0:
        holds = True if delta.max() <= delta_low else (False if delta_floor.max() > delta_high else None)
    else:
        holds = True if high_max <= factor_low else (False if low_max > factor_high else None)

    def profile(a: Any, b: Any) -> dict[str, Any]:
        P, Q = ({o: iv.make_mpf(raw) for o, raw in raw_of[k].items()} for k in (a, b))
        if view is not None:
            P, Q = _viewed_exact(P, view(a, b)), _viewed_exact(Q, view(b, a))
        return privacy_profile(P, Q, [0, Fraction(1, 2), 1, 2, bound])

    return ExactAuditResult(
        claimed_epsilon=bound,
        claimed_delta=delta_high,
        holds=holds,
        epsilon=(lower_float(epsilon), upper_float(epsilon)),
        pairs=pairs,
        datasets=len(datasets),
        distributions=len(enumerated),
        worst_pair=witness[key_pairs[worst]],
        delta_at_bound=float(delta[worst_delta]),
        worst_delta_pair=witness[key_pairs[worst_delta]],
        worst_profile=profile(*key_pairs[worst]),
        worst_delta_profile=profile(*key_pairs[worst_delta]),
        unlisted=unlisted,
        epsilon_at_delta=epsilon_at_delta(kept, delta_low) if delta_claim > 0 else None,
    )


def _renamed(
    reduced: dict[Any, tuple[Any, Callable[[Hashable], Hashable] | None]],
    raw_of: dict[Any, dict[Hashable, tuple]],
    floats_of: dict[Any, FloatDistribution],
) -> tuple[dict[Any, dict[Hashable, tuple]], dict[Any, FloatDistribution]]:
    """The distributions of the keys from those of their reductions (outputs renamed, values kept)."""
    raw: dict[Any, dict[Hashable, tuple]] = {}
    floats: dict[Any, FloatDistribution] = {}
    for k, (r, rename) in reduced.items():
        if rename is None:
            raw[k], floats[k] = raw_of[r], floats_of[r]
        else:
            raw[k] = {rename(o): p for o, p in raw_of[r].items()}
            floats[k] = {rename(o): p for o, p in floats_of[r].items()}
    return raw, floats


def _viewed(P: FloatDistribution, view: Callable[[Hashable], Hashable]) -> FloatDistribution:
    """P pushed through the pair's view, sums rounded outward."""
    out: dict[Hashable, tuple[float, float]] = {}
    for output, (lo, hi) in P.items():
        seen = view(output)
        if seen in out:
            old = out[seen]
            out[seen] = (_down(old[0] + lo), _up(old[1] + hi))
        else:
            out[seen] = (lo, hi)
    return out


def _viewed_exact(P: Distribution, view: Callable[[Hashable], Hashable]) -> Distribution:
    """P pushed through the pair's view, exactly."""
    out: Distribution = {}
    with interval_precision(128):
        for output, p in P.items():
            seen = view(output)
            out[seen] = out.get(seen, iv.mpf(0)) + p
    return out


__getattr__ = renamed_attributes(__name__, {"AuditResult": "ExactAuditResult"}, globals())
