"""How an audit's runs are stored once they arrive, and the statistics' values on them.

:class:`Runs` keeps, per pair and input, every chunk's search split (split 1) copied into one
buffer, searched as one array, and its estimation split (split 2) one part per chunk, as it
arrived: runs, or — from a reducing task (:class:`~dpledger.verify.audit.montecarlo.tasks.ReducingChunkTask`)
— the values of the fitted statistics on them (:class:`Reduced`). :class:`Values` holds the
statistics' values on split 2's parts, each computed once (on the caller's threads, or by the
workers for reduced parts); :func:`countable` tells which events a stage's parts can count. Only
this module knows the two forms of a part: the estimation reads values and counts through it.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.events import Event, Statistic, StatisticEvent, evaluate, same_statistic
from dpledger.verify.audit.montecarlo.mechanism import harmonise
from dpledger.verify.audit.montecarlo.search import Fits, prefit
from dpledger.verify.audit.montecarlo.tasks import ReducedRuns

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


def selection_runs(size: int) -> int:
    """Runs of a chunk of ``size`` that go to the search split (split 1): about a quarter."""
    return (size + 2) // 4


@dataclass(frozen=True, eq=False)
class Reduced:
    """A chunk's estimation-split runs, reduced by the worker that made them to the values of
    ``statistics`` (:class:`tasks.ReducingChunkTask`): events of other statistics cannot be
    estimated on it."""

    statistics: tuple[Statistic, ...]
    values: tuple[np.ndarray, ...]
    runs: int

    def __len__(self) -> int:
        return self.runs

    def values_of(self, statistic: Statistic) -> np.ndarray | None:
        """The values of ``statistic`` on the runs; None when they were not kept."""
        return next(
            (
                values
                for kept, values in zip(self.statistics, self.values, strict=True)
                if same_statistic(kept, statistic)
            ),
            None,
        )


Splits = tuple[tuple[np.ndarray, np.ndarray], list[tuple[Any, Any]]]
"""A pair's runs for a stage: split 1 as one array per input, split 2 as one part per chunk and input."""


class Runs:
    """Outputs per pair and input: every chunk's first quarter (:func:`selection_runs`) is copied
    into the search buffer (split 1, searched as one array); the rest of the chunk is kept as it
    arrived, one part per chunk (split 2, estimated part by part: never copied)."""

    def __init__(self, pairs: int, sizes: list[int]) -> None:
        self.selection = [selection_runs(size) for size in sizes]
        self.offsets = np.concatenate([[0], np.cumsum(self.selection)])
        self.buffers: list[list[np.ndarray | None]] = [[None, None] for _ in range(pairs)]
        self.rest: list[list[list[np.ndarray | Reduced]]] = [[[], []] for _ in range(pairs)]
        self.filled = [[0, 0] for _ in range(pairs)]

    def add(
        self, pair: int, side: int, outputs: np.ndarray | ReducedRuns, statistics: tuple[Statistic, ...] = ()
    ) -> None:
        """Store the next chunk of runs of ``pair`` on input ``side`` (reduced by ``statistics``:
        its search split as runs, its estimation split as their values, :class:`Reduced`)."""
        chunk = self.filled[pair][side]
        head = outputs.head if isinstance(outputs, ReducedRuns) else outputs
        buffer = self.buffers[pair][side]
        if buffer is None:
            buffer = populated_empty((int(self.offsets[-1]), *head.shape[1:]), head.dtype)
        elif buffer.shape[1:] != head.shape[1:]:
            raise ValueError(
                f"mechanism outputs have inconsistent shapes across runs: "
                f"{buffer.shape[1:]} and {head.shape[1:]}"
            )
        elif np.result_type(buffer.dtype, head.dtype) != buffer.dtype:
            buffer = buffer.astype(np.result_type(buffer.dtype, head.dtype))
        half = self.selection[chunk]
        buffer[self.offsets[chunk] : self.offsets[chunk + 1]] = head[:half]  # type: ignore[index]  # received runs are arrays
        self.buffers[pair][side] = buffer
        self.rest[pair][side].append(
            Reduced(statistics, outputs.columns(), outputs.rest)
            if isinstance(outputs, ReducedRuns)
            else outputs[half:]
        )
        self.filled[pair][side] = chunk + 1

    def chunks_done(self) -> int:
        return self.filled[0][0]

    def splits(self, pair: int) -> Splits:
        """``((a1, b1), [(a2, b2) per chunk])``: the search split of the chunks so far, as one
        array per input, and the estimation split, as one part per chunk — every part in the
        search split's type (value-set events compare the bytes of rows), or reduced."""
        chunks = self.filled[pair][0]
        a1, b1 = harmonise(*(buffer[: self.offsets[chunks]] for buffer in self.buffers[pair]))  # type: ignore[index]  # filled buffers
        parts: list[tuple[Any, ...]] = [
            (a2, b2)
            if isinstance(a2, Reduced)
            else tuple(part.astype(a1.dtype, copy=False) for part in harmonise(a2, b2))
            for a2, b2 in zip(*(side[:chunks] for side in self.rest[pair]), strict=True)
        ]
        return (a1, b1), parts

    def heads(self, pair: int) -> tuple[np.ndarray, np.ndarray]:
        """The search split's runs of ``pair`` that arrived so far, the same number on each input."""
        if any(buffer is None for buffer in self.buffers[pair]):
            return np.empty(0), np.empty(0)
        chunks = min(self.filled[pair])
        return harmonise(*(buffer[: self.offsets[chunks]] for buffer in self.buffers[pair]))  # type: ignore[index]  # filled buffers


