"""``dpledger calibrate``: the command lines of :mod:`dpledger.verify.service.calibrate` —
``carry-forward``, the theorems ``5.1``, ``8.5``, ``8.8``, ``8.14``, ``2.1``, ``3.1``, ``4.1``,
``8.19`` (alias ``boolean``) and ``agnostic``; and, for one's own mechanism, ``noise`` and
``composition``, and DP-SGD's ``dp-sgd`` (:mod:`dpledger.verify.service.calibrate_mechanism`)."""

from __future__ import annotations

import argparse
from typing import Any

from dpledger.accountant.events import COMPOSITION_METHODS, RELATIONS
from dpledger.accountant.mechanism_calibration import MECHANISMS
from dpledger.verify.cli.commands import SUMMARIES, decimal_text, group, leaf, names, positive_int
from dpledger.verify.service import calibrate_mechanism
from dpledger.verify.service.calibrate import (
    MAX_STEPS,
    agnostic_noise,
    agnostic_theorem,
    carry_forward,
    halfspace_theorem,
    theorem_5_1,
    theorem_8_19,
)

HALFSPACE_ORACLES = {
    "8.5": ("exponential", "ipconcave-em", "qcopt", "ipconcave"),
    "8.8": ("qcopt",),
    "8.14": ("ipconcave",),
}


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(
        subparsers,
        "calibrate",
        SUMMARIES["calibrate"],
    )
    parser = leaf(
        table,
        "carry-forward",
        "CarryForwardLearner (Algorithm 2): Lemma 6.12 chain and tight m",
        carry_forward,
    )
    parser.add_argument("--n", type=positive_int, required=True, help="total sample size n")
    parser.add_argument("--k", type=positive_int, required=True, help="number of components k")
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="target ε in (0, 1]")
    parser.add_argument("--delta", type=decimal_text, required=True, help="target δ in (0, 1)")
    parser.add_argument("--alpha", type=decimal_text, help="utility: accuracy α in (0, 1) (default 0.1)")
    parser.add_argument(
        "--beta", type=decimal_text, help="utility: failure probability β in (0, 1) (default 0.1)"
    )
    oracle = parser.add_mutually_exclusive_group()
    oracle.add_argument(
        "--oracle-m", type=positive_int, help="utility: M_A of your component oracles (with --vc)"
    )
    oracle.add_argument(
        "--class",
        dest="component_class",
        choices=("thresholds", "intervals", "rectangles"),
        help="utility: a grid class with the completion-score oracle (its k must be --k)",
    )
    parser.add_argument(
        "--vc", type=positive_int, help="utility: VC dimension v of the class (with --oracle-m)"
    )
    parser.add_argument(
        "--domain-size", type=positive_int, help="utility: grid size N with --class (default 2^16)"
    )

    parser = leaf(
        table,
        "5.1",
        "Theorem 5.1 (CarryForwardLearner): m and n from (α, β, ε, δ), paper and tight",
        theorem_5_1,
        _theorem_5_1_call,
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--oracle-m", type=positive_int, help="M_A of your component oracles (needs --k and --vc)"
    )
    source.add_argument(
        "--class",
        dest="component_class",
        choices=("thresholds", "intervals", "rectangles"),
        help="a grid class with the completion-score oracle (sets k and v)",
    )
    parser.add_argument("--k", type=positive_int, help="number of components k (with --oracle-m)")
    parser.add_argument("--vc", type=positive_int, help="VC dimension v of the class (with --oracle-m)")
    parser.add_argument("--domain-size", type=positive_int, help="grid size N with --class (default 2^16)")
    _add_target_arguments(parser)
    for number, oracles in HALFSPACE_ORACLES.items():
        parser = leaf(
            table,
            number,
            f"Theorem {number} (halfspaces by CarryForwardLearner): n from (α, β, ε, δ, d)",
            halfspace_theorem,
        )
        parser.add_argument("--dimension", type=positive_int, help="dimension d (k = d + 1; default 2)")
        parser.add_argument("--grid", type=positive_int, help="grid bound X of [[±X]]^d (default 16)")
        parser.add_argument(
            "--oracle", choices=oracles, default=oracles[0], help=f"component oracle (default {oracles[0]})"
        )
        parser.set_defaults(theorem=f"Theorem {number}")
        _add_target_arguments(parser)
    for number, learner in (
        ("2.1", "improper agnostic"),
        ("3.1", "proper agnostic"),
        ("4.1", "semi-agnostic"),
    ):
        parser = leaf(
            table,
            number,
            f"Theorem {number} of seed 002 ({learner} halfspace learner): n from "
            "(α, β, ε, δ, d), paper and tight noise accounting",
            agnostic_theorem,
        )
        parser.add_argument("--dimension", type=positive_int, help="dimension d (default 10)")
        if number != "4.1":
            parser.add_argument(
                "--degree",
                type=positive_int,
                help="polynomial degree D (default ⌈1/α²⌉, a SUBSTITUTE constant)",
            )
        parser.add_argument("--alpha", type=decimal_text, help="excess error α in (0, 1) (default 0.2)")
        parser.add_argument("--beta", type=decimal_text, help="failure probability β in (0, 1)")
        parser.add_argument("--epsilon", type=decimal_text, help="target ε in (0, 100] (default 0.5)")
        parser.add_argument("--delta", type=decimal_text, help="target δ in (0, 1) (default 1e-6)")
        parser.set_defaults(theorem=f"Theorem {number}")

    parser = leaf(
        table,
        "8.19",
        "Theorem 8.19 (Boolean compositions): n for (α, β, ε, δ, k), paper and tight, and "
        "the per-component baseline",
        theorem_8_19,
        aliases=("boolean",),
    )
    parser.add_argument("--k", type=positive_int, required=True, help="number of components k")
    parser.add_argument(
        "--components",
        type=names,
        help="comma-separated component classes (thresholds, intervals, rectangles; default: k × thresholds)",
    )
    parser.add_argument("--domain-size", type=positive_int, help="grid size N of the component classes")
    _add_target_arguments(parser)

    parser = leaf(
        table, "agnostic", "certified Gaussian noise of the agnostic learners (seed 002)", agnostic_noise
    )
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="target ε in (0, 100]")
    parser.add_argument("--delta", type=decimal_text, required=True, help="target δ in (0, 1)")
    parser.add_argument(
        "--steps",
        type=positive_int,
        help=f"T, steps of the private L1 optimiser (Theorem 2.1; default 300, at most {MAX_STEPS})",
    )

    _register_generic(table)


