"""The Monte Carlo privacy audit: a lower bound on ε that holds with a stated confidence.

Procedure (per stage of a sequential plan):

1. Run the mechanism on both inputs of every neighbour pair (chunks, :mod:`executors`). Each
   chunk's first quarter belongs to split 1, the rest to split 2 (:func:`selection_runs`).
2. Search events on split 1 only (:mod:`search`): for every pair, event family and direction
   the best event, ranked by a split-1 ε bound (learned distinguishers are fitted, and their
   thresholds chosen, on split 1 as well).
3. Keep the ``candidates`` best real-number events and the ``candidates`` best float-artefact
   events (:mod:`events`: lattice events read the low bits of the float64, the others the value)
   and estimate each on split 2, which the search never saw: Clopper–Pearson bounds ``p_lo`` and
   ``q_hi``, ``ε_lo = log((p_lo − δ)/q_hi)`` and ``δ_lo = p_lo − e^ε q_hi`` at the claimed ε.

What is corrected for. Conditionally on split 1 the kept candidates are fixed, and split 2 is
independent of split 1, so only they — each with two one-sided bounds — enter a Bonferroni
correction. It is weighted by the split-1 ranking (:func:`statistics.ranked_levels`): stage s's
level α_s goes to the two kinds (the kind with the better split-1 score first: ¾ of α_s, the
other ¼; a kind alone takes all of it), each kind's level to its K candidates (the best ¾, the
others sharing ¼), and a candidate with level α_c has both bounds at α_c / 2. The levels sum to
α_s and depend on split 1 only, so the union bound holds. The many (pair, event, direction)
combinations the search compared on split 1 need no correction: they only chose what to test.
The stages form a union bound too: stage s uses α_s, with Σ α_s = α = 1 − confidence, growing
fourfold per stage (:func:`statistics.stage_alphas`). Hence, with probability at least
``confidence``, every reported bound of every stage and of both kinds holds at once.

Correction of the budget (issue 18). Until then the splits were halves, the kinds and the
candidates shared their levels equally and stages grew twofold: the last stage's best candidate
was estimated on half the runs at about α/12 per bound (for α = 0.05 and 3 candidates), where
the optimal statistic, known in advance, uses all runs at α/2 — up to half of the reachable
bound was lost on scalars. Now the leading candidate of the last of 4 stages is estimated on ¾
of the runs at ≈ 0.28·α per bound; a search that ranks well loses little, one that ranks badly
still has its runners-up, at a smaller level.

Verdict. ``VIOLATION`` when the real-number events certify a failure of the claim: an ε bound
at δ above the claimed ε, or (for an (ε, δ) claim) a δ bound at the claimed ε above the claimed
δ — for one event the two conditions coincide; the search offers, besides each family's ε-best
event, its δ-best event at the claimed ε. The mechanism then breaks the claim as a mechanism over
the reals — a bug in the mathematics; the audit stops at the first stage that certifies it.
``FLOAT LEAK`` when only the float-artefact events do: the mathematics may be right, but the
floating-point implementation leaks through its low bits (Mironov 2012); the audit then runs all
its stages, so that a real-number violation, had the budget shown one, takes precedence.
Otherwise ``NO VIOLATION FOUND``. Both failing verdicts are failed claims (``violation``).

Throughput (issue 18). Only split 1 is copied into one array per input (the search reads it
whole); split 2 stays as it arrived, one part per chunk, and is counted part by part. On a local
process pool chunks come back through shared memory (:class:`executors.SharedChunkTask`), not
pickled through the pipe. A pair's fits (:func:`search.prefit`) are made as soon as the runs they
read have arrived — while the workers generate the rest — and evaluated at once on split 2's parts
on ``ESTIMATION_THREADS`` threads of the caller, every statistic sharing one pass over the runs
(:func:`events.evaluate`); fits whose rows are unchanged (the caps of :mod:`search`) are kept
across stages with their values (:class:`search.Fits`). When a pair's fits are its last and its
outputs get no other events (:func:`search.reduction`: float vectors on the lattice, many distinct
rows), the chunks of its next stages are *reduced* where they are made: the worker keeps their
split-1 runs and sends, for split 2, only the fits' values (:class:`executors.ReducingChunkTask`)
— for 20-d outputs the bulk of the runs is never sent, stored or read again. Those chunks are
queued once the decision is made, while the current stage's chunks still arrive. The decision
reads split 1 alone, at a fixed point of the arrivals, so it is the same at every run and the
correction is unchanged; an event that reduced parts cannot count (one of another statistic) is
not estimated (:func:`_estimable`). None of this changes a number: the same seed gives the same
events, counts and bounds, with or without reduction (tests/verify/test_montecarlo_reduction.py).

Before any stage a cheap probe checks the mechanism's contract (:mod:`contract`: outputs that
depend on the rng, independent outputs within a batch); a ``timeout`` bounds the wall-clock time
of the whole audit. Any failure — the mechanism's, a worker's, the probe's, the timeout — is a
one-line ``ValueError``, never a verdict.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.contract import ProbeTask, check_probe
from dpledger.verify.audit.montecarlo.executors import (ChunkTask, InProcessExecutor, ReducedRuns, ReducingChunkTask,
                                                      SharedChunkTask, chunk_seeds, chunk_shape, chunk_sizes,
                                                      owned_processes, populated_empty, received, shared_directory)
from dpledger.verify.audit.montecarlo.events import Event, IntervalEvent, Statistic, evaluate, same_statistic
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, harmonise, ship
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.search import (Candidate, Fits, fitted_rows, one_blas_thread, prefit, reduction,
                                                   search_pair)
from dpledger.verify.audit.montecarlo.statistics import (
    best_possible_epsilon,
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
    LEAD_SHARE,
    ranked_levels,
    search_z,
    stage_alphas,
)

Progress = Callable[[int, int], None]


ESTIMATION_THREADS = 2
"""Threads of the caller that evaluate the candidates' statistics on split 2."""

