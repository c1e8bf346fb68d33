"""Section 6 of seed 000 as code: the parameters of Algorithm 2 and the privacy chain of
Lemma 6.12, plus the tight certified calibration of the same learner structure.

The event tree mirrors the proof: each block is a :class:`~dpledger.accountant.events.Claim` carrying
the statement and the bound the paper claims, so derived and claimed guarantees can be
compared node by node. Lives in ``accountant`` (not ``verify``) because the learner needs
the same parameters and tree to build its trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sympy

from dpledger.accountant import events as ev
from dpledger.accountant.calibration import largest_integer_from, smallest_integer_to_precision
from dpledger.accountant.numerics.certified import (
    certainly_le,
    certainly_lt,
    certified_floor,
    enclose,
    exact,
    upper_float,
)
from dpledger.accountant.rules import C_LB, Derivation, account

EPSILON_ORACLE = sympy.Integer(4)
"""ε_A = 4 (Algorithm 2, line 3)."""

Progress = Callable[[int, int], None]
"""``on_progress(done, total)``: called after each accounting of a search (``total`` an estimate
that may change as the search narrows); the library never prints, a caller may draw a bar."""

EPSILON_FLOOR = sympy.Rational(1, 10**30)
"""The smallest target ε the Section 6 accounting takes: the amplified blocks' ε is enclosed at
128 bits (refined to 2048), which cannot certify a bound much below 10⁻³⁸."""


@dataclass(frozen=True)
class Target:
    """A validated (n, k, ε, δ) within Lemma 6.12's hypotheses (ε ≤ 1, δ ∈ (0, 1))."""

    n: int
    k: int
    epsilon: sympy.Expr
    delta: sympy.Expr

    @staticmethod
    def of(n: int, k: int, epsilon: Any, delta: Any) -> Target:
        for name, value, minimum in (("n", n, 3), ("k", k, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
        eps = exact(epsilon, "epsilon")
        if not eps.is_positive:
            raise ValueError(f"epsilon must be > 0, got {eps}")
        if certainly_le(eps, 1) is not True:
            raise ValueError(f"epsilon must be ≤ 1 (hypothesis of Lemma 6.12), got {eps}")
        if certainly_lt(eps, EPSILON_FLOOR) is not False:
            raise ValueError(
                f"epsilon must be ≥ 1e-30: below it the certified accounting of the Section 6 tree "
                f"(128–2048-bit intervals) cannot separate ε from 0 in bounded time, got {sympy.Float(eps, 3)}"
            )
        dlt = exact(delta, "delta")
        if not (dlt.is_positive and certainly_lt(dlt, 1)):
            raise ValueError(f"delta must be in (0, 1), got {dlt}")
        return Target(n, k, eps, dlt)

    @property
    def block_size(self) -> int:
        """⌊n/3⌋, the size of W^init, W^(0), W^(1) (Algorithm 2, line 4)."""
        return self.n // 3

    @property
    def delta_oracle(self) -> sympy.Expr:
        """δ_A = δ/(16ek) (Algorithm 2, line 3)."""
        return self.delta / (16 * sympy.E * self.k)

    @property
    def root(self) -> sympy.Expr:
        """√(k log(2/δ))."""
        return sympy.sqrt(self.k * sympy.log(2 / self.delta))


def paper_m_expression(target: Target, n: int | None = None) -> sympy.Expr:
    """εn / (12e⁹√(k log(2/δ))) before the floor (Algorithm 2, line 2)."""
    return target.epsilon * (target.n if n is None else n) / (12 * sympy.exp(9) * target.root)


def paper_m(target: Target, n: int | None = None) -> int:
    """m = ⌊εn / (12e⁹√(k log(2/δ)))⌋ (Algorithm 2, line 2), computed exactly."""
    return certified_floor(paper_m_expression(target, n))


def reservoir_activations(k: int) -> tuple[int, int]:
    """How many carriers W^(0) and W^(1) supply: T_i ⊆ W^((i−1) mod 2) for i = 1..k−1
    (Algorithm 2, line 13); the larger is ℓ = ⌈(k−1)/2⌉ (Corollary 6.11)."""
    return (k // 2, (k - 1) // 2)


# --- the event tree of Section 6 ---------------------------------------------------------


def oracle_event(delta_oracle: sympy.Expr, epsilon_oracle: sympy.Expr = EPSILON_ORACLE) -> ev.Event:
    """A component oracle: (ε_A, δ_A)-DP on realizable prefix states (Assumption 4.4); by default
    Algorithm 2's ε_A = 4."""
    return ev.OnRealizableInputs(ev.ApproxDP(epsilon_oracle, delta_oracle))


@lru_cache(maxsize=256)
def continuation_event(target: Target, oracle: ev.Event, releases_carrier: bool) -> ev.Event:
    """K_u of Claim 6.3 (or K_∅ of Lemma 6.4): the oracle call, then the carrier-only
    LabelBoost release (Lemma 3.17) unless the round is the last one; claimed
    (ε_A + c_LB, δ_A) with the paper's ε_A = 4, δ_A = δ/(16ek)."""
    if not releases_carrier:
        return oracle
    inner = ev.Composition((oracle, ev.LabelBoostCarrier()), method="basic")
    return ev.Claim("Claim 6.3", inner, EPSILON_ORACLE + C_LB, target.delta_oracle)


@lru_cache(maxsize=256)
def block_event(statement: str, target: Target, oracle: ev.Event, releases_carrier: bool) -> ev.Event:
    """The macro-block MB (Lemma 6.2) or the initialization block (Lemma 6.4): LabelBoost on
    the carrier followed by the realizable-private continuation (Lemma 3.15),
    claimed (C, Δ) = (ε_A + 2c_LB, 4eδ_A)."""
    inner = ev.LabelBoostRealizable(continuation_event(target, oracle, releases_carrier))
    return ev.Claim(statement, inner, EPSILON_ORACLE + 2 * C_LB, 4 * sympy.E * target.delta_oracle)


@lru_cache(maxsize=1024)
def amplified_event(statement: str, block: ev.Event, m: int, block_size: int, target: Target) -> ev.Event:
    """The block run on a size-m subsample of a ⌊n/3⌋ reservoir (Corollaries 6.6, 6.8, 6.9),
    claimed within Lemma 6.12's bounds η ≤ ε/(4√(k log(2/δ))), ζ ≤ δ/(4k)."""
    sampled = ev.SubsampleWithoutReplacement(block, m, block_size)
    return ev.Claim(statement, sampled, target.epsilon / (4 * target.root), target.delta / (4 * target.k))


def learner_event(
    target: Target, m: int, oracles: Sequence[ev.Event], method: str = "advanced", n: int | None = None
) -> ev.Event:
    """The privacy event of CarryForwardLearner run with active sample size m on n records
    (default: the target's n), ``oracles[i]`` being the declared event of A_{i+1}: the three
    blocks in parallel (Lemma 6.12).

    Round i = 1..k−1 draws T_i from W^((i−1) mod 2); macro-block MB_i ends with A_{i+1} and,
    unless i = k−1, the carrier release of round i+1 (Definition 6.1). ``method="advanced"``
    is the paper's chain: each reservoir's activations composed by Theorem 3.5 with
    δ_ac = δ/2 (Corollary 6.11). ``method="optimal"`` composes them optimally at total δ."""
    k = target.k
    if len(oracles) != k:
        raise ValueError(f"one oracle event per component is needed: k = {k}, got {len(oracles)}")
    n = target.n if n is None else n
    block_size = n // 3
    if not 1 <= m <= block_size:
        raise ValueError(f"m must be in [1, ⌊n/3⌋ = {block_size}], got {m}")
    init = block_event("Lemma 6.4", target, oracles[0], releases_carrier=k > 1)
    blocks: list[ev.Event] = [amplified_event("Corollary 6.8", init, m, block_size, target)]
    activations: tuple[list[ev.Event], list[ev.Event]] = ([], [])
    for i in range(1, k):
        macro = block_event("Lemma 6.2", target, oracles[i], releases_carrier=i <= k - 2)
        activations[(i - 1) % 2].append(amplified_event("Corollary 6.9", macro, m, block_size, target))
    for reservoir in activations:
        if not reservoir:
            continue
        if method == "advanced":
            zeta = max((account(a).guarantee.delta for a in reservoir), key=lambda d: enclose(d).b)
            total_delta = len(reservoir) * zeta + target.delta / 2
        else:
            total_delta = target.delta
        distinct = tuple(dict.fromkeys(reservoir))
        children, repeat = (distinct, len(reservoir)) if len(distinct) == 1 else (tuple(reservoir), 1)
        composed = ev.Composition(children, method=method, target_delta=total_delta, repeat=repeat)
        blocks.append(ev.Claim("Corollary 6.11", composed, target.epsilon, target.delta))
    return ev.Claim("Lemma 6.12", ev.ParallelComposition(tuple(blocks)), target.epsilon, target.delta)


def carry_forward_event(
    target: Target,
    m: int,
    method: str = "advanced",
    n: int | None = None,
    delta_oracle: sympy.Expr | None = None,
    epsilon_oracle: sympy.Expr = EPSILON_ORACLE,
) -> ev.Event:
    """:func:`learner_event` with the paper's oracles: (ε_A, δ_A) = (4, δ/(16ek)) on
    realizable prefix states (Assumption 4.4, Algorithm 2 line 3), or δ_A = ``delta_oracle``
    when a theorem runs the learner with a smaller one (Theorem 8.5: δ/(32ek)), and ε_A =
    ``epsilon_oracle`` when a calibration chooses it (≤ 4 keeps every block's claim true)."""
    oracle = oracle_event(target.delta_oracle if delta_oracle is None else delta_oracle, epsilon_oracle)
    return learner_event(target, m, [oracle] * target.k, method, n)


# --- the chain of Lemma 6.12 -------------------------------------------------------------


@dataclass(frozen=True)
class ChainStep:
    """One inequality of the paper's chain, with its certified value and verdict."""

    statement: str
    quantity: str
    formula: str
    value: float
    claim: str
    holds: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "quantity": self.quantity,
            "formula": self.formula,
            "value": self.value,
            "claim": self.claim,
            "holds": self.holds,
        }


def _step(
    statement: str,
    quantity: str,
    formula: str,
    value: sympy.Expr,
    claim: str,
    bound: sympy.Expr,
    strict: bool = False,
) -> ChainStep:
    compare = certainly_lt if strict else certainly_le
    return ChainStep(
        statement, quantity, formula, upper_float(enclose(value)), claim, compare(value, bound) is True
    )


@dataclass(frozen=True)
class PaperChain:
    """The parameter choices of Algorithm 2 and every step of Lemma 6.12 for one target."""

    target: Target
    m: int
    q: sympy.Expr
    eta: sympy.Expr
    zeta: sympy.Expr
    ell: int
    epsilon_res: sympy.Expr
    delta_res: sympy.Expr
    steps: tuple[ChainStep, ...]
    derivation: Derivation

    @property
    def holds(self) -> bool:
        return all(step.holds for step in self.steps)


def paper_chain(target: Target) -> PaperChain:
    """Algorithm 2's parameters and Lemma 6.12's chain, each inequality certified."""
    t = target
    m = paper_m(t)
    if m < 1:
        raise ValueError(f"n = {t.n} is too small: Algorithm 2 gives m = 0; m ≥ 1 needs n ≥ {needed_n(t)}")
    C = EPSILON_ORACLE + 2 * C_LB
    q = sympy.Rational(m, t.block_size)
    eta = sympy.log(1 + q * (sympy.exp(C) - 1))
    zeta = q * 4 * sympy.E * t.delta_oracle
    ell = max(reservoir_activations(t.k))
    log2d = sympy.log(2 / t.delta)
    eps_res = sympy.sqrt(2 * ell * log2d) * eta + ell * eta * (sympy.exp(eta) - 1)
    delta_res = ell * zeta + t.delta / 2
    derivation = account(carry_forward_event(t, m, "advanced"))
    steps = (
        ChainStep(
            "Algorithm 2",
            "m",
            r"\lfloor \varepsilon n / (12 e^9 \sqrt{k\log(2/\delta)}) \rfloor",
            float(m),
            "m ≥ 1",
            m >= 1,
        ),
        _step("Lemma 6.2", "C", r"\varepsilon_A + 2c_{LB}", C, "C < 9", sympy.Integer(9), strict=True),
        _step("Corollary 6.6", "q", r"m / \lfloor n/3 \rfloor", q, "q ≤ 1", sympy.Integer(1)),
        _step(
            "Lemma 6.12",
            "eta",
            r"\log(1 + q(e^C - 1)) \le q(e^C-1)",
            eta,
            "η ≤ ε/(4√(k log(2/δ)))",
            t.epsilon / (4 * t.root),
        ),
        _step("Lemma 6.12", "eta", r"\log(1 + q(e^C - 1))", eta, "η ≤ 1", sympy.Integer(1)),
        _step(
            "Corollary 6.6",
            "zeta",
            r"q \cdot 4e\delta_A = q\delta/(4k)",
            zeta,
            "ζ ≤ δ/(4k)",
            t.delta / (4 * t.k),
        ),
        _step(
            "Corollary 6.11", "ell", r"\lceil (k-1)/2 \rceil", sympy.Integer(ell), "ℓ ≤ k", sympy.Integer(t.k)
        ),
        _step(
            "Lemma 6.12",
            "epsilon_res",
            r"\sqrt{2\ell\log(2/\delta)}\,\eta + \ell\eta(e^\eta - 1)",
            eps_res,
            "ε_res ≤ (√2/4)ε + 2ε²/(16 log(2/δ))",
            sympy.sqrt(2) / 4 * t.epsilon + 2 * t.epsilon**2 / (16 * log2d),
        ),
        _step(
            "Corollary 6.11",
            "epsilon_res",
            r"\sqrt{2\ell\log(2/\delta)}\,\eta + \ell\eta(e^\eta - 1)",
            eps_res,
            "ε_res ≤ ε",
            t.epsilon,
        ),
        _step(
            "Corollary 6.11",
            "delta_res",
            r"\ell\zeta + \delta/2",
            delta_res,
            "δ_res < δ",
            t.delta,
            strict=True,
        ),
        _step(
            "Corollary 6.8", "eta", r"\log(1 + q(e^C - 1))", eta, "η ≤ ε (initialization block)", t.epsilon
        ),
        _step("Corollary 6.8", "zeta", r"q\Delta", zeta, "ζ ≤ δ (initialization block)", t.delta),
        ChainStep(
            "Lemma 6.12",
            "learner",
            r"\max(\text{init}, \text{reservoir}_0, \text{reservoir}_1)",
            derivation.guarantee.epsilon_upper,
            "(ε, δ)-DP on arbitrary inputs",
            derivation.guarantee.meets(t.epsilon, t.delta).holds,
        ),
    )
    return PaperChain(t, m, q, eta, zeta, ell, eps_res, delta_res, steps, derivation)


def needed_n(target: Target, m: int = 1) -> int:
    """The smallest n for which Algorithm 2's formula gives at least m:
    ⌊εn/X⌋ ≥ m ⟺ n ≥ mX/ε with X = 12e⁹√(k log(2/δ)), so n = ⌈mX/ε⌉ (and at least 3)."""
    return max(3, -certified_floor(-m * 12 * sympy.exp(9) * target.root / target.epsilon))


# --- tight calibration -------------------------------------------------------------------


@dataclass(frozen=True)
class TightCalibration:
    """The largest m whose optimally composed, exactly amplified guarantee meets (ε, δ); and,
    for the paper's m, the n the paper's formula needs against the n the tight accounting needs."""

    m: int
    derivation: Derivation
    holds: bool
    n_tight_for_paper_m: int
    n_paper_for_paper_m: int

    @property
    def sample_saving(self) -> float:
        return self.n_paper_for_paper_m / self.n_tight_for_paper_m


class SearchProgress:
    """Counts the accountings of monotone searches and reports ``on_progress(done, total)``, the
    total estimated from the bracket the evaluations have narrowed so far: about log₂ of its width
    bisection steps remain (at most ``cap`` for a search to a relative precision of 2^-cap), plus
    ``later`` for the searches still to come."""

    def __init__(self, on_progress: Progress | None) -> None:
        self.on_progress = on_progress
        self.done = 0

    def tracked(
        self, ok: Callable[[int], bool], span: int, cap: int | None = None, later: int = 0
    ) -> Callable[[int], bool]:
        """``ok`` (monotone: one verdict on each side of a boundary, searched over a range of
        width ``span``), reporting after each call."""
        report = self.on_progress
        if report is None:
            return ok
        ends: dict[bool, list[int]] = {}  # the smallest and largest x seen with each verdict

        def evaluated(x: int) -> bool:
            verdict = ok(x)
            low, high = ends.get(verdict, (x, x))
            ends[verdict] = [min(low, x), max(high, x)]
            self.done += 1
            width = span
            if len(ends) == 2:  # the boundary lies between the nearest ends of the two verdicts
                width = min(abs(ends[True][1] - ends[False][0]), abs(ends[False][1] - ends[True][0]))
            remaining = max(width.bit_length() - 1, 0)
            report(self.done, self.done + (remaining if cap is None else min(cap, remaining)) + later)
            return verdict

        return evaluated

    def finish(self) -> None:
        """Close the bar: the work done is all there was."""
        if self.on_progress is not None:
            self.on_progress(self.done, self.done)


def _tight_holds(
    target: Target,
    m: int,
    block_size: int,
    delta_oracle: sympy.Expr | None = None,
    epsilon_oracle: sympy.Expr = EPSILON_ORACLE,
) -> bool:
    event = carry_forward_event(target, m, "optimal", 3 * block_size, delta_oracle, epsilon_oracle)
    return account(event).guarantee.meets(target.epsilon, target.delta).holds


def tight_m(target: Target, start: int, progress: SearchProgress | None = None, later: int = 0) -> int | None:
    """The largest m in [1, ⌊n/3⌋] meeting (ε, δ) under optimal composition with the paper's
    oracles, galloping up from ``start`` (a good guess); None when no m ≥ 1 does."""
    block = target.block_size

    def ok(value: int) -> bool:
        return _tight_holds(target, value, block)

    tracked = ok if progress is None else progress.tracked(ok, block, later=later)
    return largest_integer_from(tracked, max(start, 1), block)


def tight_calibration(
    target: Target, paper_m_value: int, on_progress: Progress | None = None
) -> TightCalibration:
    """Largest m in [1, ⌊n/3⌋] meeting (ε, δ) under optimal composition, and the smallest n
    that the tight accounting needs for the paper's m; ``on_progress`` follows both searches.

    The learner's guarantee depends on (m, ⌊n/3⌋) only through q = m/⌊n/3⌋ and worsens as q
    grows. So once m* is known for M = ⌊n/3⌋ — q* ∈ [m*/M, (m*+1)/M) — the smallest block
    size for the paper's m lies in (m·M/(m*+1), m·M/m*], a short interval to bisect."""
    t = target
    block = t.block_size
    progress = SearchProgress(on_progress)
    m = tight_m(t, paper_m_value, progress, later=min(61, (block // max(paper_m_value, 1)).bit_length()))
    if m is None:
        raise ValueError(
            f"no m ≥ 1 meets (ε, δ) = ({t.epsilon}, {t.delta}) with n = {t.n} even under tight accounting"
        )
    derivation = account(carry_forward_event(t, m, "optimal"))
    low = max(paper_m_value, paper_m_value * block // (m + 1))
    high = -(-paper_m_value * block // m)
    n_tight = tight_n(t, paper_m_value, low, high, progress=progress)
    progress.finish()
    return TightCalibration(
        m,
        derivation,
        derivation.guarantee.meets(t.epsilon, t.delta).holds,
        n_tight,
        needed_n(t, paper_m_value),
    )


def tight_n(
    target: Target,
    m: int,
    low_block: int | None = None,
    high_block: int | None = None,
    delta_oracle: sympy.Expr | None = None,
    epsilon_oracle: sympy.Expr = EPSILON_ORACLE,
    progress: SearchProgress | None = None,
) -> int:
    """The smallest n = 3M whose block size M lets active sample size m meet (ε, δ) under
    the tight accounting (bisection over M in [low_block, high_block], by default [m, the
    block size the paper's formula needs]); oracles (``epsilon_oracle``, ``delta_oracle``), by
    default the paper's (4, δ/(16ek)). Exact up to M = 2⁶⁰; beyond, certified to hold and within a relative 2⁻⁶⁰
    of the smallest (:func:`~dpledger.accountant.calibration.smallest_integer_to_precision`).
    ``progress`` counts the accountings (:class:`SearchProgress`)."""
    low = m if low_block is None else low_block
    high = needed_n(target, m) // 3 + 1 if high_block is None else high_block

    def ok(size: int) -> bool:
        return _tight_holds(target, m, size, delta_oracle, epsilon_oracle)

    tracked = ok if progress is None else progress.tracked(ok, high - low, cap=61)
    block = smallest_integer_to_precision(tracked, low, high)
    if block is None:
        raise ValueError(f"m = {m} does not meet the target with any block size up to {high}")
    return 3 * block
