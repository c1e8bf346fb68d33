"""dpledger's certified PLD accountant against dp_accounting 0.6 (PLD pessimistic and optimistic at
grid 10⁻⁴, RDP), Microsoft's PRV accountant and OpenDP 0.16, on the DP-SGD grid q ∈ {0.001, 0.01, 0.1}
× σ ∈ {0.8, 1, 2} × k ∈ {100, 1000, 10⁴} at δ = 10⁻⁵ (Poisson subsampled Gaussian, add/remove).

OpenDP has no subsampled-Gaussian accountant; its column is the better of the two routes its API
offers (see ``opendp_epsilon``): each step's zCDP Gaussian converted to (ε₀, δ₀), amplified by
``make_population_amplification`` and composed by addition; or the k Gaussians composed in zCDP and
converted once, without amplification.

Prints, side by side: ε of each, dpledger's ratio to min(PLD pessimistic, PRV upper) (target ≤ 1.005)
and whether it is ≥ max(PLD optimistic, PRV lower); that OpenDP's composition of amplified steps is
the sum of the steps, and what a smaller δ₀ costs it; timings; σ for (1, 10⁻⁵) with Poisson sampling
against dp_accounting's PLD calibration and with fixed-size sampling against its RDP; k = 10⁵ steps;
peak memory. Run: ``python benchmarks/bench_pld.py`` (a few minutes; ``--quick``: 4 cases).
"""

from __future__ import annotations

import argparse
import functools
import math
import resource
import statistics
import subprocess
import sys
import time
from types import ModuleType
from typing import Any

from dp_accounting import dp_event
from dp_accounting.pld import privacy_loss_distribution as pld_module
from dp_accounting.rdp import rdp_privacy_accountant

from dpledger.accountant import events as ev
from dpledger.accountant.mechanism_calibration import composition_noise
from dpledger.accountant.rules import account

DELTA = 1e-5
GRID = [(q, s, k) for q in (0.001, 0.01, 0.1) for s in (0.8, 1.0, 2.0) for k in (100, 1000, 10_000)]
QUICK = [(0.01, 1.0, 1000), (0.01, 0.8, 10_000), (0.001, 2.0, 100), (0.1, 1.0, 1000)]
POPULATION = 10_000  # OpenDP's population size n; the batch is a sized sample of m = q·n records


def dpledger_epsilon(q: float, sigma: float, k: int) -> float:
    step = ev.PoissonSubsample(ev.Gaussian(sigma, "1e-5", relation="add_remove"), q)
    return account(
        ev.Composition((step,), method="pld", target_delta="1e-5", repeat=k)
    ).guarantee.epsilon_upper


def dp_accounting_pld(q: float, sigma: float, k: int, pessimistic: bool) -> float:
    one = pld_module.from_gaussian_mechanism(
        sigma, pessimistic_estimate=pessimistic, value_discretization_interval=1e-4, sampling_prob=q
    )
    return one.self_compose(k).get_epsilon_for_delta(DELTA)


def dp_accounting_rdp(q: float, sigma: float, k: int) -> float:
    accountant = rdp_privacy_accountant.RdpAccountant()
    accountant.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), k)
    return accountant.get_epsilon(DELTA)


def prv(q: float, sigma: float, k: int) -> tuple[float, float, float] | None:
    try:
        from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant
    except ImportError:
        return None
    try:
        accountant = PRVAccountant(
            prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=q),
            max_self_compositions=k,
            eps_error=0.01,
            delta_error=1e-10,
        )
        return accountant.compute_epsilon(delta=DELTA, num_self_compositions=[k])
    except RuntimeError:  # its discretisation refuses some cases ("discrete mean differs …")
        return None


@functools.cache
def _opendp() -> ModuleType | None:
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib", "honest-but-curious")
    return dp


def _opendp_gaussian(q: float, scale: float) -> Any:
    """OpenDP's Gaussian measurement (ρ-zCDP) of the sum of m = q·n records in [0, 1] (a sized
    dataset: one record substituted is symmetric distance 2, sensitivity 1 plus OpenDP's allowance
    for float rounding, about 10⁻¹³ here, so ρ = 1/(2·scale²))."""
    dp: Any = _opendp()
    space = (
        dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False), size=round(q * POPULATION)),
        dp.symmetric_distance(),
    )
    return space >> dp.t.then_sum() >> dp.m.then_gaussian(scale)


