"""Where mechanism runs execute: any ``concurrent.futures.Executor``.

Work is cut into chunks whose sizes depend only on the sample budget, and every chunk draws
from its own ``numpy.random.SeedSequence`` child — ``SeedSequence(seed).spawn(pairs)``, then
``.spawn(2)`` per pair (the two inputs), then ``.spawn(chunks)`` per input — so an audit gives
the same numbers in process, on threads, on local processes or on a Dask cluster.

A mechanism should draw from the ``rng`` it is given; one that draws from numpy's global RNG or
Python's ``random`` instead still gets reproducible, non-repeating numbers: every task seeds both
from its own seed sequence before it runs (and restores them after, so an in-process audit leaves
the caller's global state alone). Threads share those global generators, so only a mechanism
that uses its ``rng`` is reproducible on a thread pool.

Transport. On a local process pool a chunk's runs are not pickled through the pool's pipe (for
20-d outputs that cost as much CPU as generating them): the worker writes them to a file
in shared memory (``/dev/shm``, :class:`SharedChunkTask`) and the caller maps that file and
removes its name (:class:`SharedRuns`) — the bytes are written once and never copied again. A
worker that cannot write there (no ``/dev/shm``, or it is full) returns the runs as before; Dask
and other executors always do. A :class:`ReducingChunkTask` sends less: its search-split runs, and
in place of its estimation-split runs the values of the statistics the audit gave it.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import os
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic, evaluate
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, run_mechanism

MIN_CHUNK = 1024
MAX_CHUNK = 1 << 16
TARGET_CHUNKS = 16


def chunk_shape(samples: int) -> tuple[int, int, int]:
    """``(size, full, rest)``: ``samples`` runs cut into ``full`` chunks of ``size`` and one of
    ``rest`` when ``rest > 0`` (about 16 chunks of 1024–65536 runs)."""
    size = min(max(math.ceil(samples / TARGET_CHUNKS), MIN_CHUNK), MAX_CHUNK)
    return (size, *divmod(samples, size))


def chunk_sizes(samples: int) -> list[int]:
    """Chunk sizes for ``samples`` runs on one input (:func:`chunk_shape`)."""
    size, full, rest = chunk_shape(samples)
    return [size] * full + ([rest] if rest else [])


def chunk_seeds(seed: int, pairs: int, chunks: int) -> list[list[list[np.random.SeedSequence]]]:
    """``seeds[pair][side][chunk]``, spawned from ``SeedSequence(seed)``."""
    return [
        [side.spawn(chunks) for side in pair.spawn(2)] for pair in np.random.SeedSequence(seed).spawn(pairs)
    ]


GLOBAL_KEY = 2**32 - 1
"""The spawn-key element of the seed of a task's global generators: a child of the task's seed
that nothing else spawns (the task's own ``rng`` uses the seed itself)."""


@contextlib.contextmanager
def seeded_globals(seed: np.random.SeedSequence) -> Iterator[None]:
    """numpy's global RNG and Python's ``random`` seeded from a child of ``seed`` for the duration;
    their previous states restored afterwards."""
    words = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, GLOBAL_KEY)).generate_state(4)
    numpy_state, python_state = np.random.get_state(), random.getstate()
    np.random.seed(words)
    random.seed(int.from_bytes(words.tobytes(), "little"))
    try:
        yield
    finally:
        np.random.set_state(numpy_state)
        random.setstate(python_state)


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of runs of a mechanism on one input; submitted to executors as the callable."""

    mechanism: Mechanism
    data: Any
    n_samples: int
    seed: np.random.SeedSequence

    def __call__(self) -> np.ndarray:
        with seeded_globals(self.seed):
            return run_mechanism(self.mechanism, self.data, self.n_samples, np.random.default_rng(self.seed))


SHARED_MEMORY = "/dev/shm"


@dataclass(frozen=True)
class SharedRuns:
    """A chunk's runs left by a local worker in a file of shared memory."""

    path: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def load(self) -> np.ndarray:
        """The runs, mapped copy-on-write rather than read; the file's name is removed at once (the
        mapping keeps the memory until the runs are dropped)."""
        with open(self.path, "rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)
        os.unlink(self.path)
        return np.frombuffer(mapped, dtype=self.dtype).reshape(self.shape)


POPULATE_BYTES = 1 << 24
"""Arrays from this size on are allocated with their pages mapped at once (:func:`populated_empty`)."""


def populated_empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``, its memory mapped in one batch (``MAP_POPULATE``) when it is
    large: on a virtual machine a page's first touch can cost microseconds, and filling a search
    buffer of hundreds of megabytes page by page cost the audit's main thread more than searching
    it. Falls back to ``np.empty`` where the flag does not exist."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    populate = getattr(mmap, "MAP_POPULATE", None)
    if nbytes < POPULATE_BYTES or populate is None:
        return np.empty(shape, dtype)
    memory = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | populate)
    return np.frombuffer(memory, dtype=dtype).reshape(shape)


