"""Arithmetic expressions from user text, parsed — never evaluated as code — with bounded cost.

Privacy parameters arrive as text (``"1e-6"``, ``"1/3"``, ``"log(4*E)"``). This module reads such
text with a small recursive-descent parser and builds the exact sympy expression itself; no string
ever reaches ``eval``/``sympify``. Grammar::

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "/") unary)*
    unary := ("+" | "-") unary | power
    power := atom ("**" unary)?
    atom  := NUMBER | CONSTANT | FUNCTION "(" expr ("," expr)* ")" | "(" expr ")"

Numbers are decimals with an optional exponent (``1e-6``), read exactly (``"0.1"`` is 1/10).
Constants: ``E``/``e``, ``pi``; functions: ``log`` (natural, or ``log(x, b)``), ``exp``, ``sqrt``,
``Max``, ``Min``. Cost is bounded: at most :data:`MAX_LENGTH` characters, :data:`MAX_DEPTH` levels of
nesting, decimal exponents within ±:data:`MAX_EXPONENT`, and an exact rational power only when its
result has at most :data:`MAX_DIGITS` digits (``9**9**9`` is refused instead of computed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import sympy

MAX_LENGTH = 1000
MAX_DEPTH = 50
MAX_EXPONENT = 10_000
MAX_DIGITS = 20_000

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>\*\*|[-+*/(),]))"
)
_CONSTANTS = {"E": sympy.E, "e": sympy.E, "pi": sympy.pi}
_FUNCTIONS: dict[str, tuple[Callable[..., sympy.Expr], tuple[int, ...]]] = {
    "log": (sympy.log, (1, 2)),
    "exp": (sympy.exp, (1,)),
    "sqrt": (sympy.sqrt, (1,)),
    "Max": (sympy.Max, tuple(range(1, 33))),
    "Min": (sympy.Min, tuple(range(1, 33))),
}
NAMES = tuple(sorted({*_CONSTANTS, *_FUNCTIONS}))
"""Every name the grammar knows."""


def parse_expression(text: str) -> sympy.Expr:
    """The exact expression ``text`` denotes; ``ValueError`` saying what is wrong otherwise."""
    if len(text) > MAX_LENGTH:
        raise ValueError(f"longer than {MAX_LENGTH} characters")
    return _Parser(_tokens(text)).whole()


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position, end = [], 0, len(text.rstrip())
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None:
            raise ValueError(f"unexpected character {text[position:].strip()[0]!r}")
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def _decimal(text: str) -> sympy.Rational:
    mantissa, _, exponent_text = text.lower().partition("e")
    written = int(exponent_text) if exponent_text else 0
    whole, _, fraction = mantissa.partition(".")
    if abs(written) > MAX_EXPONENT or len(whole) + len(fraction) > MAX_DIGITS:
        raise ValueError(
            f"number {text!r} is out of range (at most {MAX_DIGITS} digits, exponent within ±{MAX_EXPONENT})"
        )
    exponent = written - len(fraction)
    digits = int((whole + fraction) or "0")
    return sympy.Rational(digits * 10**exponent) if exponent >= 0 else sympy.Rational(digits, 10**-exponent)


def _digits(value: sympy.Rational) -> float:
    """log₁₀ of |numerator| · denominator: about how many digits one factor adds to a power."""
    return math.log10(abs(int(value.p))) + math.log10(int(value.q))


def _power(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
    """``base ** exponent``, refusing an exact rational result of more than MAX_DIGITS digits."""
    if base.is_Rational and exponent.is_Rational:
        if exponent.is_Integer and base != 0 and _digits(base) * abs(int(exponent)) > MAX_DIGITS:
            raise ValueError(f"the power {base}**{exponent} has more than {MAX_DIGITS} digits")
        if not exponent.is_Integer and _digits(exponent) > 40:
            raise ValueError(f"the exponent {exponent} is too long")
    elif exponent.is_Rational and _digits(exponent) > 40:
        raise ValueError(f"the exponent {exponent} is too long")
    return sympy.Pow(base, exponent)


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.position = 0
        self.depth = 0

    def whole(self) -> sympy.Expr:
        if not self.tokens:
            raise ValueError("empty expression")
        value = self.expr()
        if self.position != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.position][1]!r}")
        return value

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.position >= len(self.tokens):
            raise ValueError(
                "the expression ends too early" + (f" (expected {expected!r})" if expected else "")
            )
        token = self.tokens[self.position]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected!r}, found {token[1]!r}")
        self.position += 1
        return token

    def nested(self, parse: Callable[[], sympy.Expr]) -> sympy.Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        try:
            return parse()
        finally:
            self.depth -= 1

    def expr(self) -> sympy.Expr:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take()[1] == "+" else value - self.term()
        return value

    def term(self) -> sympy.Expr:
        value = self.unary()
        while self.peek() in ("*", "/"):
            operator = self.take()[1]
            operand = self.unary()
            if operator == "/" and operand == 0:
                raise ValueError("division by zero")
            value = value * operand if operator == "*" else value / operand
        return value

    def unary(self) -> sympy.Expr:
        if self.peek() in ("+", "-"):
            sign = self.take()[1]
            operand = self.nested(self.unary)
            return -operand if sign == "-" else operand
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        if self.peek() == "**":
            self.take()
            return _power(base, self.nested(self.unary))
        return base

    def atom(self) -> sympy.Expr:
        kind, text = self.take()
        if kind == "number":
            return _decimal(text)
        if text == "(":
            value = self.nested(self.expr)
            self.take(")")
            return value
        if kind == "name" and text in _CONSTANTS:
            return _CONSTANTS[text]
        if kind == "name" and text in _FUNCTIONS:
            function, arities = _FUNCTIONS[text]
            self.take("(")
            arguments = [self.nested(self.expr)]
            while self.peek() == ",":
                self.take()
                arguments.append(self.nested(self.expr))
            self.take(")")
            if len(arguments) not in arities:
                raise ValueError(
                    f"{text} takes {' or '.join(map(str, arities[:2]))} argument(s), got {len(arguments)}"
                )
            return function(*arguments)
        if kind == "name":
            raise ValueError(f"unknown name {text!r} (known: {', '.join(NAMES)})")
        raise ValueError(f"unexpected {text!r}")
