"""RecConcave: private quasi-concave optimisation with additive error 2^{O(log* N)}, and the
interior point built on it — QCOpt (Proposition 8.6) and PrivateIP (Theorem 8.9) of seed 000.

**What is implemented.** The recursion of Beimel, Nissim and Stemmer, *Private learning and
sanitization: pure vs. approximate differential privacy* (APPROX-RANDOM 2013; Theory of Computing
2016), algorithm RecConcave: to maximise a sensitivity-one quasi-concave quality Q over an ordered
domain of size T with the promise max Q ≥ r, it recurses on the domain {0, …, ⌊log₂ T⌋} of
*interval lengths* 2^j, then returns a point of an interval of the length found. The steps below
are this module's (the paper's final step was not reachable here; the constants are derived
here, see "Utility"): per level

1. Q ← max(Q, 0) (still quasi-concave, sensitivity one). L(j) = max over windows W of 2^j
   consecutive positions of min_W Q (:meth:`StepQuality.window_profile`), L(J + 1) = 0.
2. Recurse on j ∈ {0, …, J} with quality q(j) = min(L(j) − a, r − L(j + 1)), a = r − (2r′ − 1),
   and promise r′ (the level's public constant): q is quasi-concave on *every* input (the
   minimum of a non-increasing and a non-decreasing function of j) with sensitivity one, and
   q(j*) ≥ r′ at the largest j* with L(j*) ≥ a + r′. The recursion returns k.
3. Blocks of K = 2^k positions, F(c) = max of Q on block c (−1 off the domain), θ = r − ⌈g₀/2⌉
   (g₀ = the recursion's guaranteed q(k)); score s(c) = min(F(c) − θ, θ − F(c − 3), θ − F(c + 3)).
   s has sensitivity one, and for quasi-concave Q at most 3 blocks score > 0 on any input: a
   positive c meets the interval {Q ≥ θ + 1}, spanning blocks [b, e], while c ± 3 miss {Q ≥ θ},
   so c ∈ [e − 2, b + 2] ∩ [b, e]. The choosing mechanism
   (:class:`~dpledger.accountant.events.ChoosingMechanism`; Beimel–Nissim–Stemmer's, with a
   reserve output ⊥ of score t) picks a positive block c.
4. The exponential mechanism picks one of the positions cK, (c + 1)K.

The base level (no further recursion) is the exponential mechanism over the level's domain.
A ⊥ anywhere makes the whole call fail (the oracles' total extension then returns min Ỹ_i).

**Privacy** (on inputs whose Q is quasi-concave — the realizable prefix states of Lemma 8.3 — and
for the interior-point quality on every input): with D recursion levels the call is the adaptive
composition of D choosing mechanisms, D two-candidate exponential mechanisms and one base
exponential mechanism; each gets ε_s = ε/(2D + 1). A choosing mechanism with δ_c = δ/D and
η = (ε_s − δ_c)/2 weighs e^{ηs} (event ε 2η) with reserve t = ⌈1 + ln(3/δ_c)/η⌉, so its
(2η + ln(1 + 3e^{−ηt}), 3e^{η(1−t)}) is at most (ε_s, δ_c); basic composition gives (ε, δ). The
call's event (:meth:`RecConcavePlan.event`) lists these mechanisms; the accountant derives the
composition and checks it against the statement's claim.

**Utility.** Each of the 2D + 1 steps fails with probability at most β_s = β/(2D + 1):

* base: Q(x) > max Q − E_b, E_b = 2 ln(T_base/β_s)/ε_s (exponential mechanism, T_base candidates);
* a level, given the recursion's error E′: r′ = ⌈E′⌉ + 2C, C = t + ⌈ln(1/β_s)/η⌉, so the
  recursion guarantees q(k) ≥ g₀ = r′ − ⌊E′⌋ ≥ 2C; then L(k) ≥ a + g₀ (an interval of K positions
  with Q ≥ θ₁ = a + g₀) and L(k + 1) ≤ r − g₀ ({Q ≥ r − g₀ + 1} is shorter than 2K), so the block
  of the maximum scores ≥ ⌊g₀/2⌋ ≥ C and ⊥ has probability ≤ e^{η(t − C)} ≤ β_s; a positive block
  holds a point with Q ≥ θ + 1 ≥ θ₁, and the interval {Q ≥ θ₁} of ≥ K positions through it holds
  cK or (c + 1)K; the last exponential mechanism loses less than E₂ = 2 ln(2/β_s)/ε_s. The level's
  error is E = 2r′ − 1 − g₀ + E₂ = r′ − 1 + ⌊E′⌋ + E₂ ≈ 2E′ + 2C + E₂.

So E ≈ 2^D·(E_b + 2C + E₂) with D ≤ log* T: E = O(2^{log* T}·log* T·log(log* T/(βδ))/ε) — the
2^{log* N} form of Proposition 8.6 with poly(log* N) factors. :func:`recconcave_plan` chooses D
(unless given) to make E smallest; D = 0 is the exponential mechanism itself, which it is for
every domain of fewer than about 2^1000 elements (`dpledger calibrate 8.8` shows where).

**Interior point** (:func:`recconcave_interior_point`): RecConcave with q(x) = min(#{z_j ≤ x},
#{z_j ≥ x}) (quasi-concave on every input) and promise ⌈t/2⌉; an output with q ≥ 1 is an
interior point, so t = 2⌊E⌋ + 1 points suffice (:func:`interior_point_points`).

**Departures from Cohen et al. (STOC 2023), whose algorithms the seed cites.** Their
Reorder-Slice-Compute optimiser and interior point were not reachable in full text here, so
this is the older recursion they improve on: the interior point needs 2^{O(log* N)} points, not
Õ(log* N), and the privacy of the levels composes (basic composition over 2D + 1 steps) instead
of being paid once by slicing the data.

Certification: the plan's error bounds are computed with outward-rounded interval arithmetic
(upper ends; thresholds are ceilings of them), so a stated E is never below the analysis; the
privacy parameters are exact rationals and the events carry them exactly.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import sympy

from dpledger.accountant.events import (
    ChoosingMechanism,
    Claim,
    Composition,
    Event,
    ExponentialMechanism,
)
from dpledger.accountant.numerics.certified import certainly_le, enclose, upper_float
from dpledger.learners.exponential_mechanism import (
    choosing_mechanism_release,
    exponential_mechanism_ordered_release,
    exponential_mechanism_release,
)
from dpledger.learners.halfspaces.depth import SlotScores
from dpledger.learners.halfspaces.domains import RationalDomain, SignDomain
from dpledger.learners.halfspaces.private_ip import (
    domain_exponential_mechanism_release,
    interior_point_scores,
)
from dpledger.learners.randomness import Randomness, as_fraction

RECCONCAVE = "RecConcave (Beimel–Nissim–Stemmer 2013), recursion on interval lengths"
"""How the quasi-concave optimiser is named in docs and CLI output."""

RECCONCAVE_INTERIOR_POINT = "the RecConcave interior point (Beimel–Nissim–Stemmer 2013)"
"""How the interior point built on RecConcave is named in docs and CLI output."""

POSITIVES = 3
"""The most blocks of positive score in step 3 on a quasi-concave input (module docstring)."""

MAX_DEPTH = 8
"""More recursion levels than any domain needs (log* of 2^65536 is 5)."""


@dataclass(frozen=True)
class StepQuality:
    """A quality on the positions 0, …, size − 1 of an ordered domain, constant on consecutive
    pieces: piece i has ``lengths[i]`` ≥ 1 positions (Python ints, any size) and score ``scores[i]``."""

    lengths: tuple[int, ...]
    scores: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.lengths or len(self.lengths) != len(self.scores):
            raise ValueError("lengths and scores must be non-empty and of one length")
        if any(length < 1 for length in self.lengths):
            raise ValueError("lengths must be at least 1")

    @classmethod
    def of_values(cls, values: Sequence[int]) -> StepQuality:
        """The quality with one position per value (equal neighbours merged into one piece)."""
        groups = [(value, len(list(run))) for value, run in itertools.groupby(int(v) for v in values)]
        return cls(tuple(n for _, n in groups), tuple(v for v, _ in groups))

    @cached_property
    def starts(self) -> list[int]:
        """The first position of each piece, then the size."""
        return [0, *itertools.accumulate(self.lengths)]

    @property
    def size(self) -> int:
        return self.starts[-1]

    def piece(self, position: int) -> int:
        """The piece holding ``position``."""
        return bisect.bisect_right(self.starts, position) - 1

    def at(self, position: int) -> int:
        """The quality at ``position``."""
        return self.scores[self.piece(position)]

    def clamped(self) -> StepQuality:
        """max(Q, 0), equal neighbours merged."""
        values = [max(s, 0) for s in self.scores]
        merged: list[tuple[int, int]] = []
        for length, value in zip(self.lengths, values, strict=True):
            if merged and merged[-1][1] == value:
                merged[-1] = (merged[-1][0] + length, value)
            else:
                merged.append((length, value))
        return StepQuality(tuple(n for n, _ in merged), tuple(v for _, v in merged))

    def window_profile(self) -> list[int]:
        """L(j) = max over 2^j consecutive positions of their minimum quality, j = 0, …,
        ⌊log₂ size⌋: the pieces are switched on by decreasing score, runs of switched-on pieces
        merged (union–find); after each score v the longest run R(v) gives L(j) = v for every j
        with 2^j ≤ R(v) not yet assigned."""
        count = len(self.lengths)
        parent, length = list(range(count)), list(self.lengths)
        active = [False] * count

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        order = sorted(range(count), key=lambda i: -self.scores[i])
        top = self.size.bit_length() - 1
        profile: list[int] = []
        longest = 0
        for value, group in itertools.groupby(order, key=lambda i: self.scores[i]):
            for i in group:
                active[i] = True
                for j in (i - 1, i + 1):
                    if 0 <= j < count and active[j]:
                        a, b = root(i), root(j)
                        if a != b:
                            parent[b] = a
                            length[a] += length[b]
                longest = max(longest, length[root(i)])
            while len(profile) <= top and 1 << len(profile) <= longest:
                profile.append(value)
        return profile

    @cached_property
    def _table(self) -> list[np.ndarray]:
        """Sparse table of the scores' range maxima over power-of-two spans of pieces."""
        levels = [np.asarray(self.scores, dtype=np.int64)]
        while 2 ** len(levels) <= len(self.scores):
            previous, half = levels[-1], 1 << (len(levels) - 1)
            levels.append(np.maximum(previous[:-half], previous[half:]))
        return levels

    def range_maximum(self, first: int, last: int) -> int:
        """max of the scores of pieces first..last (inclusive)."""
        level = (last - first + 1).bit_length() - 1
        row = self._table[level]
        return int(max(row[first], row[last - (1 << level) + 1]))

    def block_maximum(self, block: int, width: int) -> int:
        """F(c): the largest quality on positions [c·width, (c + 1)·width), −1 off the domain."""
        first = block * width
        if block < 0 or first >= self.size:
            return -1
        return self.range_maximum(self.piece(first), self.piece(min(first + width, self.size) - 1))


