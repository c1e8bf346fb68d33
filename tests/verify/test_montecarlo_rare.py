"""Laws of the one-sided and rare-output events (dpledger.verify.audit.montecarlo.one_sided)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from scipy import stats

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.audit import VIOLATION
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import LEAK_PLACES, Laplace, OneSidedLeak, snap
from dpledger.verify.audit.montecarlo.one_sided import KeySetEvent, KeyView, OffGrid, output_grid

SERIAL = InProcessExecutor()
ZERO_ONE = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]


WHERE = LEAK_PLACES


@pytest.mark.parametrize("where", WHERE)
def test_one_sided_leak_is_flagged_as_an_output_only_one_input_produced(where):
    # p = 1e-3 at 80/p runs per input: ~60 leak outputs on split 2, none possible on input 0.
    result = audit(OneSidedLeak(where, 1e-3), ZERO_ONE, 1.0, samples=80_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.violation and result.one_sided and result.to_json()["epsilon_is_a_ceiling"]
    assert result.witness is not None
    assert result.witness["hits"]["a"] == 0 and result.witness["family"].startswith("one-sided")


@pytest.mark.slow
@pytest.mark.parametrize(
    "where,samples",
    [
        ("bulk", 500_000),
        ("discrete", 500_000),
        ("vector", 1_000_000),
        ("tail", 1_000_000),
        ("float", 1_000_000),
    ],
)
def test_one_sided_leak_of_probability_1e_4_is_flagged_at_50_to_100_runs_per_leak(where, samples):
    # ~50/p runs per input flag most seeds (benchmarks/bench_montecarlo_rare.py), 100/p all; the
    # witness holds the leak: runs of input 1, (almost) none of input 0.
    result = audit(OneSidedLeak(where, 1e-4), ZERO_ONE, 1.0, samples=samples, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.real_witness is not None
    hits = result.real_witness["hits"]
    assert result.verdict == VIOLATION and hits["b"] > 20 * hits["a"]


@pytest.mark.slow
def test_unique_output_of_probability_3e_5_is_a_certified_delta_violation():
    # With probability 3e-5 input 1 outputs a value input 0 never does: δ(ε) ≥ 3e-5 > 1e-5 at every ε.
    result = audit(
        OneSidedLeak("bulk", 3e-5),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
        ZERO_ONE,
        1.0,
        claimed_delta=1e-5,
        samples=4_000_000,
        executor=SERIAL,
    )
    assert result.delta_lower is not None  # a δ claim is audited at δ
    assert result.violation and result.delta_violation and 1e-5 < result.delta_lower <= 3e-5


@pytest.mark.slow
@pytest.mark.parametrize(
    "mechanism",
    [Laplace(1.0), OneSidedLeak("discrete", 0.0), OneSidedLeak("vector", 0.0)],
    ids=["snapped_laplace", "discrete", "vector"],
)
def test_tight_mechanisms_are_not_flagged_beyond_confidence_with_the_one_sided_families(mechanism):
    runs, confidence = 200, 0.8
    flagged = sum(
        audit(
            mechanism, ZERO_ONE, 1.0, samples=4000, confidence=confidence, seed=seed, executor=SERIAL
        ).violation
        for seed in range(runs)
    )
    assert flagged <= stats.binom.ppf(1 - 1e-4, runs, 1 - confidence)


def test_output_grid_is_found_on_snapped_outputs_and_not_on_float_ones():
    rng = np.random.default_rng(0)
    snapped = snap(rng.laplace(0.0, 1.0, 10_000))
    assert output_grid(snapped, snapped + 1) == 2.0**-10
    assert output_grid(rng.laplace(0.0, 1.0, 10_000), rng.laplace(0.0, 1.0, 10_000)) is None
    assert output_grid(np.arange(0, 2000, 2), np.arange(0, 2000, 2)) == 2.0


def test_off_grid_counts_the_coordinates_off_the_grid():
    rows = np.asarray([[0.5, 0.25], [0.5 + 2.0**-12, 0.25], [2.0**-13, 3.0 + 2.0**-11]])
    assert OffGrid(2.0**-10)(rows).tolist() == [0.0, 1.0, 2.0]


def test_key_set_event_holds_exactly_the_outputs_of_its_keys():
    values = np.asarray([0.5, 1.0, 0.5, 2.0])
    exact = KeyView(None)
    event = KeySetEvent(exact, exact(np.asarray([0.5])), (0.5,))
    assert event.indicator(values).tolist() == [True, False, True, False]
    cells = KeyView(np.asarray([1.0]))
    event = KeySetEvent(cells, cells(np.asarray([1.2])), (1.2,))
    assert event.indicator(np.asarray([1.0, 1.99, 2.0, 0.99])).tolist() == [True, True, False, False]


def test_cli_says_an_output_only_one_input_produced(tmp_path, monkeypatch, capsys):
    (tmp_path / "leaky.py").write_text(
        "import numpy as np\n"
        "def leaky(data, n, rng):\n"
        "    out = np.round((float(np.sum(data)) + rng.laplace(0.0, 1.0, n)) * 1024) / 1024\n"
        "    if float(np.sum(data)) == 1.0:\n"
        "        out[rng.random(n) < 1e-3] = 0.5 + 2.0**-12\n"
        "    return out\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    main = importlib.import_module("dpledger.verify.cli.main").main
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "leaky:leaky",
            "--input-a",
            "[0]",
            "--input-b",
            "[1]",
            "--claimed-epsilon",
            "1",
            "--samples",
            "80000",
            "--workers",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert status == 1 and "an output only one input produced" in out and "ceiling" in out


def test_one_sided_events_are_estimated_on_runs_reduced_on_the_workers():
    # 4-d snapped vectors: the workers reduce split 2 to the statistics' values, the one-sided
    # key views and the off-grid count among them; the leak row is still certified.
    from dpledger.verify.audit.montecarlo import local_processes

    with local_processes(2) as pool:
        result = audit(OneSidedLeak("vector", 1e-3), ZERO_ONE, 1.0, samples=200_000, executor=pool)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.violation and result.one_sided
