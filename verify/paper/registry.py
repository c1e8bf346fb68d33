"""The proof registry: every numbered statement of both seeds split into the parts it claims,
how dpledger checks each part, the tightness of every audited bound, and the status of each from
the last recorded ``dpledger proofs --run``.

A statement is data (:class:`Statement`): its id as the seed numbers it, the seed, one line saying
what it claims, whether the seed only cites it, and its parts (:class:`Part`) — privacy, utility,
sample size, structure or definition (:data:`PART_KINDS`) — each with its own check kind
(:data:`CHECK_KINDS`), the pytest node ids that check exactly that part, or, when ``unchecked``, a
note saying why. Status is never claimed, only recorded: a part with tests is ``not run`` without
a recorded run, ``passed`` when every one of its tests passed; a statement is ``passed`` only when
every part is, ``partial`` when some part passed and others are not checked (they are named).
Statements the paper only cites are ``cited`` whatever their tests do, and never counted.

Tightness (:class:`Tightness`): for a bound an exact or Monte Carlo audit reaches, the measured
privacy loss, the bound on the same instance, their ratio and the command that prints them.
Findings — a stated inequality that fails for allowed parameters, a constant with slack, a constant
dpledger substitutes that is too small for its bound, a release no lemma covers — are recorded with a witness and the command that prints it; findings about
cited tools are kept apart in :data:`EXTERNAL_FINDINGS`.

The data lives in TOML files in the ``statements/`` folder next to this module (installed as
package data, :data:`STATEMENTS_DIR`): ``seed_000.toml`` and ``seed_002.toml`` hold each seed's
statements in the seed's order, and ``external.toml`` the findings about cited tools; each file's
header says its format. This module reads them with :mod:`tomllib` when it is imported
(:func:`load_statements`, :func:`load_findings`) and builds :data:`REGISTRY` and
:data:`EXTERNAL_FINDINGS` from nothing else. Loading rejects, as a ValueError naming the file, the
statement (and the part, tightness or finding by number) and the problem: a file that is not TOML,
a file name that is not ``seed_<seed>.toml`` for a seed of :data:`SEED_FILES`, unknown or missing
keys, values of the wrong type, empty text, duplicate ids, a statement without parts, unknown part,
check, audit and finding kinds, a checked part without tests (an empty part), an unchecked part
with tests or without a note, a tightness whose measurement exceeds its bound or names a part the
statement lacks (or no part of that kind checked by its audit: an exact tightness needs an
``exact`` part of its kind, a Monte Carlo one an ``empirical`` part), and test node ids that are
not ``tests/<path>/test_<file>.py::test_<name>`` or are listed twice in a statement. The value rules are the model's own (the dataclasses check them
when built), so no statement escapes them.

The recorded run (:class:`Run`, :func:`load_run`) carries, per entry, the commit it checked,
whether the tree had uncommitted changes, and its date (a partial run replaces only its entries);
in a checkout it is the committed :data:`RECORDED_STATUS_FILE` (:func:`default_status_file`), and
an entry recording an outcome of a test function that no longer exists is refused.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

SEED_FILES = {"000": "000_35dad69f085f61dd.txt", "002": "002_ea0b89babd8f1a23.txt"}
"""Seed short names and their files in ``shared/seeds``."""

CHECK_KINDS = {
    "exact": "exact on small instances (enumerated output distributions, certified arithmetic)",
    "property": "property-based or swept over parameter ranges",
    "empirical": "empirical on the learners (synthetic data, fixed seeds)",
    "chain": "accounting chain (the accountant derives the guarantee from the trace and checks the claim)",
    "implementation": "a definition or algorithm: its implementation is checked against the definition",
    "statistical": (
        "a probability claim as a statistical test: R independent runs of the part's trials, passed only "
        "when a one-sided Clopper–Pearson bound on the failure rate (95 % confidence) is below the claim's β "
        "(dpledger.verify.paper.utility_trials; R, the failures, the bound and the time in utility-trials.json)"
    ),
    "unchecked": "not checked by dpledger (the part's note says why, and what is checked instead if anything)",
}
"""How a part is checked (:attr:`Part.check`)."""

PART_KINDS = {
    "privacy": "a differential-privacy guarantee",
    "utility": "an accuracy or error guarantee",
    "sample size": "a sample-size or parameter requirement (the arithmetic of the statement's choices)",
    "structure": "a combinatorial, geometric or probabilistic property the proofs use",
    "definition": "a definition or algorithm: no claim of its own",
}
"""What a part of a statement claims (:attr:`Part.kind`)."""

AUDIT_CHECKS = {"exact": "exact", "monte carlo": "empirical"}
"""The audits a tightness can come from (:attr:`Tightness.audit`) and the check kind of the part
whose bound each measures: a statement may check one claim several ways, one part per check kind
(an exact audit, a Monte Carlo run, the accountant's rule), and a tightness belongs to the part its
audit checks."""

FINDING_KINDS = ("slack", "confirms", "violation", "too small")
"""What a finding can say (:attr:`Finding.kind`)."""

TEST_OUTCOMES = ("passed", "failed", "skipped", "error", "not collected")

MUTATION_GATES = ("mutants survive", "mutants stale", "mutants not run")
"""What a privacy part whose tests passed is instead, when the mutation record does not show its
tests killing the privacy mutants of the code it rests on (:mod:`dpledger.verify.paper.mutation_runs`):
some survive, the record is stale, or there is none."""

PART_STATUSES = ("passed", "failed", "skipped", "not run", "not checked", *MUTATION_GATES)
"""A part's status: its tests' outcomes in the recorded run, or ``not checked``; a privacy part
that passed but whose statement's mutation gate is not ``killed`` takes the gate instead."""

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


def _node_ids(tests: tuple[str, ...]) -> None:
    """Each test is a well-formed node id, none listed twice."""
    for node in tests:
        if not NODE_ID.fullmatch(node):
            raise ValueError(
                f"malformed test node id {node!r} (wanted tests/<path>/test_<file>.py::test_<name>)"
            )
    repeated = sorted({node for node in tests if tests.count(node) > 1})
    if repeated:
        raise ValueError(f"test {repeated[0]!r} is listed twice")


def tests_status(tests: tuple[str, ...], results: Mapping[str, str] | None) -> str:
    """What the recorded run says about ``tests``: ``not run`` when it lacks one of them (or there
    is no run), ``failed`` when one failed, errored or was not collected, ``skipped`` when one was
    skipped and none failed, else ``passed``."""
    if results is None or any(node not in results for node in tests):
        return "not run"
    outcomes = {results[node] for node in tests}
    if outcomes & {"failed", "error", "not collected"}:
        return "failed"
    return "passed" if outcomes == {"passed"} else "skipped"


@dataclass(frozen=True)
class Finding:
    """Something a check found: what, the witness, and the command that prints the witness."""

    summary: str
    witness: str
    command: str
    kind: str = "slack"
    """``slack`` (a bound holds but with room), ``confirms`` (agrees with what the seed says),
    ``violation`` (a stated inequality fails for allowed parameters) or ``too small`` (a constant
    dpledger substitutes for one the seed hides is too small for the bound it stands in)."""

    def __post_init__(self) -> None:
        _texts(self, "summary", "witness", "command")
        _known("finding kind", self.kind, FINDING_KINDS)

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "summary": self.summary, "witness": self.witness, "command": self.command}


