"""``dpledger.testing`` and the ``dpledger`` pytest plugin: one-line privacy
assertions that pass on correct mechanisms, fail on wrong ones with the witness in pytest's
output, and are reproducible from the test's node id."""

from __future__ import annotations

import json
import os
from typing import Any, cast

import numpy as np
import pytest

from dpledger.accountant.events import Claim, Composition, Laplace
from dpledger.learners.exponential_mechanism import exponential_mechanism
from dpledger.learners.randomness import Sampled
from dpledger.testing import (
    PrivacyViolation,
    assert_exact_private,
    assert_guarantee,
    assert_private,
    node_seed,
)
from dpledger.verify.audit.montecarlo import small_domain_pairs

pytest_plugins = ["pytester"]

# Mechanisms of the inner test files: an exact discrete Laplace count (1/scale-DP, no float
# artefacts) at the right scale and at half of it (2-DP, claimed 1).
MECHANISMS = """
import numpy as np
from dpledger.learners.randomness import Sampled
from dpledger.testing import assert_private, node_seed


def count(scale):
    def mechanism(data, n_samples, rng):
        return int(np.sum(data)) + Sampled(rng).discrete_laplace(scale, size=n_samples)
    return mechanism
"""


def discrete_laplace_count(scale: float):
    def mechanism(data, n_samples, rng):
        return int(np.sum(data)) + Sampled(rng).discrete_laplace(scale, size=n_samples)

    return mechanism


def float_laplace(data, n_samples, rng):
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, n_samples)


def randomized_response(bit, rng):
    """Keeps the bit with probability e/(1 + e): exactly 1-DP."""
    return exponential_mechanism([1 - bit, bit], 2, 1, rng)


