"""Running the privacy mutants (:mod:`dpledger.verify.paper.mutants`) against the tests the registry
names, and the status file that records the outcome (``reports/mutation-status.json``).

How a mutant is run. The tree is not copied and nothing is installed: :func:`package_view` builds,
in a scratch folder, the import package ``dpledger`` as the build maps it (``api/`` → ``dpledger``,
``learners/`` → ``dpledger.learners`` …), each file a symbolic link to the source tree. A mutant
replaces one link by the mutated module; pytest runs from the source tree with the view first on
``PYTHONPATH`` (the editable install's finder comes after the path entries, so the view wins, in
pytest's own process and in every subprocess a test starts) and with ``PYTHONDONTWRITEBYTECODE``
(no stale bytecode of a mutated module is ever written or read twice). Then the link is restored.

Which tests. For each statement the plan lists for the mutant's module
(:class:`~dpledger.verify.paper.mutants.ModulePlan`), in the plan's order, the tests of its privacy
parts as the registry names them *when the run starts* (so new checks count without a change
here), those whose test function exists; ``pytest -x`` under hypothesis's ``mutation`` profile
(``tests/conftest.py``: the first failing example ends the test, nothing is shrunk) with a timeout
per statement (60 s plus five times the statement's unmutated run; the process group is ended on a
timeout). The mutant is **killed** by the first statement whose tests fail, **survived** when
every statement's tests pass, **timeout** when none failed and one timed out. A statement whose
tests fail unmutated (the baseline) cannot judge a mutant and is left out, and said so. Declared
equivalent mutants are not run (**equivalent**, with the reason).

The status file (:func:`record`, :func:`load_status`) holds one entry per mutant, each with the
commit it ran at and the SHA-256 of its module's source; a run of some modules replaces only their
entries. :func:`gates` turns it into the verdict per statement that ``dpledger proofs`` applies to
privacy parts: ``killed`` (every mutant of the statement's modules killed or equivalent),
``mutants survive``, ``mutants stale`` (a module's source, its set of mutants or a statement's test
list changed since its entries were recorded) or ``mutants not run``.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpledger import __version__
from dpledger.verify.paper.mutants import Mutant, MutationPlan, generate, load_mutation_plan
from dpledger.verify.paper.proof_runs import source_state
from dpledger.verify.paper.registry import REPO_ROOT, Statement, defined_tests, select

MUTATION_STATUS_FILE = "reports/mutation-status.json"
"""The committed record of the mutation runs, relative to the source tree."""

PACKAGE_FOLDERS = {
    "dpledger": "api",
    "dpledger/accountant": "accountant",
    "dpledger/learners": "learners",
    "dpledger/verify": "verify",
}
"""Where each part of the import package lives in the source tree (``pyproject.toml``'s package-dir)."""

MUTANT_STATUSES = ("killed", "survived", "equivalent", "timeout", "not run")
GATES = ("killed", "mutants survive", "mutants stale", "mutants not run")
"""What the mutation record says about a statement's privacy part (module doc)."""

MIN_TIMEOUT = 60.0


def privacy_tests(statement: Statement, root: Path = REPO_ROOT) -> tuple[str, ...]:
    """The node ids of the statement's privacy parts whose test function exists under ``root``."""
    named = [node for part in statement.parts if part.kind == "privacy" for node in part.tests]
    present = defined_tests(root, named)
    return tuple(node for node in named if node in present)


def package_view(root: Path, scratch: Path) -> Path:
    """The import package ``dpledger`` of the tree at ``root`` as links under ``scratch``.

    Args:
        root: The source tree.
        scratch: An empty folder.

    Returns:
        The folder to put first on ``PYTHONPATH`` (it holds ``dpledger/``).
    """
    site = scratch / "site"
    for package, folder in PACKAGE_FOLDERS.items():
        for source in sorted((root / folder).rglob("*")):
            relative = source.relative_to(root / folder)
            if "__pycache__" in relative.parts or source.is_dir():
                continue
            if package == "dpledger" and relative.parts[0] in ("accountant", "learners", "verify"):
                continue
            link = site / package / relative
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(source.resolve())
    return site


def view_path(site: Path, module: str) -> Path:
    """Where the module at ``module`` (a source-tree path) sits in the view."""
    for package, folder in sorted(PACKAGE_FOLDERS.items(), key=lambda item: -len(item[1])):
        if module.startswith(folder + "/"):
            return site / package / module.removeprefix(folder + "/")
    raise ValueError(f"{module} is not in the package")


@contextmanager
def planted(site: Path, root: Path, mutant: Mutant) -> Iterator[None]:
    """The view with ``mutant`` in place of its module's link, restored afterwards."""
    link = view_path(site, mutant.module)
    link.unlink()
    link.write_text(mutant.apply((root / mutant.module).read_text()))
    try:
        yield
    finally:
        link.unlink()
        link.symlink_to((root / mutant.module).resolve())


def run_tests(tests: Iterable[str], site: Path, root: Path, timeout: float) -> tuple[str, float]:
    """``pytest -x`` on ``tests`` with the view ``site`` first on the path.

    Args:
        tests: Node ids.
        site: The package view (:func:`package_view`).
        root: The source tree (pytest's working folder).
        timeout: Seconds before the run's process group is ended.

    Returns:
        (``passed`` | ``failed`` | ``timeout`` | ``error``, seconds): ``failed`` for a failing or
        erroring test or a module that does not import (pytest's exit status 1 or 2), ``error``
        for pytest's own problems (3–5).
    """
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-p",
        "no:cacheprovider",
        "--hypothesis-profile=mutation",
        *tests,
    ]
    start = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return "timeout", time.monotonic() - start
    seconds = time.monotonic() - start
    return ("passed" if code == 0 else "failed" if code in (1, 2) else "error"), seconds