QUEUE_AHEAD = 4
"""Chunks per input of the first stage queued, beyond those its fits read, before the fits are
made (the workers generate them meanwhile); the first stage's other chunks wait for the fits, so
that they can be reduced to the fits' values (:func:`search.reduction`)."""

VIOLATION = "VIOLATION"
FLOAT_LEAK = "FLOAT LEAK"
NO_VIOLATION = "NO VIOLATION FOUND"


@dataclass(frozen=True)
class AuditResult:
    """The verdict of an audit; ``to_json()`` gives the CLI payload.

    ``real_epsilon_lower`` / ``float_epsilon_lower``: the certified lower bounds from real-number
    and float-artefact events (both hold at once with probability ≥ ``confidence``);
    ``epsilon_lower`` is the larger. ``witness`` is the event behind the verdict (the real one
    for ``VIOLATION``, the float one for ``FLOAT LEAK``, else the larger bound's);
    ``real_witness`` and ``float_witness`` are each kind's best event. ``delta_lower``: the
    largest certified lower bound on δ at the claimed ε among the estimated events of the kind
    behind the verdict (the real one for ``VIOLATION``, the float one for ``FLOAT LEAK``); a
    claim also fails when it exceeds the claimed δ.
    """

    epsilon_lower: float
    confidence: float
    claimed_epsilon: float
    delta: float
    verdict: str
    samples: int
    samples_total: int
    seconds: float
    witness: dict[str, Any] | None
    delta_lower: float | None
    candidates_searched: int
    candidates_corrected: int
    stages_run: int
    stages_planned: int
    real_epsilon_lower: float
    float_epsilon_lower: float | None
    real_witness: dict[str, Any] | None
    float_witness: dict[str, Any] | None

    @property
    def violation(self) -> bool:
        """Whether the claim failed: ``VIOLATION`` or ``FLOAT LEAK``."""
        return self.verdict != NO_VIOLATION

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "violation": self.violation,
            "epsilon_lower": self.epsilon_lower,
            "real_epsilon_lower": self.real_epsilon_lower,
            "float_epsilon_lower": self.float_epsilon_lower,
            "confidence": self.confidence,
            "claimed_epsilon": self.claimed_epsilon,
            "delta": self.delta,
            "samples": self.samples,
            "samples_total": self.samples_total,
            "seconds": round(self.seconds, 3),
            "witness": self.witness,
            "real_witness": self.real_witness,
            "float_witness": self.float_witness,
            "delta_lower_at_claimed_epsilon": self.delta_lower,
            "correction": {
                "candidates_searched_on_split_1": self.candidates_searched,
                "candidates_estimated_on_split_2": self.candidates_corrected,
                "stages_run": self.stages_run,
                "stages_planned": self.stages_planned,
            },
        }


