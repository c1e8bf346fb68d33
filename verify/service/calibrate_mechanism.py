"""``dpledger calibrate noise``, ``dpledger calibrate composition`` and ``dpledger calibrate dp-sgd``:
calibrating one's own mechanism, through :mod:`dpledger.accountant.mechanism_calibration` and
:mod:`dpledger.accountant.dp_sgd` (no paper involved).

Both return the calibrated value (noise rounded up, per-step ε rounded down), the certified
guarantee of the mechanism using exactly that value, the derivation and the notes on looseness.
The searches take a few seconds; a progress bar goes to stderr.
"""

from __future__ import annotations

from collections.abc import Callable

from dpledger.accountant.dp_sgd import dp_sgd_epsilon, dp_sgd_noise
from dpledger.accountant.events import Composition
from dpledger.accountant.mechanism_calibration import Calibration, composition_epsilon, composition_noise
from dpledger.verify.service import Exact, Output
from dpledger.verify.service.progress import progress

SEARCH_EVALUATIONS = 24
"""About how many accountant evaluations a search takes (the progress bar's length)."""


def _search_progress() -> tuple[Callable[[int], None], Callable[[], None]]:
    """``on_evaluation`` for a search, and ``finish()``: the bar appears only when a search runs
    (closed forms need none)."""
    advance = progress(SEARCH_EVALUATIONS, "calibrating")
    evaluations = [0]

    def on_evaluation(done: int) -> None:
        evaluations[0] = done
        advance(min(done, SEARCH_EVALUATIONS - 1))

    def finish() -> None:
        if evaluations[0]:
            advance(SEARCH_EVALUATIONS)

    return on_evaluation, finish


def _output(calibration: Calibration, headline: str) -> Output:
    g = calibration.guarantee
    payload = {
        **calibration.to_dict(),
        "holds": True,
        "certified": "the value is rounded in the safe direction and its guarantee is a certified upper "
        "bound (outward-rounded interval arithmetic) that meets the target",
    }
    lines = [
        headline,
        f"  {calibration.parameter} = {calibration.value!r}",
        f"  certified: ε ≤ {g.epsilon_text(12)}, δ ≤ {g.delta_text(12)}{g.scope()}, within the target",
        "  derivation:",
        *(f"    {line}" for line in calibration.derivation.to_text().splitlines()),
        *(f"  note: {note}" for note in calibration.notes),
    ]
    return Output(payload, "\n".join(lines), 0)


def noise(
    *,
    mechanism: str,
    sensitivity: Exact,
    epsilon: Exact,
    delta: Exact = "0",
    k: int = 1,
    method: str = "optimal",
    poisson_rate: Exact | None = None,
    sample_size: int | None = None,
    population_size: int | None = None,
    relation: str | None = None,
) -> Output:
    """The smallest certified noise of ``k`` (optionally subsampled) releases of ``mechanism``
    (:func:`~dpledger.accountant.mechanism_calibration.composition_noise`)."""
    on_evaluation, finish = _search_progress()
    calibration = composition_noise(
        mechanism,
        sensitivity,
        epsilon,
        delta,
        k,
        method,
        poisson_rate=poisson_rate,
        sample_size=sample_size,
        population_size=population_size,
        relation=relation,
        on_evaluation=on_evaluation,
    )
    finish()
    sampling = _sampling_text(poisson_rate, sample_size, population_size)
    used = calibration.event.method if isinstance(calibration.event, Composition) else method
    chosen = f" (composed as {used})" if used != method else ""
    steps = f"{k} releases, {method} composition{chosen}" if k > 1 else "one release"
    return _output(
        calibration,
        f"{mechanism} noise for (ε, δ) = ({epsilon}, {delta}), sensitivity {sensitivity}: {steps}{sampling}",
    )


def composition(
    *,
    k: int,
    epsilon: Exact,
    delta: Exact = "0",
    method: str = "optimal",
    step_delta: Exact = "0",
    poisson_rate: Exact | None = None,
    sample_size: int | None = None,
    population_size: int | None = None,
) -> Output:
    """The largest certified per-step ε₀ of ``k`` composed (ε₀, ``step_delta``)-DP mechanisms, each
    optionally on a subsample (:func:`~dpledger.accountant.mechanism_calibration.composition_epsilon`)."""
    on_evaluation, finish = _search_progress()
    calibration = composition_epsilon(
        k,
        epsilon,
        delta,
        method,
        step_delta,
        poisson_rate=poisson_rate,
        sample_size=sample_size,
        population_size=population_size,
        on_evaluation=on_evaluation,
    )
    finish()
    return _output(
        calibration,
        f"per-step ε₀ of {k} × (ε₀, {step_delta})-DP mechanisms, {method} composition"
        f"{_sampling_text(poisson_rate, sample_size, population_size)}, "
        f"for a total (ε, δ) = ({epsilon}, {delta})",
    )


def _sampling_text(poisson_rate: Exact | None, sample_size: int | None, population_size: int | None) -> str:
    if poisson_rate is not None:
        return f", each on a Poisson subsample (q = {poisson_rate})"
    if sample_size is not None:
        return f", each on {sample_size} of {population_size} records (without replacement)"
    return ""


def dp_sgd(
    *,
    dataset_size: int,
    batch_size: int,
    delta: Exact,
    epochs: Exact | None = None,
    steps: int | None = None,
    noise_multiplier: Exact | None = None,
    epsilon: Exact | None = None,
    sampling: str = "poisson",
) -> Output:
    """The certified ε of a DP-SGD run for a noise multiplier, or the noise multiplier for a target ε
    (:mod:`dpledger.accountant.dp_sgd`); the text says which sampling the result assumes."""
    if (noise_multiplier is None) == (epsilon is None):
        raise ValueError(
            "give either --noise-multiplier (to get ε) or --epsilon (to get the noise multiplier)"
        )
    if noise_multiplier is not None:
        result = dp_sgd_epsilon(
            dataset_size, batch_size, noise_multiplier, delta, epochs=epochs, steps=steps, sampling=sampling
        )
        g = result.guarantee
        payload = {**result.to_dict(), "holds": True}
        lines = [
            f"DP-SGD: n = {dataset_size}, batch {batch_size}, {result.run.steps:,} steps, noise multiplier "
            f"{noise_multiplier}, δ = {delta}",
            f"  assumes: {result.run.assumes}",
            f"  certified: ε ≤ {g.epsilon_text(12)}, δ ≤ {g.delta_text(12)}{g.scope()}",
            "  derivation:",
            *(f"    {line}" for line in result.derivation.to_text().splitlines()),
        ]
        return Output(payload, "\n".join(lines), 0)
    on_evaluation, finish = _search_progress()
    calibration = dp_sgd_noise(
        dataset_size,
        batch_size,
        epsilon,
        delta,
        epochs=epochs,
        steps=steps,
        sampling=sampling,
        on_evaluation=on_evaluation,
    )
    finish()
    return _output(
        calibration,
        f"DP-SGD noise multiplier for (ε, δ) = ({epsilon}, {delta}): n = {dataset_size}, batch {batch_size}, "
        f"{'epochs ' + str(epochs) if epochs is not None else str(steps) + ' steps'}, {sampling} sampling",
    )
