"""The audit tells a bug in the mathematics (VIOLATION) from a floating-point leak (FLOAT LEAK)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.audit import FLOAT_LEAK, NO_VIOLATION, VIOLATION
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import (
    Laplace,
    RandomizedResponse,
    SnappingLaplace,
    run_catalog,
)
from dpledger.verify.audit.montecarlo.events import LatticeCount, OnLattice
from dpledger.verify.audit.montecarlo.statistics import ranked_levels
from dpledger.verify.service.audit import event_text

SERIAL = InProcessExecutor()
ZERO_ONE = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]


def float_laplace(data, n: int, rng: np.random.Generator) -> np.ndarray:
    """The textbook float Laplace mechanism at ε = 1: exactly 1-DP over the reals."""
    return float(data) + rng.laplace(0.0, 1.0, n)


def float_laplace_half_scale(data, n: int, rng: np.random.Generator) -> np.ndarray:
    """Float Laplace at scale 1/2 claimed at ε = 1: 2-DP over the reals."""
    return float(data) + rng.laplace(0.0, 0.5, n)


def float_laplace_vector(data, n: int, rng: np.random.Generator) -> np.ndarray:
    """Float Laplace of scale 10 per coordinate: 0.1-DP over the reals for one coordinate moved by 1."""
    values = np.asarray(data, dtype=float)
    return values + rng.laplace(0.0, 10.0, (n, values.size))


def test_textbook_float_laplace_is_a_float_leak_and_not_a_violation():
    result = audit(float_laplace, ZERO_ONE, 1.0, samples=200_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.verdict == FLOAT_LEAK and result.violation
    assert result.float_epsilon_lower is not None and result.witness is not None
    assert result.real_epsilon_lower <= 1.0 < result.float_epsilon_lower
    assert result.witness == result.float_witness and result.witness["family"].startswith("lattice")
    assert (
        result.to_json()["verdict"] == FLOAT_LEAK
        and result.to_json()["float_witness"]["kind"] == "float artefact"
    )


def test_wrong_scale_float_laplace_is_a_violation_with_a_real_number_witness():
    result = audit(float_laplace_half_scale, ZERO_ONE, 1.0, samples=200_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.verdict == VIOLATION and 1.0 < result.real_epsilon_lower <= 2.0
    assert result.witness is not None
    assert result.witness == result.real_witness and result.witness["kind"] == "real number"


def test_float_leak_of_one_coordinate_of_a_vector_output_is_caught_by_lattice_events():
    zeros = np.zeros(5)
    pair = [NeighbourPair(zeros, np.eye(5)[0], "coordinate 0: 0 vs 1")]
    result = audit(float_laplace_vector, pair, 0.1, samples=200_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.verdict == FLOAT_LEAK and result.real_epsilon_lower <= 0.1 and result.witness is not None
    assert (
        result.witness["family"].startswith("lattice") and result.witness["event"].get("coordinate", 0) == 0
    )


def _bound_levels(alpha: float, candidates: int) -> set[float]:
    """Every per-bound level a candidate can get when one kind holds ``candidates`` candidates."""
    return {round(level / 2, 12) for level in ranked_levels(alpha, candidates)}


def test_discrete_outputs_give_the_whole_confidence_to_real_number_events():
    result = audit(RandomizedResponse(2.0), ZERO_ONE, 1.0, samples=100_000, stages=1, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.float_epsilon_lower is None and result.float_witness is None
    assert result.real_witness is not None
    assert round(result.real_witness["bound_level"], 12) in _bound_levels(0.05, result.candidates_corrected)


def test_confidence_is_split_between_the_two_kinds_so_the_bonferroni_sum_is_alpha():
    # The kinds share α by rank (¾, ¼), each kind's K candidates share its level by rank: Σ of all levels = α.
    result = audit(float_laplace, ZERO_ONE, 1.0, samples=100_000, stages=1, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.real_witness is not None and result.float_witness is not None
    levels = [round(witness["bound_level"], 12) for witness in (result.real_witness, result.float_witness)]
    splits = [
        (real, floating)
        for first, second in ((0, 1), (1, 0))
        for real in range(1, result.candidates_corrected)
        for floating in range(1, result.candidates_corrected)
        if real + floating == result.candidates_corrected
        and levels[0] in _bound_levels(ranked_levels(0.05, 2)[first], real)
        and levels[1] in _bound_levels(ranked_levels(0.05, 2)[second], floating)
    ]
    assert splits


def test_snapped_laplace_outputs_have_no_float_artefact_events():
    result = audit(Laplace(1.0), ZERO_ONE, 1.0, samples=100_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.verdict == NO_VIOLATION and result.float_epsilon_lower is None


@pytest.mark.slow
@pytest.mark.parametrize(
    "mechanism,failing",
    [(float_laplace, (VIOLATION,)), (SnappingLaplace(1.0, 1000.0), (VIOLATION, FLOAT_LEAK))],
    ids=["float_laplace_real_events", "snapping_laplace"],
)
def test_verdicts_that_would_be_false_alarms_stay_within_one_minus_confidence(mechanism, failing):
    # The float Laplace is exactly 1-DP over the reals: a VIOLATION (real-number events) is a false alarm,
    # so float artefacts must not leak into the real-number bound. The snapping mechanism is ≤ 1-DP in floats.
    runs, confidence = 150, 0.8
    alarms = sum(
        audit(
            mechanism, ZERO_ONE, 1.0, samples=1500, confidence=confidence, seed=seed, executor=SERIAL
        ).verdict
        in failing
        for seed in range(runs)
    )
    assert alarms <= stats.binom.ppf(1 - 1e-4, runs, 1 - confidence)


@pytest.mark.parametrize(
    "name,verdict",
    [
        ("naive_float_laplace", FLOAT_LEAK),
        ("naive_float_laplace_wrong_scale", VIOLATION),
        ("snapping_laplace", NO_VIOLATION),
        ("discrete_laplace", NO_VIOLATION),
    ],
)
def test_float_catalog_entries_get_their_expected_verdicts(name, verdict):
    (row,) = run_catalog(SERIAL, samples=200_000, names=[name])
    assert row.entry.expected_verdict == verdict and row.result.verdict == verdict


@pytest.mark.slow
def test_five_dimensional_float_laplace_catalog_entry_is_a_float_leak():
    (row,) = run_catalog(SERIAL, samples=200_000, names=["naive_float_laplace_5d"])
    assert row.result.verdict == FLOAT_LEAK == row.entry.expected_verdict


def test_lattice_statistics_read_one_coordinate_or_count_all():
    rows = np.array([[1.0, 1.0 + 2**-52], [1.0 + 2**-52, 0.5]])
    assert OnLattice(8, 1).defined(rows).tolist() == [0.5]
    assert LatticeCount(8)(rows).tolist() == [1.0, 1.0]
    assert OnLattice(8).float_artefact and LatticeCount(8).float_artefact


def test_witness_events_are_said_in_words():
    event = {
        "type": "interval",
        "lower_exclusive": -0.5,
        "upper_inclusive": 0.25,
        "statistic": "output on lattice",
        "coordinate": 3,
        "zero_low_significand_bits": 8,
    }
    assert (
        event_text(event)
        == "the output coordinate 3, whose float64 significand ends in 8 zero bits, lies in (-0.5, 0.25]"
    )
    assert (
        event_text(
            {"type": "interval", "lower_exclusive": 1.0, "upper_inclusive": "inf", "statistic": "output"}
        )
        == "the output is > 1"
    )
