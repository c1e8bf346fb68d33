"""CarryForwardLearner (Algorithm 2): invariants, derived privacy, bad input."""

import copy
import pickle
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant.section6 import Target, needed_n
from dpledger.learners.carry_forward import CarryForwardLearner, InvariantViolation
from dpledger.learners.component_oracles import CompletionScoreOracle
from dpledger.learners.concept_classes import FiniteClass, Intervals, Rectangles, Thresholds
from dpledger.learners.synthetic import random_concept


def realizable_data(concept_class, n, seed):
    rng = np.random.default_rng(seed)
    target = random_concept(concept_class, rng)
    shape = (n,) if concept_class.dimension == 1 else (n, concept_class.dimension)
    X = rng.integers(0, concept_class.domain_size, size=shape)
    return X, concept_class.evaluate(target, X).astype(int), target


@settings(max_examples=12)
@given(
    st.sampled_from(["intervals", "thresholds"]),
    st.integers(0, 2**32 - 1),
    st.booleans(),
    st.sampled_from([("1", "1e-6"), ("0.5", "1e-4"), ("0.25", "1e-8")]),
)
def test_theorem_5_1_privacy_half_derived_guarantee_meets_target(name, seed, noisy, target):
    """With m from Algorithm 2 (or the tight calibration), the accountant's derivation from the
    trace of an actual fit meets the (ε, δ) the learner was asked for — on realizable and on
    arbitrary (randomly labeled) inputs alike."""
    epsilon, delta = target
    C = Intervals(2**16) if name == "intervals" else Thresholds(2**16)
    n = needed_n(Target.of(10**6, C.k, epsilon, delta)) + 1000
    X, y, _ = realizable_data(C, n, seed)
    if noisy:
        y = np.random.default_rng(seed).integers(0, 2, size=n)
    for calibration in ("paper", "tight"):
        learner = CarryForwardLearner(
            C, epsilon=epsilon, delta=delta, calibration=calibration, random_state=seed
        ).fit(X, y)
        assert learner.guarantee_ is not None and learner.guarantee_.meets(epsilon, delta).holds
        assert learner.holds_
        assert learner.m_ >= 1


@settings(max_examples=15)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60))
def test_lemma_5_2_realizable_prefix_state_before_every_oracle_call_on_arbitrary_labels(seed, m):
    """Random labels are far from realizable; the run-time Lemma 5.2 check must pass anyway."""
    rng = np.random.default_rng(seed)
    C = Intervals(64)
    X = rng.integers(0, 64, size=600)
    y = rng.integers(0, 2, size=600)
    learner = CarryForwardLearner(C, m=m, random_state=seed, telemetry=True).fit(X, y)
    assert C.contains(learner.hypothesis_)
    assert len(learner.rounds_) == C.k


def test_lemma_5_2_violation_is_an_internal_error():
    class InvalidOracle(CompletionScoreOracle):
        def select(self, concept_class, prefix, X, y, rng):
            return -5

    X, y, _ = realizable_data(Intervals(64), 300, 0)
    with pytest.raises(InvariantViolation, match=r"Assumption 4\.4"):
        CarryForwardLearner(Intervals(64), oracle=InvalidOracle(), m=20, random_state=0).fit(X, y)


