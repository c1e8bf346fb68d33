"""The free constants of CarryForwardLearner's theorems, chosen to minimise the certified n —
Theorems 5.1 (completion-score oracle) and 8.19 (relabel-and-learn oracles)
of seed 000.

Algorithm 2 line 3 fixes τ = α/(40k), β_A = β/(4k), ε_A = 4, δ_A = δ/(16ek); the proofs need less.
What each proof asks, and what is chosen here:

* **τ** — Theorem 7.2's proof ends with err ≤ 20(k+1)τ (the k+1 events E_0..E_k of Lemma 7.1,
  20τ each), so τ = α/(20(k+1)) suffices (≥ α/(40k) for every k ≥ 1); both sample terms fall as τ
  grows, so this largest τ is taken.
* **β split** — the same proof's union bound needs kβ_A + kβ_LB + (k+1)β_VC ≤ β. With a share ρ ∈ (0, 1)
  to the oracles: β_A = ρβ/k and β_LB = β_VC = (1 − ρ)β/(2k + 1) (equality). ρ is searched.
* **The LabelBoost/generalisation term** — Lemma 7.1's (c/τ)(v ln(2/(τβ_LB)) + ln(1/β_VC)) with
  SUBSTITUTE c = 1/40: the constant that gives back Theorem 7.2's term (kv/α)ln(320k²/(αβ)) with
  its substitute c = 1 (:data:`~dpledger.learners.calibration.sample_size.LABELBOOST_CONSTANT`) at
  Algorithm 2's choices, plus the ln(1/β_VC) part that theorem's O(·) absorbs.
* **Corollary 8.17's inner split** (Theorem 8.19) — Appendix B gives ARelabel error τ/2 and B̂ error
  τ/2; its proof only adds them, so B̂ gets θτ and ARelabel (1 − θ)τ, θ searched
  (:func:`boolean_requirements`).
* **ε_A** — Assumption 4.4 lets the oracle be any (ε_A, δ_A)-DP algorithm; the completion-score
  oracle is ε_A-DP for every ε_A > 0 (exponential mechanism) with M_A = ⌈2 ln(|Y|/β_A)/(ε_A τ)⌉.
  Searched in (0, 4] (multiples of 1/64): ≤ 4 keeps Lemma 6.2's C = ε_A + 2c_LB < 9 and every
  block's claim in the event tree true. For Theorem 8.19 the free constant is B_i's ε_B ∈ (0, 1]
  (Proposition 8.16's hypothesis; multiples of 1/32), and the oracle's ε_A is the accountant's
  derivation of Corollary 8.17's event: Lemma 3.11 (+3) over B̂ = B_i on m_B draws with
  replacement from the m relabeled records (Lemma 8.15; the accountant's with-replacement rule),
  at most ε_B + 3.
* **δ_A and the δ split** — both oracles are pure (exponential mechanisms), so δ_A = 0: no block
  spends δ (Lemma 3.15's 4eδ_A = 0), and each reservoir's optimal composition gets the whole δ
  (the three blocks run on disjoint reservoirs: parallel composition).

The search. With pure oracles every block is pure, and Theorem 3.4 amplifies a C-DP block
run on m of M records to log(1 + (m/M)(e^C − 1)); the learner's guarantee is a fixed function of
that η (and of the last macro-block's, whose C lacks the carrier release), so the smallest M
scales as m·(e^C − 1). The search minimises that score in floats over the grid (a guide, never a
verdict); the chosen point's n is then computed by the certified machinery
(:func:`dpledger.accountant.section6.tight_n`, optimal composition, exact amplification) and its
derivation returned. Minimality is over the grid and the score, not proved; the certificate is
for the chosen point's privacy, and its utility follows from the proofs above.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from dpledger.accountant.guarantee import Guarantee
from dpledger.accountant.numerics.certified import enclose, upper_float
from dpledger.accountant.rules import C_LB, Derivation, account
from dpledger.accountant.section6 import Target, carry_forward_event, tight_n
from dpledger.learners.calibration.sample_size import UtilityTarget, ceiling

LEMMA_7_1_CONSTANT = sympy.Rational(1, 40)
"""SUBSTITUTE c of Lemma 7.1's (c/τ)(v ln(2/(τβ_LB)) + ln(1/β_VC)) (see the module docstring)."""

