"""Events: the sets of outputs whose probabilities the auditor compares.

An :class:`IntervalEvent` is ``{y : lower < s(y) ≤ upper}`` for a scalar *statistic* ``s`` of
the output. Statistics come in two kinds, and so do the events built on them
(:attr:`Statistic.float_artefact`):

*Real-number statistics* look at the value of the output, as a real number: a mechanism with the
same distribution over the reals would show the same event probabilities. An event of this kind
that breaks the claim is a bug in the mathematics (noise scale, sensitivity, accounting).

* :class:`Identity` — the output itself (threshold and interval events on scalar outputs,
  StatDP's events, Ding et al. 2018);
* :class:`LearnedScore` — a learned distinguisher for vector outputs (continuous, integer or
  binary coordinates): a regularised logistic-regression score over the whole output vector, in
  the spirit of DP-Sniper's learned classifiers (Bichsel, Steffen, Bogunovic, Vechev 2021,
  "DP-Sniper", IEEE S&P), thresholded rather than randomised so that no ``ln(1/c)`` ceiling
  applies. Its features, on the standardised coordinates z_j: z_j, z_j² and sgn z_j per
  coordinate (the sign, about the pooled centre, is the privacy-loss statistic of a Laplace
  coordinate whose shift is small against its scale; its sum counts the coordinates above their
  centre), and the order statistics max_j z_j and min_j z_j. The *tied* variant shares one weight
  per feature among all coordinates (after orienting each coordinate on the fitting rows): few
  parameters, for many weak coordinates — parallel composition — where per-coordinate weights
  would be mostly noise.
* :class:`CountAbove` — the number of coordinates above their centre: a fixed count statistic,
  whose tails the fitted scores blur with the noise of their other weights when every coordinate
  carries a tiny part of the privacy loss.
* :class:`~dpledger.verify.audit.montecarlo.atom_patterns.PatternScore` — for vector outputs with atoms
  (sparse-vector markers): the empirical log-likelihood ratio of the run's pattern of markers and
  bin of its released numbers, per block of coordinates.
* :class:`~dpledger.verify.audit.montecarlo.decorrelation.OnInnovations` and
  :class:`~dpledger.verify.audit.montecarlo.perceptron.NetworkScore` — the learned scores and the
  count on the decorrelated coordinates of correlated outputs, and the opt-in perceptron.

*Float-artefact statistics* look at the bits of the float64 that represents the output. Naive
floating-point Laplace noise added to a value lands on a coarser lattice near zero on one input
than on the other, so the set of outputs a run can produce depends on the input (Mironov 2012,
"On significance of the least significant bits for differential privacy", CCS, Section 3: the
attack; Section 5: the snapping remedy). A real-valued mechanism has no such events:

* :class:`OnLattice` — the output (or one coordinate of a vector output) where its significand
  ends in ``bits`` zero bits, else undefined;
* :class:`LatticeCount` — how many coordinates of a vector output end in ``bits`` zero bits (a
  joint event over all coordinates).

A :class:`ValueSetEvent` is a set of exact output values (labels, or rows of discrete vectors): a
real-number event.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, ClassVar

import numpy as np

_SIGNIFICAND_BITS = 52


class Statistic(ABC):
    """A map from an array of outputs to one float per run (NaN: the run lies in no event).

    ``float_artefact``: whether the statistic reads the float64 representation (its low bits)
    rather than the real value of the output.
    """

    float_artefact: ClassVar[bool] = False

    @abstractmethod
    def __call__(self, outputs: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def describe(self) -> dict[str, Any]: ...

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        """The statistic's values on the runs where it is defined (not NaN)."""
        values = self(outputs)
        return values[~np.isnan(values)]


@dataclass(frozen=True)
class Identity(Statistic):
    """The scalar output itself."""

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return np.asarray(outputs, dtype=float).reshape(len(outputs))

    def describe(self) -> dict[str, Any]:
        return {"statistic": "output"}

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        return self(outputs)


