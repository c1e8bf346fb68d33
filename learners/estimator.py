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
composes them with the refit into one event for the accountant (``docs/learners.md``). A
``Pipeline``'s ledger is its last step's (:func:`final_estimator`, by ``isinstance``, never by an
attribute name); :class:`PrivateScorer` refuses a pipeline with a step fitted on the data
(:func:`data_fitted_steps`), and a fitted learner's outputs warn
(:class:`NonPrivateScoreWarning`) when scikit-learn's own scorers call them — exact accuracies of
the folds, from which the search chooses, are not private releases.

Fitting accepts no ``sample_weight``: the guarantees are stated for neighbouring datasets of
unit-weight records, and a weight lets one record count as many (:func:`refuse_fit_params`).
"""

from __future__ import annotations

import sys
import warnings
from functools import cache
from inspect import Parameter, signature
from types import FrameType
from typing import Any

import numpy as np
from scipy.sparse import issparse

from dpledger.accountant.events import Composition, Event
from dpledger.accountant.guarantee import Guarantee
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


class NonPrivateScoreWarning(UserWarning):
    """A fitted private learner's output (``score``, ``predict``, ``decision_function``) computed
    for one of scikit-learn's own scorers: the exact accuracy of a fold is not a private release."""


_SCORED_EXACTLY = (
    "a scikit-learn scorer (scoring=None, 'accuracy', …) is scoring a private learner with exact "
    "accuracies: a search or cross-validation that chooses or reports from them is not differentially "
    "private, whatever each fit's guarantee; pass scoring=dpledger.PrivateScorer(epsilon) to release "
    "noisy scores and account the whole search (search_guarantee; it also refuses pipeline steps "
    "fitted on the data, such as a StandardScaler)"
)
_SCORER_MODULE = "sklearn.metrics._scorer"
_OWN_MODULE = __name__
_STACK_DEPTH = 16
"""How many frames above a learner's output :func:`_scored_by_sklearn` reads: the scorer, a
response helper and a few nested pipelines lie within it."""


def _scored_by_sklearn() -> bool:
    """Whether the nearest scorer among the calling frames is scikit-learn's (its module
    ``sklearn.metrics._scorer``) rather than :class:`PrivateScorer` (this module)."""
    frame: FrameType | None = sys._getframe(2)
    for _ in range(_STACK_DEPTH):
        if frame is None:
            return False
        module = frame.f_globals.get("__name__", "")
        if module == _SCORER_MODULE:
            return True
        if module == _OWN_MODULE and frame.f_code.co_name == "__call__":
            return False
        frame = frame.f_back
    return False


class FitParameterError(ValueError, TypeError):
    """A keyword argument ``fit`` does not take: a ValueError (this project's rule for bad input)
    and a TypeError (what Python raises for an unexpected keyword)."""


def refuse_fit_params(fit_params: dict[str, Any]) -> None:
    """Refuse every extra keyword argument of ``fit``; ``sample_weight`` with the reason a private
    fit has none (module doc). The learners declare no ``sample_weight`` parameter, so
    scikit-learn's ``has_fit_parameter`` reports correctly that they do not support it.

    Args:
        fit_params: the keyword arguments ``fit`` received beyond its own.

    Raises:
        FitParameterError: ``fit_params`` is not empty.
    """
    if "sample_weight" in fit_params:
        raise FitParameterError(
            "sample_weight is not supported: the privacy guarantee is stated for neighbouring datasets of "
            "unit-weight records, and a weight lets one record count as many; fit on the records as they are"
        )
    if fit_params:
        raise FitParameterError(f"fit() got unexpected keyword argument(s): {', '.join(sorted(fit_params))}")


@cache
def _pipeline_type() -> type | None:
    """``sklearn.pipeline.Pipeline``, or None without scikit-learn (imported on first use)."""
    try:
        from sklearn.pipeline import Pipeline
    except ImportError:  # pragma: no cover - the fallback test blocks scikit-learn in a subprocess
        return None
    return Pipeline


