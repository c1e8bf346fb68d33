"""The one interface through which a Monte Carlo audit gets its runs: where they are generated,
how they come back, and the caller's machinery that serves them.

The audit, its schedule and its statistics see a :class:`Runner` only; :func:`runner_class` looks
at the executor once:

* :class:`Runner` — an executor whose tasks run elsewhere (a Dask client's, a thread pool): the
  mechanism is shipped with ``cloudpickle`` (:func:`~dpledger.verify.audit.montecarlo.mechanism.ship`),
  tasks and runs travel as the executor carries them, and the next stage's chunks are queued
  while this one is searched (``queues_ahead``);
* :class:`InProcessRunner` — :class:`~dpledger.verify.audit.montecarlo.executors.InProcessExecutor`:
  each task runs at submission, in the calling thread; nothing is shipped or queued ahead;
* :class:`LocalPoolRunner` — local worker processes (the default: a pool the audit owns, its
  workers terminated on an error): chunks come back through shared memory
  (:mod:`~dpledger.verify.audit.montecarlo.transport`), not pickled through the pipe.

Every runner also holds the caller's threads that evaluate statistics on split 2 (``threads``),
and the audit's deadline: :meth:`Runner.result` waits for a task until the audit's timeout and
turns every failure to run one into a one-line ``ValueError``. Which runner serves an audit
changes when runs are made and how they travel, never a number.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.executors import (
    InProcessExecutor,
    InProcessTimeout,
    alarm,
    owned_processes,
)
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, ship
from dpledger.verify.audit.montecarlo.tasks import ChunkTask, ReducedRuns, ReducingChunkTask
from dpledger.verify.audit.montecarlo.transport import SharedChunkTask, received, shared_directory

ESTIMATION_THREADS = 2
"""Threads of the caller that evaluate the candidates' statistics on split 2."""


class Deadline:
    """Waits for task results until ``timeout`` seconds after ``started``; turns every failure to
    run a task into a one-line ``ValueError``."""

    def __init__(self, started: float, timeout: float | None) -> None:
        self.started, self.timeout = started, timeout

    def result(self, future: Future, what: str, default_limit: float | None = None) -> Any:
        """The task's result; ``ValueError`` on a timeout, a dead worker or an error in a worker.

        Args:
            future: the submitted task.
            what: the task, for messages ("the probe").
            default_limit: seconds allowed when the audit has no ``timeout`` (the probe's
                limit); None waits as long as the task runs.

        Returns:
            The task's result.

        Raises:
            ValueError: the task failed, or the deadline passed — also when an in-process
                executor had already run the task at submission: its result, late, is refused.
        """
        limit = self.timeout if self.timeout is not None else default_limit
        remaining = None if limit is None else max(self.started + limit - time.perf_counter(), 0.0)
        try:
            result = future.result(timeout=remaining)
        except ValueError:
            raise
        except FutureTimeout:
            raise self.late(what, limit) from None
        except KeyboardInterrupt:
            if not future.done():  # Ctrl-C while waiting: the caller's to handle
                raise
            raise ValueError(  # a worker ignores SIGINT: its KeyboardInterrupt is the mechanism's own
                f"mechanism raised KeyboardInterrupt during {what}"
            ) from None
        except BrokenProcessPool:
            raise ValueError(
                "a worker process died while running the mechanism (os._exit, a crash or out of memory)"
            ) from None
        except Exception as error:
            raise ValueError(
                f"a worker could not run the mechanism: {type(error).__name__}: {' '.join(str(error).split())} "
                "(on Dask, the mechanism's module and every module it imports must be importable on each worker)"
            ) from None
        if limit is not None and time.perf_counter() - self.started > limit:
            raise self.late(what, limit)  # an in-process task, run at submission
        return result

    def late(self, what: str, limit: float | None = None) -> ValueError:
        """The error of a task stopped at its deadline (``limit``: the probe's default one)."""
        if self.timeout is None:
            return ValueError(
                f"{what} took more than {limit:g} s and was stopped: a mechanism that does not return, or "
                "one much slower than the audit needs; pass a timeout (--timeout S) to allow longer"
            )
        return ValueError(
            f"the audit exceeded its timeout of {self.timeout:g} s during {what} and was stopped: "
            "a mechanism that does not return, or more runs than fit in the time"
        )


