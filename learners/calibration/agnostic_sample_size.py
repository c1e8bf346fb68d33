"""Sample-size calibration of Theorems 2.1, 3.1 and 4.1 of seed 002, *as implemented*.

The seed lost its sample-size formulas (only Table 1's row for Theorem 3.1 survives:
Õ(D_G/α² + D_G/(εα) + 1/α⁶ + 1/(εα⁵)), D_G ≍ d^{O(1/α²)}). For each theorem this module builds
an explicit chain: n = the sum of the block sizes the learner of :mod:`dpledger.learners.agnostic` needs
so that its analysis gives error OPT + α (2.1, 3.1) or C·(OPT + α) + α/2 (4.1) with probability
1 − β at the target (ε, δ). Each block is split additively into a *statistical* part (alone it
makes the sampling error ≤ its share) and a *privacy* part (alone it makes the noise error ≤
its share); since both errors decrease in the block size, the sum meets both (at most twice
max(·,·), the additive form of Table 1). Every constant the seed hides is named in
``substitutes``.

Two accountings of the Gaussian noise multiplier σ/Δ:

* ``paper``: T adaptive optimiser steps by advanced composition (Dwork–Roth 2014, Thm 3.20,
  δ′ = δ/2, δ₀ = δ/(2T)) of classic Gaussian steps σ = Δ√(2 ln(1.25/δ₀))/ε₀ (Dwork–Roth,
  Thm A.1, valid as ε₀ < 1); single releases by the classic Gaussian σ = Δ√(2 ln(1.25/δ))/ε,
  valid only for ε < 1 — for ε ≥ 1 the chain switches, explicitly, to the learners' certified
  discrete Gaussian calibration and says so in ``parameters``/``substitutes``.
* ``tight``: single releases by ``certified_ratio(ε, δ, 1, "optimal")`` (the exact discrete
  Gaussian the learners draw, ρ-zCDP converted by Canonne–Kamath–Steinke 2020, Cor 13,
  certified); T steps by zCDP composition (ρ adds up: T steps of ratio r compose into one of
  ratio r√T — the accountant's own "optimal" rule for discrete Gaussians), i.e. per-step ratio
  r₁(1 − 2⁻¹¹)/√T. The factor 1 − 2⁻¹¹ covers the certification margin of
  ``certified_ratio(ε, δ, T, "optimal")`` and the learners' grid-rounding term (a relative
  ≤ √F·2⁻²⁰·r in σ), so the learner's own σ is never above ours.

All counts are exact Python ints; every real quantity is enclosed with outward-rounded
``mpmath.iv`` intervals and every sample count is the ceiling of the interval's *upper* end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpledger.accountant.numerics.certified import interval_precision, lower_end, upper_end, upper_float
from dpledger.learners.calibration.agnostic_noise import certified_ratio, check_privacy
from dpledger.learners.randomness import as_fraction

PREC = 96
"""Bits of the interval arithmetic."""

THEOREMS = ("Theorem 2.1", "Theorem 3.1", "Theorem 4.1")
ACCOUNTINGS = ("paper", "tight")
MAX_DEGREE = 10**12
"""The largest polynomial degree D taken (α ≥ 10⁻⁶ at c = 1): beyond, the sample sizes run to
thousands of digits, past what Python writes out as text."""
DEGREE_CONSTANT = 1
"""SUBSTITUTE: c in the default degree D = ⌈c/α²⌉ (Lemma B.10 / Diakonikolas–Kane–Nelson 2010:
degree O(1/η²) gives L1 error η; the universal constant is hidden). Measured (tests of Lemma
B.10 in ``tests/learners/test_agnostic_features.py``): at D = ⌈1/α²⌉ the L2 projection of the
worst halfspace — an upper bound on the best unit-norm L1 approximation — is 1.08α, 1.31α, 1.53α
away in L1 at α = 0.2, 0.1, 0.05, not the α/3 Theorem 2.1's chain assumes; pass a larger
``degree`` to be safe."""
BISECTION_SLACK = Fraction(2047, 2048)
"""1 − 2⁻¹¹: ``certified_ratio(…, T, "optimal")`` is within a relative 10⁻⁶ of ``certified_ratio(…, 1, …)/√T``."""
FIRST_GUESS = Fraction(1, 4)
"""ŏ₀ = 1/4, the first OPT guess of :class:`PrivateSemiAgnosticLearner` (Algorithm 4)."""

HYPOTHESES: dict[str, tuple[str, ...]] = {
    "Theorem 2.1": (
        "x ∼ N(0, I_d), labels ±1 arbitrary (agnostic); d ≥ 1",
        "0 < α < 1, 0 < β < 1 (accuracy OPT + α with probability 1 − β)",
        "0 < ε ≤ 100 (the learners' range), 0 < δ < 1",
        "degree D ≥ 1 (default ⌈1/α²⌉; the approximation share α/6 is assumed met at the "
        "default degree — Lemma B.10's constant is hidden)",
    ),
    "Theorem 3.1": (
        "x ∼ N(0, I_d), labels ±1 arbitrary (agnostic); d ≥ 1",
        "0 < α < 1, 0 < β < 1 (accuracy OPT + α with probability 1 − β)",
        "0 < ε ≤ 100, 0 < δ < 1; the paper's classic Gaussian needs ε < 1 (else the analytic "
        "Gaussian is used, explicitly)",
        "degree D ≥ 1 (default ⌈1/α²⌉); Lemmas 3.2/3.5 with our constants ζ = α/4, η = α²/4",
    ),
    "Theorem 4.1": (
        "x ∼ N(0, I_d), labels ±1 arbitrary; d ≥ 1 (Assumption F.2, d large, is not needed: "
        "the clip radius is Laurent–Massart's exact bound)",
        "0 < α < 1, 0 < β < 1 (accuracy C·(OPT + α) + α/2 with probability 1 − β, C universal)",
        "0 < ε ≤ 100, 0 < δ < 1; the paper's classic Gaussian needs ε < 1 (else analytic)",
        "no polynomial degree (refused if given)",
    ),
}


@dataclass(frozen=True)
class SampleTerm:
    """One additive part of n: a block (or group of equal blocks) or one requirement."""

    name: str
    statement: str
    formula: str
    value: int
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AgnosticSampleSize:
    """The calibrated sample size of one theorem under one accounting; n = Σ terms' values."""

    theorem: str
    accounting: str
    target: dict[str, Any]
    parameters: dict[str, Any]
    terms: tuple[SampleTerm, ...]
    n: int
    substitutes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "theorem": self.theorem,
            "accounting": self.accounting,
            "target": dict(self.target),
            "parameters": dict(self.parameters),
            "terms": [t.to_dict() for t in self.terms],
            "n": self.n,
            "substitutes": list(self.substitutes),
        }

    def term(self, name: str) -> SampleTerm:
        """The term called ``name`` (KeyError otherwise)."""
        for t in self.terms:
            if t.name == name:
                return t
        raise KeyError(name)

    @property
    def privacy_n(self) -> int:
        """The sum of the privacy-driven terms."""
        return sum(t.value for t in self.terms if t.name.endswith("privacy"))