def _is_pipeline(estimator: Any) -> bool:
    pipeline = _pipeline_type()
    return pipeline is not None and isinstance(estimator, pipeline)


def final_estimator(estimator: Any) -> Any:
    """The estimator that carries the ledger: a ``Pipeline``'s last step (of the innermost
    pipeline), otherwise ``estimator`` itself.

    Args:
        estimator: a fitted learner or a ``sklearn.pipeline.Pipeline`` ending in one.

    Returns:
        The learner whose ``trace_`` accounts the fit.
    """
    while _is_pipeline(estimator):
        estimator = estimator.steps[-1][1]
    return estimator


def data_fitted_steps(estimator: Any, prefix: str = "") -> list[str]:
    """The steps of a ``Pipeline`` before its last that learn from the data they are fitted on
    (scikit-learn's ``requires_fit`` tag: ``StandardScaler`` learns means and variances,
    ``FunctionTransformer`` and ``Normalizer`` learn nothing), as "name (Type)"; nested pipelines
    are read through. Such a step is a release about the data that no event covers.

    Args:
        estimator: any estimator; only a ``Pipeline`` has steps to report.
        prefix: prepended to each step name (the path of a nested pipeline).

    Returns:
        The offending steps, in pipeline order (empty for a plain learner).
    """
    if not _is_pipeline(estimator):
        return []
    *transformers, (last_name, last) = estimator.steps
    fitted = [found for name, step in transformers for found in _fitted_transformer(step, prefix + name)]
    return fitted + data_fitted_steps(last, f"{prefix}{last_name}__")


def _fitted_transformer(step: Any, name: str) -> list[str]:
    """``step`` (named ``name``) as "name (Type)" when it learns from data; every such step of a
    nested pipeline; else nothing."""
    if step is None or (isinstance(step, str) and step == "passthrough"):
        return []
    if _is_pipeline(step):
        return [
            found for inner, part in step.steps for found in _fitted_transformer(part, f"{name}__{inner}")
        ]
    from sklearn.utils import get_tags

    return [f"{name} ({type(step).__name__})"] if get_tags(step).requires_fit else []


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
        """``NotFittedError`` before ``fit``; a :class:`NonPrivateScoreWarning` when one of
        scikit-learn's scorers asks for this output (module doc)."""
        if not hasattr(self, "classes_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")
        if _scored_by_sklearn():
            warnings.warn(_SCORED_EXACTLY, NonPrivateScoreWarning, stacklevel=3)

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

    def decision_function(self, X: Any) -> np.ndarray:
        """+1 where the fitted concept predicts ``classes_[1]``, −1 elsewhere (scikit-learn's sign
        convention). The grid learners' hypotheses are {0, 1}-valued concepts with no margin, so
        the score is the concept's value; learners whose model has a real-valued score override it.

        Args:
            X: points to score, as for ``predict``.

        Returns:
            A float array of ±1, one per row of X.
        """
        self._check_fitted()
        return np.where(self._positive(X), 1.0, -1.0)

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
        """Release the noisy accuracy of the fitted ``estimator`` on (X, y) and record its events.

        Args:
            estimator: a fitted learner, or a ``Pipeline`` whose last step is one and whose other
                steps learn nothing from the data.
            X: the fold's features.
            y: the fold's labels.

        Returns:
            (number correct + discrete Laplace noise of scale 1/ε) / len(y).

        Raises:
            ValueError: the learner was fitted without privacy, or a pipeline step was fitted on the
                data (no event covers it).
        """
        fitted_steps = data_fitted_steps(estimator)
        if fitted_steps:
            raise ValueError(
                f"pipeline step {', '.join(fitted_steps)} learns from the private data and no event covers "
                "it; use data-independent steps (FunctionTransformer with public constants, Normalizer) "
                "so that the search is private"
            )
        learner = final_estimator(estimator)
        trace = getattr(learner, "trace_", None)
        if trace is None:
            raise ValueError(
                f"{type(learner).__name__} was fitted without privacy (trace_ is None); "
                "a private search needs private fits"
            )
        correct = float(np.sum(np.asarray(estimator.predict(X), dtype=object) == np.asarray(y, dtype=object)))
        noisy, event = laplace_noise(correct, float(1 / self.epsilon), 1, self._rng)
        self.fits.append(trace)
        self.scores.append(event)
        return float(noisy) / len(y)

    def event(self) -> Composition:
        """Basic composition of every fit and noisy score recorded so far: the event of a
        ``cross_val_score`` run with this scorer (a search adds its refit, :func:`search_event`).

        Returns:
            The composition (Σε, Σδ) of the recorded fits and scores.
        """
        return Composition(children=(*self.fits, *self.scores), method="basic")


