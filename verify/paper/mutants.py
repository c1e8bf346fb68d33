"""Privacy mutants: planted bugs in the privacy-critical code, generated from the code itself.

A privacy check that a buggy learner can pass is no check. This module plants the bugs a referee
would plant — each a one-site change of the source that breaks the privacy argument while the
code still runs — at *every* site of the privacy-critical modules where the change applies, and
:mod:`dpledger.verify.paper.mutation_runs` runs the tests the registry names for the affected
statements' privacy parts against each (a mutant the tests do not notice *survives*).

Why a generator of our own, not mutmut or cosmic-ray (both evaluated, mutmut 3.8.1 and cosmic-ray
8.7.0): mutmut's operators are a fixed module-level list (``mutmut.mutation.mutators
.mutation_operators``: numbers +1, operator swaps, string changes, …) with no way to add one, and
its trampolines import the mutated copy from ``mutants/`` only for the layouts ``.``, ``src/`` and
``source/``, which our ``package-dir`` mapping (``learners/`` → ``dpledger.learners``) is not; it
picks the tests by coverage, not by the statement whose privacy the mutated line carries.
cosmic-ray takes custom operators, but only as an installed entry-point plugin
(``cosmic_ray.operator_providers``), runs one global ``test-command`` for every mutant, and
patches the file in place in the working tree; the operators below need the context of a site
(the parameter an argument binds to, the block a subscript reads), which is plain :mod:`ast` work,
and the selection of tests per statement, the equivalents list and the per-statement score would
be ours in either case. So the operators are declared here (:data:`OPERATORS`) and applied by
:func:`generate`; the runner is a small script.

The operators (each names the privacy argument it breaks):

* ``sensitivity-half`` — a sensitivity scaled by ½: the value assigned to a name containing
  ``sensitivity``, the value returned by a function whose name contains it, and every call
  argument bound to a parameter whose name contains it (keywords by name; positional arguments
  through the signatures of the project's own functions, :func:`signatures`).
* ``noise-half`` — a noise scale halved at the draw only: the first argument of a
  ``discrete_gaussian`` / ``discrete_laplace`` call, and inside those samplers the scale they read
  (the first argument of ``_exact_positive``). The event the caller builds keeps the full scale.
* ``epsilon-double`` — an ε doubled where a mechanism or its calibration uses it: every argument
  bound to a parameter named ``epsilon``/``eps`` (or ``epsilon_…``) of a function that is not an
  event (the recorded event keeps its ε) and not a sample-size calculation (a function whose name
  ends in ``_m`` or ``sample_size``: utility, not privacy), and the ε read in an assignment to a
  name containing ``scale`` (the exponential mechanisms' weights ε/2).
* ``clip-widen`` — a clipping bound doubled at the clipping call only (the sensitivity computed
  from the bound is unchanged): the argument bound to ``bound``/``radius``/``norm``/``clip_norm``
  of a call to a function whose name contains ``clip`` (numpy's ``clip`` aside: it clamps
  post-processed values, not records).
* ``block-reuse`` — two releases read the same block: in the list of blocks that ``partition(…)``
  returns (or that a list of blocks unpacks into, or a slice of such a list: a name containing
  ``blocks`` or a starred target of ``partition``), block k replaced by block k − 1 (every k of a
  tuple unpacking; k = 1 and the last block otherwise); and inside ``partition`` every block's
  slice starts at the first record.
* ``noise-drop`` — the pre-noise statistic released: a ``gaussian_noise`` / ``laplace_noise``
  call's output replaced by its input (the draw and the event are still made), an
  ``exponential_mechanism`` / ``exponential_mechanism_release`` draw by the arg-max of its scores,
  and an argument named ``noise`` bound to a parameter ``noise`` (the noise added) by zero.
* ``derived-epsilon-half`` — the only operator of the accountant's modules: in its subsampling and composition rules
  (``accountant/rules.py``), the ε of a derived :class:`~dpledger.accountant.guarantee.Guarantee`
  halved: the accountant under-reports.

Never mutated: what only the release tap sees (:mod:`dpledger.learners.releases`: ``Release``,
``observe``, ``_observed``) — it reports a run, it does not make it.

A mutant's :attr:`Mutant.id` — ``module::function::operator::k`` (the k-th site of that operator in
that function, in source order) — survives edits elsewhere in the module, so the declared
equivalent mutants (:func:`load_mutation_plan`) keep their names.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpledger.verify.paper.registry import STATEMENTS_DIR, Statement, select

OPERATORS = {
    "sensitivity-half": "a sensitivity scaled by 1/2 (assignment, return or argument named *sensitivity*)",
    "noise-half": "a noise scale halved at the draw only (discrete_gaussian / discrete_laplace)",
    "epsilon-double": "an ε doubled where a mechanism or its calibration uses it (not the recorded event)",
    "clip-widen": "a clipping bound doubled at the clipping call (the sensitivity unchanged)",
    "block-reuse": "two releases read the same block (a block index to its neighbour)",
    "noise-drop": "the pre-noise statistic released (noise term dropped, arg-max for a draw)",
    "derived-epsilon-half": "a subsampling or composition rule's derived ε halved (the accountant under-reports)",
}
"""The privacy operators (module doc), each with what it plants."""

MUTATION_PLAN_FILE = "mutation.toml"
"""The declared plan next to the registry's data: modules with their statements, and equivalents."""

