"""``dpledger run carry-forward`` and ``dpledger audit macro-block``: JSON keys and verdicts."""

import json

from dpledger.verify.cli.main import main


def run_json(capsys, *argv, status=0):
    """The JSON a command prints, after checking its exit status (1: a claim fails)."""
    assert main([*argv, "--json"]) == status
    return json.loads(capsys.readouterr().out)


def test_run_carry_forward_json_reports_guarantee_for_the_m_used(capsys):
    out = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "intervals",
        "--n",
        "200000",
        "--m",
        "300",
        "--seed",
        "4",
        status=1,
    )  # the guarantee misses the target: exit status 1
    for key in ("hypothesis", "test_error", "guarantee", "claimed", "holds", "m", "rounds", "trace"):
        assert key in out
    assert out["m"] == 300 and len(out["rounds"]) == 2
    assert out["guarantee"]["epsilon"] > out["claimed"]["epsilon"] and out["holds"] is False
    assert out["trace"]["claim"]["statement"] == "Lemma 6.12"


def test_run_carry_forward_with_paper_m_meets_its_target(capsys):
    out = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "thresholds",
        "--domain-size",
        "1024",
        "--n",
        "400000",
        "--seed",
        "1",
    )
    assert out["holds"] is True and out["m"] >= 1
    assert out["guarantee"]["epsilon"] <= 1


def test_audit_macro_block_json(capsys):
    out = run_json(
        capsys, "audit", "macro-block", "--class", "intervals", "--domain-size", "4", "--m", "2", "--exact"
    )
    for key in ("epsilon_exact", "bound", "holds", "pairs"):
        assert key in out
    assert out["holds"] is True and out["epsilon_exact"] <= out["bound"]


def test_a_run_that_misses_its_target_says_which_quantity_misses_and_by_how_much(capsys):
    assert (
        main(["run", "carry-forward", "--class", "intervals", "--n", "200000", "--m", "300", "--seed", "4"])
        == 1
    )
    text = capsys.readouterr().out
    assert "why: the derived ε ≤" in text and "exceeds the target ε = 1" in text
    assert "initialization block on W^init (Corollary 6.8)" in text and "m/⌊n/3⌋ = 300/66666" in text
    assert text.count("to hold:") >= 2 and "take n ≥" in text and "take m ≤" in text


def test_the_remedies_a_failing_run_names_meet_the_target_and_are_the_extremes(capsys):
    """The smallest n for this m and the largest m for this n, found with the run's own oracle events:
    a run with either holds, and one record block less (one more m) does not."""
    from dpledger.accountant.rules import account
    from dpledger.accountant.section6 import Target, carry_forward_event

    why = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "intervals",
        "--n",
        "200000",
        "--m",
        "300",
        "--seed",
        "4",
        status=1,
    )["why_not"]
    assert why["epsilon_excess"] > 0 and why["q"] == 300 / 66666 and why["block_size"] == 66666
    m_for_n, n_for_m = why["m_for_n"], why["n_for_m"]
    assert (
        run_json(
            capsys,
            "run",
            "carry-forward",
            "--class",
            "intervals",
            "--n",
            "200000",
            "--m",
            str(m_for_n),
            "--seed",
            "4",
        )["holds"]
        is True
    )
    target = Target.of(200000, 2, 1, "1e-6")  # the completion-score oracle declares the paper's (4, δ/(16ek))

    def holds(m, n):
        return (
            account(carry_forward_event(target, m, "optimal", n))
            .guarantee.meets(target.epsilon, target.delta)
            .holds
        )

    assert not holds(m_for_n + 1, 200000)
    assert holds(300, n_for_m) and not holds(300, n_for_m - 3)


def test_a_run_that_holds_has_no_why_not(capsys):
    out = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "thresholds",
        "--domain-size",
        "1024",
        "--n",
        "400000",
        "--seed",
        "1",
    )
    assert out["holds"] is True and out["why_not"] is None