@dataclass
class _Estimate:
    epsilon: float
    delta_at_claim: float
    candidate: Candidate
    counts: tuple[int, int, int, int]
    bounds: tuple[float, float]
    alpha: float


def selection_runs(size: int) -> int:
    """Runs of a chunk of ``size`` that go to the search split (split 1): about a quarter."""
    return (size + 2) // 4


def estimation_runs(samples: int) -> int:
    """Runs per input of a budget of ``samples`` that go to the estimation split (split 2);
    computed from the chunks' shape, never by listing them (budgets up to 2⁵⁰ are asked for)."""
    size, full, rest = chunk_shape(samples)
    return samples - full * selection_runs(size) - (selection_runs(rest) if rest else 0)


@dataclass(frozen=True, eq=False)
class _Reduced:
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
        return next((values for kept, values in zip(self.statistics, self.values)
                     if same_statistic(kept, statistic)), None)


class _Runs:
    """Outputs per pair and input: every chunk's first quarter (:func:`selection_runs`) is copied
    into the search buffer (split 1, searched as one array); the rest of the chunk is kept as it
    arrived, one part per chunk (split 2, estimated part by part: never copied)."""

    def __init__(self, pairs: int, sizes: list[int]) -> None:
        self.selection = [selection_runs(size) for size in sizes]
        self.offsets = np.concatenate([[0], np.cumsum(self.selection)])
        self.buffers: list[list[np.ndarray | None]] = [[None, None] for _ in range(pairs)]
        self.rest: list[list[list[np.ndarray | _Reduced]]] = [[[], []] for _ in range(pairs)]
        self.filled = [[0, 0] for _ in range(pairs)]

    def add(self, pair: int, side: int, outputs: np.ndarray | ReducedRuns,
            statistics: tuple[Statistic, ...] = ()) -> None:
        """Store the next chunk of runs of ``pair`` on input ``side`` (reduced by ``statistics``:
        its search split as runs, its estimation split as their values, :class:`_Reduced`)."""
        chunk = self.filled[pair][side]
        head = outputs.head if isinstance(outputs, ReducedRuns) else outputs
        buffer = self.buffers[pair][side]
        if buffer is None:
            buffer = populated_empty((int(self.offsets[-1]),) + head.shape[1:], head.dtype)
        elif buffer.shape[1:] != head.shape[1:]:
            raise ValueError(
                f"mechanism outputs have inconsistent shapes across runs: "
                f"{buffer.shape[1:]} and {head.shape[1:]}"
            )
        elif np.result_type(buffer.dtype, head.dtype) != buffer.dtype:
            buffer = buffer.astype(np.result_type(buffer.dtype, head.dtype))
        half = self.selection[chunk]
        buffer[self.offsets[chunk] : self.offsets[chunk + 1]] = head[:half]
        self.buffers[pair][side] = buffer
        self.rest[pair][side].append(_Reduced(statistics, outputs.columns(), outputs.rest)
                                     if isinstance(outputs, ReducedRuns) else outputs[half:])
        self.filled[pair][side] = chunk + 1

    def chunks_done(self) -> int:
        return self.filled[0][0]

    def splits(self, pair: int) -> tuple[tuple[np.ndarray, np.ndarray], list[tuple[Any, Any]]]:
        """``((a1, b1), [(a2, b2) per chunk])``: the search split of the chunks so far, as one
        array per input, and the estimation split, as one part per chunk — every part in the
        search split's type (value-set events compare the bytes of rows), or reduced."""
        chunks = self.filled[pair][0]
        a1, b1 = harmonise(*(buffer[: self.offsets[chunks]] for buffer in self.buffers[pair]))
        parts = [(a2, b2) if isinstance(a2, _Reduced)
                 else tuple(part.astype(a1.dtype, copy=False) for part in harmonise(a2, b2))
                 for a2, b2 in zip(*(side[:chunks] for side in self.rest[pair]))]
        return (a1, b1), parts

    def heads(self, pair: int) -> tuple[np.ndarray, np.ndarray]:
        """The search split's runs of ``pair`` that arrived so far, the same number on each input."""
        if any(buffer is None for buffer in self.buffers[pair]):
            return np.empty(0), np.empty(0)
        chunks = min(self.filled[pair])
        return harmonise(*(buffer[: self.offsets[chunks]] for buffer in self.buffers[pair]))


