"""The Monte Carlo privacy audit: a lower bound on ε that holds with a stated confidence.

Procedure (per stage of a sequential plan):

1. Run the mechanism on both inputs of every neighbour pair (chunks, :mod:`tasks`, on a
   :class:`runner.Runner`). Each
   chunk's first quarter belongs to split 1, the rest to split 2 (:func:`selection_runs`).
2. Search events on split 1 only (:mod:`search`): for every pair, event family and direction
   the best event, ranked by a split-1 ε bound (learned distinguishers are fitted, and their
   thresholds chosen, on split 1 as well).
3. Keep the ``candidates`` best real-number events, the ``candidates`` best one-sided
   real-number events (:mod:`one_sided`: outputs one input produced and the other (almost) never) and
   the ``candidates`` best float-artefact events (:mod:`events`: lattice events read the low bits
   of the float64, the others the value) — each event once, and the last place of each kind to
   the best event of a statistic the others do not read (:func:`kept`) — and estimate each on
   split 2, which the search never saw: Clopper–Pearson bounds ``p_lo`` and
   ``q_hi``, ``ε_lo = log((p_lo − δ)/q_hi)`` and ``δ_lo = p_lo − e^ε q_hi`` at the claimed ε.

What is corrected for. Conditionally on split 1 the kept candidates are fixed, and split 2 is
independent of split 1, so only they — each with two one-sided bounds — enter a Bonferroni
correction. It is weighted by the split-1 ranking (:func:`statistics.ranked_levels`): stage s's
level α_s goes to the pools — real-number, one-sided, float-artefact — that hold candidates (the
pool with the best split-1 score first: ¾ of α_s, the others sharing ¼; a pool alone takes all of
it), each pool's level to its K candidates (the best ¾, the
others sharing ¼), and a candidate with level α_c has both bounds at α_c / 2. A one-sided key set
or off-grid event ranks by its bid, the score of its split-1 hits one standard error up
(:mod:`one_sided`: its bound rests on a handful of hits and gains most from the level). The levels sum to
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

Throughput. Where runs are made and how they travel is the runner's business alone
(:mod:`runner`: in process, local processes, Dask), never the statistics'. Only split 1 is copied into one array per input (the search reads it
whole); split 2 stays as it arrived, one part per chunk, and is counted part by part. On a local
process pool chunks come back through shared memory (:class:`transport.SharedChunkTask`), not
pickled through the pipe. A pair's fits (:func:`search.prefit`) are made as soon as the runs they
read have arrived — while the workers generate the rest — and evaluated at once on the stage's parts
of split 2 on the caller's threads (:data:`runner.ESTIMATION_THREADS`), every statistic sharing one pass over the runs
(:func:`events.evaluate`); fits whose rows are unchanged (the caps of :mod:`search`) are kept
across stages with their values (:class:`search.Fits`). When a pair's fits are its last and its
outputs get no other events (:func:`search.reduction`: float vectors on the lattice, many distinct
rows), the chunks of its next stages are *reduced* where they are made: the worker keeps their
split-1 runs and sends, for split 2, only the fits' values (:class:`tasks.ReducingChunkTask`)
— for 20-d outputs the bulk of the runs is never sent, stored or read again. Those chunks are
queued once the decision is made, while the current stage's chunks still arrive
(:class:`schedule.Schedule`; :class:`store.Runs` and :class:`store.Values` keep what arrives). The decision
reads split 1 alone, at a fixed point of the arrivals, so it is the same at every run and the
correction is unchanged; an event that reduced parts cannot count (one of another statistic) is
not estimated (:func:`store.countable`). None of this changes a number: the same seed gives the same
events, counts and bounds, with or without reduction (tests/verify/test_montecarlo_reduction.py).

Before any stage a cheap probe checks the mechanism's contract (:mod:`contract`: outputs that
depend on the rng, independent outputs within a batch); a ``timeout`` bounds the wall-clock time
of the whole audit. Any failure — the mechanism's, a worker's, the probe's, the timeout — is a
one-line ``ValueError``, never a verdict.
"""

