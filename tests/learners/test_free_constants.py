"""The free-constant calibration (dpledger.learners.calibration.free_constants):
the chosen point's guarantee recomputed without the search — the learner's event tree rebuilt
from the real oracles' declared events, the utility bounds from their formulas in floats — and
the issue's goals against the paper's n."""

import math
from fractions import Fraction
from typing import Any

import pytest
import sympy

from dpledger.accountant import account
from dpledger.accountant.section6 import Target, learner_event
from dpledger.learners.calibration.free_constants import UtilitySplit, theorem_5_1
from dpledger.learners.calibration.sample_size import UtilityTarget
from dpledger.learners.component_oracles import (
    CompletionScoreOracle,
    completion_oracle_m,
    largest_component_domain,
)
from dpledger.learners.concept_classes import make_class
from dpledger.verify.paper.theorem_calibration import theorem_5_1 as paper_theorem_5_1

DOMAIN = 2**16
GOAL_K = (2, 3, 5, 11, 21, 51, 101)


def _completion_oracle_events(concept, epsilon_a, m):
    """The declared event of CompletionScoreOracle(ε_A) for every component along one prefix."""
    oracle, events = CompletionScoreOracle(Fraction(str(epsilon_a))), []
    prefix: tuple[Any, ...] = ()
    for _ in range(concept.k):
        events.append(oracle.event(concept, prefix, m))
        prefix += (concept.next_values(prefix)[0],)
    return events


@pytest.mark.parametrize("name", ["thresholds", "intervals"])
@pytest.mark.parametrize("epsilon", ["0.5", "1"])
def test_free_theorem_5_1_chosen_point_meets_the_target_without_the_search(name, epsilon):
    concept = make_class(name, DOMAIN)
    run = UtilityTarget.of("Theorem 5.1", concept.k, concept.vc_dimension, "0.1", "0.1", epsilon, "1e-6")
    candidates = largest_component_domain(concept)
    free = theorem_5_1(run, candidates)
    c = free.to_dict()["constants"]
    # privacy: the tree rebuilt from the real oracle's events (exponential mechanisms), optimal composition
    target = Target.of(free.n, concept.k, run.epsilon, run.delta)
    events = _completion_oracle_events(concept, free.epsilon_oracle, free.m)
    assert (
        account(learner_event(target, free.m, events, "optimal"))
        .guarantee.meets(run.epsilon, run.delta)
        .holds
    )
    # and the n is the smallest for these constants: one block fewer fails
    smaller = Target.of(free.n - 3, concept.k, run.epsilon, run.delta)
    assert (
        not account(learner_event(smaller, free.m, events, "optimal", free.n - 3))
        .guarantee.meets(run.epsilon, run.delta)
        .holds
    )
    # utility, in floats from the proofs' formulas: Theorem 7.2's error and failure budgets ...
    k, alpha, beta = concept.k, 0.1, 0.1
    assert 20 * (k + 1) * c["tau"] <= alpha * (1 + 1e-12)
    assert k * c["beta_A"] + k * c["beta_LB"] + (k + 1) * c["beta_VC"] <= beta * (1 + 1e-12)
    # ... the oracle's failure |Y|·exp(−ε_A τ m/2) ≤ β_A (Proposition 3.12) and Lemma 7.1's term
    assert candidates * math.exp(-float(free.epsilon_oracle) * c["tau"] * free.m / 2) <= c["beta_A"]
    lemma_7_1 = (
        (1 / 40)
        / c["tau"]
        * (concept.vc_dimension * math.log(2 / (c["tau"] * c["beta_LB"])) + math.log(1 / c["beta_VC"]))
    )
    assert free.m >= lemma_7_1 * (1 - 1e-9)


def test_free_utility_split_spends_exactly_alpha_and_beta():
    run = UtilityTarget.of("Theorem 5.1", 7, 7, "0.1", "0.1", "0.5", "1e-6")
    split = UtilitySplit.of(run, sympy.Rational(3, 4))
    assert split.error_bound(7) == run.alpha and split.failure_bound(7) == run.beta
    assert split.tau >= run.tau  # never below Algorithm 2's α/(40k)


