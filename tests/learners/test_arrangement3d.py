"""Halfspaces in d = 3 counted by score (learners/halfspaces/arrangement3d.py): the counts equal an
exact brute-force listing (Fourier–Motzkin feasibility of every labeling) on small, highly
degenerate grids; ranks give distinct labelings, each realised by its representative."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpledger.learners.halfspaces import arrangement3d
from dpledger.learners.halfspaces.arrangement3d import HalfspaceTrace3D, UpperCells, _lexsign, _local_cells
from dpledger.learners.halfspaces.geometry import GridHalfspaces
from dpledger.learners.score_counts import unranked


def strictly_feasible(constraints: list[tuple[tuple[int, ...], int]]) -> bool:
    """∃ a ∈ Q³ with ⟨α, a⟩ + β > 0 for every (α, β): Fourier–Motzkin elimination, exact."""
    system = {(tuple(Fraction(v) for v in alpha), Fraction(beta)) for alpha, beta in constraints}
    for v in range(3):
        upper = [(a, b) for a, b in system if a[v] > 0]
        lower = [(a, b) for a, b in system if a[v] < 0]
        system = {(a, b) for a, b in system if a[v] == 0}
        for (ap, bp), (an, bn) in itertools.product(upper, lower):
            system.add(
                (tuple(x / ap[v] - y / an[v] for x, y in zip(ap, an, strict=True)), bp / ap[v] - bn / an[v])
            )
    return all(b > 0 for _, b in system)


def listed(P: np.ndarray, signs: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every labeling of P by 1[⟨a, x⟩ ≥ w], w ∈ signs: a labeling is realised iff it is realised
    strictly (the cells), checked by Fourier–Motzkin."""
    found = set()
    for w in signs:
        for g in itertools.product((0, 1), repeat=len(P)):
            side = [1 if b else -1 for b in g]
            if strictly_feasible(
                [(tuple(s * int(v) for v in x), -s * w) for x, s in zip(P.tolist(), side, strict=True)]
            ):
                found.add(g)
    return found


def realizes(hypothesis, P: np.ndarray, g: np.ndarray) -> bool:
    """1[⟨a, x⟩ ≥ w] = g on every point of P, exactly."""
    w, *a = hypothesis
    return [
        int(sum(Fraction(c) * int(v) for c, v in zip(a, x, strict=True)) >= w) for x in P.tolist()
    ] == g.tolist()


def histogram(labelings, P: np.ndarray, index: np.ndarray, labels: np.ndarray) -> np.ndarray:
    n = [np.bincount(index[labels == b], minlength=len(P)) for b in (0, 1)]
    out = np.zeros(len(labels) + 1, dtype=np.int64)
    for g in labelings:
        out[sum(n[b][ell] for ell, b in enumerate(g))] += 1
    return out


@st.composite
def samples(draw, grid: int, largest: int):
    """Distinct points of [[±grid]]³ (coplanar and collinear subsets are frequent) and a labeled
    sample on them."""
    cube = list(itertools.product(range(-grid, grid + 1), repeat=3))
    rows = draw(st.lists(st.sampled_from(cube), min_size=1, max_size=largest, unique=True))
    P = np.array(rows, dtype=np.int64)
    records = draw(st.lists(st.tuples(st.integers(0, len(P) - 1), st.integers(0, 1)), min_size=0, max_size=9))
    index = np.array([r for r, _ in records], dtype=np.int64)
    labels = np.array([b for _, b in records], dtype=np.int64)
    return P, index, labels


def check_against_listing(P, index, labels, signs):
    trace = HalfspaceTrace3D(P, index, labels, signs)
    truth = listed(P, signs)
    assert np.array_equal(trace.histogram, histogram(truth, P, index, labels))
    drawn = set()
    for _, g in unranked(trace):
        drawn.add(tuple(g.tolist()))
        assert realizes(trace.representative(g), P, g)
    assert drawn == truth and len(drawn) == trace.size


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(samples(grid=1, largest=7))
def test_counts_ranks_and_representatives_equal_the_listing_on_the_unit_cube(sample):
    P, index, labels = sample
    check_against_listing(P, index, labels, (-1, 1))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(samples(grid=2, largest=7))
