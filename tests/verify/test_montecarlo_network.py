"""The perceptron distinguisher (DP-Sniper's MLP), opt-in for vector outputs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import snap
from dpledger.verify.audit.montecarlo.events import StatisticEvent
from dpledger.verify.audit.montecarlo.perceptron import fit_network
from dpledger.verify.audit.montecarlo.search import Fits, one_blas_thread, search_pair

SERIAL = InProcessExecutor()
COORDINATES, SCALE = 10, 2.0
PAIR = [NeighbourPair(np.zeros(COORDINATES), np.ones(COORDINATES), "every answer moved by 1")]
TRUE_EPSILON = COORDINATES / SCALE


@dataclass(frozen=True)
class SignFlipped:
    """``S · (q + Lap(scale)^d)`` with one random sign S per run: post-processing of the Laplace
    mechanism (ε ≤ d/scale on answers moved by 1, attained near y = 0 on the pair 0 vs 1), whose
    log-likelihood ratio on that pair is a function of ``Σ_j |y_j ∓ 1|`` under both signs —
    even in the output, so no linear score of per-coordinate features orders runs by it."""

    scale: float

    def __call__(self, data: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        answers = np.asarray(data, dtype=float)
        sign = rng.choice([-1.0, 1.0], size=(n, 1))
        return snap(sign * (answers + rng.laplace(0.0, self.scale, (n, answers.size))))


def sign_flipped_log_ratio(outputs: np.ndarray) -> np.ndarray:
    """``log p_0(y) / p_1(y)``, p_1 the even mixture of the Laplace densities centred at ±1."""
    centred = -np.abs(outputs).sum(axis=1) / SCALE
    shifted = [-np.abs(outputs - sign).sum(axis=1) / SCALE for sign in (1.0, -1.0)]
    return centred - (np.logaddexp(*shifted) - np.log(2.0))


def runs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a, b = (SignFlipped(SCALE)(pair, n, rng) for pair in (PAIR[0].a, PAIR[0].b))
    return a, b


def test_network_refitted_on_the_same_runs_is_the_same_statistic():
    a, b = runs(5000, 0)
    fresh, _ = runs(2000, 1)
    with one_blas_thread():
        first, second = fit_network(a, b), fit_network(a, b)
    assert np.array_equal(first.weights, second.weights) and np.array_equal(first(fresh), second(fresh))


def test_network_orders_sign_flipped_runs_by_their_privacy_loss_better_than_the_linear_scores():
    a, b = runs(10_000, 0)
    fresh, _ = runs(50_000, 1)
    loss = sign_flipped_log_ratio(fresh)
    search = search_pair(a, b, 0, 0.0, 1.96, fits=Fits(network=True))
    scores = {c.family: c.event.statistic for c in search.candidates if isinstance(c.event, StatisticEvent)}
    network = abs(stats.spearmanr(scores["network"](fresh), loss).statistic)
    linear = max(
        abs(stats.spearmanr(scores[family](fresh), loss).statistic)
        for family in ("distinguisher", "distinguisher (tied)")
    )
    assert network > linear + 0.1


def test_network_is_searched_only_when_asked_for():
    a, b = runs(4000, 0)
    families = [
        {c.family for c in search_pair(a, b, 0, 0.0, 1.96, fits=Fits(network)).candidates}
        for network in (False, True)
    ]
    assert "network" not in families[0] and "network" in families[1]


def test_sign_flipped_audit_with_the_network_certifies_more_than_without():
    # Measured at 2·10⁵ runs, seeds 0–2: 0.91–0.94 without; seeds 0–1: 2.13–2.18 with the network; true ε = 5.
    bounds = [
        audit(
            SignFlipped(SCALE),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
            PAIR,
            TRUE_EPSILON,
            samples=200_000,
            stages=1,
            executor=SERIAL,
            network=network,
        ).real_epsilon_lower
        for network in (False, True)
    ]
    assert bounds[1] >= 1.5 * bounds[0] and bounds[1] < TRUE_EPSILON


@pytest.mark.slow
def test_exactly_tight_sign_flipped_laplace_with_the_network_raises_false_alarms_at_most_one_minus_confidence():
    repeats, confidence = 60, 0.8
    alarms = sum(
        audit(
            SignFlipped(SCALE),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
            PAIR,
            TRUE_EPSILON,
            samples=4000,
            confidence=confidence,
            seed=seed,
            executor=SERIAL,
            network=True,
        ).violation
        for seed in range(repeats)
    )
    assert alarms <= stats.binom.ppf(1 - 1e-4, repeats, 1 - confidence)