# -- the plan: every public constant of one call -------------------------------------------


def _up(expression: sympy.Expr) -> float:
    """A float ≥ ``expression`` (outward-rounded interval arithmetic)."""
    return upper_float(enclose(expression))


@dataclass(frozen=True)
class Level:
    """One recursion level of a plan: the level's domain (size, J = ⌊log₂ size⌋), the promise r′
    of the recursion below and its guaranteed quality g₀, the choosing mechanism's ε (= 2η) and
    reserve t, its margin C, the last exponential mechanism's ε and the level's error bound E."""

    size: int | None
    top: int
    inner_promise: int
    guaranteed: int
    choosing_epsilon: Fraction
    threshold: int
    margin: int
    final_epsilon: Fraction
    error: float


@dataclass(frozen=True)
class RecConcavePlan:
    """The public constants of one RecConcave call (module docstring): total (ε, δ), failure
    probability β, the recursion levels from the top, the base level's size and ε, and the error
    bound E of the top level: the output has Q ≥ r − E with probability ≥ 1 − β when max Q ≥ r.
    ``size`` is None for a plan computed from a bound on ln N only (calibration)."""

    size: int | None
    epsilon: Fraction
    delta: Fraction
    beta: Fraction
    levels: tuple[Level, ...]
    base_size: int | None
    base_epsilon: Fraction
    error: float

    @property
    def depth(self) -> int:
        return len(self.levels)

    def mechanisms(self) -> tuple[Event, ...]:
        """The mechanisms a call composes: per level a choosing mechanism and a two-candidate
        exponential mechanism, then the base exponential mechanism."""
        if self.base_size is None:
            raise ValueError("a plan computed from a bound on ln N has no events")
        steps: list[Event] = []
        for level in self.levels:
            steps.append(ChoosingMechanism(level.choosing_epsilon, level.threshold, POSITIVES))
            steps.append(ExponentialMechanism(level.final_epsilon, 2))
        steps.append(ExponentialMechanism(self.base_epsilon, self.base_size))
        return tuple(steps)

    def event(self, statement: str) -> Event:
        """The call's event: the basic composition of :meth:`mechanisms` under the claim of
        ``statement`` (ε, δ); with no recursion the base exponential mechanism alone."""
        steps = self.mechanisms()
        child = steps[0] if len(steps) == 1 else Composition(steps, method="basic")
        return Claim(statement, child, self.epsilon, self.delta)

    def describe(self) -> str:
        """One line: the depth and the error bound."""
        if not self.levels:
            return (
                f"RecConcave depth 0 (the exponential mechanism's bound is the smaller): E ≤ {self.error:.6g}"
            )
        return f"RecConcave depth {self.depth} (base of {self.base_size} elements): E ≤ {self.error:.6g}"


