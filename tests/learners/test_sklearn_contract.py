"""Every learner follows scikit-learn's estimator contract — check_estimator passes
apart from the listed checks that contradict differential privacy (or the public domain), each with
its reason; clone, GridSearchCV, cross_val_score and Pipeline work; classes_ is the public label
pair; model selection is accounted for; and the contract holds without scikit-learn installed."""

from __future__ import annotations

import subprocess
import sys
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer, StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from dpledger.accountant.rules import account  # noqa: E402
from dpledger.learners.agnostic import (  # noqa: E402
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
)
from dpledger.learners.agnostic.base import SKLEARN_EXPECTED_FAILURES as AGNOSTIC_FAILURES  # noqa: E402
from dpledger.learners.agnostic.base import (  # noqa: E402
    SKLEARN_EXPECTED_FAILURES_AT_DEFAULTS as AGNOSTIC_DEFAULT_FAILURES,
)
from dpledger.learners.agnostic.data import halfspace_data  # noqa: E402
from dpledger.learners.boolean.baseline import SeparateSampleLearner  # noqa: E402
from dpledger.learners.boolean.composition import BooleanComposition  # noqa: E402
from dpledger.learners.boolean.formula import parse_formula  # noqa: E402
from dpledger.learners.carry_forward import SKLEARN_EXPECTED_FAILURES as GRID_FAILURES  # noqa: E402
from dpledger.learners.carry_forward import CarryForwardLearner  # noqa: E402
from dpledger.learners.concept_classes import Intervals, Thresholds  # noqa: E402
from dpledger.learners.estimator import (  # noqa: E402
    FitParameterError,
    NonPrivateScoreWarning,
    NotFittedError,
    PrivateScorer,
    data_fitted_steps,
    search_event,
    search_guarantee,
)
from dpledger.learners.randomness import Sampled  # noqa: E402
from dpledger.learners.synthetic import random_concept  # noqa: E402

BOOLEAN = BooleanComposition(parse_formula("x1 and not x2"), [Thresholds(8), Thresholds(8)])

CHECKED: dict[str, tuple[Any, dict[str, str]]] = {
    "improper": (
        PrivateImproperLearner(
            1, 1e-5, n_blocks=1, steps=5, logistic_share=None, labels=(0, 1), random_state=0
        ),
        AGNOSTIC_FAILURES,
    ),
    "proper": (
        PrivateProperLearner(
            1,
            1e-5,
            degree=1,
            cover_resolution=0.5,
            n_thresholds=5,
            logistic_fraction=None,
            labels=(0, 1),
            random_state=0,
        ),
        AGNOSTIC_FAILURES,
    ),
    "semi-agnostic": (
        PrivateSemiAgnosticLearner(
            1, 1e-5, n_guesses=1, steps=1, logistic_fraction=None, labels=(0, 1), random_state=0
        ),
        AGNOSTIC_FAILURES,
    ),
    "improper (defaults)": (
        PrivateImproperLearner(1, 1e-5, labels=(0, 1), random_state=0),
        AGNOSTIC_DEFAULT_FAILURES,
    ),
    "proper (defaults)": (
        PrivateProperLearner(1, 1e-5, labels=(0, 1), random_state=0),
        AGNOSTIC_DEFAULT_FAILURES,
    ),
    "semi-agnostic (defaults)": (
        PrivateSemiAgnosticLearner(1, 1e-5, labels=(0, 1), random_state=0),
        AGNOSTIC_FAILURES,
    ),
    "carry-forward": (CarryForwardLearner(Thresholds(16), m=2, random_state=0), GRID_FAILURES),
    "separate-sample": (SeparateSampleLearner(BOOLEAN, m=2, random_state=0), GRID_FAILURES),
}


@pytest.mark.parametrize("name", CHECKED)
def test_check_estimator_passes_every_check_but_the_listed_ones_and_each_listed_one_fails(name: str) -> None:
    estimator, expected = CHECKED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None, on_skip=None)
    failed = {r["check_name"]: repr(r["exception"]) for r in results if r["status"] == "failed"}
    assert failed == {}
    expected_failures = {
        r["check_name"] for r in results if r["status"] == "xfail" and r["exception"] is not None
    }
    assert expected_failures == set(expected), "a listed check no longer fails: remove it from the list"
    assert sum(r["status"] == "passed" for r in results) >= 20