def search_event(search: Any, scorer: PrivateScorer) -> Composition:
    """The event of a whole ``GridSearchCV``/``RandomizedSearchCV`` run scored by ``scorer``:
    basic composition (Σε, Σδ) of every fit (candidates × folds), every noisy score and the
    refit ``search.best_estimator_`` when there is one (a pipeline's last step). Basic
    composition holds whatever the folds share; it charges each fit in full although a record
    sits in only some folds.

    Args:
        search: a fitted search whose ``scoring`` was ``scorer``.
        scorer: the :class:`PrivateScorer` that scored every fold.

    Returns:
        The composition of the fits, the noisy scores and the refit.

    Raises:
        ValueError: the scorer did not see every fit of the search (a parallel search, a second
            search, train scores, a fit that failed), the refit pipeline has a data-fitted step,
            ``scorer`` is not a :class:`PrivateScorer` or ``search`` is not a fitted search.
    """
    if not isinstance(scorer, PrivateScorer):
        raise ValueError(f"scorer must be a PrivateScorer, got {type(scorer).__name__}")
    results = getattr(search, "cv_results_", None)
    splits = getattr(search, "n_splits_", None)
    if not isinstance(results, dict) or "params" not in results or not isinstance(splits, int):
        raise ValueError(
            f"search must be a fitted GridSearchCV or RandomizedSearchCV, got {type(search).__name__}"
        )
    n_fits = len(results["params"]) * splits
    if len(scorer.fits) != n_fits:
        raise ValueError(
            f"the scorer recorded {len(scorer.fits)} fits but the search ran {n_fits}: run the search "
            "with n_jobs=None, one scorer per search, and return_train_score=False"
        )
    refit = getattr(search, "best_estimator_", None)
    if refit is None:
        return scorer.event()
    if data_fitted_steps(refit):
        raise ValueError(
            f"the refit pipeline's step {', '.join(data_fitted_steps(refit))} learns from the data"
        )
    return Composition(children=(*scorer.event().children, final_estimator(refit).trace_), method="basic")


def search_guarantee(search: Any, scorer: PrivateScorer) -> Guarantee:
    """The certified guarantee of :func:`search_event` (the accountant's derivation).

    Args:
        search: A fitted ``GridSearchCV`` (or another search) scored by ``scorer``.
        scorer: The :class:`PrivateScorer` the search used.

    Returns:
        The certified :class:`Guarantee` of the whole search.

    Raises:
        ValueError: as :func:`search_event`.
    """
    return account(search_event(search, scorer)).guarantee


__all__ = [
    "DataConversionWarning",
    "FitParameterError",
    "NonPrivateScoreWarning",
    "NotFittedError",
    "PrivateClassifier",
    "PrivateScorer",
    "check_features",
    "check_label_set",
    "data_fitted_steps",
    "final_estimator",
    "positive_mask",
    "refuse_fit_params",
    "require_y",
    "search_event",
    "search_guarantee",
]
