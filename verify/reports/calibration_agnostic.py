"""Noise calibration of the agnostic learners of seed 002 (Theorems 2.1, D.1, 3.1, 4.1): the
discrete Gaussian noise multiplier σ/Δ the accountant certifies (grid units, through zCDP), with the textbook choice beside the tight
one. The seed lost its sample-size formulas, so this report compares noise, not n."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from dpledger.verify.reports import provenance
from dpledger.verify.reports.plotting import line_plot

TITLE = "Agnostic learners: certified noise calibration (seed 002, Theorems 2.1, D.1, 3.1, 4.1)"
DELTA = Fraction(1, 10**5)
STEPS = 30
"""T of the private L1 optimiser (``PrivateImproperLearner(steps=30)``, its default)."""
SWEEP_EPSILON = ["0.25", "0.5", "1", "2", "4"]
SWEEP_STEPS = [10, 30, 100, 300, 1000]


def _multiplier(epsilon: Fraction, steps: int, method: str) -> float:
    """σ/Δ = 1/r for the certified ratio r (the learners round σ up from it)."""
    from dpledger.learners.calibration.agnostic_noise import certified_ratio

    return float(1 / certified_ratio(epsilon, DELTA, steps, method))


def _classical(epsilon: Fraction) -> float | None:
    """Dwork–Roth Theorem A.1: σ/Δ = √(2 ln(1.25/δ))/ε, stated only for ε < 1."""
    return math.sqrt(2 * math.log(1.25 / float(DELTA))) / float(epsilon) if epsilon < 1 else None


def write(out: Path) -> tuple[list[Path], str]:
    """Write ``calibration_agnostic.md`` and its two plots; returns the paths and the title."""
    by_eps = [
        (_multiplier(Fraction(e), STEPS, "advanced"), _multiplier(Fraction(e), STEPS, "optimal"))
        for e in SWEEP_EPSILON
    ]
    by_steps = [
        (_multiplier(Fraction(1), t, "advanced"), _multiplier(Fraction(1), t, "optimal")) for t in SWEEP_STEPS
    ]
    single = [(_classical(Fraction(e)), _multiplier(Fraction(e), 1, "advanced")) for e in SWEEP_EPSILON]
    eps_plot = line_plot(
        out / "calibration_agnostic_noise_vs_epsilon.png",
        f"private L1 optimiser, T = {STEPS}, δ = 1e-5",
        "ε",
        "σ/Δ",
        [float(e) for e in SWEEP_EPSILON],
        {"advanced composition": [a for a, _ in by_eps], "optimal (certified)": [o for _, o in by_eps]},
    )
    steps_plot = line_plot(
        out / "calibration_agnostic_noise_vs_steps.png",
        "private L1 optimiser, ε = 1, δ = 1e-5",
        "T (steps)",
        "σ/Δ",
        [float(t) for t in SWEEP_STEPS],
        {"advanced composition": [a for a, _ in by_steps], "optimal (certified)": [o for _, o in by_steps]},
        log_x=True,
    )
    lines = [
        f"# {TITLE}",
        "",
        provenance("dpledger report"),
        "",
        "The learners draw exact discrete Gaussian noise on a power-of-two grid γ ≈ σ/2²⁰ "
        "(`dpledger.learners.noise`, Canonne–Kamath–Steinke 2020). Every multiplier σ/Δ is 1/r for a ratio "
        "r = Δ′/s (grid units) at which the accountant certifies the target "
        "(`dpledger.learners.calibration.agnostic_noise.certified_ratio`); the learner adds the grid-rounding term "
        "(Δ′ = Δ/γ + √D), which raises σ by a relative ≈ √D·2⁻²⁰·r. Smaller is better (less noise, fewer samples for the "
        "same excess risk). The seed's sample-size formulas were lost in extraction, so n is not compared.",
        "",
        f"## Theorem 2.1 / D.1: the private L1 optimiser (T = {STEPS} discrete Gaussian steps on the same block, δ = 1e-5)",
        "",
        r"Advanced composition (Dwork–Roth Theorem 3.20): per-step $\varepsilon_0$ solves "
        r"$\sqrt{2T\ln(1/\delta')}\,\varepsilon_0 + T\varepsilon_0(e^{\varepsilon_0}-1) = \varepsilon$ with "
        r"$\delta' = \delta/2$, $\delta_0 = \delta/(2T)$, each step's (ε₀, δ₀) from its zCDP (CKS 2020, Cor 13); "
        "optimal: zCDP composition of the T discrete Gaussian mechanisms (ρ adds up, Bun–Steinke 2016), converted "
        "once at δ (CKS 2020, Cor 13).",
        "",
        "| ε | σ/Δ advanced | σ/Δ optimal | noise ratio |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {e} | {a:.6g} | {o:.6g} | ×{a / o:.3g} |" for e, (a, o) in zip(SWEEP_EPSILON, by_eps, strict=True)
    ]
    lines += [
        "",
        f"![σ/Δ against ε]({eps_plot.name})",
        "",
        "| T | σ/Δ advanced | σ/Δ optimal | noise ratio |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {t} | {a:.6g} | {o:.6g} | ×{a / o:.3g} |" for t, (a, o) in zip(SWEEP_STEPS, by_steps, strict=True)
    ]
    lines += [
        "",
        f"![σ/Δ against T]({steps_plot.name})",
        "",
        "## Theorems 3.1 and 4.1: single discrete Gaussian releases per block (δ = 1e-5)",
        "",
        "The proper learner's noisy correlation ĉ (Step 5) and the semi-agnostic "
        "learner's noisy means each release one discrete Gaussian mechanism per block (parallel composition). The zCDP "
        "calibration (CKS 2020, Thm 4 and Cor 13) beside the classical continuous σ/Δ = √(2 ln(1.25/δ))/ε "
        "(Dwork–Roth Theorem A.1, stated for ε < 1 only):",
        "",
        "| ε | σ/Δ classical | σ/Δ discrete, zCDP (certified) |",
        "|---|---|---|",
    ]
    lines += [
        f"| {e} | {'—' if c is None else f'{c:.6g}'} | {a:.6g} |"
        for e, (c, a) in zip(SWEEP_EPSILON, single, strict=True)
    ]
    report = out / "calibration_agnostic.md"
    report.write_text("\n".join(lines) + "\n")
    return [report, eps_plot, steps_plot], TITLE
