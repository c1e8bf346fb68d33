"""The trace Π_C(P) counted by score, and exact uniform draws from it, without listing it.

Algorithm 1 line 5 draws a labeling g of Π_C(P) with probability ∝ exp(ε·q(S, g)/2). That is
the same as drawing a score s with probability ∝ N_s·exp(ε·s/2), N_s = #{g ∈ Π_C(P) : q(S, g) = s},
then a labeling uniformly among the N_s of score s. This module computes N_s and the uniform
draw for Boolean compositions C(h≤i) = G(h_1, …, h_i, H_{i+1}, …, H_k) (seed 000, Section 8.4)
whose free components are thresholds or intervals on one line:

* **Automaton.** On the sorted points p_0 < … < p_{r−1} a threshold's labeling is a word 0*1*
  and an interval's 0*1*0*: a *phase* per component (threshold 0 → 1, interval 0 → 1 → 2) that
  never decreases. A labeling of P is in the trace iff some non-decreasing sequence of joint
  phases q(p_0) ≤ … ≤ q(p_{r−1}) gives g(p_l) = G(h_{≤i}(p_l), bits(q(p_l))) at every point — the
  residual automaton of :class:`~dpledger.learners.boolean.composition.Residuals` read along the
  line. The subset construction (state: the set of joint phases consistent with the labels read
  so far) is deterministic, so **every distinct labeling is one path**: distinct labelings are
  counted once, as Definition 3.7's trace lists them.
* **Counting.** The score is additive over points, q(S, g) = Σ_l n_{g(p_l)}(p_l) (n_b(p): the
  labeled records at p with label b), so the number of paths from each state by remaining score
  is a backward dynamic programme: O(r · states · |S|) integer work.
* **Uniform draw.** A rank in range(N_s) (one :meth:`Randomness.integer`) is unranked along the
  automaton with those counts: exactly uniform.
* **Representative.** The listed trace keeps, per labeling, the first component tuple in the
  order of the component traces (thresholds: "1 from p_i on", i = 0 … r; intervals: empty, then
  (i, j) by i then j), i.e. the lexicographically smallest index tuple producing it;
  :meth:`CountedTrace.representative` finds that same tuple greedily, component by component,
  each candidate checked by a forward pass of the automaton. So the draw has exactly the
  distribution of the listed exponential mechanism, representative included.

:func:`counted_trace` also dispatches halfspaces on [[±X]]^d and their restrictions to
:mod:`dpledger.learners.halfspaces.arrangement_counting` (the cells of the arrangement counted by
score); every counted trace has the interface of :class:`~dpledger.learners.score_counts.CountedTraceLike`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from dpledger.learners.boolean.composition import LINE_PHASES, BooleanComposition
from dpledger.learners.concept_classes import Components, ConceptClass, Restricted, Thresholds
from dpledger.learners.halfspaces.arrangement_counting import halfspace_counted_trace
from dpledger.learners.halfspaces.geometry import GridHalfspaces, RestrictedHalfspaces
from dpledger.learners.score_counts import CountedTraceLike, ScoreCounts

_INT64_SAFE = 2**62


def line_composition(concept_class: ConceptClass) -> tuple[BooleanComposition, Components] | None:
    """(C, prefix) when ``concept_class`` is a composition C (or its restriction C(prefix)) whose
    free components are all thresholds or intervals on one line, with at least one free; else None."""
    prefix: Components = ()
    while isinstance(concept_class, Restricted) and not prefix:
        prefix = tuple(concept_class.prefix)
        concept_class = concept_class.parent
    if not isinstance(concept_class, BooleanComposition) or concept_class.dimension != 1:
        return None
    free = concept_class.components[len(prefix) :]
    if not free or any(type(H) not in LINE_PHASES for H in free):
        return None
    return concept_class, prefix


class PhaseAutomaton:
    """The joint phases of the free components H_{i+1} … H_k of a line composition and, per
    residual id s of level i, which joint phases output each label (bitmasks over joint phases)."""

    def __init__(self, C: BooleanComposition, first: int) -> None:
        self.first = first
        self.bits = [LINE_PHASES[type(H)] for H in C.components[first:]]
        self.phases = list(itertools.product(*(range(len(b)) for b in self.bits)))
        self.full = (1 << len(self.phases)) - 1
        self.up = [
            sum(
                1 << t
                for t, later in enumerate(self.phases)
                if all(a <= b for a, b in zip(q, later, strict=True))
            )
            for q in self.phases
        ]
        residuals = C.residuals
        ids = residuals.step[first].shape[0]
        self.allowed = np.zeros((ids, 2), dtype=object)
        for s in range(ids):
            for t, q in enumerate(self.phases):
                state = s
                for j, phase in enumerate(q):
                    state = int(residuals.step[first + j][state, self.bits[j][phase]])
                self.allowed[s, int(residuals.value[state])] |= 1 << t
        self._closure: dict[int, int] = {}

    def closure(self, mask: int) -> int:
        """The joint phases reachable (non-decreasing) from the set ``mask``."""
        if mask not in self._closure:
            reach = 0
            for t in range(len(self.phases)):
                if mask >> t & 1:
                    reach |= self.up[t]
            self._closure[mask] = reach
        return self._closure[mask]

    def component_mask(self, j: int, phases: Sequence[int]) -> int:
        """The joint phases whose free component j (0-based among the free) is in ``phases``."""
        return sum(1 << t for t, q in enumerate(self.phases) if q[j] in phases)


class CountedTrace:
    """Π_{C(prefix)}(P) of a line composition, counted by the score q(S, ·) of a labeled sample
    (points ``P[index]``, labels ``labels``): the deterministic automaton over the sorted points
    with, per position and state, the number of completions by remaining score."""

    def __init__(
        self, C: BooleanComposition, prefix: Components, P: np.ndarray, index: np.ndarray, labels: np.ndarray
    ) -> None:
        self.C, self.prefix, self.P = C, tuple(prefix), P
        r = len(P)
        self.automaton = PhaseAutomaton(C, len(self.prefix))
        self.residual = C.state(self.prefix, P).astype(np.int64)
        self.n = np.stack([np.bincount(index[labels == b], minlength=r) for b in (0, 1)], axis=1)  # n_b(p_l)
        self.transitions = self._determinise()
        self.width = len(labels) + 1
        bound = 1
        for H in C.components[len(self.prefix) :]:
            bound *= r + 1 if type(H) is Thresholds else 1 + r * (r + 1) // 2
        dtype = np.int64 if bound < _INT64_SAFE else object
        self.completions = self._count(dtype)

    def _determinise(self) -> list[np.ndarray]:
        """transitions[l][state, b]: the state after reading label b at p_l (−1: no labeling)."""
        a = self.automaton
        layer: dict[int, int] = {a.full: 0}
        transitions = []
        for ell in range(len(self.P)):
            allowed = a.allowed[self.residual[ell]]
            following: dict[int, int] = {}
            table = np.full((len(layer), 2), -1, dtype=np.int64)
            for mask, state in layer.items():
                reach = a.closure(mask)
                for b in (0, 1):
                    nxt = reach & allowed[b]
                    if nxt:
                        table[state, b] = following.setdefault(nxt, len(following))
            transitions.append(table)
            layer = following
        return transitions

    def _count(self, dtype: type) -> list[np.ndarray]:
        """completions[l][state, s]: labelings of p_l … p_{r−1} from ``state`` scoring s there."""
        last: np.ndarray = np.zeros(
            (int(self.transitions[-1].max()) + 1 if self.transitions else 1, self.width), dtype=dtype
        )
        last[:, 0] = 1
        completions = [last]
        for ell in range(len(self.P) - 1, -1, -1):
            table, after = self.transitions[ell], completions[-1]
            here: np.ndarray = np.zeros((len(table), self.width), dtype=dtype)
            for b in (0, 1):
                gain = int(self.n[ell, b])
                rows = np.flatnonzero(table[:, b] >= 0)
                if gain < self.width:
                    here[rows, gain:] += after[table[rows, b], : self.width - gain]
            completions.append(here)
        completions.reverse()
        return completions

    def score_counts(self) -> ScoreCounts:
        """N_s for the scores s present (the input of the grouped exponential mechanism)."""
        row = self.completions[0][0]
        present = [s for s in range(self.width) if row[s]]
        return ScoreCounts(present, [int(row[s]) for s in present])

    def labeling(self, score: int, rank: int) -> np.ndarray:
        """The rank-th labeling (0 ≤ rank < N_score) of score ``score``, in automaton order."""
        labels = np.zeros(len(self.P), dtype=np.int8)
        state, remaining = 0, score
        for ell, table in enumerate(self.transitions):
            for b in (0, 1):
                nxt, gain = int(table[state, b]), int(self.n[ell, b])
                if nxt < 0 or gain > remaining:
                    continue
                paths = int(self.completions[ell + 1][nxt, remaining - gain])
                if rank < paths:
                    labels[ell], state, remaining = b, nxt, remaining - gain
                    break
                rank -= paths
            else:
                raise ValueError(f"rank out of range for score {score}")
        return labels

    def representative(self, labels: np.ndarray) -> Components:
        """The listed trace's representative of ``labels``: the lexicographically smallest tuple
        of component-trace indices producing it (see the module docstring)."""
        a, r = self.automaton, len(self.P)
        allowed = [a.allowed[self.residual[ell]][int(labels[ell])] for ell in range(r)]
        chosen: list[Components] = []
        for j, H in enumerate(self.C.components[a.first :]):
            search = _ComponentSearch(a, j, allowed)
            allowed, component = (_threshold if type(H) is Thresholds else _interval)(
                search,
                self.P,
                H.domain_size,  # type: ignore[attr-defined]  # thresholds and intervals both have one
            )
            chosen.append(component)
        return self.prefix + tuple(chosen)


class _ComponentSearch:
    """Feasibility of labels with free component j confined to phases by region: before
    ``start``, on [start, end], after ``end``."""

    def __init__(self, automaton: PhaseAutomaton, j: int, allowed: list[int]) -> None:
        self.automaton, self.allowed = automaton, allowed
        self.masks: dict[tuple[int, ...], int] = {
            phases: automaton.component_mask(j, phases) for phases in ((0,), (1,), (2,), (0, 2), (1, 2))
        }

    def confined(
        self,
        before: tuple[int, ...],
        during: tuple[int, ...],
        after: tuple[int, ...],
        start: int,
        end: int,
    ) -> list[int] | None:
        """The allowed joint phases with component j confined, or None when no path remains."""
        a, masks = self.automaton, self.masks
        region = [masks[before]] * start + [masks[during]] * max(0, end + 1 - start)
        region += [masks[after]] * (len(self.allowed) - len(region))
        # a region running past the last point is cut there
        trial = [step & confine for step, confine in zip(self.allowed, region, strict=False)]
        mask = a.full
        for step in trial:
            mask = a.closure(mask) & step
            if not mask:
                return None
        return trial


def _threshold(search: _ComponentSearch, P: np.ndarray, domain_size: int) -> tuple[list[int], Components]:
    """Thresholds' trace order: "1 from p_i on" for i = 0 … r − 1, then all-zero (t = N)."""
    r = len(P)
    for i in range(r):
        trial = search.confined((0,), (1,), (1,), i, r - 1)
        if trial is not None:
            return trial, (int(P[i]),)
    trial = search.confined((0,), (0,), (0,), r, r)
    if trial is None:
        raise ValueError("labels is not a labeling of the trace")
    return trial, (domain_size,)


