"""White-box audit of a seed-002 learner: is every release the event its ledger says it is?

The black-box Monte Carlo audit attacks the released model; a learner whose noise is half what its
ledger declares can survive it for thousands of fits, because the selection steps after the noisy
statistic hide it. This audit reads the releases themselves through the tap
(:mod:`dpledger.learners.releases`) and asks four questions, each a verdict with its cause:

1. **Noise** — does the noise each output carries follow the declared discrete Gaussian / discrete
   Laplace? Fits on fresh seeds until every noise family has ``noise_samples`` coordinates, then
   χ² and the scale test (:func:`dpledger.verify.audit.conformance.noise_conformance`).
2. **Selections** — do the exponential mechanism's draws follow exp(ε·score/(2Δ)) with the event's ε?
   Each selection of the first fit (at most :data:`MAX_SELECTIONS`) is drawn again ``redraws`` times
   by the function the learner drew and recorded it with (:func:`redraw`), on the recorded scores,
   and the counts are tested against the exact probabilities by χ² over cells of expected count
   ≥ 5 (:func:`~dpledger.verify.audit.selection_conformance.exponential_conformance`).
3. **Sensitivity** — does any statistic move on worst-case neighbours by more than its event
   declares, does a substitution move two releases of a parallel composition, is the fitted model
   a function of the releases? (:func:`dpledger.verify.paper.agnostic_neighbours.probe`).
4. **Ledger** — is every release in the trace, and does the trace's certified guarantee meet the
   claim?

The χ² tests of 1 and 2 are run at the same ``confidence``; their number is fixed in advance by
the learner's structure (at most two noise families, and one test per selection), and the verdict
uses a Bonferroni split of 1 − confidence over them, so the audit's false-alarm rate is at most
1 − confidence (the χ² tail's approximation is discussed in :mod:`dpledger.verify.audit.conformance`).
A sensitivity excess is a witness (two neighbouring datasets and the change), not a statistic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.learners import releases
from dpledger.learners.exponential_mechanism import (
    exponential_mechanism_counted_release,
    exponential_mechanism_ordered_release,
    exponential_mechanism_release,
)
from dpledger.learners.randomness import Randomness
from dpledger.verify.audit.conformance import NoiseTest, noise_conformance, unaccounted
from dpledger.verify.audit.selection_conformance import ConformanceResult, exponential_conformance
from dpledger.verify.paper.agnostic_neighbours import ProbeReport, probe, ramp_centre_neighbours

MAX_FITS = 150
"""Most fits the noise test makes (a learner with one scalar noise per fit reaches fewer samples)."""

MAX_SELECTIONS = 8
"""Most selections redrawn (the first ones of the run)."""

WHITE_BOX_CONFIDENCE = 1 - 1e-6
"""The white-box audit's default confidence: a false alarm at most once in 10⁶ audits. Its tests
have the power to spare — half the declared noise gives p-values below 10⁻¹⁰⁰ on 600 draws, a
doubled ε in a selection below 10⁻¹⁴ on 600 redraws — and a sensitivity excess is a witness."""


@dataclass(frozen=True)
class SelectionTest:
    """The redraw test of one exponential-mechanism selection (module doc, 2).

    Attributes:
        position: The selection's position among the run's releases.
        candidates: Its number of candidates.
        result: The χ² of :func:`~dpledger.verify.audit.selection_conformance.exponential_conformance`.
    """

    position: int
    candidates: int
    result: ConformanceResult

    @property
    def p_value(self) -> float:
        """The χ² test's p-value."""
        return self.result.p_value

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "candidates": self.candidates,
            "redraws": self.result.draws,
            "cells": self.result.cells,
            "chi2": self.result.statistic,
            "p_value": self.result.p_value,
        }


def redraw(release: releases.Release) -> Callable[[Randomness], Any] | None:
    """One draw of the learners' own sampler on a release's recorded scores, at its event's ε.

    Args:
        release: An exponential-mechanism release.

    Returns:
        ``draw(rng)`` for the listed, runs and levels layouts, through the functions the learners
        draw and record with (:func:`~dpledger.learners.exponential_mechanism.exponential_mechanism_release`,
        ``_ordered_release``, ``_counted_release``), so a fault between the event and the weights
        shows; None for layouts whose sampler needs more than the release records (a
        domain's slots, an interval learner's cells).
    """
    scores = release.statistic
    if np.all(scores == np.round(scores)) and np.all(np.abs(scores) < 2**53):
        scores = scores.astype(np.int64)  # integer scores (counts) take the sampler's fast path
    epsilon, sensitivity = Fraction(release.event.epsilon), release.sensitivity  # the event's ε, exactly
    if release.layout == "listed":
        return lambda rng: exponential_mechanism_release(scores, epsilon, sensitivity, rng)[0]
    if release.layout == "runs":
        breakpoints, listed = list(release.breakpoints or ()), scores.tolist()
        return lambda rng: exponential_mechanism_ordered_release(
            breakpoints, listed, epsilon, sensitivity, rng
        )[0]
    if release.layout == "levels":
        levels, counts = scores.tolist(), list(release.counts or ())
        return lambda rng: exponential_mechanism_counted_release(
            levels, counts, epsilon, sensitivity, rng, member=lambda group: group
        )[0]
    return None


