"""Running the proof registry's checks: :func:`record_run` runs the tests that check a set of
statements with pytest and records their outcomes in a status file (``dpledger proofs --run``),
from pytest's JUnit XML report (:func:`junit_outcomes`), each entry with the commit the run checked,
whether the working tree had uncommitted changes, and the UTC date (:func:`source_state`). A
partial run (``--only``, ``--fast``) replaces only the entries it ran and keeps the others with
their own provenance; a full run (every statement, slow tests included) writes a fresh record."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

from dpledger import __version__
from dpledger.verify.paper.registry import (
    RECORDED_STATUS_FILE,
    REGISTRY,
    REPO_ROOT,
    Statement,
    defined_tests,
    load_run,
)

_SEVERITY = {"passed": 0, "skipped": 1, "error": 2, "failed": 3}


def record_run(statements: tuple[Statement, ...], status_file: Path, slow: bool = True) -> dict[str, str]:
    """Run the statements' tests with pytest (output on stderr as the progress display), merge the
    outcomes into ``status_file`` and return them.

    Node ids whose test function does not exist are recorded as ``not collected`` without asking
    pytest (which would refuse the whole run), and so are tests pytest did not report (a collection
    error). Only the entries this run ran are replaced, each with this run's commit and date; the
    others — other statements' tests, and the slow tests ``slow=False`` deselects — keep their
    outcome and provenance. A run of the whole registry with ``slow`` starts a fresh record.

    Raises:
        ValueError: Without the source tree's tests, or when the earlier record keeps an outcome
            of a test that no longer exists (:func:`~dpledger.verify.paper.registry.load_run`).
    """
    import sys
    import tempfile

    if not (REPO_ROOT / "tests").is_dir():
        raise ValueError(f"--run needs the source tree's tests/, not found under {REPO_ROOT}")
    nodes = sorted({node for s in statements for node in s.tests})
    present = defined_tests(REPO_ROOT, nodes)
    outcomes = {node: "not collected" for node in nodes if node not in present}
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            *(() if slow else ("-m", "not slow")),
            *sorted(present),
        ]
        subprocess.run(
            command, cwd=REPO_ROOT, stdout=2, stderr=2, check=False
        )  # fd 2: pytest is the progress display
        ran = junit_outcomes(report) if report.exists() else {}
    outcomes.update({node: ran.get(node, "not collected") for node in present if node in ran or slow})
    fresh = slow and {s.key for s in statements} == {s.key for s in REGISTRY}
    previous = None if fresh else load_run(status_file)
    commit, dirty = source_state(REPO_ROOT)
    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    merged = {} if previous is None else {k: v for k, v in previous.results.items() if k not in outcomes}
    recorded = {node: previous.provenance(node) for node in merged} if previous is not None else {}
    merged.update(outcomes)
    recorded.update(dict.fromkeys(outcomes, (commit, dirty, date)))
    status_file.parent.mkdir(parents=True, exist_ok=True)
    status_file.write_text(
        json.dumps(
            {
                "dpledger_version": __version__,
                "commit": commit,
                "dirty": dirty,
                "date": date,
                "results": merged,
                "recorded": {
                    node: {"commit": c, "dirty": d, "date": when} for node, (c, d, when) in recorded.items()
                },
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )
    return merged


def source_state(root: Path) -> tuple[str, bool]:
    """The commit checked out at ``root`` and whether its tracked files differ from it (untracked
    files and the status file itself aside); ``unknown`` without git."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    try:
        commit = git("rev-parse", "HEAD").strip()
        changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    return commit, any(path != RECORDED_STATUS_FILE for path in changed)


def junit_outcomes(report: Path) -> dict[str, str]:
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
        outcome = (
            "failed"
            if "failure" in children
            else "error"
            if "error" in children
            else "skipped"
            if "skipped" in children
            else "passed"
        )
        if _SEVERITY[outcome] >= _SEVERITY.get(outcomes.get(node, "passed"), 0):
            outcomes[node] = outcome
    return outcomes
