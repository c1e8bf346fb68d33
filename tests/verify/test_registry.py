"""The proof registry cannot rot: its data files load and validate, every test it names exists,
every numbered statement of the seeds is in it, status is only what a run recorded, cited
statements never count as verified."""
import dataclasses
import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest

from dpledger.verify.cli.main import main
from dpledger.verify.paper import registry

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
HEADER_000 = re.compile(r"^(Lemma|Theorem|Corollary|Definition|Proposition|Algorithm|Remark|Claim|Assumption) "
                        r"([A-Z]?\.?[0-9]+(?:\.[0-9]+)?)", re.MULTILINE)
MENTION_002 = re.compile(r"\b(Theorem|Lemma|Proposition|Corollary|Claim|Fact|Definition|Assumption|Algorithm) "
                         r"((?:[A-Z]\.)?[0-9]+(?:\.[0-9]+)?)\b")


def test_the_registry_is_the_data_files_loaded_and_validated():
    data = registry.STATEMENTS_DIR
    assert sorted(f.name for f in data.iterdir() if f.name.endswith(".toml")) == [
        "external.toml", *(f"seed_{seed}.toml" for seed in registry.SEED_FILES)]
    seeds = [registry.load_statements(data / f"seed_{seed}.toml") for seed in registry.SEED_FILES]
    assert [{s.seed for s in statements} for statements in seeds] == [{seed} for seed in registry.SEED_FILES]
    assert registry.REGISTRY == sum(seeds, ())
    assert registry.EXTERNAL_FINDINGS == registry.load_findings(data / "external.toml")


def test_the_package_data_pattern_ships_every_data_file():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    folder = ROOT / "verify" / "paper"
    files = [p.relative_to(folder).as_posix() for p in (folder / "statements").iterdir()]
    assert files and all(any(fnmatch.fnmatch(f, pattern) for pattern in patterns["dpledger.verify.paper"])
                         for f in files)


VALID = """
[[statement]]
id = "Lemma 1.1"
statement = "A claim."
check = "exact"
tests = ["tests/verify/test_registry.py::test_x"]
commands = ["dpledger proofs"]

[[statement.findings]]
kind = "slack"
summary = "Room."
witness = "n = 1."
command = "dpledger proofs --findings"
"""


@pytest.mark.parametrize("old, new, problem", [
    ('check = "exact"', 'check = "proved"', "unknown check kind 'proved' (known: exact,"),
    ('check = "exact"\n', "", "missing key 'check'"),
    ("[[statement.findings]]", 'status = "passed"\n[[statement.findings]]', "unknown key 'status'"),
    ("A claim.", "", "'statement' holds '', not a non-empty string"),
    ('tests = ["tests/verify/test_registry.py::test_x"]', 'tests = "tests/verify/test_registry.py::test_x"',
     "'tests' holds 'tests/verify/test_registry.py::test_x', not a list"),
    ("::test_x", ":test_x", "malformed test node id 'tests/verify/test_registry.py:test_x'"),
    ("test_registry.py::test_x", "registry.py::test_x", "malformed test node id"),
    ('"tests/verify/test_registry.py::test_x"]', '"tests/a/test_b.py::test_c", "tests/a/test_b.py::test_c"]',
     "test 'tests/a/test_b.py::test_c' is listed twice"),
    ('kind = "slack"', 'kind = "bug"', "finding #1: unknown finding kind 'bug'"),
    ('witness = "n = 1."\n', "", "finding #1: missing key 'witness'"),
])
def test_a_malformed_statement_is_refused_naming_file_statement_and_problem(tmp_path, old, new, problem):
    path = tmp_path / "seed_000.toml"
    path.write_text(VALID)
    assert registry.load_statements(path)[0].findings[0].kind == "slack"
    assert old in VALID
    path.write_text(VALID.replace(old, new))
    with pytest.raises(ValueError) as refused:
        registry.load_statements(path)
    assert str(refused.value).startswith(f"{path}: statement 'Lemma 1.1': ") and problem in str(refused.value)


def test_duplicate_ids_and_missing_ids_are_refused(tmp_path):
    path = tmp_path / "seed_002.toml"
    path.write_text(VALID + VALID)
    with pytest.raises(ValueError, match=re.escape(f"{path}: statement 'Lemma 1.1': duplicate id (statement #1")):
        registry.load_statements(path)
    path.write_text(VALID + VALID.replace('id = "Lemma 1.1"\n', ""))
    with pytest.raises(ValueError, match=re.escape(f"{path}: statement #2: missing key 'id'")):
        registry.load_statements(path)


@pytest.mark.parametrize("name, text, problem", [
    ("seed_001.toml", VALID, "a seed's data file is named seed_<seed>.toml with a seed of 000, 002"),
    ("statements.toml", VALID, "a seed's data file is named seed_<seed>.toml"),
    ("seed_000.toml", VALID.replace("[[statement]]", "[[statements]]"), "unknown key 'statements'"),
    ("seed_000.toml", 'seed = "000"\n' + VALID, "unknown key 'seed'"),
    ("seed_000.toml", "", "missing key 'statement'"),
    ("seed_000.toml", VALID.replace('id = "Lemma 1.1"', "id = Lemma 1.1"), "not valid TOML"),
])
def test_a_malformed_seed_file_is_refused_naming_it(tmp_path, name, text, problem):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as refused:
        registry.load_statements(path)
    assert str(refused.value).startswith(f"{path}: ") and problem in str(refused.value)


def test_a_malformed_external_finding_is_refused_naming_it(tmp_path):
    path = tmp_path / "external.toml"
    finding = VALID[VALID.index("[[statement.findings]]"):].replace("statement.findings", "finding")
    path.write_text(finding)
    assert registry.load_findings(path) == (registry.Finding("Room.", "n = 1.", "dpledger proofs --findings"),)
    path.write_text(finding + finding.replace('kind = "slack"', 'kind = "slack"\nkey = "statement"'))
    with pytest.raises(ValueError, match=re.escape(f"{path}: finding #2: unknown key 'key'")):
        registry.load_findings(path)


def test_validation_cannot_be_bypassed_by_building_statements_in_code():
    """The value rules belong to the model: a Statement or Finding built or copied in code meets
    the same rules as one read from the data files."""
    lemma = next(s for s in registry.REGISTRY if s.key == "000:Lemma 6.12")
    for change, problem in [({"check": "proved"}, "unknown check kind"), ({"seed": "001"}, "unknown seed"),
                            ({"tests": ("tests/x.py::y",)}, "malformed test node id"),
                            ({"tests": lemma.tests[:1] * 2}, "listed twice"), ({"id": " "}, "'id' holds")]:
        with pytest.raises(ValueError, match=problem):
            dataclasses.replace(lemma, **change)
    with pytest.raises(ValueError, match="unknown finding kind 'bug'"):
        dataclasses.replace(lemma.findings[0], kind="bug")
    with pytest.raises(ValueError, match="unknown check kind"):
        registry.Statement("Lemma 1.1", "000", "A claim.", "proved")
    with pytest.raises(dataclasses.FrozenInstanceError):
        lemma.check = "proved"


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