@dataclass(frozen=True)
class MutantResult:
    """What became of one mutant: its status, the statement whose tests killed it, and the
    outcome per statement tried (``killed``, ``survived``, ``timeout``, ``baseline failed``,
    ``no tests``)."""

    mutant: Mutant
    status: str
    killed_by: str | None
    outcomes: Mapping[str, str]
    seconds: float
    reason: str = ""


def run_mutants(
    mutants: list[Mutant],
    plan: MutationPlan,
    root: Path = REPO_ROOT,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[MutantResult], dict[str, dict[str, Any]]]:
    """Run each mutant against its statements' privacy tests (module doc).

    Args:
        mutants: From :func:`~dpledger.verify.paper.mutants.generate`.
        plan: The mutation plan (statements per module, equivalents).
        root: The source tree.
        progress: Called with one line per baseline and mutant.

    Returns:
        The results in the order of ``mutants``, and per statement key its baseline: ``tests``,
        ``outcome`` and ``seconds`` of the unmutated run.
    """
    say = progress or (lambda line: None)
    baselines: dict[str, dict[str, Any]] = {}
    results = []
    with tempfile.TemporaryDirectory(prefix="dpledger-mutants-") as scratch:
        site = package_view(root, Path(scratch))
        for mutant in mutants:
            if mutant.id in plan.equivalent:
                results.append(MutantResult(mutant, "equivalent", None, {}, 0.0, plan.equivalent[mutant.id]))
                say(f"equivalent  {mutant.id}")
                continue
            outcomes: dict[str, str] = {}
            status, killer, spent = "survived", None, 0.0
            for statement in plan.statements_of(mutant.module):
                base = baselines.get(statement.key)
                if base is None:
                    tests = privacy_tests(statement, root)
                    outcome, seconds = run_tests(tests, site, root, 1800.0) if tests else ("no tests", 0.0)
                    base = baselines[statement.key] = {
                        "tests": list(tests),
                        "outcome": outcome,
                        "seconds": round(seconds, 1),
                    }
                    say(f"baseline    {statement.key}: {outcome} in {seconds:.1f} s ({len(tests)} tests)")
                if base["outcome"] != "passed":
                    outcomes[statement.key] = "baseline failed" if base["tests"] else "no tests"
                    continue
                with planted(site, root, mutant):
                    outcome, seconds = run_tests(base["tests"], site, root, MIN_TIMEOUT + 5 * base["seconds"])
                spent += seconds
                outcomes[statement.key] = {"failed": "killed", "passed": "survived"}.get(outcome, outcome)
                if outcome == "failed":
                    status, killer = "killed", statement.key
                    break
                if outcome in ("timeout", "error"):
                    status = "timeout"
            if not any(o in ("killed", "survived", "timeout", "error") for o in outcomes.values()):
                status = "not run"
            results.append(MutantResult(mutant, status, killer, outcomes, spent))
            say(f"{status:<11} {mutant.id} ({spent:.1f} s){' by ' + killer if killer else ''}")
    return results, baselines


