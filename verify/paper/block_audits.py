"""Exact audits of CarryForwardLearner's blocks (Section 6 of seed 000) on tiny instances.

* ``macro`` — the two-round macro-block MB_1^{r_1}(T_1) of Definition 6.1 for a fixed state
  r_1 = (∅, S_0, W^(1)): y_1 ← A_1(∅; S_0); LabelBoost(S_0, U(T_1), C(y_1)) gives
  S_1 = U(T_1)^{h_1}; y_2 ← A_2(y_1; S_1); and, when k ≥ 3, a carrier T_2 ⊆ W^(1) drawn without
  replacement, LabelBoost(S_1, U(T_2), C(y_1, y_2)) and S_2 = U(T_2)^{h_2}. Output
  (y_1, y_2, S_2) — S_2 as a multiset, the form the next block reads (Remark 6.7); for k = 2
  this is the last macro-block and the output is (y_1, y_2). Neighbours: carriers T_1, T_1′
  differing in one point. Claim: (C, Δ) = (ε_A + 2c_LB, 4eδ_A) (Lemma 6.2); the generic oracle
  is pure, so Δ = 0 and the claim is a pure-ε bound.
* ``init`` — the initialization block of Lemma 6.4 as a mechanism of R_0 (labeled, arbitrary):
  LabelBoost(R_0, ∅, C) gives S_0; y_1 ← A_1(∅; S_0); for k ≥ 2 a carrier T_1 ⊆ W^(0) and
  LabelBoost(S_0, U(T_1), C(y_1)). Output (y_1, S_1). Same claim.
* ``oracle`` — the oracle A_1 alone on C-realizable neighbours (Assumption 4.4 item 2): its
  exact ε against ε_A.

The blocks run the learner's own code paths (:mod:`dpledger.learners.labelboost`,
:mod:`dpledger.learners.component_oracles`) under enumerated randomness; the worst case over all
neighbour pairs is :func:`dpledger.verify.audit.exact.worst_case`. Fixed parts of the state (S_0, W) are
stated in :class:`BlockAudit` so a run can be reproduced.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np
import sympy

from dpledger.accountant.rules import C_LB
from dpledger.learners.completion_scores import restrict
from dpledger.learners.component_oracles import CompletionScoreOracle
from dpledger.learners.concept_classes import ConceptClass
from dpledger.learners.labelboost import labelboost, realizable
from dpledger.learners.randomness import Randomness
from dpledger.verify.audit.exact import DEFAULT_LEAF_LIMIT, ExactAuditResult, Progress, worst_case
from dpledger.verify.paper.labelboost_audit import shared_class

BLOCKS = ("macro", "init", "oracle")
CLASSES = ("thresholds", "intervals", "rectangles")
MAX_POINTS = 9


@dataclass(frozen=True)
class BlockAudit:
    """A tiny instance: class on [0, D)^d, active sample size m, the fixed incoming sample S_0
    (for ``macro``: labeled by a fixed concept of C, so the state is realizable) and the fixed
    next reservoir W (``reservoir`` points, the first of the domain)."""

    class_name: str
    domain_size: int
    m: int
    block: str
    oracle_epsilon: Fraction = Fraction(4)
    reservoir: int = 3

    def __post_init__(self) -> None:
        if self.class_name not in CLASSES:
            raise ValueError(f"class must be one of {', '.join(CLASSES)}, got {self.class_name!r}")
        if self.block not in BLOCKS:
            raise ValueError(f"block must be one of {', '.join(BLOCKS)}, got {self.block!r}")
        if not 1 <= len(self.domain()) <= MAX_POINTS:
            raise ValueError(
                f"domain-size: the domain has {len(self.domain())} points; exact block audits take 1 to {MAX_POINTS}"
            )
        if not 1 <= self.m <= 3:
            raise ValueError(f"m must be in [1, 3] for an exact block audit, got {self.m}")
        if not self.m <= self.reservoir <= len(self.domain()):
            raise ValueError(
                f"reservoir must be in [m, |domain|] = [{self.m}, {len(self.domain())}], got {self.reservoir}"
            )
        if self.oracle_epsilon <= 0:
            raise ValueError(f"oracle_epsilon must be positive, got {self.oracle_epsilon}")

    def concept_class(self) -> ConceptClass:
        return shared_class(self.class_name, self.domain_size)

    def domain(self) -> list[Any]:
        if shared_class(self.class_name, self.domain_size).dimension == 1:
            return list(range(self.domain_size))
        return list(itertools.product(range(self.domain_size), repeat=2))

    @property
    def bound(self) -> sympy.Expr:
        eps_a = sympy.Rational(self.oracle_epsilon.numerator, self.oracle_epsilon.denominator)
        return eps_a if self.block == "oracle" else eps_a + 2 * C_LB

    @property
    def statement(self) -> str:
        return {"macro": "Lemma 6.2", "init": "Lemma 6.4", "oracle": "Assumption 4.4 (item 2)"}[self.block]

    def incoming(self) -> tuple[np.ndarray, np.ndarray]:
        """S_0 for the macro-block: the first m domain points labeled by the class's first
        concept that labels the first point 1 (so the state is a realizable prefix state)."""
        C = self.concept_class()
        X = self.points(self.domain()[: self.m])
        concept = next(h for h in C.completions() if C.evaluate(h, X[:1])[0] == 1)
        return X, C.evaluate(concept, X).astype(np.int64)

    def points(self, xs: Iterable[Any]) -> np.ndarray:
        return self.concept_class().points(np.array(list(xs)))

    def datasets(self) -> list[tuple[Any, ...]]:
        records = self._records()
        data = [tuple(s) for s in itertools.combinations_with_replacement(records, self.m)]
        if self.block == "oracle":
            C = self.concept_class()
            data = [s for s in data if realizable(C, self.points(x for x, _ in s), [y for _, y in s])]
        return data

    def neighbours(self, dataset: tuple[Any, ...]) -> Iterable[tuple[Any, ...]]:
        members = set(self.datasets()) if self.block == "oracle" else None
        for old in dict.fromkeys(dataset):
            for new in self._records():
                if new != old:
                    items = list(dataset)
                    items.remove(old)
                    other = tuple(sorted([*items, new]))
                    if members is None or other in members:
                        yield other

    def _records(self) -> list[Any]:
        if self.block == "macro":
            return self.domain()
        return [(x, y) for x in self.domain() for y in (0, 1)]

    def leaves_per_run(self) -> int:
        """An upper bound on one enumeration's leaves: oracle branches (next values, each drawn
        by run then point) × LabelBoost labelings (≤ 2^|P|) per round × carrier orderings."""
        C = self.concept_class()
        values = self.domain_size + 1
        labelings = 2 ** min(2 * self.m, len(self.domain()))
        orderings = math.perm(self.reservoir, self.m)
        rounds = {
            "oracle": values,
            "init": labelings * values * orderings * labelings,
            "macro": values * labelings * values * (orderings * labelings if C.k >= 3 else 1),
        }
        return rounds[self.block] * 4


def _multiset(X: np.ndarray, y: np.ndarray) -> tuple[Any, ...]:
    keys = [tuple(x) if np.ndim(x) else int(x) for x in X.tolist()]
    return tuple(sorted(zip(keys, (int(v) for v in y), strict=True)))


def _carrier_round(
    audit: BlockAudit, prefix: tuple, X: np.ndarray, y: np.ndarray, rng: Randomness
) -> Hashable:
    """Draw a carrier from the fixed reservoir W and release its LabelBoost labeling over C(prefix)."""
    reservoir = audit.points(audit.domain()[: audit.reservoir])
    carrier = reservoir[rng.subset(len(reservoir), audit.m)]
    result = labelboost(restrict(audit.concept_class(), prefix), X, y, carrier, rng)
    return _multiset(carrier, result.carrier)


def _run_block(audit: BlockAudit, dataset: tuple[Any, ...], rng: Randomness) -> Hashable:
    C = audit.concept_class()
    oracle = CompletionScoreOracle(audit.oracle_epsilon)
    if audit.block == "oracle":
        X, y = audit.points(x for x, _ in dataset), np.array([v for _, v in dataset])
        return oracle.select(C, (), X, y, rng)
    if audit.block == "init":
        R0 = audit.points(x for x, _ in dataset)
        S0 = labelboost(C, R0, [v for _, v in dataset], R0[:0], rng).labeled
        y1 = oracle.select(C, (), R0, S0, rng)
        if C.k == 1:
            return (y1,)
        return (y1, _carrier_round(audit, (y1,), R0, S0, rng))
    X0, y0 = audit.incoming()
    y1 = oracle.select(C, (), X0, y0, rng)
    T1 = audit.points(dataset)
    S1 = labelboost(restrict(C, (y1,)), X0, y0, T1, rng).carrier
    y2 = oracle.select(C, (y1,), T1, S1, rng)
    if C.k == 2:
        return (y1, y2)
    return (y1, y2, _carrier_round(audit, (y1, y2), T1, S1, rng))


def audit_block(
    audit: BlockAudit, *, limit: int = DEFAULT_LEAF_LIMIT, workers: int = 2, progress: Progress | None = None
) -> ExactAuditResult:
    """The exact worst-case pure ε of the block over all neighbour pairs, against its claim."""
    if audit.block == "macro" and audit.concept_class().k < 2:
        raise ValueError("a macro-block needs k ≥ 2 components (thresholds have k = 1); use --block init")
    return worst_case(
        partial(_run_block, audit),
        audit.datasets(),
        audit.neighbours,
        audit.bound,
        leaves_per_run=audit.leaves_per_run(),
        limit=limit,
        workers=workers,
        progress=progress,
    )