def _chain(top: int, ln_size: sympy.Expr, size: int | None) -> list[tuple[int, int | None, sympy.Expr]]:
    """(J, size or None, ln size) of the top level and of every level below it
    (size_{ℓ+1} = J_ℓ + 1) while recursion shrinks the domain (J ≥ 2)."""
    chain: list[tuple[int, int | None, sympy.Expr]] = [(top, size, ln_size)]
    while chain[-1][0] >= 2 and len(chain) <= MAX_DEPTH:
        inner = chain[-1][0] + 1
        chain.append((inner.bit_length() - 1, inner, sympy.log(inner)))
    return chain


def _add_up(x: float, y: float) -> float:
    """A float ≥ x + y."""
    return math.nextafter(x + y, math.inf)


def _plan_at_depth(
    chain: list[tuple[int, int | None, sympy.Expr]],
    depth: int,
    epsilon: Fraction,
    delta: Fraction,
    beta: Fraction,
) -> RecConcavePlan | None:
    """The plan with ``depth`` levels, or None when δ leaves the choosing mechanisms no ε."""
    steps = 2 * depth + 1
    eps_s, beta_s = epsilon / steps, beta / steps
    _, base_size, base_ln = chain[depth]
    error = _up(2 * (base_ln - sympy.log(_q(beta_s))) / _q(eps_s))
    levels: list[Level] = []
    for top, level_size, _ in reversed(chain[:depth]):
        delta_c = delta / depth
        eta = (eps_s - delta_c) / 2
        if eta <= 0:
            return None
        t = math.ceil(1 + _up(sympy.log(POSITIVES / _q(delta_c)) / _q(eta)))
        while certainly_le(POSITIVES * sympy.exp(_q(eta) * (1 - t)), _q(delta_c)) is not True:
            t += 1
        margin = t + math.ceil(_up(sympy.log(1 / _q(beta_s)) / _q(eta)))
        inner_promise = math.ceil(error) + 2 * margin
        guaranteed = inner_promise - math.floor(error)
        final = _up(2 * sympy.log(2 / _q(beta_s)) / _q(eps_s))
        error = _add_up(inner_promise - 1 + math.floor(error), final)
        levels.append(Level(level_size, top, inner_promise, guaranteed, 2 * eta, t, margin, eps_s, error))
    size = chain[0][1]
    return RecConcavePlan(size, epsilon, delta, beta, tuple(reversed(levels)), base_size, eps_s, error)


