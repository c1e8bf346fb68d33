"""DP-SGD: the certified ε of a training run, or the noise multiplier for a target, through the PLD.

One step of DP-SGD clips each example's gradient to L2 norm C, sums the batch and adds N(0, z²C²)
noise (z, the noise multiplier). The batch is drawn by one of two samplings, and each result says
which one it assumes:

* ``"poisson"`` — every example joins each batch independently with probability q = b/n (the
  expected batch size b; what Opacus and TF Privacy's accountants assume). Neighbours: add/remove
  one example; the sum's sensitivity is C, so each step is PoissonSubsample(Gaussian(z, Δ = 1), q)
  in units of C, with its two dominating pairs (Zhu–Dong–Wang 2022, Thm 10).
* ``"fixed"`` — each batch is an independent uniform draw of exactly b of the n examples without
  replacement. Neighbours: substitute one example; the sum's sensitivity is 2C (one clipped
  gradient replaced by another), so each step is SubsampleWithoutReplacement(Gaussian(z, Δ = 2), b, n)
  with the symmetrised mixture pair (Balle–Barthe–Gaboardi 2018, Thm 9).

Shuffled batches (each epoch a random permutation cut into n/b batches) are refused: privacy
amplification by shuffling is not what either pair bounds, and the accountant certifies no bound
for it. T steps are composed by :mod:`dpledger.accountant.pld` (``Composition(method="pld")``);
``epochs`` e give T = ⌈e·n/b⌉.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy

from dpledger.accountant import events as ev
from dpledger.accountant.guarantee import Guarantee
from dpledger.accountant.mechanism_calibration import Calibration, composition_noise
from dpledger.accountant.numerics.certified import certainly_lt, exact
from dpledger.accountant.rules import Derivation, account

SAMPLINGS = ("poisson", "fixed")
MAX_STEPS = 10**7
"""The most steps accounted (the work is estimated again by the PLD accountant itself)."""

_ASSUMES = {
    "poisson": "Poisson sampling: each example joins each batch independently with probability q = b/n "
    "(add/remove-one neighbours, clipped-sum sensitivity C)",
    "fixed": "fixed-size batches: each batch an independent uniform draw of b of the n examples without "
    "replacement (substitute-one neighbours, clipped-sum sensitivity 2C)",
}


@dataclass(frozen=True)
class Run:
    """A DP-SGD run: n examples, batch size b, T steps, the sampling; validated by :func:`run`."""

    dataset_size: int
    batch_size: int
    steps: int
    sampling: str

    @property
    def rate(self) -> sympy.Rational:
        """q = b/n."""
        return sympy.Rational(self.batch_size, self.dataset_size)

    @property
    def assumes(self) -> str:
        """What the result assumes about the batches, in one sentence."""
        return _ASSUMES[self.sampling]

    def step(self, noise_multiplier: Any, delta: Any) -> ev.Event:
        """One step's event, in units of the clipping norm C."""
        if self.sampling == "poisson":
            return ev.PoissonSubsample(
                ev.Gaussian(noise_multiplier, delta, 1, relation="add_remove"), self.rate
            )
        return ev.SubsampleWithoutReplacement(
            ev.Gaussian(noise_multiplier, delta, 2), self.batch_size, self.dataset_size
        )

    def event(self, noise_multiplier: Any, delta: Any) -> ev.Composition:
        """The T steps composed by the PLD accountant, certified at ``delta``."""
        return ev.Composition(
            (self.step(noise_multiplier, delta),), method="pld", target_delta=delta, repeat=self.steps
        )


def run(
    dataset_size: int,
    batch_size: int,
    *,
    epochs: Any = None,
    steps: int | None = None,
    sampling: str = "poisson",
) -> Run:
    """Validate a run's sizes.

    Args:
        dataset_size: n ≥ 1, the number of examples.
        batch_size: b in [1, n] (the expected size under Poisson sampling).
        epochs: passes over the data (T = ⌈epochs·n/b⌉); give this or ``steps``.
        steps: T, the number of steps.
        sampling: "poisson" or "fixed" (module docstring); "shuffle" is refused.

    Returns:
        The validated :class:`Run`.

    Raises:
        ValueError: on a bad size, both or neither of epochs and steps, or an uncertifiable sampling."""
    for name, value in (("dataset_size", dataset_size), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
    if batch_size > dataset_size:
        raise ValueError(f"batch_size must be ≤ dataset_size, got {batch_size} > {dataset_size}")
    if sampling == "shuffle":
        raise ValueError(
            "shuffled batches (each epoch a permutation) are not certified: amplification by shuffling is "
            "not bounded by the accountant; train with sampling='poisson' (Opacus' default) or 'fixed' "
            "(each batch an independent uniform draw)"
        )
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}; got {sampling!r}")
    if (epochs is None) == (steps is None):
        raise ValueError("give either epochs or steps")
    if steps is None:
        passes = exact(epochs, "epochs")
        if certainly_lt(0, passes) is not True:
            raise ValueError(f"epochs must be > 0, got {epochs!r}")
        total = passes * dataset_size / batch_size
        if certainly_lt(total, MAX_STEPS + 1) is not True:
            raise ValueError(f"epochs × n/b must be at most {MAX_STEPS:,} steps")
        steps = int(sympy.ceiling(total))
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"steps must be an integer in [1, {MAX_STEPS:,}], got {steps!r}")
    return Run(dataset_size, batch_size, steps, sampling)


