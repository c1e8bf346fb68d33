"""Laws of the catalog's Laplace sampler (sign × exponential) and of the compact transfer of runs."""

from __future__ import annotations

import pickle

import numpy as np
from scipy import stats

from dpledger.verify.audit.montecarlo.catalog import Laplace, snap, snapped_laplace, standard_laplace
from dpledger.verify.audit.montecarlo.executors import ChunkTask, CompactRuns


def test_standard_laplace_has_the_laplace_distribution():
    draws = standard_laplace(np.random.default_rng(0), (100_000, 2)).reshape(-1)
    assert stats.kstest(draws, stats.laplace.cdf).pvalue > 1e-3
    # the tails, where an audit's rare events live: P[X > 6] = e^-6 / 2 on both sides
    tail = np.exp(-6.0) / 2
    for side in (draws, -draws):
        assert abs(np.mean(side > 6.0) - tail) < 5 * np.sqrt(tail / len(draws))


def test_standard_laplace_signs_are_fair_and_independent_of_magnitude():
    draws = standard_laplace(np.random.default_rng(1), (200_000,))
    negative, large = draws < 0, np.abs(draws) > 1.0
    assert abs(negative.mean() - 0.5) < 5 * np.sqrt(0.25 / len(draws))
    assert abs(negative[large].mean() - negative[~large].mean()) < 0.01


def test_snapped_laplace_equals_snap_of_the_sum_bit_for_bit():
    answers = np.array([0.0, 1.0, -3.5, 1e3])
    released = snapped_laplace(answers, 2.5, 5_000, np.random.default_rng(2))
    noise = standard_laplace(np.random.default_rng(2), (5_000, answers.size))
    assert np.array_equal(released, snap(answers + 2.5 * noise))


def test_catalog_laplace_is_reproducible_and_on_the_grid():
    first = Laplace(20.0)(np.zeros(20), 1_000, np.random.default_rng(3))
    again = Laplace(20.0)(np.zeros(20), 1_000, np.random.default_rng(3))
    assert first.shape == (1_000, 20) and np.array_equal(first, again)
    assert np.array_equal(first, snap(first))


def test_naive_catalog_laplace_is_numpys_textbook_laplace():
    released = Laplace(1.0, naive=True)(1.0, 1_000, np.random.default_rng(4))
    assert np.array_equal(released, 1.0 + np.random.default_rng(4).laplace(0.0, 1.0, (1_000, 1))[:, 0])


def _shipped(outputs: np.ndarray) -> tuple[np.ndarray, int]:
    """What the caller receives of a chunk's outputs through pickling, and the pickle's size."""
    payload = pickle.dumps(outputs.view(CompactRuns), protocol=pickle.HIGHEST_PROTOCOL)
    return pickle.loads(payload), len(payload)


def test_grid_outputs_travel_as_float32_and_arrive_as_the_same_float64_bits():
    outputs = Laplace(20.0)(np.zeros(20), 4_096, np.random.default_rng(5))
    received, size = _shipped(outputs)
    assert type(received) is np.ndarray and received.dtype == np.float64
    assert np.array_equal(received.view(np.uint64), outputs.view(np.uint64))
    assert size < 0.6 * outputs.nbytes


def test_naive_float_outputs_travel_as_float64_so_their_low_bits_survive():
    outputs = Laplace(1.0, naive=True)(np.zeros(5), 4_096, np.random.default_rng(6))
    received, size = _shipped(outputs)
    assert np.array_equal(received.view(np.uint64), outputs.view(np.uint64)) and size > outputs.nbytes


def test_a_single_inexact_value_late_in_a_chunk_keeps_it_float64():
    outputs = np.zeros((4_096, 3))
    outputs[-1, 2] = 0.1  # 0.1 is not a float32
    received, size = _shipped(outputs)
    assert received[-1, 2] == 0.1 and size > outputs.nbytes


def test_a_chunk_task_gives_the_same_runs_in_process_and_through_pickling():
    task = ChunkTask(Laplace(2.0), np.arange(3.0), 1_000, np.random.SeedSequence(7))
    here = task()
    received = pickle.loads(pickle.dumps(task()))
    assert np.array_equal(np.asarray(here), received) and received.dtype == np.float64
