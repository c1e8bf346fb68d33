"""``dpledger run agnostic``: a private agnostic halfspace learner of seed 002 (Theorems 2.1,
3.1, 4.1) on synthetic Gaussian data labelled by a random halfspace with label noise, beside
the target halfspace and the same algorithm with privacy off; the accountant's derivation of
the run's trace is checked against the theorem's claimed (ε, δ)."""
from __future__ import annotations

import argparse
from typing import Any

from dpledger.verify.cli.commands import Output, decimal_text, finite_float, group, leaf, positive_int

SUBSTITUTES = {
    "improper": "private L1 optimiser: noisy projected subgradient descent (substitute for Kulkarni–Lee–Liu 2021)",
    "proper": "subspace: top-k eigenvectors of E[∇p∇pᵀ] with fixed k (substitute for DKKTZ21a's eigenvalue threshold)",
    "semi-agnostic": "ramp surrogate of width = OPT guess (stand-in for the seed's lost Equation 12)",
}


ALGORITHMS = ("improper", "proper", "semi-agnostic")
"""The learners of seed 002 (``dpledger.learners.agnostic.LEARNERS``; imported when the command runs)."""


MAX_VALUES = 10**8
"""Largest n·dim of one ``run agnostic`` (2·10⁸ floats ≈ 1.6 GB; about a minute of fitting)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "run", "run a learner on synthetic data and check its privacy claim")
    parser = leaf(table, "agnostic", "private agnostic halfspace learner (seed 002) on synthetic Gaussian data", run)
    parser.add_argument("--algorithm", choices=ALGORITHMS, required=True)
    parser.add_argument("--dim", type=positive_int, required=True, help="dimension d")
    parser.add_argument("--n", type=positive_int, required=True, help="training sample size (the test set has the same size)")
    parser.add_argument("--noise", type=finite_float, default=0.1, help="fraction of flipped labels, in [0, 0.5)")
    parser.add_argument("--noise-model", choices=("random", "adversarial"), default="random")
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="ε (> 0, ≤ 100)")
    parser.add_argument("--delta", type=decimal_text, default="1e-5", help="δ in (0, 1)")
    parser.add_argument("--degree", type=positive_int, help="polynomial degree (improper, proper; default: the learner's)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and of the learner")


def run(args: argparse.Namespace) -> Output:
    import numpy as np

    from dpledger.learners.agnostic import LEARNERS
    from dpledger.learners.agnostic.data import halfspace_data, labelled_sample
    from dpledger.learners.randomness import Sampled

    if args.seed < 0:
        raise ValueError(f"--seed must be ≥ 0, got {args.seed}")
    if args.degree is not None and args.algorithm == "semi-agnostic":
        raise ValueError("--degree does not apply to --algorithm semi-agnostic")
    if args.n * args.dim > MAX_VALUES:
        raise ValueError(f"n·dim must be at most {MAX_VALUES:.0e} (the run holds a training and a test sample of "
                         f"n points in memory and fits twice), got {args.n}·{args.dim}; use the learners' API for more")
    rng = Sampled(args.seed)
    train = halfspace_data(args.n, args.dim, args.noise, args.noise_model, rng)
    test = labelled_sample(args.n, train.w, train.t, args.noise, args.noise_model, rng)
    options: dict[str, Any] = {} if args.degree is None else {"degree": args.degree}
    learner_class = LEARNERS[args.algorithm]
    private = learner_class(args.epsilon, args.delta, random_state=args.seed, **options).fit(train.X, train.y)
    baseline = learner_class(None, None, random_state=args.seed, **options).fit(train.X, train.y)
    derivation = private.derivation_
    claim = derivation.claims()[0]
    payload = {
        "algorithm": args.algorithm,
        "statement": claim.statement,
        "dim": args.dim,
        "n": args.n,
        "noise": args.noise,
        "noise_model": args.noise_model,
        "seed": args.seed,
        "test_error": 1.0 - private.score(test.X, test.y),
        "opt_error": float(np.mean(test.target_predictions(test.X) != test.y)),
        "nonprivate_error": 1.0 - baseline.score(test.X, test.y),
        "guarantee": private.guarantee_.to_dict(),
        "claimed": {"statement": claim.statement, "epsilon": args.epsilon, "delta": args.delta},
        "holds": private.claim_holds(),
        "substitute": SUBSTITUTES[args.algorithm],
        "trace": derivation.to_dict(),
    }
    g = private.guarantee_
    text = "\n".join([
        f"{args.algorithm} learner ({claim.statement}), d={args.dim}, n={args.n}, "
        f"{args.noise:g} {args.noise_model} label noise, seed {args.seed}",
        f"  test error        {payload['test_error']:.4f}",
        f"  target halfspace  {payload['opt_error']:.4f}  (OPT on the same noisy labels)",
        f"  privacy off       {payload['nonprivate_error']:.4f}",
        f"  certified         ε ≤ {g.epsilon_upper:.6g}, δ ≤ {g.delta_upper:.6g}",
        f"  claimed           ε = {args.epsilon}, δ = {args.delta}: {'holds' if payload['holds'] else 'FAILS'}",
        f"  substitute        {payload['substitute']}",
        "derivation:",
        derivation.to_text(),
    ])
    return Output(payload, text)