class Runner:
    """Runs an audit's tasks on an executor whose tasks run elsewhere (module docstring).

    Attributes:
        pool: The executor the tasks go to.
        threads: The caller's threads that evaluate statistics on split 2.
        deadline: The audit's deadline, which every wait for a task observes.
        queues_ahead: Whether the next stage's chunks are queued while this one is searched
            (they are generated meanwhile); False where a task runs at submission.
    """

    queues_ahead = True

    def __init__(self, pool: Executor, threads: Executor, deadline: Deadline) -> None:
        self.pool, self.threads, self.deadline = pool, threads, deadline

    @classmethod
    @contextlib.contextmanager
    def opened(cls, pool: Executor, threads: Executor, deadline: Deadline) -> Iterator[Runner]:
        """The runner on ``pool`` for the duration (with whatever its transport needs)."""
        yield cls(pool, threads, deadline)

    @staticmethod
    def shipped(mechanism: Mechanism) -> Mechanism:
        """``mechanism`` as the tasks carry it: closures and test-local functions reach the
        workers too (:func:`~dpledger.verify.audit.montecarlo.mechanism.ship`)."""
        return ship(mechanism)

    def submit(self, task: Callable[[], Any]) -> Future:
        """Queue a task whose result comes back as the executor carries it (the probe)."""
        return self.pool.submit(task)

    def submit_chunk(self, task: ChunkTask | ReducingChunkTask) -> Future:
        """Queue a chunk of runs; :meth:`chunk` receives it."""
        return self.pool.submit(task)

    def result(self, future: Future, what: str, default_limit: float | None = None) -> Any:
        """The task's result within the audit's deadline (:meth:`Deadline.result`)."""
        return self.deadline.result(future, what, default_limit)

    def chunk(self, future: Future, what: str) -> np.ndarray | ReducedRuns:
        """A chunk's runs (or its reduced runs), as arrays in this process."""
        return self.result(future, what)


class InProcessRunner(Runner):
    """Runs each task at submission, in the calling thread: the mechanism as it is, nothing queued
    ahead (a task queued ahead would run before this stage is searched, not meanwhile)."""

    queues_ahead = False

    @staticmethod
    def shipped(mechanism: Mechanism) -> Mechanism:
        """``mechanism`` itself: it never leaves this process."""
        return mechanism


class LocalPoolRunner(Runner):
    """Runs the tasks on local worker processes; chunks come back through files in shared memory
    (:class:`~dpledger.verify.audit.montecarlo.transport.SharedChunkTask`) in ``directory``, or
    through the pipe where there is none."""

    def __init__(
        self, pool: Executor, threads: Executor, deadline: Deadline, directory: str | None = None
    ) -> None:
        super().__init__(pool, threads, deadline)
        self.directory = directory

    @classmethod
    @contextlib.contextmanager
    def opened(cls, pool: Executor, threads: Executor, deadline: Deadline) -> Iterator[Runner]:
        """The runner with a fresh shared-memory directory, removed at the end
        (:func:`~dpledger.verify.audit.montecarlo.transport.shared_directory`)."""
        with shared_directory() as directory:
            yield cls(pool, threads, deadline, directory)

    def submit_chunk(self, task: ChunkTask | ReducingChunkTask) -> Future:
        return self.pool.submit(task if self.directory is None else SharedChunkTask(task, self.directory))

    def chunk(self, future: Future, what: str) -> np.ndarray | ReducedRuns:
        return received(self.result(future, what))


def runner_class(executor: Executor | None) -> type[Runner]:
    """The kind of runner that serves an audit on ``executor`` (None: local processes of its own).

    Args:
        executor: The executor the audit was given, or None.

    Returns:
        :class:`InProcessRunner`, :class:`LocalPoolRunner` or :class:`Runner`.
    """
    if isinstance(executor, InProcessExecutor):
        return InProcessRunner
    if executor is None or isinstance(executor, ProcessPoolExecutor):
        return LocalPoolRunner
    return Runner


@contextlib.contextmanager
def open_runner(executor: Executor | None, started: float, timeout: float | None) -> Iterator[Runner]:
    """The runner of one audit for the duration: on ``executor``, or on local processes it owns
    (terminated on an error, :func:`~dpledger.verify.audit.montecarlo.executors.owned_processes`);
    with :data:`ESTIMATION_THREADS` threads of the caller, and the audit's deadline — ``timeout``
    seconds after ``started``, enforced also inside the caller's own work (a SIGALRM timer,
    :func:`~dpledger.verify.audit.montecarlo.executors.alarm`).

    Args:
        executor: The executor the audit was given, or None.
        started: When the audit started (``time.perf_counter()``).
        timeout: Seconds the audit may take, or None.

    Yields:
        The :class:`Runner`.

    Raises:
        ValueError: the timeout passed during the block (the runs, searches and estimates).
    """
    deadline = Deadline(started, timeout)
    try:
        with (
            alarm(timeout),  # the caller's own work too: the search, the estimates, in-process runs
            contextlib.nullcontext(executor) if executor is not None else owned_processes() as pool,
            ThreadPoolExecutor(ESTIMATION_THREADS) as threads,
            runner_class(executor).opened(pool, threads, deadline) as runner,
        ):
            yield runner
    except InProcessTimeout:
        raise deadline.late("the runs, searches and estimates") from None