def test_correct_laplace_passes_and_wrong_scale_fails_showing_the_witness(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        MECHANISMS
        + """
def test_right_scale():
    assert_private(count(1.0), [0, 1, 1], [0, 1, 0], claimed_epsilon=1.0)


def test_half_the_scale():
    assert_private(count(0.5), [0, 1, 1], [0, 1, 0], claimed_epsilon=1.0)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_half_the_scale*",
            "E *PrivacyViolation: (1.0, 0.0)-DP refuted by the Monte Carlo auditor: ε ≥ * with confidence 0.95, a VIOLATION*",
            "E *Falsifying example:",
            "E *pair:   input_a vs input_b: a = [[]0, 1, 1[]], b = [[]0, 1, 0[]]",
            "E *event E: the output *",
            "E *P[[]M(?) ∈ E[]] ≥ *runs on ?)",
            "E *P[[]M(?) ∈ E[]] ≤ *runs on ?)",
            "E *so ε ≥ log((* − 0.0) / *) ≥ * > 1.0",
            "E *Reproduce with seed=* (derived from test 'test_correct_laplace_passes_and_wrong_scale_fails_showing_the_witness.py::test_half_the_scale'), samples=100000, confidence=0.95",
        ]
    )


def test_float_laplace_fails_as_a_float_leak_unless_allowed() -> None:
    with pytest.raises(PrivacyViolation, match="FLOAT LEAK") as failure:
        assert_private(float_laplace, [0], [1], claimed_epsilon=1.0, seed=3)
    assert "significand ends in" in str(
        failure.value
    ) and "Remedy: release through Mironov's snapping" in str(failure.value)
    assert failure.value.result.real_epsilon_lower <= 1.0 < failure.value.result.float_epsilon_lower
    assert failure.value.seed == 3
    assert (
        assert_private(float_laplace, [0], [1], claimed_epsilon=1.0, seed=3, allow_float_leak=True).verdict
        == "FLOAT LEAK"
    )


def test_several_pairs_are_audited_and_the_witness_names_the_guilty_pair() -> None:
    def leaks_on_large_inputs(data, n_samples, rng):
        scale = 1.0 if data < 5 else 0.25
        return int(data) + Sampled(rng).discrete_laplace(scale, size=n_samples)

    with pytest.raises(PrivacyViolation, match=r"pair:   pairs\[1\]: a = 5, b = 6"):
        assert_private(
            leaks_on_large_inputs, pairs=[(0, 1), (5, 6)], claimed_epsilon=1.0, seed=0, samples=20_000
        )


def test_assert_guarantee_passes_when_the_derived_guarantee_meets_the_claim() -> None:
    derivation = assert_guarantee(Composition((Laplace(1), Laplace(2))), "3/2")
    assert derivation.guarantee.epsilon == pytest.approx(1.5)


def test_assert_guarantee_failure_shows_the_derivation() -> None:
    with pytest.raises(PrivacyViolation) as failure:
        assert_guarantee(Composition((Laplace(1), Laplace(2))), 1.4)
    message = str(failure.value)
    assert message.startswith("derived guarantee ε ≤ 1.5, δ ≤ 0 does not meet the claim ε ≤ 1.4, δ ≤ 0")
    assert "basic composition (Dwork–Roth 2014, Thm 3.16)" in message and "Laplace mechanism" in message


def test_assert_guarantee_checks_every_paper_claim_in_the_tree() -> None:
    wrong = Claim("Lemma 9.9", Composition((Laplace(1), Laplace(2))), 1)
    with pytest.raises(PrivacyViolation, match=r"claim of Lemma 9\.9 fails: claimed ε ≤ 1"):
        assert_guarantee(wrong)
    with pytest.raises(PrivacyViolation, match=r"claim of Lemma 9\.9 fails"):
        assert_guarantee(wrong, 10)  # the target holds, the inner claim does not
    assert_guarantee(Claim("Lemma 9.9", Laplace(1), 1))


def test_former_claim_keywords_warn_name_the_new_ones_and_keep_working() -> None:
    """One release of grace: epsilon= and delta= of the three assertions still work, each with a
    DeprecationWarning naming claimed_epsilon= or claimed_delta=; both names at once, or no claim,
    is a TypeError."""
    with pytest.warns(DeprecationWarning, match="use claimed_epsilon="):
        old = assert_guarantee(Composition((Laplace(1), Laplace(2))), epsilon="3/2")
    assert old.guarantee == assert_guarantee(Composition((Laplace(1), Laplace(2))), "3/2").guarantee
    with pytest.warns(DeprecationWarning, match="use claimed_delta="):
        assert_exact_private(randomized_response, 0, 1, claimed_epsilon="1.001", delta=0)
    with pytest.warns(DeprecationWarning, match="use claimed_epsilon="):
        result = assert_private(discrete_laplace_count(1.0), [0], [1], epsilon=1.0, samples=4000, seed=1)
    new = assert_private(discrete_laplace_count(1.0), [0], [1], claimed_epsilon=1.0, samples=4000, seed=1)
    assert result.epsilon_lower == new.epsilon_lower
    with pytest.raises(TypeError, match="pass claimed_epsilon= only"):
        assert_exact_private(randomized_response, 0, 1, claimed_epsilon=1, epsilon=1)
    with pytest.raises(TypeError, match="missing the keyword argument claimed_epsilon"):
        assert_private(float_laplace, [0], [1])


def test_exact_audit_certifies_a_true_claim_and_refutes_a_false_one_with_the_worst_output() -> None:
    assert assert_exact_private(randomized_response, 0, 1, claimed_epsilon="1.001").holds is True
    with pytest.raises(PrivacyViolation) as failure:
        assert_exact_private(randomized_response, 0, 1, claimed_epsilon="0.9")
    message = str(failure.value)
    assert message.startswith("(9/10, 0)-DP refuted by the exact auditor over 1 pair(s)")
    assert "P[M(a) = o] ∈ [0.268941, 0.268942]" in message and "P[M(b) = o] ∈ [0.731058, 0.731059]" in message


def test_exact_audit_covers_every_substitution_pair_of_a_small_domain() -> None:
    def private_mode(data, rng):
        return exponential_mechanism([data.count(value) for value in (0, 1, 2)], 1, 1, rng)

    result = assert_exact_private(private_mode, pairs=small_domain_pairs([0, 1, 2], 3), claimed_epsilon=1)
    assert result.pairs == 18 and 0.68 < result.epsilon[0] <= result.epsilon[1] < 0.69
    with pytest.raises(PrivacyViolation, match=r"over 18 pair\(s\)"):
        assert_exact_private(private_mode, pairs=small_domain_pairs([0, 1, 2], 3), claimed_epsilon="0.68")


def test_exact_audit_of_a_claim_equal_to_the_exact_epsilon_fails_as_not_certified() -> None:
    with pytest.raises(PrivacyViolation, match="not certified"):
        assert_exact_private(randomized_response, 0, 1, claimed_epsilon=1)


def test_exact_audit_checks_delta_by_the_hockey_stick_divergence() -> None:
    # δ(1/2) = (e − e^½)/(1 + e) = 0.28765 for randomized response
    assert_exact_private(randomized_response, 0, 1, claimed_epsilon="0.5", claimed_delta="0.2877")
    with pytest.raises(PrivacyViolation, match=r"δ\(ε\) = .* ∈ \[0.287649, 0.28765\] vs claimed δ = 7/25"):
        assert_exact_private(randomized_response, 0, 1, claimed_epsilon="0.5", claimed_delta="0.28")


def test_exact_audit_reports_an_output_outside_the_other_support() -> None:
    def clamped_count(data, rng):
        return min(max(sum(data) + rng.integer(3) - 1, 0), 3)

    with pytest.raises(
        PrivacyViolation,
        match=r"(?s)Worst pair:.*output o = \d:.*not in the support.*ε of the pair ∈ \[inf, inf\]",
    ):
        assert_exact_private(clamped_count, pairs=[((0, 0), [0, 1]), ([0, 1], (1, 1))], claimed_epsilon=5)


def test_seeds_come_from_node_ids_independent_of_order(pytester: pytest.Pytester) -> None:
    out = pytester.path / "seeds.json"
    pytester.makepyfile(
        MECHANISMS
        + f"""
import json, os


def record():
    result = assert_private(count(1.0), [0], [1], claimed_epsilon=1.0, samples=4000)
    name = os.environ["PYTEST_CURRENT_TEST"].split("::")[1].split(" ")[0]
    seen = json.load(open({str(out)!r})) if os.path.exists({str(out)!r}) else {{}}
    seen.setdefault(name, []).append([node_seed(), result.epsilon_lower])
    json.dump(seen, open({str(out)!r}, "w"))


def test_a():
    record()


def test_b():
    record()
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "test_seeds_come_from_node_ids_independent_of_order.py::test_b",
        "test_seeds_come_from_node_ids_independent_of_order.py::test_a",
    ).assert_outcomes(passed=2)
    seen = json.loads(out.read_text())
    for name in ("test_a", "test_b"):
        first, second = seen[name]
        assert first == second
        assert first[0] == node_seed(f"test_seeds_come_from_node_ids_independent_of_order.py::{name}")
    assert seen["test_a"][0][0] != seen["test_b"][0][0]


