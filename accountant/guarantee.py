"""An (ε, δ) guarantee: exact sympy expressions plus certified numeric enclosures."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import sympy
from mpmath import iv

from dpledger.accountant.events import RELATIONS
from dpledger.accountant.numerics.certified import certainly_le, enclose, exact, upper_float, upper_text

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
    neighbours (Definition 3.6); ``relation`` is the neighbouring relation it holds under
    (``"substitute"`` or ``"add_remove"``, :mod:`dpledger.accountant.relations`)."""

    epsilon: sympy.Expr
    delta: sympy.Expr
    domain: str = "arbitrary"
    relation: str = "substitute"

    def __post_init__(self) -> None:
        for name in ("epsilon", "delta"):
            value = getattr(self, name)
            if not isinstance(value, sympy.Basic):  # numbers and arithmetic text, read exactly
                object.__setattr__(self, name, exact(value, name))
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS}, got {self.domain!r}")
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.relation!r}")

    def __getstate__(self) -> dict[str, Any]:
        """The fields without the cached properties: they are recomputed on demand, and the
        enclosures are mpmath intervals, whose class pickle cannot name."""
        return {
            name: value
            for name, value in vars(self).items()
            if not isinstance(getattr(type(self), name, None), cached_property)
        }

    @cached_property
    def epsilon_interval(self) -> iv.mpf:
        """A certified enclosure of the exact ε (an ``mpmath.iv`` interval; ``epsilon_upper`` is
        its upper end as a float)."""
        return enclose(self.epsilon)

    @cached_property
    def delta_interval(self) -> iv.mpf:
        """A certified enclosure of the exact δ (an ``mpmath.iv`` interval; ``delta_upper`` is its
        upper end as a float)."""
        return enclose(self.delta)

    @property
    def epsilon_upper(self) -> float:
        """A float ≥ the exact ε."""
        return upper_float(self.epsilon_interval)

    @property
    def delta_upper(self) -> float:
        """A float ≥ the exact δ."""
        return upper_float(self.delta_interval)

    def epsilon_text(self, digits: int = 6) -> str:
        """The exact ε rounded up to ``digits`` significant digits, for display (never below ε;
        an exact short decimal such as 1/2 as ``"0.5"``).

        Args:
            digits: Significant digits kept.

        Returns:
            The decimal text (:func:`~dpledger.accountant.numerics.certified.upper_text`).
        """
        return upper_text(self.epsilon, digits)

    def delta_text(self, digits: int = 6) -> str:
        """The exact δ rounded up to ``digits`` significant digits, for display (1/10⁵ as ``"1e-05"``).

        Args:
            digits: Significant digits kept.

        Returns:
            The decimal text.
        """
        return upper_text(self.delta, digits)

    @cached_property
    def vacuous(self) -> bool:
        """δ ≥ 1 (proved): the guarantee says nothing, whatever ε is."""
        return certainly_le(1, self.delta) is True

    def meets(self, epsilon: Any, delta: Any, relation: str | None = None) -> Verdict:
        """Rigorous check of ε ≤ target ε and δ ≤ target δ (never True through rounding).

        A guarantee on realizable inputs only never meets a standard DP target; with ``relation``,
        a guarantee under another neighbouring relation never meets it either.

        Args:
            epsilon: The target ε (a number, Fraction, sympy number or decimal string, read
                exactly).
            delta: The target δ, read the same way.
            relation: The neighbouring relation the target is stated under, if it names one.

        Returns:
            The verdict: ``holds``, each part's, and whether certified arithmetic decided both.

        Raises:
            ValueError: an unknown relation, or a target that is not a number.
        """
        if relation is not None and relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
        eps_ok = certainly_le(self.epsilon, exact(epsilon, "epsilon"))
        delta_ok = certainly_le(self.delta, exact(delta, "delta"))
        decided = eps_ok is not None and delta_ok is not None
        holds = (
            bool(eps_ok)
            and bool(delta_ok)
            and self.domain == "arbitrary"
            and relation in (None, self.relation)
        )
        return Verdict(holds=holds, epsilon_holds=bool(eps_ok), delta_holds=bool(delta_ok), decided=decided)

    def bounds(self) -> dict[str, Any]:
        """The certified float upper bounds with the exact values beside them (a rational such as
        ``"1/1000000"`` or a sympy expression), so that a claim can be checked from JSON alone.

        Returns:
            ``{"epsilon", "delta", "epsilon_expr", "delta_expr"}``.
        """
        return {
            "epsilon": self.epsilon_upper,
            "delta": self.delta_upper,
            "epsilon_expr": str(self.epsilon),
            "delta_expr": str(self.delta),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :meth:`bounds` with the domain, the relation and whether δ is vacuous.

        Returns:
            ``{"epsilon", "delta", "epsilon_expr", "delta_expr", "domain", "relation", "vacuous"}``.
        """
        return {
            **self.bounds(),
            "domain": self.domain,
            "relation": self.relation,
            "vacuous": self.vacuous,
        }

    def scope(self) -> str:
        """What a reader must know beside (ε, δ): realizable inputs only, add/remove neighbours,
        a vacuous δ.

        Returns:
            The notes, each as `` [note]`` (empty for standard substitute-one DP with δ < 1).
        """
        notes = ["realizable inputs only"] if self.domain == "realizable" else []
        notes += ["add/remove neighbours"] if self.relation == "add_remove" else []
        notes += ["vacuous: δ ≥ 1"] if self.vacuous else []
        return "".join(f" [{note}]" for note in notes)