def validate(
    claimed_epsilon: float, delta: float, confidence: float, samples: int, stages: int, candidates: int
) -> None:
    """Refuse parameters for which no verdict would mean anything."""
    if stages < 1 or candidates < 1:
        raise ValueError(f"stages and candidates must be at least 1, got {stages} and {candidates}")
    if not (math.isfinite(claimed_epsilon) and claimed_epsilon > 0):
        raise ValueError(f"claimed epsilon must be a finite number > 0, got {claimed_epsilon}")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must lie in [0, 1), got {delta}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    if samples < 2:
        raise ValueError(f"need at least 2 samples per input, got {samples}")


def stage_plan(chunks: int, stages: int) -> list[int]:
    """Chunk counts at the end of each stage: the budget halved back from the full one."""
    return sorted({max(1, math.ceil(chunks / 2 ** (stages - 1 - s))) for s in range(stages)})


MAX_BUDGET = 2**50
"""Largest per-input budget :func:`minimum_samples` considers (a bound certifies at most about
log(n) nats, so claims far above log(2^50) ≈ 35 cannot be refuted by sampling)."""


def minimum_samples(claimed_epsilon: float, delta: float, alpha: float) -> int | None:
    """The smallest per-input budget whose last stage could, at best, certify more than the
    claim; None when even ``MAX_BUDGET`` runs could not."""
    n = 2
    while best_possible_epsilon(estimation_runs(n), estimation_runs(n), delta, alpha) <= claimed_epsilon:
        n *= 2
        if n > MAX_BUDGET:
            return None
    low, high = n // 2, n
    while high - low > 1:
        middle = (low + high) // 2
        estimated = estimation_runs(middle)
        if best_possible_epsilon(estimated, estimated, delta, alpha) > claimed_epsilon:
            high = middle
        else:
            low = middle
    return high


