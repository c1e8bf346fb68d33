"""``dpledger calibrate carry-forward``: Algorithm 2's parameters, the chain of Lemma 6.12,
and the tight certified calibration (Section 6 of seed 000)."""
from __future__ import annotations

import argparse
from typing import Any

from dpledger.accountant.section6 import PaperChain, Target, TightCalibration, paper_chain, tight_calibration
from dpledger.accountant.numerics.certified import enclose, upper_float
from dpledger.verify.cli.commands import Output, decimal_text, group, leaf, positive_int


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "calibrate", "parameters from a target (ε, δ, …): the paper's chain and the tight calibration")
    parser = leaf(table, "carry-forward", "CarryForwardLearner (Algorithm 2): Lemma 6.12 chain and tight m", run_carry_forward)
    parser.add_argument("--n", type=positive_int, required=True, help="total sample size n")
    parser.add_argument("--k", type=positive_int, required=True, help="number of components k")
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="target ε in (0, 1]")
    parser.add_argument("--delta", type=decimal_text, required=True, help="target δ in (0, 1)")


def carry_forward_payload(chain: PaperChain, tight: TightCalibration) -> dict[str, Any]:
    """The JSON of ``calibrate carry-forward`` (also used by the report)."""
    value = lambda expr: upper_float(enclose(expr))  # noqa: E731
    g = tight.derivation.guarantee
    return {
        "target": {"n": chain.target.n, "k": chain.target.k, "epsilon": value(chain.target.epsilon),
                   "delta": value(chain.target.delta)},
        "paper": {
            "m": chain.m, "q": value(chain.q), "eta": value(chain.eta), "zeta": value(chain.zeta),
            "ell": chain.ell, "epsilon_res": value(chain.epsilon_res), "delta_res": value(chain.delta_res),
            "steps": [step.to_dict() for step in chain.steps], "holds": chain.holds,
            "derivation": chain.derivation.to_dict(),
        },
        "tight": {"m": tight.m, "epsilon": g.epsilon_upper, "delta": g.delta_upper, "holds": tight.holds,
                  "composition": "optimal (Kairouz–Oh–Viswanath) per reservoir, exact amplification"},
        "sample_saving": tight.sample_saving,
        "n_paper_for_m": tight.n_paper_for_paper_m,
        "n_tight_for_m": tight.n_tight_for_paper_m,
    }


def carry_forward_text(payload: dict[str, Any]) -> str:
    t, p, tt = payload["target"], payload["paper"], payload["tight"]
    lines = [f"CarryForwardLearner, n = {t['n']}, k = {t['k']}, target (ε, δ) = ({t['epsilon']:.6g}, {t['delta']:.6g})",
             "", "Paper's chain (Algorithm 2, Lemma 6.12; certified values):"]
    for step in p["steps"]:
        mark = "holds" if step["holds"] else "FAILS"
        lines.append(f"  {step['statement']:<15} {step['quantity']:<12} = {step['value']:<12.6g} {step['claim']:<40} {mark}")
    lines += [
        f"  chain holds: {p['holds']}",
        "",
        "Tight calibration (same learner structure, optimal composition, exact η):",
        f"  largest m = {tt['m']} (paper: {p['m']}); guarantee ε ≤ {tt['epsilon']:.6g}, δ ≤ {tt['delta']:.6g}; holds: {tt['holds']}",
    ]
    lines.append(f"  for m = {p['m']}: paper's formula needs n = {payload['n_paper_for_m']}, tight accounting needs "
                 f"n = {payload['n_tight_for_m']} — sample saving ×{payload['sample_saving']:.3g}")
    return "\n".join(lines)


def run_carry_forward(args: argparse.Namespace) -> Output:
    target = Target.of(args.n, args.k, args.epsilon, args.delta)
    chain = paper_chain(target)
    payload = carry_forward_payload(chain, tight_calibration(target, chain.m))
    return Output(payload, carry_forward_text(payload))
