"""Finite coordinate domains of Definition 8.2 / C.3, implicit: exact counts, draws, simplest elements."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.learners.halfspaces.depth import SlotScores
from dpledger.learners.halfspaces.domains import (
    RationalDomain,
    SignDomain,
    Slot,
    coordinate_domain,
    floor_sum,
    select,
    simplest_between,
)
from dpledger.learners.randomness import Sampled, enumerate_outputs


@given(st.integers(0, 30), st.integers(1, 40), st.integers(-100, 100), st.integers(-100, 100))
def test_floor_sum_matches_the_direct_sum(n, m, a, b):
    assert floor_sum(n, m, a, b) == sum((a * i + b) // m for i in range(n))


def _pairs(domain):
    return [
        Fraction(s, c * domain.scale) for c in range(1, domain.C + 1) for s in range(-domain.S, domain.S + 1)
    ]


@settings(max_examples=40)
@given(
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 4),
    st.lists(st.fractions(-4, 4, max_denominator=9), max_size=4),
)
def test_rational_domain_counts_and_simplest_agree_with_the_listed_domain(S, C, scale, cuts):
    domain = RationalDomain(S, C, scale)
    pairs = _pairs(domain)
    breakpoints = sorted(set(cuts))
    slots = SlotScores(breakpoints, np.zeros(2 * len(breakpoints) + 1, dtype=np.int64))
    counts = domain.counts(breakpoints)
    for index in range(2 * len(breakpoints) + 1):
        slot = slots.slot(index)
        inside = [v for v in pairs if _inside_slot(v, slot)]
        assert counts[index] == domain.count(slot) == len(inside)
        simplest = domain.simplest(slot)
        if inside:
            assert simplest in inside
            assert (simplest * scale).denominator == min((v * scale).denominator for v in inside)
        else:
            assert simplest is None


@settings(max_examples=40)
@given(
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 4),
    st.lists(st.fractions(-4, 4, max_denominator=9), max_size=3),
)
def test_select_gives_the_pair_of_each_rank_in_value_order_as_the_listed_domain(S, C, scale, cuts):
    """select(slot, r) is the r-th smallest of the slot's pairs (each pair counted, as count does),
    for every slot of the cuts and every rank; a rank outside [0, count) is refused."""
    domain = RationalDomain(S, C, scale)
    pairs = sorted(_pairs(domain))
    breakpoints = sorted(set(cuts))
    slots = SlotScores(breakpoints, np.zeros(2 * len(breakpoints) + 1, dtype=np.int64))
    for index in range(2 * len(breakpoints) + 1):
        slot = slots.slot(index)
        inside = [v for v in pairs if _inside_slot(v, slot)]
        assert [select(domain, slot, rank) for rank in range(len(inside))] == inside
        with pytest.raises(ValueError, match="rank"):
            select(domain, slot, len(inside))
    signs = SignDomain()
    assert [select(signs, Slot(None, None), rank) for rank in (0, 1)] == [-1, 1]
    assert select(signs, Slot(Fraction(0), None), 0) == 1


def test_select_on_an_astronomical_domain_stays_exact():
    """The median pair of a slot of a domain of ~10^41 pairs: exact, inside, with its rank's counts."""
    domain = RationalDomain(10**20, 10**21, 7)
    slot = Slot(Fraction(-1, 3), None)
    rank = (domain.count(slot) - 1) // 2
    value = select(domain, slot, rank)
    assert value in domain and value > Fraction(-1, 3)
    assert (
        domain.count(Slot(Fraction(-1, 3), value))
        <= rank
        < domain.count(Slot(Fraction(-1, 3), value)) + domain.count(Slot(value, value, True))
    )


def _inside_slot(value, slot):
    if slot.point:
        return value == slot.low
    return (slot.low is None or value > slot.low) and (slot.high is None or value < slot.high)


def test_rational_domain_sample_is_uniform_over_the_pairs_of_a_slot():
    domain = RationalDomain(3, 3, 2)
    slot = Slot(Fraction(-1, 3), Fraction(1, 2))
    exact = enumerate_outputs(lambda rng: domain.sample(slot, rng))
    inside = [v for v in _pairs(domain) if slot.low < v < slot.high]
    for value, probability in exact.items():
        share = Fraction(inside.count(value), len(inside))
        assert float(probability.a) <= float(share) <= float(probability.b)
        assert float(probability.b) - float(probability.a) < 1e-30
    assert set(exact) == set(inside)


def test_definition_c_3_domain_bounds_and_denominator_chain():
    d, X = 2, 5
    first = coordinate_domain(d, X, ())
    assert isinstance(first, SignDomain) and list(first) == [-1, 1] and 0 not in SignDomain()
    second = coordinate_domain(d, X, (1,))
    assert isinstance(second, RationalDomain)
    assert (second.S, second.C, second.scale) == (d * math.factorial(d) * X**d, math.factorial(d) * X**d, 1)
    third = coordinate_domain(d, X, (1, Fraction(7, 12)))
    assert isinstance(third, RationalDomain)
    assert (third.S, third.C, third.scale) == (
        (d * math.factorial(d)) ** 2 * X ** (2 * d),
        math.factorial(d) * X**d,
        12,
    )
    assert Fraction(7, 12) in second and Fraction(7, 12 * 51) not in second
    assert third.size == (2 * third.S + 1) * third.C  # implicit: never listed


def test_astronomical_domains_are_counted_and_sampled_without_listing():
    domain = RationalDomain(10**40, 10**30, 7)
    slot = Slot(Fraction(1, 3), Fraction(1, 2))
    count = domain.count(slot)
    assert 0 < count < domain.size
    value = domain.sample(slot, Sampled(0))
    assert Fraction(1, 3) < value < Fraction(1, 2) and value in domain


@given(
    st.fractions(-20, 20, max_denominator=30), st.fractions(0, 20, max_denominator=30).filter(lambda f: f > 0)
)
def test_simplest_between_has_the_smallest_denominator_in_the_interval(low, width):
    high = low + width
    value = simplest_between(low, high)
    assert low < value < high
    assert not any(math.floor(low * q) + 1 < high * q for q in range(1, value.denominator))


def test_bad_domain_parameters_name_the_parameter():
    with pytest.raises(ValueError, match="denominator_bound"):
        RationalDomain(3, 0)
    with pytest.raises(ValueError, match="low"):
        simplest_between(Fraction(1), Fraction(1))


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.lists(st.fractions(-3, 3, max_denominator=4), min_size=1, max_size=3),
    st.lists(st.integers(0, 4), min_size=7, max_size=7),
)
def test_implicit_exponential_mechanism_equals_the_listed_one(S, C, cuts, raw_scores):
    """domain_exponential_mechanism draws pair j with probability ∝ exp(ε·score(value_j)/2),
    exactly as the exponential mechanism over the listed pairs would."""
    from dpledger.learners.halfspaces.private_ip import domain_exponential_mechanism

    domain = RationalDomain(S, C, 1)
    breakpoints = sorted(set(cuts))
    scores = SlotScores(breakpoints, np.array(raw_scores[: 2 * len(breakpoints) + 1], dtype=np.int64))
    exact = enumerate_outputs(lambda rng: domain_exponential_mechanism(domain, scores, Fraction(1), rng))
    pairs = _pairs(domain)
    weights = [math.exp(scores(v) / 2) for v in pairs]
    assert set(exact) == set(pairs)
    for value, probability in exact.items():
        listed = sum(wt for v, wt in zip(pairs, weights, strict=True) if v == value) / sum(weights)
        assert float(probability.a) - 1e-12 <= listed <= float(probability.b) + 1e-12
