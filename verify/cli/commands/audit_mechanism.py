"""``dpledger audit mechanism`` and ``dpledger audit catalog``: Monte Carlo privacy audits.

``audit mechanism`` runs a user's mechanism (``module:function``, vectorised
``f(data, n, rng)``, or ``f(data, rng)`` with ``--per-sample``) on two neighbouring JSON inputs
and certifies a lower bound on its ε (:func:`dpledger.verify.audit.montecarlo.audit.audit`); ``audit catalog``
audits the mechanisms of :mod:`dpledger.verify.audit.montecarlo.catalog` and compares with their known ε.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpledger.verify.cli.commands import Output, finite_float, group, leaf, positive_int, progress

if TYPE_CHECKING:  # the auditor (scipy.stats, numpy) is imported when a command runs
    from dpledger.verify.audit.montecarlo.audit import AuditResult
    from dpledger.verify.audit.montecarlo.catalog import CatalogRow


MAX_SAMPLES = 10**10
"""Runs per input of one audit: about 20 minutes at the measured 9·10⁶ runs per second."""


def sample_count(text: str) -> int:
    """argparse type: runs per input, 1 to :data:`MAX_SAMPLES`."""
    value = positive_int(text)
    if value > MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"at most {MAX_SAMPLES:.0e} runs per input (about 20 minutes), got {text}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "audit", "audit privacy claims")
    parser = leaf(
        table,
        "mechanism",
        "Monte Carlo lower bound on the ε of a mechanism on two neighbouring inputs",
        _audit_mechanism,
    )
    parser.add_argument(
        "--mechanism", required=True, metavar="MODULE:FUNCTION", help="f(data, n, rng) -> n outputs"
    )
    parser.add_argument("--input-a", required=True, metavar="JSON", help="first input, as JSON or @file.json")
    parser.add_argument(
        "--input-b", required=True, metavar="JSON", help="neighbouring input, as JSON or @file.json"
    )
    parser.add_argument(
        "--domain",
        metavar="JSON",
        help="also audit every substitute-one neighbour of input-a over this list of record values",
    )
    parser.add_argument("--claimed-epsilon", required=True, type=finite_float, metavar="E")
    parser.add_argument("--delta", type=finite_float, default=0.0, metavar="D", help="claimed δ (default 0)")
    parser.add_argument(
        "--samples", type=sample_count, default=1_000_000, metavar="N",
        help=f"runs per input (default 1e6, at most {MAX_SAMPLES:.0e})",
    )
    parser.add_argument(
        "--per-sample", action="store_true", help="the function is f(data, rng) -> one output"
    )
    _common_options(parser)
    catalog = leaf(table, "catalog", "audit the catalog of mechanisms with known ε", _audit_catalog)
    catalog.add_argument(
        "--samples", type=sample_count, default=200_000, metavar="N",
        help=f"runs per input (default 2e5, at most {MAX_SAMPLES:.0e})",
    )
    catalog.add_argument(
        "--only", action="append", metavar="NAME", help="audit only this mechanism (repeatable)"
    )
    _common_options(catalog)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--confidence", type=finite_float, default=0.95, metavar="C", help="in (0, 1); default 0.95"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="root seed (results are identical on every executor)"
    )
    parser.add_argument(
        "--scheduler", metavar="ADDR", help="Dask scheduler address, or 'local' for a LocalCluster"
    )
    parser.add_argument(
        "--workers", type=positive_int, metavar="W", help="local worker processes (default: one per core)"
    )
    parser.add_argument(
        "--stages",
        type=positive_int,
        default=4,
        metavar="K",
        help="sequential stages, stopping once a violation is certified (default 4; 1: one pass, best bound)",
    )


def _read_input(text: str, option: str) -> Any:
    """JSON text (or ``@path``); lists become numpy arrays."""
    import numpy as np

    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text()
        except OSError as error:
            raise ValueError(f"{option}: cannot read {text[1:]!r}: {error.strerror}") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{option} is not valid JSON: {error}") from None
    return np.asarray(value) if isinstance(value, list) else value


def _audit_mechanism(args: argparse.Namespace) -> Output:
    import numpy as np

    from dpledger.verify.audit.montecarlo.audit import audit
    from dpledger.verify.audit.montecarlo.executors import open_executor
    from dpledger.verify.audit.montecarlo.mechanism import load_mechanism
    from dpledger.verify.audit.montecarlo.pairs import NeighbourPair, substitute_one

    mechanism = load_mechanism(args.mechanism, per_run=args.per_sample)
    input_a = _read_input(args.input_a, "--input-a")
    pairs = [NeighbourPair(input_a, _read_input(args.input_b, "--input-b"), "input-a vs input-b")]
    if args.domain is not None:
        domain = _read_input(args.domain, "--domain")
        if np.ndim(input_a) != 1 or np.ndim(domain) != 1:
            raise ValueError("--domain needs input-a and the domain to be JSON lists of records")
        pairs += substitute_one(input_a.tolist(), domain.tolist())
    with open_executor(args.scheduler, args.workers) as executor:
        result = audit(
            mechanism,
            pairs,
            args.claimed_epsilon,
            delta=args.delta,
            samples=args.samples,
            confidence=args.confidence,
            seed=args.seed,
            executor=executor,
            stages=args.stages,
            on_progress=_bar("audit"),
        )
    return Output(payload=result.to_json(), text=_mechanism_text(result))


def _bar(label: str) -> Callable[[int, int], None]:
    """A progress callback for the audit, drawing :func:`dpledger.verify.cli.commands.progress` on stderr."""
    advance: Callable[[int], None] | None = None

    def report(done: int, total: int) -> None:
        nonlocal advance
        if advance is None:
            advance = progress(total, label)
        advance(done)

    return report


def _mechanism_text(result: AuditResult) -> str:
    verdict = "VIOLATION" if result.violation else "no violation found"
    lines = [
        f"ε lower bound {result.epsilon_lower:.4f} at confidence {result.confidence} (δ = {result.delta}); "
        f"claimed ε = {result.claimed_epsilon}: {verdict}",
        f"{result.samples} runs per input ({result.samples_total} in all), {result.seconds:.2f} s, "
        f"stage {result.stages_run} of {result.stages_planned}",
        f"corrected for {result.candidates_corrected} events estimated on split 2 "
        f"(chosen among {result.candidates_searched} compared on split 1)",
    ]
    if result.witness:
        witness = result.witness
        lines.append(f"witness: pair {witness['pair']['label']!r}, {witness['direction']}")
        lines.append(f"  event {json.dumps(witness['event'])}")
        lines.append(f"  hits {witness['hits']} of {witness['runs']} runs")
    return "\n".join(lines)


def _audit_catalog(args: argparse.Namespace) -> Output:
    from dpledger.verify.audit.montecarlo.catalog import run_catalog
    from dpledger.verify.audit.montecarlo.executors import open_executor

    with open_executor(args.scheduler, args.workers) as executor:
        rows = run_catalog(
            executor,
            samples=args.samples,
            confidence=args.confidence,
            seed=args.seed,
            names=args.only,
            on_progress=_bar,
            stages=args.stages,
        )
    payload = {
        "samples": args.samples,
        "confidence": args.confidence,
        "mechanisms": [row.to_json() for row in rows],
        "all_as_expected": all(row.as_expected for row in rows),
    }
    return Output(payload=payload, text=catalog_table(rows), status=0 if payload["all_as_expected"] else 1)


def catalog_table(rows: list[CatalogRow]) -> str:
    """The catalog results as a text table: true ε, claim, certified bound, ratio, verdict."""
    header = f"{'mechanism':<27} {'true ε':>7} {'claim':>6} {'certified':>9} {'ratio':>6}  {'verdict':<19} expected"
    lines = [header, "-" * len(header)]
    for row in rows:
        truth = row.entry.true_epsilon
        true_text = "?" if truth is None else ("inf" if math.isinf(truth) else f"{truth:.3f}")
        ratio = "" if row.ratio is None else f"{row.ratio:.3f}"
        verdict = "VIOLATION" if row.result.violation else "no violation found"
        expected = "yes" if row.as_expected else "NO"
        lines.append(
            f"{row.entry.name:<27} {true_text:>7} {row.entry.claimed_epsilon:>6g} "
            f"{row.result.epsilon_lower:>9.4f} {ratio:>6}  {verdict:<19} {expected}"
        )
    return "\n".join(lines)