@dataclass(frozen=True)
class Accounting:
    """The certified ε of a run: ``guarantee`` (ε, δ) of ``event``, under ``guarantee.relation``."""

    run: Run
    noise_multiplier: sympy.Expr
    event: ev.Event
    guarantee: Guarantee

    @property
    def derivation(self) -> Derivation:
        """The derivation (rule, grid and error terms at the composition)."""
        return account(self.event)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the run, what it assumes, the certified guarantee and the derivation."""
        return {
            "dataset_size": self.run.dataset_size,
            "batch_size": self.run.batch_size,
            "steps": self.run.steps,
            "sampling": self.run.sampling,
            "assumes": self.run.assumes,
            "noise_multiplier": float(self.noise_multiplier),
            "guarantee": self.guarantee.to_dict(),
            "derivation": self.derivation.to_dict(),
        }


def _positive(value: Any, name: str) -> sympy.Expr:
    number = exact(value, name)
    if certainly_lt(0, number) is not True:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return number


def _delta(value: Any) -> sympy.Expr:
    number = exact(value, "delta")
    if certainly_lt(0, number) is not True or certainly_lt(number, 1) is not True:
        raise ValueError(f"delta must be in (0, 1), got {value!r}")
    return number


def dp_sgd_epsilon(
    dataset_size: int,
    batch_size: int,
    noise_multiplier: Any,
    delta: Any,
    *,
    epochs: Any = None,
    steps: int | None = None,
    sampling: str = "poisson",
) -> Accounting:
    """The certified ε at ``delta`` of a DP-SGD run (privacy-loss distributions; module docstring).

    Args:
        dataset_size: n, the number of examples.
        batch_size: b (expected size under Poisson sampling).
        noise_multiplier: z = σ/C (> 0).
        delta: target δ in (0, 1).
        epochs: passes over the data, or
        steps: the number of steps T.
        sampling: "poisson" or "fixed".

    Returns:
        The :class:`Accounting`: ε certified at δ, the event and its derivation.

    Raises:
        ValueError: on bad input, or a run too long for the accountant's memory."""
    plan = run(dataset_size, batch_size, epochs=epochs, steps=steps, sampling=sampling)
    z, target = _positive(noise_multiplier, "noise_multiplier"), _delta(delta)
    event = plan.event(z, target)
    return Accounting(plan, z, event, account(event).guarantee)


def dp_sgd_noise(
    dataset_size: int,
    batch_size: int,
    epsilon: Any,
    delta: Any,
    *,
    epochs: Any = None,
    steps: int | None = None,
    sampling: str = "poisson",
    on_evaluation: Callable[[int], None] | None = None,
) -> Calibration:
    """The smallest noise multiplier z = σ/C (rounded up, certified at the choice) for which a DP-SGD
    run is (ε, δ)-DP.

    Args:
        dataset_size: n.
        batch_size: b.
        epsilon: target ε (> 0).
        delta: target δ in (0, 1).
        epochs: passes over the data, or
        steps: the number of steps T.
        sampling: "poisson" or "fixed".
        on_evaluation: called before each accountant evaluation of the search (a progress bar).

    Returns:
        A :class:`~dpledger.accountant.mechanism_calibration.Calibration` whose value is z.

    Raises:
        ValueError: on bad input or an unreachable target."""
    plan = run(dataset_size, batch_size, epochs=epochs, steps=steps, sampling=sampling)
    sampling_arguments: dict[str, Any] = (
        {"poisson_rate": plan.rate}
        if plan.sampling == "poisson"
        else {"sample_size": plan.batch_size, "population_size": plan.dataset_size}
    )
    result = composition_noise(
        "gaussian",
        1 if plan.sampling == "poisson" else 2,
        epsilon,
        delta,
        plan.steps,
        "pld",
        **sampling_arguments,
        on_evaluation=on_evaluation,
    )
    return Calibration(
        "noise_multiplier",
        result.value,
        result.event,
        result.guarantee,
        result.target_epsilon,
        result.target_delta,
        (plan.assumes, *result.notes),
        result.event_for,
    )


def epsilon_curve(
    dataset_size: int,
    batch_size: int,
    noise_multiplier: Any,
    delta: Any,
    steps: list[int],
    sampling: str = "poisson",
) -> list[tuple[int, float]]:
    """(T, certified ε) for each T in ``steps`` (for the report's plot of ε against steps)."""
    out = []
    for count in steps:
        result = dp_sgd_epsilon(
            dataset_size, batch_size, noise_multiplier, delta, steps=count, sampling=sampling
        )
        out.append((count, result.guarantee.epsilon_upper))
    return out
