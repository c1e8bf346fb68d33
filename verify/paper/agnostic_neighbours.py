"""Worst-case neighbours of the seed-002 learners, and the checks that run their code on them.

The privacy proofs of Theorems 2.1, D.1, 3.1 and 4.1 bound the change of each noisy statistic when
one record is substituted. :func:`probe` checks those bounds on the code itself: it records a fit
(:func:`dpledger.learners.releases.record`), builds neighbouring datasets, refits each one under the
recorded history (:func:`dpledger.learners.releases.replay`: every release forced to its recorded
output, so later statistics see the same iterates) and compares, release by release, the change of
the pre-noise statistic with the sensitivity the release's event declares
(:func:`dpledger.verify.audit.conformance.sensitivity_rows`).

The neighbours are the worst cases the substitution relation allows, for every block of the
learner's value-independent partition (noted by :func:`dpledger.learners.agnostic.blocks.partition`):

* the block's record of largest norm with its label flipped (for clipped statistics of y·φ(x)
  this moves the block mean by 2B/b, the proofs' bound: Theorem 3.1 step 5, Lemma B.4's
  subgradients at w = 0, Algorithm 3 step 11, and every error count by 1);
* that record replaced by its mirror −x at 100 times its norm, and by random records of 100 times
  the sample's largest norm with random labels (a small search, kept at its best);
* for Algorithm 3's gradient steps (Theorem 4.1), a crafted record x = c·(t·w_k + √(R² − t²)·v),
  v ⊥ w_k, whose clipped version lies exactly on the ramp's centre ⟨w_k, x⟩ = t along the iterate
  w_k that step reads (w_k is released, so it is the same on both neighbours): its per-example
  gradient has the largest norm R/(2s), and flipping its label moves the block mean by R/(s·b).

Besides the sensitivity rows, :func:`probe` reports whether every fitted attribute is the same on
both neighbours under the forced history (the model must be post-processing of the releases),
whether any release is missing from the ledger, and whether one substitution moved releases in two
children of a parallel composition (two releases reading one block).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpledger.accountant.events import Event, ParallelComposition
from dpledger.learners import releases
from dpledger.learners.releases import ReplayMismatch, Tape
from dpledger.verify.audit.conformance import (
    SensitivityRow,
    declared_sensitivity,
    events_of,
    sensitivity_rows,
    unaccounted,
)

LEDGER = ("trace_", "derivation_", "guarantee_")


@dataclass(frozen=True)
class Neighbour:
    """A neighbouring pair: ``first`` (None: the recorded dataset) and ``second``, one record apart."""

    name: str
    record: int
    second: tuple[np.ndarray, np.ndarray]
    first: tuple[np.ndarray, np.ndarray] | None = None


@dataclass
class ProbeReport:
    """What :func:`probe` found.

    Attributes:
        rows: Per neighbour, the sensitivity rows of every release.
        releases: The recorded run's releases.
        exceeded: (neighbour name, row) for every release that moved beyond its declaration.
        model_changes: Neighbour names whose fitted attributes differ under the forced history.
        mismatches: Neighbour names whose replay made releases of another shape, with the reason.
        shared_blocks: Neighbour names that moved releases in two children of a parallel composition.
        unaccounted: Positions of releases whose event is not in the ledger.
    """

    rows: dict[str, list[SensitivityRow]] = field(default_factory=dict)
    releases: Sequence[releases.Release] = ()
    exceeded: list[tuple[str, SensitivityRow]] = field(default_factory=list)
    model_changes: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    shared_blocks: list[str] = field(default_factory=list)
    unaccounted: list[int] = field(default_factory=list)

    def largest_ratios(self) -> dict[int, float]:
        """The largest observed/declared ratio of each release over all neighbours."""
        best: dict[int, float] = {}
        for rows in self.rows.values():
            for row in rows:
                best[row.position] = max(best.get(row.position, 0.0), row.ratio)
        return best

    def group_ratios(self) -> dict[tuple[str, float], float]:
        """The largest ratio of each group of releases sharing a kind and a declared sensitivity
        (the steps of one regression, the selections of one block size)."""
        groups: dict[tuple[str, float], float] = {}
        for position, ratio in self.largest_ratios().items():
            release = self.releases[position]
            key = (release.kind, float(declared_sensitivity(release)))
            groups[key] = max(groups.get(key, 0.0), ratio)
        return groups

    @property
    def clean(self) -> bool:
        """No release beyond its declaration, no model change, no mismatch, no shared block,
        nothing unaccounted."""
        return not (
            self.exceeded or self.model_changes or self.mismatches or self.shared_blocks or self.unaccounted
        )


def fitted_state(learner: Any) -> dict[str, Any]:
    """Every fitted attribute (name ending in ``_``) but the ledger."""
    return {name: value for name, value in vars(learner).items() if name.endswith("_") and name not in LEDGER}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(
            np.shape(a) == np.shape(b) and np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if type(a) is type(b) and type(a).__eq__ is object.__eq__ and hasattr(a, "__dict__"):
        return _same(vars(a), vars(b))  # objects without an equality of their own: by their state
    return bool(a == b)


def _fit(make: Callable[[], Any], X: np.ndarray, y: np.ndarray, history: Tape | None) -> tuple[Tape, Any]:
    session = releases.record() if history is None else releases.replay(history)
    with session as tape:
        learner = make().fit(X, y)
    return tape, learner


def _replace(
    X: np.ndarray, y: np.ndarray, record: int, x: np.ndarray, label: Any
) -> tuple[np.ndarray, np.ndarray]:
    X2, y2 = X.copy(), y.copy()
    X2[record], y2[record] = x, label
    return X2, y2


def _other(labels: np.ndarray, label: Any) -> Any:
    values = np.unique(labels)
    return values[0] if label == values[-1] else values[-1]


def block_neighbours(
    X: np.ndarray, y: np.ndarray, tape: Tape, *, search: int = 2, seed: int = 0
) -> list[Neighbour]:
    """The generic worst cases of every block of the recorded run's partitions (module doc).

    Args:
        X: The recorded run's features.
        y: Its labels.
        tape: Its releases and partitions.
        search: Random extreme replacements tried per block.
        seed: Seed of the random replacements.

    Returns:
        Neighbours of (X, y): per block a label flip of its largest record, its far mirror, and
        ``search`` random far records.
    """
    rng = np.random.default_rng(seed)
    norms = np.linalg.norm(X, axis=1)
    far = 100 * float(norms.max(initial=1.0))
    found = []
    for p, partition in enumerate(tape.partitions):
        for b, block in enumerate(partition):
            if block.size == 0:
                continue
            i = int(block[np.argmax(norms[block])])
            tag = f"partition {p} block {b} record {i}"
            found.append(Neighbour(f"{tag}: label flipped", i, _replace(X, y, i, X[i], _other(y, y[i]))))
            mirror = -X[i] * (far / max(float(norms[i]), 1e-300))
            found.append(Neighbour(f"{tag}: far mirror", i, _replace(X, y, i, mirror, y[i])))
            for s in range(search):
                direction = rng.normal(size=X.shape[1])
                x = far * direction / np.linalg.norm(direction)
                label = y[i] if rng.integers(2) else _other(y, y[i])
                found.append(Neighbour(f"{tag}: far random {s}", i, _replace(X, y, i, x, label)))
    return found


def ramp_centre_neighbours(X: np.ndarray, y: np.ndarray, tape: Tape, learner: Any) -> list[Neighbour]:
    """Algorithm 3's crafted worst cases (module doc): per gradient step, a record on the ramp's
    centre along the iterate the step reads, with either label.

    Args:
        X: The recorded run's features.
        y: Its labels.
        tape: Its releases and partitions (partition 0: validation, then per run the blocks
            [initial, threshold, step 1, …, step T]).
        learner: The fitted :class:`~dpledger.learners.agnostic.semi_agnostic.PrivateSemiAgnosticLearner`.

    Returns:
        Per gradient step, a neighbour pair in the block the step reads and in the blocks around it.
    """
    rng = np.random.default_rng(1)
    _, *rest = tape.partitions[0]
    runs, points = learner.iterates_.shape[:2]
    steps = points - 1
    radius = float(learner.clip_radius_)
    positive, negative = np.unique(y)[-1], np.unique(y)[0]
    found = []
    for j in range(runs):
        t = float(learner.run_thresholds_[j])
        if abs(t) >= radius:
            continue
        for k in range(steps):
            w = learner.iterates_[j, k]
            v = rng.normal(size=w.size)
            v -= (v @ w) * w
            v /= np.linalg.norm(v)
            x = 10 * (t * w + math.sqrt(radius**2 - t**2) * v)
            # in the block step k reads, and in the run's blocks around it (a step reading another
            # block than its own then moves two releases of the run's parallel composition)
            own = 2 + k
            for b in sorted({own, 0, 1, own - 1, min(own + 1, steps + 1)}):
                i = int(rest[j * (steps + 2) + b][0])
                first = _replace(X, y, i, x, positive)
                name = f"run {j} step {k + 1}: ramp centre in block {b}"
                found.append(Neighbour(name, i, _replace(X, y, i, x, negative), first))
    return found


def _children_holding(trace: Event) -> list[list[list[Event]]]:
    """For each parallel composition of the trace, the events under each of its children."""
    return [
        [list(events_of(child)) for child in node.children]
        for node in events_of(trace)
        if isinstance(node, ParallelComposition)
    ]


def _holds(nodes: list[Event], event: Event) -> bool:
    return any(node is event for node in nodes) or any(node == event for node in nodes)


def probe(
    make: Callable[[], Any],
    X: np.ndarray,
    y: np.ndarray,
    neighbours: Callable[[np.ndarray, np.ndarray, Tape, Any], list[Neighbour]] | None = None,
    *,
    search: int = 2,
) -> ProbeReport:
    """Run a learner's own code on worst-case neighbours under a forced history (module doc).

    Args:
        make: Builds a fresh learner (same parameters and ``random_state`` every time).
        X: Features of the recorded dataset.
        y: Its labels.
        neighbours: Extra learner-specific neighbour builders (e.g. :func:`ramp_centre_neighbours`);
            the block neighbours are always tried.
        search: Random far replacements per block.

    Returns:
        The :class:`ProbeReport`.
    """
    tape, learner = _fit(make, X, y, None)
    report = ProbeReport(releases=tuple(tape), unaccounted=unaccounted(tape, learner.trace_))
    state = fitted_state(learner)
    parallel = _children_holding(learner.trace_)
    pairs = block_neighbours(X, y, tape, search=search)
    if neighbours is not None:
        pairs += neighbours(X, y, tape, learner)
    for pair in pairs:
        try:
            base, base_learner = (tape, learner) if pair.first is None else _fit(make, *pair.first, tape)
            other, other_learner = _fit(make, *pair.second, tape)
            rows = sensitivity_rows(base, other)
        except (ReplayMismatch, ValueError) as error:
            report.mismatches.append(f"{pair.name}: {error}")
            continue
        report.rows[pair.name] = rows
        report.exceeded += [(pair.name, row) for row in rows if row.exceeds()]
        if (
            not all(
                _same(value, fitted_state(other_learner).get(name))
                for name, value in fitted_state(base_learner).items()
            )
            or fitted_state(other_learner).keys() != state.keys()
        ):
            report.model_changes.append(pair.name)
        moved = [base[row.position].event for row in rows if row.observed > 0]
        for children in parallel:
            holding = [{c for c, nodes in enumerate(children) if _holds(nodes, e)} for e in moved]
            holding = [held for held in holding if held]
            if holding and not set.intersection(*holding):
                report.shared_blocks.append(pair.name)
                break
    return report
