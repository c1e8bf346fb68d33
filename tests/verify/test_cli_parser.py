"""The command line's parser holds no state between builds (group tables cached by the
``id()`` of a parser crashed ``dpledger report`` with 'conflicting subparser: carry-forward' once
an id was reused), and parsing maps each command onto its service function's keyword arguments."""

import pytest

from dpledger.verify.cli.commands.run import CLASS_OPTIONS
from dpledger.verify.cli.main import build_parser, service_call
from dpledger.verify.paper.setups import setups
from dpledger.verify.service import calibrate, run

CARRY_FORWARD = [
    "calibrate",
    "carry-forward",
    "--n",
    "100000000",
    "--k",
    "4",
    "--epsilon",
    "1",
    "--delta",
    "1e-6",
]


@pytest.mark.slow
def test_the_parser_builds_and_parses_1500_times_in_a_row():
    for _ in range(1500):  # the old cache failed within a few hundred builds, as freed ids were reused
        service, kwargs = service_call(build_parser().parse_args(CARRY_FORWARD))
    assert service is calibrate.carry_forward
    assert kwargs == {"n": 10**8, "k": 4, "epsilon": "1", "delta": "1e-6"}


def test_options_not_given_are_left_to_the_service_defaults():
    service, kwargs = service_call(
        build_parser().parse_args(
            ["calibrate", "8.19", "--k", "3", "--components", "thresholds,intervals,thresholds", "--json"]
        )
    )
    assert service is calibrate.theorem_8_19
    assert kwargs == {"k": 3, "components": ["thresholds", "intervals", "thresholds"]}


def test_run_carry_forward_passes_only_the_options_of_the_chosen_class():
    argv = [
        "run",
        "carry-forward",
        "--class",
        "thresholds",
        "--domain-size",
        "64",
        "--dim",
        "2",
        "--n",
        "900",
    ]
    service, kwargs = service_call(build_parser().parse_args(argv))
    assert service is run.carry_forward and kwargs == {"concept": "thresholds", "domain_size": 64, "n": 900}


def test_every_option_a_class_setup_reads_is_an_option_of_run_carry_forward():
    assert {name for setup in setups().values() for name in setup.options} == set(CLASS_OPTIONS)
