"""Boolean compositions (seed 000, Section 8.4): G from formulas and truth tables, the traces and
restricted traces of Lemma 8.18's parameterisation, the completion score q_i of equation (3),
its matched sensitivity (Appendix B) and the structural conditions of Corollary 8.17."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.learners.boolean.composition import (
    BooleanComposition,
    HypothesisSpace,
    component_class,
    composition_vc_bound,
)
from dpledger.learners.boolean.formula import from_truth_table, parse_formula
from dpledger.learners.concept_classes import FiniteClass, Intervals, Rectangles, Thresholds


def brute_labelings(C, prefix, P):
    """Π_{C(prefix)}(P) by evaluating every completion."""
    spaces = [list(space) for space in C.spaces[len(prefix) :]]
    return {C.evaluate(tuple(prefix) + suffix, P).tobytes() for suffix in itertools.product(*spaces)}


def small_composition(text, names, size=5):
    return BooleanComposition(parse_formula(text), [component_class(name, size) for name in names])


# -- formulas ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, table",
    [
        ("x1 and x2", (0, 0, 0, 1)),
        ("x1 or x2", (0, 1, 1, 1)),
        ("not x1", (1, 0)),
        ("x1 and (x2 or not x3)", (0, 0, 0, 0, 1, 0, 1, 1)),
        ("x2 or False", (0, 1, 0, 1)),
    ],
)
def test_parse_formula_truth_table_has_x1_most_significant(text, table):
    assert parse_formula(text).table == table
    assert from_truth_table("".join(map(str, table))).table == table


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("x1 +", "not a Boolean formula"),
        ("x1 + x2", "only and, or, not"),
        ("__import__('os')", "only and, or, not"),
        ("x0 and x1", "unknown name"),
        ("y1 or x2", "unknown name"),
        ("x1 if x2 else x3", "only and, or, not"),
        ("1 and x1", "only and, or, not"),
        ("", "non-empty"),
    ],
)
def test_malformed_formulas_raise_value_error_naming_formula(text, fragment):
    with pytest.raises(ValueError, match="formula") as error:
        parse_formula(text)
    assert fragment in str(error.value)


def test_truth_table_must_have_power_of_two_bits():
    with pytest.raises(ValueError, match="truth table"):
        from_truth_table("011")
    with pytest.raises(ValueError, match="truth table"):
        from_truth_table("0120")


def test_arity_mismatch_and_unknown_component_raise():
    with pytest.raises(ValueError, match="components: G has arity 2 but 3"):
        small_composition("x1 and x2", ["thresholds"] * 3)
    with pytest.raises(ValueError, match="components: unknown component class 'circles'"):
        component_class("circles", 8)


# -- the class of Lemma 8.18 -----------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Thresholds(6), Intervals(6), Rectangles(3)])
def test_hypothesis_space_lists_every_hypothesis_once_in_completion_order(cls):
    space = HypothesisSpace(cls)
    listed = list(cls.completions())
    assert len(space) == len(listed) and list(space) == listed
    assert all(h in space for h in listed[:: max(1, len(listed) // 20)])
    assert (7, 9) not in space


def test_composition_vc_bound_is_at_least_the_shattered_size_by_enumeration():
    C = small_composition("x1 or x2", ["intervals", "intervals"], size=6)
    P = np.arange(6)
    shattered = max(
        n
        for n in range(1, 7)
        for subset in itertools.combinations(P, n)
        if C.trace(np.array(subset)).size == 2**n
    )
    assert shattered == 4 and C.vc_dimension >= shattered
    assert composition_vc_bound([1]) == 1 and composition_vc_bound([2]) == 2


formulas = st.sampled_from(
    ["x1 and (x2 or not x3)", "x1 or x2 or x3", "not x1 and x3", "(x1 or x2) and not (x2 and x3)"]
)
names = st.lists(st.sampled_from(["thresholds", "intervals"]), min_size=3, max_size=3)


@settings(max_examples=25)
@given(formulas, names, st.lists(st.integers(0, 4), min_size=1, max_size=5), st.integers(0, 2))
def test_restricted_trace_equals_enumerated_completions_lemma_8_18(text, classes, xs, depth):
    C = small_composition(text, classes)
    rng = np.random.default_rng(len(xs) + depth)
    prefix = tuple(C.spaces[j][int(rng.integers(len(C.spaces[j])))] for j in range(depth))
    P = np.unique(xs)
    trace = C.restrict(prefix).trace(P)
    rows = {trace.labeling(j).tobytes() for j in range(trace.size)}
    assert len(rows) == trace.size and rows == brute_labelings(C, prefix, P)
    for j in range(trace.size):
        representative = trace.representative(j)
        assert C.contains(representative) and representative[:depth] == prefix
        assert np.array_equal(C.evaluate(representative, P), trace.labeling(j))


def test_rectangles_read_both_coordinates_and_thresholds_the_first():
    C = BooleanComposition(parse_formula("x1 and not x2"), [Thresholds(4), Rectangles(4)])
    X = np.array([[0, 3], [2, 1], [3, 3]])
    h = ((2,), (1, 3, 0, 2))
    assert C.dimension == 2
    assert C.evaluate(h, X).tolist() == [0, 0, 1]
    P = np.unique(X, axis=0)
    trace = C.trace(X)
    assert {trace.labeling(j).tobytes() for j in range(trace.size)} == brute_labelings(C, (), P)


def test_finite_component_classes_compose():
    H = FiniteClass([[0, 1, 1], [1, 0, 1], [0, 0, 0]])
    C = BooleanComposition(parse_formula("x1 or x2"), [H, Thresholds(3)])
    trace = C.trace(np.arange(3))
    assert {trace.labeling(j).tobytes() for j in range(trace.size)} == brute_labelings(C, (), np.arange(3))


# -- equation (3) and Appendix B -------------------------------------------------------------------


def brute_q(C, prefix, h, X, y):
    spaces = [list(space) for space in C.spaces[len(prefix) + 1 :]]
    return min(int(np.sum(C.evaluate((*tuple(prefix), h, *s), X) != y)) for s in itertools.product(*spaces))


@settings(max_examples=25)
@given(
    formulas,
    names,
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1)), min_size=1, max_size=6),
    st.integers(0, 2),
)
def test_completion_score_equation_3_matches_enumeration(text, classes, sample, depth):
    C = small_composition(text, classes)
    X, y = np.array([s[0] for s in sample]), np.array([s[1] for s in sample])
    prefix = tuple(C.spaces[j][j % len(C.spaces[j])] for j in range(depth))
    trace = C.component_trace(depth, C.distinct(X))
    q = C.completion_disagreements(prefix, trace.labelings, X, y)
    assert q.tolist() == [brute_q(C, prefix, h, X, y) for h in trace.representatives]


@settings(max_examples=30)
@given(
    formulas,
    names,
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1)), min_size=2, max_size=5),
    st.tuples(st.integers(0, 4), st.integers(0, 1)),
    st.integers(0, 4),
    st.integers(0, 1),
)
def test_completion_score_has_matched_sensitivity_one_appendix_b(text, classes, sample, new, slot, depth):
    """Neighbours S, S′ (one record substituted) and h, h′ ∈ H_i agreeing on the common points:
    |q_i(S, h) − q_i(S′, h′)| ≤ 1 (Alon et al. Definition 24, Appendix B)."""
    C = small_composition(text, classes)
    X, y = np.array([s[0] for s in sample]), np.array([s[1] for s in sample])
    X2, y2 = X.copy(), y.copy()
    X2[slot % len(X)], y2[slot % len(X)] = new
    common = np.intersect1d(X, X2)
    prefix = tuple(C.spaces[j][0] for j in range(depth))
    space = list(C.spaces[depth])
    H = C.components[depth]

    def scores(points, labels):  # q_i for every h ∈ H_i (equation (3); checked against enumeration above)
        P = C.distinct(points)
        return C.completion_disagreements(prefix, np.array([H.evaluate(h, P) for h in space]), points, labels)

    q, q2 = scores(X, y), scores(X2, y2)
    agree = np.array(
        [[np.array_equal(H.evaluate(h, common), H.evaluate(h2, common)) for h2 in space] for h in space]
    )
    assert np.all(np.abs(q[:, None] - q2[None, :])[agree] <= 1)


@pytest.mark.parametrize(
    "text, classes",
    [
        ("x1 and (x2 or not x3)", ["thresholds", "intervals", "thresholds"]),
        ("x1 or not x2", ["intervals", "intervals"]),
    ],
)
def test_structural_conditions_of_corollary_8_17_hold_for_compositions(text, classes):
    C = small_composition(text, classes, size=4)
    for depth in range(C.k):
        prefix = tuple(C.spaces[j][len(C.spaces[j]) // 2] for j in range(depth))
        assert C.verify_structural_conditions(prefix, np.array([0, 2, 3])) == {
            "valid_extendable": True,
            "cover": True,
            "local_replacement": True,
        }


def test_structural_condition_check_detects_a_class_without_local_replacement():
    """A non-product parameterisation — C(h) = {G(h, c)} only for c = N − h, G = x2 — fails
    condition 3 of Corollary 8.17 (h, h′ differ at one point, their completions elsewhere):
    the check can fail."""
    from dpledger.learners.concept_classes import materialised_trace

    G = parse_formula("x2 and (x1 or not x1)")
    size = 3

    class Coupled(BooleanComposition):
        def restricted_trace(self, prefix, points):
            P = self.distinct(points)
            tuples = [(h, (size - h[0],)) for h in self.spaces[0] if not prefix or h == prefix[0]]
            rows = {self.evaluate(t, P).tobytes(): t for t in tuples}
            return materialised_trace(
                P, np.array([np.frombuffer(r, np.int8) for r in rows]), list(rows.values())
            )

    product = BooleanComposition(G, [Thresholds(size), Thresholds(size)])
    coupled = Coupled(G, [Thresholds(size), Thresholds(size)])
    assert product.verify_structural_conditions((), np.arange(3))["local_replacement"] is True
    assert coupled.verify_structural_conditions((), np.arange(3))["local_replacement"] is False
