"""Time and value of certified optimal composition (dpledger.accountant.numerics.optimal_composition) for k-fold
composition of an (ε0 = 0.01, δ0 = 0) mechanism at target δ = 1e-6, beside Google's dp_accounting
(pessimistic PLD accountant and its `advanced_composition`) where that package is importable; then
k-fold (1e-4, 0)-DP from k = 10^6 to 10^9 through the accountant (`account`, end to end),
beside Theorem 3.5's advanced bound (what a rule that gives up on optimal composition would report).

Run: python benchmarks/bench_optimal_composition.py [--skip-pld]   (prints figures only, asserts
nothing; the dp_accounting PLD at k = 10^6 alone takes about two minutes on the 2-core machine)
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable
from typing import TypeVar

from mpmath import mpf, nstr

from dpledger.accountant.numerics.optimal_composition import homogeneous_optimal_epsilon

EPS0, DELTA0, TARGET = 0.01, 0.0, 1e-6
CASES = [(10**4, 20), (10**5, 5), (10**6, 2)]  # (k, repetitions)
PLD_INTERVAL = 1e-4
T = TypeVar("T")


def timed(call: Callable[[], T], repetitions: int) -> tuple[str, T]:
    """Median wall time of ``repetitions`` (at least one) calls (formatted) and the last result."""
    times = []
    for _ in range(max(repetitions, 1)):
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


ISSUE_17 = [10**6, 10**6 + 1, 2 * 10**6, 10**7, 10**8, 10**9]  # ε0 = 1e-4, target 1e-6


def issue_17() -> None:
    """The accountant end to end (event → derivation → certified upper float), fresh each time."""
    from dpledger.accountant import events as ev
    from dpledger.accountant.rules import account

    print("\nk-fold (1e-4, 0)-DP through account(), target delta = 1e-6")
    for k in ISSUE_17:
        account.cache_clear()
        start = time.perf_counter()
        optimal = account(
            ev.Composition((ev.PureDP("1e-4"),), method="optimal", target_delta="1e-6", repeat=k)
        )
        eps = optimal.guarantee.epsilon_upper
        elapsed = time.perf_counter() - start
        advanced = account(
            ev.Composition((ev.PureDP("1e-4"),), method="advanced", target_delta="1e-6", repeat=k)
        )
        adv = advanced.guarantee.epsilon_upper
        print(
            f"  k = {k:>13,}  {elapsed * 1e3:9.1f} ms  optimal eps <= {eps:.10f} ({optimal.rule})"
            f"   advanced {adv:.5f} (+{(adv / eps - 1) * 100:.0f}%)"
        )


HETEROGENEOUS = [100, 300, 1000, 3000]  # repeats of the pair ε = 1/10, 1/7 (target 1e-6)


def heterogeneous() -> None:
    """Two incommensurate ε through the accountant: exact while the law of the loss fits, then the
    lattice bracket, whose excess the rule states."""
    from dpledger.accountant import events as ev
    from dpledger.accountant.rules import account

    print("\nheterogeneous: ε = 1/10 and 1/7, each repeated r times, through account(), target delta = 1e-6")
    for repeat in HETEROGENEOUS:
        account.cache_clear()
        start = time.perf_counter()
        derivation = account(
            ev.Composition(
                (ev.PureDP("1/10"), ev.PureDP("1/7")), method="optimal", target_delta="1e-6", repeat=repeat
            )
        )
        eps = derivation.guarantee.epsilon_upper
        elapsed = time.perf_counter() - start
        note = (
            derivation.rule if derivation.rule == "optimal composition" else derivation.rule.split("; ")[-1]
        )
        print(f"  r = {repeat:>5}  {elapsed * 1e3:9.1f} ms  eps <= {eps:.6f}  ({note})")


def main() -> None:
    import sys

    try:
        import dp_accounting
    except ImportError:
        dp_accounting = None
    if "--skip-pld" in sys.argv:
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
    issue_17()
    heterogeneous()


if __name__ == "__main__":
    main()
