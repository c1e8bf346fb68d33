"""Which chunks of an audit are queued when, and in what form they come back.

A :class:`Schedule` queues the chunks of every pair on the audit's runner
(:class:`~dpledger.verify.audit.montecarlo.runner.Runner`): the first stage's chunks that its fits
read and ``QUEUE_AHEAD`` more at the start; once a pair's fits are made (while its first chunks
arrive, :meth:`store.Values.prefit`), the first stage's rest and — on a runner whose tasks run
elsewhere (``Runner.queues_ahead``) — the next stage's chunks, so that the workers generate them
while this stage is searched. Chunks queued after the fits may be *reduced* where they are made
(:func:`search.reduction`, :class:`tasks.ReducingChunkTask`): their estimation split comes back as
the fits' values only. The decision reads split 1 alone, at a fixed point of the arrivals, so it
is the same at every run, whatever the runner: the same seed gives the same numbers. Two things
keep the workers busy while the caller's main thread fits and searches: where a stage's fits are
not the audit's last (:func:`search.last_fits`, a matter of sizes alone), the chunks it queues keep
their runs whatever the fits, and are queued at the stage's start; and a stage whose fits read runs
already in is decided at the end of the stage before it, before that one is searched — the runs
its decision reads are the same then (:meth:`Schedule._decide_ahead`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic
from dpledger.verify.audit.montecarlo.mechanism import Mechanism
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.runner import Runner
from dpledger.verify.audit.montecarlo.search import fitted_rows, last_fits, reduction
from dpledger.verify.audit.montecarlo.store import Runs, Splits, Values
from dpledger.verify.audit.montecarlo.tasks import ChunkTask, ReducingChunkTask, chunk_seeds

QUEUE_AHEAD = 4
"""Chunks per input of the first stage queued, beyond those its fits read, before the fits are
made (the workers generate them meanwhile); the first stage's other chunks wait for the fits when
they may be reduced to the fits' values (:func:`search.reduction`), else they are queued at once."""

Queued = list[tuple[int, Future, tuple[Statistic, ...]]]


@dataclass(frozen=True)
class Chunks:
    """The chunks of one audit: the mechanism's runs on both inputs of every pair, in chunks of
    ``sizes`` per input, each from its own seed (:func:`tasks.chunk_seeds`)."""

    mechanism: Mechanism
    pairs: Sequence[NeighbourPair]
    sizes: list[int]
    seeds: list[list[list[np.random.SeedSequence]]]

    @classmethod
    def of(cls, mechanism: Mechanism, pairs: Sequence[NeighbourPair], sizes: list[int], seed: int) -> Chunks:
        """The chunks of ``pairs`` for the audit seeded with ``seed``."""
        return cls(mechanism, pairs, sizes, chunk_seeds(seed, len(pairs), len(sizes)))

    def task(self, p: int, side: int, c: int) -> ChunkTask:
        """Chunk ``c`` of pair ``p`` on input ``side``."""
        return ChunkTask(
            self.mechanism, (self.pairs[p].a, self.pairs[p].b)[side], self.sizes[c], self.seeds[p][side][c]
        )


