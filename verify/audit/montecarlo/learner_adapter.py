"""Audit learners through the mechanism interface.

A learner becomes a mechanism on datasets ``(X, y)``: each run builds a fresh estimator from a
factory ``factory(random_state) -> estimator`` (scikit-learn conventions: ``fit(X, y)``),
fits it, and maps the fitted estimator to an output with a *featurizer* — e.g. its predictions
at a few probe points (:class:`PredictionsAt`), or a fitted parameter. Neighbour datasets come
from :func:`dpledger.verify.audit.montecarlo.pairs.canary_pairs`. Runs cannot batch, so the mechanism is a
:func:`dpledger.verify.audit.montecarlo.mechanism.per_sample` one; the factory and featurizer must be
module-level (picklable) to run on process or Dask executors.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.audit import AuditResult, audit
from dpledger.verify.audit.montecarlo.mechanism import PerSample, per_sample
from dpledger.verify.audit.montecarlo.pairs import canary_pairs

SEED_BOUND = 2**63 - 1


@dataclass(frozen=True)
class _FitOnce:
    factory: Callable[[int], Any]
    featurize: Callable[[Any], Any]

    def __call__(self, data: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> Any:
        features, labels = data
        estimator = self.factory(int(rng.integers(SEED_BOUND)))
        estimator.fit(features, labels)
        return self.featurize(estimator)


def learner_mechanism(factory: Callable[[int], Any], featurize: Callable[[Any], Any]) -> PerSample:
    """The mechanism ``(X, y) ↦ featurize(factory(seed).fit(X, y))`` with a fresh seed per run."""
    return per_sample(_FitOnce(factory, featurize))


@dataclass(frozen=True, eq=False)
class PredictionsAt:
    """Featurizer: the fitted estimator's predictions at fixed probe points (one label per point)."""

    points: np.ndarray

    def __call__(self, estimator: Any) -> np.ndarray:
        return np.asarray(estimator.predict(self.points))


def audit_learner(
    factory: Callable[[int], Any],
    featurize: Callable[[Any], Any],
    features: np.ndarray,
    labels: np.ndarray,
    canary_features: np.ndarray,
    canary_label: Any,
    claimed_epsilon: float,
    *,
    executor: Executor | None = None,
    relation: str = "substitute",
    **options: Any,
) -> AuditResult:
    """Audit a learner on the canary pairs of ``(features, labels)`` (substitution; with
    ``relation="both"`` also addition, see :func:`dpledger.verify.audit.montecarlo.pairs.canary_pairs`).

    ``options`` are passed to :func:`dpledger.verify.audit.montecarlo.audit.audit` (delta, samples, confidence,
    seed, …).
    """
    pairs = canary_pairs(features, labels, canary_features, canary_label, relation=relation)
    return audit(learner_mechanism(factory, featurize), pairs, claimed_epsilon, executor=executor, **options)