def same_statistic(first: Any, second: Any) -> bool:
    """Whether two statistics are one function: the same object, or of one type with equal fields
    — arrays equal, nested parts (a statistic of the innovations, a pattern layout) the same by
    this rule (a fit made again on the same runs is the same statistic)."""
    if first is second:
        return True
    if is_dataclass(first) and type(first) is type(second):
        return all(same_statistic(getattr(first, f.name), getattr(second, f.name)) for f in fields(first))
    if isinstance(first, tuple) and isinstance(second, tuple):
        return len(first) == len(second) and all(
            same_statistic(x, y) for x, y in zip(first, second, strict=True)
        )
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        return np.array_equal(first, second)
    return bool(first == second)


def on_lattice(values: np.ndarray, bits: int) -> np.ndarray:
    """Whether the ``bits`` lowest bits of each float64's significand are zero."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    return (values.view(np.uint64) & np.uint64((1 << bits) - 1)) == 0


@dataclass(frozen=True)
class OnLattice(Statistic):
    """The output — or its coordinate ``coordinate`` — where the ``bits`` lowest bits of its
    float64 significand are zero, else NaN."""

    bits: int
    coordinate: int | None = None
    float_artefact: ClassVar[bool] = True

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        values = self._values(outputs)
        return np.where(on_lattice(values, self.bits), values, np.nan)

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        values = self._values(outputs)
        return values[on_lattice(values, self.bits)]

    def keeps_all(self, outputs: np.ndarray) -> bool:
        """Whether every output is on the lattice (then the statistic is the output itself)."""
        return bool(np.all(on_lattice(self._values(outputs), self.bits)))

    def _values(self, outputs: np.ndarray) -> np.ndarray:
        values = np.asarray(outputs, dtype=np.float64)
        if self.coordinate is None:
            return values.reshape(len(values))
        return values.reshape(len(values), -1)[:, self.coordinate]

    def describe(self) -> dict[str, Any]:
        where = {} if self.coordinate is None else {"coordinate": self.coordinate}
        return {"statistic": "output on lattice", **where, "zero_low_significand_bits": self.bits}


@dataclass(frozen=True)
class LatticeCount(Statistic):
    """The number of coordinates of a vector output whose ``bits`` lowest significand bits are
    zero: a joint lattice event over all coordinates."""

    bits: int
    float_artefact: ClassVar[bool] = True

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        values = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        return on_lattice(values, self.bits).sum(axis=1).astype(float)

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        return self(outputs)

    def describe(self) -> dict[str, Any]:
        return {"statistic": "coordinates on lattice (count)", "zero_low_significand_bits": self.bits}


SCORE_CHUNK = 1 << 13
"""Rows scored at a time: the features of a chunk stay in the processor's cache, and the memory
of a large vector sample's features stays bounded."""


