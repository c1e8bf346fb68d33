"""Test error of the private agnostic halfspace learners (seed 002) on a scenario grid, beside
scikit-learn's and diffprivlib's logistic regression.

Grid (defaults): d = 10; marginals Gaussian, uniform cube, Student-t(5) (``dpledger.learners.agnostic.data``);
10 % label noise — random, far one-sided (``adversarial``), far two-sided; n ∈ {5 000, 20 000,
100 000}; ε ∈ {0.1, 0.5, 1, 4}, δ = 1e-5; 5 seeds; a fresh test set of 20 000 points per seed.
Methods: each learner at its defaults (model selection inside) at every ε and with privacy off
(``epsilon=None``: the same algorithm without noise, arg-min selection), scikit-learn's
``LogisticRegression`` (non-private) and diffprivlib's ``LogisticRegression`` at every ε
(ε-DP; ``data_norm`` = the public radius R of ``semi_agnostic.default_clip_radius``, rows clipped to it).
OPT is the target halfspace's error on the test set (exactly 0.10 of the test labels are flipped).
Fit times are user CPU seconds of the process (``resource.getrusage``; all threads counted — the
machine is shared, so wall time says little).

scikit-learn and diffprivlib are not project dependencies; diffprivlib 0.6.6 needs
scikit-learn ≤ 1.7.2, so run this in its own environment, on top of the development venv:

    /work/venv/bin/python -m venv /tmp/agnostic-bench-env
    echo 'import site; site.addsitedir("/work/venv/lib/python3.11/site-packages")' \\
        > /tmp/agnostic-bench-env/lib/python3.11/site-packages/dpledger-dev.pth
    /tmp/agnostic-bench-env/bin/pip install "scikit-learn==1.7.2" "diffprivlib==0.6.6"
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /tmp/agnostic-bench-env/bin/python benchmarks/bench_agnostic.py \\
        --marginals gaussian --json benchmarks/results/agnostic_grid_gaussian.json
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /tmp/agnostic-bench-env/bin/python benchmarks/bench_agnostic.py \\
        --marginals uniform student-t --n 20000 100000 --seeds 3 --json benchmarks/results/agnostic_grid_other.json

(the venv's own site-packages come first, so its scikit-learn 1.7.2 shadows the dev venv's).
Missing packages are reported as "not installed". ``verify/reports/agnostic_benchmark.py`` turns
the JSON files of ``benchmarks/results/agnostic_grid_*.json`` into ``reports/agnostic_benchmark.md``.

Each took about 6 minutes of wall time (1.6 minutes of user CPU) with the two run side by side on
the shared 2-core machine (2026-11-30). One thread per fit: the reported fit times are then the
work of one core, not two threads' spin-waiting on a loaded machine. To rerun part of a grid and
keep the file's other datasets, add ``--update`` (e.g. ``--noise-models random --update``: the
random-flip rows are replaced, the far-flip rows kept; the settings must match the file's).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dpledger.learners.agnostic import (
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
)
from dpledger.learners.agnostic.data import (
    DATA_MARGINALS,
    NOISE_MODELS,
    HalfspaceSample,
    halfspace_data,
    labelled_sample,
)
from dpledger.learners.agnostic.semi_agnostic import default_clip_radius
from dpledger.learners.randomness import Sampled

Factory = Callable[[Any, int], Any]
DELTA = 1e-5

LEARNERS: dict[str, Factory] = {
    "improper": lambda eps, seed: PrivateImproperLearner(
        eps, None if eps is None else DELTA, random_state=seed
    ),
    "proper": lambda eps, seed: PrivateProperLearner(eps, None if eps is None else DELTA, random_state=seed),
    "semi-agnostic": lambda eps, seed: PrivateSemiAgnosticLearner(
        eps, None if eps is None else DELTA, random_state=seed
    ),
}


def baselines(n: int, dim: int) -> dict[str, tuple[Factory, bool] | str]:
    """scikit-learn (non-private) / diffprivlib (private) logistic regression with a flag "private",
    or the reason they are unavailable."""
    found: dict[str, tuple[Factory, bool] | str] = {}
    try:
        from sklearn.linear_model import LogisticRegression

        found["sklearn-logreg"] = (lambda eps, seed: LogisticRegression(max_iter=1000), False)
    except ImportError:
        found["sklearn-logreg"] = "not installed"
    try:
        from diffprivlib.models import LogisticRegression as DPLogisticRegression

        norm = default_clip_radius(n, dim)
        found["diffprivlib-logreg"] = (
            lambda eps, seed: DPLogisticRegression(
                epsilon=eps, data_norm=norm, random_state=seed, max_iter=1000
            ),
            True,
        )
    except ImportError:
        found["diffprivlib-logreg"] = "not installed"
    return found


def user_seconds() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def measure(
    factory: Factory, eps: float | None, seed: int, train: HalfspaceSample, test: HalfspaceSample
) -> tuple[float, float]:
    """(test error, user CPU seconds of the fit)."""
    model = factory(eps, seed)
    start = user_seconds()
    with np.errstate(all="ignore"):
        model.fit(train.X, train.y)
    elapsed = user_seconds() - start
    return float(np.mean(model.predict(test.X) != test.y)), elapsed


def settings(args: argparse.Namespace) -> dict[str, Any]:
    return {"dim": args.dim, "noise": args.noise, "delta": DELTA, "test_n": args.test_n, "seeds": args.seeds}


def kept_rows(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--update``: the rows of the results file ``path`` for the datasets (marginal, noise model,
    n) this run does not cover; its settings must be this run's."""
    if not path.exists():
        return []
    old = json.loads(path.read_text())
    for key, value in settings(args).items():
        if old[key] != value:
            raise ValueError(f"{key} = {old[key]} differs from this run's {value}; run without --update")
    covered = {(m, z, n) for m in args.marginals for z in args.noise_models for n in args.n}
    return [row for row in old["rows"] if (row["marginal"], row["noise_model"], row["n"]) not in covered]