def agnostic_sample(n: int = 600, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    sample = halfspace_data(n, 3, 0.05, "random", Sampled(seed))
    return sample.X, sample.y


def interval_sample(n: int = 90, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(seed).integers(0, 16, size=(n, 1))
    return X, ((X[:, 0] >= 4) & (X[:, 0] < 9)).astype(int)


LEARNERS = {
    "improper": lambda: PrivateImproperLearner(1, 1e-5, random_state=0),
    "proper": lambda: PrivateProperLearner(1, 1e-5, random_state=0),
    "semi-agnostic": lambda: PrivateSemiAgnosticLearner(1, 1e-5, random_state=0),
    "carry-forward": lambda: CarryForwardLearner(Intervals(16), m=6, random_state=0),
    "separate-sample": lambda: SeparateSampleLearner(BOOLEAN, m=4, random_state=0),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_clone_gives_an_unfitted_learner_with_the_same_parameters(name: str) -> None:
    learner = LEARNERS[name]()
    copy = clone(learner)
    assert copy is not learner
    assert {k: repr(v) for k, v in copy.get_params().items()} == {
        k: repr(v) for k, v in learner.get_params().items()
    }
    with pytest.raises(NotFittedError, match="not fitted"):
        copy.predict(np.zeros((2, 1)))


@pytest.mark.parametrize("name", ["improper", "proper", "semi-agnostic"])
def test_classes_are_the_declared_pair_even_when_the_data_hold_one_label(name: str) -> None:
    X, _ = agnostic_sample(300)
    learner = LEARNERS[name]().set_params(labels=("no", "yes")).fit(X, np.full(300, "yes"))
    assert learner.classes_.tolist() == ["no", "yes"]
    assert set(learner.predict(X).tolist()) <= {"no", "yes"}


def test_carry_forward_classes_are_the_declared_pair_and_predictions_use_them() -> None:
    X, y = interval_sample()
    learner = CarryForwardLearner(Intervals(16), m=6, labels=(-1, 1), random_state=0).fit(
        X, np.where(y == 1, 1, -1)
    )
    assert learner.classes_.tolist() == [-1, 1]
    assert set(learner.predict(np.arange(16)).tolist()) <= {-1, 1}
    assert learner.n_features_in_ == 1


def test_separate_sample_learner_refuses_a_fractional_label_instead_of_truncating_it_to_zero() -> None:
    X = np.random.default_rng(0).integers(0, 8, size=(40, 1))
    y = np.zeros(40)
    y[5] = 0.7  # np.asarray(y, dtype=int64) would read this as 0
    with pytest.raises(ValueError, match=r"outside the declared labels \(0, 1\)\. Only") as refused:
        SeparateSampleLearner(BOOLEAN, m=4, random_state=0).fit(X, y)
    assert "0.7" not in str(refused.value)


@pytest.mark.parametrize("name", LEARNERS)
def test_every_fitted_learner_has_the_same_ledger(name: str) -> None:
    if name == "separate-sample":
        X = np.random.default_rng(0).integers(0, 8, size=(60, 1))
        y = BOOLEAN.evaluate(random_concept(BOOLEAN, np.random.default_rng(1)), X)
    else:
        X, y = interval_sample() if name == "carry-forward" else agnostic_sample()
    learner = LEARNERS[name]().fit(X, y)
    assert account(learner.trace_).guarantee == learner.guarantee_ == learner.derivation_.guarantee
    assert learner.guarantee_.epsilon_upper > 0


def test_predict_refuses_a_different_number_of_features_in_scikit_learns_words() -> None:
    X, y = interval_sample()
    learner = CarryForwardLearner(Intervals(16), m=6, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but CarryForwardLearner is expecting 1 features"):
        learner.predict(np.zeros((3, 2)))


def test_a_seed_sequence_child_seeds_the_learner_reproducibly_and_a_generator_advances() -> None:
    X, y = agnostic_sample()
    root = np.random.SeedSequence(2026)
    _, learner_seed = root.spawn(2)
    fit = lambda state: PrivateProperLearner(1, 1e-5, random_state=state).fit(X, y).coef_  # noqa: E731
    assert np.array_equal(fit(np.random.SeedSequence(2026).spawn(2)[1]), fit(learner_seed))
    generator = np.random.default_rng(5)
    learner = PrivateProperLearner(1, 1e-5, random_state=generator)
    first, second = learner.fit(X, y).coef_.copy(), learner.fit(X, y).coef_.copy()
    assert not np.array_equal(first, second)


def test_cross_val_score_and_a_pipeline_run_the_private_learner_and_warn_that_exact_scores_are_not_private() -> (
    None
):
    X, y = agnostic_sample(900)
    pipeline = make_pipeline(StandardScaler(), PrivateSemiAgnosticLearner(1, 1e-5, random_state=0))
    with pytest.warns(NonPrivateScoreWarning, match="not differentially private.*PrivateScorer"):
        scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.shape == (3,) and np.all((0 <= scores) & (scores <= 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonPrivateScoreWarning)  # the user's own call: no warning
        assert pipeline.fit(X, y).score(X, y) > 0.5
        assert PrivateScorer(1, random_state=0)(PrivateProperLearner(1, 1e-5).fit(X, y), X, y) > 0.5


def test_the_accuracy_scorer_of_a_grid_search_warns_too() -> None:
    X, y = agnostic_sample(300)
    search = GridSearchCV(
        PrivateProperLearner(1, 1e-5, random_state=0), {"degree": [1]}, cv=2, scoring="accuracy"
    )
    with pytest.warns(NonPrivateScoreWarning):
        search.fit(X, y)


def grid_search_data(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == "separate-sample":
        X = np.random.default_rng(0).integers(0, 8, size=(120, 1))
        return X, BOOLEAN.evaluate(random_concept(BOOLEAN, np.random.default_rng(1)), X)
    return interval_sample(180) if name == "carry-forward" else agnostic_sample(600)


GRIDS: dict[str, dict[str, list[Any]]] = {
    "improper": {"steps": [3, 5]},  # an int parameter named like Pipeline.steps
    "proper": {"degree": [1, 2]},
    "semi-agnostic": {"steps": [2, 4]},
    "carry-forward": {"m": [4, 8]},
    "separate-sample": {"m": [2, 4]},
}


@pytest.mark.parametrize("in_pipeline", [False, True], ids=["learner", "pipeline"])
@pytest.mark.parametrize("name", LEARNERS)
def test_grid_search_tunes_every_learner_of_the_docs_and_accounts_every_fit_score_and_the_refit(
    name: str, in_pipeline: bool
) -> None:
    X, y = grid_search_data(name)
    learner, grid = LEARNERS[name](), GRIDS[name]
    if in_pipeline:  # a data-independent step first; the last step carries the ledger
        learner = make_pipeline(FunctionTransformer(lambda Z: Z), learner)
        grid = {f"{learner.steps[-1][0]}__{key}": values for key, values in grid.items()}
    scorer = PrivateScorer(epsilon=Fraction(1, 2), random_state=0)
    search = GridSearchCV(learner, grid, cv=2, scoring=scorer, error_score="raise").fit(X, y)
    assert len(search_event(search, scorer).children) == 2 * 2 + 2 * 2 + 1
    refit = search.best_estimator_.steps[-1][1] if in_pipeline else search.best_estimator_
    fits = [*scorer.fits, refit.trace_]
    total = sum(Fraction(account(t).guarantee.epsilon_upper) for t in fits) + 4 * Fraction(1, 2)
    assert search_guarantee(search, scorer).epsilon_upper >= float(total) * (1 - 1e-12)


def test_private_scorer_refuses_a_pipeline_step_fitted_on_the_data_and_names_the_alternative() -> None:
    X, y = agnostic_sample(600)
    pipeline = make_pipeline(StandardScaler(), PrivateProperLearner(1, 1e-5, random_state=0))
    assert data_fitted_steps(pipeline) == ["standardscaler (StandardScaler)"]
    assert (
        data_fitted_steps(make_pipeline(FunctionTransformer(), "passthrough", PrivateProperLearner())) == []
    )
    with pytest.raises(
        ValueError,
        match=r"standardscaler \(StandardScaler\) learns from the private data.*FunctionTransformer",
    ):
        cross_val_score(pipeline, X, y, cv=2, scoring=PrivateScorer(1), error_score="raise")


def test_cross_val_score_with_a_private_scorer_composes_its_fits_and_scores() -> None:
    X, y = agnostic_sample(600)
    scorer = PrivateScorer(epsilon=1, random_state=0)
    cross_val_score(
        PrivateProperLearner(1, 1e-5, random_state=0), X, y, cv=3, scoring=scorer, error_score="raise"
    )
    assert account(scorer.event()).guarantee.epsilon_upper >= 6


@pytest.mark.parametrize("name", LEARNERS)
def test_sample_weight_is_refused_with_its_reason_also_through_a_search(name: str) -> None:
    X, y = grid_search_data(name)
    with pytest.raises(FitParameterError, match="sample_weight is not supported: the privacy guarantee"):
        LEARNERS[name]().fit(X, y, sample_weight=np.ones(len(y)))
    search = GridSearchCV(LEARNERS[name](), GRIDS[name], cv=2, error_score="raise")
    with pytest.raises(ValueError, match="sample_weight is not supported"):
        search.fit(X, y, sample_weight=np.ones(len(y)))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        LEARNERS[name]().fit(X, y, weights=None)


@pytest.mark.parametrize("name", LEARNERS)
def test_decision_function_is_positive_exactly_where_predict_gives_the_positive_class(name: str) -> None:
    X, y = grid_search_data(name)
    learner = LEARNERS[name]().fit(X, y)
    scores = learner.decision_function(X)
    assert scores.shape == (len(X),) and np.array_equal(
        scores >= 0, learner.predict(X) == learner.classes_[1]
    )
    assert not hasattr(learner, "predict_proba")  # no model of P(y | x): docs/learners.md


def test_grid_search_tunes_carry_forward_and_the_search_is_accounted_fit_by_fit() -> None:
    X, y = interval_sample(180)
    scorer = PrivateScorer(epsilon=Fraction(1, 2), random_state=0)
    search = GridSearchCV(
        CarryForwardLearner(Intervals(16), random_state=0), {"m": [4, 8]}, cv=3, scoring=scorer
    )
    search.fit(X, y)
    assert search.best_params_["m"] in (4, 8)
    event = search_event(search, scorer)
    assert len(event.children) == 2 * 3 + 2 * 3 + 1  # fits, noisy scores, refit
    fits = [*scorer.fits, search.best_estimator_.trace_]
    total = sum(Fraction(account(t).guarantee.epsilon_upper) for t in fits) + 6 * Fraction(1, 2)
    guarantee = search_guarantee(search, scorer)
    assert guarantee.epsilon_upper >= float(total) * (1 - 1e-12)
    assert guarantee.epsilon_upper > 6 * max(account(t).guarantee.epsilon_upper for t in fits)


def test_search_event_refuses_a_search_whose_fits_the_scorer_did_not_all_see() -> None:
    X, y = interval_sample(180)
    scorer = PrivateScorer(epsilon=1, random_state=0)
    search = GridSearchCV(
        CarryForwardLearner(Intervals(16), random_state=0), {"m": [4, 8]}, cv=3, scoring=scorer
    ).fit(X, y)
    scorer.fits.pop()
    with pytest.raises(ValueError, match="recorded 5 fits but the search ran 6"):
        search_event(search, scorer)


def test_private_scorer_refuses_a_learner_fitted_without_privacy() -> None:
    X, y = agnostic_sample(300)
    learner = PrivateProperLearner(None, None, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="fitted without privacy"):
        PrivateScorer(1)(learner, X, y)


FALLBACK = """
import sys
sys.modules["sklearn"] = None  # scikit-learn not installed
import numpy as np
from dpledger.learners.agnostic import PrivateProperLearner
from dpledger.learners.estimator import PrivateClassifier, NotFittedError
assert PrivateClassifier.__mro__[1].__name__ == "_MinimalEstimator"
learner = PrivateProperLearner(0.5, labels=(0, 1), random_state=3)
params = learner.get_params()
assert params["epsilon"] == 0.5 and params["labels"] == (0, 1)
assert type(learner)(**params).get_params() == params
assert repr(learner) == "PrivateProperLearner(epsilon=0.5, labels=(0, 1), random_state=3)", repr(learner)
try:
    learner.set_params(eps=1)
except ValueError as error:
    assert "Invalid parameter 'eps'" in str(error)
else:
    raise AssertionError("unknown parameter accepted")
try:
    learner.predict(np.zeros((2, 3)))
except NotFittedError as error:
    assert isinstance(error, ValueError) and isinstance(error, AttributeError)
X = np.random.default_rng(0).normal(size=(1000, 3))
y = (X[:, 0] > 0).astype(int)
assert learner.fit(X, y).score(X, y) > 0.5 and learner.classes_.tolist() == [0, 1]
print("ok")
"""


def test_without_scikit_learn_the_learners_keep_the_same_parameter_interface() -> None:
    result = subprocess.run([sys.executable, "-c", FALLBACK], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@pytest.mark.parametrize("X", [[["secret-a", 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0]]], ids=["text", "ragged"])
def test_non_numeric_features_are_refused_without_echoing_the_data(X: list) -> None:
    with pytest.raises(ValueError, match="X must be a rectangular array of real numbers") as refused:
        PrivateProperLearner(1, 1e-5).fit(X, [1, -1])
    assert isinstance(refused.value, TypeError) and "secret" not in str(refused.value)


def test_carry_forward_refuses_a_label_outside_its_declared_pair_without_echoing_it() -> None:
    X, y = interval_sample()
    y = y.astype(float)
    y[7] = 0.25
    with pytest.raises(ValueError, match=r"outside the declared labels \(0, 1\)") as refused:
        CarryForwardLearner(Intervals(16), m=6, random_state=0).fit(X, y)
    assert "0.25" not in str(refused.value)
