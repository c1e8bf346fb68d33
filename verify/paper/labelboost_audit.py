"""Exact audits of LabelBoostProcedure (Algorithm 1) and the releases of Section 3.5 of seed 000:
Lemmas 3.14, 3.15, 3.17 and the selected hypothesis itself, by the generic exact auditor
(:func:`dpledger.verify.audit.exact.worst_case`).

Reductions (exact invariances, stated so the pair counts can be read): LabelBoost depends on S
only as a multiset (P is a set, the score a sum) and on T only through its distinct points, so
datasets are enumerated as multisets (sorted tuples), a pair is a substitution of one element of
one multiset, and each distribution is computed once per (S, set(T)). For the order-invariant
classes (:data:`ORDER_INVARIANT_CLASSES`) every release but the hypothesis is moreover enumerated
once per *rank pattern* (:func:`_rank_key`; the weights release renamed back to its points,
:func:`_rank_reduction`), which makes the number of distributions independent of the domain size;
the pairs are still all listed and counted.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache, partial
from typing import Any

import sympy

from dpledger.accountant.rules import C_LB
from dpledger.learners.concept_classes import ConceptClass, make_class
from dpledger.learners.labelboost import (
    labelboost,
    labelboost_carrier,
    labelboost_then,
    realizable_randomized_response,
)
from dpledger.learners.randomness import Randomness
from dpledger.verify.audit.exact import (
    DEFAULT_LEAF_LIMIT,
    ExactAuditResult,
    Progress,
    worst_case,
)

Dataset = tuple[tuple[Any, ...], tuple[Any, ...]]
"""A LabelBoost input: the labelled sample S and the unlabelled carrier T, each a sorted multiset."""

RELEASES = ("carrier", "hypothesis", "weights", "continuation")

MAX_DOMAIN_POINTS = 64
MAX_SAMPLE = 8
MAX_DATASETS = 2_000_000

ORDER_INVARIANT_CLASSES = frozenset({"thresholds", "intervals", "rectangles"})
"""Classes whose trace code (:mod:`dpledger.learners.concept_classes`) reads the points of P only
through comparisons of equal coordinates: sorting, ``np.unique`` and tests ``a ≤ x < b`` against
coordinates of P. Halfspaces are not (⟨a, x⟩ ≥ w reads the values)."""


@dataclass(frozen=True)
class LabelBoostAudit:
    """An exact audit of LabelBoostProcedure: class on [0, D)^d, |S| = ``labeled``,
    |T| = ``unlabeled``, and the release:

    * ``carrier`` — T^h for fixed T, neighbours substitute one record of S (Lemma 3.17, bound c_LB);
    * ``hypothesis`` — the selected representative h, neighbours in S (no lemma; bound c_LB for comparison);
    * ``weights`` — w(z), the mass of each common labeling z ∈ Π_C(K), neighbours substitute one
      record of S or of T (Lemma 3.14, bound c_LB = ln 4e);
    * ``continuation`` — A((S∘T)^h) for A = :func:`realizable_randomized_response` with
      ``continuation_epsilon``, neighbours in S or T (Lemma 3.15, bound ε_A + c_LB)."""

    class_name: str
    domain_size: int
    labeled: int
    unlabeled: int
    release: str
    continuation_epsilon: Fraction = Fraction(1, 2)

    def __post_init__(self) -> None:
        points = self.domain_size ** self.concept_class().dimension
        if points > MAX_DOMAIN_POINTS:
            raise ValueError(f"domain-size: the domain has {points} points, more than {MAX_DOMAIN_POINTS}")
        if not 1 <= self.labeled <= MAX_SAMPLE:
            raise ValueError(f"labeled must be in [1, {MAX_SAMPLE}], got {self.labeled}")
        if not 0 <= self.unlabeled <= MAX_SAMPLE:
            raise ValueError(f"unlabeled must be in [0, {MAX_SAMPLE}], got {self.unlabeled}")
        if self.release not in RELEASES:
            raise ValueError(f"release must be one of {', '.join(RELEASES)}, got {self.release!r}")
        if self.continuation_epsilon <= 0:
            raise ValueError(f"continuation_epsilon must be positive, got {self.continuation_epsilon}")

    def concept_class(self) -> ConceptClass:
        """The audited class (one object per process, so LabelBoost's memo is shared across runs)."""
        return shared_class(self.class_name, self.domain_size)

    def domain(self) -> list[Any]:
        """The points of the domain: ints on [0, D), or coordinate tuples on [0, D)²."""
        if self.concept_class().dimension == 1:
            return list(range(self.domain_size))
        return list(itertools.product(range(self.domain_size), repeat=self.concept_class().dimension))

    @property
    def bound(self) -> sympy.Expr:
        """The claimed ε: c_LB, or ε_A + c_LB for the continuation (Lemma 3.15)."""
        if self.release == "continuation":
            return (
                sympy.Rational(self.continuation_epsilon.numerator, self.continuation_epsilon.denominator)
                + C_LB
            )
        return C_LB

    @property
    def statement(self) -> str:
        return {
            "carrier": "Lemma 3.17",
            "hypothesis": "none (the seed makes no claim)",
            "weights": "Lemma 3.14",
            "continuation": "Lemma 3.15",
        }[self.release]

    @cached_property
    def records(self) -> tuple[tuple[Any, int], ...]:
        """Every labeled record (x, y), x in the domain, y ∈ {0, 1}."""
        return tuple((x, y) for x in self.domain() for y in (0, 1))

    def datasets(self) -> list[Dataset]:
        """All (S, T): S a multiset of ``labeled`` labeled points, T a multiset of ``unlabeled`` points."""
        samples = itertools.combinations_with_replacement(self.records, self.labeled)
        carriers = list(itertools.combinations_with_replacement(self.domain(), self.unlabeled))
        return [(s, t) for s in samples for t in carriers]

    def neighbours(self, dataset: Dataset) -> Iterable[Dataset]:
        """Substitute one record of S (and, for ``weights``/``continuation``, one point of T)."""
        s, t = dataset
        records = self.records
        for old in dict.fromkeys(s):
            for new in records:
                if new != old:
                    yield _substitute(s, old, new), t
        if self.release in ("weights", "continuation"):
            points = self.domain()
            for old in dict.fromkeys(t):
                for new in points:
                    if new != old:
                        yield s, _substitute(t, old, new)

    def sizes(self) -> tuple[int, int]:
        """(number of datasets, number of enumerations keyed by (S, set(T))), computed without
        listing them; the second bounds the distributions actually computed (the rank reduction,
        when it applies, computes fewer)."""
        points = len(self.domain())
        samples = math.comb(2 * points + self.labeled - 1, self.labeled)
        carriers = math.comb(points + self.unlabeled - 1, self.unlabeled)
        carrier_sets = sum(math.comb(points, k) for k in range(min(self.unlabeled, 1), self.unlabeled + 1))
        return samples * carriers, samples * carrier_sets

    def leaves_per_run(self) -> int:
        """An upper bound on the leaves of one enumeration: Sauer's bound (Lemma 3.8) on |Π_C(P)|
        for |P| ≤ min(|S| + |T|, |X|), times 2 for the continuation's randomized response."""
        r = min(self.labeled + self.unlabeled, len(self.domain()))
        v = self.concept_class().vc_dimension
        sauer = sum(math.comb(r, i) for i in range(min(v, r) + 1))
        return sauer * (2 if self.release == "continuation" else 1)


@lru_cache(maxsize=16)
def shared_class(name: str, domain_size: int) -> ConceptClass:
    """The named class, one object per process (so LabelBoost's memo is shared across runs)."""
    return make_class(name, domain_size)


def _substitute(multiset: tuple[Any, ...], old: Any, new: Any) -> tuple[Any, ...]:
    items = list(multiset)
    items.remove(old)
    bisect.insort(items, new)
    return tuple(items)


def _enumeration_key(dataset: Dataset) -> Dataset:
    """LabelBoost depends on T only through its distinct points."""
    s, t = dataset
    return s, tuple(sorted(set(t)))


def _rank_key(dataset: Dataset) -> Dataset:
    """:func:`_enumeration_key` with every coordinate replaced by its rank among that coordinate's
    values on P = the points of S∘T (ranks from 0; equal values, equal ranks).

    The map φ taking a point to its ranks is strictly increasing in every coordinate, so it
    preserves every comparison the trace code of an order-invariant class makes (equalities,
    ``<``, and the lexicographic order of P), hence the run of LabelBoost on φ(S, T) makes the
    same choices, with the same branch probabilities in the same order, as on (S, T): the same
    candidates in the same order (labelings of P's positions), the same scores, the same
    exponential-mechanism groups. Its carrier release (labels of T's points in sorted order) and
    the continuation's release (the label of the smallest point, through a realizability test of
    the same kind) are then equal leaf by leaf, and so is the enumerated distribution — the same
    certified intervals, bit for bit (tests/verify/test_exact_reductions.py checks it on every dataset
    of small instances). The weights release names the points of P: it is enumerated on the rank
    pattern and renamed back (:func:`_rank_reduction`); the hypothesis release names coordinates
    (its representatives are tight boxes), so it is not reduced."""
    s, t = _enumeration_key(dataset)
    rank = _ranks(dataset)
    return tuple(sorted((rank[x], y) for x, y in s)), tuple(rank[x] for x in t)


def _ranks(dataset: Dataset) -> dict[Any, Any]:
    """Every point of P to its coordinates' ranks (see :func:`_rank_key`)."""
    points = sorted(_points(dataset))
    if points and isinstance(points[0], tuple):
        ranks = [{v: i for i, v in enumerate(sorted({p[c] for p in points}))} for c in range(len(points[0]))]
        return {p: tuple(r[v] for r, v in zip(ranks, p, strict=True)) for p in points}
    return {p: i for i, p in enumerate(points)}


def _rank_reduction(key: Dataset) -> tuple[Dataset, Callable[[Any], Hashable]]:
    """The weights release of an order-invariant class: its distribution on ``key`` is the one on
    :func:`_rank_key` (same certified intervals, by the argument there) with every point of an
    output (a labeling of P as (point, label) pairs) renamed back from its ranks."""
    point_of = {r: p for p, r in _ranks(key).items()}

    def rename(output: Any) -> Hashable:  # a tuple of (point, label) pairs
        return tuple((point_of[x], label) for x, label in output)

    return _rank_key(key), rename


def _key_function(audit: LabelBoostAudit) -> Callable[[Dataset], Dataset]:
    """The finest exact reduction available for the audit's class and release."""
    if audit.class_name in ORDER_INVARIANT_CLASSES and audit.release in ("carrier", "continuation"):
        return _rank_key
    return _enumeration_key


def _run_labelboost(audit: LabelBoostAudit, dataset: Dataset, rng: Randomness) -> Hashable:
    """One run of the audited release on (S, T) (T given by its distinct sorted points)."""
    concept_class = audit.concept_class()
    s, t = dataset
    xs = [x for x, _ in s]
    ys = [y for _, y in s]
    if audit.release == "carrier":
        return labelboost_carrier(concept_class, xs, ys, list(t), rng).output
    if audit.release == "continuation":
        continuation = realizable_randomized_response(concept_class, audit.continuation_epsilon)
        return labelboost_then(concept_class, xs, ys, list(t), continuation, rng).output
    result = labelboost(concept_class, xs, ys, list(t), rng)
    if audit.release == "hypothesis":
        return result.hypothesis
    points = tuple(map(_point, result.points.tolist()))
    return tuple(zip(points, result.labeling.tolist(), strict=True))


def _point(x: Any) -> Any:
    return tuple(x) if isinstance(x, list) else x


def _common_labeling(d: Dataset, other: Dataset) -> Callable[[Any], Hashable]:
    """The map from a labeling of d's points P₁ to z = h|_K on the common points K = P₁ ∩ P₂ of the
    pair (Lemma 3.14). Every output of the weights release lists P₁ in sorted order (``np.unique``),
    so K is a fixed set of positions in it."""
    other_points = _points(other)
    keep = [i for i, x in enumerate(sorted(_points(d))) if x in other_points]
    return lambda output: tuple(map(output.__getitem__, keep))


def _points(dataset: Dataset) -> set[Any]:
    s, t = dataset
    return {x for x, _ in s} | set(t)


def audit_labelboost(
    audit: LabelBoostAudit,
    *,
    limit: int = DEFAULT_LEAF_LIMIT,
    workers: int = 2,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> ExactAuditResult:
    """The exact worst-case ε of ``audit.release`` over all neighbour pairs (see :class:`LabelBoostAudit`),
    the distributions computed on ``executor`` (or ``workers`` local processes; the same result on
    any). The number of datasets and of leaves is predicted, and refused beyond the limits, before any work."""
    datasets, distributions = audit.sizes()
    if datasets > MAX_DATASETS:
        raise ValueError(
            f"limit: {datasets} datasets (S, T) of these sizes, more than {MAX_DATASETS}; "
            "use a smaller domain-size, labeled or unlabeled"
        )
    if distributions * audit.leaves_per_run() > limit:
        raise ValueError(
            f"limit: the audit would enumerate up to {distributions * audit.leaves_per_run()} leaves "
            f"({distributions} distributions × {audit.leaves_per_run()}), more than {limit}; use smaller sizes"
        )
    return worst_case(
        partial(_run_labelboost, audit),
        audit.datasets(),
        audit.neighbours,
        audit.bound,
        key=_key_function(audit),
        view=_common_labeling if audit.release == "weights" else None,
        reduce=_rank_reduction
        if audit.release == "weights" and audit.class_name in ORDER_INVARIANT_CLASSES
        else None,
        leaves_per_run=audit.leaves_per_run(),
        limit=limit,
        workers=workers,
        executor=executor,
        progress=progress,
    )
