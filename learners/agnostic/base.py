"""What the three learners share: scikit-learn conventions (``fit``/``predict``/``score``) and
the ledger (``trace_`` — the event tree wrapped in the theorem's ``Claim`` —, ``derivation_`` and
``guarantee_``, the accountant's certified guarantee of the trace).

Labels are public (issue 14, B.1): the constructor parameter ``labels`` = (negative, positive),
default (−1, 1), declares the label set; ``classes_`` is that pair and ``predict`` returns only
its two values, whatever the data. Reading the encoding from the labels seen by ``fit`` would
let one record decide the output space (all labels 1 → {−1, 1}, one label 0 → {0, 1}): a
neighbouring dataset identified with certainty, ε = ∞, covered by no event of the trace.
A label outside the declared set is refused in ``fit`` with a message that names only the
declared set (:func:`dpledger.learners.agnostic.data.check_labels`)."""
from __future__ import annotations

from fractions import Fraction
from inspect import signature
from typing import Any

import numpy as np

from dpledger.accountant import account
from dpledger.accountant.events import Claim, Event
from dpledger.learners.calibration.agnostic_noise import check_privacy
from dpledger.learners.agnostic.data import check_label_set, check_labels, check_X


def check_int(value: Any, name: str, low: int, high: int | None = None) -> int:
    """An integer parameter in [low, high]; ``ValueError`` naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f"≥ {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    return int(value)


def check_real(value: Any, name: str, low: float, high: float, *, optional: bool = False) -> float | None:
    """A real parameter in (low, high]; ``ValueError`` naming it otherwise."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) or not low < float(value) <= high:
        raise ValueError(f"{name} must be a number in ({low}, {high}], got {value!r}")
    return float(value)


class HalfspaceLearnerBase:
    """Shared estimator behaviour; subclasses implement ``_fit`` and ``decision_function``."""

    statement: str = ""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters, as stored (scikit-learn's estimator contract, so that
        ``sklearn.base.clone`` works); ``deep`` is accepted and has nothing to descend into."""
        return {name: getattr(self, name) for name in signature(type(self).__init__).parameters if name != "self"}

    def set_params(self, **params: Any) -> HalfspaceLearnerBase:
        """Set constructor parameters by name; ``ValueError`` naming an unknown one."""
        known = self.get_params()
        for name, value in params.items():
            if name not in known:
                raise ValueError(f"{name!r} is not a parameter of {type(self).__name__}; parameters: {', '.join(known)}")
            setattr(self, name, value)
        return self

    def fit(self, X: Any, y: Any) -> HalfspaceLearnerBase:
        X = check_X(X)
        classes = check_label_set(self.labels)
        labels = check_labels(y, X.shape[0], classes)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        privacy = check_privacy(self.epsilon, self.delta)
        event = self._fit(X, labels, privacy)
        self.trace_: Event | None = None
        self.derivation_ = None
        self.guarantee_ = None
        if privacy is not None:
            self.trace_ = Claim(self._statement(), event, privacy[0], privacy[1])
            self.derivation_ = account(self.trace_)
            self.guarantee_ = self.derivation_.guarantee
        return self

    def _fit(self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None) -> Event | None:
        """Learn; return the event tree of the private steps (None when ``privacy`` is None)."""
        raise NotImplementedError

    def _statement(self) -> str:
        return self.statement

    def decision_function(self, X: Any) -> np.ndarray:
        raise NotImplementedError

    def _checked(self, X: Any) -> np.ndarray:
        if not hasattr(self, "classes_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit first")
        return check_X(X, self.n_features_in_)

    def predict(self, X: Any) -> np.ndarray:
        negative, positive = self.classes_
        return np.where(self.decision_function(X) >= 0, positive, negative)

    def score(self, X: Any, y: Any) -> float:
        """Accuracy on (X, y)."""
        X = self._checked(X)
        labels = check_labels(y, X.shape[0], self.classes_)
        return float(np.mean(np.where(self.decision_function(X) >= 0, 1.0, -1.0) == labels))

    def claim_holds(self) -> bool:
        """Whether the accountant certified the theorem's claimed (ε, δ) for this run's trace."""
        if self.derivation_ is None:
            raise ValueError("no privacy claim: the learner was fitted with epsilon=None")
        return all(check.verdict.holds for check in self.derivation_.claims())