def module_digest(root: Path, module: str) -> str:
    """SHA-256 of a module's source (what a status entry was recorded against)."""
    return hashlib.sha256((root / module).read_bytes()).hexdigest()


def load_status(path: Path) -> dict[str, Any] | None:
    """The recorded mutation status (None without a file).

    Raises:
        ValueError: If the file cannot be read or is not a mutation status file.
    """
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        entries = data["mutants"]
        if not isinstance(entries, dict) or any(e["status"] not in MUTANT_STATUSES for e in entries.values()):
            raise ValueError(f"statuses outside {MUTANT_STATUSES}")
    except OSError as error:
        raise ValueError(f"mutation status file {path} cannot be read: {error.strerror}") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path} is not a dpledger mutation status file: {error}") from None
    return data


def record(
    results: list[MutantResult],
    baselines: Mapping[str, Mapping[str, Any]],
    path: Path,
    root: Path = REPO_ROOT,
    seconds: float | None = None,
) -> dict[str, Any]:
    """Merge ``results`` into the status file ``path``: the entries of the modules run are replaced
    (each entry with this run's commit and its module's digest), the others kept.

    Args:
        results: From :func:`run_mutants`.
        baselines: Its baselines.
        path: The status file.
        root: The source tree (for the commit and the digests).
        seconds: The run's wall time, recorded with the modules it covered.

    Returns:
        The data written.
    """
    previous = load_status(path) or {"mutants": {}, "baselines": {}, "runs": []}
    modules = sorted({r.mutant.module for r in results})
    commit, dirty = source_state(root)
    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    entries = {k: v for k, v in previous["mutants"].items() if v["module"] not in modules}
    for result in results:
        entries[result.mutant.id] = {
            **result.mutant.to_dict(),
            "status": result.status,
            "killed_by": result.killed_by,
            "outcomes": dict(result.outcomes),
            "seconds": round(result.seconds, 1),
            "reason": result.reason,
            "commit": commit,
            "dirty": dirty,
            "date": date,
            "module_sha256": module_digest(root, result.mutant.module),
        }
    data = {
        "dpledger_version": __version__,
        "command": "python benchmarks/bench_privacy_mutants.py",
        "mutants": dict(sorted(entries.items())),
        "baselines": {**previous.get("baselines", {}), **{k: dict(v) for k, v in baselines.items()}},
        "runs": [
            *previous.get("runs", [])[-9:],
            {"commit": commit, "dirty": dirty, "date": date, "modules": modules, "seconds": seconds},
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return data


def counts(entries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many entries have each status of :data:`MUTANT_STATUSES`, and their ``score``: killed
    over killed + survived + timeout (equivalents left out), in percent."""
    table = dict.fromkeys(MUTANT_STATUSES, 0)
    for entry in entries:
        table[entry["status"]] += 1
    judged = table["killed"] + table["survived"] + table["timeout"]
    table["score"] = round(100 * table["killed"] / judged) if judged else 0
    return table


def gates(
    status: Mapping[str, Any] | None,
    root: Path = REPO_ROOT,
    plan: MutationPlan | None = None,
    mutants: Iterable[Mutant] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per statement of the plan: its ``gate`` (:data:`GATES`), the ``counts`` of its modules'
    mutants and, when stale, ``stale`` naming why.

    Args:
        status: The recorded status (:func:`load_status`), or None.
        root: The source tree (the current modules and tests).
        plan: The mutation plan (default: the declared one).
        mutants: The plan's current mutants (default: generated from ``root``).

    Returns:
        Statement key → ``{"gate", "counts", "modules", "stale"}``.
    """
    plan = plan or load_mutation_plan()
    entries = (status or {}).get("mutants", {})
    baselines = (status or {}).get("baselines", {})
    current: dict[str, set[str]] = {m.path: set() for m in plan.modules}
    for mutant in generate(root, plan) if mutants is None else mutants:
        current[mutant.module].add(mutant.id)
    out: dict[str, dict[str, Any]] = {}
    for module in plan.modules:
        recorded = [e for e in entries.values() if e["module"] == module.path]
        stale = ""
        if recorded and {e["id"] for e in recorded} != current[module.path]:
            stale = f"the mutants of {module.path} changed"
        elif recorded and any(e["module_sha256"] != module_digest(root, module.path) for e in recorded):
            stale = f"{module.path} changed since commit {recorded[0]['commit'][:12]}"
        for statement in select(module.statements):
            row = out.setdefault(statement.key, {"modules": [], "entries": [], "stale": [], "missing": []})
            row["modules"].append(module.path)
            row["entries"] += recorded
            if not recorded:
                row["missing"].append(module.path)
            if stale:
                row["stale"].append(stale)
            base = baselines.get(statement.key)
            if recorded and base is not None and base["tests"] != list(privacy_tests(statement, root)):
                row["stale"].append(f"the privacy tests of {statement.key} changed")
    for row in out.values():
        table = counts(row.pop("entries"))
        survived = table["survived"] + table["timeout"] + table["not run"]
        row["counts"] = table
        row["gate"] = (
            "mutants not run"
            if row["missing"]
            else "mutants stale"
            if row["stale"]
            else "mutants survive"
            if survived
            else "killed"
        )
        row["stale"] = sorted(set(row["stale"]))
    return out


def recorded_gates(path: Path | None = None, root: Path = REPO_ROOT) -> dict[str, dict[str, Any]] | None:
    """:func:`gates` of the recorded status file ``path`` (default: the committed
    :data:`MUTATION_STATUS_FILE`); None outside a source checkout, where neither the modules nor the
    tests are there to compare the record with.

    Raises:
        ValueError: If the file is not a mutation status file.
    """
    if not ((root / "tests").is_dir() and (root / "learners").is_dir()):
        return None
    return gates(load_status(path or root / MUTATION_STATUS_FILE), root)


def gate_text(row: Mapping[str, Any]) -> str:
    """One line: ``8 mutants of learners/agnostic/proper.py: 2 killed, 6 survived, … (score 25 %):
    mutants survive`` (and why, when stale or not run)."""
    table = row["counts"]
    total = sum(table[s] for s in MUTANT_STATUSES)
    found = ", ".join(f"{table[s]} {s}" for s in MUTANT_STATUSES if table[s])
    text = f"{total} mutants of {', '.join(row['modules'])}: {found or 'none recorded'} (score {table['score']} %): {row['gate']}"
    if row["missing"]:
        text += f" (no record for {', '.join(row['missing'])}: python benchmarks/bench_privacy_mutants.py)"
    if row["stale"]:
        text += f" ({'; '.join(row['stale'])})"
    return text
