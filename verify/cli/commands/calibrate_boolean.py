"""``dpledger calibrate 8.19`` (alias ``boolean``): the sample size of Theorem 8.19
(CarryForwardLearner with the Proposition 8.16 oracles for G(H_1, …, H_k)), paper against tight,
next to the per-component baseline."""
from __future__ import annotations

import argparse
from typing import Any

from dpledger.verify.cli.commands import Output, decimal_text, group, leaf, positive_int

BASELINE = ("SUBSTITUTE model of Alon et al.'s closure (one sample per component): k disjoint blocks, "
            "each running A_i once on an M_A-subsample, amplified to ε by Theorem 3.4")
CALIBRATE_HELP = "parameters from a target (ε, δ, …): the paper's chain and the tight calibration"


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "calibrate", CALIBRATE_HELP)
    parser = leaf(table, "8.19", "Theorem 8.19 (Boolean compositions): n for (α, β, ε, δ, k), paper and tight, and "
                                 "the per-component baseline", run, aliases=("boolean",))
    parser.add_argument("--k", type=positive_int, required=True, help="number of components k")
    parser.add_argument("--components", default=None,
                        help="comma-separated component classes (thresholds, intervals, rectangles; default: k × thresholds)")
    parser.add_argument("--domain-size", type=positive_int, default=2**16, help="grid size N of the component classes")
    add_target_arguments(parser)


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """--alpha, --beta, --epsilon, --delta, kept as exact decimal text."""
    parser.add_argument("--alpha", type=decimal_text, default="0.1", help="accuracy α in (0, 1) (default 0.1)")
    parser.add_argument("--beta", type=decimal_text, default="0.1", help="failure probability β in (0, 1) (default 0.1)")
    parser.add_argument("--epsilon", type=decimal_text, default="0.5", help="target ε in (0, 1) (default 0.5)")
    parser.add_argument("--delta", type=decimal_text, default="1e-6", help="target δ in (0, 1), δ ≤ β (default 1e-6)")


def run(args: argparse.Namespace) -> Output:
    from dpledger.accountant.numerics.certified import enclose, upper_float
    from dpledger.learners.boolean.composition import HypothesisSpace, component_class, composition_vc_bound
    from dpledger.learners.calibration.boolean import separate_samples_baseline, theorem_8_19
    from dpledger.verify.paper.theorem_calibration import sample_report

    names = [n.strip() for n in args.components.split(",")] if args.components else ["thresholds"] * args.k
    if len(names) != args.k:
        raise ValueError(f"components: --k is {args.k} but {len(names)} component classes were given")
    classes = [component_class(name, args.domain_size) for name in names]
    rows = [(name, H.vc_dimension, len(HypothesisSpace(H))) for name, H in zip(names, classes)]
    vc = composition_vc_bound([H.vc_dimension for H in classes])
    result = theorem_8_19(rows, vc, args.alpha, args.beta, args.epsilon, args.delta)
    sample = result.sample
    baseline = separate_samples_baseline(result.m_oracle, args.k, args.epsilon)
    sample_json, sample_lines = sample_report(sample)
    payload: dict[str, Any] = {
        "statement": "Theorem 8.19",
        "target": {"k": args.k, "alpha": args.alpha, "beta": args.beta, "epsilon": args.epsilon, "delta": args.delta},
        "components": [c.to_dict() for c in result.components],
        "parameters": {"epsilon_B": 1, "delta_B": upper_float(enclose(result.delta_b)), **sample.run.to_dict()},
        "vc_bound": vc,
        **sample_json,
        "baseline": {"n": baseline, "model": BASELINE},
        "ratio_n_over_baseline": sample.n_paper / baseline,
    }
    lines = [f"Theorem 8.19 for G(H_1..H_{args.k}) on [0, {args.domain_size}): α = {args.alpha}, β = {args.beta}, "
             f"ε = {args.epsilon}, δ = {args.delta}",
             "  choices: ε_B = 1, δ_B = δ/(64e²k) (B_i pure: δ_A = 0), τ = α/(40k), β_A = β/(4k)"]
    for c in result.components:
        lines.append(f"  {c.name:<11} d = {c.vc_dimension}, |H| = {c.hypotheses}, m_B(τ/2, β_A/2, 1) = {c.m_b}, "
                     f"ARelabel |S| = {c.m_relabel}, M_A,i = {c.m_oracle}")
    lines += [f"  VC(C) ≤ {vc} (composition bound)", *sample_lines,
              f"  baseline ({BASELINE}): n = {baseline}; CarryForwardLearner (paper) / baseline = "
              f"{sample.n_paper / baseline:.4g}"]
    return Output(payload, "\n".join(lines))