def _register_generic(table: argparse._SubParsersAction) -> None:
    """``calibrate noise`` and ``calibrate composition``: one's own mechanism, no paper."""
    parser = leaf(
        table,
        "noise",
        "noise scale of your own Laplace or Gaussian mechanism (k releases, optional "
        "subsampling) for a target (ε, δ), certified",
        calibrate_mechanism.noise,
    )
    parser.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        required=True,
        help="gaussian (analytic, Balle–Wang), gaussian-classic (Dwork–Roth, one release, ε < 1), "
        "laplace, discrete-gaussian, discrete-laplace",
    )
    parser.add_argument(
        "--sensitivity",
        type=decimal_text,
        required=True,
        help="sensitivity of the statistic (L2 for Gaussians, L1 for Laplace)",
    )
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="target total ε (> 0)")
    parser.add_argument(
        "--delta", type=decimal_text, help="target total δ in [0, 1) (default 0; > 0 for Gaussians)"
    )
    parser.add_argument("--k", type=positive_int, help="number of adaptive releases (default 1)")
    parser.add_argument(
        "--method",
        "--composition",
        dest="method",
        choices=COMPOSITION_METHODS,
        help="how the k releases compose (default optimal: for subsampled or Laplace releases, their "
        "privacy-loss distributions; --composition is its former name)",
    )
    _add_sampling_arguments(parser)
    parser.add_argument(
        "--relation",
        choices=RELATIONS,
        help="neighbouring relation of the guarantee (default add_remove with --poisson-rate, "
        "else substitute)",
    )

    parser = leaf(
        table,
        "composition",
        "largest per-step ε₀ of k composed (ε₀, δ₀)-DP mechanisms for a total "
        "(ε, δ): basic, advanced or optimal composition, certified",
        calibrate_mechanism.composition,
    )
    parser.add_argument("--k", type=positive_int, required=True, help="number of composed mechanisms")
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="target total ε (> 0)")
    parser.add_argument("--delta", type=decimal_text, help="target total δ in [0, 1) (default 0: basic only)")
    parser.add_argument("--method", choices=COMPOSITION_METHODS, help="composition theorem (default optimal)")
    parser.add_argument("--step-delta", type=decimal_text, help="δ₀ of each mechanism (default 0)")
    _add_sampling_arguments(parser)

    parser = leaf(
        table,
        "dp-sgd",
        "DP-SGD: the certified ε of a run for a noise multiplier, or the noise multiplier for a "
        "target ε (privacy-loss distributions; Poisson or fixed-size batches)",
        calibrate_mechanism.dp_sgd,
    )
    parser.add_argument("--dataset-size", type=positive_int, required=True, help="n, the number of examples")
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        required=True,
        help="b (the expected batch size with Poisson sampling)",
    )
    length = parser.add_mutually_exclusive_group(required=True)
    length.add_argument("--epochs", type=decimal_text, help="passes over the data (steps = ⌈epochs·n/b⌉)")
    length.add_argument("--steps", type=positive_int, help="the number of steps T")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--noise-multiplier", type=decimal_text, help="z = σ/C: prints the certified ε")
    target.add_argument("--epsilon", type=decimal_text, help="target ε: prints the smallest certified z")
    parser.add_argument("--delta", type=decimal_text, required=True, help="δ in (0, 1)")
    parser.add_argument(
        "--sampling",
        choices=("poisson", "fixed", "shuffle"),
        help="poisson (default: each example in each batch with probability b/n, add/remove neighbours) or "
        "fixed (each batch a uniform draw of b examples, substitute-one neighbours); shuffle is refused "
        "(not certified)",
    )