@dataclass(frozen=True)
class Part:
    """One thing a statement claims (privacy, utility, sample size, structure, or the definition
    itself) and how dpledger checks it: a checked part names the tests that check exactly this
    claim; an ``unchecked`` part names none and its ``note`` says why (and what, if anything, is
    checked in its place — a weaker property is its own part)."""

    kind: str
    claim: str
    check: str
    tests: tuple[str, ...] = ()
    note: str = ""
    trials: tuple[str, ...] = ()
    """For a ``statistical`` part: the names of the trials its tests run
    (:data:`dpledger.verify.paper.utility_trials.TRIALS`)."""

    def __post_init__(self) -> None:
        _texts(self, "claim", "tests", "trials")
        if (self.check == "statistical") != bool(self.trials):
            raise ValueError("a statistical part names its trials, and only a statistical part does")
        _known("part kind", self.kind, PART_KINDS)
        _known("check kind", self.check, CHECK_KINDS)
        _node_ids(self.tests)
        if self.check == "unchecked" and self.tests:
            raise ValueError(f"an unchecked {self.kind} part names tests (give them a part of their own)")
        if self.check == "unchecked" and not self.note.strip():
            raise ValueError(f"an unchecked {self.kind} part needs a note saying why it is not checked")
        if self.check != "unchecked" and not self.tests:
            raise ValueError(
                f"a {self.check} {self.kind} part names no test (an empty part: mark it unchecked)"
            )

    def status(self, results: Mapping[str, str] | None, gate: str | None = None) -> str:
        """``not checked`` for an unchecked part, else its tests' status (:func:`tests_status`);
        a privacy part whose tests passed takes ``gate`` when that is one of :data:`MUTATION_GATES`
        (its statement's mutation gate; None or ``killed``: no change)."""
        if self.check == "unchecked":
            return "not checked"
        status = tests_status(self.tests, results)
        return gate if status == "passed" and self.kind == "privacy" and gate in MUTATION_GATES else status

    def to_dict(self, results: Mapping[str, str] | None, gate: str | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "claim": self.claim,
            "check": self.check,
            "status": self.status(results, gate),
            "tests": list(self.tests),
            "note": self.note,
            "trials": list(self.trials),
        }


