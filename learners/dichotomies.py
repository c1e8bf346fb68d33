"""The trace Π_C(P) of Definition 3.7 with one representative hypothesis per labeling."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpledger.learners.concept_classes import DEFAULT_TRACE_LIMIT, Components, ConceptClass


def dichotomies(
    concept_class: ConceptClass,
    points: Any,
    limit: int = DEFAULT_TRACE_LIMIT,
) -> tuple[np.ndarray, list[Components]]:
    """Π_C(P) for the distinct points P of ``points`` (lexicographic order, the columns):
    (labelings as an int8 array |Π_C(P)| × |P|, one representative component tuple per row),
    enumerated by the class's geometry (see each class's docstring). ``ValueError`` when
    |Π_C(P)| exceeds ``limit``."""
    return concept_class.dichotomies(points, limit)
