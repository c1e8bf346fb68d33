"""Halfspace coordinate oracles (seed 000, Sections 8.1–8.3) for CarryForwardLearner.

All three oracles return an element of the finite domain Ỹ_i(y≤i−1) of Definition 8.2 on every
input (totality and validity of Assumption 4.4) and declare their event wrapped in
``OnRealizableInputs`` as the learner expects. With ``telemetry=True`` each keeps a per-call
``history_`` (:class:`OracleRound`): the depth Q_i^S(y_i) achieved against m = |S| and whether the
domain contains a coordinate of full depth (Lemma 8.3 / C.4, checked on every call) — exact,
noise-free statistics of the sample covered by no event, so off by default (``history_`` stays
empty) and never to be released with a model.

* :class:`ExponentialDepthOracle` — the baseline: the exponential mechanism over Ỹ_i with score
  Q_i^S (sensitivity one, Definition 8.1): ε_A-DP on every input; loses O(log N/ε_A) depth.
* :class:`QCOptOracle` — Section 8.2's A_i^QC with its total extension; QCOpt is RecConcave
  (:mod:`~dpledger.learners.halfspaces.recconcave`, (ε_A, δ_A)-DP on realizable prefix states,
  where Q_i^S is quasi-concave) with promise m = |S| (Lemma 8.3), or with
  ``optimizer="exponential"`` the exponential-mechanism baseline
  (:data:`~dpledger.learners.halfspaces.private_ip.QCOPT_SUBSTITUTE`, ε_A-DP).
* :class:`IPConcaveOracle` — Algorithm 3 (Nissim et al.): random partition into t blocks (line 2),
  a full-depth block maximizer per block (line 4, deterministic: the median domain element of
  the best slots), the private interior point of the maximizers (line 5) — the RecConcave
  interior point ((ε_A, δ_A)-DP on every input), or with ``interior_point="exponential"`` the
  exponential-mechanism baseline (:data:`~dpledger.learners.halfspaces.private_ip.PRIVATE_IP_SUBSTITUTE`,
  ε_A-DP). One record changes one block, hence one maximizer, and the interior-point score by
  ≤ 1: IPConcave has PrivateIP's guarantee (Theorem 8.10).
"""

from __future__ import annotations

import bisect
import itertools
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import Claim, Event, ExponentialMechanism, OnRealizableInputs
from dpledger.learners.component_oracles import ComponentOracle
from dpledger.learners.concept_classes import Components, ConceptClass
from dpledger.learners.halfspaces.depth import SlotScores, coordinate_objective, threshold_objective
from dpledger.learners.halfspaces.domains import RationalDomain, SignDomain, Slot, select
from dpledger.learners.halfspaces.private_ip import (
    PRIVATE_IP_SUBSTITUTE,
    QCOPT_SUBSTITUTE,
    domain_exponential_mechanism,
    domain_exponential_mechanism_release,
    exponential_interior_point,
    interior_point_sample_size,
)
from dpledger.learners.halfspaces.recconcave import (
    RECCONCAVE,
    RECCONCAVE_INTERIOR_POINT,
    RecConcavePlan,
    interior_point_points,
    recconcave_interior_point,
    recconcave_plan,
    recconcave_release,
)
from dpledger.learners.randomness import Randomness, as_fraction


@dataclass(frozen=True)
class OracleRound:
    """One oracle call: coordinate i, the value chosen, Q_i^S at it, m = |S|, the maximum of
    Q_i^S over the domain and whether it equals m (Lemma 8.3 / C.4 on a realizable state)."""

    round: int
    value: Fraction
    depth: int
    m: int
    domain_maximum: int
    full_depth_in_domain: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "value": str(self.value),
            "depth": self.depth,
            "m": self.m,
            "domain_maximum": self.domain_maximum,
            "full_depth_in_domain": self.full_depth_in_domain,
        }


def objective_slots(X: np.ndarray, y: np.ndarray, prefix: Components) -> SlotScores:
    """Q_i^S on slots of the line for coordinate i = len(prefix) + 1 (Definition 8.1); for i = 1
    the slots {−1} and {1} carry Q_1^S(−1) and Q_1^S(1); the empty slots around them score 0."""
    if prefix:
        return coordinate_objective(X, y, prefix)
    low, high = (threshold_objective(X, y, w) for w in SignDomain())
    return SlotScores([Fraction(-1), Fraction(1)], np.array([0, low, 0, high, 0], dtype=np.int64))