# ----------------------------------------------------------------------------- arithmetic


def _iv(x: int | Fraction) -> Any:
    """An interval enclosing the exact rational x."""
    x = Fraction(x)
    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


def _shown(x: Any) -> float | str:
    """A display value ≥ the interval's upper end: a float, or — beyond float range — the upper
    end as a decimal string with 12 significant digits rounded up (JSON has no infinity)."""
    value = upper_float(x)
    if math.isfinite(value):
        return value
    with mpmath.workdps(60):
        top = upper_end(x)
        exponent = int(mpmath.floor(mpmath.log10(top))) - 11
        digits = str(
            int(mpmath.ceil(top / mpmath.mpf(10) ** exponent)) + 1
        )  # + 1: covers the rounding of log10 and /
    return f"{digits[0]}.{digits[1:]}e{exponent + len(digits) - 1}"


def _ceil(x: Any) -> int:
    """⌈upper end of the interval x⌉, exactly (mpf → int truncates exactly)."""
    upper = upper_end(x)
    whole = int(upper)
    return whole + (upper > whole)


def _ceil_log2(x: Fraction) -> int:
    """⌈log₂ x⌉ for a rational x ≥ 1, exactly."""
    k = 0
    while Fraction(2) ** k < x:
        k += 1
    return k


# ------------------------------------------------------------------------- noise multipliers


@dataclass(frozen=True)
class _Noise:
    single: Any  # σ/Δ of one Gaussian release (interval)
    single_rule: str
    substitutes: tuple[str, ...]


