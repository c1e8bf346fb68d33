"""Concept classes (Section 4.1 parameterisation) and their traces Π_C(P) (Definition 3.7)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.learners.concept_classes import (
    FiniteClass,
    Halfspaces,
    Intervals,
    Rectangles,
    Thresholds,
    make_class,
)
from dpledger.learners.dichotomies import dichotomies

CLASSES = [
    Thresholds(7),
    Intervals(7),
    Rectangles(4),
    Halfspaces(4, 2, 1),
    Halfspaces(3, 3, 1),
    FiniteClass([[0, 1, 1, 0], [1, 0, 1, 1], [0, 1, 1, 0], [0, 0, 0, 1]]),
]


def _points(concept_class, data):
    side = (
        concept_class.table.shape[1] if isinstance(concept_class, FiniteClass) else concept_class.domain_size
    )
    size = data.draw(st.integers(1, 6)) * concept_class.dimension
    values = np.array(data.draw(st.lists(st.integers(0, side - 1), min_size=size, max_size=size)))
    return values if concept_class.dimension == 1 else values.reshape(-1, concept_class.dimension)


@pytest.mark.parametrize("concept_class", CLASSES, ids=repr)
@given(data=st.data())
@settings(max_examples=25, deadline=None)
def test_dichotomies_by_geometry_equal_the_brute_force_trace(concept_class, data):
    points = _points(concept_class, data)
    labelings, representatives = dichotomies(concept_class, points)
    brute = concept_class.enumerated_trace(points)
    assert {row.tobytes() for row in labelings} == {brute.labeling(i).tobytes() for i in range(brute.size)}
    assert len({row.tobytes() for row in labelings}) == len(labelings)  # one representative per labeling
    P = concept_class.distinct(points)
    for row, h in zip(labelings, representatives, strict=True):
        assert concept_class.contains(h)
        assert (concept_class.evaluate(h, P) == row).all()


@given(st.lists(st.integers(0, 999), min_size=1, max_size=40))
@settings(max_examples=30, deadline=None)
def test_trace_sizes_of_thresholds_and_intervals(values):
    r = len(set(values))
    assert Thresholds(1000).trace(values).size == r + 1
    assert Intervals(1000).trace(values).size == 1 + r * (r + 1) // 2


@pytest.mark.parametrize("concept_class", [Thresholds(9), Intervals(9)], ids=repr)
@given(
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 1)), min_size=1, max_size=8),
    st.lists(st.integers(0, 8), max_size=4),
)
@settings(max_examples=30, deadline=None)
def test_implicit_agreement_scores_match_the_labelings(concept_class, sample, extra):
    x = np.array([p for p, _ in sample])
    y = np.array([label for _, label in sample])
    points, position = np.unique(np.concatenate((x, np.array(extra, dtype=np.int64))), return_inverse=True)
    trace = concept_class.trace(points)
    scores = trace.agreement(position[: len(x)], y)
    for i in range(trace.size):
        assert scores[i] == int((trace.labeling(i)[position[: len(x)]] == y).sum())


def test_intervals_parameterisation_prefixes_restriction_and_completions():
    C = Intervals(5)
    assert C.k == 2 and C.prefix_valid(()) and C.prefix_valid((3,)) and not C.prefix_valid((3, 2))
    assert not C.prefix_valid((6,)) and C.contains((2, 4)) and not C.contains((2,))
    assert list(C.completions((3,))) == [(3, 3), (3, 4), (3, 5)]
    restricted = C.restrict((3,))
    assert restricted.prefix_valid((3, 4)) and not restricted.prefix_valid((2, 4))
    assert set(restricted.completions()) == {(3, 3), (3, 4), (3, 5)}  # C(y≤1) ⊆ C (Section 4.1)
    labelings, representatives = restricted.dichotomies([1, 3, 4])
    assert {tuple(row) for row in labelings} == {(0, 0, 0), (0, 1, 0), (0, 1, 1)}
    assert all(h[0] == 3 for h in representatives)
    with pytest.raises(ValueError, match="prefix"):
        C.restrict((4, 1))


def test_rectangles_and_halfspaces_have_k_components_and_vc_dimension():
    assert (Rectangles(4).k, Rectangles(4).vc_dimension) == (4, 4)
    H = Halfspaces(4, dimension=2, coefficient_bound=1)
    assert H.k == 3 and H.complete(()) == (-6, -1, -1)
    assert Rectangles(3).restrict((1, 2)).complete() == (1, 2, 0, 0)


def test_finite_class_user_components_and_vc_dimension():
    C = FiniteClass([[0, 0], [0, 1], [1, 0], [1, 1]], components=[("a", 0), ("a", 1), ("b", 0), ("b", 1)])
    assert C.vc_dimension == 2 and C.k == 2
    assert list(C.next_values(("a",))) == [0, 1]
    assert (C.evaluate(("b", 0), np.array([0, 1])) == [1, 0]).all()


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: make_class("circles", 4), "class"),
        (lambda: Intervals(0), "domain_size"),
        (lambda: Halfspaces(4, dimension=7), "dimension"),
        (lambda: FiniteClass([[0, 2]]), "labelings"),
        (lambda: FiniteClass([[0, 1], [1, 0]], components=[(0,), (0,)]), "components"),
        (lambda: Intervals(5).trace([1, 7]), "grid"),
        (lambda: Intervals(100).dichotomies(range(100), limit=1000), "limit"),
    ],
)
def test_bad_input_is_a_clear_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def _brute_force_vc(labelings: np.ndarray) -> int:
    """The largest d such that some d columns of the labelings matrix are shattered."""
    from itertools import combinations

    columns = labelings.shape[1]
    best = 0
    for d in range(1, columns + 1):
        shattered = any(
            len({tuple(row) for row in labelings[:, list(subset)]}) == 2**d
            for subset in combinations(range(columns), d)
        )
        if not shattered:
            break
        best = d
    return best


@pytest.mark.parametrize(
    ("name", "size", "grid"),
    [
        ("thresholds", 6, [[x] for x in range(6)]),
        ("intervals", 6, [[x] for x in range(6)]),
        ("rectangles", 3, [[x, y] for x in range(3) for y in range(3)]),
    ],
)
def test_claim_4_1_restricted_classes_have_vc_dimension_at_most_v(name, size, grid):
    concept = make_class(name, size)
    points = np.array(grid)
    whole = concept.trace(points)
    assert _brute_force_vc(np.array([whole.labeling(i) for i in range(whole.size)])) == concept.vc_dimension

    def prefixes(prefix: tuple) -> list[tuple]:
        if len(prefix) == concept.k - 1:
            return [prefix]
        return [prefix] + [p for value in concept.next_values(prefix) for p in prefixes((*prefix, value))]

    for prefix in prefixes(())[1:]:
        restricted = concept.restrict(prefix)
        trace = restricted.trace(points)
        labelings = np.array([trace.labeling(i) for i in range(trace.size)])
        assert _brute_force_vc(labelings) <= concept.vc_dimension == restricted.vc_dimension