from __future__ import annotations

import math
import numbers
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.accountant.deprecation import renamed_attributes, renamed_keyword, warn_renamed
from dpledger.verify.audit.montecarlo.contract import ProbeTask, check_probe
from dpledger.verify.audit.montecarlo.events import Event, StatisticEvent
from dpledger.verify.audit.montecarlo.mechanism import Mechanism
from dpledger.verify.audit.montecarlo.pairs import IDENTICAL, NeighbourPair, identical_inputs
from dpledger.verify.audit.montecarlo.runner import open_runner, runner_class
from dpledger.verify.audit.montecarlo.schedule import Chunks, Schedule
from dpledger.verify.audit.montecarlo.search import (
    DISTINGUISHER_ROWS,
    Candidate,
    Fits,
    one_blas_thread,
    search_pair,
)
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
from dpledger.verify.audit.montecarlo.store import Runs, Values, countable, selection_runs
from dpledger.verify.audit.montecarlo.tasks import chunk_shape, chunk_sizes
from dpledger.verify.audit.results import AuditResultBase

Progress = Callable[[int, int], None]


VIOLATION = "VIOLATION"
FLOAT_LEAK = "FLOAT LEAK"
NO_VIOLATION = "NO VIOLATION FOUND"


@dataclass(frozen=True)
class MonteCarloAuditResult(AuditResultBase[float]):
    """The verdict of a Monte Carlo audit; ``to_json()`` gives the CLI payload.

    ``real_epsilon_lower`` / ``float_epsilon_lower``: the certified lower bounds from real-number
    and float-artefact events (both hold at once with probability ≥ ``confidence``);
    ``epsilon_lower`` is the larger. ``witness`` is the event behind the verdict (the real one
    for ``VIOLATION``, the float one for ``FLOAT LEAK``, else the larger bound's);
    ``real_witness`` and ``float_witness`` are each kind's best event. ``delta_lower``: the
    largest certified lower bound on δ at the claimed ε among the estimated events of the kind
    behind the verdict (the real one for ``VIOLATION``, the float one for ``FLOAT LEAK``); a
    claim also fails when it exceeds the claimed δ. ``holds`` (:class:`AuditResultBase`) is False
    for both failing verdicts and None otherwise: a sample refutes a claim, it never proves one.
    """

    epsilon_lower: float
    confidence: float
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
    def delta(self) -> float:
        """The claimed δ, under its former name (deprecated: ``claimed_delta``)."""
        warn_renamed("MonteCarloAuditResult.delta", "MonteCarloAuditResult.claimed_delta")
        return self.claimed_delta

    @property
    def delta_violation(self) -> bool:
        """Whether an (ε, δ) claim with δ > 0 fails through δ: a certified δ at the claimed ε above
        the claimed δ (for δ = 0 the ε bound says it all)."""
        return (
            self.claimed_delta > 0
            and self.verdict != NO_VIOLATION
            and self.delta_lower is not None
            and self.delta_lower > self.claimed_delta
        )

    @property
    def one_sided(self) -> bool:
        """Whether the witness is an output only one input produced (no run of the other input in
        its event): ε may be ∞, and ``epsilon_lower`` is the ceiling these runs can certify."""
        return bool(self.witness and self.witness.get("only_one_input_produced"))

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "violation": self.violation,
            "epsilon_lower": self.epsilon_lower,
            "real_epsilon_lower": self.real_epsilon_lower,
            "float_epsilon_lower": self.float_epsilon_lower,
            "confidence": self.confidence,
            "claimed_epsilon": self.claimed_epsilon,
            "claimed_epsilon_text": str(self.claimed_epsilon),  # as written, when a float subclass keeps it
            "delta": self.claimed_delta,
            "samples": self.samples,
            "samples_total": self.samples_total,
            "seconds": round(self.seconds, 3),
            "witness": self.witness,
            "real_witness": self.real_witness,
            "float_witness": self.float_witness,
            "delta_lower_at_claimed_epsilon": self.delta_lower,
            "delta_violation": self.delta_violation,
            "epsilon_is_a_ceiling": self.one_sided,
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


