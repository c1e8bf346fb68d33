"""Noisy gradient descent on one block: the T adaptively composed releases of a mean gradient that
the private L1 regression (:mod:`dpledger.learners.agnostic.private_l1`, Lemma B.4's substitute) and
the private logistic regression (:mod:`dpledger.learners.agnostic.private_logistic`) share.

    w_{k+1} = update(w_k, ḡ(w_k) + z_k),   k = 0, …, T − 1,

ḡ(w) the caller's mean of per-example gradients over the block, of L2 sensitivity Δ under
substitution (the caller's, in real units), and z_k exact discrete Gaussian noise of scale σ on a
grid (:func:`~dpledger.learners.noise.gaussian_noise`; the float update is post-processing of the
grid release). Every step reads the same block and the gradient at the released iterate, so the T
releases compose adaptively: ``Composition(DiscreteGaussian(σ/γ, Δ/γ + √F, δ/(2T)) × T, method,
target_delta=δ)``, with σ calibrated so that the accountant certifies (ε, δ) for that composition,
the grid-rounding term included (:mod:`dpledger.learners.calibration.agnostic_noise`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpledger.accountant.events import Composition, Event
from dpledger.learners.calibration.agnostic_noise import certified_ratio, sigma_for, step_delta
from dpledger.learners.noise import gaussian_noise
from dpledger.learners.randomness import Randomness


@dataclass(frozen=True)
class StepNoise:
    """The noise of every step: scale σ, the gradient's declared L2 sensitivity Δ (real units), the
    target δ of the composition and its rule."""

    sigma: float
    sensitivity: Fraction
    delta: Fraction
    composition: str


def step_noise(
    sensitivity: Fraction,
    privacy: tuple[Fraction, Fraction] | None,
    steps: int,
    composition: str,
    dimension: int,
) -> StepNoise | None:
    """The calibrated noise of T steps releasing a gradient of ``dimension`` coordinates and L2
    sensitivity Δ = ``sensitivity`` (None when privacy is off)."""
    if privacy is None:
        return None
    epsilon, delta = privacy
    sigma = sigma_for(sensitivity, certified_ratio(epsilon, delta, steps, composition), dimension)
    return StepNoise(sigma, sensitivity, delta, composition)


def noisy_descent(
    gradient: Callable[[np.ndarray], np.ndarray],
    update: Callable[[np.ndarray, np.ndarray], np.ndarray],
    start: np.ndarray,
    steps: int,
    noise: StepNoise | None,
    rng: Randomness,
) -> tuple[list[np.ndarray], Event | None]:
    """The iterates w₀ = ``start``, …, w_T of the noisy descent (module doc) and the event of its T
    releases (None without noise).

    Args:
        gradient: w ↦ ḡ(w), the block's mean gradient (its sensitivity is ``noise.sensitivity``).
        update: (w, noisy gradient) ↦ next iterate (post-processing).
        start: w₀ (public).
        steps: T.
        noise: The steps' noise (:func:`step_noise`), None without privacy.
        rng: The exact sampler.

    Returns:
        The T + 1 iterates and the composed event.
    """
    iterates = [start]
    step_events = set()
    for _ in range(steps):
        w = iterates[-1]
        value = gradient(w)
        if noise is not None:
            released, step_event = gaussian_noise(
                value, noise.sigma, noise.sensitivity, step_delta(noise.delta, steps), rng
            )
            value = np.asarray(released)
            step_events.add(step_event)
        iterates.append(update(w, value))
    if not step_events:
        return iterates, None
    assert noise is not None  # steps drew noise
    (step_event,) = step_events  # every step draws at the same σ, grid and sensitivity
    if steps == 1:
        return iterates, step_event
    return iterates, Composition(
        children=(step_event,), method=noise.composition, target_delta=noise.delta, repeat=steps
    )
