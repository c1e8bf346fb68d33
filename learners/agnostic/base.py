"""What the three learners share: the estimator contract of
:class:`~dpledger.learners.estimator.PrivateClassifier` (scikit-learn's when installed) and the
ledger (``trace_`` — the event tree wrapped in the theorem's ``Claim`` —, ``derivation_`` and
``guarantee_``, the accountant's certified guarantee of the trace).

Labels are public: the constructor parameter ``labels`` = (negative, positive),
default (−1, 1), declares the label set; ``classes_`` is that pair and ``predict`` returns only
its two values, whatever the data. Reading the encoding from the labels seen by ``fit`` would
let one record decide the output space (all labels 1 → {−1, 1}, one label 0 → {0, 1}): a
neighbouring dataset identified with certainty, ε = ∞, covered by no event of the trace.
A label outside the declared set is refused in ``fit`` with a message that names only the
declared set (:func:`dpledger.learners.estimator.positive_mask`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, overload

import numpy as np

from dpledger.accountant.events import Claim, Event
from dpledger.learners.agnostic.data import check_X
from dpledger.learners.calibration.agnostic_noise import check_privacy
from dpledger.learners.estimator import PrivateClassifier, positive_mask

_LABELS_FROM_DATA = (
    "the check fits on labels it chose ({1, 2}, four classes, strings, or y = ⌊3x⌋) and expects the classifier to "
    "take its classes from y; a private learner's label set is the public pair `labels` declared before the data "
    "(here (0, 1)), since a label set read off the data lets one record decide the output space (ε = ∞), so fit "
    "refuses any other label"
)
SKLEARN_EXPECTED_FAILURES: dict[str, str] = dict.fromkeys(
    [
        "check_estimators_dtypes",
        "check_classifier_data_not_an_array",
        "check_classifiers_classes",
        "check_fit2d_1feature",
    ],
    _LABELS_FROM_DATA,
)
"""scikit-learn's ``check_estimator`` checks the three learners fail (with ``labels=(0, 1)``, the
label pair of the checks' binary data, and small block settings: the checks fit on 10 to 100
records), each with the reason it must; ``tests/learners/test_sklearn_contract.py`` runs every
other check, which must pass."""


def check_int(value: Any, name: str, low: int, high: int | None = None) -> int:
    """An integer parameter in [low, high]; ``ValueError`` naming it otherwise."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"in [{low}, {high}]" if high is not None else f"≥ {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    return int(value)


@overload
def check_real(value: Any, name: str, low: float, high: float) -> float: ...
@overload
def check_real(value: Any, name: str, low: float, high: float, *, optional: bool) -> float | None: ...
def check_real(value: Any, name: str, low: float, high: float, *, optional: bool = False) -> float | None:
    """A real parameter in (low, high]; ``ValueError`` naming it otherwise."""
    if value is None and optional:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.floating, np.integer))
        or not low < float(value) <= high
    ):
        raise ValueError(f"{name} must be a number in ({low}, {high}], got {value!r}")
    return float(value)


def private_events(*events: Event | None) -> tuple[Event, ...]:
    """The events of a private fit, each recorded (``RuntimeError`` if one is missing)."""
    if any(event is None for event in events):
        raise RuntimeError("a private fit left an event unrecorded")
    return tuple(event for event in events if event is not None)


class HalfspaceLearnerBase(PrivateClassifier):
    """Shared estimator behaviour; subclasses implement ``_fit`` and ``decision_function``."""

    statement: str = ""

    def fit(self, X: Any, y: Any) -> HalfspaceLearnerBase:
        """Run the learner on (X, y), y in the declared ``labels``; sets the ledger."""
        X = check_X(X)
        pair = self._declare_classes(X.shape[1])
        labels = np.where(positive_mask(y, X.shape[0], pair), 1.0, -1.0)
        privacy = check_privacy(self.epsilon, self.delta)
        event = self._fit(X, labels, privacy)
        if privacy is None:
            self._record(None)
        else:
            assert event is not None  # a private fit returns its event
            self._record(Claim(self._statement(), event, privacy[0], privacy[1]))
        return self

    def _fit(
        self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None
    ) -> Event | None:
        """Learn; return the event tree of the private steps (None when ``privacy`` is None)."""
        raise NotImplementedError

    def _statement(self) -> str:
        return self.statement

    def decision_function(self, X: Any) -> np.ndarray:
        raise NotImplementedError

    def _checked(self, X: Any) -> np.ndarray:
        self._check_fitted()
        X = check_X(X, min_samples=1)
        self._check_n_features(X.shape[1])
        return X

    def _positive(self, X: Any) -> np.ndarray:
        return self.decision_function(X) >= 0

    def claim_holds(self) -> bool:
        """Whether the accountant certified the theorem's claimed (ε, δ) for this run's trace."""
        if self.derivation_ is None:
            raise ValueError("no privacy claim: the learner was fitted with epsilon=None")
        return all(check.verdict.holds for check in self.derivation_.claims())
