"""CarryForwardLearner — Algorithm 2 of seed 000 (Sections 4–7).

A proper private learner that builds c_{y1..yk} one component at a time: a value-independent
partition into W^init, W^(0), W^(1) (line 4); R_0 and the preliminary LabelBoost (lines 6–7);
rounds i = 1..k with the oracle call (line 9), the carrier T_i from reservoir (i−1) mod 2
sampled without replacement (line 13), LabelBoost over C(y≤i) (line 14) and
S_i = U(T_i)^{h_i} (line 15). Subsets are drawn in uniformly random order, which is the
shuffle of Remark 6.7 for order-sensitive oracles.

Lemma 5.2 is checked at run time: before every oracle call the state must be a realizable
prefix state, witnessed by the hypothesis LabelBoost selected; a violation raises
:class:`InvariantViolation` (an internal error, never silently passed).

The trace is the Section 6 event tree built from the oracle events actually recorded and the
(m, n) actually used (:func:`dpledger.accountant.section6.learner_event`), with each reservoir's
activations composed optimally (the tightest certified accounting; never weaker than the
paper's advanced composition of Corollary 6.11, whose claims stay in the tree as ``Claim``
nodes); ``guarantee_`` is what the accountant derives from it, whatever m was chosen.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import Event
from dpledger.accountant.section6 import Target, learner_event, needed_n, paper_m, tight_m, tight_n
from dpledger.learners.calibration.sample_size import UtilityTarget, labelboost_term
from dpledger.learners.completion_scores import restrict
from dpledger.learners.component_oracles import (
    CompletionScoreOracle,
    ComponentOracle,
    completion_oracle_m,
    largest_component_domain,
)
from dpledger.learners.concept_classes import Components, ConceptClass, Intervals, Rectangles, Thresholds
from dpledger.learners.estimator import (
    PrivateClassifier,
    check_features,
    positive_mask,
    refuse_fit_params,
    require_y,
)
from dpledger.learners.labelboost import check_trace_work, labelboost
from dpledger.learners.randomness import as_fraction
from dpledger.learners.trace_counting import best_agreement

CALIBRATIONS = ("paper", "tight")

_GRID = (
    "the learner's records are points of the concept class's finite public grid [0, N)^d, d fixed by the "
    "class before any data (the domain on which Definition 3.2's neighbours and the Section 6 accounting "
    "are stated); scikit-learn's generated data are real-valued with 2 to 10 features, so fit refuses them"
)
SKLEARN_EXPECTED_FAILURES: dict[str, str] = {
    **dict.fromkeys(
        [
            "check_fit_score_takes_y",
            "check_estimators_overwrite_params",
            "check_dont_overwrite_parameters",
            "check_estimators_fit_returns_self",
            "check_readonly_memmap_input",
            "check_n_features_in_after_fitting",
            "check_positive_only_tag_during_fit",
            "check_estimators_dtypes",
            "check_dtype_object",
            "check_pipeline_consistency",
            "check_estimators_nan_inf",
            "check_estimators_pickle",
            "check_f_contiguous_array_estimator",
            "check_classifier_data_not_an_array",
            "check_classifiers_classes",
            "check_classifiers_train",
            "check_classifiers_regression_target",
            "check_supervised_y_2d",
            "check_classifier_not_supporting_multiclass",
            "check_methods_sample_order_invariance",
            "check_methods_subset_invariance",
            "check_fit2d_1feature",
            "check_dict_unchanged",
            "check_fit_idempotent",
            "check_fit_check_is_fitted",
            "check_n_features_in",
            "check_fit2d_predict1d",
        ],
        _GRID,
    ),
    "check_classifiers_one_label": (
        "a private learner cannot be certain to predict the only label it saw: on 10 records the output of "
        "Algorithm 2 must stay (ε, δ)-close to its output on a neighbour with the other label, so it need not "
        "return the seen label everywhere"
    ),
}
"""scikit-learn's ``check_estimator`` checks this learner fails, each with the reason it must
(``tests/learners/test_sklearn_contract.py`` runs every other check, which must pass)."""


class UtilityWarning(UserWarning):
    """A fitted CarryForwardLearner errs more than its target α on held-out data, or no better
    than the best constant hypothesis there."""


class InvariantViolation(RuntimeError):
    """Lemma 5.2 failed: an oracle would be called on a state that is not a realizable prefix state."""


@dataclass(frozen=True)
class RoundTelemetry:
    """Utility telemetry of round i (Lemma 7.1): ``oracle_disagreement`` is
    min_{g ∈ C(y≤i)} disc_{U(S_{i−1})}(g, h_{i−1}) (the oracle's τ), ``labelboost_disagreement``
    is disc_{U(S_{i−1})}(g_i, h_{i−1}) for the hypothesis LabelBoost selected (≤ 2τ on the
    success event), ``population_disagreement`` the same on a held-out sample when given."""

    round: int
    component: Any
    oracle_disagreement: float
    labelboost_disagreement: float
    population_disagreement: float | None
    bound: float

    @property
    def above_bound(self) -> bool:
        """Whether LabelBoost's disagreement exceeds 2τ: outside Lemma 7.1's success event."""
        return self.labelboost_disagreement > self.bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "component": jsonable(self.component),
            "oracle_disagreement": self.oracle_disagreement,
            "labelboost_disagreement": self.labelboost_disagreement,
            "population_disagreement": self.population_disagreement,
            "two_tau": self.bound,
            "above_two_tau": self.above_bound,
        }


HOLDOUT_NOTE = (
    "measured on held-out records the learner did not train on: post-processing of the released model on "
    "data outside the private sample, so no privacy cost (the held-out data itself is not protected)"
)


@dataclass(frozen=True)
class SampleSizeCheck:
    """Theorem 5.1 for one fit: the utility target (α, β), Theorem 7.2's active sample size
    m_needed = max(LabelBoost term, M_A) (``m_oracle`` None when the learner does not know the
    oracle's M_A), the run's m and the n its calibration needs to give m_needed (the paper's
    formula for "paper", the tight accounting for "tight"; None for a given m). The guarantee
    err ≤ α with probability ≥ 1 − β applies only when ``meets``; since m grows with n under
    either calibration, m ≥ m_needed ⟺ n ≥ ``n_needed``. A function of public values only
    (n, k, v, α, β, ε, δ, the oracle)."""

    alpha: float
    beta: float
    n: int
    m: int
    calibration: str
    m_labelboost: int
    m_oracle: int | None
    n_needed: int | None

    @property
    def m_needed(self) -> int | None:
        return None if self.m_oracle is None else max(self.m_labelboost, self.m_oracle)

    @property
    def meets(self) -> bool | None:
        """m ≥ m_needed; None when M_A is unknown."""
        return None if self.m_needed is None else self.m >= self.m_needed

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "beta": self.beta,
            "n": self.n,
            "m": self.m,
            "calibration": self.calibration,
            "labelboost_term": self.m_labelboost,
            "labelboost_constant": "SUBSTITUTE c = 1 (Theorem 3.10's universal constant is not stated)",
            "M_A": self.m_oracle,
            "m_needed": self.m_needed,
            "n_needed": self.n_needed,
            "meets": self.meets,
        }

    def to_text(self) -> str:
        """One sentence: what Theorem 5.1 needs and whether this run has it."""
        head = f"Theorem 5.1 for (α, β) = ({self.alpha:g}, {self.beta:g}): "
        if self.m_needed is None:
            return head + (
                f"not assessed — the learner does not know this oracle's M_A (LabelBoost term "
                f"{self.m_labelboost}; `dpledger calibrate` computes the theorem's n for the paper's oracles)"
            )
        needs = (
            f"m ≥ {self.m_needed} (Theorem 7.2: max(M_A = {self.m_oracle}, LabelBoost term {self.m_labelboost} "
            f"with SUBSTITUTE c = 1))"
        )
        where = (
            ""
            if self.n_needed is None
            else f", which {self.calibration} calibration reaches at n ≥ {self.n_needed:,}"
        )
        if self.meets:
            return head + f"needs {needs}{where}; this run has m = {self.m} at n = {self.n:,}: met"
        return head + (
            f"needs {needs}{where}; this run has m = {self.m} at n = {self.n:,}: NOT met — the utility "
            "guarantee does not apply at this n"
        )


@dataclass(frozen=True)
class Utility:
    """Test error of a fitted CarryForwardLearner on held-out (X, y) against the target α and the
    best constant hypothesis on the same records (:data:`HOLDOUT_NOTE`), with the warnings a reader
    of a privacy verdict must not miss."""

    test_error: float
    constant_error: float
    alpha: float
    size: int

    @property
    def warnings(self) -> list[str]:
        found = []
        if self.test_error > self.alpha:
            found.append(f"the test error {self.test_error:.4g} exceeds the target α = {self.alpha:g}")
        if self.test_error >= self.constant_error:
            found.append(
                f"a constant hypothesis errs {self.constant_error:.4g} ≤ {self.test_error:.4g}: the learner does "
                "no better than predicting one label everywhere"
            )
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "test_error": self.test_error,
            "constant_error": self.constant_error,
            "alpha": self.alpha,
            "holdout_size": self.size,
            "warnings": self.warnings,
            "note": HOLDOUT_NOTE,
        }


def jsonable(value: Any) -> Any:
    """A component (or tuple of components) as JSON: numpy scalars as numbers, exact rationals
    as strings, tuples as lists."""
    if isinstance(value, tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Fraction):
        return str(value)
    return value


def grid_points(C: ConceptClass, X: Any, estimator: str, min_samples: int = 1) -> np.ndarray:
    """X as integer points of the class's grid: shape (n, d), or (n,) when d = 1; ``ValueError``
    naming X (in scikit-learn's wording for a wrong number of features) otherwise."""
    array = check_features(X, flat=C.dimension == 1, min_samples=min_samples)
    if array.ndim == 2 and array.shape[1] != C.dimension:
        raise ValueError(
            f"X has {array.shape[1]} features, but {estimator} is expecting {C.dimension} "
            f"features as input (the dimension of {C!r})"
        )
    if np.any(array != np.round(array)):
        raise ValueError("X must hold integer grid points")
    try:
        return C.points(array.astype(np.int64))
    except ValueError as error:
        raise ValueError(f"X: {error}") from error


@dataclass
class _State:
    prefix: Components
    X: np.ndarray
    y: np.ndarray
    witness: Components
    rounds: list[RoundTelemetry] = field(default_factory=list)


class CarryForwardLearner(PrivateClassifier):
    """CarryForwardLearner (Algorithm 2) with scikit-learn's estimator contract
    (:class:`~dpledger.learners.estimator.PrivateClassifier`).

    Parameters: ``concept_class`` (k components), ``oracle`` (Assumption 4.4; default the
    completion-score exponential mechanism with ε_A = 4), target ``epsilon`` ∈ (0, 1] and
    ``delta`` ∈ (0, 1) (Lemma 6.12), ``alpha``, ``beta`` ∈ (0, 1) with δ ≤ β (Theorem 5.1);
    ``m``: the active sample size, or None for ``calibration`` = "tight" (the default: the
    largest m the certified tight accounting allows, so the largest active sample and the best
    chance of Theorem 5.1's m for (α, β)) or "paper" (Algorithm 2 line 2); ``labels`` = (negative,
    positive), the public label pair (default (0, 1): the class's 0/1 values; ``classes_``);
    ``random_state`` as in :mod:`dpledger.learners.estimator`. X holds points of the class's
    grid, shape (n, d) — or (n,) for one-dimensional classes; ``n_features_in_`` is d.

    What is private: ``hypothesis_`` (and so ``predict``), covered by ``trace_``/``guarantee_``;
    ``m_`` is a function of the public n, k, ε, δ, and ``sample_size_``
    (:class:`SampleSizeCheck`: whether n meets Theorem 5.1's sample size for (α, β)) of those,
    α, β and the oracle; :meth:`utility` measures the test error on held-out records the caller
    supplies (post-processing). ``telemetry`` (default False) asks for
    ``rounds_`` (Lemma 7.1's telemetry): exact disagreements on the active samples, a diagnostic
    for verifying utility, computed without noise and covered by no event of the trace. It is
    not computed unless asked for, and a pickled or copied model leaves it out unless
    ``telemetry`` is True — never release a model fitted with it."""

    def __init__(
        self,
        concept_class: ConceptClass,
        oracle: ComponentOracle | None = None,
        epsilon: float | str | Fraction = 1.0,  # read exactly
        delta: float | str | Fraction = 1e-6,
        alpha: float = 0.1,
        beta: float = 0.1,
        m: int | None = None,
        calibration: str = "tight",
        random_state: Any = None,
        labels: tuple[Any, Any] = (0, 1),
        telemetry: bool = False,
    ) -> None:
        self.concept_class = concept_class
        self.oracle = oracle
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.beta = beta
        self.m = m
        self.calibration = calibration
        self.random_state = random_state
        self.labels = labels
        self.telemetry = telemetry

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle or copy: without ``rounds_`` unless ``telemetry`` is True."""
        state = dict(self.__dict__)
        if self.telemetry is not True:
            state.pop("rounds_", None)
        return state

    # -- validation -----------------------------------------------------------------------

    def _validated(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, ComponentOracle]:
        require_y(y)
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value < 1:
                raise ValueError(f"{name} must be in (0, 1), got {value!r}")
        if not isinstance(self.telemetry, bool):
            raise ValueError(f"telemetry must be True or False, got {self.telemetry!r}")
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {self.calibration!r}")
        if not isinstance(self.delta, (int, float, str, Fraction)) or _exceeds(self.delta, self.beta):
            shown = self.delta if len(str(self.delta)) <= 30 else f"a number of {len(str(self.delta))} digits"
            raise ValueError(f"delta must be ≤ beta (Theorem 5.1), got delta={shown}, beta={self.beta}")
        if not isinstance(self.concept_class, ConceptClass):
            raise ValueError(f"concept_class must be a ConceptClass, got {type(self.concept_class).__name__}")
        points = grid_points(self.concept_class, X, type(self).__name__, min_samples=2)
        labels = positive_mask(y, len(points), self._declare_classes(self.concept_class.dimension))
        oracle = self.oracle if self.oracle is not None else CompletionScoreOracle()
        if not isinstance(oracle, ComponentOracle):
            raise ValueError(f"oracle must be a ComponentOracle or None, got {type(oracle).__name__}")
        if oracle.k is not None and oracle.k != self.concept_class.k:
            raise ValueError(
                f"the oracle is built for k = {oracle.k} components, the class has k = {self.concept_class.k}"
            )
        return points, labels.astype(np.int64), oracle

    def _active_size(self, target: Target) -> int:
        if self.m is not None:
            if (
                isinstance(self.m, bool)
                or not isinstance(self.m, (int, np.integer))
                or not 1 <= self.m <= target.block_size
            ):
                raise ValueError(f"m must be an integer in [1, ⌊n/3⌋ = {target.block_size}], got {self.m!r}")
            return int(self.m)
        m = paper_m(target)
        if m < 1 and self.calibration == "paper":
            raise ValueError(
                f"n = {target.n} is too small: Algorithm 2 gives m = 0; m ≥ 1 needs n ≥ {needed_n(target)}"
            )
        if self.calibration == "tight":
            tight = tight_m(target, m)
            if tight is None:
                raise ValueError(
                    f"n = {target.n} is too small: no m ≥ 1 meets (ε, δ) = ({float(target.epsilon):g}, "
                    f"{float(target.delta):g}) even under the tight accounting; m = 1 needs n ≥ {tight_n(target, 1)}"
                )
            return tight
        return m

    def _sample_size_check(self, target: Target, oracle: ComponentOracle, m: int) -> SampleSizeCheck:
        """Theorem 5.1 at the fit's public values: Theorem 7.2's m for (α, β) and the n the
        calibration needs for it (:class:`SampleSizeCheck`)."""
        C = self.concept_class
        run = UtilityTarget.of(
            "Theorem 5.1", C.k, C.vc_dimension, self.alpha, self.beta, target.epsilon, target.delta
        )
        m_oracle = oracle_requirement(C, oracle, run)
        check = SampleSizeCheck(
            float(self.alpha),
            float(self.beta),
            target.n,
            m,
            self.calibration if self.m is None else "given",
            labelboost_term(run),
            m_oracle,
            None,
        )
        if check.m_needed is None or check.calibration == "given":
            return check
        n_needed = (
            needed_n(target, check.m_needed)
            if check.calibration == "paper"
            else tight_n(target, check.m_needed, high_block=needed_n(target, check.m_needed) // 3 + 1)
        )
        return dataclasses.replace(check, n_needed=n_needed)

    # -- Algorithm 2 ----------------------------------------------------------------------

    def fit(
        self,
        X: Any,
        y: Any,
        X_holdout: Any = None,
        *,
        on_progress: Callable[[int, int], None] | None = None,
        **fit_params: Any,
    ) -> CarryForwardLearner:
        """Run Algorithm 2 on (X, y); ``X_holdout`` (unlabeled points) adds population
        disagreements to the round telemetry (``telemetry=True`` only). ``on_progress(done,
        total)``, when given, is called after each of the 2k + 2 steps (the preliminary LabelBoost,
        each round's oracle call and its LabelBoost with telemetry, the accounting); nothing is
        printed. No other keyword argument, ``sample_weight`` among them
        (:func:`~dpledger.learners.estimator.refuse_fit_params`)."""
        refuse_fit_params(fit_params)
        report = on_progress or (lambda done, total: None)
        points, labels, oracle = self._validated(X, y)
        C = self.concept_class
        target = Target.of(len(points), C.k, self.epsilon, self.delta)
        m = self._active_size(target)
        per_m = 1 if C.k == 1 else 2  # line 7 runs LabelBoost on m records, line 14 on S∘T of 2m
        check_trace_work(
            C,
            per_m * m,
            f"; Algorithm 2 runs it on {per_m}m records: use m ≤ {(C.trace_records_limit() or 0) // per_m:,}",
        )
        rng = self._sampler()
        holdout = None if X_holdout is None else C.points(X_holdout)
        block = target.block_size
        tau = self.alpha / (40 * C.k)
        # line 4: value-independent partition into W^init, W^(0), W^(1)
        order = rng.permutation(len(points))
        reservoirs = [order[j * block : (j + 1) * block] for j in range(3)]
        # lines 6–7: R_0 ⊆ W^init and the preliminary LabelBoost over C
        r0 = reservoirs[0][rng.subset(block, m)]
        first = labelboost(C, points[r0], labels[r0], points[:0], rng)
        state = _State((), points[r0], first.labeled, first.hypothesis)
        steps = 2 * C.k + 2
        report(1, steps)
        oracle_events: list[Event] = []
        for i in range(1, C.k + 1):
            self._check_lemma_5_2(state)
            component = oracle.select(C, state.prefix, state.X, state.y, rng)  # line 9
            extended = (*state.prefix, component)
            if not C.prefix_valid(extended):
                raise InvariantViolation(
                    f"oracle returned {component!r}: {extended} is not a valid prefix (Assumption 4.4)"
                )
            oracle_events.append(oracle.event(C, state.prefix, m))  # |S_{i−1}| = m
            report(2 * i, steps)
            if i == C.k:  # lines 11–12
                if self.telemetry:
                    state.rounds.append(
                        self._telemetry(i, component, state, extended, extended, holdout, tau)
                    )
                report(2 * i + 1, steps)
                state.prefix = extended
                break
            carrier = reservoirs[1 + (i - 1) % 2][rng.subset(block, m)]  # line 13
            result = labelboost(restrict(C, extended), state.X, state.y, points[carrier], rng)  # line 14
            if self.telemetry:
                state.rounds.append(
                    self._telemetry(i, component, state, extended, result.hypothesis, holdout, tau)
                )
            state = _State(
                extended, points[carrier], result.carrier, result.hypothesis, state.rounds
            )  # line 15
            report(2 * i + 1, steps)
        self.hypothesis_ = state.prefix
        self.m_ = m
        self.sample_size_ = self._sample_size_check(target, oracle, m)
        if self.telemetry:
            self.rounds_ = state.rounds
        else:
            self.__dict__.pop("rounds_", None)
        self._record(learner_event(target, m, oracle_events, "optimal"))
        assert self.guarantee_ is not None  # the learner's event was just recorded
        self.holds_ = self.guarantee_.meets(target.epsilon, target.delta).holds
        report(steps, steps)
        return self

    def _check_lemma_5_2(self, state: _State) -> None:
        """Lemma 5.2: S_{i−1} = U(S_{i−1})^{h_{i−1}} for a witness h_{i−1} ∈ C(y≤i−1)."""
        C, h = self.concept_class, state.witness
        if not C.contains(h) or tuple(h[: len(state.prefix)]) != state.prefix:
            raise InvariantViolation(
                f"witness {h} is not a completion of the prefix {state.prefix} (Lemma 5.2)"
            )
        if not np.array_equal(C.evaluate(h, state.X), state.y):
            raise InvariantViolation(f"the active sample is not labeled by its witness {h} (Lemma 5.2)")

    def _telemetry(
        self,
        i: int,
        component: Any,
        state: _State,
        extended: Components,
        chosen: Components,
        holdout: np.ndarray | None,
        tau: float,
    ) -> RoundTelemetry:
        C = self.concept_class
        best = _best_agreement(C, extended, state)
        chosen_labels = C.evaluate(chosen, state.X)
        population = None
        if holdout is not None and len(holdout):
            population = float(np.mean(C.evaluate(chosen, holdout) != C.evaluate(state.witness, holdout)))
        return RoundTelemetry(
            i,
            component,
            1 - best / len(state.y),
            float(np.mean(chosen_labels != state.y)),
            population,
            2 * tau,
        )

    def utility(self, X: Any, y: Any) -> Utility:
        """The test error on held-out records (X, y) against the target α and the best constant
        hypothesis on them; a :class:`UtilityWarning` when the error exceeds α or a constant
        does as well. Post-processing of the released model on data outside the private
        sample (:data:`HOLDOUT_NOTE`): pass records the learner did not train on.

        Args:
            X: held-out points of the class's grid, as for ``predict``.
            y: their labels, values of ``classes_``.

        Returns:
            The :class:`Utility` record.

        Raises:
            ValueError: X or y malformed, or the learner not fitted.
        """
        self._check_fitted()
        positive = self._positive(X)
        truth = positive_mask(y, positive.shape[0], tuple(self.classes_.tolist()))
        share = float(np.mean(truth))
        result = Utility(
            float(np.mean(positive != truth)), min(share, 1 - share), float(self.alpha), len(truth)
        )
        for message in result.warnings:
            warnings.warn(f"CarryForwardLearner: {message}", UtilityWarning, stacklevel=2)
        return result

    # -- scikit-learn interface -------------------------------------------------------------

    def _positive(self, X: Any) -> np.ndarray:
        """Where the learned concept c_{y1..yk} is 1 on the grid points X."""
        return (
            self.concept_class.evaluate(
                self.hypothesis_, grid_points(self.concept_class, X, type(self).__name__)
            )
            == 1
        )


def _exceeds(value: Any, bound: float) -> bool:
    """value > bound, exactly (a decimal string or a number beyond the float range included);
    a value that is not a number does not exceed, and is refused by the target's own check."""
    try:
        return as_fraction(value, "delta") > Fraction(bound)
    except ValueError:
        return False


def _best_agreement(C: ConceptClass, prefix: Components, state: _State) -> int:
    """The largest agreement of any completion g ∈ C(prefix) with S_{i−1}: the best score of the
    trace of C(prefix) on U(S_{i−1}) (counted by score for line compositions, never listed)."""
    return best_agreement(restrict(C, prefix), state.X, state.y)


def oracle_requirement(C: ConceptClass, oracle: ComponentOracle, run: UtilityTarget) -> int | None:
    """M_A of ``oracle`` on ``C`` at Algorithm 2's τ = α/(40k), β_A = β/(4k) (Assumption 4.4,
    item 3), where the learner knows it: the completion-score oracle on thresholds, intervals
    and rectangles (:func:`~dpledger.learners.component_oracles.completion_oracle_m` over the
    N + 1 grid values), the relabel-and-learn oracle of Proposition 8.16 tuned to that (τ, β_A)
    or tighter (Corollary 8.17, :func:`~dpledger.learners.calibration.boolean.oracle_m`); None
    otherwise (the halfspace oracles' M_A is stated on the perturbed grid of Theorem 8.5)."""
    from dpledger.learners.boolean.composition import BooleanComposition
    from dpledger.learners.boolean.oracle import RelabelOracle
    from dpledger.learners.calibration.boolean import oracle_m

    if isinstance(oracle, CompletionScoreOracle) and isinstance(C, (Thresholds, Intervals, Rectangles)):
        return completion_oracle_m(largest_component_domain(C), run.tau, run.beta_oracle, oracle.epsilon)
    if isinstance(oracle, RelabelOracle) and isinstance(C, BooleanComposition):
        tau, beta_a = Fraction(oracle.tau), Fraction(oracle.beta_a)
        if tau > run.tau or beta_a > run.beta_oracle:
            return None
        return max(
            oracle_m(H.vc_dimension, len(space), tau, beta_a, oracle.epsilon_b)
            for H, space in zip(C.components, C.spaces, strict=True)
        )
    return None