def _add_sampling_arguments(parser: argparse.ArgumentParser) -> None:
    """--poisson-rate, or --sample-size with --population."""
    parser.set_defaults(convert=_sampling_call)
    parser.add_argument(
        "--poisson-rate",
        type=decimal_text,
        help="each step on a Poisson subsample of rate q in (0, 1] (add/remove neighbours)",
    )
    parser.add_argument(
        "--sample-size",
        type=positive_int,
        help="each step on m records drawn without replacement (with --population)",
    )
    parser.add_argument(
        "--population", dest="population_size", type=positive_int, help="n, the records sampled from"
    )


def _sampling_call(options: dict[str, Any]) -> dict[str, Any]:
    """--sample-size and --population go together and exclude --poisson-rate."""
    if ("sample_size" in options) != ("population_size" in options):
        raise ValueError("--sample-size and --population go together")
    if "poisson_rate" in options and "sample_size" in options:
        raise ValueError("give either --poisson-rate or --sample-size with --population, not both")
    return options


def _add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """--alpha, --beta, --epsilon, --delta, kept as exact decimal text."""
    parser.add_argument("--alpha", type=decimal_text, help="accuracy α in (0, 1) (default 0.1)")
    parser.add_argument("--beta", type=decimal_text, help="failure probability β in (0, 1) (default 0.1)")
    parser.add_argument("--epsilon", type=decimal_text, help="target ε in (0, 1) (default 0.5)")
    parser.add_argument("--delta", type=decimal_text, help="target δ in (0, 1), δ ≤ β (default 1e-6)")


def _theorem_5_1_call(options: dict[str, Any]) -> dict[str, Any]:
    """The options that go together, which argparse cannot say: --k and --vc with --oracle-m,
    --domain-size with --class."""
    if "oracle_m" in options and not {"k", "vc"} <= options.keys():
        raise ValueError("--oracle-m needs --k and --vc")
    if "component_class" in options and ("k" in options or "vc" in options):
        raise ValueError(f"--class {options['component_class']} sets k and v itself: drop --k and --vc")
    if "oracle_m" in options and "domain_size" in options:
        raise ValueError("--domain-size applies to --class only")
    return options
