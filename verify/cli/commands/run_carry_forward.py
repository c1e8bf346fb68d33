"""``dpledger run carry-forward``: CarryForwardLearner (Algorithm 2) on synthetic realizable
data from a random target concept, with its derived guarantee and round telemetry."""
from __future__ import annotations

import argparse
from fractions import Fraction

from dpledger.verify.cli.commands import Output, decimal_text, group, leaf, positive_int
from dpledger.verify.paper.setups import setups


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "run", "run a learner on synthetic data and derive its certified guarantee")
    parser = leaf(table, "carry-forward", "CarryForwardLearner (Algorithm 2) on realizable synthetic data", run)
    available = setups()
    parser.add_argument("--class", dest="concept", choices=tuple(available), default="intervals")
    for setup in available.values():
        setup.add_arguments(parser)
    parser.add_argument("--n", type=positive_int, required=True, help="number of training records")
    parser.add_argument("--m", type=positive_int, default=None, help="active sample size (default: from --calibration)")
    parser.add_argument("--calibration", choices=("paper", "tight"), default="paper")
    parser.add_argument("--epsilon", type=decimal_text, default="1")
    parser.add_argument("--delta", type=decimal_text, default="1e-6")
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-size", type=positive_int, default=10_000)


def run(args: argparse.Namespace) -> Output:
    import numpy as np

    from dpledger.learners.carry_forward import CarryForwardLearner, jsonable
    from dpledger.learners.synthetic import random_concept

    problem = setups()[args.concept].build(args)
    concept_class = problem.concept_class
    rng = np.random.default_rng(args.seed)
    target = random_concept(concept_class, rng)
    X = problem.sample(rng, args.n)
    X_test = problem.sample(rng, args.test_size)
    learner = CarryForwardLearner(concept_class, oracle=problem.oracle, epsilon=args.epsilon, delta=args.delta,
                                  alpha=args.alpha, beta=args.beta, m=args.m, calibration=args.calibration,
                                  random_state=args.seed)
    learner.fit(X, concept_class.evaluate(target, X), X_holdout=X_test)
    test_error = 1 - learner.score(X_test, concept_class.evaluate(target, X_test))
    g = learner.guarantee_
    payload = {
        "class": repr(concept_class), "target_concept": jsonable(target),
        "hypothesis": jsonable(learner.hypothesis_), "test_error": test_error,
        "n": args.n, "m": learner.m_, "oracle": problem.oracle_description,
        "guarantee": {"epsilon": g.epsilon_upper, "delta": g.delta_upper},
        "claimed": {"epsilon": float(Fraction(args.epsilon)), "delta": float(Fraction(args.delta))},
        "holds": learner.holds_,
        "rounds": [r.to_dict() for r in learner.rounds_],
        "oracle_rounds": [r.to_dict() for r in getattr(problem.oracle, "history_", [])],
        "trace": learner.derivation_.to_dict(),
    }
    lines = [
        f"CarryForwardLearner on {concept_class!r}, n = {args.n}, m = {learner.m_}; oracle: {problem.oracle_description}",
        f"  target concept {payload['target_concept']}, learned {payload['hypothesis']}, test error {test_error:.4g}",
        f"  derived guarantee ε ≤ {g.epsilon_upper:.6g}, δ ≤ {g.delta_upper:.6g} (certified); "
        f"target ({args.epsilon}, {args.delta}): {'holds' if learner.holds_ else 'DOES NOT HOLD for this m and n'}",
    ]
    for r in learner.rounds_:
        population = "" if r.population_disagreement is None else f", population {r.population_disagreement:.4g}"
        lines.append(f"  round {r.round}: y = {r.component}, oracle τ̂ = {r.oracle_disagreement:.4g}, "
                     f"LabelBoost disagreement {r.labelboost_disagreement:.4g} (2τ = {r.bound:.4g}){population}")
    for r in payload["oracle_rounds"]:
        lines.append(f"  oracle round {r['round']}: depth {r['depth']} of m = {r['m']}"
                     f" (full depth in the domain: {r['full_depth_in_domain']})")
    lines += ["", learner.derivation_.to_text()]
    return Output(payload, "\n".join(lines))