def _interval(search: _ComponentSearch, P: np.ndarray, domain_size: int) -> tuple[list[int], Components]:
    """Intervals' trace order: empty, then "1 exactly on p_i … p_j" by i, then j."""
    r = len(P)
    trial = search.confined((0, 2), (0, 2), (0, 2), r, r)
    if trial is not None:
        return trial, (0, 0)
    for i in range(r):
        if search.confined((0,), (1,), (1, 2), i, i) is None:
            continue
        for j in range(i, r):
            trial = search.confined((0,), (1,), (2,), i, j)
            if trial is not None:
                return trial, (int(P[i]), int(P[j]) + 1)
    raise ValueError("labels is not a labeling of the trace")


def _halfspace_prefix(concept_class: ConceptClass) -> tuple[GridHalfspaces, Components] | None:
    """(C, prefix) when ``concept_class`` is GridHalfspaces C or a restriction C(prefix) of it."""
    if isinstance(concept_class, (Restricted, RestrictedHalfspaces)) and isinstance(
        concept_class.parent, GridHalfspaces
    ):
        return concept_class.parent, tuple(concept_class.prefix)
    return (concept_class, ()) if isinstance(concept_class, GridHalfspaces) else None


def counted_trace(
    concept_class: ConceptClass,
    points: np.ndarray,
    index: np.ndarray,
    labels: np.ndarray,
) -> CountedTraceLike | None:
    """The counted trace of ``concept_class`` on the distinct points ``points`` for the labeled
    sample (points[index], labels): a line composition (:class:`CountedTrace`), halfspaces on
    [[±X]]^d (:func:`~dpledger.learners.halfspaces.arrangement_counting.halfspace_counted_trace`),
    or None (the trace is listed)."""
    index, labels = np.asarray(index, dtype=np.int64), np.asarray(labels, dtype=np.int64)
    halfspaces = _halfspace_prefix(concept_class)
    if halfspaces is not None:
        return halfspace_counted_trace(
            halfspaces[0].dimension, halfspaces[1], np.asarray(points), index, labels
        )
    found = line_composition(concept_class)
    if found is None:
        return None
    C, prefix = found
    return CountedTrace(
        C,
        prefix,
        np.asarray(points).reshape(-1),
        np.asarray(index, dtype=np.int64),
        np.asarray(labels, dtype=np.int64),
    )


def best_agreement(concept_class: ConceptClass, X: np.ndarray, y: np.ndarray) -> int:
    """max_{g ∈ C} Σ_j 1[g(x_j) = y_j]: the largest score of the trace on the distinct points of X —
    from the counts by score for a line composition (never listed), else from the listed trace
    (one representative per labeling suffices)."""
    points, position = np.unique(concept_class.points(X), axis=0, return_inverse=True)
    position, labels = position.reshape(-1), np.asarray(y, dtype=np.int64).reshape(-1)
    counted = counted_trace(concept_class, points, position, labels)
    if counted is not None:
        return counted.score_counts().scores[-1]
    return int(concept_class.trace(points).agreement(position, labels).max())
