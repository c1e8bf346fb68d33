"""Neighbouring relations: every guarantee holds for one, and the accountant never mixes them.

Two relations (``RELATIONS``):

* ``"substitute"`` — substitute-one on fixed-size datasets: S, S′ of the same size differ in one
  record (seed 000, Section 3.2; the relation of every paper statement dpledger checks);
* ``"add_remove"`` — S′ is S with one record added or removed (the relation Poisson subsampling
  needs: its sample size varies).

A primitive event states its relation (``relation=…``, default ``"substitute"``). A transform's
guarantee holds under the relation :func:`relation_of` gives: composition, parallel composition,
post-processing and claims keep their children's common relation and refuse a mix; LabelBoost
(Lemmas 3.11, 3.15, 3.17) and subsampling without or with replacement (Theorem 3.4, Lemma 8.15)
are stated under substitution and refuse an add/remove child; Poisson subsampling needs an
add/remove child; :class:`~dpledger.accountant.events.AddRemoveToSubstitute` converts by group
privacy. An unsupported combination is a ``ValueError`` that says which conversion applies, never a
silent number (as dp_accounting's ``supports`` and OpenDP's metric checks do).
"""

from __future__ import annotations

from collections.abc import Sequence

from dpledger.accountant import events as ev

RELATIONS = ev.RELATIONS

SUBSTITUTE_ONLY: dict[type[ev.Event], str] = {
    ev.LabelBoostThen: "Lemma 3.11",
    ev.LabelBoostRealizable: "Lemma 3.15",
    ev.SubsampleWithoutReplacement: "Theorem 3.4",
    ev.SubsampleWithReplacement: "Lemma 8.15",
}
"""Transforms stated under substitute-one neighbours only, with the statement that says so."""

_CONVERT = "convert an add/remove guarantee with AddRemoveToSubstitute (group privacy)"


def relation_of(event: ev.Event, child_relations: Sequence[str]) -> str:
    """The relation ``event``'s guarantee holds under, given its children's; ``ValueError`` when the
    combination is not sound."""
    if isinstance(event, ev.PoissonSubsample):
        _require(
            event,
            child_relations,
            "add_remove",
            "Poisson subsampling (Balle–Barthe–Gaboardi 2018) needs a child that is DP under add/remove "
            "neighbours (the subsample's size varies); state relation='add_remove' on the child if it holds",
        )
        return event.relation
    if isinstance(event, ev.AddRemoveToSubstitute):
        _require(
            event, child_relations, "add_remove", "AddRemoveToSubstitute converts an add/remove guarantee"
        )
        return "substitute"
    if type(event) in SUBSTITUTE_ONLY:
        _require(
            event,
            child_relations,
            "substitute",
            f"{SUBSTITUTE_ONLY[type(event)]} holds under substitute-one neighbours; {_CONVERT}",
        )
        return "substitute"
    if not child_relations:
        return getattr(event, "relation", "substitute")
    distinct = sorted(set(child_relations))
    if len(distinct) > 1:
        raise ValueError(
            f"{event.kind} combines guarantees under different neighbouring relations "
            f"({', '.join(distinct)}); {_CONVERT}"
        )
    return distinct[0]


def _require(event: ev.Event, child_relations: Sequence[str], wanted: str, reason: str) -> None:
    found = sorted(set(child_relations) - {wanted})
    if found:
        raise ValueError(
            f"{event.kind}: child is DP under {', '.join(found)} neighbours, not {wanted}: {reason}"
        )
