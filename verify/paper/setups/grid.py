"""Thresholds, intervals and axis-aligned rectangles on integer grids, with the generic
completion-score oracle (ε_A = 4)."""

from __future__ import annotations

from collections.abc import Callable

from dpledger.verify.paper.setups import ClassSetup, Problem

GENERIC_ORACLE = "completion-score exponential mechanism (ε_A = 4)"


def _grid_problem(name: str) -> Callable[..., Problem]:
    def build(*, alpha: float, beta: float, domain_size: int | None = None) -> Problem:
        """The grid [0, N) with N = ``domain_size`` (default 2^20; rectangles 16 — their trace is
        O(a²b²) on the a × b distinct coordinates; 64 runs at m = 200); the generic oracle takes (α, β) from the learner."""
        from dpledger.learners.concept_classes import ConceptClass, Intervals, Rectangles, Thresholds

        size = domain_size or (16 if name == "rectangles" else 2**20)
        classes: dict[str, Callable[[int], ConceptClass]] = {
            "thresholds": Thresholds,
            "intervals": Intervals,
            "rectangles": Rectangles,
        }
        concept_class = classes[name](size)
        shape = () if concept_class.dimension == 1 else (concept_class.dimension,)
        return Problem(
            concept_class, None, GENERIC_ORACLE, lambda rng, n: rng.integers(0, size, size=(n, *shape))
        )

    return build


SETUPS = [
    ClassSetup(name, f"{name} on an integer grid", ("domain_size",), _grid_problem(name))
    for name in ("thresholds", "intervals", "rectangles")
]
