"""What the result of every auditor holds: the claim it tested and whether the claim holds.

The Monte Carlo auditor (:class:`~dpledger.verify.audit.montecarlo.audit.MonteCarloAuditResult`)
and the exact one (:class:`~dpledger.verify.audit.exact.ExactAuditResult`) each extend
:class:`AuditResultBase` with what their method gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

Claim = TypeVar("Claim")
"""The type of the claimed ε: a float for the Monte Carlo auditor, an exact number (a sympy
expression) for the exact one."""


@dataclass(frozen=True)
class AuditResultBase(Generic[Claim]):
    """The fields every audit result shares.

    Attributes:
        claimed_epsilon: The claimed ε, as the auditor compared the mechanism with it.
        claimed_delta: The claimed δ (0 for a pure-ε claim).
        holds: The verdict on the claim (ε, δ) for the pairs audited: True, proven; False,
            refuted (for a Monte Carlo audit: with the audit's confidence); None, undecided — the
            Monte Carlo audit of a claim it does not refute, as no sample proves a claim.
    """

    claimed_epsilon: Claim
    claimed_delta: float
    holds: bool | None

    @property
    def violation(self) -> bool:
        """Whether the claim failed (``holds`` is False)."""
        return self.holds is False
