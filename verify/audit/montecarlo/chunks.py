"""The audit's runs: which chunks are queued when, how they come back, and what of them is kept.

A :class:`Schedule` queues the chunks of every pair: the first stage's chunks
that its fits read and ``QUEUE_AHEAD`` more at the start; once a pair's fits are made (while its
first chunks arrive, :meth:`Values.prefit`), the first stage's rest and — on an executor that runs
tasks elsewhere — the next stage's chunks, so that the workers generate them while this stage is
searched. Chunks queued after the fits may be *reduced* where they are made
(:func:`search.reduction`, :class:`executors.ReducingChunkTask`): their estimation split comes back
as the fits' values only. The decision reads split 1 alone, at a fixed point of the arrivals, so it
is the same at every run, in process or not: the same seed gives the same numbers.

:class:`Runs` stores what arrives — split 1 copied into one buffer per input, split 2 one part
per chunk, as runs or reduced (:class:`Reduced`) — and :class:`Values` the statistics' values on
split 2, computed once (on the caller's threads, or by the workers for reduced parts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic, evaluate, same_statistic
from dpledger.verify.audit.montecarlo.executors import (
    ChunkTask,
    InProcessExecutor,
    ReducedRuns,
    ReducingChunkTask,
    SharedChunkTask,
    populated_empty,
    received,
)
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, harmonise
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.search import Fits, fitted_rows, prefit, reduction

QUEUE_AHEAD = 4
"""Chunks per input of the first stage queued, beyond those its fits read, before the fits are
made (the workers generate them meanwhile); the first stage's other chunks wait for the fits, so
that they can be reduced to the fits' values (:func:`search.reduction`)."""


def selection_runs(size: int) -> int:
    """Runs of a chunk of ``size`` that go to the search split (split 1): about a quarter."""
    return (size + 2) // 4