@dataclass(frozen=True)
class ReducedRuns:
    """What a :class:`ReducingChunkTask` returns: the chunk's search-split runs (``head``) and, in
    place of its ``rest`` estimation-split runs, the values on them of the task's statistics."""

    head: np.ndarray | SharedRuns
    values: np.ndarray | SharedRuns
    rest: int

    def columns(self) -> tuple[np.ndarray, ...]:
        """The values of each statistic, in the task's order (``values``, once received, holds one
        row each)."""
        return tuple(self.values)  # type: ignore[arg-type]  # ReducedRuns holds arrays or their shared-memory handles


@dataclass(frozen=True)
class ReducingChunkTask:
    """A :class:`ChunkTask` that keeps only its first ``selection`` runs (they join the search
    split) and reduces the others (the estimation split) to the values of ``statistics`` — the
    fitted statistics the estimation will read, evaluated where the runs are made (the
    runs of 20-d outputs cost more to send, store and read again than to make). The same runs as
    the unreduced task, so the same numbers."""

    task: ChunkTask
    selection: int
    statistics: tuple[Statistic, ...]

    @property
    def seed(self) -> np.random.SeedSequence:
        return self.task.seed

    def __call__(self) -> ReducedRuns:
        outputs = self.task()
        rest = outputs[self.selection :]
        values = evaluate(list(self.statistics), rest)
        return ReducedRuns(
            np.ascontiguousarray(outputs[: self.selection]),
            np.stack(values) if values else np.empty((0, len(rest))),
            len(rest),
        )


@dataclass(frozen=True)
class SharedChunkTask:
    """A chunk task whose runs go back through a file in ``directory`` (shared memory) instead of
    the pool's pipe; the runs themselves when the file cannot be written. A reducing task sends
    its search-split runs and its statistics' values that way, in two files (through the pipe,
    megabytes of values would wait for the caller's thread that reads it)."""

    task: ChunkTask | ReducingChunkTask
    directory: str

    def __call__(self) -> np.ndarray | SharedRuns | ReducedRuns:
        result = self.task()
        if isinstance(result, ReducedRuns):
            return ReducedRuns(self._shared(result.head), self._shared(result.values, "values"), result.rest)  # type: ignore[arg-type]  # ReducedRuns holds arrays or their shared-memory handles
        return self._shared(result)

    def _shared(self, outputs: np.ndarray, suffix: str = "runs") -> np.ndarray | SharedRuns:
        outputs = np.ascontiguousarray(outputs)
        if outputs.nbytes == 0:
            return outputs
        path = os.path.join(self.directory, "-".join(map(str, self.task.seed.spawn_key)) + "-" + suffix)
        try:
            with open(path, "xb") as file:
                file.write(outputs.reshape(-1).view(np.uint8))  # type: ignore[arg-type]  # a contiguous array is a buffer
        except OSError:  # full, or gone: the pipe still works
            with contextlib.suppress(OSError):
                os.unlink(path)
            return outputs
        return SharedRuns(path, outputs.shape, outputs.dtype)


def received(result: np.ndarray | SharedRuns | ReducedRuns) -> np.ndarray | ReducedRuns:
    """A chunk task's runs, mapped from shared memory when the worker left them there."""
    if isinstance(result, ReducedRuns):
        return ReducedRuns(received(result.head), received(result.values), result.rest)  # type: ignore[arg-type]  # ReducedRuns holds arrays or their shared-memory handles
    return result.load() if isinstance(result, SharedRuns) else result


SHARED_PREFIX = "dpledger-audit-"


