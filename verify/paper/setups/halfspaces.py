"""Halfspaces over the grid [[±X]]^d with the coordinate oracles of seed 000, Sections 8.1–8.3:
``--class halfspaces --dim D --grid X --oracle ipconcave|qcopt|exponential [--blocks T]``.
QCOpt and IPConcave's PrivateIP are exponential-mechanism substitutes, named in the oracle line.

Supported: d ∈ {1, 2} (exact Q_i^S and traces), X ∈ [1, 256] (domain sizes stay below 2^62).
Points are drawn uniformly from the grid; no perturbation (Definition C.5) is applied, so
general position is not enforced (utility only; privacy does not depend on it).
"""
from __future__ import annotations

import argparse

from dpledger.verify.paper.setups import ClassSetup, Problem

ORACLES = ("ipconcave", "qcopt", "exponential")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dim", type=int, default=None, help="halfspaces: dimension d ∈ {1, 2} (default 2)")
    parser.add_argument("--grid", type=int, default=None,
                        help="halfspaces: grid bound X, points in [[±X]]^d, X ∈ [1, 256] (default 16)")
    parser.add_argument("--oracle", choices=ORACLES, default=None,
                        help="halfspaces: coordinate oracle (default ipconcave)")
    parser.add_argument("--blocks", type=int, default=None,
                        help="halfspaces, ipconcave: number of blocks t (default: enough for the interior point)")


def _build(args: argparse.Namespace) -> Problem:
    from dpledger.learners.halfspaces import ExponentialDepthOracle, GridHalfspaces, IPConcaveOracle, QCOptOracle

    dimension = 2 if args.dim is None else args.dim
    grid = 16 if args.grid is None else args.grid
    concept_class = GridHalfspaces(dimension, grid)
    name = args.oracle or "ipconcave"
    if args.blocks is not None and name != "ipconcave":
        raise ValueError("blocks: --blocks applies to --oracle ipconcave only")
    oracle = {"ipconcave": lambda: IPConcaveOracle(blocks=args.blocks), "qcopt": QCOptOracle,
              "exponential": ExponentialDepthOracle}[name]()
    description = f"{name}: {oracle.description}; ε_A = {oracle.epsilon}"
    return Problem(concept_class, oracle, description,
                   lambda rng, n: rng.integers(-grid, grid + 1, size=(n, dimension)))


SETUPS = [ClassSetup("halfspaces", "halfspaces on [[±X]]^d with depth oracles (Sections 8.1–8.3)", _add_arguments, _build)]