@dataclass(frozen=True)
class Tightness:
    """How tight a bound is on one instance: the privacy loss an exact or Monte Carlo audit
    measured, the statement's bound for that instance, and the command that prints both."""

    part: str
    """The kind of the part whose bound this is (a :data:`PART_KINDS` key of the statement)."""
    instance: str
    measured: float
    bound: float
    bound_text: str
    audit: str
    """``exact`` (enumerated output distributions) or ``monte carlo``."""
    command: str

    def __post_init__(self) -> None:
        _texts(self, "part", "instance", "bound_text", "audit", "command")
        _known("audit", self.audit, AUDIT_CHECKS)
        for field in ("measured", "bound"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{field!r} holds {value!r}, not a finite number")
        if self.bound <= 0 or self.measured < 0:
            raise ValueError(
                f"measured {self.measured} and bound {self.bound}: wanted 0 ≤ measured, 0 < bound"
            )
        if self.measured > self.bound:
            raise ValueError(
                f"measured {self.measured} exceeds the bound {self.bound}: a violation is a finding"
            )

    @property
    def ratio(self) -> float:
        """Measured privacy loss over the bound (1: tight; small: the constant is slack)."""
        return self.measured / self.bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "instance": self.instance,
            "audit": self.audit,
            "measured": self.measured,
            "bound": self.bound,
            "bound_text": self.bound_text,
            "ratio": round(self.ratio, 4),
            "command": self.command,
        }