@pytest.mark.slow  # two pytest runs in fresh interpreters, one of them with two xdist workers
def test_pytest_xdist_workers_get_the_seeds_and_numbers_of_a_serial_run(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(
        MECHANISMS
        + """
import json, os, pytest


@pytest.mark.parametrize("k", range(4))
def test_k(k):
    result = assert_private(count(1.0), [k], [k + 1], claimed_epsilon=1.0, samples=4000)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "serial")
    with open(f"seen-{worker}.jsonl", "a") as out:
        out.write(json.dumps([k, node_seed(), result.epsilon_lower]) + "\\n")
"""
    )

    def seen(*options: str) -> list[list]:
        pytester.runpytest_subprocess("-p", "no:cacheprovider", *options).assert_outcomes(passed=4)
        rows = [
            json.loads(line)
            for path in pytester.path.glob("seen-*.jsonl")
            for line in path.read_text().splitlines()
        ]
        for path in pytester.path.glob("seen-*.jsonl"):
            path.unlink()
        return sorted(rows)

    serial = seen()
    assert seen("-n", "2") == serial and len({row[1] for row in serial}) == 4


def test_same_seed_gives_the_same_numbers_and_another_seed_others() -> None:
    mechanism = discrete_laplace_count(1.0)
    runs = [
        assert_private(mechanism, [0], [1], claimed_epsilon=1.0, samples=4000, seed=seed)
        for seed in (7, 7, 8)
    ]
    assert runs[0].epsilon_lower == runs[1].epsilon_lower != runs[2].epsilon_lower


def test_plugin_options_set_the_defaults_and_the_header(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        MECHANISMS
        + """
import os


def test_defaults():
    result = assert_private(count(1.0), [0], [1], claimed_epsilon=1.0)
    assert result.samples_total <= 2 * 5000 and result.confidence == 0.9
    assert node_seed() == node_seed("test_plugin_options_set_the_defaults_and_the_header.py::test_defaults")
    assert os.environ["DPLEDGER_SEED"] == "7"
"""
    )
    before = {
        name: os.environ.get(name) for name in ("DPLEDGER_SAMPLES", "DPLEDGER_CONFIDENCE", "DPLEDGER_SEED")
    }
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--dpledger-samples",
        "5000",
        "--dpledger-confidence",
        "0.9",
        "--dpledger-seed",
        "7",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["dpledger: DPLEDGER_SAMPLES=5000, DPLEDGER_CONFIDENCE=0.9, DPLEDGER_SEED=7"])
    assert {name: os.environ.get(name) for name in before} == before