@dataclass
class WhiteBoxResult:
    """The four answers of the white-box audit and its verdict.

    Attributes:
        algorithm: The learner audited.
        confidence: The audit's confidence (false-alarm rate at most 1 − confidence).
        findings: One line per failed check, naming its cause; empty when every check passed.
        noise: The noise tests.
        selections: The selection tests.
        probe: The sensitivity probe's report (None when not run).
        skipped_selections: Selections not redrawn (a layout whose sampler needs more than the
            release records, or beyond :data:`MAX_SELECTIONS`).
        fits: Fits made.
        seconds: Wall time.
    """

    algorithm: str
    confidence: float
    findings: list[str] = field(default_factory=list)
    noise: list[NoiseTest] = field(default_factory=list)
    selections: list[SelectionTest] = field(default_factory=list)
    probe: ProbeReport | None = None
    skipped_selections: int = 0
    fits: int = 0
    seconds: float = 0.0

    @property
    def violation(self) -> bool:
        """Whether any check failed."""
        return bool(self.findings)

    def to_json(self) -> dict[str, Any]:
        ratios = {} if self.probe is None else self.probe.group_ratios()
        return {
            "mode": "white-box",
            "verdict": "VIOLATION" if self.violation else "NO VIOLATION FOUND",
            "findings": list(self.findings),
            "confidence": self.confidence,
            "noise_tests": [test.to_dict() for test in self.noise],
            "selection_tests": [test.to_dict() for test in self.selections],
            "sensitivity_groups": [
                {"kind": kind, "declared": declared, "largest_ratio": ratio}
                for (kind, declared), ratio in ratios.items()
            ],
            "neighbours": 0 if self.probe is None else len(self.probe.rows),
            "selections_not_redrawn": self.skipped_selections,
            "fits": self.fits,
            "seconds": self.seconds,
        }

    def to_text(self) -> str:
        lines = [f"white-box audit of the {self.algorithm} learner ({self.fits} fits, {self.seconds:.1f} s):"]
        for test in self.noise:
            lines.append(
                f"  noise {test.kind}: {test.samples} draws of {test.releases} releases, realised scale "
                f"{test.scale_ratio:.3f} × declared, χ² p = {test.p_value:.3g}"
            )
        if self.selections:
            worst = min(self.selections, key=lambda t: t.p_value)
            lines.append(
                f"  selections: {len(self.selections)} redrawn {worst.result.draws} times each, smallest χ² p = {worst.p_value:.3g}"
            )
        if self.skipped_selections:
            lines.append(f"  selections not redrawn: {self.skipped_selections}")
        if self.probe is None:
            lines.append("  sensitivity: not probed here (the oracles' own checks are in the test suite)")
        else:
            ratios = self.probe.group_ratios()
            lines.append(
                f"  sensitivity: {len(self.probe.rows)} worst-case neighbours; largest change / declared: "
                + ", ".join(f"{kind} {ratio:.3f}" for (kind, _), ratio in ratios.items())
            )
        verdict = "VIOLATION" if self.violation else "NO VIOLATION FOUND"
        lines.append(f"verdict: {verdict}")
        lines += [f"  - {finding}" for finding in self.findings]
        return "\n".join(lines)


def _check_ledger(result: WhiteBoxResult, learner: Any, claim: tuple[Any, Any]) -> None:
    if not learner.guarantee_.meets(*claim).holds:
        result.findings.append(
            f"LEDGER: the trace's certified guarantee (ε ≤ {learner.guarantee_.epsilon_text()}, "
            f"δ ≤ {learner.guarantee_.delta_text()}) does not meet the claim"
        )


def _fit(make: Callable[[int], Any], X: np.ndarray, y: np.ndarray, seed: int) -> tuple[releases.Tape, Any]:
    with releases.record() as tape:
        learner = make(seed).fit(X, y)
    return tape, learner