MAX_SAMPLES = 10**10
"""Largest per-input budget of one audit (the command line's cap too): its chunks and seeds are
listed up front — about 150,000 chunks per input at 10¹⁰ — and its runs take about 20 minutes at
the measured 9·10⁶ runs per second; 10¹² would list 15 million chunks before the first run."""

MAX_STAGES = 64
"""Most sequential stages: each halves the budget of the next, so beyond log₂ of the chunk count
(at most 2¹⁸ chunks) further stages all see the first chunk again."""

PROBE_LIMIT = 120.0
"""Seconds the contract probe (about a thousand runs, :mod:`contract`) may take when the audit has
no ``timeout``: a mechanism that sleeps or loops is stopped there instead of hanging the audit."""

MAX_CANDIDATES = 1_000
"""Most candidate events corrected per stage (each one's share of α shrinks as 1/count)."""


def _shown(value: Any) -> str:
    """``value`` for a message: huge integers by their number of digits, other values by repr (cut)."""
    if isinstance(value, numbers.Integral) and abs(int(value)) >= 10**20:
        return f"an integer of {len(str(abs(int(value))))} digits"
    if (
        isinstance(value, numbers.Rational)
        and value != 0
        and max(int(value.numerator), int(value.denominator)) >= 10**20
    ):
        return f"about 1e{math.log10(abs(value.numerator)) - math.log10(value.denominator):+.0f}"
    return repr(value)[:60]


def _real(value: Any, name: str) -> float:
    """``value`` as a float: a real number (int, float, Fraction, numpy scalar) that a float can
    hold; ``ValueError`` naming ``name`` for text, overflow, or a positive value that rounds to 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {_shown(value)} ({type(value).__name__})")
    try:
        number = value if isinstance(value, float) else float(value)  # a float subclass keeps its str
    except OverflowError:
        raise ValueError(f"{name} is {_shown(value)}: beyond the largest float (1.8e308)") from None
    if number == 0 and value != 0:
        raise ValueError(
            f"{name} = {_shown(value)} is below the smallest positive float (5e-324) in magnitude"
        )
    return number


def _count(value: Any, name: str, low: int, high: int) -> int:
    """``value`` as an int in [low, high]; ``ValueError`` naming ``name`` otherwise (text, floats and
    booleans included)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {_shown(value)} ({type(value).__name__})")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer in [{low:,}, {high:,}], got {_shown(value)}")
    return int(value)


def validate(
    claimed_epsilon: Any, delta: Any, confidence: Any, samples: Any, stages: Any, candidates: Any
) -> tuple[float, float, float, int, int, int]:
    """Refuse parameters for which no verdict would mean anything, or whose work could not finish
    (:data:`MAX_SAMPLES`, :data:`MAX_STAGES`, :data:`MAX_CANDIDATES`); return them as floats and
    ints.

    Args:
        claimed_epsilon: the claimed ε, finite and > 0.
        delta: the claimed δ in [0, 1).
        confidence: in (0, 1).
        samples: runs per input, an integer in [2, :data:`MAX_SAMPLES`].
        stages: sequential stages, in [1, :data:`MAX_STAGES`].
        candidates: candidates per stage, in [1, :data:`MAX_CANDIDATES`].

    Returns:
        The six values, converted.

    Raises:
        ValueError: a value of the wrong type or outside its range, with the reason.
    """
    stages = _count(stages, "stages", 1, MAX_STAGES)
    candidates = _count(candidates, "candidates", 1, MAX_CANDIDATES)
    if isinstance(samples, numbers.Integral) and not isinstance(samples, (bool, np.bool_)) and samples < 2:
        raise ValueError(f"need at least 2 samples per input, got {samples}")
    samples = _count(samples, "samples", 2, MAX_SAMPLES)
    claimed_epsilon = _real(claimed_epsilon, "claimed epsilon")
    if not (math.isfinite(claimed_epsilon) and claimed_epsilon > 0):
        raise ValueError(f"claimed epsilon must be a finite number > 0, got {claimed_epsilon}")
    delta = _real(delta, "delta")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must lie in [0, 1), got {delta}")
    confidence = _real(confidence, "confidence")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return claimed_epsilon, delta, confidence, samples, stages, candidates