class Block:
    """One block of rows of a vector sample and the features computed on it, shared by every
    statistic evaluated on the block: standardised coordinates z (per centre and scale), their
    signs, squares and row maxima and minima."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows
        self.features: dict[tuple[bytes, ...], tuple[np.ndarray, ...]] = {}
        self.views: dict[int, Block] = {}

    def view(self, transform: Callable[[np.ndarray], np.ndarray]) -> Block:
        """The block of ``transform(rows)`` (e.g. the rows' innovations), made once for every
        statistic of the block that reads it."""
        if id(transform) not in self.views:
            self.views[id(transform)] = Block(transform(self.rows))
        return self.views[id(transform)]

    def standardised(
        self, centre: np.ndarray, scale: np.ndarray, markers: np.ndarray | None = None
    ) -> tuple[np.ndarray, ...]:
        """``(z, sgn z, max_j z_j, min_j z_j, z²)`` for ``z = (rows − centre) / scale``, and 0
        where an entry is one of the ``markers`` (:meth:`marked`)."""
        key = (centre.tobytes(), scale.tobytes(), b"" if markers is None else markers.tobytes())
        if key not in self.features:
            z = np.subtract(self.rows, centre, dtype=float)
            z *= 1.0 / scale
            if markers is not None and markers.size:
                z[self.marked(markers).any(axis=0)] = 0.0
            columns = np.ascontiguousarray(z.T)  # max and min along short rows are slow, along columns fast
            self.features[key] = (z, np.sign(z), columns.max(axis=0), columns.min(axis=0), z * z)
        return self.features[key]

    def marked(self, markers: np.ndarray) -> np.ndarray:
        """Per marker value, where the rows' entries equal it (booleans, markers × rows × columns)."""
        key = (b"markers", markers.tobytes())
        if key not in self.features:
            self.features[key] = (np.stack([self.rows == marker for marker in markers]),)
        return self.features[key][0]


class BlockStatistic(Statistic):
    """A statistic of vector outputs computed block by block (:data:`SCORE_CHUNK` rows at a time)
    from features its block shares with the other statistics evaluated on it (:func:`evaluate`)."""

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return evaluate([self], outputs)[0]

    def defined(self, outputs: np.ndarray) -> np.ndarray:
        return self(outputs)

    @abstractmethod
    def on_block(self, block: Block) -> np.ndarray: ...


def evaluate(statistics: list[Statistic], outputs: np.ndarray) -> list[np.ndarray]:
    """The values of several statistics on the same runs, equal to ``[s(outputs) for s in
    statistics]`` number for number: block statistics in one pass over the runs, each block's
    standardised coordinates computed once for all the statistics that share their centre and
    scale (the learned scores and the count of one fit do, and the pass is what costs)."""
    blockwise = [s for s in statistics if isinstance(s, BlockStatistic)]
    values = {id(s): s(outputs) for s in statistics if not isinstance(s, BlockStatistic)}
    if blockwise:
        rows = np.asarray(outputs).reshape(len(outputs), -1)
        parts: list[list[np.ndarray]] = [[] for _ in blockwise]
        for start in range(0, len(rows), SCORE_CHUNK):
            block = Block(rows[start : start + SCORE_CHUNK])
            for part, statistic in zip(parts, blockwise, strict=True):
                part.append(statistic.on_block(block))
        for part, statistic in zip(parts, blockwise, strict=True):
            values[id(statistic)] = np.concatenate(part) if part else np.empty(0)
    return [values[id(s)] for s in statistics]


@dataclass(frozen=True, eq=False)
class CountAbove(BlockStatistic):
    """The number of coordinates of a vector output above their ``centre`` (a count statistic:
    the privacy-loss statistic of parallel composition, when every coordinate is a small shift
    of a symmetric noise centred between the two inputs, up to the sign); entries equal to one
    of the ``markers`` (a sparse vector's ⊥ and "stopped" among its released numbers) are not
    counted."""

    centre: np.ndarray
    markers: np.ndarray = field(default_factory=lambda: np.empty(0))

    def on_block(self, block: Block) -> np.ndarray:
        above = block.rows > self.centre
        if self.markers.size:
            above &= ~block.marked(self.markers).any(axis=0)
        # a product with ones counts exactly, faster than a sum along short rows
        return above.astype(float) @ np.ones(block.rows.shape[1])

    def describe(self) -> dict[str, Any]:
        markers = {"markers_not_counted": self.markers.tolist()} if self.markers.size else {}
        return {
            "statistic": "number of coordinates above their centre",
            "centre": self.centre.tolist(),
            **markers,
        }


@dataclass(frozen=True, eq=False)
class LearnedScore(BlockStatistic):
    """``Σ_j (linear_j z_j + quadratic_j z_j² + sign_j sgn z_j) + extra · (max_j z_j, min_j z_j)
    + Σ_{m, j} marked_{m, j} [y_j = m]`` with ``z = (y − centre) / scale`` per coordinate, 0 where
    ``y_j`` is one of the ``markers`` (the exact values that mark a sparse vector's ⊥ and "stopped"
    among its released numbers; none by default)
    (:func:`dpledger.verify.audit.montecarlo.search.learned.fit_distinguisher`)."""

    centre: np.ndarray
    scale: np.ndarray
    linear: np.ndarray
    quadratic: np.ndarray
    sign: np.ndarray
    extra: np.ndarray
    tied: bool = False
    markers: np.ndarray = field(default_factory=lambda: np.empty(0))
    marked: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))

    def on_block(self, block: Block) -> np.ndarray:
        z, signs, largest, smallest, squares = block.standardised(self.centre, self.scale, self.markers)
        score = z @ self.linear
        score += signs @ self.sign
        score += self.extra[0] * largest
        score += self.extra[1] * smallest
        score += squares @ self.quadratic
        if self.markers.size:
            for entries, weights in zip(block.marked(self.markers), self.marked, strict=True):
                score += entries @ weights
        return score

    def describe(self) -> dict[str, Any]:
        weights = (
            "one weight per feature, shared by all coordinates" if self.tied else "per-coordinate weights"
        )
        return {
            "statistic": f"learned score: logistic regression on the output vector's coordinates, squares, "
            f"signs, max and min ({weights})",
            "coordinates": len(self.centre),
            "centre": self.centre.tolist(),
            "scale": self.scale.tolist(),
            "weights": {
                "coordinate": self.linear.tolist(),
                "square": self.quadratic.tolist(),
                "sign": self.sign.tolist(),
                "max_min": self.extra.tolist(),
                **({"marker": self.marked.tolist()} if self.markers.size else {}),
            },
            **({"markers": self.markers.tolist()} if self.markers.size else {}),
        }


