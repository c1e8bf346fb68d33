"""The estimator contract every learner follows: scikit-learn's when it is installed, the same
behaviour without it (scikit-learn stays an optional dependency, ``dpledger[sklearn]``).

:class:`PrivateClassifier` is ``sklearn.base.ClassifierMixin`` + ``sklearn.base.BaseEstimator``
when scikit-learn imports, so ``clone``, ``GridSearchCV``, ``cross_val_score`` and ``Pipeline``
take the learners as they are; otherwise :class:`_MinimalEstimator` gives the same
``get_params``/``set_params``/``score``. On top of either base the class fixes what a *private*
learner must do differently from an ordinary classifier:

* **Public labels.** The label set is the constructor parameter ``labels`` = (negative, positive);
  ``classes_`` is that pair as an array (``classes_[1]`` the positive class, scikit-learn's
  binary convention), never read from ``y``: reading the label encoding off the data lets one
  record decide the output space (ε = ∞, covered by no event). A label outside the pair is a
  ``ValueError`` whose message names only the declared pair, never a value of the data.
* **The ledger.** Every fitted learner holds ``trace_`` (the event tree of its private steps,
  :mod:`dpledger.accountant.events`), ``derivation_`` (the accountant's derivation of it) and
  ``guarantee_`` (the certified (ε, δ) of that derivation) — all three None when privacy is off.
* **One seeding rule.** ``random_state`` is None, an int ≥ 0, a ``numpy.random.SeedSequence`` or
  a ``numpy.random.Generator``; ``fit`` builds one :class:`~dpledger.learners.randomness.Sampled`
  from it and every exact sampler of that fit draws from it in program order. None, an int or a
  SeedSequence start a fresh ``numpy.random.default_rng`` on every fit (same value, same
  output); a Generator is used as it is, so its stream advances from fit to fit.

Model selection costs privacy: every fit is a release. :class:`PrivateScorer` is a scorer for
``GridSearchCV``/``cross_val_score`` that releases each fold's accuracy with exact discrete
Laplace noise and records the events of every fit and score it sees; :func:`search_event`
composes them with the refit into one event for the accountant (``docs/learners.md``).
"""

from __future__ import annotations

import warnings
from inspect import Parameter, signature
from typing import Any

import numpy as np
from scipy.sparse import issparse

from dpledger.accountant.events import Composition, Event
from dpledger.accountant.rules import Derivation, account
from dpledger.learners.noise import laplace_noise
from dpledger.learners.randomness import Sampled, as_fraction

try:  # scikit-learn is optional: the learners are its estimators when it is installed
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import DataConversionWarning, NotFittedError
except (
    ImportError
):  # pragma: no cover - exercised by tests/learners/test_sklearn_contract.py with the import blocked
    BaseEstimator = ClassifierMixin = None

    class DataConversionWarning(UserWarning):  # type: ignore[no-redef]
        """Input converted to the shape the estimator expects (as in scikit-learn)."""

    class NotFittedError(ValueError, AttributeError):  # type: ignore[no-redef]
        """An estimator used before ``fit`` (a ValueError and an AttributeError, as in scikit-learn)."""


class _MinimalEstimator:
    """The parameter interface without scikit-learn: the constructor's parameters read back by
    name, set by name (``component__name`` for a nested estimator), and a repr of them."""

    @classmethod
    def _parameter_names(cls) -> list[str]:
        parameters = signature(cls.__init__).parameters.values()
        return sorted(
            p.name
            for p in parameters
            if p.name != "self" and p.kind not in (Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD)
        )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = {name: getattr(self, name) for name in self._parameter_names()}
        if deep:
            for name, value in list(params.items()):
                if hasattr(value, "get_params") and not isinstance(value, type):
                    params.update({f"{name}__{key}": inner for key, inner in value.get_params().items()})
        return params

    def set_params(self, **params: Any) -> _MinimalEstimator:
        names = self._parameter_names()
        for key, value in params.items():
            name, _, inner = key.partition("__")
            if name not in names:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {names!r}."
                )
            if inner:
                getattr(self, name).set_params(**{inner: value})
            else:
                setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in signature(type(self).__init__).parameters.values()}
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params(deep=False).items()
            if not _same(value, defaults.get(name, Parameter.empty))
        ]
        return f"{type(self).__name__}({', '.join(changed)})"


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value is default or value == default)
    except (TypeError, ValueError):  # arrays and the like compare elementwise
        return False


class NonNumericError(ValueError, TypeError):
    """Input that is not an array of numbers: a ValueError (this project's rule for bad input)
    and a TypeError (what numpy and scikit-learn raise for it)."""


_BASES: tuple[type, ...] = (
    (ClassifierMixin, BaseEstimator) if BaseEstimator is not None else (_MinimalEstimator,)
)


