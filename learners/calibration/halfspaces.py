"""Sample requirements of the halfspace theorems of seed 000 (Theorems 8.5, 8.8, 8.14), computed
from their formulas with certified arithmetic.

Theorem 8.5 (proof in Appendix C) perturbs the sample (Corollary C.8, β_GP = β/2) and runs
CarryForwardLearner with (α/2, β/2, ε, δ/2) and k = d + 1: τ = α/(80k), β_A = β/(8k), ε_A = 4,
δ_A = δ/(32ek). The coordinate domains then live on the perturbed, rescaled grid
[[±X̃]]^d with X̃ = Δ′(X + Δ), Δ = ⌈dn^{d+1}/(2β_GP)⌉, Δ′ = ⌈2ΔX′√d⌉, X′ = 2d²(d!)^{d³}X^{d⁶}
(Lemma C.7, Kaplan et al. Lemma B.5), and |Ỹ_{j+1}| ≤ (2(d·d!)^j X̃^{dj} + 1)(2·d!·X̃^d)
(Appendix C), so N — and with it M_A — grows with n; :func:`theorem_8_5` iterates (m, n).
Everything is kept as logarithms (X̃ has millions of digits already at d = 10).

The oracles' requirements M_A(τ, β_A, ε_A, δ_A) (``ORACLES``), each with the constants of the
algorithm the learner runs:

* ``qcopt`` — Lemma 8.7 / Theorem 8.8 with QCOpt = RecConcave
  (:mod:`~dpledger.learners.halfspaces.recconcave`): M_A = ⌈(E + d)/τ⌉ with E the error bound of
  RecConcave's plan at (ε_A, δ_A) and failure probability β_A on a domain of N elements
  (:func:`~dpledger.learners.halfspaces.recconcave.recconcave_error_bound`: the recursion depth
  with the smallest bound, 0 — the exponential mechanism — below N ≈ 2^350 at ε_A = 4).
* ``ipconcave`` — Lemma 8.13 / Theorem 8.14 with PrivateIP = the RecConcave interior point:
  t = 2⌊E⌋ + 1 blocks (E of the plan at (ε_A, δ_A, β_IP)), ρ = τ/2, β_IP = β_net = β_A/2, blocks of
  r = ⌈(1/ρ)(d ln(2/ρ) + ln(t/β_net))⌉ (Lemma 8.12, c = 1 — a SUBSTITUTE for the seed's unstated
  constant), M_A = max(t·r, ⌈2d/τ⌉).
* ``exponential`` — the baseline for QCOpt, the exponential mechanism on Q_i^S
  (:class:`~dpledger.learners.halfspaces.oracles.ExponentialDepthOracle`): E = 2 ln(N/β_A)/ε_A
  (Proposition 3.12), M_A = ⌈(E + d)/τ⌉.
* ``ipconcave-em`` — IPConcave with the baseline interior point, the exponential mechanism:
  t = ⌈4 ln(N/β_IP)/ε_A⌉ (:func:`~dpledger.learners.halfspaces.private_ip.interior_point_sample_size`),
  r and M_A as for ``ipconcave``.

Certification: E is RecConcave's outward-rounded bound (its thresholds are ceilings of upper
bounds), taken at an upper bound on ln N, and E does not decrease with N; every M_A and t is a
certified ceiling of an exact expression in E.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from dpledger.accountant.numerics.certified import enclose, lower_float, upper_float
from dpledger.learners.calibration.sample_size import (
    SampleComplexity,
    UtilityTarget,
    carry_forward_sample_complexity,
    ceiling,
    count,
)
from dpledger.learners.halfspaces.recconcave import (
    RECCONCAVE,
    RECCONCAVE_INTERIOR_POINT,
    RecConcavePlan,
    recconcave_error_bound,
)

ORACLES = {
    "qcopt": f"QCOpt = {RECCONCAVE}",
    "ipconcave": f"IPConcave with PrivateIP = {RECCONCAVE_INTERIOR_POINT}",
    "exponential": "the exponential mechanism on Q_i^S — the baseline for QCOpt",
    "ipconcave-em": "IPConcave with the exponential-mechanism interior point — the baseline for PrivateIP",
}
THEOREM_OF_ORACLE = {
    "qcopt": "Theorem 8.8",
    "ipconcave": "Theorem 8.14",
    "exponential": "Theorem 8.5",
    "ipconcave-em": "Theorem 8.5",
}
MAX_DIMENSION = 50
EPSILON_ORACLE = sympy.Integer(4)
LN2 = sympy.log(2)


def _ln_ceiling(ln_x: sympy.Expr) -> sympy.Expr:
    """An upper bound on ln⌈x⌉ from ln x for x ≥ 1: ⌈x⌉ ≤ 2x."""
    return ln_x + LN2


def ln_perturbed_grid(d: int, grid: int, n: int, beta_gp: sympy.Expr) -> sympy.Expr:
    """An upper bound on ln X̃, X̃ = Δ′(X + Δ) (Lemma C.7 and Appendix C)."""
    ln_x_prime = sympy.log(2 * d**2) + d**3 * sympy.log(sympy.factorial(d)) + d**6 * sympy.log(grid)
    ln_delta = _ln_ceiling(sympy.log(d) + (d + 1) * sympy.log(n) - sympy.log(2 * beta_gp))
    ln_delta_prime = _ln_ceiling(LN2 + ln_delta + ln_x_prime + sympy.log(d) / 2)
    return ln_delta_prime + LN2 + ln_delta + sympy.log(grid)  # X + Δ ≤ 2ΔX


def ln_domain_size(d: int, ln_grid: sympy.Expr) -> sympy.Expr:
    """An upper bound on ln N for coordinate bound X̃ = e^{ln_grid}: the largest domain is the last,
    |Ỹ_{d+1}| ≤ (2(d·d!)^d X̃^{d²} + 1)(2·d!·X̃^d) ≤ 3(d·d!)^d X̃^{d²}·2·d!·X̃^d."""
    return (
        sympy.log(6)
        + d * sympy.log(d * sympy.factorial(d))
        + sympy.log(sympy.factorial(d))
        + (d**2 + d) * ln_grid
    )


def log_star(ln_n: sympy.Expr) -> int:
    """An upper bound on log* N from ln N: the number of times log₂ is applied before the value
    is ≤ 1 (log* N = 1 + log*(log₂ N) for N > 1). log₂ N is rounded up, then each further log₂
    is rounded up, so the count is never below the truth."""
    current = upper_float(enclose(ln_n / LN2))
    if current <= 0:
        return 0
    levels = 1
    while current > 1:
        current = math.nextafter(math.log2(current), math.inf)
        levels += 1
    return levels


@dataclass(frozen=True)
class OracleRequirement:
    """M_A of one oracle at one domain size, with the quantities that give it."""

    oracle: str
    ln_domain: float
    log_star: int
    loss: float | None
    blocks: int | None
    block_size: int | None
    m_oracle: int
    depth: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "oracle": self.oracle,
            "description": ORACLES[self.oracle],
            "ln_N": self.ln_domain,
            "log_star_N": self.log_star,
            "depth_loss_E": self.loss,
            "recursion_depth": self.depth,
            "blocks_t": self.blocks,
            "block_size_r": self.block_size,
            "M_A": self.m_oracle,
        }


def oracle_requirement(oracle: str, d: int, run: UtilityTarget, ln_n: sympy.Expr) -> OracleRequirement:
    """M_A(τ, β_A, 4, δ_A) of ``oracle`` on domains of size N = e^{ln_n} at the run's τ, β_A and
    δ_A (Algorithm 2 line 3; module docstring)."""
    return requirement_at(oracle, d, ln_n, run.tau, run.beta_oracle, run.delta_oracle)


def requirement_at(
    oracle: str, d: int, ln_n: sympy.Expr, tau: sympy.Expr, beta_a: sympy.Expr, delta_a: sympy.Expr
) -> OracleRequirement:
    """M_A(τ, β_A, 4, δ_A) of ``oracle`` on domains of size N = e^{ln_n} (module docstring): QCOpt's
    (RecConcave's) and the exponential oracle's ⌈(E + d)/τ⌉ — E RecConcave's plan bound at
    (ε_A, δ_A, β_A), or 2(ln N − ln β_A)/ε_A — and IPConcave's max(t·r, ⌈2d/τ⌉) with Lemma 8.12's
    r = ⌈(d ln(2/ρ) + ln(t/β_net))/ρ⌉, ρ = τ/2, β_net = β_IP = β_A/2 (Lemma 8.13), t the interior
    point's points (RecConcave's 2⌊E⌋ + 1 at β_IP, or the exponential one's ⌈4(ln N − ln β_IP)/ε_A⌉).

    Raises:
        ValueError: an unknown oracle.
    """
    if oracle not in ORACLES:
        raise ValueError(f"oracle must be one of {', '.join(ORACLES)}, got {oracle!r}")
    eps_a = EPSILON_ORACLE
    stars = log_star(ln_n)
    ln_float = upper_float(enclose(ln_n))
    if oracle in ("qcopt", "exponential"):
        plan = _plan(ln_n, delta_a, beta_a) if oracle == "qcopt" else None
        loss = sympy.Rational(plan.error) if plan else 2 * (ln_n - sympy.log(beta_a)) / eps_a
        depth = plan.depth if plan else None
        m_a = ceiling((loss + d) / tau)
        return OracleRequirement(oracle, ln_float, stars, upper_float(enclose(loss)), None, None, m_a, depth)
    beta_half = beta_a / 2
    if oracle == "ipconcave":
        plan = _plan(ln_n, delta_a, beta_half)
        t, depth = 2 * math.floor(plan.error) + 1, plan.depth
    else:
        t, depth = ceiling(4 * (ln_n - sympy.log(beta_half)) / eps_a), None
    rho = tau / 2
    r = ceiling((d * sympy.log(2 / rho) + sympy.log(t / beta_half)) / rho)
    return OracleRequirement(oracle, ln_float, stars, None, t, r, max(t * r, ceiling(2 * d / tau)), depth)


def _plan(ln_n: sympy.Expr, delta_a: sympy.Expr, beta: sympy.Expr) -> RecConcavePlan:
    """RecConcave's plan at ε_A = 4 on a domain with ln N ≤ ``ln_n``, at rationals below δ_A and
    β (δ_A = δ/(32ek) is irrational): E does not decrease as δ or β decrease, so it stays an
    upper bound."""
    return recconcave_error_bound(ln_n, Fraction(int(EPSILON_ORACLE)), _below(delta_a), _below(beta))


def _below(value: sympy.Expr) -> Fraction:
    """A rational ≤ ``value`` (the value itself when rational)."""
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    return Fraction(lower_float(enclose(value)))


@dataclass(frozen=True)
class HalfspaceCalibration:
    """Theorem 8.5 with one oracle: the requirement at the final n and the sample complexity."""

    statement: str
    dimension: int
    grid: int
    oracle: OracleRequirement
    result: SampleComplexity

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "dimension": self.dimension,
            "grid": self.grid,
            "oracle": self.oracle.to_dict(),
            **self.result.to_dict(),
        }


def theorem_8_5(
    oracle: str, dimension: int, grid: int, alpha: Any, beta: Any, epsilon: Any, delta: Any
) -> HalfspaceCalibration:
    """Sample complexity of Theorem 8.5 (k = d + 1, VC = d + 1) with ``oracle``'s M_A on the
    perturbed grid [[±X̃(n)]]^d, β_GP = β/2 (proof of Theorem 8.5); Theorem 8.8 for ``qcopt``,
    Theorem 8.14 for ``ipconcave``. The tight n meets the theorem's (ε, δ): the perturbation uses
    no privacy budget (proof of Theorem 8.5), so the δ/2 the proof keeps back is available."""
    statement = THEOREM_OF_ORACLE.get(oracle)
    if statement is None:
        raise ValueError(f"oracle must be one of {', '.join(ORACLES)}, got {oracle!r}")
    d = count(dimension, "dimension")
    if d > MAX_DIMENSION:
        raise ValueError(f"dimension must be at most {MAX_DIMENSION}, got {d}")
    x = count(grid, "grid")
    theorem = UtilityTarget.of(statement, d + 1, d + 1, alpha, beta, epsilon, delta)
    run = theorem.scaled(2)
    beta_gp = theorem.beta / 2

    def requirement(n: int) -> OracleRequirement:
        return oracle_requirement(oracle, d, run, ln_domain_size(d, ln_perturbed_grid(d, x, n, beta_gp)))

    oracle_m: Callable[[int], int] = lambda n: requirement(n).m_oracle  # noqa: E731
    result = carry_forward_sample_complexity(run, oracle_m, privacy_delta=theorem.delta)
    return HalfspaceCalibration(statement, d, x, requirement(result.n_paper), result)