def _single_noise(epsilon: Fraction, delta: Fraction, accounting: str) -> _Noise:
    """σ/Δ of one Gaussian release. paper: √(2 ln(1.25/δ))/ε (Dwork–Roth Thm A.1, ε < 1);
    tight, or paper at ε ≥ 1 (explicit switch): 1/certified_ratio(ε, δ, 1, "optimal")."""
    if accounting == "paper" and epsilon < 1:
        value = iv.sqrt(2 * iv.log(_iv(Fraction(5, 4) / delta))) / _iv(epsilon)
        return _Noise(value, "classic Gaussian, Dwork–Roth 2014 Thm A.1", ())
    ratio = certified_ratio(epsilon, delta, 1, "optimal")
    if accounting == "paper":
        return _Noise(
            _iv(1 / ratio),
            "discrete Gaussian, zCDP (classic invalid at ε ≥ 1)",
            (
                "paper accounting at ε ≥ 1: the classic Gaussian σ = Δ√(2 ln(1.25/δ))/ε needs ε < 1 "
                "(Dwork–Roth Thm A.1), so single Gaussian releases use the learners' certified discrete Gaussian "
                "calibration (CKS 2020, zCDP) — equal to the tight accounting for those releases",
            ),
        )
    return _Noise(
        _iv(1 / ratio), "discrete Gaussian, zCDP, Canonne–Kamath–Steinke 2020 Cor 13 (certified)", ()
    )


def advanced_step_epsilon_lower(epsilon: Fraction, delta: Fraction, steps: int) -> Any:
    """A certified lower bound on ε₀ solving √(2T ln(1/δ′))ε₀ + Tε₀(e^{ε₀} − 1) = ε,
    δ′ = δ/2 (Dwork–Roth Thm 3.20). g(x) = ε/(√(2T ln(1/δ′)) + T(e^x − 1)) is decreasing with
    fixed point ε₀, so g maps upper bounds to lower bounds and back; six rounds from the upper
    bound ε/√(2T ln(1/δ′)) (contraction ≈ ε/(2 ln(2/δ))) end on a lower bound (an interval)."""
    root = iv.sqrt(2 * _iv(steps) * iv.log(_iv(2 / delta)))
    upper = _iv(epsilon) / root
    lower = upper
    for _ in range(6):
        lower = iv.mpf(lower_end(_iv(epsilon) / (root + _iv(steps) * iv.expm1(iv.mpf(upper.b)))))
        upper = iv.mpf(upper_end(_iv(epsilon) / (root + _iv(steps) * iv.expm1(iv.mpf(lower.a)))))
    return lower


def _steps_kappa(epsilon: Fraction, delta: Fraction, steps: int, accounting: str) -> tuple[Any, str]:
    """κ = σ/(Δ√T) for T composed Gaussian steps: the privacy term of the optimiser is
    R√F·Δ·κ. paper: 1/(r₀√T), r₀ = ε₀/√(2 ln(1.25/δ₀)), δ₀ = δ/(2T); tight: 1/(r₁(1 − 2⁻¹¹))."""
    if accounting == "tight":
        ratio = certified_ratio(epsilon, delta, 1, "optimal") * BISECTION_SLACK
        return _iv(1 / ratio), "zCDP composition of discrete Gaussians, Bun–Steinke 2016 (certified r₁)"
    eps0 = advanced_step_epsilon_lower(epsilon, delta, steps)
    if not eps0.b < 1:
        raise ValueError(
            f"the classic Gaussian step needs ε₀ < 1 (Dwork–Roth Thm A.1), got ε₀ ≈ {float(eps0.b):.3g}"
        )
    delta0 = delta / (2 * steps)
    kappa = iv.sqrt(2 * iv.log(_iv(Fraction(5, 4) / delta0))) / (iv.mpf(eps0.a) * iv.sqrt(_iv(steps)))
    return kappa, "advanced composition (Dwork–Roth Thm 3.20) of classic Gaussian steps (Thm A.1)"


def paper_step_ratio(epsilon: Any, delta: Any, steps: int) -> Fraction:
    """A rational per-step ratio Δ/σ the paper chain uses for T steps (≤ the exact value):
    for checking with the accountant (Composition of classical Gaussians, advanced)."""
    eps, dlt = as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta")
    with interval_precision(PREC):
        eps0 = advanced_step_epsilon_lower(eps, dlt, steps)
        ratio = iv.mpf(eps0.a) / iv.sqrt(2 * iv.log(_iv(Fraction(5, 4) * 2 * steps / dlt)))
        mantissa, exponent = lower_end(ratio).man_exp
        return Fraction(mantissa) * Fraction(2) ** exponent