EPSILON_A_GRID = tuple(sympy.Rational(j, 64) for j in range(1, 257))
"""Candidate ε_A of the completion-score oracle: (0, 4] in steps of 1/64."""

EPSILON_B_GRID = tuple(sympy.Rational(j, 32) for j in range(1, 33))
"""Candidate ε_B of Proposition 8.16's B_i: (0, 1] in steps of 1/32."""

RHO_GRID = tuple(sympy.Rational(j, 100) for j in range(1, 100))
"""Candidate shares ρ of β given to the oracles (β_A = ρβ/k)."""

RHO_GRID_BOOLEAN = (
    sympy.Rational(1, 2),
    sympy.Rational(3, 4),
    sympy.Rational(9, 10),
    sympy.Rational(19, 20),
    sympy.Rational(99, 100),
)
"""Theorem 8.19's coarser grid of ρ (each (ρ, θ) computes ARelabel's requirement, a certified search)."""

LEARNER_SHARE_GRID = tuple(1 - sympy.Rational(1, 2**j) for j in range(1, 8))
"""Candidate shares θ of τ given to B̂ in Corollary 8.17's proof: 1/2 (the seed's), 3/4, …, 127/128."""

_TWO_C_LB = 2 * float(C_LB)
"""2c_LB in floats, for the search's score only."""


@dataclass(frozen=True)
class UtilitySplit:
    """τ and the failure probabilities of Theorem 7.2's proof for a share ρ of β to the oracles."""

    tau: sympy.Expr
    rho: sympy.Expr
    beta_oracle: sympy.Expr
    beta_labelboost: sympy.Expr
    beta_vc: sympy.Expr

    @staticmethod
    def of(run: UtilityTarget, rho: sympy.Expr) -> UtilitySplit:
        """τ = α/(20(k+1)); β_A = ρβ/k, β_LB = β_VC = (1 − ρ)β/(2k+1), so that
        kβ_A + kβ_LB + (k+1)β_VC = β (Theorem 7.2's union bound)."""
        if not 0 < rho < 1:
            raise ValueError(f"the oracles' share of beta must be in (0, 1), got {rho}")
        k = run.k
        rest = (1 - rho) * run.beta / (2 * k + 1)
        return UtilitySplit(run.alpha / (20 * (k + 1)), sympy.Rational(rho), rho * run.beta / k, rest, rest)

    def error_bound(self, k: int) -> sympy.Expr:
        """20(k+1)τ, the error Theorem 7.2's proof certifies (≤ α)."""
        return 20 * (k + 1) * self.tau

    def failure_bound(self, k: int) -> sympy.Expr:
        """kβ_A + kβ_LB + (k+1)β_VC, the failure probability of the same proof (≤ β)."""
        return k * self.beta_oracle + k * self.beta_labelboost + (k + 1) * self.beta_vc

    def to_dict(self) -> dict[str, Any]:
        value = lambda expr: upper_float(enclose(expr))  # noqa: E731
        return {
            "tau": value(self.tau),
            "rho": str(self.rho),
            "beta_A": value(self.beta_oracle),
            "beta_LB": value(self.beta_labelboost),
            "beta_VC": value(self.beta_vc),
        }


def labelboost_term(vc: int, split: UtilitySplit) -> int:
    """⌈(c/τ)(v ln(2/(τβ_LB)) + ln(1/β_VC))⌉, Lemma 7.1 with c = :data:`LEMMA_7_1_CONSTANT` (a substitute)."""
    s = split
    return ceiling(
        LEMMA_7_1_CONSTANT
        / s.tau
        * (vc * sympy.log(2 / (s.tau * s.beta_labelboost)) + sympy.log(1 / s.beta_vc))
    )


def _labelboost_float(vc: int, split: UtilitySplit) -> float:
    s = [float(x) for x in (split.tau, split.beta_labelboost, split.beta_vc)]
    return math.ceil(
        float(LEMMA_7_1_CONSTANT) / s[0] * (vc * math.log(2 / (s[0] * s[1])) + math.log(1 / s[2]))
    )