def audit(
    mechanism: Mechanism,
    pairs: Sequence[NeighbourPair],
    claimed_epsilon: float,
    *,
    delta: float = 0.0,
    samples: int = 100_000,
    confidence: float = 0.95,
    seed: int = 0,
    executor: Executor | None = None,
    stages: int = 4,
    candidates: int = 3,
    on_progress: Progress | None = None,
    timeout: float | None = None,
    network: bool = False,
) -> AuditResult:
    """Audit ``mechanism`` on ``pairs`` against the claim (ε, δ) with ``samples`` runs per input.

    Returns lower bounds on the mechanism's ε at ``delta`` — from real-number events and from
    float-artefact events — that hold together with probability at least ``confidence`` (see the
    module docstring for the correction), and the verdict: ``VIOLATION`` when the real-number
    bound exceeds ``claimed_epsilon``, ``FLOAT LEAK`` when only the float-artefact one does. Without an executor, runs go to local processes. A mechanism
    defined anywhere — at module level, in a closure, inside a test — is sent to the workers with
    ``cloudpickle`` (:func:`~dpledger.verify.audit.montecarlo.mechanism.ship`); modules it imports
    must be importable there.
    ``timeout``: seconds the audit may take, probe included; beyond it the audit stops with a
    ``ValueError`` (enforced on executors that run tasks elsewhere — processes, Dask; an
    in-process executor runs each task at submission, before it could be stopped). A mechanism
    failing the contract checks of :mod:`contract` is refused with a ``ValueError``.
    ``network``: also search the scores of a small perceptron fitted on split 1 (DP-Sniper's MLP,
    :mod:`network`) — opt-in, for vector outputs whose privacy loss no linear score expresses.
    """
    validate(claimed_epsilon, delta, confidence, samples, stages, candidates)
    if not isinstance(executor, InProcessExecutor):  # closures and test-local functions reach workers too
        mechanism = ship(mechanism)
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout}")
    if not pairs:
        raise ValueError("no neighbour pairs to audit")
    alpha = 1.0 - confidence
    sizes = chunk_sizes(samples)
    plan = stage_plan(len(sizes), stages)
    alphas = stage_alphas(alpha, len(plan))
    final_alpha = ranked_levels(alphas[-1], candidates)[0] / 2
    estimated = estimation_runs(samples)
    if best_possible_epsilon(estimated, estimated, delta, final_alpha) <= claimed_epsilon:
        needed = minimum_samples(claimed_epsilon, delta, final_alpha)
        advice = (f"use at least {needed}" if needed is not None
                  else f"no budget up to {MAX_BUDGET} could: the claim is beyond what sampling can refute")
        raise ValueError(
            f"too few samples: with {samples} runs per input no event could certify ε above "
            f"{claimed_epsilon} at confidence {confidence}; {advice}"
        )
    started = time.perf_counter()
    wait = _Deadline(started, timeout)
    seeds = chunk_seeds(seed, len(pairs), len(sizes))
    runs = _Runs(len(pairs), sizes)
    total_tasks = len(pairs) * 2 * len(sizes)
    best: dict[bool, _Estimate] = {}  # float_artefact → the estimate of largest ε bound of that kind
    best_delta: dict[bool, float] = {}  # float_artefact → the largest δ lower bound at the claimed ε
    searched = corrected = stages_run = done = 0
    values = _Values(Fits(network))  # fits and statistic values kept across stages
    with (contextlib.nullcontext(executor) if executor is not None else owned_processes()) as pool, \
            shared_directory(pool) as shared, ThreadPoolExecutor(ESTIMATION_THREADS) as threads, \
            one_blas_thread():
        check_probe(wait.result(pool.submit(ProbeTask(mechanism, pairs[0].a, pairs[0].b, seed)), "the probe"))

        final = int(runs.offsets[-1])  # split-1 runs per input at the end of the audit
        reductions: list[tuple[Statistic, ...]] = [() for _ in pairs]  # per pair, for its next stage's chunks

        def task(p: int, side: int, c: int, statistics: tuple[Statistic, ...]) -> Any:
            """Chunk ``c`` of pair ``p`` on input ``side``; its estimation split reduced to the
            values of ``statistics`` when there are any; through shared memory on a local pool."""
            chunk: Any = ChunkTask(mechanism, (pairs[p].a, pairs[p].b)[side], sizes[c], seeds[p][side][c])
            if statistics:
                chunk = ReducingChunkTask(chunk, runs.selection[c], statistics)
            return chunk if shared is None else SharedChunkTask(chunk, shared)

        def submit(p: int, first: int, last: int) -> list[tuple[int, Future, tuple[Statistic, ...]]]:
            """Submit chunks ``first`` … ``last − 1`` of pair ``p``: (side, future, the reduction's statistics)."""
            statistics = reductions[p]
            return [(side, pool.submit(task(p, side, c, statistics)), statistics)
                    for c in range(first, last) for side in (0, 1)]

        # The first stage queues, at its start, the chunks its fits read and QUEUE_AHEAD more; the
        # rest once the fits are made, reduced when they may be. A pair's chunks of the next stage
        # are queued then too, so that the workers generate them while this stage is searched (not
        # in process, where a task runs at submission: there a stage's chunks are submitted when it
        # starts, with the same reduction).
        prefetch = not isinstance(pool, InProcessExecutor)
        wave = min(plan[0], int(np.searchsorted(runs.offsets, fitted_rows(int(runs.offsets[plan[0]])))) + QUEUE_AHEAD)
        upcoming: list[list[tuple[int, Future, tuple[Statistic, ...]]] | None] = [
            submit(p, 0, wave) for p in range(len(pairs))]
        try:
            for stage, stage_alpha in enumerate(alphas):
                stages_run += 1
                futures = (upcoming if prefetch or not stage
                           else [submit(p, plan[stage - 1], plan[stage]) for p in range(len(pairs))])
                upcoming = [None] * len(pairs)
                selection = int(runs.offsets[plan[stage]])

                def decide(p: int, fitted: list[Statistic]) -> None:
                    """Fix the reduction of pair ``p``'s chunks not queued yet (:func:`search.reduction`)
                    and queue the first stage's rest and, when prefetching, the next stage."""
                    reductions[p] = reduction(*runs.heads(p), fitted, (selection, selection), (final, final))
                    if stage == 0:
                        futures[p].extend(submit(p, wave, plan[0]))
                    if prefetch and stage + 1 < len(plan):
                        upcoming[p] = submit(p, plan[stage], plan[stage + 1])

                def arrivals() -> Iterator[tuple[tuple[np.ndarray, np.ndarray], list[tuple[Any, Any]]]]:
                    """Each pair's splits as soon as its chunks are in (searching overlaps generation);
                    meanwhile the pair's fits are made as soon as their runs are in, evaluated on
                    split 2's parts as they arrive (:meth:`_Values.prefit`), and the pair's next
                    stage is queued."""
                    nonlocal done
                    for p, pair_futures in enumerate(futures):
                        decided = False
                        for side, future, statistics in pair_futures:
                            runs.add(p, side, received(wait.result(future, f"stage {stages_run}")), statistics)
                            fitted = values.prefit(runs, p, selection, threads)
                            if fitted is not None and not decided:
                                decide(p, fitted)
                                decided = True
                            done += 1
                            if on_progress:
                                on_progress(done, total_tasks)
                        if not decided:
                            decide(p, values.prefit(runs, p, selection, threads) or [])
                        yield runs.splits(p)

                estimates, examined, estimated = _run_stage(arrivals(), delta, stage_alpha, candidates,
                                                            claimed_epsilon, values, threads)
                searched += examined
                corrected += estimated
                for estimate in estimates:
                    kind = estimate.candidate.event.float_artefact
                    if kind not in best or estimate.epsilon > best[kind].epsilon:
                        best[kind] = estimate
                    best_delta[kind] = max(best_delta.get(kind, -math.inf), estimate.delta_at_claim)
                if _fails(False, best, best_delta, claimed_epsilon, delta):
                    break
        finally:
            for pair_futures in upcoming:  # stopped early or failed: drop the queued chunks
                for _, future, _ in pair_futures or []:
                    future.cancel()
    if on_progress and done < total_tasks:  # stopped early: close the bar
        on_progress(total_tasks, total_tasks)
    used = sum(sizes[: runs.chunks_done()])
    real = max(best[False].epsilon, 0.0) if False in best else 0.0
    floating = max(best[True].epsilon, 0.0) if True in best else None
    verdict = (VIOLATION if _fails(False, best, best_delta, claimed_epsilon, delta)
               else FLOAT_LEAK if _fails(True, best, best_delta, claimed_epsilon, delta) else NO_VIOLATION)
    witnesses = {kind: _witness(estimate, pairs) if estimate.epsilon > 0 else None for kind, estimate in best.items()}
    deciding = (False if verdict == VIOLATION else True if verdict == FLOAT_LEAK
                else max(best, key=lambda kind: best[kind].epsilon, default=None))
    return AuditResult(
        epsilon_lower=max(real, floating or 0.0),
        confidence=confidence,
        claimed_epsilon=claimed_epsilon,
        delta=delta,
        verdict=verdict,
        samples=used,
        samples_total=2 * len(pairs) * used,
        seconds=time.perf_counter() - started,
        witness=witnesses[deciding] if deciding is not None else None,
        delta_lower=best_delta[deciding] if deciding is not None else None,
        candidates_searched=searched,
        candidates_corrected=corrected,
        stages_run=stages_run,
        stages_planned=len(plan),
        real_epsilon_lower=real,
        float_epsilon_lower=floating,
        real_witness=witnesses.get(False),
        float_witness=witnesses.get(True),
    )


