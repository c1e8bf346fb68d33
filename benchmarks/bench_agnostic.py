"""Test error of the private agnostic halfspace learners (seed 002) on synthetic data.

d = 10, n = 20 000 (test set of the same size), 10 % label noise, random and adversarial
(flips far from the boundary, see ``dpledger.learners.agnostic.data``); each learner at ε ∈ {0.5, 1, 4}
(δ = 1e-5) and with privacy off, beside scikit-learn's ``LogisticRegression`` and IBM
diffprivlib's ``LogisticRegression`` (ε-DP, data_norm = the semi-agnostic learner's public
clipping radius) at the same ε. Mean ± standard deviation over seeds; the slowest fit time.

scikit-learn and diffprivlib are not project dependencies; diffprivlib needs
scikit-learn ≤ 1.7.2, so run this in its own environment, e.g.

    python -m venv --system-site-packages /tmp/agnostic-bench-env
    /tmp/agnostic-bench-env/bin/pip install "scikit-learn<=1.7.2" diffprivlib
    /tmp/agnostic-bench-env/bin/python benchmarks/bench_agnostic.py

Missing packages are reported as "not installed".
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dpledger.learners.agnostic import PrivateImproperLearner, PrivateProperLearner, PrivateSemiAgnosticLearner
from dpledger.learners.agnostic.data import NOISE_MODELS, halfspace_data, labelled_sample
from dpledger.learners.agnostic.semi_agnostic import default_clip_radius
from dpledger.learners.randomness import Sampled

Factory = Callable[[Any, int], Any]

LEARNERS: dict[str, Factory] = {
    "improper D=1 (Thm 2.1)": lambda eps, seed: PrivateImproperLearner(eps, None if eps is None else 1e-5, degree=1, random_state=seed),
    "improper D=1, advanced composition": lambda eps, seed: PrivateImproperLearner(
        eps, None if eps is None else 1e-5, degree=1, composition="advanced", random_state=seed),
    "improper D=2 (Thm 2.1)": lambda eps, seed: PrivateImproperLearner(eps, None if eps is None else 1e-5, degree=2, random_state=seed),
    "proper D=2 (Thm 3.1)": lambda eps, seed: PrivateProperLearner(eps, None if eps is None else 1e-5, random_state=seed),
    "semi-agnostic (Thm 4.1)": lambda eps, seed: PrivateSemiAgnosticLearner(eps, None if eps is None else 1e-5, random_state=seed),
}


def baselines(n: int, dim: int) -> dict[str, Factory | str]:
    """scikit-learn / diffprivlib logistic regression, or the reason they are unavailable."""
    found: dict[str, Factory | str] = {}
    try:
        from sklearn.linear_model import LogisticRegression
        found["sklearn LogisticRegression"] = lambda eps, seed: LogisticRegression(max_iter=1000)
    except ImportError:
        found["sklearn LogisticRegression"] = "not installed"
    try:
        from diffprivlib.models import LogisticRegression as DPLogisticRegression
        norm = default_clip_radius(n, dim)
        found["diffprivlib LogisticRegression"] = lambda eps, seed: DPLogisticRegression(
            epsilon=eps, data_norm=norm, random_state=seed, max_iter=1000)
    except ImportError:
        found["diffprivlib LogisticRegression"] = "not installed"
    return found


def measure(factory: Factory, eps: float | None, seed: int, train: Any, test: Any) -> tuple[float, float]:
    start = time.perf_counter()
    model = factory(eps, seed)
    with np.errstate(all="ignore"):
        model.fit(train.X, train.y)
    elapsed = time.perf_counter() - start
    return float(np.mean(model.predict(test.X) != test.y)), elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=10)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--noise", type=float, default=0.1)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 4.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args(argv)
    settings: list[float | None] = [None, *args.epsilons]
    methods: dict[str, Factory | str] = {**LEARNERS, **baselines(args.n, args.dim)}
    errors: dict[tuple[str, str, Any], list[float]] = defaultdict(list)
    slowest: dict[str, float] = defaultdict(float)
    opt: dict[str, list[float]] = defaultdict(list)
    for model in NOISE_MODELS:
        for seed in range(args.seeds):
            rng = Sampled(1000 + seed)
            train = halfspace_data(args.n, args.dim, args.noise, model, rng)
            test = labelled_sample(args.n, train.w, train.t, args.noise, model, rng)
            opt[model].append(float(np.mean(test.target_predictions(test.X) != test.y)))
            for name, factory in methods.items():
                if isinstance(factory, str):
                    continue
                for eps in settings:
                    if (eps is None and name.startswith("diffprivlib")) or (eps is not None and name.startswith("sklearn")):
                        continue
                    error, elapsed = measure(factory, eps, seed, train, test)
                    errors[(model, name, eps)].append(error)
                    slowest[name] = max(slowest[name], elapsed)
                    print(f"{model:11s} seed {seed} {name:30s} ε={eps}: error {error:.4f} ({elapsed:.2f} s)", file=sys.stderr, flush=True)
    print(f"d={args.dim}, n={args.n}, {args.noise:g} label noise, δ=1e-5, {args.seeds} seeds; test error mean ± sd\n")
    header = "| noise | method | privacy off | " + " | ".join(f"ε={e:g}" for e in args.epsilons) + " | slowest fit (s) |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for model in NOISE_MODELS:
        print(f"| {model} | target halfspace (OPT) | {np.mean(opt[model]):.4f} |" + " |" * len(args.epsilons) + " |")
        for name, factory in methods.items():
            if isinstance(factory, str):
                print(f"| {model} | {name} | {factory} |" + " |" * len(args.epsilons) + " |")
                continue
            cells = []
            for eps in settings:
                values = errors.get((model, name, eps))
                cells.append("—" if not values else f"{np.mean(values):.4f} ± {np.std(values):.4f}")
            print(f"| {model} | {name} | " + " | ".join(cells) + f" | {slowest[name]:.2f} |")
    if args.json:
        rows = [{"noise_model": m, "method": name, "epsilon": e, "errors": v} for (m, name, e), v in errors.items()]
        args.json.write_text(json.dumps({"opt": opt, "rows": rows, "slowest_fit_seconds": slowest}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