def test_data_and_learner_seeds_are_the_two_children_of_one_seed_sequence(capsys):
    import numpy as np

    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.synthetic import random_concept
    from dpledger.verify.service.run import run_seeds

    data, learner = run_seeds(5)
    assert (data.entropy, data.spawn_key, learner.entropy, learner.spawn_key) == (5, (0,), 5, (1,))
    out = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "intervals",
        "--domain-size",
        "4096",
        "--n",
        "30000",
        "--m",
        "30",
        "--seed",
        "5",
        status=1,
    )
    expected = random_concept(Intervals(4096), np.random.default_rng(np.random.SeedSequence(5).spawn(2)[0]))
    assert out["target_concept"] == [int(value) for value in expected] and out["seed"] == 5


def test_the_same_seed_gives_the_same_run_and_trace_and_another_seed_another(capsys):
    argv = [
        "run",
        "carry-forward",
        "--class",
        "intervals",
        "--domain-size",
        "4096",
        "--n",
        "30000",
        "--m",
        "30",
    ]
    first = run_json(capsys, *argv, "--seed", "11", status=1)
    again = run_json(capsys, *argv, "--seed", "11", status=1)
    other = run_json(capsys, *argv, "--seed", "12", status=1)
    assert first == again
    assert (first["target_concept"], first["hypothesis"]) != (other["target_concept"], other["hypothesis"])


def test_run_carry_forward_reports_utility_beside_privacy_and_warns_when_a_constant_does_better(capsys):
    main(
        ["run", "carry-forward", "--class", "thresholds", "--n", "20000", "--m", "5", "--seed", "1", "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["alpha"] == 0.1 and 0 <= payload["constant_error"] <= 0.5
    assert payload["test_error"] > payload["constant_error"]  # m = 5 records: noise, and a skewed target
    assert any("a constant hypothesis errs" in warning for warning in payload["utility_warnings"])
    main(["run", "carry-forward", "--class", "thresholds", "--n", "20000", "--m", "5", "--seed", "1"])
    text = capsys.readouterr().out
    assert "utility: test error" in text and "WARNING: a constant hypothesis errs" in text


def test_run_carry_forward_reports_theorem_5_1_sample_size_and_flags_rounds_above_two_tau(capsys):
    argv = ["run", "carry-forward", "--class", "intervals", "--n", "300000", "--seed", "0"]
    payload = run_json(capsys, *argv)
    sample = payload["sample_size"]
    assert payload["calibration"] == "tight" and sample["m"] == payload["m"]
    assert sample["meets"] is False and sample["n_needed"] > 300_000 and sample["m_needed"] > payload["m"]
    assert "post-processing" in payload["utility"]["note"]
    assert any("below Theorem 5.1's sample size" in w for w in payload["utility_warnings"])
    above = [r["round"] for r in payload["rounds"] if r["above_two_tau"]]
    assert all(r["above_two_tau"] == (r["labelboost_disagreement"] > r["two_tau"]) for r in payload["rounds"])
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "NOT met — the utility guarantee does not apply at this n" in text and "post-processing" in text
    assert text.count("ABOVE 2τ") == len(above)
    if above:
        assert "exceeds its 2τ bound" in text


def test_calibrate_carry_forward_says_whether_either_m_reaches_theorem_7_2_m(capsys):
    argv = ["calibrate", "carry-forward", "--n", "3e6", "--k", "2", "--epsilon", "1", "--delta", "1e-6"]
    payload = run_json(capsys, *argv, "--class", "intervals", "--domain-size", "1048576")
    u = payload["utility"]
    assert u["m_needed"] == 7298 and u["paper"]["m"] == 5 and u["tight"]["m"] == 266
    assert not u["paper"]["meets"] and not u["tight"]["meets"]
    assert u["paper"]["n_needed"] == 3822645792 and u["tight"]["n_needed"] == 82233792
    assert main([*argv, "--class", "intervals", "--domain-size", "1048576"]) == 0
    assert "neither calibration reaches Theorem 7.2's m" in capsys.readouterr().out
    assert run_json(capsys, *argv)["utility"] is None
    assert main([*argv, "--class", "rectangles"]) == 2
    assert "rectangles have k = 4" in capsys.readouterr().err
