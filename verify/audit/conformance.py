"""Is each release what its event says? Checks of the code's releases against their declarations.

A ledger is only as true as the code behind it. These checks read the releases a run reports to
:mod:`dpledger.learners.releases` and test them from the other side, knowing no paper:

* :func:`noise_conformance` — the integer noise actually drawn against the distribution the event
  declares (discrete Gaussian N_Z(0, s²) with s = ``sigma_units``; discrete Laplace with scale
  t = ``scale_units``), by Pearson's χ² over bins that are equiprobable under the declared law.
* :func:`sensitivity_rows` — the statistic of every release on two neighbouring datasets under one
  forced history (:func:`dpledger.learners.releases.replay`), the change in the norm of its kind
  against the sensitivity its event declares in real units.
* :func:`unaccounted` — releases whose event is not in the run's ledger.

Certification argument of the χ² test (it decides a verdict of ``dpledger audit learner
--white-box``, so its false-alarm rate must be at most the stated 1 − confidence):

* The bin probabilities are exact or bounded. Discrete Laplace: Pr[Z ≥ a] = r^a/(1 + r) for a ≥ 1,
  r = e^{−1/t} (the pmf (1 − r)/(1 + r)·r^{|z|} summed), evaluated in float64 with a relative error
  below 10⁻¹⁴. Discrete Gaussian: for s < 2¹⁰ the pmf is summed exactly over |z| ≤ 40s (the rest
  weighs below e^{−800}); for s ≥ 2¹⁰ (the learners' grids put s in [2²⁰, 2²¹)) the midpoint rule
  Σ_{z<e} e^{−z²/(2s²)} = ∫_{−∞}^{e−1/2} e^{−x²/(2s²)} dx + E with |E| ≤ (1/24)∫|f''| ≤ 1/(6s),
  and the normaliser is √(2π)s(1 + 2Σ_k e^{−2π²s²k²}) by Poisson summation, so each bin
  probability is Φ-based within 10⁻⁶ relative at s ≥ 2¹⁰.
* Those errors move an expected count by at most N·10⁻⁶; the test's p-value is read from the χ²
  distribution with (bins − 1) degrees of freedom, which is asymptotic: bins are chosen so that
  every expected count is ≥ 5 (Cochran's rule), and the verdict threshold 1 − confidence is meant
  at 10⁻³ or below, where the asymptotic tail is conservative for equiprobable bins (Koehler and
  Larntz 1980). Below 20 samples no verdict is given.
* The scale statistic's law is that of the continuous Gaussian (Laplace) it approximates: at
  s, t ≥ 2¹⁰ each Z/s differs in distribution (Kolmogorov distance) from N(0, 1) by at most
  1/(6s), which the tests' thresholds (10⁻³ and below, against p-values of 10⁻⁵⁰ at half the noise)
  leave room for; for s, t < 2¹⁰ the scale p-value is asymptotic only.

Sensitivity is measured, not certified: a row's observed change is a lower bound on the release's
true sensitivity, so ``observed > declared`` is a proof that the declaration is wrong on that pair
(up to float64 rounding of the statistic, allowed for by ``tolerance``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from dpledger.accountant.events import (
    DiscreteGaussian,
    DiscreteLaplace,
    Event,
    LabelBoostCarrier,
    LabelBoostRealizable,
    LabelBoostThen,
)
from dpledger.accountant.rules import LABELBOOST_EPSILON
from dpledger.learners.releases import Release
from dpledger.verify.audit.sensitivity import change, declared_sensitivity

_EXACT_SUM_LIMIT = 2**10
LABELBOOST_EVENTS = (LabelBoostThen, LabelBoostRealizable, LabelBoostCarrier)
MIN_SAMPLES = 20


@dataclass(frozen=True)
class NoiseTest:
    """Pearson's χ² of the noise of one family of releases against its declared law.

    Attributes:
        kind: ``"discrete_gaussian"`` or ``"discrete_laplace"``.
        samples: The number of noise coordinates tested.
        bins: The number of bins (equiprobable under the declared law).
        statistic: Pearson's χ².
        p_value: Its upper tail under χ²(bins − 1).
        scale_ratio: The realised root mean square of Z/s (Gaussian) or mean |Z|/t (Laplace)
            against its declared value (1 when the draw is as declared; 0.5 at half the noise).
        releases: The number of releases pooled.
    """

    kind: str
    samples: int
    bins: int
    statistic: float
    p_value: float
    scale_ratio: float
    releases: int

    def rejects(self, confidence: float) -> bool:
        """Whether the declared law is rejected at ``confidence`` (false-alarm rate 1 − confidence)."""
        return self.samples >= MIN_SAMPLES and self.p_value < 1 - confidence

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "samples": self.samples,
            "bins": self.bins,
            "chi2": self.statistic,
            "p_value": self.p_value,
            "scale_ratio": self.scale_ratio,
            "releases": self.releases,
        }


def _gaussian_below(edges: np.ndarray, s: float) -> np.ndarray:
    """Pr[Z < e] for Z ~ N_Z(0, s²) at integer edges e (module doc)."""
    if s < _EXACT_SUM_LIMIT:
        span = math.ceil(40 * s) + 1
        z = np.arange(-span, span + 1)
        weights = np.exp(-(z.astype(float) ** 2) / (2 * s * s))
        cumulative = np.concatenate(([0.0], np.cumsum(weights))) / weights.sum()
        return cumulative[np.clip(edges + span, 0, z.size)]
    return stats.norm.cdf((edges - 0.5) / s)


def _laplace_below(edges: np.ndarray, t: float) -> np.ndarray:
    """Pr[Z < e] for the discrete Laplace of scale t at integer edges e, exactly (module doc)."""
    r = math.exp(-1.0 / t)
    edges = edges.astype(float)
    # Pr[Z ≤ −a] = r^a/(1 + r) for a ≥ 1, so Pr[Z < e] = r^{1−e}/(1 + r) for e ≤ 0 ...
    below = np.where(edges <= 0, np.exp((edges - 1.0) / t) / (1 + r), 0.0)
    # ... and 1 − Pr[Z ≥ e] = 1 − r^e/(1 + r) for e ≥ 1.
    return np.where(edges >= 1, 1.0 - np.exp(-edges / t) / (1 + r), below)


def _bins_for(samples: int) -> int:
    return int(max(2, min(16, samples // 5)))


def noise_conformance(releases: Iterable[Release]) -> list[NoiseTest]:
    """Test the noise every release drew against the law its event declares, one test per family.

    Two tests are combined by Bonferroni (p = 2·min): Pearson's χ² over equiprobable bins (the
    shape), and the scale's sufficient statistic — Σ(Z/s)² against χ²(N) for the discrete Gaussian,
    Σ|Z|/t against Gamma(N, 1) for the discrete Laplace, two-sided — which is what half the noise
    moves most.

    Args:
        releases: Releases from :func:`dpledger.learners.releases.record` (exponential-mechanism
            draws are skipped: a single draw is not testable; see the redraw tests). The noise is
            read from each output (:func:`realised_noise`).

    Returns:
        One :class:`NoiseTest` per noise family present, the noise of all its releases pooled
        (each coordinate binned by its own release's law).

    Raises:
        ValueError: If a release's event does not match its kind.
    """
    pooled: dict[str, list[tuple[np.ndarray, float]]] = {}
    for release in releases:
        if release.kind == "exponential_mechanism" or release.noise is None:
            continue
        scale = _declared_scale(release)
        pooled.setdefault(release.kind, []).append((realised_noise(release), scale))
    tests = []
    for kind, parts in pooled.items():
        samples = sum(part.size for part, _ in parts)
        bins = _bins_for(samples)
        levels = np.linspace(0, 1, bins + 1)[1:-1]
        observed = np.zeros(bins)
        expected = np.zeros(bins)
        moment = 0.0
        for noise, scale in parts:
            if kind == "discrete_gaussian":
                edges = np.ceil(scale * stats.norm.ppf(levels)).astype(np.int64)
                below = _gaussian_below(edges, scale)
                moment += float(np.sum((noise / scale) ** 2))
            else:
                edges = np.ceil(-scale * np.sign(levels - 0.5) * np.log(1 - 2 * np.abs(levels - 0.5))).astype(
                    np.int64
                )
                below = _laplace_below(edges, scale)
                moment += float(np.sum(np.abs(noise) / scale))
            probabilities = np.diff(np.concatenate(([0.0], below, [1.0])))
            expected += noise.size * probabilities
            observed += np.bincount(np.searchsorted(edges, noise, side="right"), minlength=bins)
        keep = expected > 0
        statistic = float(np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep]))
        shape_p = float(stats.chi2.sf(statistic, max(int(keep.sum()) - 1, 1)))
        if kind == "discrete_gaussian":
            ratio = math.sqrt(moment / samples)
            law = stats.chi2(samples)  # Σ (Z/s)²
        else:
            ratio = moment / samples  # E|Z|/t → 1 for large t
            law = stats.gamma(samples)  # Σ |Z|/t
        scale_p = float(min(1.0, 2 * min(law.cdf(moment), law.sf(moment))))
        p_value = min(1.0, 2 * min(shape_p, scale_p))
        tests.append(NoiseTest(kind, samples, bins, statistic, p_value, ratio, len(parts)))
    return tests


def realised_noise(release: Release) -> np.ndarray:
    """The integer noise a release's output carries: output/γ − round(statistic/γ).

    Read from what the release returned, not from what its sampler reported, so a release that
    drops or shrinks its noise after drawing it shows it. Exact: the output is γ·(q + Z) with
    |q + Z| < 2⁵³ and γ a power of two (:mod:`dpledger.learners.noise`).

    Args:
        release: A noise release.

    Returns:
        The integer noise per coordinate.

    Raises:
        ValueError: If the release has no grid.
    """
    if release.gamma is None:
        raise ValueError(f"a {release.kind} release without a grid carries no noise to read")
    output = np.asarray(release.output, dtype=np.float64).reshape(-1) / release.gamma
    return (output - np.rint(release.statistic / release.gamma)).astype(np.int64)


def _declared_scale(release: Release) -> float:
    event = release.event
    if release.kind == "discrete_gaussian":
        if not isinstance(event, DiscreteGaussian):
            raise ValueError(f"a discrete Gaussian release carries a {type(event).__name__} event")
        return float(event.sigma_units)
    if not isinstance(event, DiscreteLaplace):
        raise ValueError(f"a discrete Laplace release carries a {type(event).__name__} event")
    return float(event.scale_units)


@dataclass(frozen=True)
class SensitivityRow:
    """The change of one release's statistic between two neighbouring datasets.

    Attributes:
        position: The release's position in the run.
        kind: Its kind.
        observed: The change in the norm of its kind (L2, L1, or the largest change of a score).
        declared: The sensitivity its event declares, in real units.
    """

    position: int
    kind: str
    observed: float
    declared: float

    @property
    def ratio(self) -> float:
        """observed / declared."""
        return self.observed / self.declared if self.declared > 0 else math.inf

    def exceeds(self, tolerance: float = 1e-9) -> bool:
        """Whether the change is beyond the declaration (beyond float rounding of the statistic)."""
        return self.observed > self.declared * (1 + tolerance) + tolerance * 1e-6


def sensitivity_rows(first: Sequence[Release], second: Sequence[Release]) -> list[SensitivityRow]:
    """Compare the releases of two runs on neighbouring datasets under one forced history.

    Args:
        first: The releases of a run on D (recorded, or replayed under a history).
        second: The releases of a run on a neighbour D′ replayed under the same history.

    Returns:
        One row per release: its statistic's change and its declared sensitivity.

    Raises:
        ValueError: If the runs made different numbers or shapes of releases (the shape of the
            computation depends on the data).
    """
    if len(first) != len(second):
        raise ValueError(f"the runs made {len(first)} and {len(second)} releases")
    rows = []
    for position, (a, b) in enumerate(zip(first, second, strict=True)):
        if a.kind != b.kind or a.size != b.size or a.layout != b.layout:
            raise ValueError(f"release {position} differs in kind, size or layout between the runs")
        declared = max(declared_sensitivity(a), declared_sensitivity(b))
        rows.append(SensitivityRow(position, a.kind, change(a, b), float(declared)))
    return rows


def blocks_touched(rows: Sequence[SensitivityRow]) -> list[int]:
    """The positions of the releases whose statistic changed between the two runs."""
    return [row.position for row in rows if row.observed > 0]


def events_of(event: Event) -> Iterable[Event]:
    """Every node of an event tree, depth first."""
    yield event
    for child in getattr(event, "children", ()):
        yield from events_of(child)
    child = getattr(event, "child", None)
    if isinstance(child, Event):
        yield from events_of(child)


def unaccounted(releases: Iterable[Release], trace: Event) -> list[int]:
    """Positions of releases whose event is not a node of the ledger ``trace``.

    Args:
        releases: The releases of a run.
        trace: The run's ledger (``trace_``).

    Returns:
        The positions whose event object (or an equal event) appears nowhere in the trace. A
        selection over a data-dependent candidate set (LabelBoost's labelings) is accounted by a
        LabelBoost node of the trace when it draws at the ε Lemmas 3.11–3.17 assume
        (:data:`~dpledger.accountant.rules.LABELBOOST_EPSILON`): those events carry no ε of their own.
    """
    nodes = list(events_of(trace))
    ids = {id(node) for node in nodes}
    labelboost = any(isinstance(node, LABELBOOST_EVENTS) for node in nodes)
    missing = []
    for position, release in enumerate(releases):
        if id(release.event) in ids or any(node == release.event for node in nodes):
            continue
        if labelboost and release.candidates is not None and release.event.epsilon == LABELBOOST_EPSILON:
            continue  # LabelBoost's selection, accounted by its LabelBoost node at the ε its lemma assumes
        missing.append(position)
    return missing
