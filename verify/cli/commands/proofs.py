"""``dpledger proofs``: the proof registry (every numbered statement of both seeds, how it is
checked, and its status from the last ``--run``)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from dpledger.verify.cli.commands import Output, leaf

if TYPE_CHECKING:
    from dpledger.verify.paper.registry import Statement

REPO_ROOT = Path(__file__).resolve().parents[3]
"""The source tree whose ``tests/`` the registry names (``--run`` needs it)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = leaf(subparsers, "proofs",
                  "list every numbered statement of both seeds with its check and status; --run runs the checks", run)
    parser.add_argument("--run", action="store_true",
                        help="run the named tests with pytest (slow) and record their outcomes in the status file")
    parser.add_argument("--fast", action="store_true", help="with --run: skip tests marked slow (they stay 'not run')")
    parser.add_argument("--only", action="append", metavar="ID",
                        help="only this statement ('Lemma 6.2' or '000:Lemma 6.2'; repeatable)")
    parser.add_argument("--status-file", type=Path, default=None,
                        help="where outcomes are read and recorded (default: ~/.cache/dpledger/proofs-status.json)")
    parser.add_argument("--findings", action="store_true",
                        help="print the findings (seed statements and cited tools) instead of the table")


def run(args: argparse.Namespace) -> Output:
    from dpledger.verify.paper import registry

    if args.fast and not args.run:
        raise ValueError("--fast only applies with --run")
    statements = registry.select(args.only)
    status_file = args.status_file or registry.default_status_file()
    if args.run:
        record_run(statements, status_file, slow=not args.fast)
    results = registry.load_results(status_file)
    if args.findings:
        return _findings_output(statements)
    rows = [s.to_dict(results) for s in statements]
    counts = registry.summary(statements, results)
    lines = [f"{len(rows)} statements; status from {status_file if results is not None else 'no run yet'}", ""]
    for row in rows:
        lines.append(f"{row['key']:<28} {row['check']:<10} {row['status']:<11} {row['statement']}")
        lines += [f"{'':<28} finding ({f['kind']}): {f['summary']} Witness: {f['witness']} [{f['command']}]"
                  for f in row["findings"]]
    lines += [""] + [f"{axis}: " + ", ".join(f"{k} {v}" for k, v in sorted(table.items()))
                     for axis, table in sorted(counts.items())]
    return Output(rows, "\n".join(lines))


def _findings_output(statements: tuple[Statement, ...]) -> Output:
    from dpledger.verify.paper import registry

    seed = [{"key": s.key, **f.to_dict()} for s in statements for f in s.findings]
    external = [f.to_dict() for f in registry.EXTERNAL_FINDINGS]
    lines = ["Findings about the seeds:"]
    lines += [f"  {f['key']} ({f['kind']}): {f['summary']}\n    witness: {f['witness']}\n    command: {f['command']}"
              for f in seed]
    lines += ["External findings (cited tools):"]
    lines += [f"  ({f['kind']}) {f['summary']}\n    witness: {f['witness']}\n    command: {f['command']}" for f in external]
    return Output({"seed_findings": seed, "external_findings": external}, "\n".join(lines))


def record_run(statements: tuple[Statement, ...], status_file: Path, slow: bool = True) -> dict[str, str]:
    """Run the statements' tests with pytest (output on stderr as the progress display), merge the
    outcomes into ``status_file`` and return them. Node ids whose test function does not exist are
    recorded as ``not collected`` without asking pytest (which would refuse the whole run), and so
    are tests pytest did not report (a collection error); tests deselected by ``slow=False`` lose
    any earlier outcome and become ``not run``."""
    import subprocess
    import sys
    import tempfile

    from dpledger.verify.paper import registry
    from dpledger.verify.reports import dpledger_version

    if not (REPO_ROOT / "tests").is_dir():
        raise ValueError(f"--run needs the source tree's tests/, not found under {REPO_ROOT}")
    nodes = sorted({node for s in statements for node in s.tests})
    present = registry.defined_tests(REPO_ROOT, nodes)
    outcomes = {node: "not collected" for node in nodes if node not in present}
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                   *(() if slow else ("-m", "not slow")), *sorted(present)]
        subprocess.run(command, cwd=REPO_ROOT, stdout=2, stderr=2, check=False)  # fd 2: pytest is the progress display
        ran = _junit_outcomes(report) if report.exists() else {}
    outcomes.update({node: ran.get(node, "not collected") for node in present if node in ran or slow})
    previous = registry.load_results(status_file) or {}
    merged = {node: outcome for node, outcome in previous.items() if node not in nodes}
    merged.update(outcomes)
    status_file.parent.mkdir(parents=True, exist_ok=True)
    status_file.write_text(json.dumps({"dpledger_version": dpledger_version(), "results": merged}, indent=1,
                                      sort_keys=True) + "\n")
    return merged


_SEVERITY = {"passed": 0, "skipped": 1, "error": 2, "failed": 3}


def _junit_outcomes(report: Path) -> dict[str, str]:
    """Outcome per test function from a pytest JUnit XML report (parametrised cases folded: the
    worst case wins, and a function is ``passed`` only when no case failed, errored or skipped)."""
    import xml.etree.ElementTree as ElementTree

    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        classname = case.get("classname", "")
        if not classname:
            continue  # a collection error: its nodes are missing from the report
        node = classname.replace(".", "/") + ".py::" + case.get("name", "").split("[")[0]
        children = {child.tag for child in case}
        outcome = ("failed" if "failure" in children else "error" if "error" in children
                   else "skipped" if "skipped" in children else "passed")
        if _SEVERITY[outcome] >= _SEVERITY.get(outcomes.get(node, "passed"), 0):
            outcomes[node] = outcome
    return outcomes