def opendp_step(q: float, sigma: float, k: int, spend: float = 1.0):
    """One DP-SGD step through OpenDP: the Gaussian's ρ-zCDP converted to (ε₀, δ₀)
    (``make_zCDP_to_approxDP``, ``make_fix_delta``), then amplified by a simple random sample of
    rate q (``make_population_amplification``: ε = ln(1 + q(e^ε₀ − 1)), δ = q·δ₀; Balle–Barthe–
    Gaboardi 2018, Thm 9). δ₀ = spend·δ/(kq), less a relative 10⁻⁹ so that OpenDP's upward-rounded
    sum of k steps' δ stays ≤ δ: basic composition leaves no δ to the composition, and ε₀ falls as
    δ₀ grows, so spend = 1 is OpenDP's best split (``opendp_checks`` prints what less costs)."""
    dp: Any = _opendp()
    step_delta = spend * DELTA / (k * q) * (1 - 1e-9)
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(_opendp_gaussian(q, sigma)), step_delta)
    return dp.c.make_population_amplification(approx, POPULATION)


def opendp_epsilon(q: float, sigma: float, k: int) -> tuple[float, str] | None:
    """OpenDP's ε at δ of k DP-SGD steps, the smaller of its two routes, and the route's name; None
    without opendp. "amplified": k amplified steps composed by ``make_composition``, which adds
    (ε, δ) (checked by ``opendp_checks``), so k·ε of one step read off OpenDP. "zCDP": the k
    Gaussians composed in zCDP (ρ adds: one Gaussian of scale σ/√k has the same ρ) and converted at
    δ, ignoring the subsampling."""
    dp: Any = _opendp()
    if dp is None:
        return None
    step_epsilon, step_delta = opendp_step(q, sigma, k).map(2)
    if k * step_delta > DELTA:
        raise RuntimeError(f"OpenDP's k steps spend δ = {k * step_delta!r} > {DELTA}")
    zcdp = _opendp_gaussian(q, sigma / math.sqrt(k))
    zcdp_epsilon, _ = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(zcdp), DELTA).map(2)
    return min((k * step_epsilon, "amplified"), (zcdp_epsilon, "zCDP"))


def opendp_checks() -> None:
    """OpenDP's ``make_composition`` of 10 and 100 amplified steps against 10 and 100 times one step
    (QUICK cases), and the amplified route's ε on the grid when each step spends only 1/2 or 1/10 of
    its δ share."""
    dp: Any = _opendp()
    if dp is None:
        return
    worst = 0.0
    for q, sigma, k in QUICK:
        step = opendp_step(q, sigma, k)
        for j in (10, 100):
            composed, one = dp.c.make_composition([step] * j).map(2)[0], step.map(2)[0]
            worst = max(worst, abs(composed - j * one) / (j * one))
    print(
        f"\nOpenDP make_composition of 10 and 100 amplified steps against 10 and 100 × one step: "
        f"largest relative difference {worst:.2g}"
    )
    for spend in (0.5, 0.1):
        rises = [
            opendp_step(q, sigma, k, spend).map(2)[0] / opendp_step(q, sigma, k).map(2)[0] - 1
            for q, sigma, k in GRID
        ]
        print(f"OpenDP amplified route with δ₀ × {spend}: ε higher by {min(rises):.1%} to {max(rises):.1%}")


def timed(function, *args):
    start = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - start