def test_counts_ranks_and_representatives_equal_the_listing_on_grid_2(sample):
    P, index, labels = sample
    check_against_listing(P, index, labels, (-1, 1))


@settings(max_examples=30, deadline=None)
@given(samples(grid=3, largest=6), st.sampled_from([(1,), (-1,)]))
def test_one_threshold_w_gives_exactly_the_cells_of_that_w(sample, signs):
    P, index, labels = sample
    check_against_listing(P, index, labels, signs)


def test_planar_points_have_the_two_dimensional_listed_trace():
    """P ⊂ {x₃ = 0}: a₃ is irrelevant, so the counts by score are those of the d = 2 listing."""
    rng = np.random.default_rng(5)
    plane = np.unique(rng.integers(-4, 5, (24, 2)), axis=0)
    index, labels = rng.integers(0, len(plane), 30), rng.integers(0, 2, 30)
    trace = GridHalfspaces(2, 4).trace(plane)
    expected = np.bincount(trace.agreement(index, labels), minlength=31)
    P = np.hstack([plane, np.zeros((len(plane), 1), dtype=np.int64)])
    assert np.array_equal(HalfspaceTrace3D(P, index, labels).histogram, expected)


def test_lowest_local_cells_at_a_vertex_number_one_minus_k_plus_the_line_excess():
    """Zaslavsky: a generic section of a rank-3 central arrangement of k planes has
    1 − k + Σ_lines (planes on it − 1) bounded cells — the cells with lowest vertex there."""
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(200):
        XI = np.unique(rng.integers(-2, 3, (rng.integers(3, 9), 3)), axis=0)
        XI = XI[np.any(XI != 0, axis=1)]
        XI = XI[
            np.unique(
                XI // np.gcd.reduce(np.abs(XI), axis=1)[:, None] * _lexsign(XI)[:, None],
                axis=0,
                return_index=True,
            )[1]
        ]  # one normal per plane through 0
        if len(XI) < 3 or np.linalg.matrix_rank(XI) < 3:
            continue
        vertex, _, _ = _local_cells(XI[None])
        lines = {
            tuple(np.flatnonzero(XI @ r == 0))
            for r in np.cross(XI[:, None], XI[None]).reshape(-1, 3)
            if r.any()
        }
        excess = sum(len(planes) - 1 for planes in lines)
        assert len(vertex) == 1 - len(XI) + excess
        checked += 1
    assert checked > 50


def test_ranks_of_a_score_give_uniform_labelings():
    """Uniform ranks → labelings: chi-square against the uniform law on the score group."""
    rng = np.random.default_rng(11)
    P = np.unique(rng.integers(-3, 4, (9, 3)), axis=0)
    index, labels = rng.integers(0, len(P), 12), rng.integers(0, 2, 12)
    trace = HalfspaceTrace3D(P, index, labels)
    table = trace.score_counts()
    score, count = max(zip(table.scores, table.counts, strict=True), key=lambda sc: sc[1])
    assert count >= 20
    draws = Counter(
        tuple(trace.labeling(score, int(rng.integers(count))).tolist()) for _ in range(60 * count)
    )
    assert len(draws) == count
    assert stats.chisquare(list(draws.values())).pvalue > 1e-3


def test_general_position_points_have_the_cubic_number_of_cells():
    """No three points collinear with 0, no four on a plane, no two parallel: |T_1| is
    C(n, 3) + C(n, 2) + n + 1 and the union adds T_{−1} minus the central cells (n² − n + 2)."""
    P = np.array([[1, 2, 5], [3, -7, 2], [-4, 1, 9], [6, 5, -3], [2, 9, 4], [-8, -3, 7], [5, -2, -9]])
    n = len(P)
    upper = HalfspaceTrace3D(P, np.zeros(0, int), np.zeros(0, int), (1,)).size
    assert upper == len(listed(P, (1,))) == n * (n - 1) * (n - 2) // 6 + n * (n - 1) // 2 + n + 1
    assert HalfspaceTrace3D(P, np.zeros(0, int), np.zeros(0, int)).size == 2 * upper - (n * n - n + 2)