def run_grid(args: argparse.Namespace, kept: list[dict[str, Any]]) -> dict[str, Any]:
    """Every cell of the grid after the ``kept`` rows; with ``--json`` the file is rewritten after
    each dataset, so an interrupted run leaves its finished cells (and the kept ones)."""
    rows: list[dict[str, Any]] = list(kept)
    missing: dict[str, str] = {}
    results = {**settings(args), "missing": missing, "rows": rows}
    for marginal in args.marginals:
        for noise_model in args.noise_models:
            for n in args.n:
                methods = baselines(n, args.dim)
                for seed in range(args.seeds):
                    rng = Sampled(1000 + seed)
                    train = halfspace_data(n, args.dim, args.noise, noise_model, rng, marginal)
                    test = labelled_sample(
                        args.test_n, train.w, train.t, args.noise, noise_model, rng, marginal, tilt=train.tilt
                    )
                    opt = float(np.mean(test.target_predictions(test.X) != test.y))
                    cell = {
                        "marginal": marginal,
                        "noise_model": noise_model,
                        "n": n,
                        "seed": seed,
                        "opt": opt,
                    }
                    runs: list[tuple[str, Factory, float | None]] = [
                        (name, factory, eps)
                        for name, factory in LEARNERS.items()
                        for eps in [None, *args.epsilons]
                    ]
                    for name, entry in methods.items():
                        if isinstance(entry, str):
                            missing[name] = entry
                            continue
                        factory, private = entry
                        runs += [(name, factory, eps) for eps in (args.epsilons if private else [None])]
                    for name, factory, eps in runs:
                        error, seconds = measure(factory, eps, seed, train, test)
                        rows.append(
                            {**cell, "method": name, "epsilon": eps, "error": error, "cpu_seconds": seconds}
                        )
                    if args.json:
                        args.json.parent.mkdir(parents=True, exist_ok=True)
                        args.json.write_text(json.dumps(results, indent=1) + "\n")
                    print(f"{marginal} {noise_model} n={n} seed {seed}: done", file=sys.stderr, flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=10)
    parser.add_argument("--n", type=int, nargs="+", default=[5_000, 20_000, 100_000])
    parser.add_argument("--test-n", type=int, default=20_000)
    parser.add_argument("--noise", type=float, default=0.1)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.5, 1.0, 4.0])
    parser.add_argument("--marginals", nargs="+", choices=DATA_MARGINALS, default=list(DATA_MARGINALS))
    parser.add_argument("--noise-models", nargs="+", choices=NOISE_MODELS, default=list(NOISE_MODELS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the raw results here (the report reads them)")
    parser.add_argument(
        "--update",
        action="store_true",
        help="keep the --json file's rows for the datasets (marginal, noise model, n) not run here",
    )
    args = parser.parse_args(argv)
    if args.update and args.json is None:
        parser.error("--update needs --json")
    try:
        kept = kept_rows(args.json, args) if args.update else []
    except (ValueError, KeyError, json.JSONDecodeError) as error:
        print(f"bench_agnostic: cannot update {args.json}: {error}", file=sys.stderr)
        return 2
    results = run_grid(args, kept)
    from dpledger.verify.reports.agnostic_benchmark import summary_lines

    print("\n".join(summary_lines(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