@dataclass(frozen=True)
class FreeCalibration:
    """The chosen constants, the sample sizes they give and the certified guarantee at n."""

    statement: str
    run: UtilityTarget
    split: UtilitySplit
    choices: tuple[tuple[str, sympy.Expr], ...]
    epsilon_oracle: sympy.Expr
    m_labelboost: int
    m_oracle: int
    m: int
    n: int
    derivation: Derivation

    @property
    def guarantee(self) -> Guarantee:
        return self.derivation.guarantee

    def choice(self, name: str) -> sympy.Expr:
        """The chosen value of one free constant (``epsilon_A``, ``epsilon_B``, ``learner_tau_share``)."""
        return dict(self.choices)[name]

    @property
    def holds(self) -> bool:
        return self.guarantee.meets(self.run.epsilon, self.run.delta).holds

    def to_dict(self) -> dict[str, Any]:
        g = self.guarantee
        return {
            "constants": {
                **self.split.to_dict(),
                **{name: str(value) for name, value in self.choices},
                "epsilon_A": upper_float(enclose(self.epsilon_oracle)),
                "delta_A": 0,
                "lemma_7_1_constant": "SUBSTITUTE c = 1/40",
            },
            "labelboost_term": self.m_labelboost,
            "M_A": self.m_oracle,
            "m": self.m,
            "n_free": self.n,
            "error_bound": upper_float(enclose(self.split.error_bound(self.run.k))),
            "failure_bound": upper_float(enclose(self.split.failure_bound(self.run.k))),
            "guarantee": {"epsilon": g.epsilon_upper, "delta": g.delta_upper, "holds": self.holds},
            "derivation": self.derivation.to_dict(),
        }


def certify(run: UtilityTarget, m: int, epsilon_oracle: sympy.Expr) -> tuple[int, Derivation]:
    """The smallest n at which the learner with active size m and pure ε_A-oracles meets (ε, δ)
    under the tight accounting, and the accountant's derivation there."""
    delta_oracle = sympy.Integer(0)
    n = tight_n(
        Target.of(3, run.k, run.epsilon, run.delta),
        m,
        delta_oracle=delta_oracle,
        epsilon_oracle=epsilon_oracle,
    )
    target = Target.of(n, run.k, run.epsilon, run.delta)
    return n, account(carry_forward_event(target, m, "optimal", n, delta_oracle, epsilon_oracle))


def _search(
    run: UtilityTarget,
    grid: Sequence[Any],
    rhos: Sequence[sympy.Expr],
    oracle_float: Callable[[Any, UtilitySplit, float], tuple[float, float]],
) -> tuple[Any, UtilitySplit]:
    """The (free value, split) minimising m·(e^{ε_A + 2c_LB} − 1) in floats, where
    ``oracle_float(value, split, labelboost_term)`` gives (M_A, ε_A) and m = max(LabelBoost term, M_A)."""
    best: tuple[float, Any, UtilitySplit] | None = None
    for rho in rhos:
        split = UtilitySplit.of(run, rho)
        term = _labelboost_float(run.vc, split)
        for value in grid:
            m_oracle, epsilon_oracle = oracle_float(value, split, term)
            score = (
                math.log(max(term, m_oracle))
                + epsilon_oracle
                + _TWO_C_LB
                + math.log1p(-math.exp(-epsilon_oracle - _TWO_C_LB))
            )
            if best is None or score < best[0]:
                best = (score, value, split)
    assert best is not None
    return best[1], best[2]


def theorem_5_1(run: UtilityTarget, candidates: int) -> FreeCalibration:
    """Theorem 5.1 with the completion-score oracle over at most ``candidates`` next values."""
    from dpledger.learners.component_oracles import completion_oracle_m

    def oracle_float(epsilon_a: sympy.Expr, split: UtilitySplit, _: float) -> tuple[float, float]:
        e = float(epsilon_a)
        return math.ceil(2 * math.log(candidates / float(split.beta_oracle)) / (e * float(split.tau))), e

    epsilon_a, split = _search(run, EPSILON_A_GRID, RHO_GRID, oracle_float)
    m_lb = labelboost_term(run.vc, split)
    m_oracle = completion_oracle_m(candidates, split.tau, split.beta_oracle, epsilon_a)
    m = max(m_lb, m_oracle)
    n, derivation = certify(run, m, epsilon_a)
    return FreeCalibration(
        "Theorem 5.1", run, split, (("epsilon_A", epsilon_a),), epsilon_a, m_lb, m_oracle, m, n, derivation
    )