def domain_size(concept_class: ConceptClass, prefix: Components) -> int:
    """|Ỹ_i(y≤i−1)|, the number of elements of the next coordinate's domain (any size)."""
    values = concept_class.next_values(prefix)
    return values.size if isinstance(values, (SignDomain, RationalDomain)) else len(values)


def _domain_maximum(domain: Any, scores: SlotScores) -> int:
    """max of Q over the domain's elements (slots without elements are skipped)."""
    counts = domain.counts(scores.breakpoints)
    return max(int(s) for s, c in zip(scores.scores.tolist(), counts, strict=True) if c)


class _DepthOracle(ComponentOracle):
    """Shared part: ε_A, the call ``select`` = optimise over Ỹ_i then record, the event."""

    description = ""

    def __init__(self, epsilon: Any = 4, telemetry: bool = False) -> None:
        self.epsilon = epsilon
        self.telemetry = telemetry
        self.history_: list[OracleRound] = []

    def _epsilon(self) -> Fraction:
        value = as_fraction(self.epsilon, "epsilon")
        if value <= 0:
            raise ValueError(f"epsilon must be positive, got {self.epsilon}")
        return value

    def event(self, concept_class: ConceptClass, prefix: Components, sample_size: int) -> Event:
        """ε_A-DP (pure) on every input whatever its size, recorded as required on realizable inputs."""
        return OnRealizableInputs(ExponentialMechanism(self._epsilon(), domain_size(concept_class, prefix)))

    def select(
        self, concept_class: ConceptClass, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Fraction:
        domain = concept_class.next_values(prefix)
        value = self._optimize(domain, prefix, X, y, rng)
        if not self.telemetry:
            return value
        objective = objective_slots(X, y, prefix)  # telemetry: Q_i^S at the output and over Ỹ_i
        best = _domain_maximum(domain, objective)
        self.history_.append(
            OracleRound(len(prefix) + 1, value, objective(value), len(y), best, best == len(y))
        )
        return value

    @abstractmethod
    def _optimize(
        self, domain: Any, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Fraction:
        """The private choice of y_i ∈ Ỹ_i."""


class ExponentialDepthOracle(_DepthOracle):
    """The exponential mechanism over Ỹ_i(y≤i−1) with score Q_i^S (the baseline oracle)."""

    description = "exponential mechanism over the finite coordinate domain with score Q_i^S (baseline)"

    def _optimize(
        self, domain: Any, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Fraction:
        return domain_exponential_mechanism_release(
            domain, objective_slots(X, y, prefix), self._epsilon(), rng
        )[0]


Optimizer = Callable[[Any, SlotScores, Fraction, Randomness], Fraction]
"""A private optimizer over a domain: (domain, quality on slots, ε, rng) → an element."""

ORACLE_DELTA = Fraction(1, 10**9)
"""The default δ_A of the RecConcave oracles (Algorithm 2 line 3 asks δ_A = δ/(16ek): below it
for k ≤ 4 and the learner's default δ = 10⁻⁶)."""


class _RecConcaveParameters:
    """δ_A, the failure probability and the recursion depth of the RecConcave oracles, and the
    plan (:func:`~dpledger.learners.halfspaces.recconcave.recconcave_plan`) per domain size."""

    delta: Any
    beta: Any
    depth: int | None
    _epsilon: Callable[[], Fraction]

    def plan(self, domain_size: int) -> RecConcavePlan:
        """RecConcave's public constants on a domain of ``domain_size`` elements at (ε_A, δ_A, β)."""
        return recconcave_plan(domain_size, self._epsilon(), self.delta, self.beta, self.depth)


class QCOptOracle(_RecConcaveParameters, _DepthOracle):
    """A_i^QC of Section 8.2: QCOpt(S, Q_i^S, Ỹ_i) with the total extension (an output outside
    Ỹ_i, ⊥, or a failed construction signalled by ``ValueError``, becomes min Ỹ_i).

    ``optimizer``: ``"recconcave"`` — RecConcave with promise m = |S|, failure probability
    ``beta``, δ_A = ``delta`` and ``depth`` recursion levels (None: the depth with the smallest
    error bound, 0 — the exponential mechanism — below about 2^1000 elements); ``"exponential"`` —
    the exponential mechanism with quality Q_i^S (ε_A-DP, loss O(log N/ε_A)), the baseline; or a
    callable (domain, slots, ε_A, rng) → element, declared ε_A-DP."""

    def __init__(
        self,
        epsilon: Any = 4,
        optimizer: str | Optimizer = "recconcave",
        telemetry: bool = False,
        delta: Any = ORACLE_DELTA,
        beta: Any = Fraction(1, 20),
        depth: int | None = None,
    ) -> None:
        super().__init__(epsilon, telemetry)
        self.optimizer = optimizer
        self.delta = delta
        self.beta = beta
        self.depth = depth

    @property
    def description(self) -> str:  # type: ignore[override]
        chosen = {"recconcave": RECCONCAVE, "exponential": QCOPT_SUBSTITUTE}.get(
            self.optimizer if isinstance(self.optimizer, str) else "", "a given optimizer"
        )
        return f"QCOpt with the total extension (Section 8.2); optimizer = {chosen}"

    def event(self, concept_class: ConceptClass, prefix: Components, sample_size: int) -> Event:
        """RecConcave's composed mechanisms under Proposition 8.6's claim (ε_A, δ_A), or ε_A-DP."""
        if self.optimizer != "recconcave":
            return super().event(concept_class, prefix, sample_size)
        plan = self.plan(domain_size(concept_class, prefix))
        return OnRealizableInputs(plan.event("Proposition 8.6"))

    def _optimize(
        self, domain: Any, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Fraction:
        slots, epsilon = objective_slots(X, y, prefix), self._epsilon()  # bad input raises here
        try:
            if self.optimizer == "recconcave":
                value = recconcave_release(domain, slots, len(y), self.plan(domain.size), rng)[0]
            elif self.optimizer == "exponential":
                value = domain_exponential_mechanism(domain, slots, epsilon, rng)
            elif callable(self.optimizer):
                value = self.optimizer(domain, slots, epsilon, rng)
            else:
                raise TypeError(
                    f"optimizer must be 'recconcave', 'exponential' or a callable, got {self.optimizer!r}"
                )
        except ValueError:  # the optimizer's failed construction: the total extension
            return domain.minimum
        return value if value is not None and value in domain else domain.minimum


class IPConcaveOracle(_RecConcaveParameters, _DepthOracle):
    """IPConcave (Algorithm 3) with PrivateIP = ``interior_point``: ``"recconcave"`` — the
    RecConcave interior point at failure probability β_IP = ``beta``, δ_A = ``delta`` and
    ``depth`` (None: the smallest error bound) — or ``"exponential"``, the exponential-mechanism
    interior point (the baseline).

    ``blocks``: t, or None for the interior point's requirement at β_IP (Lemma 8.13: RecConcave's
    2⌊E⌋ + 1, the exponential one's ⌈4 ln(N/β_IP)/ε_A⌉), capped at |S|."""

    def __init__(
        self,
        epsilon: Any = 4,
        blocks: int | None = None,
        beta: float = 0.05,
        telemetry: bool = False,
        interior_point: str = "recconcave",
        delta: Any = ORACLE_DELTA,
        depth: int | None = None,
    ) -> None:
        super().__init__(epsilon, telemetry)
        self.blocks = blocks
        self.beta = beta
        self.interior_point = interior_point
        self.delta = delta
        self.depth = depth

    @property
    def description(self) -> str:  # type: ignore[override]
        chosen = RECCONCAVE_INTERIOR_POINT if self.interior_point == "recconcave" else PRIVATE_IP_SUBSTITUTE
        return f"IPConcave (Algorithm 3) with PrivateIP = {chosen}"

    def _recconcave(self) -> bool:
        if self.interior_point not in ("recconcave", "exponential"):
            raise ValueError(
                f"interior_point must be 'recconcave' or 'exponential', got {self.interior_point!r}"
            )
        return self.interior_point == "recconcave"

    def block_count(self, domain_size: int, m: int) -> int:
        """t (Algorithm 3 line 2): the user's, or enough for the interior point, at most m."""
        if self.blocks is not None:
            if isinstance(self.blocks, bool) or not isinstance(self.blocks, int) or self.blocks < 1:
                raise ValueError(f"blocks must be an integer ≥ 1, got {self.blocks!r}")
            return min(self.blocks, m)
        if self._recconcave():
            return min(interior_point_points(self.plan(domain_size)), m)
        return min(interior_point_sample_size(domain_size, self.beta, self._epsilon()), m)

    def event(self, concept_class: ConceptClass, prefix: Components, sample_size: int) -> Event:
        """The RecConcave interior point's mechanisms under Theorem 8.9's claim (ε_A, δ_A), as
        IPConcave's (Theorem 8.10), or ε_A-DP."""
        if not self._recconcave():
            return super().event(concept_class, prefix, sample_size)
        plan = self.plan(domain_size(concept_class, prefix))
        return OnRealizableInputs(Claim("Theorem 8.10", plan.event("Theorem 8.9"), plan.epsilon, plan.delta))

    def _optimize(
        self, domain: Any, prefix: Components, X: np.ndarray, y: np.ndarray, rng: Randomness
    ) -> Fraction:
        t = self.block_count(domain.size, len(y))
        order = rng.permutation(len(y))  # line 2: value-independent random partition
        maximizers = [
            block_maximizer(X[block], y[block], prefix, domain) for block in np.array_split(order, t)
        ]
        if not self._recconcave():
            return exponential_interior_point(maximizers, domain, self._epsilon(), rng)  # line 5
        value = recconcave_interior_point(maximizers, domain, self.plan(domain.size), rng)[0]  # line 5
        return domain.minimum if value is None else value


def block_maximizer(X: np.ndarray, y: np.ndarray, prefix: Components, domain: Any) -> Fraction:
    """argmax_{z ∈ Ỹ_i} Q_i^B(z) (Algorithm 3 line 4), a deterministic function of the block: the
    median maximizer — of the domain's elements in the slots of highest score, in increasing
    order and counted as the domain counts them (its representation pairs), the one of rank
    ⌊(M − 1)/2⌋ of M (w = −1 on ties). The line leaves the choice among maximizers open; on a
    realizable block they form an interval (Lemma 8.3) that contains the full sample's, wide when
    the block is small, and its median keeps the blocks' maximizers on both sides of the full
    sample's interval, where an end or the simplest element (0 whenever 0 is inside) would not.
    Levels are tried from the highest down, each counted by its runs of adjacent slots."""
    objective = objective_slots(X, y, prefix)
    scores = objective.scores.tolist()
    # the slots partition the line, so some level holds an element of the non-empty domain
    for level in sorted(set(scores), reverse=True):
        counted = [(piece, domain.count(piece)) for piece in _level_pieces(objective, level)]
        pieces = [(piece, count) for piece, count in counted if count]
        if pieces:
            break
    cumulative = list(itertools.accumulate(count for _, count in pieces))
    rank = (cumulative[-1] - 1) // 2
    k = bisect.bisect_right(cumulative, rank)  # the piece holding that rank
    return select(domain, pieces[k][0], rank - (cumulative[k - 1] if k else 0))


def _level_pieces(objective: SlotScores, level: int) -> list[Slot]:
    """{z : Q(z) = level} in increasing order as points and open intervals: each maximal run of
    adjacent slots of that score as its first point (if it starts at a breakpoint), the open
    interval between its ends, and its last point (if it ends at one)."""
    inside = [s == level for s in objective.scores.tolist()]
    pieces = []
    for first, last in _runs(inside):
        if first % 2:  # slot 2j + 1 is the breakpoint b_j, slot 2j the interval (b_{j−1}, b_j)
            pieces.append(objective.slot(first))
        if first != last or not first % 2:
            low = objective.breakpoints[first // 2] if first % 2 else objective.slot(first).low
            high = objective.breakpoints[last // 2] if last % 2 else objective.slot(last).high
            pieces.append(Slot(low, high))
        if last % 2 and last != first:
            pieces.append(objective.slot(last))
    return pieces


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """The maximal runs [first, last] of consecutive True entries."""
    runs: list[tuple[int, int]] = []
    for j, flag in enumerate(flags):
        if flag and runs and runs[-1][1] == j - 1:
            runs[-1] = (runs[-1][0], j)
        elif flag:
            runs.append((j, j))
    return runs