def white_box_audit(
    algorithm: str,
    make: Callable[[int], Any],
    X: np.ndarray,
    y: np.ndarray,
    *,
    claim: tuple[Any, Any],
    confidence: float = WHITE_BOX_CONFIDENCE,
    noise_samples: int = 600,
    redraws: int = 600,
    seed: int = 0,
    budget: float = 40.0,
    neighbours: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> WhiteBoxResult:
    """Audit every release of a learner against its declaration (module doc).

    Args:
        algorithm: The learner's name (for the text).
        make: ``make(seed)`` builds the learner with ``random_state=seed``.
        X: Features (canaries included: records beyond every clipping radius make the
            sensitivity probe reach its worst cases).
        y: Labels.
        claim: The claimed (ε, δ).
        confidence: False-alarm rate at most 1 − confidence over all tests.
        noise_samples: Noise coordinates per family to test.
        redraws: Redraws per selection.
        seed: The first fit's seed (later noise fits use seed + 1, …).
        budget: Seconds the noise fits may take (they stop earlier once enough samples are in).
        neighbours: Whether to run the sensitivity probe (3) — it builds the seed-002 learners'
            worst-case neighbours; without it the ledger check (4) still runs.
        on_progress: Called as ``on_progress(done, 3)`` after each of the noise, selection and
            sensitivity stages.

    Returns:
        The :class:`WhiteBoxResult`.

    Raises:
        ValueError: If confidence is not in (0, 1) or the counts are not positive.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if noise_samples < 1 or redraws < 1:
        raise ValueError("noise_samples and redraws must be positive")
    start = time.monotonic()
    result = WhiteBoxResult(algorithm, confidence)
    tape, learner = _fit(make, X, y, seed)
    result.fits = 1
    tapes = [tape]
    families: dict[str, int] = {}
    for release in tape:
        if release.noise is not None:
            families[release.kind] = families.get(release.kind, 0) + release.size
    while (
        families
        and min(families.values()) < noise_samples
        and result.fits < MAX_FITS
        and time.monotonic() - start < budget
    ):
        more, _ = _fit(make, X, y, seed + result.fits)
        result.fits += 1
        tapes.append(more)
        for release in more:
            if release.noise is not None:
                families[release.kind] += release.size
    result.noise = noise_conformance([r for t in tapes for r in t])
    skipped = 0
    for position, release in enumerate(tape):
        if release.kind != "exponential_mechanism":
            continue
        draw = redraw(release) if len(result.selections) < MAX_SELECTIONS else None
        if draw is None:
            skipped += 1
            continue
        conformance = exponential_conformance(release, draw, redraws, confidence, seed + position)
        result.selections.append(SelectionTest(position, release.size, conformance))
    result.skipped_selections = skipped
    report_progress = on_progress or (lambda done, total: None)
    report_progress(1, 3)
    tests = len(result.noise) + len(result.selections)
    level = (1 - confidence) / max(tests, 1)
    for test in result.noise:
        if test.samples >= 20 and test.p_value < level:
            result.findings.append(
                f"NOISE NOT AS DECLARED: the {test.kind} noise of {test.releases} releases has "
                f"{test.scale_ratio:.3f} of its declared scale (χ² p = {test.p_value:.3g} < {level:.3g})"
            )
    for selection in result.selections:
        if selection.p_value < level:
            result.findings.append(
                f"SELECTION NOT AS DECLARED: release {selection.position} (exponential mechanism over "
                f"{selection.candidates} candidates) does not draw with its event's ε "
                f"(χ² p = {selection.p_value:.3g} < {level:.3g})"
            )
    report_progress(2, 3)
    if not neighbours:
        missing = unaccounted(tape, learner.trace_)
        if missing:
            result.findings.append(f"UNACCOUNTED: releases {missing} are not in the ledger")
        _check_ledger(result, learner, claim)
        report_progress(3, 3)
        result.seconds = time.monotonic() - start
        return result
    extra = ramp_centre_neighbours if hasattr(learner, "iterates_") else None
    report = probe(lambda: make(seed), X, y, extra)
    result.probe = report
    for name, row in report.exceeded[:3]:
        result.findings.append(
            f"SENSITIVITY EXCEEDED: release {row.position} ({row.kind}) moved by {row.observed:.6g} on the "
            f"neighbour '{name}'; its event declares {row.declared:.6g}"
        )
    if len(report.exceeded) > 3:
        result.findings.append(f"  … and {len(report.exceeded) - 3} more releases beyond their sensitivity")
    for name in report.shared_blocks[:1]:
        result.findings.append(
            f"BLOCKS SHARED: one substitution ('{name}') moved releases of two parts of a parallel composition"
        )
    for name in report.model_changes[:1]:
        result.findings.append(
            f"MODEL NOT POST-PROCESSING: with every release forced equal, the fitted model differs on the neighbour '{name}'"
        )
    for mismatch in report.mismatches[:1]:
        result.findings.append(f"DATA-DEPENDENT SHAPE: {mismatch}")
    if report.unaccounted:
        result.findings.append(f"UNACCOUNTED: releases {report.unaccounted} are not in the ledger")
    _check_ledger(result, learner, claim)
    report_progress(3, 3)
    result.seconds = time.monotonic() - start
    return result
