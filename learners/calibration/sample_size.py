"""Sample complexity of CarryForwardLearner from a utility target (α, β, ε, δ) — Theorem 5.1 and
Corollary 7.3 of seed 000, and the theorems that instantiate them (8.5 with 8.8/8.14, 8.19).

* :class:`UtilityTarget` — the parameters Algorithm 2 is run with, validated against the
  hypotheses of the theorem that runs it (α, β, δ ∈ (0, 1), ε ∈ (0, 1], δ ≤ β); τ = α/(40k),
  β_A = β/(4k), ε_A = 4, δ_A = δ/(16ek) (Algorithm 2 line 3; Theorem 7.2).
* :func:`labelboost_term` — (kv/α)·ln(320k²/(αβ)), the LabelBoost/generalisation term of
  Theorem 7.2, with the universal constant :data:`LABELBOOST_CONSTANT` (a substitute: the seed
  hides it inside O(·)).
* :func:`carry_forward_sample_complexity` — m = max(LabelBoost term, M_A) (Theorem 7.2) and the
  n Algorithm 2 line 2 needs for that m (the paper's chain, Lemma 6.12), beside the smallest n
  the tight certified accounting needs for the same m (:func:`dpledger.accountant.section6.tight_n`).
  When M_A depends on n (halfspaces: the perturbed grid of Corollary C.8 grows with n) the pair
  (m, n) is iterated to its fixed point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy

from dpledger.accountant.guarantee import Guarantee
from dpledger.accountant.numerics.certified import (
    certainly_le,
    certainly_lt,
    certified_floor,
    enclose,
    exact,
    upper_float,
)
from dpledger.accountant.rules import account
from dpledger.accountant.section6 import Target, carry_forward_event, needed_n, tight_n

LABELBOOST_CONSTANT = sympy.Integer(1)
"""SUBSTITUTE: the universal constant c of Theorem 3.10 / Corollary 3.13 in the LabelBoost term
(kv/α)·log(320k²/(αβ)) of Theorem 7.2 is not stated by the seed; c = 1 is used and named as a
substitute wherever the term is printed."""

MAX_FIXED_POINT_ROUNDS = 30


def ceiling(expr: sympy.Expr) -> int:
    """⌈expr⌉, certified."""
    return -certified_floor(-expr)


def open_unit(value: Any, name: str, statement: str) -> sympy.Expr:
    """``value`` as an exact number in (0, 1); otherwise ``ValueError`` naming the hypothesis."""
    number = exact(value, name)
    if not (number.is_positive and certainly_lt(number, 1)):
        raise ValueError(f"{name} must be in (0, 1) (hypothesis of {statement}), got {value}")
    return number


def count(value: Any, name: str, minimum: int = 1) -> int:
    """``value`` as an integer ≥ ``minimum`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return value


@dataclass(frozen=True)
class UtilityTarget:
    """The (α, β, ε, δ) Algorithm 2 is run with, for a class with k components and VC dimension v."""

    statement: str
    k: int
    vc: int
    alpha: sympy.Expr
    beta: sympy.Expr
    epsilon: sympy.Expr
    delta: sympy.Expr

    @staticmethod
    def of(statement: str, k: int, vc: int, alpha: Any, beta: Any, epsilon: Any, delta: Any) -> UtilityTarget:
        """Validate against the hypotheses shared by Theorems 5.1, 8.5, 8.8, 8.14 and 8.19:
        α, β, δ ∈ (0, 1), δ ≤ β and ε ∈ (0, 1] — the theorems write ε ∈ (0, 1), but their privacy
        proof, Lemma 6.12, holds for every ε ≤ 1 and their utility proof (Theorem 7.2) does not use ε."""
        values = [open_unit(v, name, statement) for v, name in ((alpha, "alpha"), (beta, "beta"))]
        eps = exact(epsilon, "epsilon")
        if not (eps.is_positive and certainly_le(eps, 1) is True):
            raise ValueError(
                f"epsilon must be in (0, 1] (hypothesis of {statement} through Lemma 6.12), got {epsilon}"
            )
        values += [eps, open_unit(delta, "delta", statement)]
        if certainly_le(values[3], values[1]) is not True:
            raise ValueError(
                f"delta must be ≤ beta (hypothesis of {statement}), got delta = {delta}, beta = {beta}"
            )
        return UtilityTarget(statement, count(k, "k"), count(vc, "vc"), *values)

    def scaled(self, factor: int) -> UtilityTarget:
        """The learner run at (α/f, β/f, ε, δ/f) (Theorem 8.5 runs it with f = 2)."""
        return UtilityTarget(
            self.statement,
            self.k,
            self.vc,
            self.alpha / factor,
            self.beta / factor,
            self.epsilon,
            self.delta / factor,
        )

    @property
    def tau(self) -> sympy.Expr:
        """τ = α/(40k) (Algorithm 2 line 3)."""
        return self.alpha / (40 * self.k)

    @property
    def beta_oracle(self) -> sympy.Expr:
        """β_A = β/(4k) (Algorithm 2 line 3)."""
        return self.beta / (4 * self.k)

    @property
    def delta_oracle(self) -> sympy.Expr:
        """δ_A = δ/(16ek) (Algorithm 2 line 3)."""
        return self.delta / (16 * sympy.E * self.k)

    def privacy(self, n: int) -> Target:
        """The privacy target of Lemma 6.12 for n records."""
        return Target.of(n, self.k, self.epsilon, self.delta)

    def to_dict(self) -> dict[str, Any]:
        value = lambda expr: upper_float(enclose(expr))  # noqa: E731
        return {
            "k": self.k,
            "vc": self.vc,
            "alpha": value(self.alpha),
            "beta": value(self.beta),
            "epsilon": value(self.epsilon),
            "delta": value(self.delta),
            "tau": value(self.tau),
            "beta_A": value(self.beta_oracle),
            "epsilon_A": 4,
            "delta_A": value(self.delta_oracle),
        }


def labelboost_term(run: UtilityTarget) -> int:
    """⌈c·(kv/α)·ln(320k²/(αβ))⌉ (Theorem 7.2; c = :data:`LABELBOOST_CONSTANT`, a substitute)."""
    k = run.k
    return ceiling(
        LABELBOOST_CONSTANT * k * run.vc / run.alpha * sympy.log(320 * k**2 / (run.alpha * run.beta))
    )


@dataclass(frozen=True)
class SampleComplexity:
    """Theorem 7.2's active sample size and the n it needs, paper against tight.

    ``n_paper``: Algorithm 2 line 2 (Lemma 6.12's chain) at the run's (ε, δ); ``paper``: the
    guarantee the accountant derives for the learner at n_paper with the paper's (advanced)
    composition. ``n_tight``: the smallest n whose optimally composed, exactly amplified guarantee
    ``tight`` meets the theorem's (ε, δ) with the same m and the same oracles."""

    run: UtilityTarget
    m_labelboost: int
    m_oracle: int
    m: int
    n_paper: int
    n_tight: int
    rounds: int
    claim: tuple[sympy.Expr, sympy.Expr]
    paper: Guarantee
    tight: Guarantee

    @property
    def saving(self) -> float:
        return self.n_paper / self.n_tight

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run.to_dict(),
            "labelboost_term": self.m_labelboost,
            "labelboost_constant": "SUBSTITUTE c = 1 (Theorem 3.10's universal constant is not stated)",
            "M_A": self.m_oracle,
            "m": self.m,
            "n_paper": self.n_paper,
            "n_tight": self.n_tight,
            "sample_saving": self.saving,
            "fixed_point_rounds": self.rounds,
            "claim": {
                "epsilon": upper_float(enclose(self.claim[0])),
                "delta": upper_float(enclose(self.claim[1])),
            },
            "guarantee_paper": self._verdict(self.paper),
            "guarantee_tight": self._verdict(self.tight),
        }

    def _verdict(self, guarantee: Guarantee) -> dict[str, Any]:
        return {
            "epsilon": guarantee.epsilon_upper,
            "delta": guarantee.delta_upper,
            "holds": guarantee.meets(*self.claim).holds,
        }


def carry_forward_sample_complexity(
    run: UtilityTarget, oracle_m: Callable[[int], int], privacy_delta: sympy.Expr | None = None
) -> SampleComplexity:
    """m = max(labelboost_term, M_A) (Theorem 7.2) and n = ⌈12e⁹m√(k log(2/δ))/ε⌉ (Algorithm 2
    line 2), iterated while M_A = ``oracle_m(n)`` grows with n; then the tight n for that m,
    meeting (ε, ``privacy_delta``) (default: the run's δ) with the run's oracles δ_A.

    The tight n reuses the paper's m: M_A is non-decreasing in n, so an m that suffices at the
    paper's n also suffices at the smaller tight n."""
    m_lb = labelboost_term(run)
    n, rounds = 3, 0
    while True:
        rounds += 1
        if rounds > MAX_FIXED_POINT_ROUNDS:
            raise ValueError(
                f"{run.statement}: the sample size did not reach a fixed point in "
                f"{MAX_FIXED_POINT_ROUNDS} rounds (M_A grows too fast with n)"
            )
        m_oracle = oracle_m(n)
        m = max(m_lb, m_oracle)
        next_n = needed_n(run.privacy(3), m)
        if next_n <= n:
            break
        n = next_n
    delta = run.delta if privacy_delta is None else privacy_delta
    target = Target.of(n, run.k, run.epsilon, delta)
    n_tight = tight_n(target, m, high_block=n // 3 + 1, delta_oracle=run.delta_oracle)
    paper = account(
        carry_forward_event(run.privacy(n), m, "advanced", delta_oracle=run.delta_oracle)
    ).guarantee
    tight = account(carry_forward_event(target, m, "optimal", n_tight, run.delta_oracle)).guarantee
    return SampleComplexity(run, m_lb, m_oracle, m, n, n_tight, rounds, (run.epsilon, delta), paper, tight)