def boolean_requirements(
    hypotheses: int, vc_dimension: int, split: UtilitySplit, learner_share: sympy.Expr, epsilon_b: Any
) -> tuple[int, int]:
    """(ARelabel's |S|, B_i's m_B) when Corollary 8.17's proof gives B̂ the error θτ and ARelabel
    (1 − θ)τ (θ = ``learner_share``), each failure β_A/2. Appendix B's proof needs only that the two
    errors add to τ (triangle inequality) and the failures to β_A (union bound); the seed's θ = 1/2.
    :func:`~dpledger.learners.calibration.boolean.relabel_m` is stated for λ = τ/2, so it is called
    with 2(1 − θ)τ; B_i's requirement is m_B(θτ, β_A/2, ε_B)."""
    from dpledger.learners.calibration.boolean import exponential_learner_m, relabel_m

    if not 0 < learner_share < 1:
        raise ValueError(f"the learner's share of tau must be in (0, 1), got {learner_share}")
    tau, beta = split.tau, split.beta_oracle
    return (
        relabel_m(vc_dimension, hypotheses, 2 * (1 - learner_share) * tau, beta),
        exponential_learner_m(hypotheses, learner_share * tau, beta / 2, epsilon_b),
    )


def theorem_8_19(run: UtilityTarget, components: Sequence[tuple[str, int, int]]) -> FreeCalibration:
    """Theorem 8.19 with the relabel-and-learn oracles for ``components`` ((name, d_i, |H_i|)):
    ε_B free in (0, 1] and B̂'s share θ of τ (:func:`boolean_requirements`), the utility split as for
    Theorem 5.1, M_{A,i} = max(ARelabel's |S|, 9m_B) (Corollary 8.17) and ε_A the largest derived ε of
    the k oracles' events at the chosen m (:func:`~dpledger.learners.calibration.boolean.oracle_epsilon`),
    rounded up to a float. The oracle that realises the choice
    is ``RelabelOracle(ε_B, tau=2θτ, beta_a=β_A)`` (its m_B is m_B(tau/2, beta_a/2, ε_B))."""
    from fractions import Fraction

    from dpledger.learners.calibration.boolean import oracle_epsilon

    classes = sorted(set((d, size) for _, d, size in components))
    requirements: dict[
        tuple[sympy.Expr, sympy.Expr], list[tuple[int, int]]
    ] = {}  # (ρ, θ) → per class at ε_B = 1

    def oracle_float(
        value: tuple[sympy.Expr, sympy.Expr], split: UtilitySplit, term: float
    ) -> tuple[float, float]:
        epsilon_b, share = value
        key = (split.rho, share)
        if key not in requirements:
            requirements[key] = [boolean_requirements(size, d, split, share, 1) for d, size in classes]
        e = float(epsilon_b)
        m_b = [
            math.ceil(b * max(4 / e, 8) / 8) for _, b in requirements[key]
        ]  # max(4/ε_B, 8) against its 8 at ε_B = 1
        m = max(term, *(max(r, 9 * b) for (r, _), b in zip(requirements[key], m_b, strict=True)))
        # the with-replacement rule's log A = draws·log(1 + (e^{ε_B} − 1)/m), in floats (a guide)
        return m, 3 + max(min(b, m // 9) for b in m_b) * math.log1p(math.expm1(e) / m)

    grid = [(epsilon_b, share) for share in LEARNER_SHARE_GRID for epsilon_b in EPSILON_B_GRID]
    (epsilon_b, share), split = _search(run, grid, RHO_GRID_BOOLEAN, oracle_float)
    m_lb = labelboost_term(run.vc, split)
    rows = {(d, size): boolean_requirements(size, d, split, share, epsilon_b) for d, size in classes}
    m_oracle = max(max(r, 9 * b) for r, b in rows.values())
    m = max(m_lb, m_oracle)
    epsilon_a = sympy.Rational(
        Fraction(
            upper_float(
                enclose(oracle_epsilon([(size, rows[d, size][1]) for d, size in classes], m, epsilon_b))
            )
        )
    )
    n, derivation = certify(run, m, epsilon_a)
    return FreeCalibration(
        "Theorem 8.19",
        run,
        split,
        (("epsilon_B", epsilon_b), ("learner_tau_share", share)),
        epsilon_a,
        m_lb,
        m_oracle,
        m,
        n,
        derivation,
    )
