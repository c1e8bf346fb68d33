"""Learning problems that ``dpledger run carry-forward`` can set up: a concept class, its
component oracle and synthetic realizable data.

A :class:`ClassSetup` names the ``--class`` value and the keyword values (``options``) its
``build`` reads; the command line registers an option for each (``--domain-size`` for
``domain_size``). To add a class, write a module with a ``SETUPS`` list, name it in ``_MODULES``,
and give each new option its flag in ``dpledger.verify.cli.commands.run.CLASS_OPTIONS`` (a test
checks that every option has one).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Problem:
    """A concept class with its oracle (None: the generic completion-score oracle), a line
    describing the oracle for the output (substitutes say so), and a sampler of points."""

    concept_class: Any
    oracle: Any
    oracle_description: str
    sample: Callable[[np.random.Generator, int], np.ndarray]


@dataclass(frozen=True)
class ClassSetup:
    """``build(alpha=…, beta=…, **options)`` sets up the problem for a learner with accuracy
    target (α, β) — which a class's oracle may be tuned to (Algorithm 2 line 3: τ = α/(40k),
    β_A = β/(4k)) — from the class's own ``options`` (keyword values, each optional)."""

    name: str
    help: str
    options: tuple[str, ...]
    build: Callable[..., Problem]


_MODULES = [
    "dpledger.verify.paper.setups.grid",
    "dpledger.verify.paper.setups.boolean",
    "dpledger.verify.paper.setups.halfspaces",
]


def setups() -> dict[str, ClassSetup]:
    """Every registered setup by its ``--class`` name."""
    found = [importlib.import_module(name).SETUPS for name in _MODULES]
    return {setup.name: setup for group in found for setup in group}


def setup(name: str) -> ClassSetup:
    """The setup of the class ``name``."""
    available = setups()
    if name not in available:
        raise ValueError(f"class must be one of {', '.join(available)}, got {name!r}")
    return available[name]
