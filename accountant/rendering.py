"""Derivations rendered for people: indented text for the command line, a Markdown table for the
reports. A rendering reads a :class:`~dpledger.accountant.rules.Derivation` (its steps depth-first,
each with its rule, source, formula, certified (ε, δ) and the claim checked there) and decides
nothing: every number printed is the guarantee's certified upper end, rounded to 6 digits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dpledger.accountant.rules import Derivation


def derivation_text(derivation: Derivation) -> str:
    """One line per step, indented by depth.

    Args:
        derivation: The derivation to render.

    Returns:
        Lines ``rule (source): ε ≤ …, δ ≤ …`` with the guarantee's scope, and, where a claim is
        checked, the claimed (ε, δ) and whether it holds.
    """
    lines = []
    for depth, node in derivation.walk():
        g = node.guarantee
        line = f"{'  ' * depth}{node.rule} ({node.source}): ε ≤ {g.epsilon_upper:.6g}, δ ≤ {g.delta_upper:.6g}{g.scope()}"
        if node.claim is not None:
            mark = "holds" if node.claim.verdict.holds else "FAILS"
            c = node.claim.claimed
            line += f"  — claim ε ≤ {c.epsilon_upper:.6g}, δ ≤ {c.delta_upper:.6g}: {mark}"
        lines.append(line)
    return "\n".join(lines)


def derivation_markdown(derivation: Derivation) -> str:
    """A Markdown table, one row per step (the event's kind prefixed by one ``·`` per level).

    Args:
        derivation: The derivation to render.

    Returns:
        The table: step, rule, source, formula (as inline LaTeX), ε ≤, δ ≤ and the claim checked
        at that step with its verdict.
    """
    rows = ["| step | rule | source | formula | ε ≤ | δ ≤ | claim |", "|---|---|---|---|---|---|---|"]
    for depth, node in derivation.walk():
        g = node.guarantee
        claim = ""
        if node.claim is not None:
            c = node.claim
            claim = f"{c.statement}: ε ≤ {c.claimed.epsilon_upper:.6g}, δ ≤ {c.claimed.delta_upper:.6g} — {'holds' if c.verdict.holds else '**fails**'}"
        rows.append(
            f"| {'·' * depth}{node.event.kind} | {node.rule} | {node.source} | ${node.formula}$ | "
            f"{g.epsilon_upper:.6g} | {g.delta_upper:.6g} | {claim} |"
        )
    return "\n".join(rows)
