"""Unit check of seed 000's Definition 4.3 (differential privacy on realizable prefix states), as
the exact oracle audit implements it."""

from collections import Counter

import pytest

from dpledger.learners.labelboost import realizable
from dpledger.verify.paper.block_audits import BlockAudit


@pytest.mark.parametrize("cls", ["thresholds", "intervals"])
def test_definition_4_3_oracle_audit_ranges_over_exactly_the_realizable_neighbouring_prefix_states(cls):
    """Definition 4.3: the guarantee quantifies over pairs of realizable prefix states (y≤i, S),
    (y≤i, S′) with S, S′ differing in one record. The oracle audit (first component, empty prefix)
    enumerates every realizable sample of size m, no other, and as neighbours every realizable
    sample one substitution away, no other."""
    audit = BlockAudit(cls, 4, 2, "oracle")
    C = audit.concept_class()
    records = [(x, y) for x in audit.domain() for y in (0, 1)]
    samples = {tuple(sorted((a, b))) for a in records for b in records}
    wanted = {s for s in samples if realizable(C, audit.points(x for x, _ in s), [y for _, y in s])}
    assert set(audit.datasets()) == wanted and wanted != samples
    for sample in wanted:
        one_away = {
            other
            for other in wanted
            if other != sample and sum((Counter(sample) - Counter(other)).values()) == 1
        }
        assert set(audit.neighbours(sample)) == one_away
