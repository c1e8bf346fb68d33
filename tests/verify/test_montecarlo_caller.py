"""The caller's share of an audit made smaller — split-1 values kept across stages, one
standardisation for the fits of the same first runs, chunks that keep their runs queued before the
fits — gives the numbers the audit gave without it: same events, same bounds."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, local_processes, search
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace, OneSidedLeak
from dpledger.verify.audit.montecarlo.events import CountAbove
from dpledger.verify.audit.montecarlo.executors import InProcessExecutor
from dpledger.verify.audit.montecarlo.one_sided import KeyView, OffGrid, chance_repeats
from dpledger.verify.audit.montecarlo.runner import LocalPoolRunner
from dpledger.verify.audit.montecarlo.search import learned
from dpledger.verify.audit.montecarlo.tasks import ReducingChunkTask, chunk_sizes

schedule_module = importlib.import_module("dpledger.verify.audit.montecarlo.schedule")
audit_module = importlib.import_module("dpledger.verify.audit.montecarlo.audit")


def test_row_values_kept_across_stages_are_the_values_on_all_runs_and_only_new_runs_are_evaluated():
    rng = np.random.default_rng(0)
    buffer = Laplace(4.0)(np.zeros(8), 3000, rng)
    fits, evaluated = search.Fits(), []
    view = KeyView(None)

    def counted(runs: np.ndarray) -> np.ndarray:
        evaluated.append(len(runs))
        return view(runs)

    for rows in (500, 1200, 3000):  # split 1 grows at its end, stage by stage
        kept = fits.row_values(0, 1, view.signature, counted, buffer[:rows])
        assert np.array_equal(kept, view(buffer[:rows]))
        fits.end_stage()
    assert evaluated == [500, 700, 1800]
    assert np.array_equal(fits.row_values(0, 1, view.signature, counted, buffer[:800]), view(buffer[:800]))
    assert evaluated == [500, 700, 1800]  # fewer runs of the same buffer: kept too
    other = buffer.copy()  # other memory: evaluated again
    assert np.array_equal(fits.row_values(0, 1, view.signature, counted, other), view(other))
    strided = buffer[::2]  # the buffer's address, but not its prefix
    assert np.array_equal(fits.row_values(0, 1, view.signature, counted, strided), view(strided))
    assert evaluated[-2:] == [3000, 1500]
    fits.end_stage()
    fits.end_stage()  # a stage that asked for nothing: its values are dropped
    assert fits.rows == {}
    scalars = buffer[:, 0].copy()  # runs smaller than a value kept per run: evaluated every time
    for rows in (500, 1200):
        assert np.array_equal(
            fits.row_values(0, 1, view.signature, counted, scalars[:rows]), view(scalars[:rows])
        )
    assert evaluated[-2:] == [500, 1200] and fits.rows == {}


def test_statistics_of_each_run_alone_evaluated_in_parts_equal_them_evaluated_at_once():
    # What Fits.row_values relies on: the one-sided keys, off-grid counts and counts above the
    # centre of a run do not depend on the runs evaluated with it.
    rng = np.random.default_rng(1)
    runs = Laplace(20.0)(np.zeros(20), 20_000, rng)
    runs[::97, 3] += 2.0**-20  # some coordinates off the grid
    statistics = [
        KeyView(None),
        KeyView(np.full(20, 2.0**-6)),
        OffGrid(2.0**-10),
        CountAbove(np.median(runs, axis=0)),
    ]
    for statistic in statistics:
        parts = np.concatenate([statistic(runs[:7777]), statistic(runs[7777:12345]), statistic(runs[12345:])])
        assert np.array_equal(parts, statistic(runs))
    on_grid = runs / 2.0**-10
    assert np.array_equal(OffGrid(2.0**-10)(runs), (on_grid != np.round(on_grid)).sum(axis=1).astype(float))


def test_chance_repeats_is_the_most_runs_of_a_key_seen_on_both_inputs():
    rng = np.random.default_rng(3)
    for high_a, high_b in ((50, 80), (1000, 1000), (10, 10**6)):
        a = np.sort(rng.integers(0, high_a, 5000).astype(float))
        b = np.sort(rng.integers(high_a // 2, high_a // 2 + high_b, 4000).astype(float))
        keys_a, counts_a = np.unique(a, return_counts=True)
        keys_b, counts_b = np.unique(b, return_counts=True)
        _, in_a, in_b = np.intersect1d(keys_a, keys_b, return_indices=True)
        assert chance_repeats(a, b) == int((counts_a[in_a] + counts_b[in_b]).max(initial=0))
    assert chance_repeats(np.arange(5.0), np.arange(5.0, 9.0)) == 0
    assert chance_repeats(np.empty(0), np.arange(3.0)) == chance_repeats(np.arange(3.0), np.empty(0)) == 0


def test_head_moments_made_once_give_the_fits_made_alone_to_the_bit():
    rng = np.random.default_rng(2)
    a, b = Laplace(20.0)(np.zeros(20), 30_000, rng), Laplace(20.0)(np.ones(20), 30_000, rng)
    head = learned.head_moments(a[:20_000], b[:20_000])
    for tied, rows in ((False, 20_000), (True, 30_000)):
        alone, shared = (learned.fit_distinguisher(a[:rows], b[:rows], tied, head=h) for h in (None, head))
        for field in ("centre", "scale", "linear", "quadratic", "sign", "extra", "markers", "marked"):
            assert np.array_equal(getattr(alone, field), getattr(shared, field))


def test_the_fits_cost_is_measured_only_where_the_slowest_machine_could_exceed_the_limit(monkeypatch):
    measured: list[int] = []

    def rate(flops_per_second: float) -> Any:
        def measure() -> float:
            measured.append(1)
            return flops_per_second

        return measure

    sizes = chunk_sizes(10**6)  # the fits read 40,000 runs
    monkeypatch.setattr(audit_module, "gram_rate", rate(1e10))
    audit_module.check_search_work(np.zeros((1, 20)), 1, sizes, None)  # 63 columns: under a minute at worst
    assert measured == []
    audit_module.check_search_work(np.zeros((1, 300)), 1, sizes, None)  # 903 columns: measured, 196 s here
    assert measured == [1]
    monkeypatch.setattr(audit_module, "gram_rate", rate(1e9))
    with pytest.raises(ValueError, match="the search cannot finish"):
        audit_module.check_search_work(np.zeros((1, 3000)), 1, sizes, None)
    with pytest.raises(ValueError, match=r"beyond the timeout of 0\.5 s"):
        audit_module.check_search_work(np.zeros((1, 20)), 1, sizes, 0.5)


def _audit(mechanism: Any, pair: NeighbourPair, executor: Any, samples: int, seed: int) -> dict:
    payload = audit(mechanism, [pair], 1.0, samples=samples, stages=4, seed=seed, executor=executor).to_json()
    payload.pop("seconds")
    return payload


def _without_the_callers_savings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit as it was: every fit and every split-1 value made anew at every stage, the
    chunks of a stage queued after its fits."""
    monkeypatch.setattr(search.Fits, "get", lambda self, pair, kind, rows, fit: fit())
    monkeypatch.setattr(search.Fits, "holds", lambda self, statistic: False)
    monkeypatch.setattr(
        search.Fits, "row_values", lambda self, pair, side, key, statistic, runs: statistic(runs)
    )
    monkeypatch.setattr(schedule_module.Schedule, "_reducible", lambda self, stage: True)
    monkeypatch.setattr(schedule_module.Schedule, "_decide_ahead", lambda self, stage, p: None)


