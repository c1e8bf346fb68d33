"""How chunks of runs travel from local workers to the audit: through shared memory, or the pipe."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dpledger.verify.audit.montecarlo.executors import InProcessExecutor, local_processes
from dpledger.verify.audit.montecarlo.runner import (
    InProcessRunner,
    LocalPoolRunner,
    Runner,
    open_runner,
    runner_class,
)
from dpledger.verify.audit.montecarlo.tasks import ChunkTask, chunk_seeds
from dpledger.verify.audit.montecarlo.transport import (
    SHARED_MEMORY,
    SHARED_PREFIX,
    SharedChunkTask,
    SharedRuns,
    received,
    shared_directory,
)


def _gaussian_vectors(data, n, rng):
    return data + rng.standard_normal((n, 5))


def _task() -> ChunkTask:
    return ChunkTask(_gaussian_vectors, np.zeros(5), 3000, chunk_seeds(7, 1, 1)[0][0][0])


def test_shared_chunk_gives_the_same_runs_as_the_pipe_and_leaves_no_file(tmp_path):
    left = SharedChunkTask(_task(), str(tmp_path))()
    assert isinstance(left, SharedRuns)
    runs = received(left)
    assert isinstance(runs, np.ndarray)
    np.testing.assert_array_equal(runs, _task()())
    assert runs.dtype == np.float64 and runs.shape == (3000, 5)
    assert list(tmp_path.iterdir()) == []


def test_shared_chunk_falls_back_to_the_runs_when_the_file_cannot_be_written(tmp_path):
    result = SharedChunkTask(_task(), str(tmp_path / "gone"))()
    assert isinstance(result, np.ndarray)
    np.testing.assert_array_equal(result, _task()())


def test_shared_directory_only_for_local_process_pools_and_removed_at_the_end():
    assert runner_class(InProcessExecutor()) is InProcessRunner
    with ThreadPoolExecutor(1) as threads:
        assert runner_class(threads) is Runner
        with open_runner(threads, 0.0, None) as runner:
            assert not hasattr(runner, "directory")
    assert runner_class(None) is LocalPoolRunner
    with local_processes(1) as pool:
        with open_runner(pool, 0.0, None) as runner:
            assert isinstance(runner, LocalPoolRunner)
            directory = runner.directory
            if directory is None:  # no /dev/shm on this machine: the pipe is used
                return
            assert os.path.isdir(directory)
            open(os.path.join(directory, "left-over"), "wb").close()
        assert not os.path.exists(directory)


def test_shared_directories_of_killed_audits_are_removed_by_the_next_one():
    if not os.path.isdir(SHARED_MEMORY):
        return
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    ).stdout.strip()  # a process id that no longer runs
    orphan = tempfile.mkdtemp(prefix=f"{SHARED_PREFIX}{dead}-", dir=SHARED_MEMORY)
    open(os.path.join(orphan, "0-0-0"), "wb").close()
    alive = tempfile.mkdtemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=SHARED_MEMORY)
    try:
        with shared_directory():
            assert not os.path.exists(orphan)
            assert os.path.isdir(alive)  # an audit still running keeps its chunks
    finally:
        shutil.rmtree(alive, ignore_errors=True)
        shutil.rmtree(orphan, ignore_errors=True)