_TAP = {"Release", "observe", "_observed"}
_SENSITIVITY = re.compile(r"sensitivity", re.IGNORECASE)
_EPSILON = re.compile(r"^(epsilon|eps)(_b|_a|_oracle)?$")
_CLIP_PARAMETERS = {"bound", "radius", "norm", "clip_norm", "clip_radius"}
_SAMPLERS = {"discrete_gaussian", "discrete_laplace"}
_NOISY_RELEASES = {"gaussian_noise", "laplace_noise"}
_DRAWS = {"exponential_mechanism", "exponential_mechanism_release"}
_RULES = re.compile(
    r"subsample|with_replacement|poisson|add_remove|composition|parallel|amplified|bracketed|advanced"
)
_ARGMAX = "max(range(len(_scores)), key=lambda _i: _scores[_i])"


@dataclass(frozen=True)
class Mutant:
    """One planted bug: where it is, what it replaces, and with what.

    Attributes:
        module: The module's path in the source tree (``learners/agnostic/proper.py``).
        function: The enclosing function (``Class.method``; ``<module>`` at the top level).
        operator: The operator (a key of :data:`OPERATORS`).
        occurrence: The site's number among that operator's sites in that function (from 1).
        line: The line of the site (1-based; for reading, not part of the id).
        original: The replaced source text.
        replacement: The text put in its place.
        start: Byte offset of the replaced text in the module's UTF-8 source.
        end: Byte offset just after it.
    """

    module: str
    function: str
    operator: str
    occurrence: int
    line: int
    original: str
    replacement: str
    start: int
    end: int

    @property
    def id(self) -> str:
        """``module::function::operator::occurrence``: stable across edits elsewhere in the module."""
        return f"{self.module}::{self.function}::{self.operator}::{self.occurrence}"

    def apply(self, source: str) -> str:
        """The module's source with this mutant planted.

        Args:
            source: The module's source as generated from (its UTF-8 bytes must hold
                :attr:`original` at :attr:`start`).

        Returns:
            The mutated source; it parses.

        Raises:
            ValueError: If ``source`` is not the source the mutant was generated from.
        """
        data = source.encode()
        if data[self.start : self.end].decode(errors="replace") != self.original:
            raise ValueError(f"{self.id}: the source of {self.module} changed since the mutant was made")
        return (data[: self.start] + self.replacement.encode() + data[self.end :]).decode()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "module": self.module,
            "function": self.function,
            "operator": self.operator,
            "line": self.line,
            "original": self.original,
            "replacement": self.replacement,
        }


