"""Progress on stderr for long commands — stdout keeps the result (pure JSON with
--json), a tiny job draws no bar, the library reports through on_progress and never prints."""

import json

import pytest

from dpledger.accountant.section6 import Target, paper_m, tight_calibration
from dpledger.verify.cli.main import main
from dpledger.verify.service import progress


def test_a_job_done_before_the_delay_draws_no_bar(capsys):
    report = progress.progress_callback("tiny")
    for done in range(1, 11):
        report(done, 10)
    assert capsys.readouterr().err == ""


def test_a_long_job_draws_its_bar_on_stderr_and_closes_it_once(monkeypatch, capsys):
    monkeypatch.setattr(progress, "DELAY", 0)
    report = progress.progress_callback("job")
    for done in range(1, 11):
        report(done, 10)
    report(10, 10)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("job [") >= 2 and captured.err.count("10/10") == 1


def test_tight_calibration_reports_every_accounting_and_ends_at_its_total():
    target = Target.of(10**8, 4, 1, "1e-6")
    calls = []
    result = tight_calibration(
        target, paper_m(target), on_progress=lambda done, total: calls.append((done, total))
    )
    assert result.m == tight_calibration(target, paper_m(target)).m  # the callback changes nothing
    assert [done for done, _ in calls[:-1]] == list(range(1, len(calls)))
    assert all(done <= total for done, total in calls) and calls[-1][0] == calls[-1][1]


@pytest.mark.parametrize(
    "argv",
    [
        ["calibrate", "carry-forward", "--n", "100000000", "--k", "4", "--epsilon", "1", "--delta", "1e-6"],
        ["run", "carry-forward", "--class", "intervals", "--n", "200000", "--m", "300", "--seed", "4"],
        ["run", "agnostic", "--algorithm", "improper", "--dim", "3", "--n", "500", "--epsilon", "1"],
    ],
)
def test_json_stdout_is_pure_json_while_stderr_shows_progress(monkeypatch, capsys, argv):
    monkeypatch.setattr(progress, "DELAY", 0)
    main([*argv, "--json"])
    captured = capsys.readouterr()
    assert isinstance(json.loads(captured.out), dict)
    assert "[" in captured.err and "#" in captured.err and "/" in captured.err


def test_fit_reports_its_2k_plus_2_steps_in_order():
    import numpy as np

    from dpledger.learners.carry_forward import CarryForwardLearner
    from dpledger.learners.concept_classes import Intervals

    X = np.arange(3000) % 64
    y = ((X >= 10) & (X <= 40)).astype(int)
    calls = []
    CarryForwardLearner(Intervals(64), m=20, random_state=0).fit(
        X, y, on_progress=lambda d, t: calls.append((d, t))
    )
    assert calls == [(done, 6) for done in range(1, 7)]  # k = 2


def test_a_quick_run_prints_its_json_and_no_bar(capsys):
    assert (
        main(
            [
                "run",
                "carry-forward",
                "--class",
                "thresholds",
                "--domain-size",
                "1024",
                "--n",
                "30000",
                "--calibration",
                "tight",
                "--seed",
                "1",
                "--json",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert json.loads(captured.out)["holds"] is True and captured.err == ""
