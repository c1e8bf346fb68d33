"""How an audit's runs travel from local worker processes: through files in shared memory.

On a local process pool a chunk's runs are not pickled through the pool's pipe (for 20-d outputs
that cost as much CPU as generating them): the worker writes them to a file in shared memory
(``/dev/shm``, :class:`SharedChunkTask`) and the caller maps that file and removes its name
(:class:`SharedRuns`) — the bytes are written once and never copied again. A worker that cannot
write there (no ``/dev/shm``, or it is full) returns the runs through the pipe. A reducing task
(:class:`~dpledger.verify.audit.montecarlo.tasks.ReducingChunkTask`) sends its search-split runs
and its statistics' values that way. Each audit's files live in a directory of their own
(:func:`shared_directory`), removed at the end, and those of audits whose process was killed by
the next audit (:func:`remove_orphans`).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dpledger.verify.audit.montecarlo.tasks import ChunkTask, ReducedRuns, ReducingChunkTask

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
def shared_directory() -> Iterator[str | None]:
    """A fresh directory in shared memory for the chunks of a local process pool, removed with
    whatever is left in it (chunks of a stopped audit) at the end; None where there is no
    ``/dev/shm``. Its name carries the caller's process id, so that the directories of audits
    whose process was killed — the ``finally`` never ran — are removed by the next audit
    (:func:`remove_orphans`)."""
    if not os.path.isdir(SHARED_MEMORY):
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