class Schedule:
    """The chunks of one audit, queued on ``runner`` and received into ``runs`` (module docstring);
    ``on_progress(done, total)`` hears of every chunk received."""

    def __init__(
        self,
        runner: Runner,
        chunks: Chunks,
        plan: list[int],
        runs: Runs,
        values: Values,
        on_progress: Callable[[int, int], None] | None,
    ) -> None:
        self.runner, self.chunks, self.plan, self.runs, self.values = runner, chunks, plan, runs, values
        self.on_progress = on_progress
        pairs = len(chunks.pairs)
        self.final = int(runs.offsets[-1])  # split-1 runs per input at the end of the audit
        self.reductions: list[tuple[Statistic, ...]] = [
            () for _ in range(pairs)
        ]  # for each pair's chunks queued next
        self.done, self.total = 0, pairs * 2 * len(chunks.sizes)
        first_fits = int(np.searchsorted(runs.offsets, fitted_rows(int(runs.offsets[plan[0]]))))
        self.wave = min(plan[0], first_fits + QUEUE_AHEAD)
        self.queued: list[dict[int, Queued]] = [{} for _ in range(pairs)]  # per pair and stage, not received
        self.submitted = [0] * pairs  # per pair, the chunks queued so far
        self.decided: list[set[int]] = [set() for _ in range(pairs)]  # per pair, the stages decided ahead
        for p in range(pairs):
            self._queue(p, self.wave)

    def arrivals(self, stage: int) -> Iterator[Splits]:
        """Each pair's splits as soon as its chunks of ``stage`` are in (searching overlaps
        generation); meanwhile the pair's fits are made as soon as their runs are in, evaluated on
        split 2's parts as they arrive (:meth:`Values.prefit`), and its next chunks queued."""
        plan, pairs = self.plan, len(self.chunks.pairs)
        selection = int(self.runs.offsets[plan[stage]])
        threads = self.runner.threads
        reducible = self._reducible(stage)
        for p in range(pairs):
            if not self.runner.queues_ahead:
                self._queue(p, plan[stage] if stage else self.wave)
            pair_queued = self.queued[p].setdefault(stage, [])
            decided = stage in self.decided[p]  # ahead (_decide_ahead)
            if not reducible:  # nothing to wait for: the chunks queued next keep their runs
                self._decide(stage, p, [])
                decided = True
            for side, future, statistics in pair_queued:  # grows when the first stage's rest is queued
                self.runs.add(p, side, self.runner.chunk(future, f"stage {stage + 1}"), statistics)
                fitted = self.values.prefit(self.runs, p, selection, threads, plan[stage])
                if fitted is not None and not decided:
                    self._decide(stage, p, fitted)
                    decided = True
                self.done += 1
                if self.on_progress:
                    self.on_progress(self.done, self.total)
            if not decided:
                self._decide(
                    stage, p, self.values.prefit(self.runs, p, selection, threads, plan[stage]) or []
                )
            del self.queued[p][stage]
            if self.runner.queues_ahead:
                self._decide_ahead(stage + 1, p)
            yield self.runs.splits(p)

    def cancel(self) -> None:
        """Drop the chunks queued for stages that will not run (stopped early, or failed)."""
        for pair_queued in self.queued:
            for queued in pair_queued.values():
                for _, future, _ in queued:
                    future.cancel()

    def _reducible(self, stage: int) -> bool:
        """Whether the chunks queued after ``stage``'s fits may be reduced: some are left to queue,
        and the stage's fits are the audit's last (:func:`search.last_fits`, a matter of sizes
        alone). Where not, the chunks the stage queues keep their runs whatever its fits."""
        selection = int(self.runs.offsets[self.plan[stage]])
        left = stage + 1 < len(self.plan) or (stage == 0 and self.wave < self.plan[0])
        return left and last_fits((selection, selection), (self.final, self.final))

    def _decide_ahead(self, stage: int, p: int) -> None:
        """Decide ``stage`` for pair ``p`` now, at the end of the stage before it, where its fits read
        runs already in: its decision would otherwise be made on the arrival of its first chunk on
        input a, which adds nothing to the runs both inputs hold (:meth:`Runs.heads`) — the same
        runs, the same decision, made before the stage before it is searched."""
        if stage == len(self.plan) or not self._reducible(stage):
            return
        chunks = self.plan[stage]
        fitted = self.values.prefit(self.runs, p, int(self.runs.offsets[chunks]), self.runner.threads, chunks)
        if fitted is not None:
            self._decide(stage, p, fitted)
            self.decided[p].add(stage)

    def _decide(self, stage: int, p: int, fitted: list[Statistic]) -> None:
        """Fix the reduction of pair ``p``'s chunks not queued yet (:func:`search.reduction`, where
        :meth:`_reducible`) and queue the first stage's rest and, when queueing ahead, the next stage."""
        selection = int(self.runs.offsets[self.plan[stage]])
        self.reductions[p] = (
            reduction(
                *self.runs.heads(p),
                fitted,
                (selection, selection),
                (self.final, self.final),
                pair_index=p,
                fits=self.values.fits,
            )
            if self._reducible(stage)
            else ()
        )
        last = stage + 1 if self.runner.queues_ahead and stage + 1 < len(self.plan) else stage
        self._queue(p, self.plan[last])

    def _queue(self, p: int, last: int) -> None:
        """Queue pair ``p``'s chunks not queued yet up to ``last − 1``, each on both inputs, in its
        stage's list: (side, future, the reduction's statistics); a chunk's estimation split reduced
        to the values of those statistics when there are any."""
        statistics = self.reductions[p]
        for c in range(self.submitted[p], last):
            stage = int(np.searchsorted(self.plan, c, side="right"))
            for side in (0, 1):
                chunk = self.chunks.task(p, side, c)
                task = ReducingChunkTask(chunk, self.runs.selection[c], statistics) if statistics else chunk
                self.queued[p].setdefault(stage, []).append(
                    (side, self.runner.submit_chunk(task), statistics)
                )
        self.submitted[p] = max(self.submitted[p], last)
