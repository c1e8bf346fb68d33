"""``dpledger audit``: the command lines of :mod:`dpledger.verify.service.audit` —
``macro-block``, ``qcopt``, ``mechanism``, ``learner``, ``catalog``, ``suites`` and ``labelboost``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from dpledger.learners.concept_classes import CLASS_NAMES
from dpledger.verify.cli.commands import (
    SUMMARIES,
    claim_number,
    decimal_text,
    finite_float,
    group,
    integer,
    leaf,
    positive_int,
    seed,
)
from dpledger.verify.paper.labelboost_audit import RELEASES
from dpledger.verify.service.audit import (
    LEARNER_MODES,
    QCOPT_STEPS,
    catalog,
    labelboost,
    learner,
    macro_block,
    mechanism,
    qcopt,
    suites,
)

MAX_SAMPLES = 10**10
"""Runs per input of one audit: about 20 minutes at the measured 9·10⁶ runs per second."""


def sample_count(text: str) -> int:
    """argparse type: runs per input, 1 to :data:`MAX_SAMPLES`."""
    value = positive_int(text)
    if value > MAX_SAMPLES:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_SAMPLES:.0e} runs per input (about 20 minutes), got {text}"
        )
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "audit", SUMMARIES["audit"])
    parser = leaf(
        table,
        "macro-block",
        "exact ε of a CarryForwardLearner block against Lemma 6.2 / 6.4",
        macro_block,
        _macro_block_call,
    )
    parser.add_argument("--class", dest="concept", choices=("thresholds", "intervals", "rectangles"))
    parser.add_argument("--domain-size", type=positive_int)
    parser.add_argument("--m", type=positive_int, help="active sample size (1 to 3)")
    parser.add_argument("--block", choices=("macro", "init", "oracle"))
    parser.add_argument("--reservoir", type=positive_int, help="size of the fixed next reservoir W")
    parser.add_argument(
        "--oracle-epsilon", type=decimal_text, help="ε_A of the completion-score oracle (default 4)"
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="exact enumeration (the only mode; Monte Carlo audits: dpledger audit mechanism)",
    )

    parser = leaf(
        table,
        "qcopt",
        "exact ε at δ of QCOpt as implemented (RecConcave, Proposition 8.6) or one of its steps",
        qcopt,
    )
    parser.add_argument("--step", choices=QCOPT_STEPS, help="what to audit (default level)")

    parser = leaf(
        table,
        "mechanism",
        "Monte Carlo lower bounds on the ε of a mechanism on two neighbouring inputs: VIOLATION "
        "(events on the output's value break the claim), FLOAT LEAK (only events on its float64 bits do: "
        "Mironov 2012's attack) or NO VIOLATION FOUND; exit 1 on either failure (docs/audit.md)",
        mechanism,
        _mechanism_call,
    )
    parser.add_argument(
        "--mechanism",
        required=True,
        metavar="MODULE:FUNCTION",
        help="f(data, n, rng) -> n independent outputs drawn with rng. The mechanism is code that "
        "runs: importing MODULE runs it, here and on every worker, with your rights — audit "
        "only code you would run (the current directory is importable, after installed "
        "modules)",
    )
    parser.add_argument("--input-a", metavar="JSON", help="first input, as JSON or @file.json")
    parser.add_argument("--input-b", metavar="JSON", help="neighbouring input, as JSON or @file.json")
    parser.add_argument(
        "--domain",
        metavar="JSON",
        help="also audit every substitute-one neighbour of input-a over this list of record values "
        "(records × values pairs; at most 1000 pairs and 2e10 runs in all); with --search, "
        "the record values searched",
    )
    parser.add_argument(
        "--search",
        action="store_true",
        help="search neighbouring pairs (StatDP/DP-Sniper patterns, then hill climbing toward higher "
        "estimated loss) and certify the best on fresh runs; the default when no pair is given",
    )
    parser.add_argument(
        "--input-length",
        type=positive_int,
        metavar="N",
        help="records (or query answers) per input of a search (default: input-a's length)",
    )
    parser.add_argument(
        "--relation",
        choices=("substitute", "answers"),
        help="neighbours of a search: datasets over --domain differing in one record (default), or "
        "query-answer vectors differing by at most 1 per answer (StatDP's setting)",
    )
    parser.add_argument(
        "--screen-samples",
        type=sample_count,
        metavar="N",
        help="runs per input screening each searched pair (default samples/10, at least 2000)",
    )
    parser.add_argument(
        "--claimed-epsilon",
        required=True,
        type=claim_number,
        metavar="E",
        help="the claimed ε: a decimal (1, 1e-1) or a fraction (1/3)",
    )
    parser.add_argument("--delta", type=claim_number, metavar="D", help="claimed δ (default 0; 1e-6, 1/1000)")
    parser.add_argument(
        "--samples",
        type=sample_count,
        metavar="N",
        help=f"runs per input (default 1e6, at most {MAX_SAMPLES:.0e})",
    )
    parser.add_argument(
        "--per-sample", action="store_true", help="the function is f(data, rng) -> one output"
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        help="stop the audit after this many seconds (exit status 2); default: no limit",
    )
    parser.add_argument(
        "--network",
        action="store_true",
        help="also search a small perceptron's score on vector outputs (DP-Sniper's MLP; slower)",
    )
    _add_run_options(parser)

    parser = leaf(
        table,
        "learner",
        "Monte Carlo lower bound on the ε of a seed-002 agnostic learner's released state "
        "on neighbouring datasets chosen to be hard (identical records, one label changed; canaries at the "
        "domain's extreme), against its (ε, δ); exit 1 on a violation",
        learner,
    )
    parser.add_argument(
        "--algorithm",
        required=True,
        choices=("improper", "proper", "semi-agnostic", "carry-forward"),
        help="Theorem 2.1 (improper), 3.1 (proper), 4.1 (semi-agnostic), or Theorem 5.1's "
        "CarryForwardLearner on intervals (white-box only)",
    )
    parser.add_argument(
        "--epsilon",
        required=True,
        type=claim_number,
        metavar="E",
        help="the learner's ε, and the claim audited",
    )
    parser.add_argument("--delta", type=claim_number, metavar="D", help="the learner's δ (default 1e-5)")
    parser.add_argument(
        "--dimension", type=positive_int, metavar="D", help="dimension of the records (default 2)"
    )
    parser.add_argument(
        "--records",
        type=positive_int,
        metavar="N",
        help="records per dataset (default: the fewest the learner accepts, the hardest)",
    )
    parser.add_argument(
        "--extreme",
        type=positive_float,
        metavar="R",
        help="distance of the canaries from the origin (default 10, beyond every clipping radius)",
    )
    parser.add_argument("--samples", type=sample_count, metavar="N", help="fits per input (default 600)")
    parser.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        help="stop the audit after this many seconds (exit status 2); default: no limit",
    )
    parser.add_argument(
        "--mode",
        choices=LEARNER_MODES,
        help="white-box: every release's noise, selection and sensitivity against its event; "
        "black-box: Monte Carlo attack on the released state; both (default): white-box first, "
        "black-box when it finds nothing",
    )
    _add_run_options(parser)

    parser = leaf(table, "catalog", "audit the catalog of mechanisms with known ε", catalog)
    parser.add_argument(
        "--samples",
        type=sample_count,
        metavar="N",
        help=f"runs per input (default 2e5, at most {MAX_SAMPLES:.0e})",
    )
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="audit only this mechanism (repeatable)"
    )
    _add_run_options(parser)

    parser = leaf(
        table,
        "suites",
        "audit StatDP's and DP-Sniper's mechanism suites (DP-Sniper's parameters, each against its own "
        "claim) on DP-Sniper's pairs, beside the optimal-statistic limit and DP-Sniper's published bounds",
        suites,
    )
    parser.add_argument(
        "--samples",
        type=sample_count,
        metavar="N",
        help=f"runs per input (default 1e5, at most {MAX_SAMPLES:.0e})",
    )
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="audit only this mechanism (repeatable)"
    )
    parser.add_argument("--seed", type=seed, help="root seed")
    parser.add_argument(
        "--scheduler", metavar="ADDR", help="Dask scheduler address, or 'local' for a LocalCluster"
    )
    parser.add_argument(
        "--workers", type=positive_int, metavar="W", help="local worker processes (default: one per core)"
    )

    parser = leaf(
        table,
        "labelboost",
        "exact worst-case ε of a LabelBoost release (Algorithm 1) over all neighbour pairs of small datasets, "
        "against Lemma 3.17 (carrier), 3.14 (weights), 3.15 (continuation); 'hypothesis' releases the "
        "selected representative, which no lemma covers",
        labelboost,
    )
    parser.add_argument(
        "--class",
        dest="class_name",
        required=True,
        metavar="CLASS",
        help=f"concept class: {', '.join(CLASS_NAMES)} (thresholds, intervals on [0, D); rectangles "
        "and halfspaces on [0, D)², halfspace coefficients in {-1, 0, 1})",
    )
    parser.add_argument(
        "--domain-size", type=positive_int, required=True, help="grid side D (domain [0, D)^d)"
    )
    parser.add_argument("--labeled", type=positive_int, required=True, help="|S|, labeled records")
    parser.add_argument("--unlabeled", type=integer, required=True, help="|T|, unlabeled records (≥ 0)")
    parser.add_argument("--release", choices=RELEASES, help="what is released (default: carrier)")
    parser.add_argument(
        "--continuation-epsilon",
        type=decimal_text,
        help="ε of the realizable-private continuation (release continuation), default 0.5",
    )
    parser.add_argument("--workers", type=positive_int, help="processes for the enumeration (default 2)")
    parser.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="enumerate on Dask: a scheduler address, or 'local' for a LocalCluster of --workers "
        "workers (the same result as local processes)",
    )


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of a Monte Carlo audit run: confidence, seed, where it runs, stages."""
    parser.add_argument("--confidence", type=finite_float, metavar="C", help="in (0, 1); default 0.95")
    parser.add_argument("--seed", type=seed, help="root seed (results are identical on every executor)")
    parser.add_argument(
        "--scheduler", metavar="ADDR", help="Dask scheduler address, or 'local' for a LocalCluster"
    )
    parser.add_argument(
        "--workers", type=positive_int, metavar="W", help="local worker processes (default: one per core)"
    )
    parser.add_argument(
        "--stages",
        type=positive_int,
        metavar="K",
        help="sequential stages, stopping once a violation is certified (default 4; 1: one pass, best bound)",
    )


def _macro_block_call(options: dict[str, Any]) -> dict[str, Any]:
    """``--exact`` names the only mode: nothing to pass."""
    options.pop("exact", None)
    return options


def _mechanism_call(options: dict[str, Any]) -> dict[str, Any]:
    """The JSON inputs read (``@path``: from a file)."""
    for name in ("input_a", "input_b", "domain"):
        if name in options:
            options[name] = _read_json(options[name], "--" + name.replace("_", "-"))
    return options


def _read_json(text: str, option: str) -> Any:
    """JSON text, or the JSON in the file ``@path``."""
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text()
        except OSError as error:
            raise ValueError(f"{option}: cannot read {text[1:]!r}: {error.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{option} is not valid JSON: {error}") from None
    except RecursionError:
        raise ValueError(f"{option} nests its JSON too deeply to read") from None
