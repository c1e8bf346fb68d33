"""Derivations rendered for people: indented text for the command line, a Markdown table for the
reports. A rendering reads a :class:`~dpledger.accountant.rules.Derivation` (its steps depth-first,
each with its rule, source, formula, certified (ε, δ) and the claim checked there) and decides
nothing: every number printed is the guarantee's certified upper end, rounded to 6 digits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dpledger.accountant.rules import Derivation


def inner_claim_mark(derivation: Derivation, holds: bool, depth: int) -> str | None:
    """How a step's claim reads: None when it holds; a failing claim inside a chain whose top
    claim holds is the paper's per-block budget not met at this m (no alarm: the accounting
    above meets the top claim), anything else fails.

    Args:
        derivation: The whole derivation (its top claim decides).
        holds: Whether the step's own claim holds.
        depth: The step's depth (0: the top).

    Returns:
        None for a claim that holds, else the words for its verdict.
    """
    if holds:
        return None
    top = derivation.claim
    if top is not None and top.verdict.holds and depth > 0:
        return f"the paper's per-block budget is not met at this m; the chain holds through {top.statement}"
    return "FAILS"


def derivation_text(derivation: Derivation) -> str:
    """One line per step, indented by depth.

    Args:
        derivation: The derivation to render.

    Returns:
        Lines ``rule (source): ε ≤ …, δ ≤ …`` with the guarantee's scope, and, where a claim is
        checked, the claimed (ε, δ) and whether it holds (:func:`inner_claim_mark`).
    """
    lines = []
    for depth, node in derivation.walk():
        g = node.guarantee
        line = f"{'  ' * depth}{node.rule} ({node.source}): ε ≤ {g.epsilon_text()}, δ ≤ {g.delta_text()}{g.scope()}"
        if node.claim is not None:
            c = node.claim.claimed
            mark = inner_claim_mark(derivation, node.claim.verdict.holds, depth) or "holds"
            line += f"  — claim ε ≤ {c.epsilon_text()}, δ ≤ {c.delta_text()}: {mark}"
        lines.append(line)
    return "\n".join(lines)


def derivation_markdown(derivation: Derivation) -> str:
    """A Markdown table, one row per step (the event's kind prefixed by one ``·`` per level).

    Args:
        derivation: The derivation to render.

    Returns:
        The table: step, rule, source, formula (as inline LaTeX), ε ≤, δ ≤ and the claim checked
        at that step with its verdict (worded as in :func:`derivation_text`).
    """
    rows = ["| step | rule | source | formula | ε ≤ | δ ≤ | claim |", "|---|---|---|---|---|---|---|"]
    for depth, node in derivation.walk():
        g = node.guarantee
        claim = ""
        if node.claim is not None:
            c = node.claim
            mark = inner_claim_mark(derivation, c.verdict.holds, depth)
            verdict = "holds" if mark is None else ("**fails**" if mark == "FAILS" else mark)
            claim = f"{c.statement}: ε ≤ {c.claimed.epsilon_text()}, δ ≤ {c.claimed.delta_text()} — {verdict}"
        rows.append(
            f"| {'·' * depth}{node.event.kind} | {node.rule} | {node.source} | ${node.formula}$ | "
            f"{g.epsilon_text()} | {g.delta_text()} | {claim} |"
        )
    return "\n".join(rows)
