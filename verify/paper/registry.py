"""The proof registry: every numbered statement of both seeds, how dpledger checks it, and its
status from the last ``dpledger proofs --run``.

A statement is data (:class:`Statement`): its id as the seed numbers it, the seed, one line
saying what it claims, the kind of check (:data:`CHECK_KINDS`), the pytest node ids that check
it and the commands that show it. Status is never claimed, only recorded: without a status
file a statement with tests is ``not run``; ``passed`` needs a run in which every named test
passed. Statements the paper only cites are ``cited`` whatever their tests do (the tests then
check dpledger's implementation of the cited result, not the result).

Findings — a stated inequality that fails for allowed parameters, a constant with slack, a
release no lemma covers — are recorded with a witness and the command that prints it;
findings about cited tools are kept apart in :data:`EXTERNAL_FINDINGS`.

The data lives in TOML files in the ``statements/`` folder next to this module (installed as
package data, :data:`STATEMENTS_DIR`): ``seed_000.toml`` and ``seed_002.toml`` hold each seed's
statements in the seed's order, each with its findings, and ``external.toml`` the findings about
cited tools; each file's header says its format. This module reads them with :mod:`tomllib` when
it is imported (:func:`load_statements`, :func:`load_findings`) and builds :data:`REGISTRY` and
:data:`EXTERNAL_FINDINGS` from nothing else. Loading rejects, as a ValueError naming the file,
the statement and the problem: a file that is not TOML, a file name that is not
``seed_<seed>.toml`` for a seed of :data:`SEED_FILES`, unknown or missing keys, values of the wrong
type, empty text, duplicate ids, unknown check kinds (:data:`CHECK_KINDS`) and finding kinds
(:data:`FINDING_KINDS`), and test node ids that are not ``tests/<path>/test_<file>.py::test_<name>``
or are listed twice. The value rules are the model's own (:class:`Statement` and :class:`Finding`
check them when built), so no statement escapes them.
"""
from __future__ import annotations

import ast
import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

SEED_FILES = {"000": "000_35dad69f085f61dd.txt", "002": "002_ea0b89babd8f1a23.txt"}
"""Seed short names and their files in ``shared/seeds``."""

CHECK_KINDS = {
    "exact": "exact on small instances (enumerated output distributions, certified arithmetic)",
    "property": "property-based or swept over parameter ranges",
    "empirical": "empirical on the learners (synthetic data, fixed seeds)",
    "chain": "accounting chain (the accountant derives the guarantee from the trace and checks the claim)",
    "definition": "a definition or algorithm: implemented, no claim of its own (tests check the implementation)",
    "cited": "cited by the paper and not checked (tests, if any, check dpledger's implementation of it)",
    "unchecked": "the seed's own statement, not yet checked by dpledger",
}

FINDING_KINDS = ("slack", "confirms", "violation")
"""What a finding can say (:attr:`Finding.kind`)."""

TEST_OUTCOMES = ("passed", "failed", "skipped", "error", "not collected")

NODE_ID = re.compile(r"tests/(?:[A-Za-z0-9_]+/)*test_[A-Za-z0-9_]+\.py::test_[A-Za-z0-9_]+")
"""A test node id as the registry names it: a test function of a test file under ``tests/``."""

STATEMENTS_DIR: Traversable = resources.files(__package__) / "statements"
"""The data files: ``seed_<seed>.toml`` per seed and ``external.toml`` (package data)."""


def _known(what: str, value: str, known: Iterable[str]) -> None:
    if value not in known:
        raise ValueError(f"unknown {what} {value!r} (known: {', '.join(known)})")


def _texts(owner: object, *fields: str) -> None:
    """Each field of ``owner`` is a non-empty string (a tuple field: each of its items)."""
    for field in fields:
        value = getattr(owner, field)
        for item in value if isinstance(value, tuple) else (value,):
            if not isinstance(item, str) or not item.strip():
                raise ValueError(f"{field!r} holds {item!r}, not a non-empty string")