def test_base_seed_changes_every_derived_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = node_seed("tests/test_x.py::test_y")
    monkeypatch.setenv("DPLEDGER_SEED", "7")
    assert node_seed("tests/test_x.py::test_y") != plain


def test_plugin_refuses_a_bad_option_value(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--dpledger-confidence", "1.5")
    result.stderr.fnmatch_lines(["*--dpledger-confidence must be a number in (0, 1), got 1.5*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.slow  # a fresh interpreter and pytest: a few seconds on a loaded machine
def test_plugin_loads_nothing_heavy_at_pytest_start(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
import sys


def test_light():
    assert "dpledger.pytest_plugin" in sys.modules
    heavy = [m for m in ("numpy", "sympy", "scipy", "dpledger.testing", "dpledger.verify") if m in sys.modules]
    assert not heavy
""")
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: assert_private(float_laplace, claimed_epsilon=1.0), "give the neighbouring inputs"),
        (
            lambda: assert_private(float_laplace, [0], [1], pairs=[([0], [1])], claimed_epsilon=1.0),
            "not both",
        ),
        (lambda: assert_private(float_laplace, pairs=[], claimed_epsilon=1.0), "non-empty list"),
        (
            lambda: assert_private(float_laplace, pairs=[cast(Any, [0, 1])], claimed_epsilon=1.0),
            r"pairs\[0\] must be",
        ),
        (
            lambda: assert_private(float_laplace, [0], [1], claimed_epsilon=cast(Any, "1")),
            "epsilon must be an int or float",
        ),
        (lambda: assert_private(float_laplace, [0], [1], claimed_epsilon=-1.0), "claimed epsilon must be"),
        (lambda: assert_private(float_laplace, [0], [1], claimed_epsilon=1.0, seed=-1), "seed must be"),
        (
            lambda: assert_private(float_laplace, [0], [1], claimed_epsilon=1.0, samples=cast(Any, 2.5)),
            "samples must be an integer",
        ),
        (
            lambda: assert_private(float_laplace, [0], [1], claimed_epsilon=30.0, samples=100),
            "too few samples",
        ),
        (lambda: assert_guarantee(cast(Any, "Laplace(1)"), 1), "event must be"),
        (lambda: assert_guarantee(Laplace(1)), "nothing to check"),
        (lambda: assert_guarantee(Laplace(1), "1 +"), "epsilon"),
        (lambda: assert_exact_private(randomized_response, 0, 0, claimed_epsilon=1), "two equal inputs"),
        (lambda: assert_exact_private(randomized_response, {0}, 1, claimed_epsilon=1), "must be hashable"),
        (
            lambda: assert_exact_private(randomized_response, 0, 1, claimed_epsilon=-1),
            "need claimed_epsilon ≥ 0",
        ),
        (
            lambda: assert_exact_private(randomized_response, 0, 1, claimed_epsilon=1, claimed_delta=1),
            "0 ≤ claimed_delta < 1",
        ),
        (
            lambda: assert_exact_private(randomized_response, pairs=[cast(Any, (0,))], claimed_epsilon=1),
            r"pairs\[0\] must be",
        ),
        (
            lambda: assert_exact_private(randomized_response, pairs=[cast(Any, {0, 1})], claimed_epsilon=1),
            r"pairs\[0\] must be",
        ),
    ],
)
def test_bad_inputs_raise_value_error(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_a_malformed_environment_default_is_a_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPLEDGER_SAMPLES", "many")
    with pytest.raises(ValueError, match="DPLEDGER_SAMPLES must be an integer ≥ 2, got 'many'"):
        assert_private(float_laplace, [0], [1], claimed_epsilon=1.0)