def signatures(sources: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Positional parameter names of every function and method defined in ``sources`` (``self`` and
    ``cls`` dropped), by name; a name defined twice with different positional names keeps only the
    common prefix (so an argument is bound only where every definition agrees).

    Args:
        sources: Module sources (the project's modules).

    Returns:
        Function name → its positional parameter names.
    """
    found: dict[str, tuple[str, ...]] = {}
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))
                names = names[1:] if names[:1] in (("self",), ("cls",)) else names
                if node.name in found:
                    old = found[node.name]
                    common = 0
                    while common < min(len(old), len(names)) and old[common] == names[common]:
                        common += 1
                    names = names[:common]
                found[node.name] = names
    return found


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _bound(call: ast.Call, params: dict[str, tuple[str, ...]]) -> Iterator[tuple[str, ast.expr]]:
    """(parameter name, argument) for each argument of ``call`` whose parameter is known."""
    names = params.get(_callee(call) or "", ())
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            break
        if index < len(names):
            yield names[index], argument
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value


def _event_classes() -> set[str]:
    """The accountant's event classes (an ε given to one is the recorded ε, not a mechanism's)."""
    from dpledger.accountant import events

    return {name for name, value in vars(events).items() if isinstance(value, type) and name[:1].isupper()}


class _Sites(ast.NodeVisitor):
    """Collects (operator, node, replacement template) for one module (module doc)."""

    def __init__(self, module: str, params: dict[str, tuple[str, ...]], text: Any) -> None:
        self.module = module
        self.params = params
        self.text = text
        self.events = _event_classes()
        self.stack: list[str] = []
        self.block_lists: list[set[str]] = [set()]
        self.found: list[tuple[str, str, ast.AST, str]] = []

    def add(self, operator: str, node: ast.AST, replacement: str) -> None:
        if (operator == "derived-epsilon-half") != self.module.startswith("accountant/"):
            return  # the accountant gets its own operator; the learners' operators stay in learners
        self.found.append((operator, ".".join(self.stack) or "<module>", node, replacement))

    def half(self, operator: str, node: ast.AST) -> None:
        self.add(operator, node, f"(({self.text(node)}) / 2)")

    def double(self, operator: str, node: ast.AST) -> None:
        self.add(operator, node, f"(2 * ({self.text(node)}))")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        self.block_lists.append(set())
        if _SENSITIVITY.search(node.name):
            for child in ast.walk(node):
                if isinstance(child, ast.Return) and child.value is not None:
                    self.half("sensitivity-half", child.value)
        self.generic_visit(node)
        self.stack.pop()
        self.block_lists.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def run(self, tree: ast.Module) -> list[tuple[str, str, ast.AST, str]]:
        self.visit(tree)
        return self.found

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._assigned(target, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node.target, node.value)
        self.generic_visit(node)

    def _assigned(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name) and _SENSITIVITY.search(target.id):
            self.half("sensitivity-half", value)
        if isinstance(target, ast.Name) and "scale" in target.id:
            for child in ast.walk(value):
                if (
                    isinstance(child, ast.Name)
                    and _EPSILON.match(child.id)
                    and isinstance(child.ctx, ast.Load)
                ):
                    self.double("epsilon-double", child)
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            for part, part_value in zip(target.elts, value.elts, strict=True):
                self._assigned(part, part_value)
        partitioned = isinstance(value, ast.Call) and _callee(value) == "partition"
        unpacked = isinstance(target, ast.Tuple) and isinstance(value, ast.Name) and "blocks" in value.id
        if partitioned or unpacked:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            starred = any(isinstance(e, ast.Starred) for e in elements)
            self.reuse(value, [1, -1] if starred or len(elements) == 1 else range(1, len(elements)))
            for element in elements:
                if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name):
                    self.block_lists[-1].add(element.value.id)

    def reuse(self, blocks: ast.expr, positions: Iterable[int]) -> None:
        """``block-reuse`` on a list of blocks: block k read from block k − 1 (k = −1: the last
        block from the one before it)."""
        for k in positions:
            rebuilt = "[*_b[:-1], _b[-2]]" if k == -1 else f"[*_b[:{k}], _b[{k - 1}], *_b[{k + 1}:]]"
            self.add("block-reuse", blocks, f"(lambda _b: {rebuilt})({self.text(blocks)})")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        listed = isinstance(node.value, ast.Name) and (
            "blocks" in node.value.id or node.value.id in self.block_lists[-1]
        )
        if listed and isinstance(index, ast.Slice):
            self.reuse(node, [1, -1])
        elif (
            self.stack[-1:] == ["partition"]
            and isinstance(index, ast.Slice)
            and isinstance(index.lower, ast.Name)
            and isinstance(index.upper, ast.Name)
        ):
            self.add("block-reuse", index, f":{index.upper.id} - {index.lower.id}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        callee = _callee(node)
        if callee in _TAP:
            return
        for name, argument in _bound(node, self.params):
            if _SENSITIVITY.search(name):
                self.half("sensitivity-half", argument)
            if (
                _EPSILON.match(name)
                and callee not in self.events
                and not re.search(r"(_m|sample_size)$", callee or "")
            ):
                self.double("epsilon-double", argument)
            if callee and "clip" in callee and not self._numpy(node) and name in _CLIP_PARAMETERS:
                self.double("clip-widen", argument)
            if name == "noise" and isinstance(argument, ast.Name) and argument.id == "noise":
                self.add("noise-drop", argument, "0 * noise")
        if callee in _SAMPLERS and node.args:
            self.half("noise-half", node.args[0])
        if callee == "_exact_positive" and self.stack[-1:] and self.stack[-1] in _SAMPLERS and node.args:
            self.half("noise-half", node.args[0])
        if callee in _NOISY_RELEASES and node.args:
            value = self.text(node.args[0])
            self.add(
                "noise-drop",
                node,
                f"(lambda _released, _value: (_value, _released[1]))({self.text(node)}, {value})",
            )
        if callee in _DRAWS and node.args:
            scores, drawn = self.text(node.args[0]), self.text(node)
            output = _ARGMAX if callee == "exponential_mechanism" else f"({_ARGMAX}, _drawn[1])"
            self.add("noise-drop", node, f"(lambda _drawn, _scores: {output})({drawn}, {scores})")
        if (
            callee == "Guarantee"
            and self.module.endswith("accountant/rules.py")
            and self.stack
            and _RULES.search(self.stack[-1])
            and node.args
        ):
            self.half("derived-epsilon-half", node.args[0])
        self.generic_visit(node)

    @staticmethod
    def _numpy(call: ast.Call) -> bool:
        func = call.func
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("np", "numpy")
        )


def module_mutants(module: str, source: str, params: dict[str, tuple[str, ...]]) -> list[Mutant]:
    """Every mutant of the operators in one module's source, in source order.

    Args:
        module: The module's path in the source tree (for the ids).
        source: Its source.
        params: The project's signatures (:func:`signatures`).

    Returns:
        One :class:`Mutant` per distinct (site, replacement); each mutated source parses.

    Raises:
        ValueError: If a planted mutant does not parse (an operator bug).
    """
    data = source.encode()
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def span(node: ast.AST) -> tuple[int, int]:
        return (
            starts[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
            starts[node.end_lineno - 1] + node.end_col_offset,  # type: ignore[attr-defined]
        )

    def text(node: ast.AST) -> str:
        start, end = span(node)
        return data[start:end].decode()

    sites = _Sites(module, params, text).run(ast.parse(source))
    seen: set[tuple[int, int, str]] = set()
    counts: dict[tuple[str, str], int] = {}
    mutants = []
    for operator, function, node, replacement in sorted(sites, key=lambda s: (span(s[2]), s[0])):
        start, end = span(node)
        if (start, end, replacement) in seen:
            continue
        seen.add((start, end, replacement))
        counts[function, operator] = counts.get((function, operator), 0) + 1
        mutant = Mutant(
            module,
            function,
            operator,
            counts[function, operator],
            node.lineno,  # type: ignore[attr-defined]
            text(node),
            replacement,
            start,
            end,
        )
        try:
            ast.parse(mutant.apply(source))
        except SyntaxError as error:
            raise ValueError(f"{mutant.id}: the planted mutant does not parse ({error})") from None
        mutants.append(mutant)
    return mutants


@dataclass(frozen=True)
class ModulePlan:
    """A privacy-critical module and the statements whose privacy parts rest on it (their tests
    must kill its mutants), in the order the runner tries them."""

    path: str
    statements: tuple[str, ...]


@dataclass(frozen=True)
class MutationPlan:
    """The declared plan (:data:`MUTATION_PLAN_FILE`): the modules, and the equivalent mutants with
    the reason each cannot change what the privacy argument needs."""

    modules: tuple[ModulePlan, ...]
    equivalent: dict[str, str]

    def statements_of(self, module: str) -> tuple[Statement, ...]:
        """The registry's statements for ``module`` (ValueError for a module not in the plan)."""
        for entry in self.modules:
            if entry.path == module:
                chosen = {s.key: s for s in select(entry.statements)}
                return tuple(
                    chosen.get(name) or next(s for s in chosen.values() if s.id == name)
                    for name in entry.statements
                )
        raise ValueError(f"{module} is not a privacy-critical module of the mutation plan")


def load_mutation_plan(path: Path | None = None) -> MutationPlan:
    """The mutation plan: ``[[module]]`` tables (``path``, ``statements``: registry keys) and
    ``[[equivalent]]`` tables (``id``, ``reason``).

    Args:
        path: The plan file (default: :data:`MUTATION_PLAN_FILE` beside the registry's data).

    Returns:
        The plan, validated.

    Raises:
        ValueError: Naming the file and the problem: not TOML, unknown keys, a statement the
            registry lacks, a module listed twice, an equivalent without a reason or listed twice.
    """
    source = path if path is not None else STATEMENTS_DIR / MUTATION_PLAN_FILE
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{source}: not valid TOML: {error}") from None
    modules: list[ModulePlan] = []
    equivalent: dict[str, str] = {}
    try:
        if set(data) - {"module", "equivalent"}:
            raise ValueError(f"unknown tables {sorted(set(data) - {'module', 'equivalent'})}")
        for table in data.get("module", []):
            if set(table) != {"path", "statements"}:
                raise ValueError(f"a [[module]] has the keys path and statements, got {sorted(table)}")
            if any(m.path == table["path"] for m in modules):
                raise ValueError(f"module {table['path']!r} is listed twice")
            select(table["statements"])  # every key is in the registry
            modules.append(ModulePlan(str(table["path"]), tuple(table["statements"])))
        for table in data.get("equivalent", []):
            if set(table) != {"id", "reason"} or not str(table["reason"]).strip():
                raise ValueError(f"an [[equivalent]] has an id and a non-empty reason, got {table}")
            if table["id"] in equivalent:
                raise ValueError(f"equivalent {table['id']!r} is listed twice")
            equivalent[str(table["id"])] = str(table["reason"])
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    return MutationPlan(tuple(modules), equivalent)


def generate(root: Path, plan: MutationPlan, modules: Iterable[str] | None = None) -> list[Mutant]:
    """Every mutant of the plan's modules (or of ``modules`` among them) in the tree at ``root``.

    Args:
        root: The source tree (its ``accountant/`` and ``learners/`` give the signatures).
        plan: The mutation plan.
        modules: Only these module paths (default: all of the plan's).

    Returns:
        The mutants, module by module in the plan's order.

    Raises:
        ValueError: If a module is not in the plan or does not exist under ``root``.
    """
    wanted = [m.path for m in plan.modules] if modules is None else list(modules)
    for module in wanted:
        plan.statements_of(module)
        if not (root / module).is_file():
            raise ValueError(f"{module} does not exist under {root}")
    params = signatures(
        p.read_text() for folder in ("accountant", "learners") for p in sorted((root / folder).rglob("*.py"))
    )
    return [m for module in wanted for m in module_mutants(module, (root / module).read_text(), params)]