class Values:
    """Statistic values per (statistic, runs), each computed once: within a stage for every
    statistic (candidates of both directions, or of ε and δ, often share one), across stages for
    the statistics ``fits`` keeps (split 2's parts are the same arrays at every stage, so a kept
    fit scores only the parts that are new). Entries hold their statistic and runs, so that the
    object ids in the keys stay theirs."""

    def __init__(self, fits: Fits) -> None:
        self.fits = fits
        self.kept: dict[tuple[int, int], tuple[Statistic, np.ndarray, np.ndarray]] = {}

    def of(self, statistic: Statistic, runs: np.ndarray | Reduced) -> np.ndarray:
        if isinstance(runs, Reduced):
            kept = runs.values_of(statistic)
            if kept is None:  # _estimable keeps such candidates out
                raise ValueError(f"the values of {statistic.describe()} were not kept on reduced runs")
            return kept
        key = (id(statistic), id(runs))
        if key not in self.kept:
            self.kept[key] = (statistic, runs, statistic(runs))
        values = self.kept[key][2]
        if isinstance(values, _Pending):
            values = values.result()
            self.kept[key] = (statistic, runs, values)
        return values

    def prefit(
        self, runs: Runs, pair: int, selection: int, threads: Executor, chunks: int
    ) -> list[Statistic] | None:
        """Once the search split's first runs of ``pair`` hold what the stage's fits read
        (:func:`search.prefit`, for a split 1 of ``selection`` runs per input), make the fits and
        start evaluating them on every part of split 2 that arrived as runs among the stage's
        ``chunks`` (on ``threads``, while the workers generate the rest): values the estimation
        would compute after the search anyway, for the candidates the search keeps — computed
        early, the same numbers (a later stage's parts wait for its fits, which may differ).
        Returns the fits (empty: none apply; None: not enough runs yet)."""
        fitted = prefit(*runs.heads(pair), pair, (selection, selection), self.fits)
        if not fitted:
            return fitted
        for side in runs.rest[pair]:
            for part in side[:chunks]:
                if isinstance(part, Reduced):
                    continue
                missing = [statistic for statistic in fitted if (id(statistic), id(part)) not in self.kept]
                if missing:
                    future = threads.submit(evaluate, missing, part)
                    for index, statistic in enumerate(missing):
                        self.kept[(id(statistic), id(part))] = (statistic, part, _Pending(future, index))  # type: ignore[assignment]  # pending until received
        return fitted

    def evaluate(self, needed: Iterable[tuple[Statistic, np.ndarray]], threads: Executor) -> None:
        """Compute the values of ``needed`` not kept yet on ``threads`` (numpy releases the GIL in
        the arithmetic: the estimation no longer runs on one core), the statistics of one runs
        array together (:func:`events.evaluate`: one pass, shared features); the same numbers as
        serially."""
        jobs: dict[int, tuple[np.ndarray, list[Statistic]]] = {}
        for statistic, runs in needed:
            if isinstance(runs, Reduced):
                continue
            job = jobs.setdefault(id(runs), (runs, []))
            if (id(statistic), id(runs)) not in self.kept and all(s is not statistic for s in job[1]):
                job[1].append(statistic)
        jobs = {key: job for key, job in jobs.items() if job[1]}
        for (runs, statistics), computed in zip(
            jobs.values(), threads.map(_apply, jobs.values()), strict=True
        ):
            for statistic, values in zip(statistics, computed, strict=True):
                self.kept[(id(statistic), id(runs))] = (statistic, runs, values)

    def end_stage(self) -> None:
        """Forget the values of statistics no later stage can use (and the fits' row values, :meth:`Fits.end_stage`)."""
        self.kept = {key: entry for key, entry in self.kept.items() if self.fits.holds(entry[0])}
        self.fits.end_stage()


@dataclass(frozen=True)
class _Pending:
    """The values of the ``index``-th statistic of an evaluation still running on a thread."""

    future: Future
    index: int

    def result(self) -> np.ndarray:
        return self.future.result()[self.index]


def _apply(job: tuple[np.ndarray, list[Statistic]]) -> list[np.ndarray]:
    runs, statistics = job
    return evaluate(statistics, runs)


def countable(event: Event, split2: list[tuple[Any, Any]]) -> bool:
    """Whether ``event`` can be counted on every part of split 2: parts reduced on the workers keep
    only their statistics' values (a condition on split 1 alone, see :func:`search.reduction`)."""
    return all(
        not isinstance(part, Reduced)
        or (isinstance(event, StatisticEvent) and part.values_of(event.statistic) is not None)
        for parts in split2
        for part in parts
    )