@dataclass(frozen=True)
class Finding:
    """Something a check found: what, the witness, and the command that prints the witness."""

    summary: str
    witness: str
    command: str
    kind: str = "slack"
    """``slack`` (a bound holds but with room), ``confirms`` (agrees with what the seed says) or
    ``violation`` (a stated inequality fails for allowed parameters)."""

    def __post_init__(self) -> None:
        _texts(self, "summary", "witness", "command")
        _known("finding kind", self.kind, FINDING_KINDS)

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "summary": self.summary, "witness": self.witness, "command": self.command}


@dataclass(frozen=True)
class Statement:
    """One numbered statement of a seed and how dpledger checks it."""

    id: str
    seed: str
    statement: str
    check: str
    tests: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()

    def __post_init__(self) -> None:
        _texts(self, "id", "statement", "tests", "commands")
        _known("seed", self.seed, SEED_FILES)
        _known("check kind", self.check, CHECK_KINDS)
        for node in self.tests:
            if not NODE_ID.fullmatch(node):
                raise ValueError(f"malformed test node id {node!r} (wanted tests/<path>/test_<file>.py::test_<name>)")
        repeated = sorted({node for node in self.tests if self.tests.count(node) > 1})
        if repeated:
            raise ValueError(f"test {repeated[0]!r} is listed twice")

    @property
    def key(self) -> str:
        """Unique across seeds (ids repeat between the two seeds)."""
        return f"{self.seed}:{self.id}"

    def test_status(self, results: Mapping[str, str] | None) -> str:
        """What the last run says about this statement's tests (``not run`` without a run)."""
        if not self.tests:
            return "no tests"
        if results is None or any(node not in results for node in self.tests):
            return "not run"
        outcomes = {results[node] for node in self.tests}
        if outcomes & {"failed", "error", "not collected"}:
            return "failed"
        return "passed" if outcomes == {"passed"} else "skipped"

    def status(self, results: Mapping[str, str] | None) -> str:
        """The statement's status: ``cited``, ``not checked``, ``not run``, ``passed``, ``failed``,
        ``skipped``; a definition with tests reports its tests' status."""
        if self.check == "cited":
            return "cited"
        if not self.tests:
            return "not checked"
        return self.test_status(results)

    def to_dict(self, results: Mapping[str, str] | None) -> dict[str, Any]:
        return {
            "id": self.id, "seed": self.seed, "seed_file": SEED_FILES[self.seed], "key": self.key,
            "statement": self.statement, "check": self.check, "status": self.status(results),
            "test_status": self.test_status(results), "tests": list(self.tests), "commands": list(self.commands),
            "findings": [f.to_dict() for f in self.findings],
        }


def _table(table: object, fields: Mapping[str, type], optional: Iterable[str] = ()) -> dict[str, Any]:
    """``table`` checked against its fields: no unknown key, none missing but the optional ones,
    each value of its field's TOML type (``str`` a string, ``list`` an array)."""
    if not isinstance(table, dict):
        raise ValueError(f"expected a table, found {table!r}")
    for key in table:
        _known("key", key, fields)
    for key, kind in fields.items():
        if key not in table and key not in optional:
            raise ValueError(f"missing key {key!r}")
        if key in table and not isinstance(table[key], kind):
            raise ValueError(f"{key!r} holds {table[key]!r}, not a {'string' if kind is str else 'list'}")
    return table


