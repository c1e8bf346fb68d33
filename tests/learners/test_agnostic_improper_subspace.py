"""The subspace step of PrivateImproperLearner — a degree-D
L1 regression along a direction chosen privately in the top-2 subspace of E[∇p∇pᵀ] — and the
vectorised threshold errors it scores with."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpledger.accountant.events import Claim, Composition, ExponentialMechanism, ParallelComposition
from dpledger.learners.agnostic import PrivateImproperLearner, ProductMarginal
from dpledger.learners.agnostic.blocks import weighted_blocks
from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.agnostic.improper import circle_cover, direction_scores, source_block_share
from dpledger.learners.agnostic.selection import column_threshold_errors, grid_cells, threshold_errors
from dpledger.learners.randomness import Sampled

half_units = st.integers(-8, 8).map(lambda k: k / 2)


@given(
    st.lists(st.tuples(half_units, half_units, st.booleans()), min_size=1, max_size=40),
    st.lists(half_units, min_size=1, max_size=9, unique=True),
)
@example([(0.5, 0.5, True)], [0.5])
@settings(max_examples=200, deadline=None)
def test_column_threshold_errors_count_each_columns_misclassified_records(records, thresholds) -> None:
    """Law: entry (c, j) is the number of records whose label differs from sign(score_c − θ_j)
    (+1 when score ≥ θ, ties included — the scores sit on the grid's half-units)."""
    scores = np.array([[a, b] for a, b, _ in records])
    labels = np.array([1.0 if positive else -1.0 for *_, positive in records])
    grid = np.sort(np.array(thresholds))
    table = column_threshold_errors(scores, labels, grid)
    brute = np.array(
        [[int(np.sum(np.where(scores[:, c] >= t, 1.0, -1.0) != labels)) for t in grid] for c in range(2)]
    )
    assert np.array_equal(table, brute)
    assert np.array_equal(threshold_errors(scores[:, 0], labels, grid[::-1]), brute[0][::-1])


@pytest.mark.parametrize("size, low, high", [(121, -3.0, 3.0), (101, -1.0, 1.0), (7, -0.3, 2.9)])
def test_grid_cells_on_an_even_grid_agree_with_bisection_at_and_beside_every_grid_point(
    size, low, high
) -> None:
    grid = np.linspace(low, high, size)
    scores = np.concatenate(
        [
            np.random.default_rng(0).normal(scale=4, size=10_000),
            grid,
            np.nextafter(grid, -np.inf),
            np.nextafter(grid, np.inf),
            [-np.inf, np.inf],
        ]
    )
    assert np.array_equal(grid_cells(scores, grid), np.searchsorted(grid, scores, side="right"))


def test_circle_cover_is_unit_vectors_of_the_subspace() -> None:
    subspace = np.linalg.qr(np.random.default_rng(1).normal(size=(5, 2)))[0]
    cover = circle_cover(subspace, 12)
    assert np.allclose(np.linalg.norm(cover, axis=1), 1)
    assert np.allclose(cover - cover @ subspace @ subspace.T, 0)  # inside span(V)
    assert np.allclose(cover[0], -cover[6])  # both orientations of every line


@given(st.lists(st.tuples(half_units, st.booleans()), min_size=1, max_size=30))
@settings(max_examples=100, deadline=None)
def test_direction_scores_of_minus_u_are_the_best_open_halfspace_errors(records) -> None:
    """Law: score(−u) = min_t #errors of [⟨−u, x⟩ > t] over the negated grid, counted directly."""
    projection = np.array([[p] for p, _ in records])
    labels = np.array([1.0 if positive else -1.0 for _, positive in records])
    grid = np.linspace(-2, 2, 9)
    plus, minus = direction_scores(projection, labels, grid)
    assert plus == min(int(np.sum(np.where(projection[:, 0] >= t, 1.0, -1.0) != labels)) for t in grid)
    assert minus == min(int(np.sum(np.where(-projection[:, 0] > -t, 1.0, -1.0) != labels)) for t in grid)


def test_subspace_step_adds_one_block_along_a_privately_chosen_direction_and_stays_parallel() -> None:
    sample = halfspace_data(6000, 3, 0.1, "adversarial", Sampled(2))
    learner = PrivateImproperLearner(1, "1e-6", steps=5, n_directions=36, random_state=0).fit(
        sample.X, sample.y
    )
    assert learner.block_degrees_.tolist() == [2, 1, 5]  # degree 2, the logistic candidate, the subspace step
    assert learner.block_losses_ == ["l1", "logistic", "l1"]
    assert learner.block_projections_[:2] == [None, None]
    assert np.array_equal(learner.block_projections_[2][:, 0], learner.direction_)
    assert any(np.array_equal(learner.direction_, u) for u in learner.directions_)
    assert len(learner.block_coefs_[2]) == 6  # h_0, …, h_5 of ⟨u, x⟩
    direction, validation = learner.selections_
    assert direction.count == 36 and direction.private and validation.count == 3 * learner.n_thresholds
    assert isinstance(learner.trace_, Claim) and isinstance(learner.trace_.child, ParallelComposition)
    children = learner.trace_.child.children
    assert len(children) == 5
    assert children[2] == ExponentialMechanism(epsilon=1, candidates=36)
    assert isinstance(children[3], Composition)
    assert children[3].repeat == learner.subspace_steps == 10  # the 1-D regression's own step count
    assert children[4] == ExponentialMechanism(epsilon=1, candidates=3 * learner.n_thresholds)
    assert learner.claim_holds()
    assert np.array_equal(learner.predict(sample.X[:50]), learner.predict(sample.X[:50]))


@pytest.mark.parametrize(
    "change", [{"degree": 1}, {"subspace_degree": None}, {"marginal": ProductMarginal("uniform")}]
)
def test_subspace_step_is_skipped_without_a_degree_two_fit_a_gaussian_marginal_or_when_off(change) -> None:
    sample = halfspace_data(3000, 3, 0.1, "random", Sampled(3))
    learner = PrivateImproperLearner(1, "1e-6", steps=5, random_state=0, **change).fit(sample.X, sample.y)
    assert learner.direction_ is None and len(learner.selections_) == 1
    assert all(projection is None for projection in learner.block_projections_)


def test_subspace_step_is_skipped_when_its_blocks_would_be_empty() -> None:
    sample = halfspace_data(12, 2, 0.1, "random", Sampled(4))
    learner = PrivateImproperLearner(1, "1e-6", steps=2, random_state=0).fit(sample.X, sample.y)
    assert learner.direction_ is None


@pytest.mark.parametrize(
    "name, value",
    [
        ("subspace_degree", 0),
        ("n_directions", 1),
        ("n_directions", 7),
        ("subspace_fraction", 1.5),
        ("subspace_steps", 0),
    ],
)
def test_bad_subspace_parameters_are_refused(name, value) -> None:
    sample = halfspace_data(400, 2, 0.1, "random", Sampled(6))
    with pytest.raises(ValueError, match=name):
        PrivateImproperLearner(1, "1e-6", **{name: value}).fit(sample.X, sample.y)


@pytest.mark.slow
def test_subspace_step_removes_the_far_one_sided_bias_of_low_degree_l1_regression() -> None:
    """Under far one-sided flips (d = 10, Gaussian) the learner without the step
    stays ≥ 0.05 above OPT even without privacy (degree ≤ 2 L1 regression is biased); with it, the
    private learner at ε = 1 is within OPT + 0.02 on held-out records of the same distribution."""
    sample = halfspace_data(120_000, 10, 0.1, "adversarial", Sampled(1001))
    train, test = slice(0, 100_000), slice(100_000, None)
    opt = np.mean(sample.target_predictions(sample.X[test]) != sample.y[test])

    def excess(learner: PrivateImproperLearner) -> float:
        return float(
            np.mean(learner.fit(sample.X[train], sample.y[train]).predict(sample.X[test]) != sample.y[test])
            - opt
        )

    assert excess(PrivateImproperLearner(None, None, subspace_degree=None, random_state=0)) > 0.05
    assert excess(PrivateImproperLearner(1, 1e-5, random_state=0)) <= 0.02


@pytest.mark.parametrize(
    "n, share", [(5_000, 0.4), (20_000, 0.4), (30_000, 0.6), (50_000, 1.0), (100_000, 1.0)]
)
def test_source_block_share_grows_with_n_from_0_4_to_equal_blocks_at_50000(n, share) -> None:
    assert source_block_share(n) == pytest.approx(share)


def test_weighted_blocks_split_in_proportion_and_refuse_a_block_below_the_minimum() -> None:
    assert weighted_blocks(1501, [1.0, 0.5], 2, "n") == [1000, 500]
    with pytest.raises(ValueError, match="n: 10 records give a block of 0 < 2"):
        weighted_blocks(10, [1.0, 0.1], 2, "n")


def test_default_source_share_is_the_rule_on_n_and_changes_the_fit_only_below_50000() -> None:
    sample = halfspace_data(50_000, 3, 0.1, "random", Sampled(8))
    options: dict[str, Any] = {"steps": 3, "subspace_steps": 2, "random_state": 0}
    default = PrivateImproperLearner(1, 1e-5, **options).fit(sample.X, sample.y)
    equal = PrivateImproperLearner(1, 1e-5, source_share=1.0, **options).fit(sample.X, sample.y)
    assert np.array_equal(default.block_coefs_[0], equal.block_coefs_[0])
    small = slice(0, 20_000)
    default = PrivateImproperLearner(1, 1e-5, **options).fit(sample.X[small], sample.y[small])
    shared = PrivateImproperLearner(1, 1e-5, source_share=0.4, **options).fit(
        sample.X[small], sample.y[small]
    )
    equal = PrivateImproperLearner(1, 1e-5, source_share=1.0, **options).fit(sample.X[small], sample.y[small])
    assert np.array_equal(default.block_coefs_[0], shared.block_coefs_[0])
    assert not np.array_equal(default.block_coefs_[0], equal.block_coefs_[0])


@pytest.mark.parametrize("share", [0, -0.5, 1.5, "half", True])
def test_bad_source_share_is_refused(share) -> None:
    sample = halfspace_data(400, 2, 0.1, "random", Sampled(6))
    with pytest.raises(ValueError, match="source_share must be a number in"):
        PrivateImproperLearner(1, 1e-5, source_share=share).fit(sample.X, sample.y)
