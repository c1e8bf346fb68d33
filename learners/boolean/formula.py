"""The Boolean function G: {0,1}^k → {0,1} of Section 8.4, from a formula or a truth table.

Formulas are parsed with :mod:`ast` (never evaluated): the grammar is ``and``, ``or``, ``not``,
parentheses, the names ``x1`` … ``xk`` and the constants ``True``/``False``. The arity of a
formula is the largest variable index it names (``x1 and x3`` has arity 3; x2 is then ignored);
an explicit ``arity`` must be at least that.

Truth tables list G on all 2^k inputs with **x1 as the most significant bit**: entry
r = Σ_j x_j·2^{k−j} is G(x_1, …, x_k), so ``[0, 0, 0, 1]`` is ``x1 and x2`` and
``[0, 1, 1, 1]`` is ``x1 or x2``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_ARITY = 16
"""Largest k accepted (the truth table has 2^k entries)."""

_VARIABLE = re.compile(r"x([1-9][0-9]*)")


@dataclass(frozen=True)
class BooleanFunction:
    """G: {0,1}^k → {0,1} as its truth table (x1 most significant) and a description."""

    arity: int
    table: tuple[int, ...]
    description: str

    def __post_init__(self) -> None:
        if (
            isinstance(self.arity, bool)
            or not isinstance(self.arity, int)
            or not 1 <= self.arity <= MAX_ARITY
        ):
            raise ValueError(f"arity must be an integer in [1, {MAX_ARITY}], got {self.arity!r}")
        if len(self.table) != 2**self.arity or any(bit not in (0, 1) for bit in self.table):
            raise ValueError(
                f"table must list 2^{self.arity} = {2**self.arity} bits, got {len(self.table)} entries"
            )

    def __call__(self, bits: np.ndarray) -> np.ndarray:
        """G applied row-wise to an (n, k) 0/1 array (int8 result)."""
        weights = 1 << np.arange(self.arity - 1, -1, -1, dtype=np.int64)
        return np.asarray(self.table, dtype=np.int8)[np.asarray(bits, dtype=np.int64) @ weights]

    def residual(self, assignment: int, fixed: int) -> tuple[int, ...]:
        """The truth table of G(a_1, …, a_j, ·) over the remaining k − j variables, where the
        first j = ``fixed`` inputs are the bits of ``assignment`` (a_1 most significant)."""
        width = 2 ** (self.arity - fixed)
        return self.table[assignment * width : (assignment + 1) * width]


def parse_formula(text: str, arity: int | None = None) -> BooleanFunction:
    """G from a formula in ``and``/``or``/``not``, ``x1`` … ``xk``, ``True``/``False``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("formula must be a non-empty string such as 'x1 and (x2 or not x3)'")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise ValueError(f"formula: not a Boolean formula ({error.msg}): {text!r}") from None
    used = _check(tree.body, text)
    largest = max(used, default=0)
    k = largest if arity is None else arity
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"formula: the formula names no variable x1 … xk, give its arity: {text!r}")
    if largest > k:
        raise ValueError(f"formula names x{largest} but G has arity {k}")
    if k > MAX_ARITY:
        raise ValueError(f"formula: arity {k} exceeds {MAX_ARITY}")
    inputs = (np.arange(2**k)[:, None] >> np.arange(k - 1, -1, -1)[None, :]) & 1
    table = _evaluate(tree.body, inputs.astype(bool))
    return BooleanFunction(k, tuple(int(b) for b in table), text.strip())


def from_truth_table(bits: Sequence[int] | str) -> BooleanFunction:
    """G from its 2^k bits (x1 most significant); a string of 0/1 characters or a sequence."""
    values = list(bits.replace(",", "").replace(" ", "")) if isinstance(bits, str) else list(bits)
    try:
        table = tuple(int(b) for b in values)
    except (TypeError, ValueError):
        raise ValueError(f"truth table must consist of 0/1 bits, got {bits!r}") from None
    size = len(table)
    if size < 2 or size & (size - 1) or any(b not in (0, 1) for b in table):
        raise ValueError(f"truth table must list 2^k bits (k ≥ 1) each 0 or 1, got {size} entries")
    return BooleanFunction(size.bit_length() - 1, table, f"truth table {''.join(map(str, table))}")


def _check(node: ast.AST, text: str) -> set[int]:
    """The variable indices of a node of the allowed grammar; ``ValueError`` on anything else."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, (ast.And, ast.Or)):
        return set().union(*(_check(value, text) for value in node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _check(node.operand, text)
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return set()
    if isinstance(node, ast.Name):
        match = _VARIABLE.fullmatch(node.id)
        if match is None:
            raise ValueError(f"formula: unknown name {node.id!r} (variables are x1, x2, …): {text!r}")
        return {int(match.group(1))}
    raise ValueError(
        f"formula: only and, or, not, x1…xk, True, False are allowed, found {type(node).__name__} in {text!r}"
    )


def _evaluate(node: ast.AST, inputs: np.ndarray) -> np.ndarray:
    """The node's value on every row of ``inputs`` (a checked tree only)."""
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(value, inputs) for value in node.values]
        return np.logical_and.reduce(values) if isinstance(node.op, ast.And) else np.logical_or.reduce(values)
    if isinstance(node, ast.UnaryOp):
        return ~_evaluate(node.operand, inputs)
    if isinstance(node, ast.Constant):
        return np.full(len(inputs), node.value)
    assert isinstance(node, ast.Name)  # a checked tree has names x1, x2, ... at its leaves
    return inputs[:, int(node.id[1:]) - 1]
