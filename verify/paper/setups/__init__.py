"""Learning problems that ``dpledger run carry-forward`` can set up: a concept class, its
component oracle and synthetic realizable data.

A :class:`ClassSetup` names the ``--class`` value, adds its own options to the command's
parser, and builds the problem from the parsed arguments. To add a class, write a module with
a ``SETUP`` and list it in ``_MODULES``.
"""
from __future__ import annotations

import argparse
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
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    build: Callable[[argparse.Namespace], Problem]


_MODULES = [
    "dpledger.verify.paper.setups.grid",
    "dpledger.verify.paper.setups.boolean",
    "dpledger.verify.paper.setups.halfspaces",
]


def setups() -> dict[str, ClassSetup]:
    """Every registered setup by its ``--class`` name."""
    found = [importlib.import_module(name).SETUPS for name in _MODULES]
    return {setup.name: setup for group in found for setup in group}
