"""Thresholds, intervals and axis-aligned rectangles on integer grids, with the generic
completion-score oracle (ε_A = 4)."""
from __future__ import annotations

import argparse

from dpledger.verify.cli.commands import positive_int
from dpledger.verify.paper.setups import ClassSetup, Problem

GENERIC_ORACLE = "completion-score exponential mechanism (ε_A = 4)"


def add_domain_size(parser: argparse.ArgumentParser) -> None:
    """Add --domain-size once (several setups share it)."""
    if not any(action.dest == "domain_size" for action in parser._actions):
        parser.add_argument("--domain-size", type=positive_int, default=None,
                            help="grid size N (default 2^20; rectangles 16 — their trace is O(|P|^5))")


def _grid_problem(name: str):
    def build(args: argparse.Namespace) -> Problem:
        from dpledger.learners.concept_classes import Intervals, Rectangles, Thresholds

        size = args.domain_size or (16 if name == "rectangles" else 2**20)
        concept_class = {"thresholds": Thresholds, "intervals": Intervals, "rectangles": Rectangles}[name](size)
        shape = () if concept_class.dimension == 1 else (concept_class.dimension,)
        return Problem(concept_class, None, GENERIC_ORACLE, lambda rng, n: rng.integers(0, size, size=(n, *shape)))

    return build


SETUPS = [
    ClassSetup(name, f"{name} on an integer grid", add_domain_size, _grid_problem(name))
    for name in ("thresholds", "intervals", "rectangles")
]