def _read(path: Traversable, fields: Mapping[str, type]) -> dict[str, Any]:
    """The TOML file at ``path``, its top level checked against ``fields``."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    try:
        return _table(data, fields)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def _findings(tables: Iterable[object]) -> tuple[Finding, ...]:
    """``[[finding]]`` tables as findings; a problem names the finding by its number."""
    findings = []
    for number, table in enumerate(tables, 1):
        try:
            fields = _table(table, {"kind": str, "summary": str, "witness": str, "command": str})
            findings.append(Finding(fields["summary"], fields["witness"], fields["command"], fields["kind"]))
        except ValueError as error:
            raise ValueError(f"finding #{number}: {error}") from None
    return tuple(findings)


def load_findings(path: Traversable) -> tuple[Finding, ...]:
    """The findings of a data file of ``[[finding]]`` tables (``external.toml``), validated."""
    tables = _read(path, {"finding": list})["finding"]
    try:
        return _findings(tables)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def load_statements(path: Traversable) -> tuple[Statement, ...]:
    """The statements of one seed's data file ``seed_<seed>.toml`` of ``[[statement]]`` tables,
    validated (the rules are in the module docstring); a problem is a ValueError naming the file,
    the statement (its id, or its number in the file) and the problem."""
    seed = path.name.removeprefix("seed_").removesuffix(".toml")
    if path.name != f"seed_{seed}.toml" or seed not in SEED_FILES:
        raise ValueError(f"{path}: a seed's data file is named seed_<seed>.toml with a seed of {', '.join(SEED_FILES)}")
    statements: list[Statement] = []
    first: dict[str, int] = {}
    fields = {"id": str, "statement": str, "check": str, "tests": list, "commands": list, "findings": list}
    for number, table in enumerate(_read(path, {"statement": list})["statement"], 1):
        name = table.get("id") if isinstance(table, dict) else None
        where = f"{path}: statement {name!r}" if isinstance(name, str) else f"{path}: statement #{number}"
        try:
            entry = _table(table, fields, optional=("tests", "commands", "findings"))
            if entry["id"] in first:
                raise ValueError(f"duplicate id (statement #{first[entry['id']]} has it too)")
            first[entry["id"]] = number
            statements.append(Statement(entry["id"], seed, entry["statement"], entry["check"],
                                        tuple(entry.get("tests", ())), tuple(entry.get("commands", ())),
                                        _findings(entry.get("findings", ()))))
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    return tuple(statements)


REGISTRY: tuple[Statement, ...] = tuple(statement for seed in SEED_FILES
                                        for statement in load_statements(STATEMENTS_DIR / f"seed_{seed}.toml"))
"""Every statement of both seeds, seed by seed in :data:`SEED_FILES` order, each in its seed's order."""

EXTERNAL_FINDINGS: tuple[Finding, ...] = load_findings(STATEMENTS_DIR / "external.toml")
"""Findings about tools the project cites, not about the seeds."""


def default_status_file() -> Path:
    """Where ``dpledger proofs --run`` records outcomes by default (the user's cache)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "dpledger" / "proofs-status.json"


def load_results(path: Path) -> dict[str, str] | None:
    """Test outcomes recorded by the last run (None when there is no status file)."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        results = data["results"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise ValueError(f"status file {path} is not a dpledger proofs status file: {error}") from None
    if not isinstance(results, dict) or any(v not in TEST_OUTCOMES for v in results.values()):
        raise ValueError(f"status file {path} has outcomes outside {TEST_OUTCOMES}")
    return results


def select(only: Iterable[str] | None) -> tuple[Statement, ...]:
    """The statements named by ``only`` (``Lemma 6.2`` or ``000:Lemma 6.2``); all when None."""
    if not only:
        return REGISTRY
    wanted = set(only)
    chosen = tuple(s for s in REGISTRY if s.id in wanted or s.key in wanted)
    unknown = wanted - {s.id for s in chosen} - {s.key for s in chosen}
    if unknown:
        raise ValueError(f"no statement {min(unknown)!r} in the registry (ids look like 'Lemma 6.2' or "
                         "'000:Lemma 6.2')")
    return chosen


def summary(statements: Iterable[Statement], results: Mapping[str, str] | None) -> dict[str, dict[str, int]]:
    """Counts per seed by check kind and by status."""
    counts: dict[str, dict[str, int]] = {}
    for s in statements:
        for axis, value in (("check", s.check), ("status", s.status(results))):
            table = counts.setdefault(f"{s.seed} {axis}", {})
            table[value] = table.get(value, 0) + 1
    return counts


def defined_tests(root: Path, nodes: Iterable[str]) -> set[str]:
    """The node ids among ``nodes`` whose test function exists under ``root`` (read with ``ast``,
    without importing or collecting, so a broken neighbour file cannot hide the others)."""
    functions: dict[str, set[str]] = {}
    found = set()
    for node in nodes:
        path, _, name = node.partition("::")
        if path not in functions:
            file = root / path
            try:
                tree = ast.parse(file.read_text()) if file.exists() else ast.Module(body=[], type_ignores=[])
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            functions[path] = {f.name for f in tree.body
                               if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test_")}
        if name in functions[path]:
            found.add(node)
    return found
