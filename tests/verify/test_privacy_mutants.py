"""The privacy mutants (dpledger.verify.paper.mutants) and their runner (mutation_runs)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest

from dpledger.verify.cli.main import main
from dpledger.verify.paper.mutants import (
    OPERATORS,
    generate,
    load_mutation_plan,
    module_mutants,
    signatures,
)
from dpledger.verify.paper.mutation_runs import (
    gates,
    module_digest,
    package_view,
    planted,
    run_mutants,
    run_tests,
)
from dpledger.verify.paper.registry import REPO_ROOT, select, summary

PLAN = load_mutation_plan()
MUTANTS = {m.id: m for m in generate(REPO_ROOT, PLAN)}

PLANTED_BUGS = {
    # sensitivity = 1 * B / m instead of 2 * B / m in the proper learner's correlation (Theorem 3.1)
    "learners/agnostic/proper.py::private_correlation::sensitivity-half::1": "2 * Fraction(clip_norm) / m",
    # gradient_sensitivity returning R/(2·s·b) (Theorem 4.1)
    "learners/agnostic/semi_agnostic.py::gradient_sensitivity::sensitivity-half::1": "Fraction(radius) / (Fraction(width) * block)",
    # private_l1.py's sensitivity halved (Theorem 2.1)
    "learners/agnostic/private_l1.py::private_l1_regression::sensitivity-half::1": "2 * Fraction(clip_norm) / m",
}


def test_the_issues_three_planted_bugs_are_among_the_mutants():
    for mutant_id, original in PLANTED_BUGS.items():
        assert MUTANTS[mutant_id].original == original
        assert MUTANTS[mutant_id].replacement == f"(({original}) / 2)"


def test_the_planted_gradient_sensitivity_returns_half_the_true_sensitivity():
    mutant = MUTANTS["learners/agnostic/semi_agnostic.py::gradient_sensitivity::sensitivity-half::1"]
    tree = ast.parse(mutant.apply((REPO_ROOT / mutant.module).read_text()))
    (function,) = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == mutant.function]
    namespace: dict[str, object] = {"Fraction": Fraction}
    exec(compile(ast.Module(body=[function], type_ignores=[]), mutant.module, "exec"), namespace)
    assert namespace["gradient_sensitivity"](3.0, 0.5, 10) == Fraction(3) / (2 * Fraction(1, 2) * 10)  # type: ignore[operator]


def test_every_operator_has_sites_and_every_plan_module_has_mutants():
    assert set(Counter(m.operator for m in MUTANTS.values())) == set(OPERATORS)
    assert {m.path for m in PLAN.modules} == {m.module for m in MUTANTS.values()}


def test_mutant_ids_survive_edits_elsewhere_in_the_module():
    module = "learners/agnostic/proper.py"
    source = (REPO_ROOT / module).read_text()
    params = signatures([source])
    before = [m.id for m in module_mutants(module, source, params)]
    edited = "# a comment moves every line\n" + source + "\n\ndef unrelated(x):\n    return x\n"
    assert [m.id for m in module_mutants(module, edited, params)] == before


def test_the_release_tap_is_never_mutated():
    for mutant in MUTANTS.values():
        assert mutant.function not in ("_observed", "observe")
        assert "Release(" not in mutant.original


def test_noise_is_halved_at_the_draw_and_not_in_the_event():
    halves = [m for m in MUTANTS.values() if m.operator == "noise-half" and m.module == "learners/noise.py"]
    assert {m.function for m in halves} == {"gaussian_noise", "laplace_noise"}
    assert all(m.original == "units" for m in halves)  # the first argument of rng.discrete_*


def test_a_mutant_refuses_a_changed_source():
    mutant = next(iter(MUTANTS.values()))
    with pytest.raises(ValueError, match="changed since the mutant was made"):
        mutant.apply("x = 1\n")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '[[module]]\npath = "learners/noise.py"\nstatements = ["Lemma 99.9"]\n',
            "no statement 'Lemma 99.9'",
        ),
        (
            '[[module]]\npath = "a.py"\nstatements = []\n[[module]]\npath = "a.py"\nstatements = []\n',
            "listed twice",
        ),
        ('[[equivalent]]\nid = "x"\nreason = " "\n', "non-empty reason"),
        ("[[modul]]\n", "unknown tables"),
    ],
)
def test_the_mutation_plan_refuses_bad_entries(tmp_path, text, problem):
    path = tmp_path / "mutation.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=problem):
        load_mutation_plan(path)


@pytest.mark.slow
def test_the_package_view_serves_the_planted_mutant_to_subprocesses(tmp_path):
    mutant = MUTANTS["learners/agnostic/semi_agnostic.py::gradient_sensitivity::sensitivity-half::1"]
    site = package_view(REPO_ROOT, tmp_path)
    code = "from dpledger.learners.agnostic.semi_agnostic import gradient_sensitivity as g; print(g(1.0, 1.0, 1))"
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    with planted(site, REPO_ROOT, mutant):
        inside = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    after = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert (inside.stdout.strip(), after.stdout.strip()) == ("1/2", "1")


def test_a_mutant_run_ends_a_property_test_at_its_first_failing_example(tmp_path):
    """Under the runner's hypothesis profile a failing example fails the test at once (no shrinking:
    a mutant whose first failure shrinks for minutes would time out instead of being killed)."""
    folder = tmp_path / "tree" / "tests"
    folder.mkdir(parents=True)
    (folder / "conftest.py").write_text((REPO_ROOT / "tests" / "conftest.py").read_text())
    calls = tmp_path / "calls"
    (folder / "test_probe.py").write_text(
        "from hypothesis import given, strategies as st\n"
        "@given(st.lists(st.integers(), min_size=8))\n"
        "def test_probe(values):\n"
        f"    with open({str(calls)!r}, 'a') as f:\n"
        "        f.write('.')\n"
        "    assert False\n"
    )
    outcome, _ = run_tests(
        ["tests/test_probe.py"], package_view(REPO_ROOT, tmp_path / "view"), tmp_path / "tree", 120
    )
    assert outcome == "failed" and len(calls.read_text()) <= 2


def _entry(mutant_id: str, status: str) -> dict[str, object]:
    mutant = MUTANTS[mutant_id]
    return {
        **mutant.to_dict(),
        "status": status,
        "commit": "0" * 40,
        "module_sha256": module_digest(REPO_ROOT, mutant.module),
    }


def test_a_statement_is_gated_on_its_modules_mutants():
    module = "learners/halfspaces/private_ip.py"
    ids = [i for i, m in MUTANTS.items() if m.module == module]
    killed = {"mutants": {i: _entry(i, "killed") for i in ids}}
    assert (
        gates(killed, REPO_ROOT, PLAN, MUTANTS.values())["000:Lemma 8.13"]["gate"] == "mutants not run"
    )  # oracles.py and recconcave.py missing
    others = ("learners/halfspaces/oracles.py", "learners/halfspaces/recconcave.py")
    both = [i for i, m in MUTANTS.items() if m.module in (module, *others)]
    status = {"mutants": {i: _entry(i, "killed") for i in both}}
    assert gates(status, REPO_ROOT, PLAN, MUTANTS.values())["000:Lemma 8.13"]["gate"] == "killed"
    status["mutants"][ids[0]]["status"] = "survived"
    assert gates(status, REPO_ROOT, PLAN, MUTANTS.values())["000:Lemma 8.13"]["gate"] == "mutants survive"
    status["mutants"][ids[0]]["module_sha256"] = "f" * 64
    row = gates(status, REPO_ROOT, PLAN, MUTANTS.values())["000:Lemma 8.13"]
    assert row["gate"] == "mutants stale" and "changed since commit 000000000000" in row["stale"][0]


@pytest.mark.slow
def test_the_three_planted_bugs_are_killed_by_their_statements_privacy_tests():
    control = "learners/agnostic/proper.py::private_correlation::epsilon-double::1"  # σ calibrated for 2ε
    chosen = [MUTANTS[i] for i in (*PLANTED_BUGS, control)]
    results, baselines = run_mutants(chosen, PLAN)
    assert all(b["outcome"] == "passed" for b in baselines.values()), baselines
    assert {r.mutant.id: r.status for r in results} == dict.fromkeys((*PLANTED_BUGS, control), "killed")


def test_a_privacy_part_that_passed_takes_its_statements_mutation_gate():
    (theorem,) = select(["002:Theorem 3.1 (privacy)"])
    passed = dict.fromkeys(theorem.tests, "passed")
    assert theorem.status(passed) == theorem.status(passed, {theorem.key: "killed"}) == "passed"
    gated = {theorem.key: "mutants survive"}
    assert theorem.status(passed, gated) == "mutants survive"
    privacy = [p for p in theorem.parts if p.kind == "privacy"]
    assert [p.status(passed, theorem.gate(gated)) for p in privacy] == ["mutants survive"] * len(privacy)
    failed = {**passed, theorem.tests[0]: "failed"}
    assert theorem.status(failed, gated) == "failed"
    assert summary([theorem], passed, gated)["002"]["parts mutants survive"] == len(privacy)


def test_every_declared_equivalent_is_a_current_mutant():
    assert set(PLAN.equivalent) <= set(MUTANTS)


def test_dpledger_proofs_shows_the_mutation_gate(capsys, tmp_path):
    (lemma,) = select(["000:Lemma 8.13"])
    proofs_status = tmp_path / "proofs.json"
    proofs_status.write_text(json.dumps({"results": dict.fromkeys(lemma.tests, "passed")}))
    modules = {
        "learners/halfspaces/private_ip.py",
        "learners/halfspaces/oracles.py",
        "learners/halfspaces/recconcave.py",
    }
    entries = {i: _entry(i, "killed") for i, m in MUTANTS.items() if m.module in modules}
    mutation_status = tmp_path / "mutation.json"
    command = ["proofs", "--only", lemma.key, "--status-file", str(proofs_status)]
    command += ["--mutation-status-file", str(mutation_status)]
    for status, shown in (("killed", "passed"), ("survived", "mutants survive")):
        next(iter(entries.values()))["status"] = status
        mutation_status.write_text(json.dumps({"mutants": entries}))
        assert main([*command, "--json"]) == 0
        (row,) = json.loads(capsys.readouterr().out)
        assert {p["status"] for p in row["parts"] if p["kind"] == "privacy"} == {shown}
    assert main(command) == 0
    assert "privacy mutants: " in capsys.readouterr().out
