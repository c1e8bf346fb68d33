"""How an audit's runs are generated: chunks of runs, each from its own seed.

Work is cut into chunks whose sizes depend only on the sample budget, and every chunk draws
from its own ``numpy.random.SeedSequence`` child — ``SeedSequence(seed).spawn(pairs)``, then
``.spawn(2)`` per pair (the two inputs), then ``.spawn(chunks)`` per input — so an audit gives
the same numbers wherever its tasks run (:mod:`~dpledger.verify.audit.montecarlo.runner`).

A mechanism should draw from the ``rng`` it is given; one that draws from numpy's global RNG or
Python's ``random`` instead still gets reproducible, non-repeating numbers: every task seeds both
from its own seed sequence before it runs (and restores them after, so an in-process audit leaves
the caller's global state alone). Threads share those global generators, so only a mechanism
that uses its ``rng`` is reproducible on a thread pool.

A :class:`ReducingChunkTask` returns less than its runs: its search-split runs, and in place of
its estimation-split runs the values of the statistics the audit gave it (:class:`ReducedRuns`).
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic, evaluate
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, run_mechanism

if TYPE_CHECKING:
    from dpledger.verify.audit.montecarlo.transport import SharedRuns

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