def _q(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def _parameters(epsilon: Any, delta: Any, beta: Any) -> tuple[Fraction, Fraction, Fraction]:
    eps, dlt, bet = (as_fraction(v, n) for v, n in ((epsilon, "epsilon"), (delta, "delta"), (beta, "beta")))
    if eps <= 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    if not 0 <= dlt < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}")
    if not 0 < bet < 1:
        raise ValueError(f"beta must be in (0, 1), got {beta}")
    return eps, dlt, bet


def recconcave_plan(
    size: int, epsilon: Any, delta: Any, beta: Any, depth: int | None = None
) -> RecConcavePlan:
    """The public constants of RecConcave on a domain of ``size`` elements (module docstring).

    Args:
        size: N, the domain size (≥ 1).
        epsilon: The total ε.
        delta: The total δ (0 allows no recursion).
        beta: The failure probability.
        depth: The number of recursion levels; None: the one with the smallest error bound.

    Returns:
        The :class:`RecConcavePlan`.

    Raises:
        ValueError: bad parameters, or a depth the domain or δ does not allow.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an integer ≥ 1, got {size!r}")
    return _best_plan(size.bit_length() - 1, sympy.log(size), size, epsilon, delta, beta, depth)


def recconcave_error_bound(
    ln_size: sympy.Expr, epsilon: Any, delta: Any, beta: Any, depth: int | None = None
) -> RecConcavePlan:
    """The plan for a domain known by an upper bound on ln N only (calibration): J ≤ ⌊ln N/ln 2⌋
    and E are computed at that bound (E does not decrease with N), and the plan has no events."""
    top = math.floor(_up(ln_size / sympy.log(2)))
    return _best_plan(max(top, 0), ln_size, None, epsilon, delta, beta, depth)


def _best_plan(
    top: int, ln_size: sympy.Expr, size: int | None, epsilon: Any, delta: Any, beta: Any, depth: int | None
) -> RecConcavePlan:
    eps, dlt, bet = _parameters(epsilon, delta, beta)
    chain = _chain(top, ln_size, size)
    deepest = len(chain) - 1 if dlt > 0 else 0
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= deepest:
            raise ValueError(
                f"depth must be an integer in [0, {deepest}] for this domain and δ, got {depth!r}"
            )
        plan = _plan_at_depth(chain, depth, eps, dlt, bet)
        if plan is None:
            raise ValueError(f"depth: δ = {dlt} leaves the choosing mechanisms no ε at depth {depth}")
        return plan
    plans = [p for d in range(deepest + 1) if (p := _plan_at_depth(chain, d, eps, dlt, bet)) is not None]
    return min(plans, key=lambda p: (p.error, p.depth))


# -- the algorithm ---------------------------------------------------------------------------


def recconcave(
    quality: StepQuality, promise: int, plan: RecConcavePlan, rng: Randomness, level: int = 0
) -> tuple[int | None, list[Event]]:
    """RecConcave on the positions of ``quality`` from recursion level ``level`` of ``plan``
    (module docstring): a position, or None (⊥), and the events of the mechanisms drawn.

    Raises:
        ValueError: more than :data:`POSITIVES` blocks of positive score (Q not quasi-concave).
    """
    Q = quality.clamped()
    if level == plan.depth:
        point, event = exponential_mechanism_ordered_release(Q.starts, Q.scores, plan.base_epsilon, 1, rng)
        return point, [event]
    step = plan.levels[level]
    k, events = recconcave(
        recursion_quality(Q, promise, step.inner_promise), step.inner_promise, plan, rng, level + 1
    )
    if k is None:
        return None, events
    position, drawn = interval_point(Q, promise, step, k, rng)
    return position, events + drawn


def recursion_quality(Q: StepQuality, promise: int, inner_promise: int) -> StepQuality:
    """Step 2's q(j) = min(L(j) − a, r − L(j + 1)) on j ∈ {0, …, ⌊log₂ size⌋}, a = r − (2r′ − 1),
    L(J + 1) = 0 (module docstring)."""
    low = promise - (2 * inner_promise - 1)
    profile = [*Q.window_profile(), 0]
    return StepQuality.of_values(
        [min(profile[j] - low, promise - profile[j + 1]) for j in range(len(profile) - 1)]
    )


def interval_point(
    Q: StepQuality, promise: int, step: Level, k: int, rng: Randomness
) -> tuple[int | None, list[Event]]:
    """Steps 3–4 of a level (module docstring), given the recursion's k: the choosing mechanism
    over the blocks of 2^k positions, then the exponential mechanism over the chosen block's two
    ends; a position or None (⊥), and the events drawn.

    Raises:
        ValueError: more than :data:`POSITIVES` blocks of positive score (Q not quasi-concave).
    """
    width = 1 << k
    theta = promise - (step.guaranteed + 1) // 2
    blocks = _positive_blocks(Q, width, theta)
    chosen, event = choosing_mechanism_release(
        [s for _, s in blocks],
        step.threshold,
        step.choosing_epsilon,
        POSITIVES,
        rng,
        tuple(c for c, _ in blocks),
    )
    if chosen is None:
        return None, [event]
    block = blocks[chosen][0]
    points = [p for p in (block * width, (block + 1) * width) if p < Q.size]
    index, final = exponential_mechanism_release([Q.at(p) for p in points], step.final_epsilon, 1, rng)
    return points[index], [event, final]


def _positive_blocks(Q: StepQuality, width: int, theta: int) -> list[tuple[int, int]]:
    """Every block c with s(c) = min(F(c) − θ, θ − F(c − 3), θ − F(c + 3)) ≥ 1 and its score: a
    positive block meets a maximal run of pieces with Q ≥ θ + 1, spanning blocks [b, e], and
    c ∈ [e − 2, b + 2] ∩ [b, e] (c ± 3 must miss the run), so only those blocks are scored."""
    candidates: set[int] = set()
    high = [q > theta for q in Q.scores]
    for is_high, group in itertools.groupby(range(len(Q.scores)), key=lambda i: high[i]):
        if not is_high:
            continue
        run = list(group)
        first, last = Q.starts[run[0]] // width, (Q.starts[run[-1] + 1] - 1) // width
        candidates.update(range(max(first, last - 2), min(last, first + 2) + 1))
    scored = [(c, block_score(Q, width, theta, c)) for c in sorted(candidates)]
    return [(c, score) for c, score in scored if score >= 1]


def block_score(Q: StepQuality, width: int, theta: int, block: int) -> int:
    """Step 3's s(c) = min(F(c) − θ, θ − F(c − 3), θ − F(c + 3)) for blocks of ``width`` positions."""
    return min(
        Q.block_maximum(block, width) - theta,
        theta - Q.block_maximum(block - 3, width),
        theta - Q.block_maximum(block + 3, width),
    )


