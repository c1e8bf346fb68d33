"""``dpledger calibrate``: parameters and sample sizes from a privacy (and utility) target, the
paper's chain beside the tight certified calibration.

* ``carry-forward``: Algorithm 2's parameters and Lemma 6.12's chain (Section 6 of seed 000);
* ``5.1``, ``8.5``, ``8.8``, ``8.14`` (seed 000) and ``2.1``, ``3.1``, ``4.1`` (seed 002): sample sizes
  (:mod:`dpledger.verify.paper.theorem_calibration`);
* ``8.19``: Theorem 8.19 (Boolean compositions) beside the per-component baseline;
* ``agnostic``: the certified Gaussian noise of seed 002's learners.

Parameters outside a theorem's hypotheses are refused by the library with the hypothesis that fails.
Exit status 1 when a derived guarantee misses its target or the paper's chain fails (:func:`_status`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dpledger.accountant.numerics.certified import enclose, upper_bound_text, upper_float
from dpledger.accountant.section6 import PaperChain, Target, TightCalibration, paper_chain, tight_calibration
from dpledger.learners.calibration.sample_size import open_unit
from dpledger.verify.paper import theorem_calibration
from dpledger.verify.service import Exact, Output
from dpledger.verify.service.progress import progress, progress_callback

BASELINE = (
    "SUBSTITUTE model of Alon et al.'s closure (one sample per component): k disjoint blocks, "
    "each running A_i once on an M_A-subsample, amplified to ε by Theorem 3.4"
)
MAX_STEPS = 100_000
"""Largest T of ``calibrate agnostic`` (each certification composes T Gaussian steps)."""


def _status(*verdicts: bool | None) -> int:
    """0 when every verdict holds, else 1 (a failing or undecided verdict)."""
    return 0 if all(verdict is True for verdict in verdicts) else 1


def _theorem_output(result: dict[str, Any]) -> Output:
    """A theorem calibration's output: status 1 unless the paper's and the tight guarantee meet the
    claim and Lemma 6.12's chain (when the theorem has one) holds."""
    payload = result["payload"]
    verdicts = [payload["guarantee_paper"]["holds"], payload["guarantee_tight"]["holds"]]
    if "paper_chain" in payload:
        verdicts.append(payload["paper_chain"]["holds"])
    if payload.get("free"):
        verdicts.append(payload["free"]["guarantee"]["holds"])
    return Output(result["payload"], result["text"], _status(*verdicts))


def carry_forward_payload(chain: PaperChain, tight: TightCalibration) -> dict[str, Any]:
    """The JSON of ``calibrate carry-forward`` (also used by the calibration report)."""
    value = lambda expr: upper_float(enclose(expr))  # noqa: E731
    g = tight.derivation.guarantee
    return {
        "target": {
            "n": chain.target.n,
            "k": chain.target.k,
            "epsilon": value(chain.target.epsilon),
            "delta": value(chain.target.delta),
        },
        "paper": {
            "m": chain.m,
            "q": value(chain.q),
            "eta": value(chain.eta),
            "zeta": value(chain.zeta),
            "ell": chain.ell,
            "epsilon_res": value(chain.epsilon_res),
            "delta_res": value(chain.delta_res),
            "steps": [step.to_dict() for step in chain.steps],
            "holds": chain.holds,
            "derivation": chain.derivation.to_dict(),
        },
        "tight": {
            "m": tight.m,
            **g.bounds(),
            "holds": tight.holds,
            "composition": "optimal (Kairouz–Oh–Viswanath) per reservoir, exact amplification",
        },
        "sample_saving": tight.sample_saving,
        "n_paper_for_m": tight.n_paper_for_paper_m,
        "n_tight_for_m": tight.n_tight_for_paper_m,
    }


def _carry_forward_text(payload: dict[str, Any]) -> str:
    t, p, tt = payload["target"], payload["paper"], payload["tight"]
    lines = [
        f"CarryForwardLearner, n = {t['n']}, k = {t['k']}, target (ε, δ) = ({t['epsilon']:.6g}, {t['delta']:.6g})",
        "",
        "Paper's chain (Algorithm 2, Lemma 6.12; certified values):",
    ]
    for step in p["steps"]:
        mark = "holds" if step["holds"] else "FAILS"
        lines.append(
            f"  {step['statement']:<15} {step['quantity']:<12} = {step['value']:<12.6g} {step['claim']:<40} {mark}"
        )
    lines += [
        f"  chain holds: {p['holds']}",
        "",
        "Tight calibration (same learner structure, optimal composition, exact η):",
        f"  largest m = {tt['m']} (paper: {p['m']}); guarantee ε ≤ {upper_bound_text(tt['epsilon'])}, δ ≤ {upper_bound_text(tt['delta'])}; holds: {tt['holds']}",
    ]
    lines.append(
        f"  for m = {p['m']}: paper's formula needs n = {payload['n_paper_for_m']}, tight accounting needs "
        f"n = {payload['n_tight_for_m']} — sample saving ×{payload['sample_saving']:.3g}"
    )
    return "\n".join(lines + _utility_text(payload))