def test_a_labeling_outside_the_trace_has_no_representative():
    P = np.array([[1, 0, 0], [2, 0, 0], [3, 0, 0]])
    trace = HalfspaceTrace3D(P, np.array([0]), np.array([1]))
    with pytest.raises(ValueError, match="not a labeling"):
        trace.representative(np.array([1, 0, 1]))


@pytest.mark.parametrize(
    "points, index, labels, message",
    [
        (np.array([[0.5, 0, 0]]), [0], [1], "integer"),
        (np.array([[257, 0, 0]]), [0], [1], "256"),
        (np.array([[1, 0, 0], [1, 0, 0]]), [0], [1], "distinct"),
        (np.array([[1, 0]]), [0], [1], "n × 3"),
        (np.array([[1, 0, 0]]), [1], [1], "row of points"),
        (np.array([[1, 0, 0]]), [0], [2], "0/1"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(points, index, labels, message):
    with pytest.raises(ValueError, match=message):
        HalfspaceTrace3D(points, np.array(index), np.array(labels))


def test_rows_with_colliding_float_keys_take_the_exact_path_and_count_the_same(monkeypatch):
    """Force every pre-sort key to collide: each line is then swept with exact Fractions."""
    rng = np.random.default_rng(4)
    P = np.unique(rng.integers(-3, 4, (9, 3)), axis=0)
    index, labels = rng.integers(0, len(P), 20), rng.integers(0, 2, 20)
    fast = HalfspaceTrace3D(P, index, labels)
    monkeypatch.setattr(UpperCells, "_keys", staticmethod(lambda F, G: np.where(G != 0, 0.0, np.inf)))
    exact = HalfspaceTrace3D(P, index, labels)
    assert len(exact.cells.simple) == 0 < len(fast.cells.simple)
    assert np.array_equal(exact.histogram, fast.histogram)


def test_hash_collisions_are_resolved_by_exact_comparison(monkeypatch):
    """With every hash weight equal (the hash only counts ones) the shared cells and the
    representatives are still found exactly."""
    rng = np.random.default_rng(8)
    P = np.unique(rng.integers(-2, 3, (8, 3)), axis=0)
    index, labels = rng.integers(0, len(P), 10), rng.integers(0, 2, 10)
    expected = HalfspaceTrace3D(P, index, labels)

    class Ones:
        def integers(self, low, high, size, dtype):
            return np.zeros(size, dtype=dtype)

    monkeypatch.setattr(arrangement3d.np.random, "default_rng", lambda seed: Ones())
    colliding = HalfspaceTrace3D(P, index, labels)
    assert len(np.unique(colliding.cells.hash)) <= len(P) + 1 < len(colliding.cells.hash)
    assert np.array_equal(colliding.histogram, expected.histogram)
    assert np.array_equal(colliding.shared, expected.shared)
    for _, g in unranked(colliding):
        assert realizes(colliding.representative(g), P, g)


def test_grid_halfspaces_in_3d_list_the_fourier_motzkin_trace_for_the_exact_auditor():
    """GridHalfspaces(3, X).trace (what Enumerated randomness, the exact auditor, uses) is the
    listing by exact feasibility, for the class and for the prefix (w,)."""
    P = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1], [1, 1, 1], [-1, 2, 0], [2, -1, 1]], dtype=np.int64)
    C = GridHalfspaces(3, 2)
    for prefix, signs in [((), (-1, 1)), ((1,), (1,)), ((-1,), (-1,))]:
        trace = C.restrict(prefix).trace(P) if prefix else C.trace(P)
        rows = {tuple(trace.labeling(i).tolist()) for i in range(trace.size)}
        assert rows == listed(trace.points, signs) and len(rows) == trace.size
        for i in range(trace.size):
            assert C.evaluate(trace.representative(i), trace.points).tolist() == trace.labeling(i).tolist()