class _Deadline:
    """Waits for task results until ``timeout`` seconds after ``started``; turns every failure to
    run a task into a one-line ``ValueError``."""

    def __init__(self, started: float, timeout: float | None) -> None:
        self.started, self.timeout = started, timeout

    def result(self, future: Future, what: str) -> Any:
        """The task's result; ``ValueError`` on a timeout, a dead worker or an error in a worker."""
        remaining = None if self.timeout is None else max(self.started + self.timeout - time.perf_counter(), 0.0)
        try:
            return future.result(timeout=remaining)
        except ValueError:
            raise
        except FutureTimeout:
            raise ValueError(
                f"the audit exceeded its timeout of {self.timeout:g} s during {what} and was stopped: "
                "a mechanism that does not return, or more runs than fit in the time"
            ) from None
        except BrokenProcessPool:
            raise ValueError(
                "a worker process died while running the mechanism (os._exit, a crash or out of memory)"
            ) from None
        except Exception as error:  # noqa: BLE001 — e.g. a Dask worker that cannot import the mechanism
            raise ValueError(
                f"a worker could not run the mechanism: {type(error).__name__}: {' '.join(str(error).split())} "
                "(on Dask, the mechanism's module and every module it imports must be importable on each worker)"
            ) from None


def _fails(kind: bool, best: dict[bool, _Estimate], best_delta: dict[bool, float], claimed_epsilon: float,
           delta: float) -> bool:
    """Whether events of ``kind`` certify a failure of the claim: an ε lower bound at δ above the
    claimed ε, or a δ lower bound at the claimed ε above the claimed δ."""
    return kind in best and (best[kind].epsilon > claimed_epsilon or best_delta[kind] > delta)


