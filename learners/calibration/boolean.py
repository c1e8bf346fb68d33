"""Sample requirements of Section 8.4, computed from their formulas (certified arithmetic).

* :func:`exponential_learner_m` — m_i(α, β, ε_B) of the proper exponential learner B_i
  (:func:`dpledger.learners.boolean.local_learners.exponential_learner`).
* :func:`relabel_m` — the size |S| at which ARelabel's exponential mechanism over Π_{H_i}(P) is
  within τ/2 of the best completion score except with probability β_A/2 (Claim 26 of Alon et al.,
  through Proposition 3.12 and Sauer–Shelah).
* :func:`oracle_m` — M_{A,i}(τ, β_A) = max{relabel_m, 9·m_i(τ/2, β_A/2, ε_B)} (Corollary 8.17,
  Appendix B: the 9 is Lemma 8.15's).
* :func:`theorem_8_19` — the learner's sample size for (α, β, ε, δ, k) with Theorem 8.19's
  parameter choices, and :func:`separate_samples_baseline` — the per-component baseline.
* :func:`oracle_epsilon` — the ε_A the accountant derives for the Proposition 8.16 oracles on the
  learner's m records: Lemma 3.11's +3 over B̂_i, whose ε is Lemma 8.15's with-replacement rule
  log(1 + (e^{ε_B} − 1)/m)^{draws} (exact for the pure B_i; at most (e^{ε_B} − 1)/9 once
  m ≥ 9m_B), far below the ε_B Corollary 8.17 keeps. :func:`theorem_8_19` reports the tight n
  with it beside the tight n at the paper's ε_A = 4.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from dpledger.accountant import events as ev
from dpledger.accountant.calibration import smallest_integer
from dpledger.accountant.numerics.certified import certainly_le, exact
from dpledger.accountant.rules import account
from dpledger.accountant.section6 import Target, tight_n
from dpledger.learners.boolean.composition import sauer_bound
from dpledger.learners.calibration.sample_size import (
    SampleComplexity,
    UtilityTarget,
    carry_forward_sample_complexity,
    ceiling,
    open_unit,
)

EPSILON_B = sympy.Integer(1)
"""ε_B = 1 (proof of Theorem 8.19), so ε_A = ε_B + 3 = 4 = Algorithm 2's ε_A."""


def _unit(value: Any, name: str) -> sympy.Expr:
    return open_unit(value, name, "Proposition 8.16")


def exponential_learner_m(hypotheses: int, alpha: Any, beta: Any, epsilon_b: Any = EPSILON_B) -> int:
    """m_i(α, β, ε_B) = ⌈max(4/ε_B, 8)·ln(2|H|/β)/α⌉ for the exponential learner over |H| hypotheses.

    Realizable case: (a) Proposition 3.12 with min err_S = 0 and λ = α/2 gives
    Pr[err_S(h) > α/2] ≤ |H|e^{−ε_B α m/4} ≤ β/2 once m ≥ 4 ln(2|H|/β)/(ε_B α); (b) a fixed h with
    err_D(h) > α has err_S(h) ≤ α/2 with probability ≤ e^{−αm/8} (multiplicative Chernoff), so a
    union bound over H is ≤ β/2 once m ≥ 8 ln(2|H|/β)/α. Both together: (α, β)-accurate."""
    a, b, e = _unit(alpha, "alpha"), _unit(beta, "beta"), exact(epsilon_b, "epsilon_b")
    if isinstance(hypotheses, bool) or not isinstance(hypotheses, int) or hypotheses < 1:
        raise ValueError(f"hypotheses must be an integer ≥ 1, got {hypotheses!r}")
    if not e.is_positive:
        raise ValueError(f"epsilon_b must be > 0, got {epsilon_b!r}")
    return ceiling(sympy.Max(4 / e, 8) * sympy.log(2 * sympy.Integer(hypotheses) / b) / a)


