"""How chunks of runs travel from local workers to the audit: through shared memory, or the pipe."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dpledger.verify.audit.montecarlo.executors import (ChunkTask, SharedChunkTask, SharedRuns, chunk_seeds,
                                                      local_processes, received, shared_directory)


def _gaussian_vectors(data, n, rng):
    return data + rng.standard_normal((n, 5))


def _task() -> ChunkTask:
    return ChunkTask(_gaussian_vectors, np.zeros(5), 3000, chunk_seeds(7, 1, 1)[0][0][0])


def test_shared_chunk_gives_the_same_runs_as_the_pipe_and_leaves_no_file(tmp_path):
    left = SharedChunkTask(_task(), str(tmp_path))()
    assert isinstance(left, SharedRuns)
    runs = received(left)
    np.testing.assert_array_equal(runs, _task()())
    assert runs.dtype == np.float64 and runs.shape == (3000, 5)
    assert list(tmp_path.iterdir()) == []


def test_shared_chunk_falls_back_to_the_runs_when_the_file_cannot_be_written(tmp_path):
    result = SharedChunkTask(_task(), str(tmp_path / "gone"))()
    assert isinstance(result, np.ndarray)
    np.testing.assert_array_equal(result, _task()())


def test_shared_directory_only_for_local_process_pools_and_removed_at_the_end():
    with ThreadPoolExecutor(1) as threads, shared_directory(threads) as directory:
        assert directory is None
    with local_processes(1) as pool:
        with shared_directory(pool) as directory:
            if directory is None:  # no /dev/shm on this machine: the pipe is used
                return
            assert os.path.isdir(directory)
            open(os.path.join(directory, "left-over"), "wb").close()
        assert not os.path.exists(directory)