@dataclass(frozen=True)
class Statement:
    """One numbered statement of a seed, split into the parts it claims (:class:`Part`).

    A statement the paper only cites (``cited``) is never counted: its parts' tests, if any,
    check dpledger's implementation of the cited result, not the result."""

    id: str
    seed: str
    statement: str
    parts: tuple[Part, ...]
    cited: bool = False
    commands: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    tightness: tuple[Tightness, ...] = ()

    def __post_init__(self) -> None:
        _texts(self, "id", "statement", "commands")
        _known("seed", self.seed, SEED_FILES)
        if not self.parts:
            raise ValueError("a statement has at least one part")
        _node_ids(self.tests)
        kinds = [part.kind for part in self.parts]
        for bound in self.tightness:
            if bound.part not in kinds:
                raise ValueError(f"tightness of a {bound.part!r} part, which the statement does not have")
            check = AUDIT_CHECKS[bound.audit]
            if not any(part.kind == bound.part and part.check == check for part in self.parts):
                raise ValueError(
                    f"tightness by a {bound.audit!r} audit of a {bound.part!r} part, but no "
                    f"{bound.part} part is checked {check!r}"
                )

    @property
    def key(self) -> str:
        """Unique across seeds (ids repeat between the two seeds)."""
        return f"{self.seed}:{self.id}"

    @property
    def tests(self) -> tuple[str, ...]:
        """Every test of every part, once each (a test shared by two parts is one test twice:
        refused — a test checks one part)."""
        return tuple(node for part in self.parts for node in part.tests)

    def test_status(self, results: Mapping[str, str] | None) -> str:
        """What the recorded run says about all of the statement's tests (``no tests`` without any)."""
        return tests_status(self.tests, results) if self.tests else "no tests"

    def unchecked(
        self, results: Mapping[str, str] | None, gates: Mapping[str, str] | None = None
    ) -> tuple[Part, ...]:
        """The parts not (yet) shown to hold: every part whose status is not ``passed``."""
        gate = self.gate(gates)
        return tuple(part for part in self.parts if part.status(results, gate) != "passed")

    def gate(self, gates: Mapping[str, str] | None) -> str | None:
        """This statement's mutation gate in ``gates`` (statement key → gate), if any."""
        return None if gates is None else gates.get(self.key)

    def status(self, results: Mapping[str, str] | None, gates: Mapping[str, str] | None = None) -> str:
        """``cited``; ``passed`` when every part passed; ``failed`` when a part's tests failed;
        ``not run`` when a checked part has no recorded outcome; then a mutation gate of
        :data:`MUTATION_GATES` when a privacy part has one (``gates``: statement key → gate);
        ``partial`` when some parts passed and the others are not checked or skipped; ``not
        checked`` when no part is checked."""
        if self.cited:
            return "cited"
        gate = self.gate(gates)
        statuses = {part.status(results, gate) for part in self.parts}
        for status in ("failed", "not run", *MUTATION_GATES):
            if status in statuses:
                return status
        if statuses == {"passed"}:
            return "passed"
        return (
            "partial" if "passed" in statuses else "not checked" if statuses == {"not checked"} else "skipped"
        )

    def to_dict(
        self, results: Mapping[str, str] | None, gates: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        return {
            "id": self.id,
            "seed": self.seed,
            "seed_file": SEED_FILES[self.seed],
            "key": self.key,
            "statement": self.statement,
            "cited": self.cited,
            "status": self.status(results, gates),
            "unchecked_parts": [] if self.cited else [part.kind for part in self.unchecked(results, gates)],
            "parts": [part.to_dict(results, self.gate(gates)) for part in self.parts],
            "tests": list(self.tests),
            "commands": list(self.commands),
            "findings": [f.to_dict() for f in self.findings],
            "tightness": [t.to_dict() for t in self.tightness],
        }


_TOML_TYPES = {str: "string", list: "list", bool: "boolean", float: "number"}


def _table(table: object, fields: Mapping[str, type], optional: Iterable[str] = ()) -> dict[str, Any]:
    """``table`` checked against its fields: no unknown key, none missing but the optional ones,
    each value of its field's TOML type (``str`` a string, ``list`` an array, ``bool`` a boolean,
    ``float`` a number: a TOML float, or an integer)."""
    if not isinstance(table, dict):
        raise ValueError(f"expected a table, found {table!r}")
    for key in table:
        _known("key", key, fields)
    for key, kind in fields.items():
        if key not in table and key not in optional:
            raise ValueError(f"missing key {key!r}")
        value = table.get(key)
        number = kind is float and isinstance(value, int) and not isinstance(value, bool)
        if key in table and not (isinstance(value, kind) or number):
            raise ValueError(f"{key!r} holds {table[key]!r}, not a {_TOML_TYPES[kind]}")
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


def _numbered(
    tables: Iterable[dict[str, Any]], what: str, build: Callable[[dict[str, Any]], T]
) -> tuple[T, ...]:
    """Each of ``tables`` built by ``build``; a problem names the table as ``what #number``."""
    built = []
    for number, table in enumerate(tables, 1):
        try:
            built.append(build(table))
        except ValueError as error:
            raise ValueError(f"{what} #{number}: {error}") from None
    return tuple(built)


def _finding(table: object) -> Finding:
    fields = _table(table, {"kind": str, "summary": str, "witness": str, "command": str})
    return Finding(fields["summary"], fields["witness"], fields["command"], fields["kind"])


def _findings(tables: Iterable[dict[str, Any]]) -> tuple[Finding, ...]:
    """``[[finding]]`` tables as findings; a problem names the finding by its number."""
    return _numbered(tables, "finding", _finding)


def _part(table: object) -> Part:
    fields = _table(
        table,
        {"kind": str, "claim": str, "check": str, "tests": list, "note": str, "trials": list},
        optional=("tests", "note", "trials"),
    )
    return Part(
        fields["kind"],
        fields["claim"],
        fields["check"],
        tuple(fields.get("tests", ())),
        fields.get("note", ""),
        tuple(fields.get("trials", ())),
    )


def _tightness(table: object) -> Tightness:
    fields = _table(
        table,
        {
            "part": str,
            "instance": str,
            "measured": float,
            "bound": float,
            "bound_text": str,
            "audit": str,
            "command": str,
        },
    )
    return Tightness(
        fields["part"],
        fields["instance"],
        float(fields["measured"]),
        float(fields["bound"]),
        fields["bound_text"],
        fields["audit"],
        fields["command"],
    )


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
        raise ValueError(
            f"{path}: a seed's data file is named seed_<seed>.toml with a seed of {', '.join(SEED_FILES)}"
        )
    statements: list[Statement] = []
    first: dict[str, int] = {}
    fields = {
        "id": str,
        "statement": str,
        "cited": bool,
        "parts": list,
        "commands": list,
        "findings": list,
        "tightness": list,
    }
    for number, table in enumerate(_read(path, {"statement": list})["statement"], 1):
        name = table.get("id") if isinstance(table, dict) else None
        where = f"{path}: statement {name!r}" if isinstance(name, str) else f"{path}: statement #{number}"
        try:
            entry = _table(table, fields, optional=("cited", "commands", "findings", "tightness"))
            if entry["id"] in first:
                raise ValueError(f"duplicate id (statement #{first[entry['id']]} has it too)")
            first[entry["id"]] = number
            statements.append(
                Statement(
                    entry["id"],
                    seed,
                    entry["statement"],
                    _numbered(entry["parts"], "part", _part),
                    entry.get("cited", False),
                    tuple(entry.get("commands", ())),
                    _findings(entry.get("findings", ())),
                    _numbered(entry.get("tightness", ()), "tightness", _tightness),
                )
            )
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    return tuple(statements)


REGISTRY: tuple[Statement, ...] = tuple(
    statement for seed in SEED_FILES for statement in load_statements(STATEMENTS_DIR / f"seed_{seed}.toml")
)
"""Every statement of both seeds, seed by seed in :data:`SEED_FILES` order, each in its seed's order."""

EXTERNAL_FINDINGS: tuple[Finding, ...] = load_findings(STATEMENTS_DIR / "external.toml")
"""Findings about tools the project cites, not about the seeds."""


REPO_ROOT = Path(__file__).resolve().parents[2]
"""The source tree when dpledger runs from a checkout (editable install); elsewhere a folder
without ``tests/``."""

RECORDED_STATUS_FILE = "reports/proofs-status.json"
"""The committed record of the last full run, relative to the source tree."""


def in_checkout() -> bool:
    """Whether dpledger runs from a source checkout (its ``tests/`` and ``reports/`` present)."""
    return (REPO_ROOT / "tests").is_dir() and (REPO_ROOT / "reports").is_dir()


def default_status_file() -> Path:
    """Where ``dpledger proofs`` reads and records outcomes by default: the committed record
    :data:`RECORDED_STATUS_FILE` in a checkout, else the user's cache."""
    if in_checkout():
        return REPO_ROOT / RECORDED_STATUS_FILE
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "dpledger" / "proofs-status.json"


@dataclass(frozen=True)
class Run:
    """A recorded run of the registry's tests: outcome per test node id, and the commit (with
    whether the working tree had uncommitted changes) and UTC date of the latest run that wrote
    it (``unknown`` in a record written before they were recorded). A partial run replaces only
    the entries it ran, so each entry has its own provenance (``recorded``: node id → (commit,
    dirty, date); an entry without one has the run's)."""

    results: Mapping[str, str]
    commit: str = "unknown"
    dirty: bool = False
    date: str = "unknown"
    recorded: Mapping[str, tuple[str, bool, str]] | None = None

    def provenance(self, node: str) -> tuple[str, bool, str]:
        """(commit, dirty, date) of the entry ``node``."""
        return (self.recorded or {}).get(node, (self.commit, self.dirty, self.date))

    def describe(self) -> str:
        """``commit 0123456789ab (clean tree), 2025-01-31`` — where the outcomes come from; when
        the entries come from several runs, each of them with how many entries it holds, newest
        first."""
        groups: dict[tuple[str, bool, str], int] = {}
        for node in self.results:
            key = self.provenance(node)
            groups[key] = groups.get(key, 0) + 1
        if len(groups) <= 1:
            return _provenance_text((self.commit, self.dirty, self.date))
        ordered = sorted(groups.items(), key=lambda item: (item[0][2], item[1]), reverse=True)
        return "; ".join(f"{_provenance_text(key)} for {count} tests" for key, count in ordered)


def _provenance_text(provenance: tuple[str, bool, str]) -> str:
    commit, dirty, date = provenance
    if commit == "unknown":
        return "commit and date not recorded"
    tree = "with uncommitted changes" if dirty else "clean tree"
    return f"commit {commit[:12]} ({tree}), {date}"


def load_run(path: Path, root: Path | None = None) -> Run | None:
    """The run recorded in the status file ``path`` (None when there is no such file).

    Args:
        path: The status file.
        root: The source tree whose ``tests/`` the entries are checked against (default: the
            checkout dpledger runs from; outside a checkout, not checked).

    Raises:
        ValueError: If the file cannot be read or is not a status file, holds an unknown outcome,
            or records an outcome other than ``not collected`` for a test function that does not exist under
            ``root`` (a result of a removed or renamed test cannot stand for the current one).
    """
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        results = data["results"]
        recorded = {
            node: (str(entry["commit"]), bool(entry["dirty"]), str(entry["date"]))
            for node, entry in data.get("recorded", {}).items()
        }
        run = Run(
            results,
            str(data.get("commit", "unknown")),
            bool(data.get("dirty", False)),
            str(data.get("date", "unknown")),
            recorded or None,
        )
    except OSError as error:
        raise ValueError(f"status file {path} cannot be read: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"status file {path} is not a dpledger proofs status file: {error}") from None
    if not isinstance(results, dict) or any(v not in TEST_OUTCOMES for v in results.values()):
        raise ValueError(f"status file {path} has outcomes outside {TEST_OUTCOMES}")
    root = root if root is not None else REPO_ROOT if in_checkout() else None
    if root is not None:
        claimed = [node for node, outcome in results.items() if outcome != "not collected"]
        gone = sorted(set(claimed) - defined_tests(root, claimed))
        if gone:
            raise ValueError(
                f"status file {path} records {results[gone[0]]!r} for {gone[0]}, a test that no longer "
                f"exists under {root}"
                + (f" (and {len(gone) - 1} more)" if len(gone) > 1 else "")
                + ": remove the entry or record a full run (dpledger proofs --run)"
            )
    return run


def load_results(path: Path, root: Path | None = None) -> dict[str, str] | None:
    """Test outcomes recorded in the status file ``path`` (None when there is none; the checks of
    :func:`load_run`)."""
    run = load_run(path, root)
    return None if run is None else dict(run.results)


def select(only: Iterable[str] | None) -> tuple[Statement, ...]:
    """The statements named by ``only`` (``Lemma 6.2`` or ``000:Lemma 6.2``); all when None."""
    if not only:
        return REGISTRY
    wanted = set(only)
    chosen = tuple(s for s in REGISTRY if s.id in wanted or s.key in wanted)
    unknown = wanted - {s.id for s in chosen} - {s.key for s in chosen}
    if unknown:
        raise ValueError(
            f"no statement {min(unknown)!r} in the registry (ids look like 'Lemma 6.2' or '000:Lemma 6.2')"
        )
    return chosen


COUNTED_STATUSES = ("passed", "partial", "not checked", "failed", "not run", "skipped", *MUTATION_GATES)
"""Statement statuses in the order the counts give them (cited statements are counted apart)."""


def summary(
    statements: Iterable[Statement],
    results: Mapping[str, str] | None,
    gates: Mapping[str, str] | None = None,
) -> dict[str, dict[str, int]]:
    """Per seed: ``statements`` (how many, and how many of each status: cited apart) and ``parts``
    (how many parts of the seed's own statements have each part status, and how many parts the
    cited statements have), ``utility parts`` and ``utility statistical passed`` (the seed's own
    utility parts, and those of them checked by statistical trials that passed); ``gates``
    (statement key → mutation gate) as in :meth:`Statement.status`."""
    counts: dict[str, dict[str, int]] = {}
    for s in statements:
        seed = counts.setdefault(
            s.seed,
            {
                "statements": 0,
                **{status: 0 for status in (*COUNTED_STATUSES, "cited")},
                **{f"parts {status}": 0 for status in (*PART_STATUSES, "cited")},
                "utility parts": 0,
                "utility statistical passed": 0,
            },
        )
        seed["statements"] += 1
        seed[s.status(results, gates)] += 1
        for part in s.parts:
            status = part.status(results, s.gate(gates))
            seed["parts cited" if s.cited else f"parts {status}"] += 1
            if part.kind == "utility" and not s.cited:
                seed["utility parts"] += 1
                seed["utility statistical passed"] += part.check == "statistical" and status == "passed"
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
            functions[path] = {
                f.name
                for f in tree.body
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test_")
            }
        if name in functions[path]:
            found.add(node)
    return found
