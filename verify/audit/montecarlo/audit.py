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

What the budget buys. The leading candidate of the last of 4 stages is estimated on ¾ of the
runs at ≈ 0.28·α per bound (the optimal statistic, known in advance, would use all runs at α/2);
a search that ranks well loses little, one that ranks badly still has its runners-up, at a
smaller level.

Verdict. ``VIOLATION`` when the real-number events certify a failure of the claim: an ε bound
at δ above the claimed ε, or (for an (ε, δ) claim) a δ bound at the claimed ε above the claimed
δ — for one event the two conditions coincide; the search offers, besides each family's ε-best
event, its δ-best event at the claimed ε. The mechanism then breaks the claim as a mechanism over
the reals — a bug in the mathematics; the audit stops at the first stage that certifies it.
``FLOAT LEAK`` when only the float-artefact events do: the mathematics may be right, but the
floating-point implementation leaks through its low bits (Mironov 2012); the audit then runs all
its stages, so that a real-number violation, had the budget shown one, takes precedence.
Otherwise ``NO VIOLATION FOUND``. Both failing verdicts are failed claims (``violation``).

Throughput. Only split 1 is copied into one array per input (the search reads it
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
queued once the decision is made, while the current stage's chunks still arrive
(:class:`chunks.Schedule`; :class:`chunks.Runs` and :class:`chunks.Values` keep what arrives). The decision
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
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.chunks import Reduced, Runs, Schedule, Values, selection_runs
from dpledger.verify.audit.montecarlo.contract import ProbeTask, check_probe
from dpledger.verify.audit.montecarlo.events import Event, IntervalEvent
from dpledger.verify.audit.montecarlo.executors import (
    InProcessExecutor,
    chunk_seeds,
    chunk_shape,
    chunk_sizes,
    owned_processes,
    shared_directory,
)
from dpledger.verify.audit.montecarlo.mechanism import Mechanism, ship
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.search import Candidate, Fits, one_blas_thread, search_pair
from dpledger.verify.audit.montecarlo.statistics import (
    LEAD_SHARE,
    best_possible_epsilon,
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
    ranked_levels,
    search_z,
    stage_alphas,
)

Progress = Callable[[int, int], None]


ESTIMATION_THREADS = 2
"""Threads of the caller that evaluate the candidates' statistics on split 2."""

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


def estimation_runs(samples: int) -> int:
    """Runs per input of a budget of ``samples`` that go to the estimation split (split 2);
    computed from the chunks' shape, never by listing them (budgets up to 2⁵⁰ are asked for)."""
    size, full, rest = chunk_shape(samples)
    return samples - full * selection_runs(size) - (selection_runs(rest) if rest else 0)


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

    Args:
        mechanism: ``mechanism(data, n_samples, rng) -> array`` of ``n_samples`` outputs.
        pairs: The neighbour pairs to run it on.
        claimed_epsilon: The claimed ε.
        delta: The claimed δ.
        samples: Runs per input.
        confidence: The probability with which every reported bound holds at once.
        seed: Seed of the runs (None: fresh entropy, reported in the result).
        executor: Where the runs go (None: local processes).
        stages: Stages of the sequential plan.
        candidates: Events of each kind estimated on split 2.
        on_progress: Called with (runs done, runs planned).
        timeout: Seconds a chunk may take before the audit fails.
        network: Also fit the perceptron distinguisher on vector outputs.

    Returns:
        The :class:`MonteCarloAuditResult`: the bounds, the verdict and its witness.

    Raises:
        ValueError: invalid arguments, or a mechanism that fails, times out or cannot be shipped.
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
        advice = (
            f"use at least {needed}"
            if needed is not None
            else f"no budget up to {MAX_BUDGET} could: the claim is beyond what sampling can refute"
        )
        raise ValueError(
            f"too few samples: with {samples} runs per input no event could certify ε above "
            f"{claimed_epsilon} at confidence {confidence}; {advice}"
        )
    started = time.perf_counter()
    wait = _Deadline(started, timeout)
    seeds = chunk_seeds(seed, len(pairs), len(sizes))
    runs = Runs(len(pairs), sizes)
    best: dict[bool, _Estimate] = {}  # float_artefact → the estimate of largest ε bound of that kind
    best_delta: dict[bool, float] = {}  # float_artefact → the largest δ lower bound at the claimed ε
    searched = corrected = stages_run = 0
    values = Values(Fits(network))  # fits and statistic values kept across stages
    with (
        contextlib.nullcontext(executor) if executor is not None else owned_processes() as pool,
        shared_directory(pool) as shared,
        ThreadPoolExecutor(ESTIMATION_THREADS) as threads,
        one_blas_thread(),
    ):
        check_probe(wait.result(pool.submit(ProbeTask(mechanism, pairs[0].a, pairs[0].b, seed)), "the probe"))

        schedule = Schedule(
            pool,
            mechanism,
            pairs,
            sizes,
            seeds,
            plan,
            runs,
            shared,
            values,
            threads,
            wait.result,
            on_progress,
        )
        try:
            for stage, stage_alpha in enumerate(alphas):
                stages_run += 1
                estimates, examined, estimated = _run_stage(
                    schedule.arrivals(stage), delta, stage_alpha, candidates, claimed_epsilon, values, threads
                )
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
            schedule.cancel()  # stopped early or failed: drop the queued chunks
    if on_progress and schedule.done < schedule.total:  # stopped early: close the bar
        on_progress(schedule.total, schedule.total)
    used = sum(sizes[: runs.chunks_done()])
    real = max(best[False].epsilon, 0.0) if False in best else 0.0
    floating = max(best[True].epsilon, 0.0) if True in best else None
    verdict = (
        VIOLATION
        if _fails(False, best, best_delta, claimed_epsilon, delta)
        else FLOAT_LEAK
        if _fails(True, best, best_delta, claimed_epsilon, delta)
        else NO_VIOLATION
    )
    witnesses = {
        kind: _witness(estimate, pairs) if estimate.epsilon > 0 else None for kind, estimate in best.items()
    }
    deciding = (
        False
        if verdict == VIOLATION
        else True
        if verdict == FLOAT_LEAK
        else max(best, key=lambda kind: best[kind].epsilon, default=None)
    )
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
        remaining = (
            None if self.timeout is None else max(self.started + self.timeout - time.perf_counter(), 0.0)
        )
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
        except Exception as error:
            raise ValueError(
                f"a worker could not run the mechanism: {type(error).__name__}: {' '.join(str(error).split())} "
                "(on Dask, the mechanism's module and every module it imports must be importable on each worker)"
            ) from None


def _fails(
    kind: bool,
    best: dict[bool, _Estimate],
    best_delta: dict[bool, float],
    claimed_epsilon: float,
    delta: float,
) -> bool:
    """Whether events of ``kind`` certify a failure of the claim: an ε lower bound at δ above the
    claimed ε, or a δ lower bound at the claimed ε above the claimed δ."""
    return kind in best and (best[kind].epsilon > claimed_epsilon or best_delta[kind] > delta)


def _run_stage(
    splits: Iterable[tuple[tuple[np.ndarray, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]],
    delta: float,
    alpha: float,
    keep: int,
    claimed_epsilon: float,
    values: Values,
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
    ranked = sorted(
        (c for result in found for c in result.candidates if _estimable(c, estimation[c.pair_index])),
        key=lambda c: -c.score,
    )
    pools = [
        pool
        for kind in (False, True)
        if (pool := [c for c in ranked if c.event.float_artefact == kind][:keep])
    ]
    pools.sort(key=lambda pool: -pool[0].score)
    values.evaluate(
        (
            (candidate.event.statistic, part[side])
            for pool in pools
            for candidate in pool
            if isinstance(candidate.event, IntervalEvent)
            for part in estimation[candidate.pair_index]
            for side in (0, 1)
        ),
        threads,
    )
    estimates = [
        _estimate(candidate, estimation[candidate.pair_index], delta, claimed_epsilon, level / 2, values)
        for pool, kind_level in zip(pools, ranked_levels(alpha, len(pools)) if pools else [], strict=True)
        for candidate, level in zip(pool, ranked_levels(kind_level, len(pool)), strict=True)
    ]
    values.end_stage()
    return estimates, examined, len(estimates)


def _estimable(candidate: Candidate, split2: list[tuple[Any, Any]]) -> bool:
    """Whether the candidate's event can be counted on every part of split 2: parts reduced on the
    workers keep only their statistics' values (a condition on split 1 alone, see
    :func:`search.reduction`)."""
    event = candidate.event
    return all(
        not isinstance(part, Reduced)
        or (isinstance(event, IntervalEvent) and part.values_of(event.statistic) is not None)
        for parts in split2
        for part in parts
    )


def _estimate(
    candidate: Candidate,
    split2: list[tuple[np.ndarray, np.ndarray]],
    delta: float,
    claimed_epsilon: float,
    level: float,
    values: Values,
) -> _Estimate:
    """Clopper–Pearson bounds at ``level`` on split 2 (counted part by part), the ε bound at δ and
    the δ bound at the claimed ε of one candidate (``values``: the statistics already evaluated on
    these runs)."""
    k_a, k_b = (sum(_hits(candidate.event, part[side], values) for part in split2) for side in (0, 1))
    n_a, n_b = (sum(len(part[side]) for part in split2) for side in (0, 1))
    k_p, n_p, k_q, n_q = (k_a, n_a, k_b, n_b) if candidate.forward else (k_b, n_b, k_a, n_a)
    p_lo = clopper_pearson_lower(k_p, n_p, level)
    q_hi = clopper_pearson_upper(k_q, n_q, level)
    return _Estimate(
        epsilon_lower(p_lo, q_hi, delta),
        delta_lower(p_lo, q_hi, claimed_epsilon),
        candidate,
        (k_p, n_p, k_q, n_q),
        (p_lo, q_hi),
        level,
    )


def _hits(event: Event, runs: np.ndarray, values: Values) -> int:
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