def relabel_m(vc_dimension: int, hypotheses: int, tau: Any, beta_a: Any) -> int:
    """The smallest |S| with min(Φ_d(|S|), |H|)·exp(−τ|S|/4) ≤ β_A/2: ARelabel's exponential
    mechanism (ε = 1, score −q_i of sensitivity 1) over at most min(Φ_d(|S|), |H|) representatives
    then picks h with q_i(S, h) ≤ min_h q_i + (τ/2)|S| except with probability β_A/2
    (Proposition 3.12 with λ = τ/2; Claim 26 of Alon et al. as used in Appendix B)."""
    t, b = _unit(tau, "tau"), _unit(beta_a, "beta_a")

    def ok(size: int) -> bool:
        candidates = sympy.Integer(min(sauer_bound(vc_dimension, size), hypotheses))
        return bool(certainly_le(sympy.log(candidates) - t * size / 4, sympy.log(b / 2)))

    high = 1
    while not ok(high):
        high *= 2
    size = smallest_integer(ok, max(1, high // 2), high)
    assert size is not None  # ok(high) holds
    return size


def oracle_m(vc_dimension: int, hypotheses: int, tau: Any, beta_a: Any, epsilon_b: Any = EPSILON_B) -> int:
    """M_{A,i}(τ, β_A) = max{relabel_m(d_i, τ, β_A), 9·m_i(τ/2, β_A/2, ε_B)} (Corollary 8.17; Appendix B)."""
    t, b = _unit(tau, "tau"), _unit(beta_a, "beta_a")
    return max(
        relabel_m(vc_dimension, hypotheses, t, b),
        9 * exponential_learner_m(hypotheses, t / 2, b / 2, epsilon_b),
    )


@dataclass(frozen=True)
class ComponentRequirement:
    """One component class's figures: VC dimension d_i, |H_i|, m_i(τ/2, β_A/2, ε_B), M_{A,i}."""

    name: str
    vc_dimension: int
    hypotheses: int
    m_b: int
    m_relabel: int
    m_oracle: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "class": self.name,
            "vc_dimension": self.vc_dimension,
            "hypotheses": self.hypotheses,
            "m_B": self.m_b,
            "relabel_m": self.m_relabel,
            "M_A": self.m_oracle,
        }


@dataclass(frozen=True)
class Theorem819:
    """Theorem 8.19's choices (ε_B = 1, δ_B = δ/(64e²k), τ = α/(40k), β_A = β/(4k)), the component
    requirements and the sample complexity (Theorem 7.2's m = max(M_A, LabelBoost term), the
    paper's n from Algorithm 2 line 2 and the tight certified n)."""

    delta_b: sympy.Expr
    components: tuple[ComponentRequirement, ...]
    sample: SampleComplexity
    oracle_epsilon: sympy.Expr
    """ε_A derived for the oracles at the sample's m (:func:`oracle_epsilon`)."""
    n_tight_derived: int
    """The tight n for the same m and δ_A with the oracles' derived ε_A instead of 4."""

    @property
    def m_oracle(self) -> int:
        """M_A = max_i M_{A,i}."""
        return max(c.m_oracle for c in self.components)


def theorem_8_19(
    components: Sequence[tuple[str, int, int]],
    vc_dimension: int,
    alpha: Any,
    beta: Any,
    epsilon: Any,
    delta: Any,
) -> Theorem819:
    """Sample size of CarryForwardLearner with the Proposition 8.16 oracles for G(H_1, …, H_k):
    ``components`` lists (name, d_i, |H_i|); ``vc_dimension`` is (a bound on) VC(C)."""
    run = UtilityTarget.of("Theorem 8.19", len(components), vc_dimension, alpha, beta, epsilon, delta)
    tau, beta_a = run.tau, run.beta_oracle
    rows = tuple(
        ComponentRequirement(
            name,
            d,
            size,
            exponential_learner_m(size, tau / 2, beta_a / 2),
            relabel_m(d, size, tau, beta_a),
            oracle_m(d, size, tau, beta_a),
        )
        for name, d, size in components
    )
    m_oracle = max(r.m_oracle for r in rows)
    sample = carry_forward_sample_complexity(run, lambda n: m_oracle)
    epsilon_a = oracle_epsilon([(r.hypotheses, r.m_b) for r in rows], sample.m)
    target = Target.of(sample.n_paper, run.k, run.epsilon, run.delta)
    n_derived = tight_n(
        target,
        sample.m,
        high_block=sample.n_tight // 3,
        delta_oracle=run.delta_oracle,
        epsilon_oracle=epsilon_a,
    )
    return Theorem819(run.delta / (64 * sympy.E**2 * run.k), rows, sample, epsilon_a, n_derived)


def oracle_epsilon(components: Sequence[tuple[int, int]], m: int, epsilon_b: Any = EPSILON_B) -> sympy.Expr:
    """The largest ε the accountant derives for the Proposition 8.16 oracles A_i run on m records,
    ``components`` listing (|H_i|, m_B,i): Lemma 3.11 (ARelabel, +3) over B̂_i, the ε_B-DP
    exponential learner on :func:`~dpledger.learners.boolean.local_learners.empirical_draws` of the
    m relabeled records drawn with replacement (the SubsampleWithReplacement rule, log A). The
    same event :meth:`~dpledger.learners.boolean.oracle.RelabelOracle.event` records, without the
    claims; log A grows with the draws, so the component drawing most gives the largest ε."""
    from dpledger.learners.boolean.local_learners import empirical_draws

    if not components:
        raise ValueError("components must list at least one (|H_i|, m_B) pair")
    hypotheses, m_b = max(components, key=lambda row: empirical_draws(m, row[1]))
    learner = ev.SubsampleWithReplacement(
        ev.ExponentialMechanism(exact(epsilon_b, "epsilon_b"), hypotheses), empirical_draws(m, m_b), m
    )
    return account(ev.LabelBoostThen(learner)).guarantee.epsilon


def separate_samples_baseline(m_oracle: int, k: int, epsilon: Any, epsilon_oracle: Any = 4) -> int:
    """SUBSTITUTE model of the baseline (Alon et al.'s closure with a separate sample per
    component): component i runs the same oracle A_i (ε_A, δ_A) once, on a uniform size-M_A
    subsample of its own block of N records; the k blocks are disjoint, so the learner is
    (log(1 + (M_A/N)(e^{ε_A} − 1)), (M_A/N)δ_A)-DP (Theorem 3.4, parallel composition). Meeting ε
    needs N = ⌈M_A(e^{ε_A} − 1)/(e^ε − 1)⌉; the baseline uses n = k·N records."""
    e, ea = exact(epsilon, "epsilon"), exact(epsilon_oracle, "epsilon_oracle")
    if not e.is_positive or not ea.is_positive:
        raise ValueError("epsilon and epsilon_oracle must be > 0")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an integer ≥ 1, got {k!r}")
    return k * ceiling(m_oracle * (sympy.exp(ea) - 1) / (sympy.exp(e) - 1))
