"""Fits and statistic values kept across the stages of an audit give the numbers refitting gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, search
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace
from dpledger.verify.audit.montecarlo.events import Identity
from dpledger.verify.audit.montecarlo.executors import InProcessExecutor
from dpledger.verify.audit.montecarlo.search import learned


def test_fits_reuse_a_fit_on_the_same_first_runs_refit_on_more_and_keep_the_latest_two():
    fits, made = search.Fits(), []

    def fit():
        made.append(Identity())
        return made[-1]

    first = fits.get(0, "distinguisher", (100, 100), fit)
    assert fits.get(0, "distinguisher", (100, 100), fit) is first and len(made) == 1
    assert fits.get(1, "distinguisher", (100, 100), fit) is not first  # another pair
    larger = fits.get(0, "distinguisher", (200, 100), fit)
    assert larger is not first and fits.holds(larger) and fits.holds(first)
    assert fits.get(0, "distinguisher", (100, 100), fit) is first and len(made) == 3  # the stage's fit, kept
    largest = fits.get(0, "distinguisher", (400, 100), fit)
    assert fits.holds(largest) and fits.holds(larger) and not fits.holds(first)


def _vector_audit(seed: int) -> dict:
    pairs = [NeighbourPair(np.zeros(6), np.ones(6), "0 vs 1")]
    result = audit(
        Laplace(6.0),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
        pairs,
        1.0,
        samples=40_000,
        stages=4,
        seed=seed,
        executor=InProcessExecutor(),
    )
    payload = result.to_json()
    payload.pop("seconds")
    return payload


@pytest.mark.parametrize("seed", [0, 3])
def test_audit_with_fits_kept_across_stages_equals_the_audit_that_refits_every_stage(monkeypatch, seed):
    monkeypatch.setattr(learned, "DISTINGUISHER_ROWS", 400)  # caps reached from the second stage on
    monkeypatch.setattr(learned, "TIED_ROWS", 1000)
    calls: list[int] = []
    original = learned.fit_distinguisher

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(learned, "fit_distinguisher", counted)
    kept = _vector_audit(seed)
    fits_kept = len(calls)
    monkeypatch.setattr(search.Fits, "get", lambda self, pair, kind, rows, fit: fit())
    monkeypatch.setattr(search.Fits, "holds", lambda self, statistic: False)
    assert _vector_audit(seed) == kept
    assert fits_kept < len(calls) - fits_kept  # fewer fits when kept
