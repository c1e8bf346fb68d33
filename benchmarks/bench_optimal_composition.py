"""Time and value of certified optimal composition (dpledger.accountant.numerics.optimal_composition) for k-fold
composition of an (ε0 = 0.01, δ0 = 0) mechanism at target δ = 1e-6, beside Google's dp_accounting
(pessimistic PLD accountant and its `advanced_composition`) where that package is importable.

Run: python benchmarks/bench_optimal_composition.py   (prints figures only, asserts nothing;
the dp_accounting PLD at k = 10^6 alone takes about two minutes on the 2-core machine)
"""

from __future__ import annotations

import statistics
import time
import warnings
from typing import Callable

from mpmath import mpf, nstr

from dpledger.accountant.numerics.optimal_composition import homogeneous_optimal_epsilon

EPS0, DELTA0, TARGET = 0.01, 0.0, 1e-6
CASES = [(10**4, 20), (10**5, 5), (10**6, 2)]  # (k, repetitions)
PLD_INTERVAL = 1e-4


def timed(call: Callable[[], object], repetitions: int) -> tuple[str, object]:
    """Median wall time of ``repetitions`` calls (formatted) and the last result."""
    times, result = [], None
    for _ in range(repetitions):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return f"{statistics.median(times) * 1e3:10.2f} ms", result


def ours(k: int, repetitions: int) -> str:
    elapsed, (lo, hi) = timed(
        lambda: homogeneous_optimal_epsilon(mpf(EPS0), mpf(DELTA0), k, mpf(TARGET)), repetitions
    )
    return f"{elapsed}  eps in [{nstr(lo, 17)}, {nstr(hi, 17)}]  (gap {nstr(hi - lo, 3)})"


def pld(dp_accounting, k: int) -> str:
    params = dp_accounting.pld.common.DifferentialPrivacyParameters(EPS0, DELTA0)
    module = dp_accounting.pld.privacy_loss_distribution

    def run() -> float:
        base = module.from_privacy_parameters(params, value_discretization_interval=PLD_INTERVAL)
        return base.self_compose(k).get_epsilon_for_delta(TARGET)

    elapsed, value = timed(run, 1)
    return f"{elapsed}  eps = {value:.12g}  (pessimistic, interval {PLD_INTERVAL:g})"


def advanced(dp_accounting, k: int) -> str:
    params = dp_accounting.pld.common.DifferentialPrivacyParameters(EPS0, DELTA0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            elapsed, value = timed(
                lambda: dp_accounting.pld.accountant.advanced_composition(params, k, TARGET), 1
            )
        except (OverflowError, ValueError) as exc:
            return f"failed: {type(exc).__name__}: {exc}"
    return f"{elapsed}  eps = {value}  (grid points (k - 2i)eps0 only)"


def main() -> None:
    try:
        import dp_accounting
    except ImportError:
        dp_accounting = None
    print(f"k-fold composition of ({EPS0}, {DELTA0})-DP, target delta = {TARGET:g}")
    for k, repetitions in CASES:
        print(f"\nk = {k:>8}")
        print(f"  dpledger certified      {ours(k, repetitions)}")
        if dp_accounting is None:
            print("  dp_accounting PLD       not installed")
            print("  dp_accounting advanced  not installed")
            continue
        print(f"  dp_accounting PLD       {pld(dp_accounting, k)}")
        print(f"  dp_accounting advanced  {advanced(dp_accounting, k)}")


if __name__ == "__main__":
    main()