MEMORY_SHARE = 0.8
"""Share of the machine's available memory an audit's kept runs may take."""


def available_memory() -> int:
    """Bytes of memory available to a new allocation (``MemAvailable`` of ``/proc/meminfo``; the
    free physical pages where there is none)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def check_memory(run_bytes: int, pairs: int, sizes: Sequence[int]) -> None:
    """Refuse an audit whose runs cannot fit in memory: every chunk's first quarter
    (:func:`~dpledger.verify.audit.montecarlo.store.selection_runs`) is kept, for each input of
    each pair, at ``run_bytes`` per output — at least that much, whatever the workers reduce — and
    a whole chunk is in flight twice (made in a worker, mapped by the caller) for each core and one
    more.

    Args:
        run_bytes: bytes of one output (the probe's measure).
        pairs: neighbour pairs audited.
        sizes: the chunk sizes of one input.

    Raises:
        ValueError: the estimate exceeds :data:`MEMORY_SHARE` of :func:`available_memory`, with
            the estimate and the largest sample count that fits.
    """
    kept = 2 * pairs * sum(selection_runs(size) for size in sizes) * run_bytes
    in_flight = 2 * ((os.cpu_count() or 1) + 1) * max(sizes) * run_bytes
    budget = int(MEMORY_SHARE * available_memory())
    if kept + in_flight > budget:
        fits = int(4 * max(budget - in_flight, 0) / (2 * pairs * max(run_bytes, 1)))
        raise ValueError(
            f"too much memory: {pairs:,} pair(s) × 2 inputs × {sum(sizes):,} runs × {run_bytes:,} bytes per "
            f"output keep {kept / 2**30:.3g} GiB, and the chunks in flight take {in_flight / 2**30:.3g} GiB: "
            f"beyond {MEMORY_SHARE:.0%} of the {budget / MEMORY_SHARE / 2**30:.3g} GiB available; use fewer "
            f"samples (about {fits:,} would fit, if any) or audit a smaller output (a statistic of it)"
        )


def check_time(seconds_per_run: float, runs: int, timeout: float | None, spent: float) -> None:
    """Refuse, with the estimate, an audit whose first stage of ``runs`` mechanism runs cannot end
    within its ``timeout`` (a later stage may be skipped, once a violation is certified): at the probe's ``seconds_per_run`` spread over every core of this machine (an
    optimistic rate, so that nothing that could finish is refused), after ``spent`` seconds.

    Args:
        seconds_per_run: the probe batches' time per run.
        runs: the runs of the audit's first stage (2 per pair and sample of its chunks).
        timeout: the audit's timeout in seconds; None refuses nothing.
        spent: seconds already taken (the probe).

    Raises:
        ValueError: the estimate exceeds the time left.
    """
    estimate = seconds_per_run * runs / (os.cpu_count() or 1)
    if timeout is not None and estimate > timeout - spent:
        raise ValueError(
            f"the audit cannot finish within its timeout of {timeout:g} s: its first stage's {runs:,} runs at "
            f"the probe's {seconds_per_run:.3g} s per run need about {estimate:,.0f} s even on all "
            f"{os.cpu_count() or 1} cores; use fewer samples or a longer timeout"
        )


SEARCH_LIMIT = 600.0
"""Seconds the distinguisher fits of an audit without a timeout may be estimated to take before
the audit is refused (:func:`check_search_work`)."""


def fit_flops(rows: int, columns: int) -> float:
    """Floating-point operations of one distinguisher fit (:func:`~dpledger.verify.audit.montecarlo.search.learned.fit_distinguisher`)
    at most: up to 30 Newton steps, each a ``rows`` × ``columns``² Gram product."""
    return 30 * 2 * rows * columns**2


def gram_rate() -> float:
    """Flops per second of a Gram product on one BLAS thread on this machine, measured on a small one."""
    sample = np.ones((2_000, 300))
    with one_blas_thread():
        started = time.perf_counter()
        sample.T @ sample
        return 2 * sample.shape[0] * sample.shape[1] ** 2 / max(time.perf_counter() - started, 1e-9)


SLOWEST_GRAM_RATE = 2e8
"""Flops per second of a Gram product on one BLAS thread below any machine's (unoptimised
reference BLAS reaches about 10⁹): fits within the limit at this rate are not measured
(:func:`check_search_work`) — the measurement would cost the audit more than they do."""


def check_search_work(batch: np.ndarray, pairs: int, sizes: Sequence[int], timeout: float | None) -> None:
    """Refuse an audit whose search could not end: the untied distinguisher has 3d + 3 columns for
    outputs of d values, and its fits cost rows × columns² per Newton step — hours for d in the
    thousands. Checked against ``timeout``, or :data:`SEARCH_LIMIT` when there is none.

    Args:
        batch: the probe's outputs on input a (shape (runs, …)).
        pairs: neighbour pairs (one fit per pair).
        sizes: the chunk sizes of one input.
        timeout: the audit's timeout in seconds, or None.

    Raises:
        ValueError: the estimate exceeds the limit, with the estimate.
    """
    values = int(np.prod(batch.shape[1:], dtype=np.int64)) if batch.ndim > 1 else 1
    if values <= 1:
        return
    rows = 2 * min(DISTINGUISHER_ROWS, sum(selection_runs(size) for size in sizes) // 2)
    flops = pairs * fit_flops(rows, 3 * values + 3)
    limit = SEARCH_LIMIT if timeout is None else timeout
    if flops / SLOWEST_GRAM_RATE <= limit:
        return
    estimate = flops / gram_rate()
    if estimate > limit:
        raise ValueError(
            f"the search cannot finish: outputs of {values:,} values make a distinguisher of {3 * values + 3:,} "
            f"features, whose fit on {rows:,} runs takes about {estimate:,.0f} s here, beyond "
            f"{'the timeout' if timeout is not None else 'the limit without a timeout'} of {limit:g} s; audit a "
            "statistic of the output (fewer values), or pass a longer timeout"
        )


def check_pairs(pairs: Any) -> list[NeighbourPair]:
    """``pairs`` as a non-empty list of :class:`NeighbourPair`; ``ValueError`` saying how to build
    one for anything else (a plain tuple among them)."""
    if isinstance(pairs, NeighbourPair):
        pairs = [pairs]
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise ValueError(f"pairs must be a list of NeighbourPair, got {type(pairs).__name__}")
    listed = list(pairs)
    if not listed:
        raise ValueError("no neighbour pairs to audit")
    for index, pair in enumerate(listed):
        if not isinstance(pair, NeighbourPair):
            raise ValueError(
                f"pairs[{index}] is a {type(pair).__name__}, not a NeighbourPair: write "
                "NeighbourPair(a, b, 'label') (from dpledger import NeighbourPair) for inputs a and b"
            )
    return listed


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
    claimed_delta: float | None = None,
    samples: int = 100_000,
    confidence: float = 0.95,
    seed: int = 0,
    executor: Executor | None = None,
    stages: int = 4,
    candidates: int = 5,
    on_progress: Progress | None = None,
    timeout: float | None = None,
    network: bool = False,
    delta: float | None = None,
) -> MonteCarloAuditResult:
    """Audit ``mechanism`` on ``pairs`` against the claim (ε, δ) with ``samples`` runs per input.

    Returns lower bounds on the mechanism's ε at ``claimed_delta`` (``delta=``, its former name, is
    deprecated) — from real-number events and from
    float-artefact events — that hold together with probability at least ``confidence`` (see the
    module docstring for the correction), and the verdict: ``VIOLATION`` when the real-number
    bound exceeds ``claimed_epsilon``, ``FLOAT LEAK`` when only the float-artefact one does. Without an executor, runs go to local processes. A mechanism
    defined anywhere — at module level, in a closure, inside a test — is sent to the workers with
    ``cloudpickle`` (:func:`~dpledger.verify.audit.montecarlo.mechanism.ship`); modules it imports
    must be importable there.
    ``timeout``: seconds the audit may take, probe included; beyond it the audit stops with a
    ``ValueError`` — also during the caller's own work (the searches and estimates) and inside an
    in-process run (a SIGALRM timer in the main thread,
    :func:`~dpledger.verify.audit.montecarlo.executors.alarm`; off the main thread a task run at
    submission is refused once it returns late). Without one, the probe may take
    :data:`PROBE_LIMIT` seconds; and an audit whose first stage cannot end within its timeout at
    the probe's speed, or whose kept runs cannot fit in memory, is refused before it starts
    (:func:`check_time`, :func:`check_memory`). A mechanism
    failing the contract checks of :mod:`contract` is refused with a ``ValueError``, and so is a
    pair of identical inputs (:func:`~dpledger.verify.audit.montecarlo.pairs.identical_inputs`):
    no run could tell them apart.
    ``network``: also search the scores of a small perceptron fitted on split 1 (DP-Sniper's MLP,
    :mod:`perceptron`) — opt-in, for vector outputs whose privacy loss no linear score expresses.

    Args:
        mechanism: ``mechanism(data, n_samples, rng) -> array`` of ``n_samples`` outputs.
        pairs: The neighbour pairs to run it on.
        claimed_epsilon: The claimed ε.
        claimed_delta: The claimed δ (0 when not given).
        samples: Runs per input.
        confidence: The probability with which every reported bound holds at once.
        seed: Seed of the runs (None: fresh entropy, reported in the result).
        executor: Where the runs go (None: local processes).
        stages: Stages of the sequential plan.
        candidates: Events of each kind estimated on split 2.
        on_progress: Called with (runs done, runs planned).
        timeout: Seconds a chunk may take before the audit fails.
        network: Also fit the perceptron distinguisher on vector outputs.
        delta: Deprecated name of ``claimed_delta``.

    Returns:
        The :class:`MonteCarloAuditResult`: the bounds, the verdict and its witness.

    Raises:
        ValueError: invalid arguments, or a mechanism that fails, times out or cannot be shipped.
        TypeError: both ``claimed_delta`` and ``delta``.
    """
    claimed_delta = renamed_keyword("audit", "delta", "claimed_delta", delta, claimed_delta)
    delta = 0.0 if claimed_delta is None else claimed_delta
    claimed_epsilon, delta, confidence, samples, stages, candidates = validate(
        claimed_epsilon, delta, confidence, samples, stages, candidates
    )
    pairs = check_pairs(pairs)
    if timeout is not None:
        timeout = _real(timeout, "timeout")
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout}")
    if not callable(mechanism):
        raise ValueError(f"mechanism must be a callable f(data, n, rng), got {type(mechanism).__name__}")
    mechanism = runner_class(executor).shipped(mechanism)
    if not pairs:
        raise ValueError("no neighbour pairs to audit")
    for pair in pairs:
        if identical_inputs(pair.a, pair.b):
            raise ValueError(IDENTICAL if len(pairs) == 1 else f"pair {pair.label!r}: {IDENTICAL}")
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
    runs = Runs(len(pairs), sizes)
    best: dict[bool, _Estimate] = {}  # float_artefact → the estimate of largest ε bound of that kind
    best_delta: dict[bool, float] = {}  # float_artefact → the largest δ lower bound at the claimed ε
    searched = corrected = stages_run = 0
    values = Values(Fits(network))  # fits and statistic values kept across stages
    with open_runner(executor, started, timeout) as runner, one_blas_thread():
        probe = runner.result(
            runner.submit(ProbeTask(mechanism, pairs[0].a, pairs[0].b, seed)), "the probe", PROBE_LIMIT
        )
        check_probe(probe)
        check_memory(probe["run_bytes"], len(pairs), sizes)
        first_stage = 2 * len(pairs) * sum(sizes[: plan[0]])
        check_time(probe["seconds_per_run"], first_stage, timeout, time.perf_counter() - started)
        check_search_work(probe["a"][0], len(pairs), sizes, timeout)

        schedule = Schedule(runner, Chunks.of(mechanism, pairs, sizes, seed), plan, runs, values, on_progress)
        try:
            for stage, stage_alpha in enumerate(alphas):
                stages_run += 1
                estimates, examined, estimated = _run_stage(
                    schedule.arrivals(stage),
                    delta,
                    stage_alpha,
                    candidates,
                    claimed_epsilon,
                    values,
                    runner.threads,
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
    return MonteCarloAuditResult(
        claimed_epsilon=claimed_epsilon,
        claimed_delta=delta,
        holds=None if verdict == NO_VIOLATION else False,
        epsilon_lower=max(real, floating or 0.0),
        confidence=confidence,
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
    """Search each pair on split 1; per pool of events (real-number, one-sided real-number,
    float-artefact) estimate the ``keep`` best on split 2. The pools, ranked by their best split-1
    score, share ``alpha`` by :func:`ranked_levels`, and so do the candidates within a pool; each candidate's two bounds
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
        (c for result in found for c in result.candidates if countable(c.event, estimation[c.pair_index])),
        key=lambda c: -c.score,
    )
    pools = [
        pool
        for kind in ((False, False), (False, True), (True, False))
        if (pool := kept([c for c in ranked if (c.event.float_artefact, one_sided_family(c)) == kind], keep))
    ]
    pools.sort(key=lambda pool: -pool[0].score)
    values.evaluate(
        (
            (candidate.event.statistic, part[side])
            for pool in pools
            for candidate in pool
            if isinstance(candidate.event, StatisticEvent)
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


def kept(ranked: list[Candidate], keep: int) -> list[Candidate]:
    """The ``keep`` candidates of a pool to estimate, from its candidates ``ranked`` by split-1
    score, in that order: the best ``keep − 1`` events, then the best event of a statistic none of
    them reads (:func:`statistic_of`), or the next best.

    One event per split-1 evidence: candidates of the same pair and direction with the same
    score are one event found by several families (a learned score and its copy on the
    innovations; tied and untied scores of a few-valued output cut at the same rows). And one
    slot for another statistic: the scores of different statistics are not equally sure — a
    value set scored on its shrunk ratios undersells the values that lead it, a learned score's
    tail of a few runs oversells itself — so the runners-up of one statistic can crowd out the
    best event of another (a sparse vector's value set certifying 0.06 behind three learned
    events certifying 0.03–0.04)."""
    seen: set[tuple[int, bool, float]] = set()
    distinct = []
    for candidate in ranked:
        evidence = (candidate.pair_index, candidate.forward, candidate.score)
        if evidence not in seen:
            seen.add(evidence)
            distinct.append(candidate)
    chosen = distinct[:keep]
    read = {statistic_of(c) for c in chosen[:-1]}
    if keep > 1 and len(chosen) == keep and statistic_of(chosen[-1]) in read:
        chosen[-1] = next((c for c in distinct[keep - 1 :] if statistic_of(c) not in read), chosen[-1])
    return chosen


def statistic_of(candidate: Candidate) -> str:
    """What a candidate's event reads: the first word of its family, after ``one-sided``
    (``values``, ``interval``, ``distinguisher``, ``count``, ``pattern``, ``lattice-…``)."""
    return candidate.family.removeprefix("one-sided ").split()[0]


def one_sided_family(candidate: Candidate) -> bool:
    """Whether the candidate comes from a one-sided family (:mod:`one_sided`): those are kept and
    corrected in their own pool, so that they never take an estimation slot of the other events."""
    return candidate.family.startswith("one-sided")


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
    if not isinstance(event, StatisticEvent):
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
        "only_one_input_produced": k_q == 0 < k_p,
    }


def _json_input(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist() if value.size <= 64 else f"array of shape {value.shape}"
    if isinstance(value, tuple):
        return [_json_input(part) for part in value]
    return value if isinstance(value, (int, float, str, bool, list, dict)) or value is None else repr(value)


__getattr__ = renamed_attributes(__name__, {"AuditResult": "MonteCarloAuditResult"}, globals())