@contextlib.contextmanager
def shared_directory(executor: Executor) -> Iterator[str | None]:
    """A fresh directory in shared memory for the chunks of a local process pool, removed with
    whatever is left in it (chunks of a stopped audit) at the end; None for other executors or
    where there is no ``/dev/shm``. Its name carries the caller's process id, so that the
    directories of audits whose process was killed — the ``finally`` never ran — are removed by
    the next audit (:func:`remove_orphans`)."""
    if not isinstance(executor, ProcessPoolExecutor) or not os.path.isdir(SHARED_MEMORY):
        yield None
        return
    remove_orphans()
    try:
        directory = tempfile.mkdtemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=SHARED_MEMORY)
    except OSError:
        yield None
        return
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def remove_orphans() -> list[str]:
    """Remove this user's chunk directories in shared memory whose audit process no longer runs;
    returns their paths."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(SHARED_MEMORY):
            owner = entry.name[len(SHARED_PREFIX) :].split("-", 1)[0]
            if (
                not entry.name.startswith(SHARED_PREFIX)
                or not owner.isdigit()
                or entry.stat(follow_symlinks=False).st_uid != os.getuid()
                or _running(int(owner))
            ):
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class InProcessExecutor(Executor):
    """Runs each task at submission, in the calling thread (tests, tiny audits, debugging)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            future.set_exception(error)
        return future


def local_processes(workers: int | None = None) -> ProcessPoolExecutor:
    """A pool of local worker processes (the default executor); one per core by default."""
    return ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)


@contextlib.contextmanager
def owned_processes(workers: int | None = None) -> Iterator[ProcessPoolExecutor]:
    """:func:`local_processes` for the duration; on an error (a timeout among them) the workers are
    terminated instead of waited for, so that a mechanism that never returns cannot hang the exit."""
    pool = local_processes(workers)
    try:
        yield pool
    except BaseException:
        terminate = getattr(pool, "terminate_workers", None)  # Python ≥ 3.14
        if terminate is not None:
            terminate()
        else:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


@contextlib.contextmanager
def dask_executor(
    scheduler: str | None = None, workers: int = 2, processes: bool = True
) -> Iterator[Executor]:
    """A Dask ``distributed`` executor: the cluster at ``scheduler``, or a LocalCluster.

    ``scheduler`` is an address such as ``tcp://10.0.0.5:8786``; ``None`` or ``"local"`` starts a
    LocalCluster of ``workers`` single-threaded workers (in processes unless ``processes`` is
    False). Needs ``pip install 'dpledger[dist]'``.

    Args:
        scheduler: The scheduler's address, or None / ``"local"`` for a LocalCluster.
        workers: Workers of a LocalCluster.
        processes: A LocalCluster's workers run in processes (else threads).

    Returns:
        A context manager yielding the client's ``concurrent.futures.Executor``; leaving it closes
        the client (and the LocalCluster it started).

    Raises:
        ValueError: dask.distributed is not installed, or the scheduler cannot be reached.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError(
            "the Dask executor needs the 'distributed' package: pip install 'dpledger[dist]'"
        ) from None
    if scheduler in (None, "local"):
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client.get_executor()
    else:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as error:
            raise ValueError(f"cannot reach Dask scheduler {scheduler!r}: {error}") from None
        with client:
            check_workers(client)
            yield client.get_executor()


def check_workers(client: Any, wait_seconds: float = 10.0) -> None:
    """Refuse, in one line, a cluster whose workers could not run the audit's tasks.

    A task is an object of this package: a worker without dpledger (or with another version)
    fails while deserialising it, where Dask does not report the failure to the caller and the
    audit would wait forever. Hence every worker's dpledger version is asked for first (and at
    least one worker must join within ``wait_seconds``).
    """
    from importlib.metadata import version

    try:
        client.wait_for_workers(1, timeout=wait_seconds)
    except TimeoutError:
        raise ValueError(f"the Dask cluster has no worker (none joined within {wait_seconds:g} s)") from None
    expected = version("dpledger")
    try:
        found = client.run(version, "dpledger")
    except Exception as error:
        raise ValueError(
            f"a Dask worker cannot run dpledger's tasks ({type(error).__name__}: {error}): "
            f"install dpledger {expected} on every worker"
        ) from None
    wrong = sorted(
        f"{worker} has {found_version}"
        for worker, found_version in found.items()
        if found_version != expected
    )
    if wrong:
        raise ValueError(f"Dask workers run another dpledger version than {expected}: {', '.join(wrong)}")


@contextlib.contextmanager
def open_executor(scheduler: str | None = None, workers: int | None = None) -> Iterator[Executor]:
    """Local processes, or Dask when a ``scheduler`` address (or ``"local"``) is given."""
    if scheduler is None:
        with owned_processes(workers) as pool:
            yield pool
    else:
        with dask_executor(scheduler, workers or os.cpu_count() or 2) as executor:
            yield executor
