"""GridHalfspaces: the parameterisation of Section 8.1 and exact restricted traces Π_{C(y≤i)}(P)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpledger.learners.halfspaces.geometry import MAX_GRID, GridHalfspaces
from dpledger.learners.halfspaces.perturbation import in_general_position


def _labelings(C, trace, prefix):
    """Check every representative realizes its labeling inside C(prefix); return the labelings."""
    seen = set()
    for i in range(trace.size):
        h = trace.representative(i)
        assert C.contains(h) and tuple(h[: len(prefix)]) == tuple(prefix)
        assert np.array_equal(C.evaluate(h, trace.points), trace.labeling(i))
        seen.add(trace.labeling(i).tobytes())
    assert len(seen) == trace.size
    return seen


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.integers(1, 8), st.integers(0, 2))
def test_restricted_trace_is_exactly_the_set_of_labelings_of_the_restricted_class(seed, dimension, n, depth):
    """Soundness: each representative is in C(prefix) and realizes its labeling. Completeness:
    the labeling of any rational completion, near-vertex ones included, is in the trace."""
    rng = np.random.default_rng(seed)
    C = GridHalfspaces(dimension, 3)
    P = rng.integers(-3, 4, size=(n, dimension))
    prefix = (int(rng.choice([-1, 1])), Fraction(int(rng.integers(-5, 6)), int(rng.integers(1, 4))))[
        : min(depth, dimension)
    ]
    trace = C.restrict(prefix).trace(P) if prefix else C.trace(P)
    seen = _labelings(C, trace, prefix)
    for _ in range(200):
        w = prefix[0] if prefix else int(rng.choice([-1, 1]))
        free = [
            Fraction(int(rng.integers(-60, 61)), int(rng.integers(1, 17)))
            for _ in range(C.k - max(len(prefix), 1))
        ]
        h = (w, *prefix[1:], *free)
        assert C.evaluate(h, trace.points).tobytes() in seen
    for x in P[:3]:  # hyperplanes through sample points (edges and vertices of the arrangement)
        if dimension == 2 and not prefix[1:] and x[1]:
            w = prefix[0] if prefix else 1
            h = (w, Fraction(0), Fraction(w, int(x[1])))
            assert C.evaluate(h, trace.points).tobytes() in seen


def test_trace_size_in_general_position_matches_the_arrangement_count():
    """Lines ⟨a, x_j⟩ = w of n points in general position (and no two parallel) cut the a-plane
    into 1 + n + C(n, 2) faces, each a distinct labeling."""
    rng = np.random.default_rng(5)
    while True:
        P = rng.integers(-40, 41, size=(9, 2))
        parallel = any(P[i, 0] * P[j, 1] == P[i, 1] * P[j, 0] for i in range(9) for j in range(i))
        if in_general_position(np.vstack([P, [[0, 0]]])) and not parallel:
            break
    assert GridHalfspaces(2, 40).restrict((1,)).trace(P).size == 1 + 9 + 36


def test_points_off_the_grid_and_unsupported_sizes_are_refused():
    C = GridHalfspaces(2, 4)
    with pytest.raises(ValueError, match="grid"):
        C.trace(np.array([[5, 0]]))
    with pytest.raises(ValueError, match="dimension"):
        GridHalfspaces(4, 4)
    with pytest.raises(ValueError, match="grid"):
        GridHalfspaces(2, MAX_GRID + 1)
    with pytest.raises(ValueError, match="prefix"):
        C.restrict((0,))


def test_prefixes_are_domain_valued_completions_are_real():
    """Lemma 8.7: an oracle output must lie in Ỹ_i; a completion may be any rational vector
    (the zero completion is valid since w ≠ 0)."""
    C = GridHalfspaces(2, 2)
    assert C.prefix_valid((1, Fraction(3, 4))) and not C.prefix_valid((1, Fraction(1, 9)))
    assert C.contains((1, Fraction(1, 9), Fraction(-7, 1000))) and not C.contains((0, 1, 1))
    assert C.complete((1,)) == (1, 0, 0) and C.evaluate(C.complete((-1,)), np.array([[2, 2]])).tolist() == [1]


def test_degenerate_point_sets_all_parallel_lines_and_the_origin():
    C = GridHalfspaces(2, 6)
    for P in (np.array([[1, 2], [2, 4], [-3, -6]]), np.array([[0, 0]]), np.array([[0, 0], [3, 3]])):
        for w in (-1, 1):
            trace = C.restrict((w,)).trace(P)
            _labelings(C, trace, (w,))
    assert (
        C.restrict((1,)).trace(np.array([[1, 2], [2, 4], [-3, -6]])).size == 4
    )  # 1-D: τ·λ ≥ 1, λ = 1, 2, −3