class Event(ABC):
    """A measurable set of outputs."""

    @property
    def float_artefact(self) -> bool:
        """Whether the event reads the float64 representation of outputs (see the module docstring)."""
        return False

    @abstractmethod
    def indicator(self, outputs: np.ndarray) -> np.ndarray:
        """Boolean array: which runs fall in the event."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for witnesses."""


class StatisticEvent(Event):
    """An event read off one statistic's values: the audit evaluates the statistic once per runs
    (shared by every event on it, and kept on runs reduced to their statistics' values)."""

    statistic: Statistic

    @property
    def float_artefact(self) -> bool:
        return self.statistic.float_artefact

    def indicator(self, outputs: np.ndarray) -> np.ndarray:
        return self.within(self.statistic(outputs))

    @abstractmethod
    def within(self, values: np.ndarray) -> np.ndarray:
        """Which of the statistic's ``values`` fall in the event."""


@dataclass(frozen=True, eq=False)
class IntervalEvent(StatisticEvent):
    """``lower < statistic(y) ≤ upper`` (infinite ends give threshold events)."""

    lower: float
    upper: float
    statistic: Statistic = field(default_factory=Identity)

    def within(self, values: np.ndarray) -> np.ndarray:
        """Which of the statistic's ``values`` fall in the interval (NaN: none)."""
        with np.errstate(invalid="ignore"):
            return (values > self.lower) & (values <= self.upper)

    def describe(self) -> dict[str, Any]:
        return {
            "type": "interval",
            "lower_exclusive": _json_float(self.lower),
            "upper_inclusive": _json_float(self.upper),
            **self.statistic.describe(),
        }


@dataclass(frozen=True, eq=False)
class ValueSetEvent(Event):
    """The output (label, or row of a discrete vector) equals one of ``values``."""

    values: np.ndarray
    shown: tuple[Any, ...]

    def indicator(self, outputs: np.ndarray) -> np.ndarray:
        return np.isin(row_keys(outputs), self.values)

    def describe(self) -> dict[str, Any]:
        limit = 8
        return {
            "type": "exact values",
            "count": len(self.shown),
            "values": list(self.shown[:limit]) + (["…"] if len(self.shown) > limit else []),
        }


def row_keys(outputs: np.ndarray) -> np.ndarray:
    """One comparable key per run: the label itself, or the bytes of the run's row."""
    if outputs.ndim == 1:
        return outputs
    rows = np.ascontiguousarray(outputs.reshape(len(outputs), -1))
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(len(rows))


def key_to_json(key: Any, template: np.ndarray) -> Any:
    """A row key back to a JSON-ready value, using the dtype and row shape of ``template``."""
    if template.ndim == 1:
        return key.item() if hasattr(key, "item") else key
    row = np.frombuffer(key.tobytes(), dtype=template.dtype)
    return row.tolist()


def _json_float(value: float) -> float | str:
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return float(value)
