"""Sample-size calibration of the CarryForwardLearner theorems of seed 000 from a target
(α, β, ε, δ): Theorem 5.1 (generic oracles; with the completion-score oracle also the free-constant
calibration of :mod:`dpledger.learners.calibration.free_constants`, :func:`free_report`), Theorem 8.5 with the halfspace oracles
(Theorems 8.8, 8.14), and Theorems 2.1, 3.1, 4.1 of seed 002 — each as a JSON-ready payload
and its text, shared by ``dpledger calibrate <theorem>`` and the calibration reports.
Theorem 8.19 lives in :func:`dpledger.verify.service.calibrate.theorem_8_19`.
"""

from __future__ import annotations

from typing import Any

from dpledger.accountant.numerics.certified import enclose, upper_bound_text, upper_float
from dpledger.learners.calibration.free_constants import FreeCalibration
from dpledger.learners.calibration.sample_size import SampleComplexity, UtilityTarget

COMMON_HYPOTHESES = ("α, β, δ ∈ (0, 1)", "ε ∈ (0, 1] (Lemma 6.12 needs ε ≤ 1)", "δ ≤ β")
FREE_SEARCH = (
    "free constants: τ = α/(20(k+1)) and kβ_A + kβ_LB + (k+1)β_VC = β (Theorem 7.2's proof), δ_A = 0 "
    "(pure oracles), the oracle's ε searched to minimise m·(e^{ε_A + 2c_LB} − 1); n certified at the choice "
    "(dpledger.learners.calibration.free_constants)"
)
HYPOTHESES = {
    "Theorem 5.1": (
        *COMMON_HYPOTHESES,
        "a k-component parameterization with VC(C) = v",
        "oracles A_1..A_k satisfying Assumption 4.4 with common requirement M_A",
    ),
    "Theorem 8.5": (
        *COMMON_HYPOTHESES,
        "halfspaces over the grid [[±X]]^d, k = d + 1",
        "oracles satisfying Assumption 4.4 under general position, outputs in Definition 8.2's domains",
    ),
    "Theorem 8.8": (
        *COMMON_HYPOTHESES,
        "halfspaces over the grid [[±X]]^d",
        "QCOpt oracles (Lemma 8.7), β_A ≥ δ_A",
    ),
    "Theorem 8.14": (
        *COMMON_HYPOTHESES,
        "halfspaces over the grid [[±X]]^d",
        "IPConcave oracles (Lemma 8.13)",
    ),
}


