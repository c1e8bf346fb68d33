"""The proof registry cannot rot: its data files load and validate, every test it names exists,
every numbered statement of the seeds is in it, status is only what a run recorded, cited
statements never count as verified."""

import dataclasses
import fnmatch
import json
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any, cast

import pytest

from dpledger.verify.cli.main import main
from dpledger.verify.paper import proof_runs, registry

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
HEADER_000 = re.compile(
    r"^(Lemma|Theorem|Corollary|Definition|Proposition|Algorithm|Remark|Claim|Assumption) "
    r"([A-Z]?\.?[0-9]+(?:\.[0-9]+)?)",
    re.MULTILINE,
)
MENTION_002 = re.compile(
    r"\b(Theorem|Lemma|Proposition|Corollary|Claim|Fact|Definition|Assumption|Algorithm) "
    r"((?:[A-Z]\.)?[0-9]+(?:\.[0-9]+)?)\b"
)


def test_the_registry_is_the_data_files_loaded_and_validated():
    data = registry.STATEMENTS_DIR
    assert sorted(f.name for f in data.iterdir() if f.name.endswith(".toml")) == [
        "external.toml",
        "mutation.toml",  # the privacy-mutant plan (dpledger.verify.paper.mutants)
        *(f"seed_{seed}.toml" for seed in registry.SEED_FILES),
    ]
    seeds = [registry.load_statements(data / f"seed_{seed}.toml") for seed in registry.SEED_FILES]
    assert [{s.seed for s in statements} for statements in seeds] == [{seed} for seed in registry.SEED_FILES]
    assert registry.REGISTRY == sum(seeds, ())
    assert registry.EXTERNAL_FINDINGS == registry.load_findings(data / "external.toml")


def test_the_package_data_pattern_ships_every_data_file():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    folder = ROOT / "verify" / "paper" / "statements"
    files = [p.relative_to(folder).as_posix() for p in folder.iterdir() if p.name != "__pycache__"]
    assert files and all(
        any(fnmatch.fnmatch(f, pattern) for pattern in patterns["dpledger.verify.paper.statements"])
        for f in files
    )


VALID = """
[[statement]]
id = "Lemma 1.1"
statement = "A claim."
commands = ["dpledger proofs"]

[[statement.parts]]
kind = "privacy"
claim = "It is private."
check = "exact"
tests = ["tests/verify/test_registry.py::test_x"]

[[statement.parts]]
kind = "utility"
claim = "It is accurate."
check = "unchecked"
note = "Not measured."

[[statement.tightness]]
part = "privacy"
instance = "D = 4"
audit = "exact"
measured = 1.5
bound = 3
bound_text = "3"
command = "dpledger audit labelboost"

[[statement.findings]]
kind = "slack"
summary = "Room."
witness = "n = 1."
command = "dpledger proofs --findings"
"""