MAX_CARRY_FORWARD_N = 10**308
"""Largest n (exclusive) of ``calibrate carry-forward``: m, the chain's values and the sample sizes
are reported as floats, which end at 1.8·10³⁰⁸."""


def carry_forward(
    *,
    n: int,
    k: int,
    epsilon: Exact,
    delta: Exact,
    alpha: Exact = "0.1",
    beta: Exact = "0.1",
    oracle_m: int | None = None,
    vc: int | None = None,
    component_class: str | None = None,
    domain_size: int = 2**16,
) -> Output:
    """CarryForwardLearner (Algorithm 2) on n records with k components at target (ε, δ): Lemma
    6.12's chain at Algorithm 2's m, and the largest m the tight certified calibration allows
    (its searches draw a progress bar on stderr: thousands of accountings at n ≈ 10³⁰⁰); with
    the oracles' M_A (``oracle_m`` and ``vc``, or a grid ``component_class`` on [0,
    ``domain_size``)) also utility: whether either m reaches Theorem 7.2's m for (α, β), and the n
    each calibration needs for it (:func:`_utility`)."""
    if n >= MAX_CARRY_FORWARD_N:
        raise ValueError(
            f"n has {len(str(n))} digits: the chain's values are reported as floats, so n must be below 1e308"
        )
    for value, name in ((alpha, "alpha"), (beta, "beta")):
        open_unit(value, name, "Theorem 5.1")
    report = progress_callback("tight calibration (accountings)")  # its delay counts from here
    target = Target.of(n, k, epsilon, delta)
    utility_run = None
    if oracle_m is not None or component_class is not None:
        utility_run = theorem_calibration.theorem_5_1_oracle(
            k,
            vc,
            alpha,
            beta,
            epsilon,
            delta,
            oracle_m=oracle_m,
            component_class=component_class,
            domain_size=domain_size,
        )[:3]
    elif vc is not None:
        raise ValueError("vc: give --oracle-m with --vc (or --class) for the utility check")
    chain = paper_chain(target)
    tight = tight_calibration(target, chain.m, on_progress=report)
    payload = carry_forward_payload(chain, tight)
    payload["utility"] = None if utility_run is None else _utility(target, chain.m, tight.m, *utility_run)
    return Output(
        payload, _carry_forward_text(payload), _status(payload["paper"]["holds"], payload["tight"]["holds"])
    )


