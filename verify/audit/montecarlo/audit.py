"""The Monte Carlo privacy audit: a lower bound on ε that holds with a stated confidence.

Procedure (per stage of a sequential plan):

1. Run the mechanism on both inputs of every neighbour pair (chunks, :mod:`executors`). Each
   chunk's first half belongs to split 1, its second half to split 2.
2. Search events on split 1 only (:mod:`search`): for every pair, event family and direction
   the best event, ranked by a split-1 ε bound.
3. Keep the ``candidates`` best of them and estimate each on split 2, which the search never saw:
   Clopper–Pearson bounds ``p_lo`` and ``q_hi`` and ``ε_lo = log((p_lo − δ)/q_hi)``.

What is corrected for. Conditionally on split 1 the K kept candidates are fixed, and split 2 is
independent of split 1, so only those K candidates — each with two one-sided bounds — enter a
Bonferroni correction: every bound is taken at level α_s / (2K). The many (pair, event,
direction) combinations the search compared on split 1 need no correction: they only chose what
to test. The stages form a union bound too: stage s uses α_s, with Σ α_s = α = 1 − confidence
(:func:`statistics.stage_alphas`). Hence, with probability at least ``confidence``, every
reported bound of every stage holds at once, and the audit may stop at the first stage that
certifies a violation and report the largest bound seen.

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
from concurrent.futures import Executor, Future
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.contract import ProbeTask, check_probe
from dpledger.verify.audit.montecarlo.executors import ChunkTask, chunk_seeds, chunk_sizes, owned_processes
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, harmonise
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.search import Candidate, search_pair
from dpledger.verify.audit.montecarlo.statistics import (
    best_possible_epsilon,
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
    search_z,
    stage_alphas,
)

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class AuditResult:
    """The verdict of an audit; ``to_json()`` gives the CLI payload."""

    epsilon_lower: float
    confidence: float
    claimed_epsilon: float
    delta: float
    violation: bool
    samples: int
    samples_total: int
    seconds: float
    witness: dict[str, Any] | None
    delta_lower: float | None
    candidates_searched: int
    candidates_corrected: int
    stages_run: int
    stages_planned: int

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilon_lower": self.epsilon_lower,
            "confidence": self.confidence,
            "claimed_epsilon": self.claimed_epsilon,
            "delta": self.delta,
            "violation": self.violation,
            "samples": self.samples,
            "samples_total": self.samples_total,
            "seconds": round(self.seconds, 3),
            "witness": self.witness,
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
    candidate: Candidate
    counts: tuple[int, int, int, int]
    bounds: tuple[float, float]
    alpha: float


class _Runs:
    """Outputs per pair and input, written in place into two buffers: every chunk's first half
    goes to the search split, its second half to the estimation split (no copying per stage)."""

    def __init__(self, pairs: int, sizes: list[int]) -> None:
        halves = np.asarray(sizes) // 2
        self.offsets = (
            np.concatenate([[0], np.cumsum(halves)]),
            np.concatenate([[0], np.cumsum(np.asarray(sizes) - halves)]),
        )
        self.buffers: list[list[tuple[np.ndarray, np.ndarray] | None]] = [[None, None] for _ in range(pairs)]
        self.filled = [[0, 0] for _ in range(pairs)]

    def add(self, pair: int, side: int, outputs: np.ndarray) -> None:
        """Store the next chunk of runs of ``pair`` on input ``side``."""
        chunk = self.filled[pair][side]
        buffers = self.buffers[pair][side]
        if buffers is None:
            buffers = tuple(np.empty((int(o[-1]),) + outputs.shape[1:], outputs.dtype) for o in self.offsets)
        elif buffers[0].shape[1:] != outputs.shape[1:]:
            raise ValueError(
                f"mechanism outputs have inconsistent shapes across runs: "
                f"{buffers[0].shape[1:]} and {outputs.shape[1:]}"
            )
        elif np.result_type(buffers[0].dtype, outputs.dtype) != buffers[0].dtype:
            common = np.result_type(buffers[0].dtype, outputs.dtype)
            buffers = tuple(buffer.astype(common) for buffer in buffers)
        half = len(outputs) // 2
        for buffer, offsets, part in zip(buffers, self.offsets, (outputs[:half], outputs[half:])):
            buffer[offsets[chunk] : offsets[chunk + 1]] = part
        self.buffers[pair][side] = buffers
        self.filled[pair][side] = chunk + 1

    def chunks_done(self) -> int:
        return self.filled[0][0]

    def splits(self, pair: int) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """``((a1, b1), (a2, b2))``: the search and estimation splits of the chunks so far."""
        chunks = self.filled[pair][0]
        views = [
            tuple(buffer[: offsets[chunks]] for buffer, offsets in zip(buffers, self.offsets))
            for buffers in self.buffers[pair]
        ]
        (a1, a2), (b1, b2) = views
        return harmonise(a1, b1), harmonise(a2, b2)


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
    while best_possible_epsilon(n // 2, n // 2, delta, alpha) <= claimed_epsilon:
        n *= 2
        if n > MAX_BUDGET:
            return None
    low, high = n // 2, n
    while high - low > 1:
        middle = (low + high) // 2
        if best_possible_epsilon(middle // 2, middle // 2, delta, alpha) > claimed_epsilon:
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
) -> AuditResult:
    """Audit ``mechanism`` on ``pairs`` against the claim (ε, δ) with ``samples`` runs per input.

    Returns a lower bound on the mechanism's ε at ``delta`` that holds with probability at least
    ``confidence`` (see the module docstring for the correction), and ``violation`` when that
    bound exceeds ``claimed_epsilon``. Without an executor, runs go to local processes.
    ``timeout``: seconds the audit may take, probe included; beyond it the audit stops with a
    ``ValueError`` (enforced on executors that run tasks elsewhere — processes, Dask; an
    in-process executor runs each task at submission, before it could be stopped). A mechanism
    failing the contract checks of :mod:`contract` is refused with a ``ValueError``.
    """
    validate(claimed_epsilon, delta, confidence, samples, stages, candidates)
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout}")
    if not pairs:
        raise ValueError("no neighbour pairs to audit")
    alpha = 1.0 - confidence
    sizes = chunk_sizes(samples)
    plan = stage_plan(len(sizes), stages)
    alphas = stage_alphas(alpha, len(plan))
    final_alpha = alphas[-1] / (2 * candidates)
    if best_possible_epsilon(samples // 2, samples // 2, delta, final_alpha) <= claimed_epsilon:
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
    best: _Estimate | None = None
    searched = corrected = stages_run = done = 0
    with contextlib.nullcontext(executor) if executor is not None else owned_processes() as pool:
        check_probe(wait.result(pool.submit(ProbeTask(mechanism, pairs[0].a, pairs[0].b, seed)), "the probe"))
        for stage_end, stage_alpha in zip(plan, alphas):
            stages_run += 1
            start = runs.chunks_done()
            futures = [
                [
                    (
                        side,
                        pool.submit(
                            ChunkTask(mechanism, (pair.a, pair.b)[side], sizes[c], seeds[p][side][c])
                        ),
                    )
                    for side in (0, 1)
                    for c in range(start, stage_end)
                ]
                for p, pair in enumerate(pairs)
            ]

            def arrivals() -> Iterator[tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]]:
                """Each pair's splits as soon as its chunks are in (searching overlaps generation)."""
                nonlocal done
                for p, pair_futures in enumerate(futures):
                    for side, future in pair_futures:
                        runs.add(p, side, wait.result(future, f"stage {stages_run}"))
                        done += 1
                        if on_progress:
                            on_progress(done, total_tasks)
                    yield runs.splits(p)

            estimate, examined, estimated = _run_stage(arrivals(), delta, stage_alpha, candidates)
            searched += examined
            corrected += estimated
            if estimate is not None and (best is None or estimate.epsilon > best.epsilon):
                best = estimate
            if best is not None and best.epsilon > claimed_epsilon:
                break
    if on_progress and done < total_tasks:  # stopped early: close the bar
        on_progress(total_tasks, total_tasks)
    used = sum(sizes[: runs.chunks_done()])
    certified = max(best.epsilon, 0.0) if best is not None else 0.0
    return AuditResult(
        epsilon_lower=certified,
        confidence=confidence,
        claimed_epsilon=claimed_epsilon,
        delta=delta,
        violation=certified > claimed_epsilon,
        samples=used,
        samples_total=2 * len(pairs) * used,
        seconds=time.perf_counter() - started,
        witness=_witness(best, pairs) if best is not None and best.epsilon > 0 else None,
        delta_lower=delta_lower(*best.bounds, claimed_epsilon) if best is not None else None,
        candidates_searched=searched,
        candidates_corrected=corrected,
        stages_run=stages_run,
        stages_planned=len(plan),
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


def _run_stage(
    splits: Iterable[tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]],
    delta: float,
    alpha: float,
    keep: int,
) -> tuple[_Estimate | None, int, int]:
    """Search each pair on split 1, estimate the ``keep`` best on split 2 at level alpha / (2·kept)."""
    z = search_z(alpha / (2 * keep))
    found, estimation = [], []
    for p, ((a1, b1), split2) in enumerate(splits):
        found.append(search_pair(a1, b1, p, delta, z))
        estimation.append(split2)
    pool = sorted((c for result in found for c in result.candidates), key=lambda c: -c.score)[:keep]
    examined = sum(result.examined for result in found)
    if not pool:
        return None, examined, 0
    level = alpha / (2 * len(pool))
    best: _Estimate | None = None
    for candidate in pool:
        a2, b2 = estimation[candidate.pair_index]
        p_runs, q_runs = (a2, b2) if candidate.forward else (b2, a2)
        k_p = int(np.count_nonzero(candidate.event.indicator(p_runs)))
        k_q = int(np.count_nonzero(candidate.event.indicator(q_runs)))
        p_lo = clopper_pearson_lower(k_p, len(p_runs), level)
        q_hi = clopper_pearson_upper(k_q, len(q_runs), level)
        estimate = _Estimate(
            epsilon_lower(p_lo, q_hi, delta),
            candidate,
            (k_p, len(p_runs), k_q, len(q_runs)),
            (p_lo, q_hi),
            level,
        )
        if best is None or estimate.epsilon > best.epsilon:
            best = estimate
    return best, examined, len(pool)


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