@pytest.mark.parametrize(
    "old, new, problem",
    [
        ('check = "exact"', 'check = "proved"', "part #1: unknown check kind 'proved' (known: exact,"),
        ('check = "exact"\n', "", "part #1: missing key 'check'"),
        ('kind = "privacy"', 'kind = "elegance"', "part #1: unknown part kind 'elegance' (known: privacy,"),
        ('claim = "It is private."', 'claim = " "', "part #1: 'claim' holds ' '"),
        (
            'tests = ["tests/verify/test_registry.py::test_x"]\n',
            "",
            "part #1: a exact privacy part names no test (an empty part: mark it unchecked)",
        ),
        (
            'note = "Not measured."',
            'note = "Not measured."\ntests = ["tests/a/test_b.py::test_c"]',
            "part #2: an unchecked utility part names tests",
        ),
        ('note = "Not measured."\n', "", "part #2: an unchecked utility part needs a note"),
        (
            'part = "privacy"',
            'part = "structure"',
            "tightness of a 'structure' part, which the statement does not have",
        ),
        (
            'check = "exact"',
            'check = "property"',
            "tightness by a 'exact' audit of a 'privacy' part, but no privacy part is checked 'exact'",
        ),
        (
            'audit = "exact"',
            'audit = "monte carlo"',
            "tightness by a 'monte carlo' audit of a 'privacy' part, but no privacy part is checked 'empirical'",
        ),
        ("measured = 1.5", "measured = 4.5", "tightness #1: measured 4.5 exceeds the bound 3.0"),
        ("measured = 1.5", 'measured = "1.5"', "tightness #1: 'measured' holds '1.5', not a number"),
        ('audit = "exact"', 'audit = "guess"', "tightness #1: unknown audit 'guess'"),
        ("bound = 3\n", "bound = 0\n", "tightness #1: measured 1.5 and bound 0.0"),
        ('commands = ["dpledger proofs"]', 'cited = "yes"', "'cited' holds 'yes', not a boolean"),
        ("[[statement.findings]]", 'status = "passed"\n[[statement.findings]]', "unknown key 'status'"),
        ("A claim.", "", "'statement' holds '', not a non-empty string"),
        (
            'tests = ["tests/verify/test_registry.py::test_x"]',
            'tests = "tests/verify/test_registry.py::test_x"',
            "'tests' holds 'tests/verify/test_registry.py::test_x', not a list",
        ),
        ("::test_x", ":test_x", "malformed test node id 'tests/verify/test_registry.py:test_x'"),
        ("test_registry.py::test_x", "registry.py::test_x", "malformed test node id"),
        (
            '"tests/verify/test_registry.py::test_x"]',
            '"tests/a/test_b.py::test_c", "tests/a/test_b.py::test_c"]',
            "test 'tests/a/test_b.py::test_c' is listed twice",
        ),
        (
            'check = "unchecked"\nnote = "Not measured."',
            'check = "empirical"\ntests = ["tests/verify/test_registry.py::test_x"]',
            "test 'tests/verify/test_registry.py::test_x' is listed twice",
        ),
        ('kind = "slack"', 'kind = "bug"', "finding #1: unknown finding kind 'bug'"),
        ('witness = "n = 1."\n', "", "finding #1: missing key 'witness'"),
    ],
)
def test_a_malformed_statement_is_refused_naming_file_statement_and_problem(tmp_path, old, new, problem):
    path = tmp_path / "seed_000.toml"
    path.write_text(VALID)
    lemma = registry.load_statements(path)[0]
    assert lemma.findings[0].kind == "slack" and lemma.tightness[0].ratio == 0.5
    assert [part.kind for part in lemma.parts] == ["privacy", "utility"]
    assert old in VALID
    path.write_text(VALID.replace(old, new))
    with pytest.raises(ValueError) as refused:
        registry.load_statements(path)
    assert str(refused.value).startswith(f"{path}: statement 'Lemma 1.1': ") and problem in str(refused.value)


def test_duplicate_ids_and_missing_ids_are_refused(tmp_path):
    path = tmp_path / "seed_002.toml"
    path.write_text(VALID + VALID)
    with pytest.raises(
        ValueError, match=re.escape(f"{path}: statement 'Lemma 1.1': duplicate id (statement #1")
    ):
        registry.load_statements(path)
    path.write_text(VALID + VALID.replace('id = "Lemma 1.1"\n', ""))
    with pytest.raises(ValueError, match=re.escape(f"{path}: statement #2: missing key 'id'")):
        registry.load_statements(path)


@pytest.mark.parametrize(
    "name, text, problem",
    [
        ("seed_001.toml", VALID, "a seed's data file is named seed_<seed>.toml with a seed of 000, 002"),
        ("statements.toml", VALID, "a seed's data file is named seed_<seed>.toml"),
        ("seed_000.toml", VALID.replace("[[statement]]", "[[statements]]"), "unknown key 'statements'"),
        ("seed_000.toml", 'seed = "000"\n' + VALID, "unknown key 'seed'"),
        ("seed_000.toml", "", "missing key 'statement'"),
        ("seed_000.toml", VALID.replace('id = "Lemma 1.1"', "id = Lemma 1.1"), "not valid TOML"),
    ],
)
def test_a_malformed_seed_file_is_refused_naming_it(tmp_path, name, text, problem):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as refused:
        registry.load_statements(path)
    assert str(refused.value).startswith(f"{path}: ") and problem in str(refused.value)


