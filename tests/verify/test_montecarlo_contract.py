"""The Monte Carlo auditor checks the mechanism contract instead of trusting it: global randomness
seeded per task, outputs that ignore the rng and dependent batches refused in one line, the false
alarm rate within 1 − confidence on every executor."""

from __future__ import annotations

import math
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from scipy import stats

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import catalog
from dpledger.verify.audit.montecarlo.contract import ProbeTask, check_probe
from dpledger.verify.audit.montecarlo.tasks import ChunkTask, chunk_seeds

SERIAL = InProcessExecutor()
ZERO_ONE = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]


def global_laplace(data, n, rng):
    """Laplace(1) on a sensitivity-1 value, snapped to 2^-10 (exactly 1-DP), drawn from numpy's global RNG."""
    return np.round((float(data) + np.random.laplace(0.0, 1.0, n)) * 1024) / 1024


def python_random_laplace(data, n, rng):
    """The same from Python's ``random`` (difference of two exponentials)."""
    return np.asarray([float(data) + random.expovariate(1.0) - random.expovariate(1.0) for _ in range(n)])


def fixed_seed(data, n, rng):
    return float(data) + np.random.default_rng(0).laplace(0.0, 1.0, n)


def constant(data, n, rng):
    return np.zeros(n)


def reused_noise(data, n, rng):
    """Each output exactly 1-DP, but one noise draw for the whole batch."""
    return np.full(n, float(data) + rng.laplace(0.0, 1.0))


def reused_coin(data, n, rng):
    """Randomized response with one coin for the whole batch."""
    keep = rng.random() < math.e / (1 + math.e)
    return np.full(n, int(data) if keep else 1 - int(data))


@pytest.mark.parametrize("mechanism", [global_laplace, python_random_laplace])
def test_global_randomness_is_seeded_per_chunk_so_chunks_never_repeat_and_seeds_reproduce(mechanism):
    seeds = chunk_seeds(5, 1, 4)[0][0]
    tasks = [ChunkTask(mechanism, 0.0, 1000, seed) for seed in seeds]
    with ProcessPoolExecutor(2) as pool:  # forked workers start from one global state
        first = [f.result() for f in [pool.submit(task) for task in tasks]]
    with ProcessPoolExecutor(2) as pool:
        again = [f.result() for f in [pool.submit(task) for task in tasks]]
    assert len({chunk.tobytes() for chunk in first}) == len(tasks)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))


def test_an_in_process_audit_leaves_the_callers_global_random_state_alone():
    np.random.seed(3)
    random.seed(3)
    expected = (np.random.random(), random.random())
    np.random.seed(3)
    random.seed(3)
    audit(global_laplace, ZERO_ONE, 1.0, samples=3000, executor=SERIAL)
    assert (np.random.random(), random.random()) == expected


@pytest.mark.parametrize(
    "mechanism,message",
    [
        (fixed_seed, "outputs do not depend on rng: .* vary within a batch but repeat exactly"),
        (constant, "outputs do not depend on rng: .* constant mechanism has ε = 0 trivially"),
        (reused_noise, "batch outputs are not independent"),
        (reused_coin, "batch outputs are not independent"),
    ],
)
def test_mechanisms_breaking_the_contract_are_refused_in_one_line(mechanism, message):
    with pytest.raises(ValueError, match=message) as error:
        audit(mechanism, ZERO_ONE, 1.0, samples=5000, executor=SERIAL)
    assert "\n" not in str(error.value)


def test_every_catalog_mechanism_passes_the_contract_probe():
    for entry in catalog():
        pair = entry.pairs[0]
        check_probe(ProbeTask(entry.mechanism, pair.a, pair.b, seed=0)())  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only


@pytest.mark.slow
@pytest.mark.parametrize("executor", ["in-process", "local processes"])
def test_false_alarm_rate_of_an_exactly_tight_mechanism_stays_within_one_minus_confidence(executor):
    # Claim = the exact ε of a global-RNG Laplace: every flag is a false alarm. 100 audits per
    # executor; more flags than the 99.9% quantile of Binomial(100, 0.05) refute a rate ≤ 5%.
    runs, confidence = 100, 0.95
    flagged = 0
    for seed in range(runs):
        if executor == "in-process":
            result = audit(
                global_laplace, ZERO_ONE, 1.0, samples=4000, confidence=confidence, seed=seed, executor=SERIAL
            )
        else:
            with ProcessPoolExecutor(2) as pool:
                result = audit(
                    global_laplace,
                    ZERO_ONE,
                    1.0,
                    samples=4000,
                    confidence=confidence,
                    seed=seed,
                    executor=pool,
                )
        flagged += result.violation
    assert flagged <= stats.binom.ppf(0.999, runs, 1 - confidence)