def grid(cases: list[tuple[float, float, int]]) -> None:
    with_opendp = _opendp() is not None
    print(
        "| q | σ | k | dpledger (certified) | PLD pess. 1e-4 | PLD opt. 1e-4 | PRV [lower, upper] | RDP | "
        + ("OpenDP (route) | " if with_opendp else "")
        + "ratio to min(PLD pess., PRV up) | ≥ max(PLD opt., PRV low) | t dpledger | t PLD pess. |"
    )
    print("|---|---|---|---|---|---|---|---|" + ("---|" if with_opendp else "") + "---|---|---|---|")
    ratios, speed, opendp_ratios = [], [], []
    for q, sigma, k in cases:
        ours, t_ours = timed(dpledger_epsilon, q, sigma, k)
        pessimistic, t_pld = timed(dp_accounting_pld, q, sigma, k, True)
        optimistic = dp_accounting_pld(q, sigma, k, False)
        rdp = dp_accounting_rdp(q, sigma, k)
        bounds = prv(q, sigma, k)
        upper = min(pessimistic, bounds[2]) if bounds else pessimistic
        lower = max(optimistic, bounds[0]) if bounds else optimistic
        ratios.append(ours / upper)
        speed.append(t_ours / t_pld)
        prv_text = f"[{bounds[0]:.5g}, {bounds[2]:.5g}]" if bounds else "n/a"
        opendp = opendp_epsilon(q, sigma, k)
        opendp_text = f"{opendp[0]:.5g} ({opendp[1]}) | " if opendp else ""
        if opendp:
            opendp_ratios.append(opendp[0] / ours)
        print(
            f"| {q} | {sigma} | {k} | {ours:.6g} | {pessimistic:.6g} | {optimistic:.6g} | {prv_text} | {rdp:.5g} | "
            f"{opendp_text}{ours / upper:.5f} | {'yes' if ours >= lower else '**no**'} | "
            f"{t_ours:.2f} s | {t_pld:.2f} s |",
            flush=True,
        )
    print(
        f"\nratio: max {max(ratios):.5f}, median {statistics.median(ratios):.5f}; "
        f"time dpledger / PLD pessimistic: median {statistics.median(speed):.3g}, max {max(speed):.3g}"
    )
    if opendp_ratios:
        print(
            f"OpenDP / dpledger: min {min(opendp_ratios):.4g}, median {statistics.median(opendp_ratios):.4g}, "
            f"max {max(opendp_ratios):.4g}"
        )


def dp_accounting_sigma(q: float, k: int, epsilon: float) -> float:
    from dp_accounting import mechanism_calibration
    from dp_accounting.pld import pld_privacy_accountant

    return mechanism_calibration.calibrate_dp_mechanism(
        lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4),
        lambda s: dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), k
        ),
        epsilon,
        DELTA,
        mechanism_calibration.LowerEndpointAndGuess(0.1, 1.0),
        tol=1e-4,
    )


def rdp_wor_sigma(q: float, k: int, epsilon: float) -> float:
    from dp_accounting import mechanism_calibration

    return mechanism_calibration.calibrate_dp_mechanism(
        lambda: rdp_privacy_accountant.RdpAccountant(
            neighboring_relation=rdp_privacy_accountant.NeighborRel.REPLACE_ONE
        ),
        lambda s: dp_event.SelfComposedDpEvent(
            dp_event.SampledWithoutReplacementDpEvent(10_000, int(q * 10_000), dp_event.GaussianDpEvent(s)), k
        ),
        epsilon,
        DELTA,
        mechanism_calibration.LowerEndpointAndGuess(0.1, 1.0),
        tol=1e-4,
    )


def sigmas() -> None:
    print("\n| sampling | q | k | dpledger σ (certified) | reference σ | ratio | t dpledger |")
    print("|---|---|---|---|---|---|---|")
    for q, k in ((0.01, 1000), (0.001, 10_000), (0.1, 100)):
        ours, t = timed(
            lambda q=q, k=k: composition_noise("gaussian", 1, 1, "1e-5", k, "pld", poisson_rate=q).value
        )
        reference = dp_accounting_sigma(q, k, 1.0)
        print(
            f"| Poisson | {q} | {k} | {ours:.6g} | {reference:.6g} (PLD) | {ours / reference:.5f} | {t:.1f} s |"
        )
    for q, k in ((0.01, 1000), (0.1, 100)):
        m = int(q * 10_000)
        ours, t = timed(
            lambda m=m, k=k: (
                composition_noise(
                    "gaussian", 1, 1, "1e-5", k, "pld", sample_size=m, population_size=10_000
                ).value
            )
        )
        reference = rdp_wor_sigma(q, k, 1.0)
        print(
            f"| fixed-size ({m} of 10000) | {q} | {k} | {ours:.6g} | {reference:.6g} (RDP, replace-one) | "
            f"{ours / reference:.5f} | {t:.1f} s |"
        )