class _Values:
    """Statistic values per (statistic, runs), each computed once: within a stage for every
    statistic (candidates of both directions, or of ε and δ, often share one), across stages for
    the statistics ``fits`` keeps (split 2's parts are the same arrays at every stage, so a kept
    fit scores only the parts that are new). Entries hold their statistic and runs, so that the
    object ids in the keys stay theirs."""

    def __init__(self, fits: Fits) -> None:
        self.fits = fits
        self.kept: dict[tuple[int, int], tuple[Statistic, np.ndarray, np.ndarray]] = {}

    def of(self, statistic: Statistic, runs: np.ndarray | _Reduced) -> np.ndarray:
        if isinstance(runs, _Reduced):
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

    def prefit(self, runs: _Runs, pair: int, selection: int, threads: Executor) -> list[Statistic] | None:
        """Once the search split's first runs of ``pair`` hold what the stage's fits read
        (:func:`search.prefit`, for a split 1 of ``selection`` runs per input), make the fits and
        start evaluating them on every part of split 2 that arrived as runs (on ``threads``, while
        the workers generate the rest): values the estimation would compute after the search
        anyway, for the candidates the search keeps — computed early, the same numbers. Returns
        the fits (empty: none apply; None: not enough runs yet)."""
        fitted = prefit(*runs.heads(pair), pair, (selection, selection), self.fits)
        for side in runs.rest[pair] if fitted else ():
            for part in side:
                missing = [statistic for statistic in fitted
                           if not isinstance(part, _Reduced) and (id(statistic), id(part)) not in self.kept]
                if missing:
                    future = threads.submit(evaluate, missing, part)
                    for index, statistic in enumerate(missing):
                        self.kept[(id(statistic), id(part))] = (statistic, part, _Pending(future, index))
        return fitted

    def evaluate(self, needed: Iterable[tuple[Statistic, np.ndarray]], threads: Executor) -> None:
        """Compute the values of ``needed`` not kept yet on ``threads`` (numpy releases the GIL in
        the arithmetic: the estimation no longer runs on one core), the statistics of one runs
        array together (:func:`events.evaluate`: one pass, shared features); the same numbers as
        serially."""
        jobs: dict[int, tuple[np.ndarray, list[Statistic]]] = {}
        for statistic, runs in needed:
            if isinstance(runs, _Reduced):
                continue
            job = jobs.setdefault(id(runs), (runs, []))
            if (id(statistic), id(runs)) not in self.kept and all(s is not statistic for s in job[1]):
                job[1].append(statistic)
        jobs = {key: job for key, job in jobs.items() if job[1]}
        for (runs, statistics), computed in zip(jobs.values(), threads.map(_apply, jobs.values())):
            for statistic, values in zip(statistics, computed):
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


