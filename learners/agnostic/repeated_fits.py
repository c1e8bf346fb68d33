"""Repeated fits of a learner on a neighbouring pair (D, D′), the runs the Monte Carlo auditor
attacks (the audit itself is :mod:`dpledger.verify.audit.montecarlo.learner_adapter`).

:class:`LearnerFactory` is the picklable ``factory(random_state) -> estimator`` that
``dpledger.verify.audit.montecarlo.learner_adapter.audit_learner`` expects (module-level, so it runs on
process or Dask executors); :func:`neighbour_runs` is the same loop in-process, returning the
released outputs — the fitted classifier's ±1 predictions on public probe points, a
post-processing of the model — of ``runs`` fits on D and on D′.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.learners.agnostic.base import HalfspaceLearnerBase
from dpledger.learners.agnostic.data import check_X
from dpledger.learners.agnostic.improper import PrivateImproperLearner
from dpledger.learners.agnostic.proper import PrivateProperLearner
from dpledger.learners.agnostic.semi_agnostic import PrivateSemiAgnosticLearner

LEARNERS: dict[str, type[HalfspaceLearnerBase]] = {
    "improper": PrivateImproperLearner,
    "proper": PrivateProperLearner,
    "semi-agnostic": PrivateSemiAgnosticLearner,
}


@dataclass(frozen=True)
class LearnerFactory:
    """``factory(seed)`` = the named learner with ``params`` and ``random_state=seed``."""

    algorithm: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.algorithm not in LEARNERS:
            raise ValueError(f"algorithm must be one of {tuple(LEARNERS)}, got {self.algorithm!r}")

    def __call__(self, random_state: Any) -> HalfspaceLearnerBase:
        return LEARNERS[self.algorithm](**dict(self.params), random_state=random_state)


def substitute_one(
    X: np.ndarray, y: np.ndarray, index: int, x_new: np.ndarray, y_new: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The substitute-one neighbour of (X, y): record ``index`` replaced by (x_new, y_new)."""
    X_prime, y_prime = np.array(X, dtype=float), np.array(y)
    X_prime[index] = x_new
    y_prime[index] = y_new
    return X_prime, y_prime


def neighbour_runs(
    factory: LearnerFactory,
    pair: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    probe: np.ndarray,
    runs: int,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """(runs, len(probe)) predictions on D and on D′; run i uses random_state seed + i on both."""
    probe = check_X(probe, min_samples=1)
    (X, y), (X_prime, y_prime) = pair
    first = np.array([factory(seed + i).fit(X, y).predict(probe) for i in range(runs)])
    second = np.array([factory(seed + i).fit(X_prime, y_prime).predict(probe) for i in range(runs)])
    return first, second
