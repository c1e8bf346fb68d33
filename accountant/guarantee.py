"""An (ε, δ) guarantee: exact sympy expressions plus certified numeric enclosures."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import sympy
from mpmath import iv

from dpledger.accountant.numerics.certified import certainly_le, enclose, exact, upper_float

DOMAINS = ("arbitrary", "realizable")


@dataclass(frozen=True)
class Verdict:
    """Outcome of comparing a guarantee with a target. ``holds`` is True only when both
    inequalities are proved; ``decided`` is False when certified arithmetic could not settle
    one of them (then ``holds`` is False)."""

    holds: bool
    epsilon_holds: bool
    delta_holds: bool
    decided: bool


@dataclass(frozen=True)
class Guarantee:
    """(ε, δ)-DP as exact expressions. ``domain`` is ``"arbitrary"`` for standard DP on all
    neighbours (Definition 3.2) or ``"realizable"`` for DP only between C-realizable
    neighbours (Definition 3.6)."""

    epsilon: sympy.Expr
    delta: sympy.Expr
    domain: str = "arbitrary"

    def __post_init__(self) -> None:
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS}, got {self.domain!r}")

    @cached_property
    def epsilon_interval(self) -> iv.mpf:
        return enclose(self.epsilon)

    @cached_property
    def delta_interval(self) -> iv.mpf:
        return enclose(self.delta)

    @property
    def epsilon_upper(self) -> float:
        """A float ≥ the exact ε."""
        return upper_float(self.epsilon_interval)

    @property
    def delta_upper(self) -> float:
        """A float ≥ the exact δ."""
        return upper_float(self.delta_interval)

    def meets(self, epsilon: Any, delta: Any) -> Verdict:
        """Rigorous check of ε ≤ target ε and δ ≤ target δ (never True through rounding).
        A guarantee on realizable inputs only never meets a standard DP target."""
        eps_ok = certainly_le(self.epsilon, exact(epsilon, "epsilon"))
        delta_ok = certainly_le(self.delta, exact(delta, "delta"))
        decided = eps_ok is not None and delta_ok is not None
        holds = bool(eps_ok) and bool(delta_ok) and self.domain == "arbitrary"
        return Verdict(holds=holds, epsilon_holds=bool(eps_ok), delta_holds=bool(delta_ok), decided=decided)

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon_upper,
            "delta": self.delta_upper,
            "epsilon_expr": str(self.epsilon),
            "delta_expr": str(self.delta),
            "domain": self.domain,
        }
