"""Section 6 of seed 000 as code: the chain of Lemma 6.12 and the tight calibration."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant.rules import account
from dpledger.accountant.section6 import (
    Target,
    carry_forward_event,
    needed_n,
    paper_chain,
    paper_m,
    reservoir_activations,
    tight_calibration,
)

epsilons = st.fractions(min_value=Fraction(1, 100), max_value=1, max_denominator=100)
deltas = st.sampled_from(["1e-3", "1e-5", "1e-7", "1e-10"])


@settings(max_examples=40)
@given(st.integers(1, 200), epsilons, deltas, st.integers(0, 10**6))
def test_lemma_6_12_chain_holds_across_allowed_parameters(k, epsilon, delta, extra):
    """Every inequality the paper states in Lemma 6.12 (and Corollaries 6.6, 6.8, 6.11) holds
    for every n at which Algorithm 2 has m ≥ 1. A failure here is a finding about the seed."""
    probe = Target.of(10**6, k, epsilon, delta)
    n = needed_n(probe) + extra * 97
    chain = paper_chain(Target.of(n, k, epsilon, delta))
    failing = [step for step in chain.steps if not step.holds]
    assert not failing, failing


def test_algorithm_2_m_is_the_exact_floor():
    target = Target.of(10**8, 4, 1, "1e-6")
    value = target.epsilon * target.n / (12 * sympy.exp(9) * sympy.sqrt(4 * sympy.log(2 * 10**6)))
    assert paper_m(target) == int(sympy.floor(value.evalf(50)))
    n = needed_n(target, paper_m(target))
    assert paper_m(target, n) == paper_m(target) and paper_m(target, n - 1) < paper_m(target)


def test_corollary_6_11_reservoir_activation_counts_cover_rounds_1_to_k_minus_1():
    for k in range(1, 30):
        zero, one = reservoir_activations(k)
        assert zero + one == k - 1
        assert max(zero, one) == -(-(k - 1) // 2)


def test_learner_event_mirrors_section_6_with_claims_at_every_block():
    derivation = account(carry_forward_event(Target.of(10**8, 5, 1, "1e-6"), 100))
    statements = [check.statement for check in derivation.claims()]
    for statement in (
        "Lemma 6.12",
        "Corollary 6.8",
        "Lemma 6.4",
        "Corollary 6.11",
        "Corollary 6.9",
        "Lemma 6.2",
        "Claim 6.3",
    ):
        assert statement in statements
    assert all(check.verdict.holds for check in derivation.claims())


@settings(max_examples=8)
@given(st.integers(1, 12), st.sampled_from(["0.5", "1"]), st.sampled_from(["1e-5", "1e-8"]))
def test_tight_calibration_is_at_least_the_papers_m_and_certified(k, epsilon, delta):
    target = Target.of(3 * 10**7, k, epsilon, delta)
    chain = paper_chain(target)
    tight = tight_calibration(target, chain.m)
    assert tight.m >= chain.m
    assert tight.holds and tight.derivation.guarantee.meets(target.epsilon, target.delta).holds
    assert (
        not account(carry_forward_event(target, tight.m + 1, "optimal")).guarantee.meets(epsilon, delta).holds
    )
    assert tight.n_tight_for_paper_m <= tight.n_paper_for_paper_m


@pytest.mark.parametrize(
    "args, fragment",
    [
        ((10**6, 2, "1.5", "1e-6"), "Lemma 6.12"),
        ((10**6, 2, 0, "1e-6"), "epsilon"),
        ((10**6, 2, 1, 1), "delta"),
        ((10**6, 2, 1, 0), "delta"),
        ((10**6, 0, 1, "1e-6"), "k"),
        ((2, 2, 1, "1e-6"), "n"),
        ((10**6, 2, "1e-31", "1e-6"), "epsilon must be ≥ 1e-30"),
    ],
)
def test_targets_outside_lemma_6_12_hypotheses_are_refused(args, fragment):
    with pytest.raises(ValueError, match=fragment):
        Target.of(*args)


def test_too_small_n_names_the_n_needed():
    target = Target.of(1000, 2, 1, "1e-6")
    with pytest.raises(ValueError, match=f"n ≥ {needed_n(target)}"):
        paper_chain(target)
