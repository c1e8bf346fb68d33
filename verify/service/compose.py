"""``dpledger compose``: k-fold composition of an (ε, δ)-DP mechanism, certified by the accountant
(:class:`dpledger.accountant.events.Composition`: basic, advanced — seed 000's Theorem 3.5 — or
optimal, Kairouz–Oh–Viswanath 2015)."""

from __future__ import annotations

from dpledger.accountant import account
from dpledger.accountant.events import ApproxDP, Composition
from dpledger.accountant.numerics.certified import certainly_le, exact, upper_text
from dpledger.verify.service import Exact, Output


def compose(
    *, epsilon: Exact, k: int, delta: Exact = "0", target_delta: Exact | None = None, method: str = "optimal"
) -> Output:
    """Compose ``k`` copies of an (``epsilon``, ``delta``)-DP mechanism by ``method``. Advanced and
    optimal composition aim at the total ``target_delta``; basic composition's δ is k·δ, checked
    against ``target_delta`` when one is given; exit status 1 when it exceeds it."""
    basic = method == "basic"
    event = Composition(
        (ApproxDP(epsilon, delta),), method=method, target_delta=None if basic else target_delta, repeat=k
    )
    derivation = account(event)
    g = derivation.guarantee
    within_target = None
    if basic and target_delta is not None:  # basic composition's δ is k·δ₀; say whether it fits
        within_target = certainly_le(g.delta, exact(target_delta, "target_delta")) is True
    payload = {
        "method": method,
        "k": k,
        **g.bounds(),
        "target_delta_expr": None if target_delta is None else str(exact(target_delta, "target_delta")),
        "delta_within_target": within_target,
        "vacuous": g.vacuous,
        "source": derivation.source,
        "rule": derivation.rule,
        "certified": "epsilon and delta are certified upper bounds (outward-rounded interval arithmetic)",
    }
    text = (
        f"{method} composition of {k} × ({epsilon}, {delta})-DP ({derivation.source}; {derivation.rule}):\n"
        f"  ε ≤ {upper_text(g.epsilon)}\n  δ ≤ {upper_text(g.delta)}\n  (certified upper bounds, rounded up)"
    )
    if g.vacuous:
        text += "\n  VACUOUS: δ ≥ 1, so this guarantee says nothing"
    if within_target is not None:
        text += f"\n  k·δ {'≤' if within_target else 'EXCEEDS'} target δ = {target_delta}"
    return Output(payload, text, 1 if within_target is False else 0)
