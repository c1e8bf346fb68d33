"""A fitted private learner survives pickle, copy.deepcopy and sklearn.base.clone with its ledger:
the round trip predicts identically and keeps the trace and the certified
guarantee. What it needs from the accountant: the guarantees hold a never-evaluated ``Max`` of
special functions, which sympy's own ``Max`` would rebuild evaluated — "not comparable" on load
(``dpledger.accountant.rules.Max`` does not); and a guarantee's cached enclosures are mpmath
intervals, whose class pickle cannot name (``Guarantee.__getstate__`` leaves caches out)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpledger.learners.agnostic import (
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
)
from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.concept_classes import Intervals
from dpledger.learners.randomness import Sampled

ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda fitted: pickle.loads(pickle.dumps(fitted)),
    "deepcopy": copy.deepcopy,
}


def fitted_agnostic(learner_class: type) -> tuple[Any, np.ndarray]:
    sample = halfspace_data(600, 3, 0.1, "random", Sampled(4))
    return learner_class(1, 1e-5, random_state=0).fit(sample.X, sample.y), sample.X


def fitted_carry_forward() -> tuple[CarryForwardLearner, np.ndarray]:
    X = np.random.default_rng(0).integers(0, 16, size=60)
    y = ((X >= 4) & (X < 9)).astype(int)
    return CarryForwardLearner(Intervals(16), m=6, random_state=0).fit(X, y), np.arange(16)


FITTED = {
    "improper": lambda: fitted_agnostic(PrivateImproperLearner),
    "proper": lambda: fitted_agnostic(PrivateProperLearner),
    "semi-agnostic": lambda: fitted_agnostic(PrivateSemiAgnosticLearner),
    "carry-forward": fitted_carry_forward,
}


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
@pytest.mark.parametrize("learner", FITTED)
def test_fitted_learner_round_trip_predicts_identically_with_the_same_guarantee(
    learner: str, round_trip: str
) -> None:
    fitted, probe = FITTED[learner]()
    epsilon_upper = (
        fitted.guarantee_.epsilon_upper
    )  # caches the enclosures (mpmath intervals) on the guarantee
    copied = ROUND_TRIPS[round_trip](fitted)
    assert np.array_equal(copied.predict(probe), fitted.predict(probe))
    assert copied.trace_ == fitted.trace_
    assert copied.guarantee_ == fitted.guarantee_
    assert copied.guarantee_.epsilon_upper == epsilon_upper
    assert copied.guarantee_.delta_upper == fitted.guarantee_.delta_upper


@pytest.mark.parametrize("learner", ["improper", "proper", "semi-agnostic"])
def test_sklearn_clone_of_a_fitted_learner_keeps_its_parameters(learner: str) -> None:
    base = pytest.importorskip("sklearn.base")
    fitted, _ = FITTED[learner]()
    clone = base.clone(fitted)
    assert clone.get_params() == fitted.get_params()
    assert not hasattr(clone, "guarantee_")


@pytest.mark.parametrize("learner", ["improper", "proper", "semi-agnostic"])
def test_get_params_returns_the_constructor_arguments_and_set_params_refuses_unknown_names(
    learner: str,
) -> None:
    fitted, _ = FITTED[learner]()
    params = fitted.get_params()
    assert params["epsilon"] == 1 and params["labels"] == (-1, 1) and params["random_state"] == 0
    assert type(fitted)(**params).get_params() == params
    assert fitted.set_params(epsilon=2).epsilon == 2
    with pytest.raises(ValueError, match="Invalid parameter 'eps'"):
        fitted.set_params(eps=2)