@dataclass(frozen=True, eq=False)
class Reduced:
    """A chunk's estimation-split runs, reduced by the worker that made them to the values of
    ``statistics`` (:class:`executors.ReducingChunkTask`): events of other statistics cannot be
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

    def splits(self, pair: int) -> tuple[tuple[np.ndarray, np.ndarray], list[tuple[Any, ...]]]:
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

    def prefit(self, runs: Runs, pair: int, selection: int, threads: Executor) -> list[Statistic] | None:
        """Once the search split's first runs of ``pair`` hold what the stage's fits read
        (:func:`search.prefit`, for a split 1 of ``selection`` runs per input), make the fits and
        start evaluating them on every part of split 2 that arrived as runs (on ``threads``, while
        the workers generate the rest): values the estimation would compute after the search
        anyway, for the candidates the search keeps — computed early, the same numbers. Returns
        the fits (empty: none apply; None: not enough runs yet)."""
        fitted = prefit(*runs.heads(pair), pair, (selection, selection), self.fits)
        if not fitted:
            return fitted
        for side in runs.rest[pair]:
            for part in side:
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
        """Forget the values of statistics no later stage can use."""
        self.kept = {key: entry for key, entry in self.kept.items() if self.fits.holds(entry[0])}


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


Splits = tuple[tuple[np.ndarray, np.ndarray], list[tuple[Any, Any]]]
Queued = list[tuple[int, Future, tuple[Statistic, ...]]]


class Schedule:
    """The chunks of one audit, queued on ``pool`` and received into ``runs`` (module docstring).

    ``result(future, what)`` waits for a task (the audit's deadline); ``on_progress(done, total)``
    hears of every chunk received."""

    def __init__(
        self,
        pool: Executor,
        mechanism: Mechanism,
        pairs: Sequence[NeighbourPair],
        sizes: list[int],
        seeds: list[list[list[np.random.SeedSequence]]],
        plan: list[int],
        runs: Runs,
        shared: str | None,
        values: Values,
        threads: Executor,
        result: Callable[[Future, str], Any],
        on_progress: Callable[[int, int], None] | None,
    ) -> None:
        self.pool, self.mechanism, self.pairs, self.sizes, self.seeds = pool, mechanism, pairs, sizes, seeds
        self.plan, self.runs, self.shared, self.values, self.threads = plan, runs, shared, values, threads
        self.result, self.on_progress = result, on_progress
        self.prefetch = not isinstance(pool, InProcessExecutor)  # in process a task runs at submission
        self.final = int(runs.offsets[-1])  # split-1 runs per input at the end of the audit
        self.reductions: list[tuple[Statistic, ...]] = [
            () for _ in pairs
        ]  # for each pair's chunks queued next
        self.done, self.total = 0, len(pairs) * 2 * len(sizes)
        first_fits = int(np.searchsorted(runs.offsets, fitted_rows(int(runs.offsets[plan[0]]))))
        self.wave = min(plan[0], first_fits + QUEUE_AHEAD)
        self.upcoming: list[Queued | None] = [self._submit(p, 0, self.wave) for p in range(len(pairs))]

    def arrivals(self, stage: int) -> Iterator[Splits]:
        """Each pair's splits as soon as its chunks of ``stage`` are in (searching overlaps
        generation); meanwhile the pair's fits are made as soon as their runs are in, evaluated on
        split 2's parts as they arrive (:meth:`Values.prefit`), and its next chunks queued."""
        plan = self.plan
        queued = (
            self.upcoming
            if self.prefetch or not stage
            else [self._submit(p, plan[stage - 1], plan[stage]) for p in range(len(self.pairs))]
        )
        self.upcoming = [None] * len(self.pairs)
        selection = int(self.runs.offsets[plan[stage]])
        for p, pair_queued in enumerate(queued):
            assert pair_queued is not None  # every pair has its next chunks queued
            decided = False
            for side, future, statistics in pair_queued:  # grows when the first stage's rest is queued
                self.runs.add(p, side, received(self.result(future, f"stage {stage + 1}")), statistics)
                fitted = self.values.prefit(self.runs, p, selection, self.threads)
                if fitted is not None and not decided:
                    self._decide(stage, p, fitted, pair_queued)
                    decided = True
                self.done += 1
                if self.on_progress:
                    self.on_progress(self.done, self.total)
            if not decided:
                self._decide(
                    stage, p, self.values.prefit(self.runs, p, selection, self.threads) or [], pair_queued
                )
            yield self.runs.splits(p)

    def cancel(self) -> None:
        """Drop the chunks queued for a stage that will not run (stopped early, or failed)."""
        for queued in self.upcoming:
            for _, future, _ in queued or []:
                future.cancel()

    def _decide(self, stage: int, p: int, fitted: list[Statistic], pair_queued: Queued) -> None:
        """Fix the reduction of pair ``p``'s chunks not queued yet (:func:`search.reduction`) and
        queue the first stage's rest and, when prefetching, the next stage."""
        selection = int(self.runs.offsets[self.plan[stage]])
        self.reductions[p] = reduction(
            *self.runs.heads(p), fitted, (selection, selection), (self.final, self.final)
        )
        if stage == 0:
            pair_queued.extend(self._submit(p, self.wave, self.plan[0]))
        if self.prefetch and stage + 1 < len(self.plan):
            self.upcoming[p] = self._submit(p, self.plan[stage], self.plan[stage + 1])

    def _submit(self, p: int, first: int, last: int) -> Queued:
        """Queue chunks ``first`` … ``last − 1`` of pair ``p``: (side, future, the reduction's statistics)."""
        statistics = self.reductions[p]
        return [
            (side, self.pool.submit(self._task(p, side, c, statistics)), statistics)
            for c in range(first, last)
            for side in (0, 1)
        ]

    def _task(self, p: int, side: int, c: int, statistics: tuple[Statistic, ...]) -> Any:
        """Chunk ``c`` of pair ``p`` on input ``side``; its estimation split reduced to the values of
        ``statistics`` when there are any; through shared memory on a local pool."""
        chunk: Any = ChunkTask(
            self.mechanism, (self.pairs[p].a, self.pairs[p].b)[side], self.sizes[c], self.seeds[p][side][c]
        )
        if statistics:
            chunk = ReducingChunkTask(chunk, self.runs.selection[c], statistics)
        return chunk if self.shared is None else SharedChunkTask(chunk, self.shared)
