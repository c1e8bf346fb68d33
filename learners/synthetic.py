"""Synthetic realizable data: a random target concept of a class."""

from __future__ import annotations

import numpy as np

from dpledger.learners.concept_classes import Components, ConceptClass


def random_concept(concept_class: ConceptClass, rng: np.random.Generator) -> Components:
    """A concept drawn component by component, each uniformly among the valid next values
    (Section 4.1), so the result is always in the class."""
    prefix: Components = ()
    for _ in range(concept_class.k):
        values = concept_class.next_values(prefix)
        prefix += (values[int(rng.integers(len(values)))],)
    return prefix
