"""Bad input never executes unasked, hangs or ends in a traceback: one line on stderr, exit status 2;
and the exit statuses a CI user relies on (0 claims hold, 1 a claim fails, 2 bad input)."""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from dpledger.verify.audit.montecarlo.audit import audit
from dpledger.verify.audit.montecarlo.executors import InProcessExecutor
from dpledger.verify.audit.montecarlo.mechanism import load_mechanism
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.cli.main import build_parser, main, service_call

USER_CODE = {
    "syntax_error": "def laplace(data, n, rng):\n    return (\n",
    "raises_on_import": "raise RuntimeError('no database connection')\n",
    "exits_on_import": "import sys\nsys.exit(4)\n",
    "exits": "import sys\n\ndef mechanism(data, n, rng):\n    sys.exit(3)\n",
    "never_returns": "import time\n\ndef mechanism(data, n, rng):\n    while True:\n        time.sleep(0.05)\n",
    "laplace": "def mechanism(data, n, rng):\n    return float(data[0]) + rng.laplace(0.0, 1.0, n)\n",
    "prints": "def mechanism(data, n, rng):\n    print('chatter')\n    return float(data[0]) + rng.laplace(0.0, 1.0, n)\n",
    "interrupts": "def mechanism(data, n, rng):\n    raise KeyboardInterrupt\n",
    "million_values": "def mechanism(data, n, rng):\n    return rng.normal(size=(n, 10**6))\n",
    "wide": "def mechanism(data, n, rng):\n    return rng.normal(size=(n, 4000)) + float(data[0])\n",
    "sleeps": "import time\n\ndef mechanism(data, n, rng):\n    time.sleep(0.002 * n)\n    return float(data[0]) + rng.laplace(0.0, 1.0, n)\n",
}