@pytest.mark.parametrize(
    ("mechanism", "pair", "samples"),
    [
        (Laplace(20.0), NeighbourPair(np.zeros(20), np.ones(20), "20-d"), 60_000),
        (Laplace(1.0), NeighbourPair(0.0, 1.0, "scalar"), 60_000),
        (OneSidedLeak("vector", 1e-3), NeighbourPair(np.asarray(0.0), np.asarray(1.0), "leak"), 40_000),
    ],
    ids=["20-d", "scalar", "one-sided leak"],
)
@pytest.mark.parametrize("seed", [0, 5])
def test_audits_of_fixed_seeds_give_the_events_and_bounds_of_the_audit_that_keeps_nothing(
    monkeypatch, mechanism, pair, samples, seed
):
    monkeypatch.setattr(learned, "DISTINGUISHER_ROWS", 400)  # the fits' caps reached at the second stage
    monkeypatch.setattr(learned, "TIED_ROWS", 1000)
    with local_processes(2) as pool:
        kept = {
            kind: _audit(mechanism, pair, executor, samples, seed)
            for kind, executor in (("pool", pool), ("serial", InProcessExecutor()))
        }
        _without_the_callers_savings(monkeypatch)
        anew = {
            kind: _audit(mechanism, pair, executor, samples, seed)
            for kind, executor in (("pool", pool), ("serial", InProcessExecutor()))
        }
    assert kept == anew
    assert kept["pool"] == kept["serial"]


def test_chunks_that_keep_their_runs_are_queued_at_once_and_reduced_ones_after_the_last_fits(monkeypatch):
    monkeypatch.setattr(learned, "DISTINGUISHER_ROWS", 400)
    monkeypatch.setattr(learned, "TIED_ROWS", 5000)  # the fits change until the third stage's
    events: list[str] = []
    submit, prefit = LocalPoolRunner.submit_chunk, schedule_module.Values.prefit

    def submitted(self: Any, task: Any) -> Any:
        events.append("reduced" if isinstance(task, ReducingChunkTask) else "chunk")
        return submit(self, task)

    def fitted(self: Any, runs: Any, pair: int, selection: int, threads: Any, chunks: int) -> Any:
        made = prefit(self, runs, pair, selection, threads, chunks)
        if made:
            events.append(f"fits on {selection}")
        return made

    def searched(*args: Any, **kwargs: Any) -> Any:
        events.append("search")
        return search_pair(*args, **kwargs)

    search_pair = audit_module.search_pair
    monkeypatch.setattr(LocalPoolRunner, "submit_chunk", submitted)
    monkeypatch.setattr(schedule_module.Values, "prefit", fitted)
    monkeypatch.setattr(audit_module, "search_pair", searched)
    pair = NeighbourPair(np.zeros(20), np.ones(20), "20-d")
    with local_processes(2) as pool:
        audit(Laplace(20.0), [pair], 1.0, samples=100_000, stages=4, seed=0, executor=pool)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    # 16 chunks of 6250 runs (1563 in split 1) per input in stages of 2, 4, 8, 16 chunks: the
    # second stage's chunks queued with the first's, the third's at the start of the second, before
    # its fits; the last stage's reduced to the values of the third stage's fits, the audit's last,
    # made before the second stage is searched
    assert events[:8] == ["chunk"] * 8 and events[8] == f"fits on {2 * 1563}"
    assert events.index(f"fits on {4 * 1563}") > len(events) - events[::-1].index("chunk") - 1
    last_fits = events.index(f"fits on {8 * 1563}")
    assert events[last_fits + 1 : last_fits + 17] == ["reduced"] * 16
    assert events[:last_fits].count("search") == 1
    assert events.count("chunk") == 16 and events.count("reduced") == 16