def _utility(
    target: Target, paper_m: int, tight_m: int, run: Any, m_oracle: int, oracle: str
) -> dict[str, Any]:
    """Theorem 5.1's utility side at n: Theorem 7.2's m = max(LabelBoost term, M_A) for (α, β),
    whether the paper's and the tight m reach it, and the n each calibration needs for it (the
    paper's formula; the tight accounting's bisection)."""
    from dpledger.accountant.section6 import needed_n, tight_n
    from dpledger.learners.calibration.sample_size import labelboost_term

    m_labelboost = labelboost_term(run)
    needed = max(m_labelboost, m_oracle)
    n_paper = needed_n(target, needed)
    return {
        "alpha": upper_float(enclose(run.alpha)),
        "beta": upper_float(enclose(run.beta)),
        "oracle": oracle,
        "labelboost_term": m_labelboost,
        "labelboost_constant": "SUBSTITUTE c = 1 (Theorem 3.10's universal constant is not stated)",
        "M_A": m_oracle,
        "m_needed": needed,
        "paper": {"m": paper_m, "meets": paper_m >= needed, "n_needed": n_paper},
        "tight": {
            "m": tight_m,
            "meets": tight_m >= needed,
            "n_needed": tight_n(target, needed, high_block=n_paper // 3 + 1),
        },
    }


def _utility_text(payload: dict[str, Any]) -> list[str]:
    """The utility lines of ``calibrate carry-forward``."""
    u = payload["utility"]
    if u is None:
        return [
            "",
            "Utility: not assessed — give --class (a grid class with the completion-score oracle) or --oracle-m "
            "and --vc, with --alpha and --beta (default 0.1), for Theorem 5.1's sample size",
        ]
    n = payload["target"]["n"]
    lines = [
        "",
        f"Utility (Theorem 5.1, target (α, β) = ({u['alpha']:g}, {u['beta']:g}); oracle: {u['oracle']}):",
        f"  Theorem 7.2 needs m ≥ {u['m_needed']} = max(M_A = {u['M_A']}, LabelBoost term {u['labelboost_term']} "
        "with SUBSTITUTE c = 1)",
    ]
    for name, label in (("paper", "paper's formula"), ("tight", "tight accounting")):
        row = u[name]
        verdict = "met" if row["meets"] else "not met"
        lines.append(
            f"  {name:<5} m = {row['m']}: {verdict} — the {label} gives m ≥ {u['m_needed']} at n ≥ {row['n_needed']:,}"
        )
    if not u["tight"]["meets"]:
        lines.append(
            f"  WARNING: at n = {n:,} neither calibration reaches Theorem 7.2's m: the learner is not promised "
            "error ≤ α with probability ≥ 1 − β"
        )
    elif not u["paper"]["meets"]:
        lines.append(
            "  WARNING: the paper's m is below Theorem 7.2's m at this n: run the learner with calibration=\"tight\" "
            "(its default)"
        )
    return lines


def theorem_5_1(
    *,
    oracle_m: int | None = None,
    k: int | None = None,
    vc: int | None = None,
    component_class: str | None = None,
    domain_size: int = 2**16,
    alpha: Exact = "0.1",
    beta: Exact = "0.1",
    epsilon: Exact = "0.5",
    delta: Exact = "1e-6",
) -> Output:
    """Theorem 5.1: m and n for oracles of requirement M_A = ``oracle_m`` on a class of k components
    and VC dimension ``vc``, or for the completion-score oracle on a grid ``component_class`` over
    [0, ``domain_size``) (which sets k and the VC dimension)."""
    return _theorem_output(
        theorem_calibration.theorem_5_1(
            k,
            vc,
            alpha,
            beta,
            epsilon,
            delta,
            oracle_m=oracle_m,
            component_class=component_class,
            domain_size=domain_size,
        )
    )


def halfspace_theorem(
    *,
    theorem: str,
    oracle: str,
    dimension: int = 2,
    grid: int = 16,
    alpha: Exact = "0.1",
    beta: Exact = "0.1",
    epsilon: Exact = "0.5",
    delta: Exact = "1e-6",
) -> Output:
    """Theorem 8.5, 8.8 or 8.14 (``theorem``, e.g. ``"Theorem 8.8"``): halfspaces over [[±grid]]^d
    learned by CarryForwardLearner with ``oracle``."""
    return _theorem_output(
        theorem_calibration.halfspace_theorem(theorem, oracle, dimension, grid, alpha, beta, epsilon, delta)
    )


def agnostic_theorem(
    *,
    theorem: str,
    dimension: int = 10,
    degree: int | None = None,
    alpha: Exact = "0.2",
    beta: Exact = "0.1",
    epsilon: Exact = "0.5",
    delta: Exact = "1e-6",
) -> Output:
    """Theorem 2.1, 3.1 or 4.1 of seed 002 (``theorem``): the as-implemented sample size under the
    paper's noise accounting and the certified one (``degree``: None for the learner's default)."""
    return _theorem_output(
        theorem_calibration.agnostic_theorem(theorem, dimension, degree, alpha, beta, epsilon, delta)
    )


def theorem_8_19(
    *,
    k: int,
    components: Sequence[str] | None = None,
    domain_size: int = 2**16,
    alpha: Exact = "0.1",
    beta: Exact = "0.1",
    epsilon: Exact = "0.5",
    delta: Exact = "1e-6",
) -> Output:
    """Theorem 8.19: CarryForwardLearner with the Proposition 8.16 oracles for G(H_1, …, H_k), the
    components ``components`` (default: k thresholds) on the grid [0, ``domain_size``), paper
    against tight and against the free constants (ε_B and the utility split chosen),
    beside the per-component baseline :data:`BASELINE`. Its two calibrations draw a progress bar."""
    advance = progress(2, "calibrate 8.19 (Theorem 8.19's sample size, free constants)")
    from dpledger.learners.boolean.composition import HypothesisSpace, component_class, composition_vc_bound
    from dpledger.learners.calibration import free_constants
    from dpledger.learners.calibration.boolean import separate_samples_baseline
    from dpledger.learners.calibration.boolean import theorem_8_19 as calibration

    names = list(components) if components else ["thresholds"] * k
    if len(names) != k:
        raise ValueError(f"components: --k is {k} but {len(names)} component classes were given")
    classes = [component_class(name, domain_size) for name in names]
    rows = [(name, H.vc_dimension, len(HypothesisSpace(H))) for name, H in zip(names, classes, strict=True)]
    vc = composition_vc_bound([H.vc_dimension for H in classes])
    result = calibration(rows, vc, alpha, beta, epsilon, delta)
    advance(1)
    sample = result.sample
    baseline = separate_samples_baseline(result.m_oracle, k, epsilon)
    sample_json, sample_lines = theorem_calibration.sample_report(sample)
    free_json, free_lines = theorem_calibration.free_report(
        free_constants.theorem_8_19(sample.run, rows), sample.n_paper, sample.n_tight
    )
    advance(2)
    payload: dict[str, Any] = {
        "statement": "Theorem 8.19",
        "target": {"k": k, "alpha": alpha, "beta": beta, "epsilon": epsilon, "delta": delta},
        "components": [c.to_dict() for c in result.components],
        "parameters": {
            "epsilon_B": 1,
            "delta_B": upper_float(enclose(result.delta_b)),
            **sample.run.to_dict(),
        },
        "vc_bound": vc,
        **sample_json,
        "free": free_json,
        "baseline": {"n": baseline, "model": BASELINE},
        "ratio_n_over_baseline": sample.n_paper / baseline,
    }
    lines = [
        f"Theorem 8.19 for G(H_1..H_{k}) on [0, {domain_size}): α = {alpha}, β = {beta}, "
        f"ε = {epsilon}, δ = {delta}",
        "  choices: ε_B = 1, δ_B = δ/(64e²k) (B_i pure: δ_A = 0), τ = α/(40k), β_A = β/(4k)",
    ]
    for c in result.components:
        lines.append(
            f"  {c.name:<11} d = {c.vc_dimension}, |H| = {c.hypotheses}, m_B(τ/2, β_A/2, 1) = {c.m_b}, "
            f"ARelabel |S| = {c.m_relabel}, M_A,i = {c.m_oracle}"
        )
    lines += [
        f"  VC(C) ≤ {vc} (composition bound)",
        *sample_lines,
        *free_lines,
        f"  baseline ({BASELINE}): n = {baseline}; CarryForwardLearner (paper) / baseline = "
        f"{sample.n_paper / baseline:.4g}",
    ]
    return _theorem_output({"payload": payload, "text": "\n".join(lines)})


def agnostic_noise(*, epsilon: Exact, delta: Exact, steps: int = 300) -> Output:
    """The discrete Gaussian noise σ/Δ (grid units, before the grid-rounding term) the agnostic
    learners of seed 002 need for (ε, δ), certified by the accountant: Theorems 2.1/D.1 — T
    adaptively composed steps of the private L1 optimiser on one block, under advanced composition
    (Dwork–Roth Theorem 3.20) and under zCDP composition (Bun–Steinke 2016; CKS 2020, Cor 13);
    Theorems 3.1/4.1 — one discrete Gaussian release per block.
    The seed lost its sample-size formulas, so noise, not n, is calibrated."""
    from fractions import Fraction

    from dpledger.accountant import account
    from dpledger.learners.calibration.agnostic_noise import certified_ratio, check_privacy, noise_event

    privacy = check_privacy(epsilon, delta)  # the learners' range: 0 < ε ≤ 100, 0 < δ < 1
    if privacy is None:
        raise ValueError("epsilon: the noise is calibrated for a given ε")
    eps, dlt = privacy
    if steps > MAX_STEPS:
        raise ValueError(f"steps must be at most {MAX_STEPS}, got {steps}")
    plan = (
        ("theorem_2_1_l1_optimiser_advanced", steps, "advanced"),
        ("theorem_2_1_l1_optimiser_exact_gaussian", steps, "optimal"),
        ("theorem_3_1_4_1_single_release", 1, "optimal"),
    )
    rows: dict[str, dict[str, Any]] = {}
    for name, count, method in plan:
        ratio = certified_ratio(eps, dlt, count, method)
        guarantee = account(noise_event(1 / ratio, Fraction(1), dlt, count, method)).guarantee
        rows[name] = {
            "steps": count,
            "method": method,
            "sigma_over_sensitivity": float(1 / ratio),
            **guarantee.bounds(),
            "holds": guarantee.meets(eps, dlt).holds,
        }
    payload = {"epsilon": float(eps), "delta": float(dlt), "calibrations": rows}
    lines = [
        f"Certified discrete Gaussian noise for the agnostic learners, target (ε, δ) = ({epsilon}, {delta}):"
    ]
    for key, row in rows.items():
        lines.append(
            f"  {key:<42} T = {row['steps']:<6} σ/Δ = {row['sigma_over_sensitivity']:<12.6g} "
            f"certified ε ≤ {upper_bound_text(row['epsilon'])}, δ ≤ {upper_bound_text(row['delta'], 3)}: {'holds' if row['holds'] else 'FAILS'}"
        )
    return Output(payload, "\n".join(lines), _status(*(row["holds"] for row in rows.values())))