def test_labelboost_on_3d_halfspaces_samples_the_counted_trace_without_listing(monkeypatch):
    """Sampled LabelBoost over GridHalfspaces(3, X) draws from the counted trace (the listing is
    never called) and its representative realizes the drawn labeling."""
    from dpledger.learners.halfspaces import geometry
    from dpledger.learners.labelboost import labelboost
    from dpledger.learners.randomness import Sampled

    def never(*args, **kwargs):
        raise AssertionError("the 3-D trace was listed")

    monkeypatch.setattr(geometry, "_listed_3d", never)
    rng = np.random.default_rng(3)
    X = rng.integers(-16, 17, size=(60, 3))
    y = (X @ np.array([1, -2, 1]) >= 1).astype(int)
    C = GridHalfspaces(3, 16)
    result = labelboost(C, X[:30], y[:30], X[30:], Sampled(0))
    assert C.evaluate(result.hypothesis, result.points).tolist() == result.labeling.tolist()
    assert (
        result.candidates
        == HalfspaceTrace3D(result.points, np.zeros(0, np.int64), np.zeros(0, np.int64)).size
    )


def feasible(constraints: list[tuple[tuple[Fraction, ...], Fraction, bool]]) -> bool:
    """∃ a with ⟨c, a⟩ + b > 0 (strict) or ≥ 0 for every (c, b, strict): Fourier–Motzkin, exact."""
    system = set(constraints)
    for v in range(len(next(iter(system))[0]) if system else 0):
        upper = [r for r in system if r[0][v] > 0]
        lower = [r for r in system if r[0][v] < 0]
        system = {r for r in system if r[0][v] == 0}
        for (cp, bp, sp), (cn, bn, sn) in itertools.product(upper, lower):
            system.add(
                (
                    tuple(x / cp[v] - y / cn[v] for x, y in zip(cp, cn, strict=True)),
                    bp / cp[v] - bn / cn[v],
                    sp or sn,
                )
            )
    return all(b > 0 if strict else b >= 0 for _, b, strict in system)


@settings(max_examples=30, deadline=None)
@given(
    samples(grid=2, largest=6),
    st.sampled_from([1, -1]),
    st.sampled_from([Fraction(0), Fraction(1), Fraction(-1, 2), Fraction(2, 3)]),
)
def test_3d_trace_after_w_and_a1_is_every_labeling_with_point_dependent_offsets(sample, w, a1):
    """Π_{C(w, a_1)}(P) in d = 3 (labels [a_2 x_2 + a_3 x_3 ≥ w − a_1 x_1], lines of the (a_2, a_3)-
    plane with point-dependent offsets, faces included): exactly the labelings feasible by exact
    Fourier–Motzkin, each once, each representative realizing it; a_1 = 0 makes lines coincide."""
    P = sample[0]
    trace = GridHalfspaces(3, 2).restrict((w, a1)).trace(P)
    truth = set()
    for g in itertools.product((0, 1), repeat=len(P)):
        constraints: list[tuple[tuple[Fraction, ...], Fraction, bool]] = []
        for x, b in zip(trace.points.tolist(), g, strict=True):
            sign = 1 if b else -1  # b = 1: ⟨(x_2, x_3), a⟩ + a_1 x_1 − w ≥ 0; b = 0: < 0
            constraints.append(
                ((Fraction(sign * x[1]), Fraction(sign * x[2])), Fraction(sign * (a1 * x[0] - w)), not b)
            )
        if feasible(constraints):
            truth.add(g)
    rows = [tuple(trace.labeling(i).tolist()) for i in range(trace.size)]
    assert set(rows) == truth and len(rows) == trace.size
    for i in range(trace.size):
        h = trace.representative(i)
        assert h[:2] == (w, a1) and realizes(h, trace.points, trace.labeling(i))


def test_labelboost_after_w_and_a1_in_3d_lists_the_restricted_trace():
    """Sampled LabelBoost over C(w, a_1) in d = 3 has no counted trace: it draws from the listing
    and its hypothesis labels the points as drawn."""
    from dpledger.learners.labelboost import labelboost
    from dpledger.learners.randomness import Sampled

    rng = np.random.default_rng(5)
    X = rng.integers(-8, 9, size=(80, 3))
    prefix = (1, Fraction(1, 3))
    y = GridHalfspaces(3, 8).evaluate((*prefix, Fraction(-1), Fraction(1, 2)), X).astype(int)
    C = GridHalfspaces(3, 8).restrict(prefix)
    result = labelboost(C, X[:40], y[:40], X[40:], Sampled(0))
    assert tuple(result.hypothesis[:2]) == prefix
    assert C.evaluate(result.hypothesis, result.points).tolist() == result.labeling.tolist()
    assert result.candidates == C.trace(result.points).size