def count_text(n: int) -> str:
    """An integer for the text output: with thousands separators below 10¹⁵, else in scientific
    notation with 4 significant digits rounded up (the JSON keeps every digit)."""
    if n < 10**15:
        return f"{n:,}"
    exponent = len(str(n)) - 4
    mantissa = str(-(-n // 10**exponent))  # 4 digits, or 10000 after rounding up
    exponent += len(mantissa) - 1
    return f"{mantissa[0]}.{mantissa[1:4]}e{exponent}"


def _chain(sample: SampleComplexity) -> dict[str, Any]:
    """Lemma 6.12's chain at the paper's n with the run's (ε, δ): every step and its verdict."""
    from dpledger.accountant.section6 import Target, paper_chain

    run = sample.run
    chain = paper_chain(Target.of(sample.n_paper, run.k, run.epsilon, run.delta))
    command = (
        f"dpledger calibrate carry-forward --n {sample.n_paper} --k {run.k} "
        f"--epsilon {run.epsilon} --delta {run.delta}"
    )  # exact values (sympy prints rationals as p/q)
    return {"holds": chain.holds, "steps": [step.to_dict() for step in chain.steps], "command": command}


def free_report(free: FreeCalibration, n_paper: int, n_tight: int) -> tuple[dict[str, Any], list[str]]:
    """The JSON and text lines of the free-constant calibration beside the paper's and the tight n."""
    c = free.to_dict()
    g = free.guarantee
    payload = {
        **c,
        "search": FREE_SEARCH,
        "saving_over_paper": n_paper / free.n,
        "saving_over_tight": n_tight / free.n,
    }
    k = c["constants"]
    choices = dict(free.choices)
    oracle = (
        f"ε_A = {choices['epsilon_A']}"
        if "epsilon_A" in choices
        else f"ε_B = {choices['epsilon_B']}, ε_A ≤ {upper_bound_text(k['epsilon_A'])} (derived), B̂'s share of τ "
        f"θ = {choices['learner_tau_share']} (ARelabel 1 − θ)"
    )
    text = [
        f"  n (free constants: {oracle}, δ_A = 0, τ = α/(20(k+1)) = {k['tau']:.6g}, β_A = ρβ/k with ρ = {k['rho']}, "
        f"β_LB = β_VC = (1 − ρ)β/(2k+1) = {k['beta_LB']:.3g}) = {count_text(free.n)} — ×{payload['saving_over_paper']:.4g} "
        f"below the paper, ×{payload['saving_over_tight']:.3g} below tight",
        f"    m = max(Lemma 7.1 term with SUBSTITUTE c = 1/40: {free.m_labelboost}, M_A = {free.m_oracle}) = {free.m}; "
        f"derived guarantee at n: ε ≤ {g.epsilon_text()}, δ ≤ {g.delta_text(3)}: "
        f"{'holds' if free.holds else 'FAILS'}; error ≤ 20(k+1)τ = {c['error_bound']:.6g}, "
        f"failure ≤ {upper_bound_text(c['failure_bound'])}",
    ]
    return payload, text


def sample_report(sample: SampleComplexity) -> tuple[dict[str, Any], list[str]]:
    """The JSON and the text lines of a CarryForwardLearner theorem's sample complexity, with
    Lemma 6.12's chain at the paper's n (derived once for both)."""
    chain = _chain(sample)
    failing = [f"{step['statement']} {step['claim']}" for step in chain["steps"] if not step["holds"]]
    text = [
        f"  LabelBoost term c·(kv/α)·ln(320k²/(αβ)) with SUBSTITUTE c = 1: {sample.m_labelboost}",
        f"  M_A = {sample.m_oracle}",
        f"  active sample m = max(M_A, LabelBoost term) = {sample.m} (Theorem 7.2)",
        f"  n (paper: Algorithm 2 line 2 at the run's ε, δ) = {count_text(sample.n_paper)}",
        f"  n (tight: optimal composition, exact amplification, same m and oracles) = {count_text(sample.n_tight)} "
        f"— sample saving ×{sample.saving:.3g}",
        *(
            f"  derived guarantee, {name}: ε ≤ {g.epsilon_text()}, δ ≤ {g.delta_text(3)} against the claim "
            f"({upper_float(enclose(sample.claim[0])):.6g}, {upper_float(enclose(sample.claim[1])):.3g}): "
            f"{'holds' if g.meets(*sample.claim).holds else 'FAILS'}"
            for name, g in (("paper at n_paper", sample.paper), ("tight at n_tight", sample.tight))
        ),
        f"  Lemma 6.12's chain at n_paper: {len(chain['steps'])} steps, "
        + ("all hold" if not failing else f"FAILS at {'; '.join(failing)}")
        + f" ({chain['command']})",
    ]
    return {**sample.to_dict(), "paper_chain": chain}, text


def theorem_5_1_oracle(
    k: int | None,
    vc: int | None,
    alpha: Any,
    beta: Any,
    epsilon: Any,
    delta: Any,
    *,
    oracle_m: int | None = None,
    component_class: str | None = None,
    domain_size: int | None = None,
) -> tuple[UtilityTarget, int, str, int | None]:
    """The run of Theorem 5.1 and its oracles' M_A: given (``oracle_m``, with ``k`` and ``vc``), or
    that of the completion-score oracle on a grid ``component_class`` over [0, ``domain_size``)
    (which sets k and v; a ``k`` given too must agree).

    Returns:
        The :class:`~dpledger.learners.calibration.sample_size.UtilityTarget`, M_A, a line
        describing the oracle, and max_i |Y_i| for the completion-score oracle (else None).

    Raises:
        ValueError: both or neither of ``oracle_m`` and ``component_class``, or a value outside
            the theorem's hypotheses.
    """
    from dpledger.learners.calibration.sample_size import UtilityTarget
    from dpledger.learners.component_oracles import completion_oracle_m, largest_component_domain
    from dpledger.learners.concept_classes import make_class

    if (oracle_m is None) == (component_class is None):
        raise ValueError("give exactly one of oracle_m (M_A of your oracles) and component_class")
    description = f"M_A = {oracle_m} (given)"
    candidates = None
    if component_class is not None:
        if domain_size is None:
            raise ValueError("domain_size is needed with component_class")
        concept = make_class(component_class, domain_size)
        if k is not None and k != concept.k:
            raise ValueError(f"k: {component_class} have k = {concept.k} components, got k = {k}")
        k, vc = concept.k, concept.vc_dimension
        candidates = largest_component_domain(concept)
        description = (
            f"completion-score oracle (exponential mechanism, ε_A = 4) on {component_class} over "
            f"[0, {domain_size}): |Y_i| ≤ {candidates}, M_A = ⌈2 ln(|Y_i|/β_A)/(ε_A τ)⌉"
        )
    elif isinstance(oracle_m, bool) or not isinstance(oracle_m, int) or oracle_m < 1:
        raise ValueError(f"oracle_m must be an integer ≥ 1, got {oracle_m!r}")
    elif k is None or vc is None:
        raise ValueError("k and vc are needed with oracle_m (a component_class sets them)")
    run = UtilityTarget.of("Theorem 5.1", k, vc, alpha, beta, epsilon, delta)
    if candidates is None:
        assert oracle_m is not None  # checked above
        return run, oracle_m, description, None
    return run, completion_oracle_m(candidates, run.tau, run.beta_oracle), description, candidates


def theorem_5_1(
    k: int | None,
    vc: int | None,
    alpha: Any,
    beta: Any,
    epsilon: Any,
    delta: Any,
    *,
    oracle_m: int | None = None,
    component_class: str | None = None,
    domain_size: int | None = None,
) -> dict[str, Any]:
    """Theorem 5.1 / Corollary 7.3: M_A given (``oracle_m``), or that of the completion-score
    oracle on a grid class (``component_class`` on [0, ``domain_size``), whose k and VC
    dimension then replace ``k`` and ``vc``; :func:`theorem_5_1_oracle`)."""
    from dpledger.learners.calibration import free_constants
    from dpledger.learners.calibration.sample_size import carry_forward_sample_complexity

    run, m_oracle, description, candidates = theorem_5_1_oracle(
        None if component_class is not None else k,
        vc,
        alpha,
        beta,
        epsilon,
        delta,
        oracle_m=oracle_m,
        component_class=component_class,
        domain_size=domain_size,
    )
    k, vc = run.k, run.vc
    sample = carry_forward_sample_complexity(run, lambda n: m_oracle)
    sample_json, sample_lines = sample_report(sample)
    free_json: dict[str, Any] | None = None
    free_lines = [
        "  n (free constants): not computed — with a given M_A the oracle's dependence on ε_A, τ, β_A is unknown "
        "(use --class)"
    ]
    if candidates is not None:
        free_json, free_lines = free_report(
            free_constants.theorem_5_1(run, candidates), sample.n_paper, sample.n_tight
        )
    payload = {
        "statement": "Theorem 5.1",
        "hypotheses": list(HYPOTHESES["Theorem 5.1"]),
        "oracle": description,
        **sample_json,
        "free": free_json,
    }
    text = [
        f"Theorem 5.1 (CarryForwardLearner): k = {k}, v = {vc}, α = {alpha}, β = {beta}, ε = {epsilon}, δ = {delta}",
        "  choices (Algorithm 2 line 3): τ = α/(40k), β_A = β/(4k), ε_A = 4, δ_A = δ/(16ek)",
        f"  oracle: {description}",
        *sample_lines,
        *free_lines,
    ]
    return {"payload": payload, "text": "\n".join(text)}


def halfspace_theorem(
    statement: str, oracle: str, dimension: int, grid: int, alpha: Any, beta: Any, epsilon: Any, delta: Any
) -> dict[str, Any]:
    """Theorem 8.5 with ``oracle`` (Theorem 8.8: qcopt; 8.14: ipconcave)."""
    from dpledger.learners.calibration.halfspaces import ORACLES, THEOREM_OF_ORACLE, theorem_8_5

    allowed = [name for name, owner in THEOREM_OF_ORACLE.items() if statement in (owner, "Theorem 8.5")]
    if oracle not in allowed:
        raise ValueError(f"oracle for {statement} must be one of {', '.join(allowed)}, got {oracle!r}")
    result = theorem_8_5(oracle, dimension, grid, alpha, beta, epsilon, delta)
    o, sample = result.oracle, result.result
    sample_json, sample_lines = sample_report(sample)
    payload = {
        "statement": statement,
        "hypotheses": list(HYPOTHESES[statement]),
        **result.to_dict(),
        **sample_json,
    }
    details = (
        f"E = {o.loss:.6g}" if o.loss is not None else f"t = {o.blocks} blocks × r = {o.block_size} per block"
    )
    if o.depth is not None:
        details += f" (RecConcave at recursion depth {o.depth}{': the exponential mechanism' if o.depth == 0 else ''})"
    text = [
        f"{statement} (halfspaces over [[±{grid}]]^{dimension}, k = {dimension + 1}) with {ORACLES[oracle]}:",
        f"  α = {alpha}, β = {beta}, ε = {epsilon}, δ = {delta}",
        "  proof of Theorem 8.5: perturb (β_GP = β/2), run Algorithm 2 at (α/2, β/2, ε, δ/2): τ = α/(80k), "
        "β_A = β/(8k), ε_A = 4, δ_A = δ/(32ek)",
        f"  domains on the perturbed grid at the final n: ln N ≤ {upper_bound_text(o.ln_domain)}, log* N ≤ {o.log_star}; {details}",
        *sample_lines,
        f"  ({sample.rounds} rounds of the (m, n) fixed point: N grows with n through the perturbation)",
    ]
    return {"payload": payload, "text": "\n".join(text)}


def _agnostic_privacy(result: Any, epsilon: Any, delta: Any) -> dict[str, Any]:
    """The accountant's guarantee for the noise a seed-002 chain calibrated, against (ε, δ): the
    Gaussian releases — Theorem 2.1: T adaptively composed optimiser steps per block (advanced
    composition of classic Gaussians for the paper, exact Gaussian composition for the tight
    chain); Theorems 3.1, 4.1: one release per block at the chain's σ/Δ (rounded up) — run on
    disjoint blocks, and so does the ε-DP selection (and 4.1's Laplace threshold): parallel."""
    from fractions import Fraction

    from dpledger.accountant import account
    from dpledger.accountant.events import Composition, ExponentialMechanism, Gaussian, ParallelComposition
    from dpledger.learners.calibration.agnostic_sample_size import paper_step_ratio, tight_step_ratio
    from dpledger.learners.randomness import as_fraction

    eps, dlt = as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta")
    p = result.parameters
    if result.theorem == "Theorem 2.1":
        steps = p["T"]
        paper = result.accounting == "paper"
        ratio = (paper_step_ratio if paper else tight_step_ratio)(eps, dlt, steps)
        step = Gaussian(
            sigma=1,
            delta=dlt / (2 * steps),
            sensitivity=ratio,
            calibration="classical" if paper else "analytic",
        )
        release: Composition | Gaussian = Composition(
            (step,), method="advanced" if paper else "optimal", target_delta=dlt, repeat=steps
        )
    else:
        classical = p["gaussian_rule"].startswith("classic")
        release = Gaussian(
            sigma=Fraction(p["sigma_over_sensitivity"]),
            delta=dlt,
            calibration="classical" if classical else "analytic",
        )
    selection = ExponentialMechanism(eps, p.get("candidates", p.get("guesses", 1)))
    noise = account(release).guarantee
    guarantee = account(ParallelComposition((release, selection))).guarantee
    return {
        **guarantee.bounds(),
        "holds": guarantee.meets(eps, dlt).holds,
        "gaussian_releases": noise.bounds(),
    }


def _shown(value: float | str) -> str:
    """A display value of the seed-002 chains: a float, or a decimal string beyond float range."""
    return value if isinstance(value, str) else f"{value:.6g}"


def agnostic_theorem(
    statement: str, dimension: int, degree: int | None, alpha: Any, beta: Any, epsilon: Any, delta: Any
) -> dict[str, Any]:
    """Theorems 2.1, 3.1, 4.1 of seed 002: the as-implemented sample-size chain under the paper's
    noise accounting and under the certified one (:func:`dpledger.learners.calibration.agnostic_sample_size.sample_size`)."""
    from dpledger.learners.calibration.agnostic_sample_size import HYPOTHESES as AGNOSTIC_HYPOTHESES
    from dpledger.learners.calibration.agnostic_sample_size import sample_size

    results = {
        accounting: sample_size(
            statement,
            alpha=alpha,
            beta=beta,
            epsilon=epsilon,
            delta=delta,
            dim=dimension,
            degree=degree,
            accounting=accounting,
        )
        for accounting in ("paper", "tight")
    }
    paper, tight = results["paper"], results["tight"]
    guarantees = {accounting: _agnostic_privacy(r, epsilon, delta) for accounting, r in results.items()}
    payload = {
        "statement": statement,
        "seed": "002",
        "hypotheses": list(AGNOSTIC_HYPOTHESES[statement]),
        "paper": paper.to_dict(),
        "tight": tight.to_dict(),
        "n_paper": paper.n,
        "n_tight": tight.n,
        "guarantee_paper": guarantees["paper"],
        "guarantee_tight": guarantees["tight"],
        "sample_saving": paper.n / tight.n,
        "note": "the seed lost its sample-size formulas: the chain is built from the learner as implemented, "
        "every constant not in the seed is listed under substitutes",
    }
    degree_text = f", D = {paper.target['degree']}" if paper.target["degree"] is not None else ""
    text = [
        f"{statement} (seed 002), d = {dimension}{degree_text}: α = {alpha}, β = {beta}, ε = {epsilon}, δ = {delta}",
        "  (the seed lost its sample-size formulas; this chain is the learner as implemented, substitutes below)",
        f"  {'term':<34} {'paper':>14} {'tight':>14}",
    ]
    for term in paper.terms:
        text.append(
            f"  {term.name:<34} {count_text(term.value):>14} {count_text(tight.term(term.name).value):>14}"
        )
    text += [
        f"  {'n':<34} {count_text(paper.n):>14} {count_text(tight.n):>14}   saving ×{paper.n / tight.n:.3g}",
        f"  σ/Δ: paper {_shown(paper.parameters['sigma_over_sensitivity'])}, tight "
        f"{_shown(tight.parameters['sigma_over_sensitivity'])}",
        *(
            f"  derived guarantee, {name}: Gaussian releases ε ≤ {upper_bound_text(g['gaussian_releases']['epsilon'])}, "
            f"δ ≤ {upper_bound_text(g['gaussian_releases']['delta'], 3)}; with the ε-DP selection on its own block ε ≤ "
            f"{upper_bound_text(g['epsilon'])}, δ ≤ {upper_bound_text(g['delta'], 3)} against ({epsilon}, {delta}): "
            f"{'holds' if g['holds'] else 'FAILS'}"
            for name, g in guarantees.items()
        ),
        "  substitutes:",
    ]
    text += [f"    - {item}" for item in dict.fromkeys(paper.substitutes + tight.substitutes)]
    return {"payload": payload, "text": "\n".join(text)}
