"""The proof registry's status record: partial runs replace only their entries (each keeps its own
commit), a full run starts afresh, and an entry for a test that no longer exists is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpledger.verify.cli.main import main
from dpledger.verify.paper import proof_runs, registry

REMOVED = "tests/verify/test_registry.py::test_that_was_removed"


def _statement(key: str) -> registry.Statement:
    return next(s for s in registry.REGISTRY if s.key == key)


@pytest.fixture
def fake_pytest(monkeypatch):
    """pytest replaced by a stand-in that reports every node id it is given as passed (slow ones
    left out under ``-m "not slow"``), so the merge logic runs in milliseconds."""
    slow: set[str] = set()

    def run(command, **_):
        report = Path(next(a for a in command if a.startswith("--junitxml=")).split("=", 1)[1])
        nodes = [a for a in command if a.startswith("tests/")]
        if "not slow" in command:
            nodes = [n for n in nodes if n not in slow]
        cases = "".join(
            f'<testcase classname="{n.split("::")[0].removesuffix(".py").replace("/", ".")}" name="{n.split("::")[1]}"/>'
            for n in nodes
        )
        report.write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>")

    monkeypatch.setattr(proof_runs.subprocess, "run", run)
    monkeypatch.setattr(proof_runs, "source_state", lambda root: ("c" * 40, False))
    return slow


def _write(path: Path, results: dict[str, str], commit: str) -> None:
    path.write_text(json.dumps({"results": results, "commit": commit, "dirty": False, "date": "2026-01-01"}))


def test_a_partial_run_replaces_only_its_entries_each_keeping_its_commit(fake_pytest, tmp_path):
    lemma, definition = _statement("000:Lemma 6.2"), _statement("000:Definition 3.6")
    status = tmp_path / "status.json"
    _write(status, dict.fromkeys((*lemma.tests, *definition.tests), "failed"), "a" * 40)
    proof_runs.record_run((definition,), status)
    run = registry.load_run(status)
    assert run is not None
    assert {run.results[n] for n in definition.tests} == {"passed"}
    assert {run.results[n] for n in lemma.tests} == {"failed"}
    assert {run.provenance(n)[0] for n in lemma.tests} == {"a" * 40}
    assert {run.provenance(n)[0] for n in definition.tests} == {"c" * 40}
    assert "commit cccccccccccc" in run.describe() and "commit aaaaaaaaaaaa" in run.describe()


def test_a_fast_run_keeps_the_outcomes_of_the_slow_tests_it_deselects(fake_pytest, tmp_path):
    lemma = _statement("000:Lemma 6.2")
    kept, *rest = lemma.tests
    fake_pytest.add(kept)
    status = tmp_path / "status.json"
    _write(status, dict.fromkeys(lemma.tests, "failed"), "a" * 40)
    proof_runs.record_run((lemma,), status, slow=False)
    run = registry.load_run(status)
    assert run is not None
    assert (run.results[kept], run.provenance(kept)[0]) == ("failed", "a" * 40)
    assert {(run.results[n], run.provenance(n)[0]) for n in rest} == {("passed", "c" * 40)}


def test_a_full_run_starts_a_fresh_record(fake_pytest, tmp_path, monkeypatch):
    status = tmp_path / "status.json"
    _write(status, {REMOVED: "passed"}, "a" * 40)
    monkeypatch.setattr(proof_runs, "REGISTRY", (_statement("000:Lemma 6.2"),))
    proof_runs.record_run(proof_runs.REGISTRY, status)
    run = registry.load_run(status)
    assert run is not None
    assert REMOVED not in run.results and set(run.results) == set(_statement("000:Lemma 6.2").tests)


def test_a_status_entry_naming_a_removed_test_is_refused(capsys, tmp_path):
    status = tmp_path / "status.json"
    _write(status, {REMOVED: "not collected"}, "a" * 40)
    run = registry.load_run(status, registry.REPO_ROOT)
    assert run is not None and run.results == {REMOVED: "not collected"}
    _write(status, {REMOVED: "passed"}, "a" * 40)
    with pytest.raises(ValueError, match="a test that no longer exists"):
        registry.load_run(status, registry.REPO_ROOT)
    assert main(["proofs", "--only", "000:Lemma 6.2", "--status-file", str(status)]) == 2
    error = capsys.readouterr().err
    assert "test_that_was_removed" in error and len(error.strip().splitlines()) == 1


def test_a_partial_run_over_a_record_with_a_removed_test_is_refused(fake_pytest, tmp_path):
    status = tmp_path / "status.json"
    _write(status, {REMOVED: "passed"}, "a" * 40)
    with pytest.raises(ValueError, match="remove the entry or record a full run"):
        proof_runs.record_run((_statement("000:Definition 3.6"),), status)