@pytest.fixture
def user_code(tmp_path, monkeypatch):
    """The modules of :data:`USER_CODE` in a folder on the path (each test imports them afresh)."""
    for name, code in USER_CODE.items():
        (tmp_path / f"rb_{name}.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in USER_CODE:
        monkeypatch.delitem(sys.modules, f"rb_{name}", raising=False)
    return tmp_path


def audit_mechanism(name: str, *extra: str) -> list[str]:
    return [
        "audit",
        "mechanism",
        "--mechanism",
        f"rb_{name}:mechanism",
        "--input-a",
        "[0]",
        "--input-b",
        "[1]",
        "--claimed-epsilon",
        "1",
        "--samples",
        "5000",
        "--workers",
        "1",
        *extra,
    ]


PROGRESS = re.compile(r"^.* \[[# ]+\] \d+/\d+$")
"""A progress-bar line on stderr (drawn while a search runs)."""


def one_line_error(capsys, status: int) -> str:
    """The single stderr line of a refused command, after checking status 2 and no stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dpledger: error:"), captured.err
    return lines[0]


# ---------------------------------------------------------------- user code


@pytest.mark.parametrize(
    "name,message",
    [
        ("syntax_error", "SyntaxError"),
        ("raises_on_import", "RuntimeError: no database connection"),
        ("exits_on_import", "sys.exit(4)"),
    ],
)
def test_mechanism_module_failing_on_import_is_one_line_status_2(user_code, capsys, name, message):
    error = one_line_error(capsys, main(audit_mechanism(name)))
    assert "cannot import mechanism module" in error and message in error


def test_mechanism_calling_sys_exit_is_one_line_status_2_not_its_exit_code(user_code, capsys):
    error = one_line_error(capsys, main(audit_mechanism("exits")))
    assert "sys.exit(3)" in error


def test_mechanism_that_never_returns_is_stopped_at_the_timeout(user_code, capsys):
    started = time.perf_counter()
    error = one_line_error(capsys, main(audit_mechanism("never_returns", "--timeout", "2")))
    assert "exceeded its timeout of 2 s" in error and time.perf_counter() - started < 30


def test_current_directory_is_appended_to_sys_path_never_put_first(tmp_path, monkeypatch):
    (tmp_path / "rb_local_mechanism.py").write_text(USER_CODE["laplace"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(tmp_path))])
    load_mechanism("rb_local_mechanism:mechanism")
    assert sys.path[-1] == str(tmp_path) and sys.path[0] != str(tmp_path)


def test_mechanism_help_says_a_mechanism_is_code_that_runs(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "mechanism", "--help"])
    assert "code that runs" in " ".join(capsys.readouterr().out.split())


# ---------------------------------------------------------------- sizes that would exhaust the machine


def test_domain_of_100_records_by_100_values_is_refused_with_the_estimate(user_code, capsys):
    records = json.dumps(list(range(100)))
    status = main(audit_mechanism("laplace", "--domain", records, "--input-a", records))
    error = one_line_error(capsys, status)
    assert "too much work: 9,901 neighbour pairs" in error and "at most 1,000 pairs" in error


def test_run_carry_forward_with_1e12_records_is_refused_before_allocating(capsys):
    started = time.perf_counter()
    error = one_line_error(capsys, main(["run", "carry-forward", "--n", "1e12"]))
    assert "must be at most 1e+08" in error and time.perf_counter() - started < 10


# ---------------------------------------------------------------- report --out


def test_report_out_onto_an_existing_file_is_refused(tmp_path, capsys):
    target = tmp_path / "reports.md"
    target.write_text("keep me")
    error = one_line_error(capsys, main(["report", "--out", str(target)]))
    assert "exists and is not a folder" in error and target.read_text() == "keep me"


def test_report_out_where_no_folder_can_be_made_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    error = one_line_error(capsys, main(["report", "--out", str(tmp_path / "file" / "reports")]))
    assert "cannot create the folder" in error


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_report_out_into_a_read_only_folder_is_refused(tmp_path, capsys):
    tmp_path.chmod(0o500)
    try:
        error = one_line_error(capsys, main(["report", "--out", str(tmp_path)]))
    finally:
        tmp_path.chmod(0o700)
    assert "not writable" in error


# ---------------------------------------------------------------- numbers


def _kwargs(argv: list[str]) -> dict:
    return service_call(build_parser().parse_args(argv))[1]


@pytest.mark.parametrize("text,value", [("1e1", 10), ("1e0", 1), ("1e10", 10**10), ("10", 10)])
def test_integers_in_scientific_notation_are_accepted_everywhere(text, value):
    assert _kwargs(
        [
            "run",
            "agnostic",
            "--algorithm",
            "improper",
            "--dim",
            text,
            "--n",
            text,
            "--epsilon",
            text,
            "--seed",
            text,
        ]
    ) == {"algorithm": "improper", "dim": value, "n": value, "epsilon": text, "seed": value}
    assert _kwargs(audit_mechanism("laplace", "--seed", text, "--claimed-epsilon", text))["seed"] == value


@pytest.mark.parametrize("text", ["1e1", "1e0", "1e10", "1e-6", "0.1", "1/3", "2/7"])
def test_claimed_epsilon_accepts_decimals_and_fractions_as_the_smallest_float_above(text):
    claimed = _kwargs(audit_mechanism("laplace", "--claimed-epsilon", text))["claimed_epsilon"]
    exact = Fraction(text) if "/" in text else Fraction(Decimal(text))
    assert Fraction(claimed) >= exact > Fraction(math.nextafter(claimed, -math.inf))


@pytest.mark.parametrize(
    "argv",
    [
        ["compose", "--epsilon", "1e9999999", "--k", "2"],
        [
            "audit",
            "mechanism",
            "--mechanism",
            "m:f",
            "--input-a",
            "0",
            "--input-b",
            "1",
            "--claimed-epsilon",
            "1e9999999",
        ],
    ],
)
def test_numbers_with_huge_exponents_are_refused_at_once(argv, capsys):
    started = time.perf_counter()
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and time.perf_counter() - started < 2
    assert capsys.readouterr().err.count("\n") == 1


# ---------------------------------------------------------------- exit status


def test_help_and_readme_document_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    for text in (help_text, readme):
        assert "exit status" in text.lower() and all(f"{code} " in text for code in ("0", "1", "2"))
        assert "130" in text and "interrupted" in text


@pytest.mark.parametrize(
    "argv,status",
    [
        (
            [
                "compose",
                "--epsilon",
                "0.1",
                "--delta",
                "0.01",
                "--k",
                "10",
                "--method",
                "basic",
                "--target-delta",
                "0.05",
            ],
            1,
        ),
        (
            [
                "compose",
                "--epsilon",
                "0.1",
                "--delta",
                "0.01",
                "--k",
                "10",
                "--method",
                "basic",
                "--target-delta",
                "0.5",
            ],
            0,
        ),
        (["calibrate", "agnostic", "--epsilon", "1", "--delta", "1e-5", "--steps", "10"], 0),
        (["audit", "macro-block", "--class", "intervals", "--domain-size", "4", "--m", "2"], 0),
    ],
)
def test_exit_status_of_compose_calibrate_and_exact_audits(argv, status, capsys):
    assert main(argv) == status


def test_output_into_a_pipe_the_reader_left_is_not_a_traceback():
    import subprocess

    command = [str(Path(sys.executable).with_name("dpledger")), "proofs"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None  # both piped
    process.stdout.close()  # the reader (as `| head -0`) leaves before anything is written
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0 and "Traceback" not in errors and "BrokenPipe" not in errors


# ---------------------------------------------------------------- mechanisms that misbehave at run time


def test_a_mechanism_that_prints_does_not_corrupt_json(user_code, capsys):
    status = main([*audit_mechanism("prints", "--workers", "2"), "--json"])
    captured = capsys.readouterr()
    assert status in (0, 1) and json.loads(captured.out)["verdict"]
    assert "chatter" not in captured.out


def test_a_mechanism_raising_keyboard_interrupt_is_one_line_status_2(user_code, capsys):
    error = one_line_error(capsys, main(audit_mechanism("interrupts")))
    assert "mechanism raised KeyboardInterrupt" in error


@pytest.mark.parametrize(
    "name,message",
    [("million_values", "8,000,000 bytes per run"), ("wide", "outputs of 4,000 values")],
)
def test_a_mechanism_with_huge_outputs_is_refused_within_seconds_with_the_estimate(
    user_code, capsys, name, message
):
    started = time.perf_counter()
    error = one_line_error(capsys, main(audit_mechanism(name, "--samples", "100000")))
    assert message in error and time.perf_counter() - started < 30


def test_stages_beyond_the_limit_are_refused_at_once(user_code, capsys):
    error = one_line_error(capsys, main(audit_mechanism("laplace", "--stages", "1e12")))
    assert "stages must be an integer in [1, 64]" in error


CTRL_C = """
import os, signal, subprocess, sys, time
argv = [sys.executable, "-m", "dpledger.verify.cli.main", "audit", "mechanism", "--mechanism", "rb_sleeps:mechanism",
        "--input-a", "[0]", "--input-b", "[1]", "--claimed-epsilon", "1", "--samples", "1000000", "--workers", "2"]
before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(6)
os.killpg(child.pid, signal.SIGINT)  # what Ctrl-C sends: the whole process group
out, err = child.communicate(timeout=60)
left = (set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()) - before
print(child.returncode, repr(err), sorted(left))
"""


@pytest.mark.slow
def test_ctrl_c_during_an_audit_prints_one_line_exits_130_and_leaves_nothing_behind(user_code):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(user_code), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C], capture_output=True, text=True, timeout=120, env=env, cwd=user_code
    )
    assert done.stdout.strip() == "130 'dpledger: interrupted\\n' []", done.stdout + done.stderr


# ---------------------------------------------------------------- the auditor's API


def laplace(data, n, rng):
    return float(data[0]) + rng.laplace(0.0, 1.0, n)


def sleeping(data, n, rng):
    time.sleep(0.5)
    return float(data[0]) + rng.laplace(0.0, 1.0, n)


PAIRS = [NeighbourPair([0], [1], "p")]


@pytest.mark.parametrize(
    "arguments,message",
    [
        (
            {"pairs": PAIRS, "claimed_epsilon": 1, "samples": 10**12},
            r"samples must be an integer in \[2, 10,000,000,000\]",
        ),
        (
            {"pairs": PAIRS, "claimed_epsilon": 1, "samples": "1000"},
            r"samples must be an integer, got '1000' \(str\)",
        ),
        ({"pairs": PAIRS, "claimed_epsilon": 10**400}, "an integer of 401 digits: beyond the largest float"),
        (
            {"pairs": PAIRS, "claimed_epsilon": Fraction(1, 10**400)},
            "about 1e-400 is below the smallest positive float",
        ),
        ({"pairs": [([0], [1])], "claimed_epsilon": 1}, r"pairs\[0\] is a tuple, not a NeighbourPair"),
        ({"pairs": PAIRS, "claimed_epsilon": 1, "stages": 10**12}, r"stages must be an integer in \[1, 64\]"),
        ({"pairs": PAIRS, "claimed_epsilon": "1"}, "claimed epsilon must be a real number"),
    ],
    ids=[
        "samples-1e12",
        "samples-text",
        "epsilon-10^400",
        "epsilon-1e-400",
        "tuple-pairs",
        "stages-1e12",
        "epsilon-text",
    ],
)
def test_audit_api_refuses_bad_arguments_with_a_value_error_at_once(arguments, message):
    started = time.perf_counter()
    with pytest.raises(ValueError, match=message):
        audit(laplace, **arguments)
    assert time.perf_counter() - started < 5


def test_audit_api_honours_its_timeout_in_process():
    started = time.perf_counter()
    with pytest.raises(ValueError, match="exceeded its timeout of 2 s"):
        audit(sleeping, PAIRS, 1, samples=10**5, timeout=2, executor=InProcessExecutor())
    assert time.perf_counter() - started < 10


# ---------------------------------------------------------------- commands that used to end in a traceback


def test_proofs_run_into_an_unwritable_status_file_is_refused_before_the_tests_run(tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    started = time.perf_counter()
    status = main(["proofs", "--run", "--fast", "--status-file", str(tmp_path / "a-file" / "status.json")])
    assert "cannot be written" in one_line_error(capsys, status)
    assert time.perf_counter() - started < 20  # no test ran


def test_calibrate_carry_forward_beyond_float_range_is_one_line_status_2(capsys):
    status = main(
        ["calibrate", "carry-forward", "--n", "1e400", "--k", "2", "--epsilon", "1", "--delta", "1e-6"]
    )
    assert "n has 401 digits" in one_line_error(capsys, status)


@pytest.mark.parametrize(
    "argv",
    [
        ["calibrate", "composition", "--k", "1e12", "--epsilon", "1", "--delta", "1e-6"],
        ["compose", "--epsilon", "0.1", "--delta", "1e-15", "--k", "1e12", "--target-delta", "1e-3"],
    ],
    ids=["calibrate-composition", "compose"],
)
def test_optimal_composition_of_10_to_the_12_mechanisms_is_refused_at_once_naming_advanced(argv, capsys):
    started = time.perf_counter()
    error = one_line_error(capsys, main(argv))
    assert "refused above k = 10^10" in error and "advanced" in error and time.perf_counter() - started < 10


def test_composition_epsilon_api_refuses_10_to_the_12_optimal_steps_with_a_value_error():
    from dpledger import composition_epsilon

    with pytest.raises(ValueError, match="refused above k = 10\\^10"):
        composition_epsilon(10**12, 1, "1e-6")


def test_a_claim_below_the_smallest_float_is_echoed_as_written_not_as_5e_324(user_code, capsys):
    main(audit_mechanism("laplace", "--claimed-epsilon", "1e-400", "--json"))
    payload = json.loads(capsys.readouterr().out)
    assert payload["claimed_epsilon"] == 5e-324  # the float audited, never below the claim
    assert payload["claimed_epsilon_text"].startswith("1e-400 (audited as 5e-324")
    main(audit_mechanism("laplace", "--claimed-epsilon", "1e-400"))
    assert "claimed ε = 1e-400 (audited as 5e-324" in capsys.readouterr().out


def test_json_carries_the_exact_bound_beside_the_float_so_holds_can_be_checked(capsys):
    main(
        [
            "compose",
            "--epsilon",
            "0.1",
            "--delta",
            "1e-7",
            "--k",
            "10",
            "--method",
            "basic",
            "--target-delta",
            "1e-6",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["delta"] == 1.0000000000000002e-06  # the outward-rounded float
    assert (
        payload["delta_expr"] == "1/1000000" == payload["target_delta_expr"]
        and payload["delta_within_target"]
    )


def test_a_mechanism_that_never_returns_without_a_timeout_is_stopped_after_the_probe_limit(
    user_code, capsys, monkeypatch
):
    auditor = importlib.import_module(
        "dpledger.verify.audit.montecarlo.audit"
    )  # the module, not the function
    monkeypatch.setattr(auditor, "PROBE_LIMIT", 2.0)  # 120 s by default
    started = time.perf_counter()
    error = one_line_error(capsys, main(audit_mechanism("never_returns")))
    assert "the probe took more than 2 s and was stopped" in error and "--timeout" in error
    assert time.perf_counter() - started < 30


def test_a_command_run_with_stdout_closed_is_not_a_traceback():
    code = "import os, sys; os.close(1); sys.stdout = None; from dpledger.verify.cli.main import main; sys.exit(main(['compose', '--epsilon', '1', '--k', '2', '--method', 'basic']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--mechanism", "laplace", "--sensitivity", "1e308", "--epsilon", "1e-308"],
        ["--mechanism", "discrete-laplace", "--sensitivity", "1e308", "--epsilon", "1e-308"],
        [
            "--mechanism",
            "gaussian-classic",
            "--sensitivity",
            "1e308",
            "--epsilon",
            "1e-300",
            "--delta",
            "1e-6",
        ],
    ],
    ids=["laplace", "discrete-laplace", "gaussian-classic"],
)
def test_a_noise_scale_beyond_float_range_is_one_line_naming_the_overflow(argv, capsys):
    error = one_line_error(capsys, main(["calibrate", "noise", *argv]))
    assert "overflows a float" in error and "larger epsilon or a smaller sensitivity" in error


def test_laplace_scale_api_beyond_float_range_is_a_value_error():
    from dpledger import laplace_scale

    with pytest.raises(ValueError, match="scale Δ/ε overflows a float"):
        laplace_scale(sensitivity=1e308, epsilon=1e-308)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda api: api.composition_epsilon(10**400, 1, "1e-6"), "k = ~10\\^400 mechanisms is refused"),
        (lambda api: api.snapping_scale(1, 10, 1e308), "2\\^1024, overflows a float"),
        (
            lambda api: api.snapping_scale(10**400, 10, 1),
            "epsilon must be a finite float > 0, got a number of 401",
        ),
        (lambda api: api.snapping_epsilon(10**400, 10, 1), "scale must be a finite float > 0"),
        (lambda api: api.snapping_epsilon(1, 10**400, 1), "bound must be a finite float > 0"),
    ],
    ids=[
        "composition-k-1e400",
        "snapping-sensitivity-1e308",
        "snapping-epsilon-1e400",
        "snapping-scale",
        "bound",
    ],
)
def test_api_numbers_beyond_the_float_range_are_value_errors_naming_the_argument(call, message):
    import dpledger

    with pytest.raises(ValueError, match=message):
        call(dpledger)


@pytest.mark.parametrize("delta", [10**400, "1e400"])
def test_carry_forward_delta_beyond_the_float_range_is_a_value_error(delta):
    from dpledger.learners.carry_forward import CarryForwardLearner
    from dpledger.learners.concept_classes import Intervals

    X = [3] * 30
    with pytest.raises(ValueError, match="delta must be ≤ beta"):
        CarryForwardLearner(Intervals(64), delta=delta).fit(X, [0] * 30)


@pytest.mark.parametrize(
    "call",
    [
        lambda api: api.laplace_scale(1, 10**400),
        lambda api: api.laplace_scale("1e-400", 1),
        lambda api: api.discrete_laplace_scale("1e-400", 1),
    ],
    ids=["laplace-epsilon-1e400", "laplace-sensitivity-1e-400", "discrete-laplace"],
)
def test_a_noise_scale_below_the_float_range_is_a_value_error_not_5e_324(call):
    import dpledger

    with pytest.raises(ValueError, match="underflows a float"):
        call(dpledger)


def test_a_noise_scale_at_the_smallest_float_is_still_returned():
    from dpledger import laplace_scale

    assert laplace_scale(5e-324, 1).value == 5e-324


def test_calibrate_noise_refuses_a_sensitivity_below_the_float_range_in_one_line(capsys):
    argv = ["calibrate", "noise", "--mechanism", "laplace", "--sensitivity", "1e-400", "--epsilon", "1"]
    assert "underflows a float" in one_line_error(capsys, main(argv))


def test_snapping_laplace_with_a_scale_beyond_float_range_is_a_value_error():
    import numpy as np

    from dpledger import snapping_laplace

    with pytest.raises(ValueError, match=r"noise scale .* overflows a float"):
        snapping_laplace(0.0, epsilon=1e-300, bound=1e300, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    "P, message",
    [
        ({}, "P must be a non-empty dict"),
        ([1], "P must be a non-empty dict"),
        ({"a": 0.5}, "must sum to 1, got 0.5"),
        ({"a": -1, "b": 2}, "must be a probability in \\[0, 1\\], got -1"),
        ({"a": float("nan")}, "must be a probability in \\[0, 1\\], got nan"),
        ({"a": "1"}, "must be a probability, got str"),
    ],
    ids=["empty", "list", "half", "negative", "nan", "text"],
)
def test_exact_divergences_refuse_what_is_not_a_distribution(P, message):
    from dpledger import hockey_stick, pure_epsilon

    for divergence in (lambda: hockey_stick(P, {"a": 1}, 1), lambda: pure_epsilon(P, {"a": 1})):
        with pytest.raises(ValueError, match=message):
            divergence()


def test_pure_epsilon_of_an_output_of_zero_mass_on_one_side_is_infinite():
    from dpledger import pure_epsilon

    assert pure_epsilon({"a": Fraction(1, 3), "b": Fraction(2, 3)}, {"a": 1, "b": 0}).lower == math.inf
    assert pure_epsilon({"a": 0.1, "b": 0.2, "c": 0.7}, {"a": 0.1, "b": 0.2, "c": 0.7}).upper == 0


@pytest.mark.parametrize(
    "options, message",
    [
        ({"datasets": []}, "no neighbour pairs to audit"),
        ({"datasets": [0, 1], "neighbours": lambda d: []}, "no neighbour pairs to audit"),
        ({"datasets": [0, 1], "workers": 0}, "workers must be an integer ≥ 1, got 0"),
    ],
    ids=["no-datasets", "no-neighbours", "no-workers"],
)
def test_audit_exact_refuses_an_audit_that_would_hold_vacuously_or_run_nowhere(options, message):
    from dpledger import audit_exact

    arguments = {"neighbours": lambda d: [1 - d], **options}
    with pytest.raises(ValueError, match=message):
        audit_exact(lambda d, r: r.integer(2), claimed_epsilon=1, leaves_per_run=2, **arguments)


def test_mechanism_loaders_refuse_what_is_not_a_function_or_a_spec():
    from dpledger import per_sample

    with pytest.raises(ValueError, match="per_sample needs a function f\\(data, rng\\), got NoneType"):
        per_sample(None)
    with pytest.raises(ValueError, match="a string module:function, got NoneType"):
        load_mechanism(None)  # type: ignore[arg-type]


def test_search_guarantee_refuses_what_is_not_a_fitted_search_or_a_private_scorer():
    from dpledger import PrivateScorer, search_guarantee

    with pytest.raises(ValueError, match="search must be a fitted GridSearchCV"):
        search_guarantee(None, PrivateScorer())
    with pytest.raises(ValueError, match="scorer must be a PrivateScorer, got str"):
        search_guarantee(object(), "scorer")


def test_events_nested_beyond_the_depth_limit_are_refused_at_construction():
    from dpledger.accountant import events as ev

    event: ev.Event = ev.PureDP(1)
    for _ in range(ev.MAX_DEPTH - 1):
        event = ev.PostProcessing(event)
    with pytest.raises(ValueError, match=f"nested more than {ev.MAX_DEPTH} deep"):
        ev.PostProcessing(event)
    with pytest.raises(ValueError, match=f"nested more than {ev.MAX_DEPTH} deep"):
        ev.Composition((event, ev.PureDP(1)))


@pytest.mark.parametrize("children", [None, "ab", 5, "event"], ids=["none", "text", "number", "one-event"])
def test_compositions_refuse_children_that_are_not_a_sequence_of_events(children):
    from dpledger.accountant import events as ev

    given = ev.PureDP(1) if children == "event" else children
    for kind in (ev.Composition, ev.ParallelComposition):
        with pytest.raises(ValueError, match="children must be a non-empty sequence of events"):
            kind(given)  # type: ignore[arg-type]


def test_a_guarantee_reads_its_numbers_exactly_and_refuses_text_that_is_not_one():
    import sympy

    from dpledger import Guarantee

    assert Guarantee("1/3", 0.5).epsilon == sympy.Rational(1, 3)
    with pytest.raises(ValueError, match="epsilon is not a number"):
        Guarantee("abc", 0)
    with pytest.raises(ValueError, match="delta must be finite"):
        Guarantee(1, float("nan"))


def test_carry_forward_refuses_an_oracle_that_is_not_a_component_oracle():
    from dpledger.learners.carry_forward import CarryForwardLearner
    from dpledger.learners.concept_classes import Intervals

    with pytest.raises(ValueError, match="oracle must be a ComponentOracle or None, got str"):
        CarryForwardLearner(Intervals(64), oracle="abc").fit([3] * 30, [0] * 30)  # type: ignore[arg-type]


def test_a_pld_noise_search_over_10_to_the_7_releases_is_refused_at_once_with_the_estimate():
    from dpledger import composition_noise

    start = time.monotonic()
    with pytest.raises(ValueError, match=r"a PLD search would process about 8.9e\+07 vector entries"):
        composition_noise("laplace", 1, 1, "1e-6", k=10**7)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["calibrate", "agnostic", "--epsilon", "1", "--delta", "1e-400"], "below 1e-300"),
        (
            "calibrate composition --k 10 --epsilon 1 --delta 1e-6 --method pld --poisson-rate 1e-308".split(),
            "leave the float range",
        ),
        (
            "calibrate dp-sgd --dataset-size 60000 --batch-size 256 --epochs 1 --delta 1e-308 --noise-multiplier 1".split(),
            "2^-53",
        ),
        (
            "calibrate dp-sgd --dataset-size 60000 --batch-size 256 --epochs 1 --delta 1e-5 --noise-multiplier 1e-400".split(),
            "beyond the float range",
        ),
        (
            "calibrate dp-sgd --dataset-size 60000 --batch-size 256 --epochs 1 --delta 1e-5 --noise-multiplier 0.01".split(),
            "not representable in float64",
        ),
        (
            "calibrate carry-forward --n 1e7 --k 2 --epsilon 1 --delta 1e-6 --alpha 0".split(),
            "alpha must be in (0, 1)",
        ),
        (
            "calibrate carry-forward --n 1e7 --k 2 --epsilon 1 --delta 1e-6 --beta 1".split(),
            "beta must be in (0, 1)",
        ),
        (
            "calibrate 2.1 --alpha 1e-400 --beta 0.1 --epsilon 1 --delta 1e-6".split(),
            "polynomial degree D with about 800 digits",
        ),
        ("calibrate 2.1 --alpha 0.1 --beta 0.1 --epsilon 1 --delta 1e-400".split(), "below 1e-300"),
        (
            "calibrate dp-sgd --dataset-size 60000 --batch-size 256 --epochs 1 --delta 1e-400 --epsilon 2".split(),
            "a δ below the float range",
        ),
    ],
    ids=[
        "agnostic-delta-below-float",
        "pld-rate-below-float",
        "dp-sgd-delta-below-rounding",
        "dp-sgd-noise-below-float",
        "dp-sgd-loss-beyond-exp",
        "carry-forward-alpha-0",
        "carry-forward-beta-1",
        "theorem-2-1-alpha-below-float",
        "theorem-2-1-delta-below-float",
        "dp-sgd-noise-search-below-rounding",
    ],
)
def test_extreme_parameters_are_refused_in_one_line_naming_the_limit(argv, message, capsys):
    status = main(argv)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if not PROGRESS.match(line)]
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dpledger: error:"), captured.err
    assert message in lines[0] and not captured.out


@pytest.mark.parametrize("argv", [["report", "--out", ""], ["proofs", "--status-file", ""]])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    error = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and error.endswith("must be a path, got empty text") and "\n" not in error


@pytest.mark.parametrize("option", ["--status-file", "--mutation-status-file"])
def test_a_folder_given_as_a_status_file_is_refused_in_one_line(option, tmp_path, capsys):
    assert "cannot be read: Is a directory" in one_line_error(capsys, main(["proofs", option, str(tmp_path)]))


def test_input_json_nested_beyond_the_parsers_depth_is_refused_in_one_line(user_code, capsys):
    deep = "[" * 5000 + "]" * 5000
    argv = audit_mechanism("laplace")
    argv[argv.index("--input-a") + 1] = deep
    assert "--input-a nests its JSON too deeply" in one_line_error(capsys, main(argv))


@pytest.mark.parametrize(
    ("epsilon", "shown"), [("1e-400", "ε ≤ 3e-400"), ("1e400", "ε ≤ 3e+400"), ("0.1", "ε ≤ 0.3")]
)
def test_compose_writes_bounds_beyond_the_float_range_as_decimals_not_as_0_or_inf(epsilon, shown, capsys):
    assert main(["compose", "--epsilon", epsilon, "--k", "3", "--method", "basic"]) == 0
    assert f"  {shown}" in capsys.readouterr().out.splitlines()