def test_a_malformed_external_finding_is_refused_naming_it(tmp_path):
    path = tmp_path / "external.toml"
    finding = VALID[VALID.index("[[statement.findings]]") :].replace("statement.findings", "finding")
    path.write_text(finding)
    assert registry.load_findings(path) == (
        registry.Finding("Room.", "n = 1.", "dpledger proofs --findings"),
    )
    path.write_text(finding + finding.replace('kind = "slack"', 'kind = "slack"\nkey = "statement"'))
    with pytest.raises(ValueError, match=re.escape(f"{path}: finding #2: unknown key 'key'")):
        registry.load_findings(path)


def test_validation_cannot_be_bypassed_by_building_statements_in_code():
    """The value rules belong to the model: a Statement, Part, Tightness or Finding built or copied
    in code meets the same rules as one read from the data files."""
    lemma = next(s for s in registry.REGISTRY if s.key == "000:Lemma 6.12")
    part = lemma.parts[0]
    statement_changes: list[tuple[dict[str, Any], str]] = [
        ({"seed": "001"}, "unknown seed"),
        ({"id": " "}, "'id' holds"),
        ({"parts": ()}, "at least one part"),
        ({"parts": (part, part)}, "listed twice"),
    ]
    for change, problem in statement_changes:
        with pytest.raises(ValueError, match=problem):
            dataclasses.replace(lemma, **change)
    part_changes: list[tuple[dict[str, Any], str]] = [
        ({"check": "proved"}, "unknown check kind"),
        ({"kind": "beauty"}, "unknown part kind"),
        ({"tests": ("tests/x.py::y",)}, "malformed test node id"),
        ({"tests": part.tests[:1] * 2}, "listed twice"),
        ({"tests": ()}, "names no test"),
        ({"check": "unchecked"}, "names tests"),
    ]
    for change, problem in part_changes:
        with pytest.raises(ValueError, match=problem):
            dataclasses.replace(part, **change)
    with pytest.raises(ValueError, match="unknown finding kind 'bug'"):
        dataclasses.replace(lemma.findings[0], kind="bug")
    bound = next(t for s in registry.REGISTRY for t in s.tightness)
    with pytest.raises(ValueError, match="exceeds the bound"):
        dataclasses.replace(bound, measured=bound.bound * 2)
    with pytest.raises(ValueError, match="not a finite number"):
        dataclasses.replace(bound, bound=float("inf"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cast(Any, lemma).cited = True  # the refused assignment, past the type checker


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


def test_keys_are_unique_and_part_and_check_kinds_known():
    keys = [s.key for s in registry.REGISTRY]
    assert len(keys) == len(set(keys))
    parts = [part for s in registry.REGISTRY for part in s.parts]
    assert {p.check for p in parts} <= set(registry.CHECK_KINDS) and {p.kind for p in parts} <= set(
        registry.PART_KINDS
    )
    assert all(s.seed in registry.SEED_FILES and s.statement and s.parts for s in registry.REGISTRY)


def test_a_statement_passes_only_when_every_part_does():
    """Theorem 5.1's parts (privacy by the chain and by Monte Carlo, sample size, utility, privacy
    by the code's draws and by what the fitted model keeps): all passed → passed; utility not run
    → not run; a part unchecked → partial naming it; a failed part → failed; cited statements stay
    cited."""
    theorem = next(s for s in registry.REGISTRY if s.key == "000:Theorem 5.1")
    assert [(p.kind, p.check) for p in theorem.parts] == [
        ("privacy", "chain"),
        ("privacy", "empirical"),
        ("sample size", "chain"),
        ("utility", "statistical"),
        ("privacy", "empirical"),
        ("privacy", "implementation"),
    ]
    passed = {node: "passed" for node in theorem.tests}
    assert theorem.status(passed) == "passed" and theorem.unchecked(passed) == ()
    assert theorem.status({**passed, theorem.parts[3].tests[0]: "failed"}) == "failed"
    assert theorem.status({node: "passed" for node in theorem.parts[0].tests}) == "not run"
    corollary = next(s for s in registry.REGISTRY if s.key == "000:Corollary C.8")
    results = {node: "passed" for node in corollary.tests}
    assert corollary.status(results) == "partial"
    assert [p.claim[:16] for p in corollary.unchecked(results)] == ["With probability"]
    assert "β_GP" in corollary.unchecked(results)[0].claim and "β_GP" not in corollary.parts[0].claim


@pytest.mark.parametrize(
    "key, missing",
    [
        ("000:Theorem 8.14", "utility"),
        ("002:Theorem 4.1 (utility)", "utility"),
        ("002:Claim 4.3", "utility"),
        ("002:Lemma B.10", "utility"),
    ],
)
def test_statements_the_issue_names_are_partial_with_the_unchecked_part_named(key, missing):
    statement = next(s for s in registry.REGISTRY if s.key == key)
    passed = {node: "passed" for node in statement.tests}
    assert statement.status(passed) == "partial"
    assert missing in [p.kind for p in statement.unchecked(passed)]


def test_summary_counts_statements_and_parts_with_cited_apart():
    results = registry.load_results(ROOT / "reports" / "proofs-status.json")
    counts = registry.summary(registry.REGISTRY, results)
    for seed, table in counts.items():
        statements = [s for s in registry.REGISTRY if s.seed == seed]
        assert table["statements"] == len(statements)
        assert table["cited"] == sum(s.cited for s in statements)
        assert sum(table[status] for status in (*registry.COUNTED_STATUSES, "cited")) == len(statements)
        assert table["parts cited"] == sum(len(s.parts) for s in statements if s.cited)
        assert sum(table[f"parts {status}"] for status in registry.PART_STATUSES) == sum(
            len(s.parts) for s in statements if not s.cited
        )
        utility = [(s, p) for s in statements if not s.cited for p in s.parts if p.kind == "utility"]
        assert table["utility parts"] == len(utility)
        assert table["utility statistical passed"] == sum(
            p.check == "statistical" and p.status(results) == "passed" for _, p in utility
        )


TIGHTNESS = [
    pytest.param(s.key, t, id=f"{s.key}:{t.instance}")
    for s in registry.REGISTRY
    for t in s.tightness
    if "--block init" not in t.command
]


@pytest.mark.parametrize("key, bound", TIGHTNESS)
def test_recorded_tightness_is_what_the_audit_prints(capsys, key, bound):
    """Each recorded measurement is re-run with its command (the initialization block, 9 s, is
    left to dpledger proofs' own run): measured ε and bound agree to the recorded 4 decimals."""
    assert bound.command.startswith("dpledger audit ")
    assert main([*bound.command.split()[1:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["holds"] and out["statement"].startswith(key.split(":")[1])
    assert (round(out["epsilon_exact"], 4), round(out["bound"], 4)) == (bound.measured, bound.bound)
    assert bound.ratio == pytest.approx(out["tightness"], abs=1e-4)


def test_findings_carry_a_witness_and_a_dpledger_command():
    findings = [f for s in registry.REGISTRY for f in s.findings] + list(registry.EXTERNAL_FINDINGS)
    assert len(findings) >= 3
    for f in findings:
        assert f.witness and f.kind in registry.FINDING_KINDS and "dpledger" in f.command


def test_proofs_json_without_a_run_claims_nothing_verified(capsys, tmp_path):
    assert main(["proofs", "--json", "--status-file", str(tmp_path / "none.json")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(registry.REGISTRY)
    assert all(
        {"id", "seed", "statement", "parts", "status", "unchecked_parts"} <= row.keys() for row in rows
    )
    assert {row["status"] for row in rows} <= {"cited", "not checked", "not run"}
    assert all(row["status"] == "cited" for row in rows if row["cited"])


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
    assert theorem.cited and theorem.status(results) == "cited" and theorem.test_status(results) == "passed"


def test_the_recorded_run_names_its_commit_and_date(capsys, tmp_path):
    status_file = tmp_path / "status.json"
    status_file.write_text(
        json.dumps({"results": {}, "commit": "0123456789abcdef", "dirty": True, "date": "2026-01-02"})
    )
    assert main(["proofs", "--only", "000:Lemma 6.2", "--status-file", str(status_file)]) == 0
    assert (
        "(commit 0123456789ab (with uncommitted changes), 2026-01-02)"
        in capsys.readouterr().out.splitlines()[0]
    )
    commit, dirty = proof_runs.source_state(ROOT)
    assert re.fullmatch(r"[0-9a-f]{40}", commit) and isinstance(dirty, bool)
    assert proof_runs.source_state(tmp_path) == ("unknown", False)  # not a git tree


def test_default_status_file_is_the_committed_record_in_a_checkout(capsys, monkeypatch, tmp_path):
    """From a checkout `dpledger proofs` reads reports/proofs-status.json; outside one (an installed
    package) with no run in the cache it says plainly where the recorded run lives."""
    assert (
        registry.in_checkout() and registry.default_status_file() == ROOT / "reports" / "proofs-status.json"
    )
    monkeypatch.setattr(registry, "REPO_ROOT", tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert registry.default_status_file() == tmp_path / "cache" / "dpledger" / "proofs-status.json"
    assert main(["proofs", "--only", "000:Lemma 6.2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "no run recorded here" in first and "reports/proofs-status.json and reports/proofs.md" in first


def test_the_report_opens_with_the_counts_and_the_goal_and_is_deterministic(tmp_path):
    from dpledger.verify.reports import proofs as report

    shutil.copy(ROOT / "reports" / "proofs-status.json", tmp_path / "proofs-status.json")
    text = report.write(tmp_path)[0][0].read_text()
    lines = text.splitlines()
    assert lines[4].startswith("* seed 000: ") and lines[5].startswith("* seed 002: ")
    assert "parts: " in lines[4] and report.GOAL in lines[6]
    run = registry.load_run(tmp_path / "proofs-status.json")
    assert run is not None and run.describe() in text
    assert report.write(tmp_path)[0][0].read_text() == text


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
    assert {f["key"] for f in out["seed_findings"]} == {
        "000:Lemma 6.12",
        "000:Lemma 3.17",
        "000:Theorem 7.2",
        "000:Lemma 8.15",
        "002:Lemma B.10",
    }
    assert "dp-accounting" in out["external_findings"][0]["summary"]


@pytest.mark.slow
def test_run_records_pytest_outcomes_in_the_status_file(capsys, tmp_path):
    status_file = tmp_path / "status.json"
    assert (
        main(
            [
                "proofs",
                "--run",
                "--fast",
                "--json",
                "--only",
                "000:Definition 3.6",
                "--status-file",
                str(status_file),
            ]
        )
        == 0
    )
    row = json.loads(capsys.readouterr().out)[0]
    assert row["status"] == "passed"
    recorded = json.loads(status_file.read_text())["results"]
    assert set(recorded) == set(row["tests"]) and set(recorded.values()) == {"passed"}


def test_committed_status_record_covers_every_registry_test_with_a_pass():
    """reports/proofs-status.json (what reports/proofs.md shows) must be re-recorded when a
    registry test is added or renamed; CI runs the same tests, so a stale pass cannot hide."""
    record = ROOT / "reports" / "proofs-status.json"
    results = registry.load_results(record)
    assert results is not None, (
        f"record it with: dpledger proofs --run --status-file {record.relative_to(ROOT)}"
    )
    named = {node for s in registry.REGISTRY for node in s.tests}
    missing = sorted(named - set(results))
    assert json.loads(record.read_text()).get("commit", "unknown") != "unknown", (
        "re-record: no commit recorded"
    )
    assert not missing, f"not in the record (re-record): {missing[:3]}"
    assert {results[node] for node in named} == {"passed"}