def test_free_search_picks_an_epsilon_a_no_worse_than_its_grid_neighbours():
    run = UtilityTarget.of("Theorem 5.1", 5, 5, "0.1", "0.1", "0.5", "1e-6")
    free = theorem_5_1(run, DOMAIN + 1)
    from dpledger.learners.calibration.free_constants import certify, labelboost_term

    for step in (sympy.Rational(-1, 16), sympy.Rational(1, 16)):
        epsilon_a = free.epsilon_oracle + step
        m = max(
            labelboost_term(run.vc, free.split),
            completion_oracle_m(DOMAIN + 1, free.split.tau, free.split.beta_oracle, epsilon_a),
        )
        assert certify(run, m, epsilon_a)[0] >= free.n


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", ["0.5", "1"])
def test_free_theorem_5_1_is_20x_below_the_paper_at_every_k_and_100x_at_k_up_to_5(epsilon):
    for k in GOAL_K:
        run = UtilityTarget.of("Theorem 5.1", k, k, "0.1", "0.1", epsilon, "1e-6")
        paper = paper_theorem_5_1(
            k,
            k,
            "0.1",
            "0.1",
            epsilon,
            "1e-6",
            oracle_m=completion_oracle_m(DOMAIN + 1, run.tau, run.beta_oracle),
        )["payload"]
        free = theorem_5_1(run, DOMAIN + 1)
        assert free.holds
        assert paper["n_paper"] >= (100 if k <= 5 else 20) * free.n, (k, paper["n_paper"], free.n)


def _boolean_composition(names):
    from dpledger.learners.boolean.composition import BooleanComposition, component_class
    from dpledger.learners.boolean.formula import parse_formula

    formula = " and ".join(f"x{i + 1}" for i in range(len(names)))
    return BooleanComposition(parse_formula(formula), [component_class(n, DOMAIN) for n in names])


def _boolean_free(names, epsilon):
    from dpledger.learners.calibration.free_constants import theorem_8_19

    C = _boolean_composition(names)
    rows = [
        (n, H.vc_dimension, len(space)) for n, H, space in zip(names, C.components, C.spaces, strict=True)
    ]
    run = UtilityTarget.of("Theorem 8.19", len(names), C.vc_dimension, "0.1", "0.1", epsilon, "1e-6")
    return C, run, theorem_8_19(run, rows)


@pytest.mark.parametrize("epsilon", ["0.5", "1"])
def test_free_theorem_8_19_chosen_point_meets_the_target_with_the_relabel_oracles_own_events(epsilon):
    from dpledger.learners.boolean.oracle import RelabelOracle
    from dpledger.learners.calibration.boolean import exponential_learner_m, relabel_m

    names = ["thresholds", "intervals", "thresholds"]
    C, run, free = _boolean_free(names, epsilon)
    c = free.to_dict()["constants"]
    epsilon_b, share = free.choice("epsilon_B"), free.choice("learner_tau_share")
    # the oracle realising the choice: its m_B is m_B(tau/2, beta_a/2, ε_B) = m_B(θτ, β_A/2, ε_B)
    oracle = RelabelOracle(
        Fraction(str(epsilon_b)),
        Fraction(str(2 * share * free.split.tau)),
        Fraction(str(free.split.beta_oracle)),
    )
    prefix: tuple[Any, ...] = ()
    events = []
    for _ in range(C.k):
        events.append(oracle.event(C, prefix, free.m))
        prefix += (C.next_values(prefix)[0],)
    # the oracles' own events (Corollary 8.17 over Lemma 8.15's rule) never exceed the ε_A certified with
    assert max(account(e).guarantee.epsilon_upper for e in events) <= float(free.epsilon_oracle)
    target = Target.of(free.n, C.k, run.epsilon, run.delta)
    assert (
        account(learner_event(target, free.m, events, "optimal"))
        .guarantee.meets(run.epsilon, run.delta)
        .holds
    )
    # utility: Theorem 7.2's budgets, and m covers every M_{A,i} of Corollary 8.17 at the chosen constants
    k = C.k
    assert 20 * (k + 1) * c["tau"] <= 0.1 * (1 + 1e-12)
    assert k * c["beta_A"] + k * c["beta_LB"] + (k + 1) * c["beta_VC"] <= 0.1 * (1 + 1e-12)
    # Appendix B with ARelabel at error (1 − θ)τ (relabel_m is stated for λ = τ/2) and B̂ at θτ, β_A/2 each
    tau, beta_a = free.split.tau, free.split.beta_oracle
    for i, (H, space) in enumerate(zip(C.components, C.spaces, strict=True)):
        m_b = exponential_learner_m(len(space), share * tau, beta_a / 2, epsilon_b)
        assert m_b == oracle.m_b(C, i)
        assert free.m >= max(relabel_m(H.vc_dimension, len(space), 2 * (1 - share) * tau, beta_a), 9 * m_b)
    assert (1 - share) * tau + share * tau == tau
    assert 0 < epsilon_b <= 1  # Proposition 8.16's ε_B ∈ (0, 1]


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", ["0.5", "1"])
def test_free_theorem_8_19_is_20x_below_the_paper_at_every_k_and_100x_at_k_up_to_5(epsilon):
    from dpledger.verify.service.calibrate import theorem_8_19

    for k in GOAL_K:
        payload = theorem_8_19(k=k, epsilon=epsilon).payload
        assert payload["free"]["guarantee"]["holds"]
        assert payload["n_paper"] >= (100 if k <= 5 else 20) * payload["free"]["n_free"], (
            k,
            payload["n_paper"],
        )
