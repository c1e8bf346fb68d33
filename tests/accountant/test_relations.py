"""Neighbouring relations: every guarantee says which relation it holds under, and
the accountant refuses to mix substitute-one and add/remove guarantees unless a rule converts."""

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.accountant.serialization import dumps, loads

epsilons = st.fractions(min_value=Fraction(1, 20), max_value=4, max_denominator=20)
rates = st.fractions(min_value=Fraction(1, 100), max_value=1, max_denominator=100)


def test_poisson_subsampling_refuses_a_substitute_one_child():
    """Balle–Barthe–Gaboardi's bound needs add/remove: the subsample's size varies. Accepting a
    substitute-one child gave ε = 0.41574 where the substitute-one worst case is 0.62601."""
    with pytest.raises(ValueError, match="add/remove"):
        account(ev.PoissonSubsample(ev.PureDP(1), "0.3"))


def test_poisson_subsampling_under_substitution_is_the_coupling_worst_case():
    g = account(
        ev.PoissonSubsample(ev.PureDP(1, relation="add_remove"), "0.3", relation="substitute")
    ).guarantee
    q, e = 0.3, math.e
    assert g.relation == "substitute"
    assert g.epsilon_upper == pytest.approx(math.log((1 + q * (e - 1)) / (1 - q * (1 - 1 / e))), rel=1e-14)
    assert round(g.epsilon_upper, 5) == 0.62601
    assert (
        account(ev.PoissonSubsample(ev.PureDP(1, relation="add_remove"), "0.3")).guarantee.relation
        == "add_remove"
    )


@settings(max_examples=30)
@given(epsilons, rates)
def test_poisson_under_substitution_lies_between_add_remove_and_group_privacy(eps, q):
    """Substitution is one removal and one addition: the coupled bound is at least the add/remove
    one and at most twice it (group privacy on the amplified mechanism); ε′ ≤ 2ε, so
    δ′ = qδ(1 + e^{ε′−ε}) ≤ qδ(1 + e^ε)."""
    child = ev.ApproxDP(eps, "1e-6", relation="add_remove")
    add_remove = account(ev.PoissonSubsample(child, q)).guarantee
    substitute = account(ev.PoissonSubsample(child, q, relation="substitute")).guarantee
    assert add_remove.epsilon_interval.a <= substitute.epsilon_interval.b
    assert substitute.epsilon_upper <= 2 * add_remove.epsilon_upper * (1 + 1e-12)
    assert substitute.delta_upper <= float(q) * 1e-6 * (1 + math.exp(eps)) * (1 + 1e-9)  # ε′ ≤ 2ε


def test_poisson_under_substitution_is_attained_exactly():
    """The coupling bound is the worst case, attained: M says "yes" with probability a·e^{εc},
    c = #x − #x′ clipped to [−1, 1] (ε-DP under add/remove for a = 1/10), so on S = T ∪ {x},
    S′ = T ∪ {x′} the sampled "yes" probabilities are (1 − q)a + qae^{±ε}: their log-ratio is ε′."""
    eps, q, a = sympy.Integer(1), sympy.Rational(3, 10), sympy.Rational(1, 10)
    yes = {c: a * sympy.exp(eps * c) for c in (-1, 0, 1)}
    no = {c: 1 - yes[c] for c in yes}
    for c in (-1, 0):  # add/remove changes c by one: both outputs within e^ε
        for output in (yes, no):
            assert float(sympy.Abs(sympy.log(output[c + 1] / output[c]))) <= 1
    exact_ratio = sympy.log(((1 - q) * yes[0] + q * yes[1]) / ((1 - q) * yes[0] + q * yes[-1]))
    bound = account(
        ev.PoissonSubsample(ev.PureDP(eps, relation="add_remove"), q, relation="substitute")
    ).guarantee
    assert sympy.simplify(exact_ratio - bound.epsilon) == 0


def test_composition_refuses_to_mix_relations():
    mixed = ev.Composition((ev.PureDP(1), ev.PureDP(1, relation="add_remove")))
    with pytest.raises(ValueError, match="different neighbouring relations"):
        account(mixed)
    with pytest.raises(ValueError, match="different neighbouring relations"):
        account(ev.ParallelComposition((ev.PureDP(1), ev.PureDP(1, relation="add_remove"))))


@pytest.mark.parametrize(
    "transform",
    [
        lambda child: ev.SubsampleWithoutReplacement(child, 2, 10),
        lambda child: ev.SubsampleWithReplacement(child, 2, 10),
        lambda child: ev.LabelBoostThen(child),
    ],
)
def test_substitution_lemmas_refuse_an_add_remove_child(transform):
    with pytest.raises(ValueError, match="substitute-one"):
        account(transform(ev.ApproxDP(1, "1e-6", relation="add_remove")))


@given(epsilons)
def test_add_remove_to_substitute_is_group_privacy_of_two(eps):
    child = ev.ApproxDP(eps, "1e-6", relation="add_remove")
    derivation = account(ev.AddRemoveToSubstitute(child))
    g = derivation.guarantee
    assert g.relation == "substitute"
    assert sympy.simplify(g.epsilon - 2 * sympy.Rational(eps)) == 0
    assert sympy.simplify(g.delta - (1 + sympy.exp(sympy.Rational(eps))) * sympy.Rational(1, 10**6)) == 0
    assert (
        account(ev.Composition((ev.AddRemoveToSubstitute(child), ev.PureDP(1)))).guarantee.relation
        == "substitute"
    )


def test_guarantee_under_another_relation_meets_no_target_of_that_relation():
    g = account(ev.PureDP(1, relation="add_remove")).guarantee
    assert g.meets(1, 0).holds
    assert not g.meets(1, 0, relation="substitute").holds
    assert g.meets(1, 0, relation="add_remove").holds
    claim = account(ev.Claim("Lemma X", ev.PureDP(1, relation="add_remove"), 2))
    assert claim.claim is not None and not claim.claim.verdict.holds


def test_relation_survives_the_json_round_trip_and_is_validated():
    event = ev.PoissonSubsample(ev.Laplace(2, relation="add_remove"), "1/4", relation="substitute")
    assert loads(dumps(event)) == event
    with pytest.raises(ValueError, match="relation"):
        ev.PureDP(1, relation="swap")


def test_vacuous_guarantees_say_so():
    """Basic composition of 1,000 (0.01, 0.01)-DP mechanisms gives δ = 10: a bound that says
    nothing must be reported as vacuous, not as a number alone."""
    derivation = account(ev.Composition((ev.ApproxDP("0.01", "0.01"),), repeat=1000))
    assert derivation.guarantee.vacuous and derivation.guarantee.to_dict()["vacuous"] is True
    assert "vacuous: δ ≥ 1" in derivation.to_text()
    assert not account(ev.ApproxDP("0.01", "0.01")).guarantee.vacuous