def check_label_set(labels: Any) -> tuple[Any, Any]:
    """The declared label set (negative, positive): two distinct labels, both numbers (not NaN)
    or both strings; ``ValueError`` naming ``labels`` otherwise. Only what the user passed is echoed."""
    if (
        isinstance(labels, (str, bytes))
        or not isinstance(labels, (tuple, list, np.ndarray))
        or len(labels) != 2
    ):
        raise ValueError(f"labels must be a pair (negative, positive), got {labels!r}")
    numbers = [
        isinstance(label, (int, float, np.integer, np.floating))
        and not isinstance(label, (bool, np.bool_))
        and not np.isnan(label)
        for label in labels
    ]
    if not (all(numbers) or all(isinstance(label, str) for label in labels)):
        raise ValueError(f"labels must be two numbers or two strings, got {labels!r}")
    negative, positive = labels
    if negative == positive:
        raise ValueError(f"labels must be two distinct labels, got {labels!r}")
    return negative, positive


def check_features(X: Any, *, flat: bool = False, min_samples: int = 2) -> np.ndarray:
    """X as a finite float array of shape (n, d) — or (n,) when ``flat`` (one-feature domains
    written as a vector) — with n ≥ ``min_samples`` (2 for fit, 1 for predict) and d ≥ 1;
    ``ValueError`` naming X otherwise (sparse, complex, non-numeric, NaN or infinite input,
    wrong rank), in scikit-learn's wording where it has one."""
    if issparse(X):
        raise ValueError("X: sparse input is not supported; pass a dense array (X.toarray())")
    try:
        array = np.asarray(X)
        if array.dtype.kind != "c":
            array = array.astype(float)
    except (TypeError, ValueError):  # ragged lists, strings, other objects; the message echoes no value of X
        raise NonNumericError(
            "X must be a rectangular array of real numbers: every argument must be a number "
            "or a string holding a number"
        ) from None
    if array.dtype.kind == "c":
        raise ValueError("Complex data not supported (X)")
    if array.ndim != 2 and not (flat and array.ndim == 1):
        raise ValueError(
            f"X must be a 2-d array (n_samples, n_features), got shape {array.shape}. Reshape your "
            "data with X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if it is one sample."
        )
    if array.ndim == 2 and array.shape[1] == 0:
        raise ValueError(f"X has 0 feature(s) (shape={array.shape}) while a minimum of 1 is required.")
    if array.shape[0] < min_samples:
        raise ValueError(
            f"X has {array.shape[0]} sample(s) (shape={array.shape}) while a minimum of {min_samples} is required."
        )
    if not np.all(np.isfinite(array)):
        raise ValueError("X contains non-finite values (NaN or infinity)")
    return array


def require_y(y: Any) -> None:
    """``ValueError`` (in scikit-learn's wording) when the labels are missing."""
    if y is None:
        raise ValueError("this learner requires y to be passed, but the target y is None")


def positive_mask(y: Any, n: int, labels: tuple[Any, Any]) -> np.ndarray:
    """Which entries of y are the positive label, for y in the declared pair ``labels``.

    A label outside the pair raises ``ValueError`` with a fixed message: an error is an output,
    so it names neither the offending value nor its position or count (only n, which
    neighbouring datasets share). Whether an error is raised at all does depend on the data: a
    dataset with such a label is outside the domain the privacy guarantee is stated on."""
    require_y(y)
    array = np.asarray(y, dtype=object)
    if array.ndim == 2 and array.shape[1:] == (1,):
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it is read as y.ravel()",
            DataConversionWarning,
            stacklevel=3,
        )
        array = array.reshape(-1)
    if array.ndim != 1 or array.shape[0] != n:
        raise ValueError(f"y must be a 1-d array of length n={n}, got shape {array.shape}")
    negative, positive = labels
    is_positive = np.asarray(array == positive, dtype=bool)
    if not np.all(is_positive | np.asarray(array == negative, dtype=bool)):
        raise ValueError(
            f"y contains a label outside the declared labels {tuple(labels)!r}. Only binary "
            "classification is supported, with the label pair declared up front by the parameter "
            "`labels` (never read from y); multiclass and continuous targets are refused."
        )
    return is_positive


