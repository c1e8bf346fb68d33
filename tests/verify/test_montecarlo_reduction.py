"""Runs reduced where they are made: the estimation split of a chunk replaced, on the worker, by the
values of the fitted statistics the estimation reads — the same numbers."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, search
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace
from dpledger.verify.audit.montecarlo.decorrelation import OnInnovations, fit_innovations
from dpledger.verify.audit.montecarlo.events import (
    CountAbove,
    IntervalEvent,
    OnLattice,
    ValueSetEvent,
    evaluate,
    same_statistic,
)
from dpledger.verify.audit.montecarlo.executors import InProcessExecutor
from dpledger.verify.audit.montecarlo.perceptron import fit_network
from dpledger.verify.audit.montecarlo.search import learned
from dpledger.verify.audit.montecarlo.store import Reduced, countable
from dpledger.verify.audit.montecarlo.tasks import ChunkTask, ReducedRuns, ReducingChunkTask, chunk_seeds
from dpledger.verify.audit.montecarlo.transport import SharedChunkTask, SharedRuns, received

schedule_module = importlib.import_module("dpledger.verify.audit.montecarlo.schedule")


def _laplace_vectors(seed: int = 0, n: int = 4000, d: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return Laplace(6.0)(np.zeros(d), n, rng), Laplace(6.0)(np.ones(d), n, rng)


def test_statistics_evaluated_together_equal_each_statistic_evaluated_alone():
    a, b = _laplace_vectors()
    untied, tied = search.fit_distinguisher(a[:1000], b[:1000]), search.fit_distinguisher(a, b, True)
    other_centre = search.fit_distinguisher(a[1000:2000], b[1000:2000])
    prefix_a, prefix_b = np.cumsum(a, axis=1), np.cumsum(b, axis=1)  # correlated: innovations apply
    innovations = fit_innovations(prefix_a, prefix_b)
    assert innovations is not None  # prefix sums are correlated
    seen_a, seen_b = innovations(prefix_a), innovations(prefix_b)
    on_innovations = [
        OnInnovations(innovations, search.fit_distinguisher(seen_a, seen_b)),
        OnInnovations(innovations, CountAbove(seen_a.mean(axis=0))),
    ]  # one view, shared
    statistics = [
        untied,
        CountAbove(untied.centre),
        tied,
        other_centre,
        OnLattice(4, 2),
        *on_innovations,
        fit_network(a[:500], b[:500], iterations=5),
    ]
    together = evaluate(statistics, b)
    for statistic, values in zip(statistics, together, strict=True):
        np.testing.assert_array_equal(values, statistic(b))


def test_a_fit_made_again_on_the_same_runs_is_the_same_statistic():
    a, b = _laplace_vectors()
    first, again = search.fit_distinguisher(a[:500], b[:500]), search.fit_distinguisher(a[:500], b[:500])
    assert first is not again and same_statistic(first, again)
    assert not same_statistic(first, search.fit_distinguisher(a[:600], b[:600]))
    assert not same_statistic(first, CountAbove(first.centre))
    prefix_a, prefix_b = np.cumsum(a, axis=1), np.cumsum(b, axis=1)

    def on_innovations(rows: int) -> OnInnovations:  # nested parts: the innovations and the score on them
        innovations = fit_innovations(prefix_a[:rows], prefix_b[:rows])
        assert innovations is not None  # prefix sums are correlated
        return OnInnovations(
            innovations, search.fit_distinguisher(innovations(prefix_a), innovations(prefix_b))
        )

    assert same_statistic(on_innovations(500), on_innovations(500))
    assert not same_statistic(on_innovations(500), on_innovations(600))


def test_reducing_chunk_keeps_the_search_split_and_the_statistics_values_of_the_rest(tmp_path):
    a, b = _laplace_vectors()
    statistics = (search.fit_distinguisher(a, b), CountAbove(a.mean(axis=0)))
    task = ChunkTask(Laplace(6.0), np.zeros(6), 3000, chunk_seeds(5, 1, 1)[0][0][0])  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    runs = task()
    for result in (
        ReducingChunkTask(task, 750, statistics)(),
        received(SharedChunkTask(ReducingChunkTask(task, 750, statistics), str(tmp_path))()),
    ):
        assert isinstance(result, ReducedRuns) and result.rest == 2250
        np.testing.assert_array_equal(result.head, runs[:750])
        for statistic, values in zip(statistics, result.columns(), strict=True):
            np.testing.assert_array_equal(values, statistic(runs[750:]))
    shared = SharedChunkTask(ReducingChunkTask(task, 750, statistics), str(tmp_path))()
    assert isinstance(shared, ReducedRuns)
    assert isinstance(shared.head, SharedRuns) and isinstance(
        shared.values, SharedRuns
    )  # neither through the pipe
    received(shared)
    assert list(tmp_path.iterdir()) == []


def test_reduction_only_with_the_last_fits_on_lattice_vectors_with_many_distinct_rows():
    a, b = _laplace_vectors(n=50_000)  # the fits' caps: 20,000 and 50,000 runs per input
    fitted = search.prefit(a, b, 0, (100_000, 100_000), search.Fits())
    assert fitted is not None
    reduced = search.reduction(a, b, fitted, (100_000, 100_000), (400_000, 400_000))
    # the fits, then the one-sided families' statistics (key views of the grid, the off-grid count)
    assert fitted and reduced[: len(fitted)] == tuple(fitted)
    assert [type(s).__name__ for s in reduced[len(fitted) :]] == ["KeyView"] * 4 + ["OffGrid"]
    assert (
        search.reduction(a, b, fitted, (60_000, 60_000), (400_000, 400_000)) == ()
    )  # later fits read more runs
    naive = np.random.default_rng(1).laplace(0.0, 6.0, a.shape)  # off the lattice: float events need the runs
    assert search.reduction(naive, naive, fitted, (100_000, 100_000), (400_000, 400_000)) == ()
    marked = np.where(
        np.arange(a.shape[1]) < 2, -1000.0, a
    )  # markers (sparse-vector atoms): pattern events need the runs
    assert search.reduction(marked, marked, fitted, (100_000, 100_000), (400_000, 400_000)) == ()
    few = np.round(a / 100.0)  # few distinct rows: exact-value events need the runs
    assert search.reduction(few, few, fitted, (100_000, 100_000), (400_000, 400_000)) == ()
    assert search.prefit(a[:10], b[:10], 0, (100_000, 100_000), search.Fits()) is None  # not enough runs yet
    assert search.prefit(a[:, 0], b[:, 0], 0, (100_000, 100_000), search.Fits()) == []  # scalars fit nothing


def test_events_reduced_runs_cannot_count_are_not_estimated():
    a, b = _laplace_vectors()
    score = search.fit_distinguisher(a, b)
    part = Reduced((score,), (score(b),), len(b))
    fresh = search.fit_distinguisher(a, b)  # the search's own fit of the same runs
    candidates = [
        IntervalEvent(0.0, np.inf, fresh),
        IntervalEvent(0.0, np.inf, OnLattice(4, 0)),
        ValueSetEvent(np.asarray([b[0].tobytes()]), (0,)),
    ]
    estimable = [countable(event, [(part, part)]) for event in candidates]
    assert estimable == [True, False, False]


def _vector_audit(seed: int, stages: int) -> dict:
    pairs = [NeighbourPair(np.zeros(6), np.ones(6), "0 vs 1")]
    payload = audit(
        Laplace(6.0),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
        pairs,
        1.0,
        samples=40_000,
        stages=stages,
        seed=seed,
        executor=InProcessExecutor(),
    ).to_json()
    payload.pop("seconds")
    return payload


@pytest.mark.parametrize(("seed", "stages"), [(0, 4), (4, 4), (0, 1)])
def test_audit_with_reduced_chunks_equals_the_audit_that_keeps_every_run(monkeypatch, seed, stages):
    monkeypatch.setattr(learned, "DISTINGUISHER_ROWS", 400)  # the last fits are made at the first stage
    monkeypatch.setattr(learned, "TIED_ROWS", 1000)
    reduced: list[int] = []
    original = ReducingChunkTask.__call__

    def counted(self: ReducingChunkTask) -> ReducedRuns:
        reduced.append(1)
        return original(self)

    monkeypatch.setattr(ReducingChunkTask, "__call__", counted)
    with_reduction = _vector_audit(seed, stages)
    assert (
        len(reduced) > 0
    )  # one stage too: its chunks beyond the fits' and QUEUE_AHEAD more (schedule.QUEUE_AHEAD)
    monkeypatch.setattr(schedule_module, "reduction", lambda *args, **kwargs: ())
    assert _vector_audit(seed, stages) == with_reduction