def discrete_gaussian_exact(sigma: float) -> float:
    """ε at δ of one unit-shift discrete Gaussian, from a 30-digit sum over its atoms."""
    import mpmath

    mpmath.mp.dps = 30
    s = mpmath.mpf(sigma)
    bound = int(20 * sigma) + 5
    weights = {z: mpmath.e ** (-(mpmath.mpf(z) ** 2) / (2 * s * s)) for z in range(-bound - 1, bound + 2)}
    norm = sum(weights[z] for z in range(-bound, bound + 1))

    def profile(epsilon):
        alpha = mpmath.e**epsilon
        return sum(max(weights[z - 1] - alpha * weights[z], 0) for z in range(-bound, bound + 2)) / norm

    low, high = mpmath.mpf(0), mpmath.mpf(30)
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if profile(middle) > DELTA else (low, middle)
    return float(high)


def discrete_gaussian() -> None:
    print("\n| discrete Gaussian s (Δ = 1) | dpledger PLD ε | exact ε | ratio | zCDP ε (before) |")
    print("|---|---|---|---|---|")
    for sigma in (1.0, 3.0, 10.0):
        event = ev.Composition((ev.DiscreteGaussian(sigma, 1, "1e-5"),), method="pld", target_delta="1e-5")
        ours = account(event).guarantee.epsilon_upper
        exact = discrete_gaussian_exact(sigma)
        zcdp = account(ev.DiscreteGaussian(sigma, 1, "1e-5")).guarantee.epsilon_upper
        print(f"| {sigma} | {ours:.10g} | {exact:.10g} | {ours / exact:.10f} | {zcdp:.6g} |")
    ours = composition_noise("discrete-gaussian", 1, 1, "1e-5", 1, "pld").value
    low, high = 1.0, 10.0
    while high - low > 1e-9:
        middle = (low + high) / 2
        low, high = (middle, high) if discrete_gaussian_exact(middle) > 1 else (low, middle)
    print(
        f"\nσ of a discrete Gaussian for (1, 10⁻⁵): dpledger {ours:.8g}, exact {high:.8g}, ratio {ours / high:.6f}"
    )


def long_run() -> None:
    ours, t = timed(dpledger_epsilon, 0.01, 1.0, 100_000)
    theirs, t_pld = timed(dp_accounting_pld, 0.01, 1.0, 100_000, True)
    print(
        f"\nk = 10⁵ (q = 0.01, σ = 1): dpledger ε = {ours:.6g} in {t:.2f} s; dp_accounting PLD {theirs:.6g} in {t_pld:.2f} s"
    )


OWN_MEMORY_CASES = """
from dpledger.accountant import events as ev
from dpledger.accountant.mechanism_calibration import composition_noise
from dpledger.accountant.rules import account
for q, s, k in [(0.001, 0.8, 10_000), (0.1, 0.8, 10_000), (0.01, 1.0, 100_000)]:
    step = ev.PoissonSubsample(ev.Gaussian(s, "1e-5", relation="add_remove"), q)
    account(ev.Composition((step,), method="pld", target_delta="1e-5", repeat=k))
composition_noise("gaussian", 1, "1", "1e-5", k=10_000, poisson_rate="0.001", method="pld")
"""
"""dpledger's heaviest cases of this run (the largest k at each q, the slowest σ search), measured
in a process of their own: the peak of the benchmark's process is the other libraries'."""


def own_memory() -> float:
    """Peak memory (MiB) of a fresh process running :data:`OWN_MEMORY_CASES`."""
    subprocess.run([sys.executable, "-c", OWN_MEMORY_CASES], check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="4 cases of the grid, no σ table")
    options = parser.parse_args()
    grid(QUICK if options.quick else GRID)
    opendp_checks()
    if not options.quick:
        sigmas()
        discrete_gaussian()
        long_run()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory (max RSS) of this process, every library included: {peak:.0f} MiB")
    print(f"peak memory of dpledger alone on its heaviest cases (own process): {own_memory():.0f} MiB")


if __name__ == "__main__":
    main()
