"""Audit learners through the mechanism interface.

A learner becomes a mechanism on datasets ``(X, y)``: each run builds a fresh estimator from a
factory ``factory(random_state) -> estimator`` (scikit-learn conventions: ``fit(X, y)``),
fits it, and maps the fitted estimator to an output with a *featurizer* — e.g. its predictions
at a few probe points (:class:`PredictionsAt`), its decision values there (:class:`DecisionsAt`,
the released hypothesis itself for a linear one), or a fitted parameter. Neighbour datasets come
from :func:`dpledger.verify.audit.montecarlo.pairs.canary_pairs` (a canary in data of the user's)
or :func:`dpledger.verify.audit.montecarlo.pairs.hard_learner_pairs` (datasets chosen to be hard:
identical records, canaries at the domain's extreme — :func:`audit_learner_hard`). Runs cannot
batch, so the mechanism is a :func:`dpledger.verify.audit.montecarlo.mechanism.per_sample` one;
factories and featurizers defined anywhere reach process or Dask workers through ``cloudpickle``.

Why hard pairs and not random data: a learner's privacy loss on a pair is
largest where one record moves a released statistic by its full sensitivity and nothing else in
the data masks it — identical records (every block of a partition is the same, so only the block
holding the changed record differs) and a changed record at the extreme of the domain (the
clipping radius, where the statistic moves by the whole Δ). Random data dilutes the change:
an agnostic learner with noise 10× too small is not flagged on random data (bound 0.029) but is
flagged on identical records. The datasets are also as small as the learner accepts
(:func:`smallest_size`): the fewer the records, the likelier the changed one lands in the block
whose release is selected (a random partition amplifies privacy like subsampling).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.audit import MonteCarloAuditResult, audit
from dpledger.verify.audit.montecarlo.mechanism import PerSample, per_sample
from dpledger.verify.audit.montecarlo.pairs import canary_pairs, hard_learner_pairs

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


@dataclass(frozen=True, eq=False)
class DecisionsAt:
    """Featurizer: the fitted estimator's ``decision_function`` at fixed points. At the origin and
    the unit vectors (:func:`probe_points`) these are (b, b + w₁, …, b + w_d): the released
    hypothesis x ↦ ⟨w, x⟩ + b itself, for a linear one; a post-processing of it otherwise."""

    points: np.ndarray

    def __call__(self, estimator: Any) -> np.ndarray:
        return np.asarray(estimator.decision_function(self.points), dtype=float)


@dataclass(frozen=True)
class FittedState:
    """Featurizer: the fitted attributes ``names`` of the estimator, flattened and concatenated.

    A fitted estimator releases all its state (whoever gets the model gets its attributes), so a
    learner's privacy claim must cover the noisy statistics it keeps (a correlation vector, block
    coefficients), not only its predictions; auditing them audits the release where a noise bug
    is least masked by the selection steps that follow it."""

    names: tuple[str, ...]

    def __call__(self, estimator: Any) -> np.ndarray:
        parts = []
        for name in self.names:
            value = getattr(estimator, name)
            if value is None:  # a step the fit did not take (the improper learner's subspace step)
                continue
            # a list attribute (the improper learner's block coefficients) may hold vectors of different lengths
            parts += [
                np.ravel(np.asarray(part, dtype=float))
                for part in (value if isinstance(value, list) else [value])
            ]
        return np.concatenate(parts)


def probe_points(dimension: int) -> np.ndarray:
    """The origin and the d unit vectors of R^d."""
    return np.vstack([np.zeros(dimension), np.eye(dimension)])


MAX_RECORDS = 100_000
"""Largest dataset size :func:`smallest_size` tries."""


def smallest_size(factory: Callable[[int], Any], dimension: int, labels: tuple[Any, Any] = (-1, 1)) -> int:
    """The smallest number of records on which ``factory(0)`` fits (doubling, then bisection on
    identical records; a learner refuses too small data with a ``ValueError``). Assumes that a
    learner accepting n records accepts more."""
    refusal = ""

    def fits(n: int) -> bool:
        nonlocal refusal
        try:
            factory(0).fit(np.ones((n, dimension)), np.full(n, labels[1]))
        except ValueError as error:
            refusal = str(error)
            return False
        return True

    high = 1
    while not fits(high):
        high *= 2
        if high > MAX_RECORDS:
            raise ValueError(
                f"the learner fits on no dataset of up to {MAX_RECORDS} records (dimension {dimension}): "
                f"{refusal}"
            )
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return high


def audit_learner_hard(
    factory: Callable[[int], Any],
    claimed_epsilon: float,
    *,
    dimension: int,
    records: int | None = None,
    labels: tuple[Any, Any] = (-1, 1),
    extreme: float = 10.0,
    featurize: Callable[[Any], Any] | None = None,
    executor: Executor | None = None,
    **options: Any,
) -> MonteCarloAuditResult:
    """Audit a learner's released hypothesis on neighbouring datasets chosen to be hard
    (:func:`~dpledger.verify.audit.montecarlo.pairs.hard_learner_pairs`: identical records, one
    label changed; canaries at the domain's extreme), of ``records`` records (default: the fewest
    the learner accepts, :func:`smallest_size`) in ``dimension`` dimensions. The release is
    ``featurize`` of the fitted estimator (default :class:`DecisionsAt` the :func:`probe_points`).
    ``options`` go to :func:`~dpledger.verify.audit.montecarlo.audit.audit` (claimed_delta, samples,
    confidence, seed, stages, on_progress, timeout)."""
    size = smallest_size(factory, dimension, labels) if records is None else records
    pairs = hard_learner_pairs(size, dimension, labels=labels, extreme=extreme)
    release = featurize if featurize is not None else DecisionsAt(probe_points(dimension))
    return audit(learner_mechanism(factory, release), pairs, claimed_epsilon, executor=executor, **options)


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
) -> MonteCarloAuditResult:
    """Audit a learner on the canary pairs of ``(features, labels)`` (substitution; with
    ``relation="both"`` also addition, see :func:`dpledger.verify.audit.montecarlo.pairs.canary_pairs`).

    ``options`` are passed to :func:`dpledger.verify.audit.montecarlo.audit.audit` (claimed_delta, samples, confidence,
    seed, …).
    """
    pairs = canary_pairs(features, labels, canary_features, canary_label, relation=relation)
    return audit(learner_mechanism(factory, featurize), pairs, claimed_epsilon, executor=executor, **options)