class PrivateClassifier(*_BASES):  # type: ignore[misc]
    """Base of every learner: the public label set, the ledger, the X shape check, accuracy.

    Subclasses keep the scikit-learn rule: ``__init__`` stores its arguments unchanged (one
    attribute per parameter, among them ``labels`` and ``random_state``), ``fit`` validates them
    and sets attributes ending in ``_``."""

    def __sklearn_tags__(self) -> Any:  # only reached through scikit-learn, whose base defines it
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # binary: the label set is a public pair
        tags.classifier_tags.poor_score = True  # private at small n: noise dominates
        tags.non_deterministic = self.random_state is None or isinstance(
            self.random_state, np.random.Generator
        )
        return tags

    # -- fit helpers ----------------------------------------------------------------------

    def _declare_classes(self, n_features: int) -> tuple[Any, Any]:
        """Validate ``labels``, set ``classes_`` and ``n_features_in_``; return the pair."""
        pair = check_label_set(self.labels)
        self.classes_ = np.array(pair)
        self.n_features_in_ = int(n_features)
        return pair

    def _sampler(self) -> Sampled:
        """The one randomness source of a fit (module doc: the seeding rule)."""
        return Sampled(self.random_state)

    def _record(self, trace: Event | None) -> None:
        """Set the ledger: ``trace_``, its ``derivation_`` and certified ``guarantee_``."""
        self.trace_: Event | None = trace
        self.derivation_: Derivation | None = None if trace is None else account(trace)
        self.guarantee_ = None if self.derivation_ is None else self.derivation_.guarantee

    # -- after fit ------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "classes_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def _check_n_features(self, n_features: int) -> None:
        if n_features != self.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input"
            )

    def _positive(self, X: Any) -> np.ndarray:
        """Boolean array: where the fitted hypothesis predicts the positive class."""
        raise NotImplementedError

    def predict(self, X: Any) -> np.ndarray:
        """The fitted hypothesis' labels, values of ``classes_`` only."""
        self._check_fitted()
        return np.where(self._positive(X), self.classes_[1], self.classes_[0])

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy on (X, y) (weighted by ``sample_weight`` when given); y must be in ``classes_``.
        Not a private release: see :class:`PrivateScorer` for scoring private data."""
        self._check_fitted()
        positive = self._positive(X)
        truth = positive_mask(y, positive.shape[0], tuple(self.classes_.tolist()))
        return float(np.average(positive == truth, weights=sample_weight))


class PrivateScorer:
    """A scorer for ``GridSearchCV(scoring=...)`` and ``cross_val_score(scoring=...)`` that keeps
    the search private: called as ``scorer(fitted, X_fold, y_fold)`` it releases the fold's
    accuracy as (number correct + exact discrete Laplace noise of scale 1/ε)/n — the count has
    sensitivity 1 under substitution and the fold size n is public — and records the fitted
    learner's ``trace_`` and the score's ``DiscreteLaplace`` event. Every number the search
    exposes (the noisy scores, hence ``best_params_``, and the refit) is then covered by
    :func:`search_event`. Run the search in one process (``n_jobs=None``): the records are kept
    in this object, and :func:`search_event` refuses a search whose fits it did not all see. For
    a ``Pipeline`` the ledger is its last step's; its other steps must be data-independent."""

    def __init__(self, epsilon: Any = 1.0, random_state: Any = None) -> None:
        self.epsilon = as_fraction(epsilon, "epsilon")
        if self.epsilon <= 0:
            raise ValueError(f"epsilon must be positive, got {epsilon!r}")
        self.fits: list[Event] = []
        self.scores: list[Event] = []
        self._rng = Sampled(random_state)

    def __call__(self, estimator: Any, X: Any, y: Any) -> float:
        learner = (
            estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
        )  # a Pipeline's last step
        trace = getattr(learner, "trace_", None)
        if trace is None:
            raise ValueError(
                f"{type(estimator).__name__} was fitted without privacy (trace_ is None); "
                "a private search needs private fits"
            )
        correct = float(np.sum(np.asarray(estimator.predict(X), dtype=object) == np.asarray(y, dtype=object)))
        noisy, event = laplace_noise(correct, float(1 / self.epsilon), 1, self._rng)
        self.fits.append(trace)
        self.scores.append(event)
        return float(noisy) / len(y)


def search_event(search: Any, scorer: PrivateScorer) -> Composition:
    """The event of a whole ``GridSearchCV``/``RandomizedSearchCV`` run scored by ``scorer``:
    basic composition (Σε, Σδ) of every fit (candidates × folds), every noisy score and the
    refit ``search.best_estimator_`` when there is one. Basic composition holds whatever the
    folds share; it charges each fit in full although a record sits in only some folds."""
    n_fits = len(search.cv_results_["params"]) * search.n_splits_
    if len(scorer.fits) != n_fits:
        raise ValueError(
            f"the scorer recorded {len(scorer.fits)} fits but the search ran {n_fits}: run the search "
            "with n_jobs=None, one scorer per search, and return_train_score=False"
        )
    refit = getattr(search, "best_estimator_", None)
    children = [*scorer.fits, *scorer.scores, *([] if refit is None else [refit.trace_])]
    return Composition(children=tuple(children), method="basic")


def search_guarantee(search: Any, scorer: PrivateScorer) -> Any:
    """The certified guarantee of :func:`search_event` (the accountant's derivation).

    Args:
        search: A fitted ``GridSearchCV`` (or another search) scored by ``scorer``.
        scorer: The :class:`PrivateScorer` the search used.

    Returns:
        The certified :class:`Guarantee` of the whole search.
    """
    return account(search_event(search, scorer)).guarantee


__all__ = [
    "DataConversionWarning",
    "NotFittedError",
    "PrivateClassifier",
    "PrivateScorer",
    "check_features",
    "check_label_set",
    "positive_mask",
    "require_y",
    "search_event",
    "search_guarantee",
]
