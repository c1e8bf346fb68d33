"""The proof registry cannot rot: every test it names exists, every numbered statement of the
seeds is in it, status is only what a run recorded, cited statements never count as verified."""
import json
import re
from pathlib import Path

import pytest

from dpledger.verify.paper import registry
from dpledger.verify.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
HEADER_000 = re.compile(r"^(Lemma|Theorem|Corollary|Definition|Proposition|Algorithm|Remark|Claim|Assumption) "
                        r"([A-Z]?\.?[0-9]+(?:\.[0-9]+)?)", re.M)
MENTION_002 = re.compile(r"\b(Theorem|Lemma|Proposition|Corollary|Claim|Fact|Definition|Assumption|Algorithm) "
                         r"((?:[A-Z]\.)?[0-9]+(?:\.[0-9]+)?)\b")


def test_every_test_the_registry_names_exists():
    nodes = {node for s in registry.REGISTRY for node in s.tests}
    missing = nodes - registry.defined_tests(ROOT, nodes)
    assert not missing, f"registry names tests that do not exist: {sorted(missing)}"


def test_defined_tests_rejects_a_renamed_test():
    real = "tests/verify/test_registry.py::test_every_test_the_registry_names_exists"
    assert registry.defined_tests(ROOT, [real, real + "_renamed", "tests/nowhere.py::test_x"]) == {real}


seeds_present = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the seeds folder {SEEDS} is absent")


def _seed_ids(seed: str, pattern: re.Pattern) -> set[str]:
    path = SEEDS / registry.SEED_FILES[seed]
    return {f"{kind} {number}" for kind, number in pattern.findall(path.read_text())}


def _registered(seed: str) -> set[str]:
    return {s.id.split(" (")[0] for s in registry.REGISTRY if s.seed == seed}


@seeds_present
def test_every_numbered_statement_of_seed_000_is_registered():
    missing = _seed_ids("000", HEADER_000) - _registered("000")
    assert not missing, sorted(missing)


@seeds_present
def test_every_statement_seed_002_mentions_is_registered():
    missing = _seed_ids("002", MENTION_002) - _registered("002")
    assert not missing, sorted(missing)


def test_keys_are_unique_and_check_kinds_known():
    keys = [s.key for s in registry.REGISTRY]
    assert len(keys) == len(set(keys))
    assert {s.check for s in registry.REGISTRY} <= set(registry.CHECK_KINDS)
    assert all(s.seed in registry.SEED_FILES and s.statement for s in registry.REGISTRY)


def test_findings_carry_a_witness_and_a_dpledger_command():
    findings = [f for s in registry.REGISTRY for f in s.findings] + list(registry.EXTERNAL_FINDINGS)
    assert len(findings) >= 3
    for f in findings:
        assert f.witness and f.kind in ("slack", "confirms", "violation") and "dpledger" in f.command


def test_proofs_json_without_a_run_claims_nothing_verified(capsys, tmp_path):
    assert main(["proofs", "--json", "--status-file", str(tmp_path / "none.json")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(registry.REGISTRY)
    assert all({"id", "seed", "statement", "check", "status"} <= row.keys() for row in rows)
    assert {row["status"] for row in rows} <= {"cited", "not checked", "not run"}
    assert all(row["status"] == "cited" for row in rows if row["check"] == "cited")


def test_status_follows_the_recorded_outcomes(capsys, tmp_path):
    lemma = next(s for s in registry.REGISTRY if s.key == "000:Lemma 6.2")
    status_file = tmp_path / "status.json"
    outcomes = {node: "passed" for node in lemma.tests}
    status_file.write_text(json.dumps({"results": outcomes}))
    assert main(["proofs", "--json", "--only", "000:Lemma 6.2", "--status-file", str(status_file)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["status"] == "passed"
    status_file.write_text(json.dumps({"results": {**outcomes, lemma.tests[0]: "failed"}}))
    assert main(["proofs", "--json", "--only", "000:Lemma 6.2", "--status-file", str(status_file)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["status"] == "failed"


def test_cited_statement_stays_cited_when_its_tests_pass():
    theorem = next(s for s in registry.REGISTRY if s.key == "000:Theorem 3.4")
    results = {node: "passed" for node in theorem.tests}
    assert theorem.status(results) == "cited" and theorem.test_status(results) == "passed"


def test_unknown_statement_and_bad_status_file_are_one_line_errors(capsys, tmp_path):
    assert main(["proofs", "--only", "Lemma 99.9"]) == 2
    assert "Lemma 99.9" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["proofs", "--status-file", str(bad)]) == 2
    assert "status file" in capsys.readouterr().err
    assert main(["proofs", "--fast"]) == 2
    assert "--fast only applies with --run" in capsys.readouterr().err


def test_findings_command_lists_seed_and_external_findings(capsys):
    assert main(["proofs", "--findings", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {f["key"] for f in out["seed_findings"]} == {"000:Lemma 6.12", "000:Lemma 3.17", "000:Theorem 7.2",
                                                               "000:Lemma 8.15", "002:Lemma B.10"}
    assert "dp-accounting" in out["external_findings"][0]["summary"]


@pytest.mark.slow
def test_run_records_pytest_outcomes_in_the_status_file(capsys, tmp_path):
    status_file = tmp_path / "status.json"
    assert main(["proofs", "--run", "--fast", "--json", "--only", "000:Definition 3.6",
                 "--status-file", str(status_file)]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["status"] == "passed"
    recorded = json.loads(status_file.read_text())["results"]
    assert set(recorded) == set(row["tests"]) and set(recorded.values()) == {"passed"}


def test_committed_status_record_covers_every_registry_test_with_a_pass():
    """reports/proofs-status.json (what reports/proofs.md shows) must be re-recorded when a
    registry test is added or renamed; CI runs the same tests, so a stale pass cannot hide."""
    record = ROOT / "reports" / "proofs-status.json"
    results = registry.load_results(record)
    assert results is not None, f"record it with: dpledger proofs --run --status-file {record.relative_to(ROOT)}"
    named = {node for s in registry.REGISTRY for node in s.tests}
    missing = sorted(named - set(results))
    assert not missing, f"not in the record (re-record): {missing[:3]}"
    assert {results[node] for node in named} == {"passed"}