def test_rectangles_and_finite_classes_run_with_the_generic_oracle():
    X, y, _ = realizable_data(Rectangles(8), 900, 1)
    learner = CarryForwardLearner(Rectangles(8), m=40, random_state=1, telemetry=True).fit(X, y)
    assert Rectangles(8).contains(learner.hypothesis_) and len(learner.rounds_) == 4
    table = [[int(b) for b in format(j, "04b")] for j in range(16)]
    components = [(j // 4, j % 4) for j in range(16)]
    finite = FiniteClass(table, components)
    Xf = np.random.default_rng(2).integers(0, 4, size=300)
    learner = CarryForwardLearner(finite, m=30, random_state=2).fit(Xf, finite.evaluate((1, 2), Xf))
    assert finite.contains(learner.hypothesis_)


def test_same_seed_same_trace_and_hypothesis():
    X, y, _ = realizable_data(Intervals(2**12), 5000, 7)
    a = CarryForwardLearner(Intervals(2**12), m=200, random_state=11, telemetry=True).fit(X, y)
    b = CarryForwardLearner(Intervals(2**12), m=200, random_state=11, telemetry=True).fit(X, y)
    assert a.hypothesis_ == b.hypothesis_ and a.trace_ == b.trace_ and a.rounds_ == b.rounds_


def test_lemma_7_1_round_disagreements_within_two_tau_on_realizable_data():
    """Empirically: with a generous m the per-round empirical disagreements stay below 2τ in
    most runs (Lemma 7.1 promises it with probability 1 − β_A − β_LB)."""
    within = 0
    for seed in range(10):
        X, y, _ = realizable_data(Intervals(2**10), 20000, seed)
        learner = CarryForwardLearner(
            Intervals(2**10), m=3000, alpha=0.2, random_state=seed, telemetry=True
        ).fit(X, y)
        within += all(r.labelboost_disagreement <= r.bound for r in learner.rounds_)
    assert within >= 7


@pytest.mark.parametrize(
    "kwargs, X, y, fragment",
    [
        ({}, [[0.5]] * 10, [0] * 10, "X"),
        ({}, [3] * 10, [2] * 10, "y"),
        ({}, [70] * 10, [0] * 10, "X"),
        ({}, ["a"] * 10, [0] * 10, "X"),
        ({}, [3] * 10, [0] * 9, "y"),
        ({"epsilon": 2}, [3] * 10**6, [0] * 10**6, "Lemma 6.12"),
        ({"delta": 0.2, "beta": 0.1}, [3] * 10, [0] * 10, "beta"),
        ({"alpha": 0}, [3] * 10, [0] * 10, "alpha"),
        ({}, [3] * 3000, [0] * 3000, "n ≥"),
        ({"m": 5000}, [3] * 3000, [0] * 3000, "m must"),
    ],
)
def test_bad_input_raises_value_error_naming_the_problem(kwargs, X, y, fragment):
    with pytest.raises(ValueError, match=fragment):
        CarryForwardLearner(Intervals(64), **kwargs).fit(np.array(X), np.array(y))


def test_oracle_with_inconsistent_k_is_refused():
    class TwoComponentOracle(CompletionScoreOracle):
        k = 2

    with pytest.raises(ValueError, match="k = 2"):
        CarryForwardLearner(Thresholds(64), oracle=TwoComponentOracle(), m=5).fit(
            np.arange(60), np.zeros(60, int)
        )


def test_tight_calibration_guarantee_holds_for_k_at_least_3():
    """Regression: with k = 4 the tight m must also be certified by the learner's own trace."""
    C = Rectangles(8)
    X, y, _ = realizable_data(C, 300_000, 3)
    learner = CarryForwardLearner(C, calibration="tight", random_state=3).fit(X, y)
    assert learner.m_ >= 1 and learner.holds_


def test_halfspace_components_are_json_ready():
    from fractions import Fraction

    from dpledger.learners.carry_forward import jsonable

    assert jsonable((1, Fraction(3, 7), np.int64(2))) == [1, "3/7", 2]


PUBLIC_OR_LEDGER = {
    "classes_",
    "n_features_in_",
    "m_",
    "sample_size_",
    "trace_",
    "derivation_",
    "guarantee_",
    "holds_",
}
"""Fitted attributes that are public (the declared labels, d, m — a function of the public n, k,
ε, δ — and Theorem 5.1's sample-size check, of those, α, β and the oracle) or the ledger (and
whether it meets the target)."""


def test_fitted_attributes_are_public_or_released_by_the_trace():
    """Every fitted attribute, reviewed: public, the ledger, or the private output
    ``hypothesis_`` the trace covers; exact telemetry only when asked for."""
    X, y, _ = realizable_data(Intervals(64), 300, 3)
    learner = CarryForwardLearner(Intervals(64), m=20, random_state=0).fit(X, y)
    assert {name for name in vars(learner) if name.endswith("_")} == PUBLIC_OR_LEDGER | {"hypothesis_"}
    asked = CarryForwardLearner(Intervals(64), m=20, random_state=0, telemetry=True).fit(X, y)
    assert {name for name in vars(asked) if name.endswith("_")} == PUBLIC_OR_LEDGER | {
        "hypothesis_",
        "rounds_",
    }
    assert asked.hypothesis_ == learner.hypothesis_ and asked.trace_ == learner.trace_


def test_round_telemetry_is_pickled_only_when_asked_for():
    X, y, _ = realizable_data(Intervals(64), 300, 3)
    learner = CarryForwardLearner(Intervals(64), m=20, random_state=0, telemetry=True).fit(X, y)
    assert pickle.loads(pickle.dumps(learner)).rounds_ == learner.rounds_
    learner.set_params(telemetry=False)
    for copied in (pickle.loads(pickle.dumps(learner)), copy.deepcopy(learner)):
        assert not hasattr(copied, "rounds_") and copied.hypothesis_ == learner.hypothesis_
    assert learner.get_params()["telemetry"] is False
    learner.fit(X, y)
    assert not hasattr(learner, "rounds_")
    with pytest.raises(ValueError, match="telemetry must be True or False"):
        CarryForwardLearner(Intervals(64), m=20, telemetry=cast(Any, "yes")).fit(X, y)


def test_default_calibration_is_the_tight_one_the_largest_private_m():
    """The default m is the largest the certified accounting allows, never the paper's smaller m."""
    from dpledger.accountant.section6 import paper_m, tight_m

    C = Intervals(64)
    X, y, _ = realizable_data(C, 60_000, 2)
    learner = CarryForwardLearner(C, random_state=0).fit(X, y)
    target = Target.of(60_000, C.k, 1.0, 1e-6)
    paper = paper_m(target)
    assert paper is not None
    tight = tight_m(target, paper)
    assert tight is not None
    assert learner.m_ == tight > paper and learner.holds_


def test_theorem_5_1_sample_size_check_says_whether_n_gives_theorem_7_2_m():
    """sample_size_: Theorem 7.2's m = max(M_A, LabelBoost term) for (α, β), the n the calibration
    needs for it, and m_ ≥ m_needed exactly when n ≥ that n (checked on both sides)."""
    from dpledger.accountant.section6 import needed_n as paper_n
    from dpledger.learners.calibration.sample_size import UtilityTarget, labelboost_term
    from dpledger.learners.component_oracles import completion_oracle_m

    C = Intervals(64)
    X, y, _ = realizable_data(C, 60_000, 2)
    check = CarryForwardLearner(C, random_state=0).fit(X, y).sample_size_
    run = UtilityTarget.of("Theorem 5.1", 2, 2, 0.1, 0.1, 1.0, 1e-6)
    assert check.m_oracle == completion_oracle_m(65, run.tau, run.beta_oracle)
    assert check.m_needed == max(labelboost_term(run), check.m_oracle) and check.calibration == "tight"
    assert check.n_needed is not None and check.m_needed is not None
    assert check.meets is False and check.n_needed > 60_000 and "NOT met" in check.to_text()
    X, y, _ = realizable_data(C, check.n_needed, 2)
    met = CarryForwardLearner(C, random_state=0).fit(X, y).sample_size_
    assert met.m_needed is not None
    assert met.meets is True and met.m >= met.m_needed and met.to_text().endswith(": met")
    paper = CarryForwardLearner(C, calibration="paper", random_state=0).fit(X, y).sample_size_
    assert paper.m_needed is not None
    assert paper.meets is False and paper.n_needed == paper_n(Target.of(3, 2, 1.0, 1e-6), paper.m_needed)
    given = CarryForwardLearner(C, m=20, random_state=0).fit(X, y).sample_size_
    assert given.calibration == "given" and given.n_needed is None and given.meets is False


def test_utility_on_held_out_records_warns_when_alpha_is_exceeded_or_a_constant_does_better():
    from dpledger.learners.carry_forward import UtilityWarning

    C = Intervals(64)
    X, y, _ = realizable_data(C, 3000, 1)
    X_test, y_test, _ = realizable_data(C, 2000, 1)  # the same target (same seed), fresh records
    poor = CarryForwardLearner(C, m=3, random_state=0).fit(X, y)
    with pytest.warns(UtilityWarning, match="exceeds the target α"):
        utility = poor.utility(X_test, y_test)
    assert utility.test_error == pytest.approx(1 - poor.score(X_test, y_test))
    share = float(np.mean(y_test))
    assert utility.constant_error == pytest.approx(min(share, 1 - share))
    assert "post-processing" in utility.to_dict()["note"]
    good = CarryForwardLearner(C, m=60, random_state=0).fit(X, y)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        result = good.utility(X_test, y_test)
    assert result.test_error <= 0.1 and result.test_error < result.constant_error and not result.warnings
