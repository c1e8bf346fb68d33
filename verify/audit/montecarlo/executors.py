"""Where an audit's tasks execute: any ``concurrent.futures.Executor`` — in the calling thread
(:class:`InProcessExecutor`), local worker processes (:func:`local_processes`) or a Dask cluster
(:func:`dask_executor`). The audit sees them through one interface,
:mod:`~dpledger.verify.audit.montecarlo.runner`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any


class InProcessTimeout(BaseException):
    """An in-process audit's time is up (:func:`alarm`). A BaseException, so that neither a
    mechanism's ``except Exception`` nor the conversion of its errors to ``ValueError`` keeps it."""


@contextlib.contextmanager
def alarm(seconds: float | None) -> Iterator[None]:
    """Raise :class:`InProcessTimeout` in the main thread once ``seconds`` have passed (a SIGALRM
    interval timer), so that a timeout stops an in-process audit even inside a mechanism run; the
    previous handler is restored after. A no-op for None, off the main thread, or where the
    platform has no ``setitimer``.

    Args:
        seconds: the time allowed, or None.

    Yields:
        Nothing; the block runs under the timer.
    """
    if (
        seconds is None
        or threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "setitimer")
    ):
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise InProcessTimeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class InProcessExecutor(Executor):
    """Runs each task at submission, in the calling thread (tests, tiny audits, debugging). A
    KeyboardInterrupt (Ctrl-C) or an :class:`InProcessTimeout` is not stored in the future: it
    stops the caller at once."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except (KeyboardInterrupt, InProcessTimeout):
            raise
        except BaseException as error:
            future.set_exception(error)
        return future


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C reaches the whole process group, and only the caller handles it
    (it terminates the workers); a worker then never prints a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_processes(workers: int | None = None) -> ProcessPoolExecutor:
    """A pool of local worker processes (the default executor); one per core by default. The
    workers ignore SIGINT (:func:`_ignore_interrupts`)."""
    return ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1, initializer=_ignore_interrupts)


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