def _run_stage(
    splits: Iterable[tuple[tuple[np.ndarray, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]],
    delta: float,
    alpha: float,
    keep: int,
    claimed_epsilon: float,
    values: _Values,
    threads: Executor,
) -> tuple[list[_Estimate], int, int]:
    """Search each pair on split 1; per kind of event (real-number, float-artefact) estimate the
    ``keep`` best on split 2. The kinds, ranked by their best split-1 score, share ``alpha`` by
    :func:`ranked_levels`, and so do the candidates within a kind; each candidate's two bounds
    are taken at half its level. ``values``: the audit's statistic values and fits, kept across
    stages; the candidates' statistics are evaluated on split 2 on ``threads``."""
    z = search_z(LEAD_SHARE * alpha / 2)  # the level of the leading candidate's bounds
    found, estimation = [], []
    for p, ((a1, b1), split2) in enumerate(splits):
        target = (sum(len(a2) for a2, _ in split2), sum(len(b2) for _, b2 in split2))
        found.append(search_pair(a1, b1, p, delta, z, claimed_epsilon, target, values.fits))
        estimation.append(split2)
    examined = sum(result.examined for result in found)
    ranked = sorted((c for result in found for c in result.candidates if _estimable(c, estimation[c.pair_index])),
                    key=lambda c: -c.score)
    pools = [pool for kind in (False, True) if (pool := [c for c in ranked if c.event.float_artefact == kind][:keep])]
    pools.sort(key=lambda pool: -pool[0].score)
    values.evaluate(((candidate.event.statistic, part[side]) for pool in pools for candidate in pool
                     if isinstance(candidate.event, IntervalEvent)
                     for part in estimation[candidate.pair_index] for side in (0, 1)), threads)
    estimates = [
        _estimate(candidate, estimation[candidate.pair_index], delta, claimed_epsilon, level / 2, values)
        for pool, kind_level in zip(pools, ranked_levels(alpha, len(pools)) if pools else [])
        for candidate, level in zip(pool, ranked_levels(kind_level, len(pool)))
    ]
    values.end_stage()
    return estimates, examined, len(estimates)


def _estimable(candidate: Candidate, split2: list[tuple[Any, Any]]) -> bool:
    """Whether the candidate's event can be counted on every part of split 2: parts reduced on the
    workers keep only their statistics' values (a condition on split 1 alone, see
    :func:`search.reduction`)."""
    event = candidate.event
    return all(not isinstance(part, _Reduced)
               or (isinstance(event, IntervalEvent) and part.values_of(event.statistic) is not None)
               for parts in split2 for part in parts)


def _apply(job: tuple[np.ndarray, list[Statistic]]) -> list[np.ndarray]:
    runs, statistics = job
    return evaluate(statistics, runs)


def _estimate(
    candidate: Candidate, split2: list[tuple[np.ndarray, np.ndarray]], delta: float, claimed_epsilon: float,
    level: float, values: _Values,
) -> _Estimate:
    """Clopper–Pearson bounds at ``level`` on split 2 (counted part by part), the ε bound at δ and
    the δ bound at the claimed ε of one candidate (``values``: the statistics already evaluated on
    these runs)."""
    k_a, k_b = (sum(_hits(candidate.event, part[side], values) for part in split2) for side in (0, 1))
    n_a, n_b = (sum(len(part[side]) for part in split2) for side in (0, 1))
    k_p, n_p, k_q, n_q = (k_a, n_a, k_b, n_b) if candidate.forward else (k_b, n_b, k_a, n_a)
    p_lo = clopper_pearson_lower(k_p, n_p, level)
    q_hi = clopper_pearson_upper(k_q, n_q, level)
    return _Estimate(epsilon_lower(p_lo, q_hi, delta), delta_lower(p_lo, q_hi, claimed_epsilon), candidate,
                     (k_p, n_p, k_q, n_q), (p_lo, q_hi), level)


def _hits(event: Event, runs: np.ndarray, values: _Values) -> int:
    """The runs in ``event``; an interval event's statistic is evaluated once per runs."""
    if not isinstance(event, IntervalEvent):
        return int(np.count_nonzero(event.indicator(runs)))
    return int(np.count_nonzero(event.within(values.of(event.statistic, runs))))


def _witness(estimate: _Estimate, pairs: Sequence[NeighbourPair]) -> dict[str, Any]:
    candidate = estimate.candidate
    pair = pairs[candidate.pair_index]
    first, second = ("a", "b") if candidate.forward else ("b", "a")
    k_p, n_p, k_q, n_q = estimate.counts
    return {
        "pair": {
            "index": candidate.pair_index,
            "label": pair.label,
            "a": _json_input(pair.a),
            "b": _json_input(pair.b),
        },
        "direction": f"P[M({first}) in E] <= e^eps P[M({second}) in E] + delta",
        "event": candidate.event.describe(),
        "family": candidate.family,
        "kind": "float artefact" if candidate.event.float_artefact else "real number",
        "hits": {first: k_p, second: k_q},
        "runs": {first: n_p, second: n_q},
        "p_lower": estimate.bounds[0],
        "q_upper": estimate.bounds[1],
        "bound_level": estimate.alpha,
    }


def _json_input(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist() if value.size <= 64 else f"array of shape {value.shape}"
    if isinstance(value, tuple):
        return [_json_input(part) for part in value]
    return value if isinstance(value, (int, float, str, bool, list, dict)) or value is None else repr(value)