def slot_quality(domain: SignDomain | RationalDomain, scores: SlotScores) -> StepQuality:
    """The quality on the domain's positions in value order: one piece per slot holding elements."""
    counts = domain.counts(scores.breakpoints)
    pieces = [(c, int(s)) for c, s in zip(counts, scores.scores.tolist(), strict=True) if c]
    return StepQuality(tuple(c for c, _ in pieces), tuple(s for _, s in pieces))


def recconcave_release(
    domain: SignDomain | RationalDomain,
    scores: SlotScores,
    promise: int,
    plan: RecConcavePlan,
    rng: Randomness,
) -> tuple[Fraction | None, list[Event]]:
    """RecConcave over a finite coordinate domain (never listed) for a quality constant on the
    slots of ``scores``: the element at the chosen position (``domain.value_at``), or None when a
    step output ⊥, and the events drawn. With no recursion this is
    :func:`~dpledger.learners.halfspaces.private_ip.domain_exponential_mechanism_release`.

    Raises:
        ValueError: the plan is for another domain size, or Q is not quasi-concave on the slots.
    """
    if plan.size != domain.size:
        raise ValueError(f"plan: made for a domain of {plan.size} elements, the domain has {domain.size}")
    if plan.depth == 0:
        value, event = domain_exponential_mechanism_release(domain, scores, plan.base_epsilon, rng)
        return value, [event]
    position, events = recconcave(slot_quality(domain, scores), promise, plan, rng)
    return (None if position is None else domain.value_at(position)), events


def recconcave_interior_point(
    values: Sequence[Fraction], domain: SignDomain | RationalDomain, plan: RecConcavePlan, rng: Randomness
) -> tuple[Fraction | None, list[Event]]:
    """PrivateIP by RecConcave: q(x) = min(#{z_j ≤ x}, #{z_j ≥ x}) with promise ⌈t/2⌉ (module
    docstring); an element of ``domain`` (an interior point of ``values`` when q ≥ 1), or None."""
    if not len(values):
        raise ValueError("values: PrivateIP needs at least one point")
    return recconcave_release(domain, interior_point_scores(values), (len(values) + 1) // 2, plan, rng)


def interior_point_points(plan: RecConcavePlan) -> int:
    """t = 2⌊E⌋ + 1: with ⌈t/2⌉ = ⌊E⌋ + 1 > E the output has q ≥ 1 (an interior point) with
    probability ≥ 1 − β."""
    return 2 * math.floor(plan.error) + 1