def tight_step_ratio(epsilon: Any, delta: Any, steps: int) -> Fraction:
    """A rational per-step ratio ≤ r₁(1 − 2⁻¹¹)/√T (the tight chain's per-step ratio)."""
    eps, dlt = as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta")
    r1 = certified_ratio(eps, dlt, 1, "optimal") * BISECTION_SLACK
    root = math.isqrt(steps * 4**20) + 1  # ≥ 2²⁰√T
    return r1 * 2**20 / root


# --------------------------------------------------------------------------- input checks


def _check_unit(value: Any, name: str, theorem: str) -> Fraction:
    number = as_fraction(value, name)
    if not 0 < number < 1:
        raise ValueError(f"{name} must be in (0, 1) (hypothesis of {theorem}), got {value!r}")
    return number


def _check_dimension(value: Any, name: str, theorem: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer ≥ 1 (hypothesis of {theorem}), got {value!r}")
    return value


def _theorem_name(theorem: Any) -> str:
    if isinstance(theorem, str):
        name = theorem if theorem.startswith("Theorem") else f"Theorem {theorem}"
        if name in THEOREMS:
            return name
    raise ValueError(f"theorem must be one of {THEOREMS}, got {theorem!r}")


def _selection(
    candidates: int,
    beta: Fraction,
    stat_error: Fraction,
    em_error: Fraction,
    epsilon: Fraction,
    statement: str,
) -> tuple[SampleTerm, SampleTerm]:
    """Lemma B.5 (Hoeffding + McSherry–Talwar) on a validation block of m_v records over N
    candidates, failure β split in halves: err(ĥ) ≤ min err + 2√(ln(4N/β)/(2m_v)) +
    2 ln(2N/β)/(εm_v). Each part meets its share alone."""
    stat = _ceil(2 * iv.log(_iv(Fraction(4 * candidates) / beta)) / _iv(stat_error) ** 2)
    priv = _ceil(2 * iv.log(_iv(Fraction(2 * candidates) / beta)) / (_iv(epsilon) * _iv(em_error)))
    return (
        SampleTerm(
            "validation: statistical",
            f"{statement} (Lemma B.5, Hoeffding + union bound)",
            f"⌈2 ln(4N/β_v)/a_h²⌉, N = {candidates}, β_v = {beta}, a_h = {stat_error}",
            stat,
        ),
        SampleTerm(
            "validation: privacy",
            f"{statement} (Lemma B.5, exponential mechanism)",
            f"⌈2 ln(2N/β_v)/(ε a_e)⌉, a_e = {em_error}",
            priv,
            "pure ε: the same in both accountings",
        ),
    )


# ------------------------------------------------------------------------------- theorems


def sample_size(
    theorem: str,
    *,
    alpha: Any,
    beta: Any,
    epsilon: Any,
    delta: Any,
    dim: int,
    degree: int | None = None,
    accounting: str = "paper",
) -> AgnosticSampleSize:
    """The calibrated n of ``theorem`` ("Theorem 2.1" | "Theorem 3.1" | "Theorem 4.1") at
    (α, β, ε, δ, d[, D]) under ``accounting`` ("paper" | "tight"); ValueError naming the
    hypothesis that fails."""
    name = _theorem_name(theorem)
    if accounting not in ACCOUNTINGS:
        raise ValueError(f"accounting must be one of {ACCOUNTINGS}, got {accounting!r}")
    a = _check_unit(alpha, "alpha", name)
    b = _check_unit(beta, "beta", name)
    e = as_fraction(epsilon, "epsilon")
    if not 0 < e <= 100:
        raise ValueError(
            f"epsilon must be in (0, 100] (the learners' range; hypothesis of {name}), got {epsilon!r}"
        )
    dl = _check_unit(delta, "delta", name)
    check_privacy(e, dl)  # the noise search's own range (δ ≥ 1e-300)
    d = _check_dimension(dim, "dim", name)
    if name == "Theorem 4.1":
        if degree is not None:
            raise ValueError(
                "degree: Theorem 4.1 (Algorithms 3–4) uses no polynomial features; leave degree=None"
            )
        D = None
    elif degree is None:
        D = -((-DEGREE_CONSTANT * a.denominator**2) // a.numerator**2)  # ⌈c/α²⌉ exactly
    else:
        D = _check_dimension(degree, "degree", name)
    if D is not None and D > MAX_DEGREE:
        raise ValueError(
            f"alpha = {alpha} asks for polynomial degree D with about {int(D.bit_length() * 0.30103)} "
            "digits (D ≤ 10^12 is taken): the sample size could not be written out; use a larger alpha"
        )
    target = {
        "alpha": str(a),
        "beta": str(b),
        "epsilon": str(e),
        "delta": str(dl),
        "dim": d,
        "degree": D,
        "degree_given": degree is not None,
    }
    with interval_precision(PREC):
        builders: dict[str, Callable[..., Any]] = {
            "Theorem 2.1": _theorem_2_1,
            "Theorem 3.1": _theorem_3_1,
            "Theorem 4.1": _theorem_4_1,
        }
        parameters, terms, substitutes = builders[name](a, b, e, dl, d, D, accounting)
    n = sum(t.value for t in terms)
    return AgnosticSampleSize(name, accounting, target, parameters, tuple(terms), n, tuple(substitutes))


def _theorem_2_1(
    a: Fraction, b: Fraction, e: Fraction, dl: Fraction, d: int, D: int, accounting: str
) -> tuple[dict[str, Any], list[SampleTerm], list[str]]:
    """Algorithm 1. err(ĥ) ≤ OPT + approx/2 + clip + grid + opt_E + gen/2 + selection, each
    share α/6 (our split): k training blocks of m = m_stat + m_priv, one validation block."""
    F = math.comb(d + D, D)
    R = 1  # Lemma B.10: unit coefficient ball
    B2 = 3 * Fraction(F) / a  # Markov: Pr[‖φ‖ > B] ≤ F/B² = α/3
    B = iv.sqrt(_iv(B2))
    thresholds = _ceil(6 / _iv(a))  # grid cost ≤ 1/N_θ ≤ α/6
    k = _ceil_log2(3 / b)  # 2^{−k} ≤ β/3 (Markov, ≥ 1/2 per block)
    beta_gen = b / (3 * k)
    steps = _ceil((6 * R * (1 + _iv(B2)) / _iv(a)) ** 2)  # R(1+B²)/(2√T) ≤ α/12
    kappa, steps_rule = _steps_kappa(e, dl, steps, accounting)
    rb = R * B
    m_stat = _ceil((6 * (2 * rb + (rb + 1) * iv.sqrt(iv.log(_iv(2 / beta_gen)) / 2)) / _iv(a)) ** 2)
    m_priv = _ceil(24 * R * iv.sqrt(_iv(F)) * B * kappa / _iv(a))
    m = m_stat + m_priv
    candidates = k * thresholds
    val_stat, val_priv = _selection(candidates, b / 3, a / 12, a / 12, e, "Theorem 2.1")
    m_val = val_stat.value + val_priv.value
    terms = [
        SampleTerm(
            "training: statistical",
            "Theorem 2.1 (private_l1.excess_risk_bound, generalisation; Shalev-Shwartz–Ben-David Thm 26.5)",
            "k·⌈(6(2RB + (RB+1)√(ln(2/β_g)/2))/α)²⌉: generalisation ≤ α/3, β_g = β/(3k)",
            k * m_stat,
            f"k = {k} blocks of {m_stat}",
        ),
        SampleTerm(
            "training: privacy",
            f"Theorem 2.1 (Lemma B.4 substitute: excess_risk_bound, optimisation; {steps_rule})",
            "k·⌈24 R√F·B·κ/α⌉, κ = σ/(Δ√T): the noise part R√F σ/√T ≤ α/12",
            k * m_priv,
            f"k = {k} blocks of {m_priv}",
        ),
        val_stat,
        val_priv,
    ]
    parameters = {
        "F": F,
        "blocks": k,
        "block_size": m,
        "validation_size": m_val,
        "T": steps,
        "clip_norm": _shown(B),
        "clip_norm_squared": str(B2),
        "radius": R,
        "n_thresholds": thresholds,
        "candidates": candidates,
        "kappa": _shown(kappa),
        "steps_rule": steps_rule,
        "sigma_over_sensitivity": _shown(kappa * iv.sqrt(_iv(steps))),
        "error_shares": {
            "approximation (Lemma B.10, reserved)": str(a / 6),
            "clipping (Lemma C.2)": str(a / 6),
            "threshold grid": str(a / 6),
            "optimisation": str(a / 6),
            "generalisation": str(a / 6),
            "selection (Lemma B.5)": str(a / 6),
        },
        "failure_shares": {
            "Markov over k blocks": str(b / 3),
            "generalisation": str(b / 3),
            "selection": str(b / 3),
        },
    }
    substitutes = [
        f"degree D = ⌈{DEGREE_CONSTANT}/α²⌉ (Lemma B.10's universal constant taken as {DEGREE_CONSTANT}); "
        "its L1 approximation error is assumed ≤ α/3 (share α/6 after halving) — measured for the L2 "
        "projection: ≈ 1.1–1.5α at this degree, so the assumption needs a larger degree",
        "error split into six equal shares α/6 and failure into three β/3 (our choice)",
        "clip norm B = √(3F/α) by Markov (Pr[clip] ≤ α/3), standing in for the lost Lemma C.2; "
        "the seed's statement 'clipping raises the population loss by at most Pr[clip]' is used as given",
        "optimiser: noisy projected subgradient (private_l1, substitute for Kulkarni–Lee–Liu); "
        "T = ⌈(6R(1+B²)/α)²⌉ from its bound R(1+B²+2Fσ²)/(2√T√(1+Fσ²)) ≤ R(1+B²)/(2√T) + R√Fσ/√T",
        "k = ⌈log₂(3/β)⌉ blocks: Markov makes each block's excess ≤ 2× its expectation w.p. ≥ 1/2",
        "threshold grid of N_θ = ⌈6/α⌉ points of [−1, 1]: costs ≤ 1/N_θ over Kalai et al.'s best θ",
    ]
    return parameters, terms, substitutes


def _theorem_3_1(
    a: Fraction, b: Fraction, e: Fraction, dl: Fraction, d: int, D: int, accounting: str
) -> tuple[dict[str, Any], list[SampleTerm], list[str]]:
    """Algorithm 2. Polynomial block: ‖ĉ − c‖ ≤ ζ = α/4 (bias, sampling, noise ≤ ζ/3 each);
    subspace k = min(d, ⌊D(1+ζ)²/η⌋), η = α²/4; cover ρ = α/8; thresholds α/8; selection α/4."""
    F = math.comb(d + D, D)
    zeta = a / 4
    noise = _single_noise(e, dl, accounting)
    B = 3 * Fraction(F) / (4 * zeta)  # bias E[(‖φ‖ − B)₊] ≤ F/(4B) ≤ ζ/3
    beta_poly = b / 4
    m_stat = _ceil(8 * _iv(F) * (iv.log(_iv(1 / beta_poly)) + iv.mpf(1) / 4) / _iv(zeta / 3) ** 2)
    m_priv = _ceil(
        2
        * _iv(B)
        * noise.single
        * (iv.sqrt(_iv(F)) + iv.sqrt(2 * iv.log(_iv(1 / beta_poly))))
        / _iv(zeta / 3)
    )
    eta = a**2 / 4
    k = max(1, min(d, math.floor(D * (1 + zeta) ** 2 / eta)))
    rho = a / 8
    cells = max(1, _ceil(2 * iv.sqrt(_iv(k - 1)) / _iv(rho))) if k > 1 else 1
    cover = (cells + 1) ** k - (cells - 1) ** k
    tau = iv.sqrt(2 * iv.log(_iv(8 / a)))  # Φ(−τ) ≤ e^{−τ²/2}/2 = α/16
    n_thresholds = _ceil(16 * tau / (_iv(a) * iv.sqrt(2 * iv.pi))) + 1
    candidates = cover * n_thresholds
    val_stat, val_priv = _selection(candidates, b / 2, a / 8, a / 8, e, "Theorem 3.1")
    terms = [
        SampleTerm(
            "polynomial: statistical",
            "Theorem 3.1 (Lemma 3.4; vector Bernstein, Gross 2011 Thm 12 / Kohler–Lucchi 2017 Lemma 18)",
            "⌈8F(ln(4/β) + 1/4)/(ζ/3)²⌉: ‖c_emp − c̃‖ ≤ ζ/3 (valid as ζ/3 ≤ F/(2B))",
            m_stat,
        ),
        SampleTerm(
            "polynomial: privacy",
            f"Theorem 3.1 (Lemma 3.4; {noise.single_rule})",
            "⌈2B·(σ/Δ)(√F + √(2 ln(4/β)))/(ζ/3)⌉: ‖N(0, σ²I_F)‖ ≤ ζ/3, Δ = 2B/m",
            m_priv,
        ),
        val_stat,
        val_priv,
    ]
    parameters = {
        "F": F,
        "blocks": 2,
        "block_size": m_stat + m_priv,
        "validation_size": val_stat.value + val_priv.value,
        "zeta": str(zeta),
        "clip_norm": str(B),
        "sigma_over_sensitivity": _shown(noise.single),
        "gaussian_rule": noise.single_rule,
        "subspace_dim": k,
        "eigenvalue_threshold": str(eta),
        "cover_cells": cells,
        "cover_resolution": str(Fraction(2, cells)),
        "cover_size": cover,
        "threshold_range": _shown(tau),
        "n_thresholds": n_thresholds,
        "candidates": candidates,
        "error_shares": {
            "subspace reduction (Lemmas 3.2, 3.5, reserved)": str(a / 2),
            "cover (Fact B.12)": str(a / 8),
            "thresholds": str(a / 8),
            "selection (Lemma B.5)": str(a / 4),
        },
        "failure_shares": {
            "polynomial sampling": str(b / 4),
            "polynomial noise": str(b / 4),
            "selection": str(b / 2),
        },
    }
    substitutes = [
        f"degree D = ⌈{DEGREE_CONSTANT}/α²⌉ (hidden constant taken as {DEGREE_CONSTANT})",
        "Lemmas 3.2/3.5: ‖ĉ − c‖ ≤ ζ = α/4 and eigenvalue threshold η = α²/4 are assumed to give a "
        "halfspace in V with error ≤ OPT + α/2 (the seed's constants are lost)",
        "subspace dimension k = min(d, ⌊D(1+ζ)²/η⌋): eigenvalues ≥ η number ≤ tr M/η ≤ D‖ĉ‖²/η "
        "(the learner's default k = 2 is a different, fixed choice)",
        "clip norm B = 3F/(4ζ) so that the clipping bias ‖E[y(φ − φ̃)]‖ ≤ E[(‖φ‖ − B)₊] ≤ F/(4B) ≤ ζ/3 "
        "(Markov-type; stands in for the lost Lemma C.2)",
        "cover: cube-surface grid of s = ⌈2√(k−1)/ρ⌉ cells (proper.sphere_cover), radius ρ = α/8; "
        "Fact B.12's disagreement constant taken as 1 (disagreement ≤ ‖u − v‖)",
        "thresholds on [−τ, τ], τ = √(2 ln(8/α)), N_θ = ⌈16τ/(α√(2π))⌉ + 1 (our choice)",
        *noise.substitutes,
    ]
    return parameters, terms, substitutes


def _theorem_4_1(
    a: Fraction, b: Fraction, e: Fraction, dl: Fraction, d: int, D: None, accounting: str
) -> tuple[dict[str, Any], list[SampleTerm], list[str]]:
    """Algorithms 3–4: J guesses ŏ_j = 2^{−j}/4 down to ŏ_min ≤ α, J runs of T + 2 blocks of one
    size b (as the learner partitions), one validation block (slack α/2)."""
    J = 1 + _ceil_log2(max(Fraction(1), FIRST_GUESS / a))
    smallest = FIRST_GUESS / 2 ** (J - 1)
    steps = (
        _ceil_log2(max(Fraction(1), Fraction(22, 7) / (2 * smallest))) + 1
    )  # angle π/2 → ŏ_min, halving (π < 22/7)
    noise = _single_noise(e, dl, accounting)
    beta_block = b / (8 * J * (steps + 2))  # β/4 over J(T+2) blocks, halved per block
    log2b = iv.log(_iv(2 / beta_block))
    log1b = iv.log(_iv(1 / beta_block))
    o = _iv(smallest)
    val_stat, val_priv = _selection(J, b / 2, a / 4, a / 4, e, "Theorem 4.1")
    n_fixed = val_stat.value + val_priv.value

    def blocks(radius: Any) -> dict[str, tuple[int, int]]:
        r2 = radius**2
        lip = radius / (2 * o)
        return {
            "threshold (Claim 4.6)": (_ceil(128 * log2b / o**2), _ceil(16 * log1b / (_iv(e) * o))),
            "initialisation (Claim 4.5)": (
                _ceil(128 * r2 * log2b / o**2),
                _ceil(16 * radius * noise.single * iv.sqrt(2 * log2b) / o),
            ),
            "gradient step (Claim 4.3, Lemma 4.4)": (
                _ceil((8 * lip * (1 + iv.sqrt(2 * log1b))) ** 2),
                _ceil(8 * radius * noise.single * (iv.sqrt(_iv(d)) + iv.sqrt(2 * log1b)) / o),
            ),
        }

    n_guess = 1
    for _ in range(50):  # R depends on n only logarithmically
        u = iv.log(_iv(Fraction(4 * n_guess) / b))  # Laurent–Massart: Pr[clip any] ≤ β/4
        radius = iv.mpf(iv.sqrt(_iv(d) + 2 * iv.sqrt(_iv(d) * u) + 2 * u).b)
        reqs = blocks(radius)
        b_stat = max(s for s, _ in reqs.values())
        b_priv = max(p for _, p in reqs.values())
        n = J * (steps + 2) * (b_stat + b_priv) + n_fixed
        if n <= n_guess:
            break
        n_guess = n
    else:  # pragma: no cover - the iteration converges in a few rounds
        raise RuntimeError("clip radius iteration did not converge")
    count = J * (steps + 2)
    terms = [
        SampleTerm(
            "Algorithm 3 blocks: statistical",
            "Theorem 4.1 (Proposition 4.2; Claims 4.3–4.6, DKTZ22)",
            "J(T+2)·max over block kinds of the sampling requirement",
            count * b_stat,
            f"{count} blocks; per-block statistical part {b_stat}",
        ),
        SampleTerm(
            "Algorithm 3 blocks: privacy",
            f"Theorem 4.1 (Claims 4.3, 4.5: {noise.single_rule}; Claim 4.6: Laplace)",
            "J(T+2)·max over block kinds of the noise requirement",
            count * b_priv,
            f"{count} blocks; per-block privacy part {b_priv}",
        ),
        val_stat,
        val_priv,
    ]
    parameters = {
        "guesses": J,
        "first_guess": str(FIRST_GUESS),
        "smallest_guess": str(smallest),
        "T": steps,
        "blocks": count + 1,
        "block_size": b_stat + b_priv,
        "validation_size": n_fixed,
        "clip_radius": _shown(radius),
        "sigma_over_sensitivity": _shown(noise.single),
        "gaussian_rule": noise.single_rule,
        "requirements": {kind: {"statistical": s, "privacy": p} for kind, (s, p) in reqs.items()},
        "failure_shares": {
            "clipping (Laurent–Massart)": str(b / 4),
            "Algorithm 3 runs": str(b / 4),
            "selection": str(b / 2),
        },
    }
    substitutes = [
        "guesses ŏ_j = 2^{−j}/4 (the learner's first_guess), J = smallest with ŏ_{J−1} ≤ α; ramp width s = ŏ",
        "T = ⌈log₂(π/(2ŏ_min))⌉ + 1 gradient steps: we assume DKTZ22's angle contraction halves the "
        "angle per step (their constant is not in the seed)",
        "Claim 4.6: |μ̂ − μ| ≤ ŏ_min/4 (sampling ŏ/8 + Laplace ŏ/8) stands in for DKTZ22 Claim C.9's tolerance",
        "Claim 4.5: the noisy mean's error along w* ≤ ŏ_min/4 (Hoeffding on [−R, R] + 1-d Gaussian tail) "
        "stands in for DKTZ22's initial-correlation condition",
        "Claim 4.3 / Lemma 4.4: ‖ĝ − ∇‖ ≤ 1/4 (sampling 1/8 by bounded differences with per-example norm "
        "R/(2s), noise 1/8 by Gaussian norm concentration) stands in for DKTZ22 Lemma C.12's tolerance",
        "clip radius R² = d + 2√(du) + 2u with u = ln(4n/β) (failure β/4; the learner's default uses "
        "u = ln(100n), failure 0.01 — pass clip_radius)",
        "all blocks one size b (as the learner partitions): b = max statistical + max privacy part",
        *noise.substitutes,
    ]
    return parameters, terms, substitutes
