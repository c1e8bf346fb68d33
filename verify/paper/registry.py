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
"""
from __future__ import annotations

import ast
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
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

TEST_OUTCOMES = ("passed", "failed", "skipped", "error", "not collected")


@dataclass(frozen=True)
class Finding:
    """Something a check found: what, the witness, and the command that prints the witness."""

    summary: str
    witness: str
    command: str
    kind: str = "slack"
    """``slack`` (a bound holds but with room), ``confirms`` (agrees with what the seed says) or
    ``violation`` (a stated inequality fails for allowed parameters)."""

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


def _in(path: str, *names: str) -> tuple[str, ...]:
    """Node ids ``tests/<path>::<name>``."""
    return tuple(f"tests/{path}::{name}" for name in names)


# Test groups named once and shared by the statements they check.
RULES = "accountant/test_rules.py"
CHAIN = "accountant/test_carry_forward_chain.py"
EXACT = "verify/test_exact_audit.py"
BLOCKS = "verify/test_exact_blocks.py"
AGNOSTIC_PRIVACY = "learners/test_agnostic_privacy.py"
SECTION_6_TREE = _in(CHAIN, "test_learner_event_mirrors_section_6_with_claims_at_every_block")
LEMMA_6_12 = _in(CHAIN, "test_lemma_6_12_chain_holds_across_allowed_parameters",
                 "test_targets_outside_lemma_6_12_hypotheses_are_refused",
                 "test_tight_calibration_is_at_least_the_papers_m_and_certified")
THEOREM_5_1 = (_in("learners/test_carry_forward.py", "test_theorem_5_1_privacy_half_derived_guarantee_meets_target")
               + _in("verify/test_cli_carry_forward.py", "test_run_carry_forward_with_paper_m_meets_its_target")
               + _in("verify/test_montecarlo_learners.py",
                     "test_carry_forward_learner_measured_epsilon_below_its_certified_guarantee"))
LEMMA_8_3 = (_in("learners/test_halfspaces_depth.py",
                 "test_lemma_8_3_c_4_finite_domain_contains_a_full_depth_coordinate_at_every_round")
             + _in("learners/test_halfspaces_oracles.py",
                   "test_lemma_8_3_full_depth_in_domain_and_valid_outputs_inside_the_learner"))
DEPTH_TRANSFER = _in("learners/test_halfspaces_depth.py",
                     "test_corollary_c_10_satisfied_constraints_transfer_to_errors_plus_d",
                     "test_corollary_c_10_needs_general_position")
LEMMAS_8_11_8_12 = _in("learners/test_halfspaces_depth.py",
                       "test_lemmas_8_11_8_12_block_maximizers_keep_most_of_the_full_sample_depth")
COORDINATE_ORACLES = _in("learners/test_halfspaces_oracles.py",
                         "test_exponential_and_qcopt_oracles_are_exactly_epsilon_a_dp_on_every_input")
IPCONCAVE = _in("learners/test_halfspaces_oracles.py", "test_ipconcave_oracle_is_exactly_epsilon_a_dp_on_every_input")
COROLLARY_8_17 = (_in("verify/test_boolean_oracle_audit.py",
                      "test_oracle_exact_epsilon_within_epsilon_b_plus_3_corollary_8_17",
                      "test_oracle_exact_epsilon_within_bound_for_smaller_epsilon_b")
                  + _in("learners/test_boolean_oracle.py",
                        "test_oracle_event_within_epsilon_b_plus_3_on_realizable_prefix_states_corollary_8_17",
                        "test_oracle_utility_on_realizable_prefix_states_corollary_8_17")
                  + _in("learners/test_boolean_composition.py",
                        "test_structural_conditions_of_corollary_8_17_hold_for_compositions"))
THEOREM_8_19 = (_in("learners/test_boolean_oracle.py",
                    "test_learner_event_with_relabel_oracles_meets_target_at_paper_m_theorem_8_19")
                + _in("verify/test_boolean_cli.py", "test_calibrate_boolean_follows_theorem_8_19_and_reports_the_baseline")
                + _in("verify/test_cli_calibrate_theorems.py",
                      "test_calibrate_theorem_reports_the_papers_n_and_a_smaller_tight_n"))
SAMPLE = "learners/test_sample_complexity.py"
CALIBRATE_CLI = "verify/test_cli_calibrate_theorems.py"
SAMPLE_SIZE = (_in(SAMPLE, "test_theorem_7_2_m_is_the_larger_requirement_and_algorithm_2_gives_it_at_n_paper",
                   "test_tight_n_is_the_smallest_certified_n_for_the_same_m",
                   "test_theorem_5_1_refuses_parameters_outside_its_hypotheses")
               + _in(CALIBRATE_CLI, "test_calibrate_refuses_input_outside_the_theorems_hypotheses"))
THEOREM_8_5 = (_in(SAMPLE, "test_theorem_8_5_runs_the_learner_at_half_the_parameters_and_m_covers_m_a_at_the_final_n",
                   "test_lemma_c_7_perturbed_grid_bound_dominates_the_exact_integer",
                   "test_domain_size_bound_dominates_the_domains_of_definition_8_2",
                   "test_theorem_8_5_refuses_bad_input")
               + _in(CALIBRATE_CLI, "test_calibrate_theorem_reports_the_papers_n_and_a_smaller_tight_n"))
THEOREM_8_8 = THEOREM_8_5 + _in(SAMPLE, "test_lemma_8_7_qcopt_requirement_is_e_qc_plus_d_over_tau",
                                "test_theorems_8_8_and_8_14_need_more_samples_in_higher_dimension")
THEOREM_8_14 = THEOREM_8_5 + _in(SAMPLE, "test_lemma_8_13_ipconcave_requirement_is_blocks_times_block_size",
                                 "test_theorems_8_8_and_8_14_need_more_samples_in_higher_dimension")
AGNOSTIC_SAMPLE = "learners/test_agnostic_sample_size.py"
AGNOSTIC_SAMPLE_SIZE = (_in(AGNOSTIC_SAMPLE, "test_n_grows_as_alpha_epsilon_delta_shrink_and_dim_grows",
                            "test_tight_n_at_most_paper_n_with_privacy_terms_strictly_smaller",
                            "test_bad_input_is_refused_naming_the_hypothesis")
                        + _in(CALIBRATE_CLI, "test_seed_002_theorems_report_both_accountings_with_the_substitutes_named",
                              "test_seed_002_calibration_refuses_input_outside_the_hypotheses"))
LEMMA_8_15 = (_in(RULES, "test_lemma_8_15_sampling_with_replacement_matches_the_closed_form",
                  "test_lemma_8_15_claim_holds_when_at_most_a_ninth_is_drawn")
              + _in("verify/test_boolean_oracle_audit.py",
                    "test_lemma_8_15_empirical_learner_exact_epsilon_within_the_derived_bound",
                    "test_empirical_learner_keeps_epsilon_b_with_two_draws_from_18_records_lemma_8_15"))
THEOREM_7_2 = _in("learners/test_carry_forward.py", "test_theorem_7_2_error_at_most_alpha_with_its_active_sample_size")
IMPROPER_PRIVACY = _in(AGNOSTIC_PRIVACY, "test_improper_learner_meets_theorem_2_1_privacy",
                       "test_halving_the_calibrated_noise_breaks_the_claim")
LOG_CONCAVE_PRIVACY = _in(AGNOSTIC_PRIVACY, "test_log_concave_improper_learner_meets_theorem_d_1_privacy")
PROPER_PRIVACY = _in(AGNOSTIC_PRIVACY, "test_proper_learner_meets_theorem_3_1_privacy")
SEMI_AGNOSTIC_PRIVACY = _in(AGNOSTIC_PRIVACY, "test_semi_agnostic_learner_meets_theorem_4_1_privacy",
                            "test_semi_agnostic_trace_records_the_sensitivities_of_its_statistics",
                            "test_private_statistics_move_by_at_most_their_recorded_sensitivity")
NEAR_OPT = _in("learners/test_agnostic_learners.py", "test_learners_at_epsilon_4_are_near_opt_under_random_noise")

CALIBRATE_CF = "dpledger calibrate carry-forward --n 100000000 --k 4 --epsilon 1 --delta 1e-6"
AUDIT_HYPOTHESIS = ("dpledger audit labelboost --class intervals --domain-size 4 --labeled 2 --unlabeled 2 "
                    "--release hypothesis")

FINDING_PAPER_M_SLACK = Finding(
    kind="slack",
    summary="Algorithm 2's m = ⌊εn/(12e⁹√(k log(2/δ)))⌋ meets Lemma 6.12 with room to spare: the tight certified "
            "calibration of the same learner structure allows a far larger m (not an error, a slack of the e⁹ bound).",
    witness="n = 10⁸, k = 4, ε = 1, δ = 1e-6: paper m = 134, tight certified m = 7268 (×54); for m = 134 the paper "
            "needs n = 99261309, the tight accounting n = 1843674 (sample saving ×53.8).",
    command=CALIBRATE_CF,
)
FINDING_THEOREM_7_2_SLACK = Finding(
    kind="slack",
    summary="Theorem 7.2's active sample size (constant 1) gives errors far below α: the chain 20(k+1)τ ≤ α with "
            "τ = α/(40k) and the oracle's M_A leave a factor of about 25 on intervals.",
    witness="intervals on [0, 1024), α = β = 0.2, k = v = 2: m = max(208, M_A = 2125) = 2125, n = 3m; population errors "
            "over seeds 0–9 between 0 and 0.0078 (α = 0.2).",
    command="dpledger run carry-forward --class intervals --domain-size 1024 --n 6375 --m 2125 --alpha 0.2 --beta 0.2 "
            "--seed 0",
)
FINDING_LEMMA_8_15_SLACK = Finding(
    kind="slack",
    summary="Lemma 8.15 keeps B's ε for B̂, but drawing at most a ninth of the sample with replacement amplifies: "
            "coupling and group privacy give ε' = log(A/B) ≤ 2 sinh(ε)/9 (0.261 at ε = 1), so the Proposition 8.16 "
            "oracle is (3.26, 0)-DP rather than the (4, 0) Corollary 8.17 states.",
    witness="ε_B = 1, one draw from 9 records: derived ε' = 0.2476; exact worst case over all neighbouring samples "
            "(Thresholds(2), 220 samples) 0.0995.",
    command="dpledger run carry-forward --class boolean --formula \"x1 and (x2 or not x3)\" --components "
            "thresholds,intervals,thresholds --n 20000 --m 40 --json  (the trace's Lemma 8.15 nodes)",
)
FINDING_DEGREE_CONSTANT = Finding(
    kind="slack",
    summary="The degree D = ⌈c/α²⌉ hides its constant; with c = 1 (our calibration's substitute) the L2 projection of "
            "the worst halfspace onto degree ≤ D is about α — not the α/3 Theorem 2.1's rebuilt chain assumes — away in "
            "L1 (an upper bound for the best unit-norm approximation), and the ratio grows slowly as α shrinks.",
    witness="t = 0 (the worst threshold): L1 error 0.2157 at α = 0.2 (D = 25), 0.1309 at α = 0.1 (D = 100), 0.0765 at "
            "α = 0.05 (D = 400).",
    command="dpledger calibrate 2.1 --json  (substitutes), python -m pytest "
            "tests/learners/test_agnostic_features.py -k alpha_squared",
)
FINDING_HYPOTHESIS_RELEASE = Finding(
    kind="confirms",
    summary="Releasing LabelBoost's selected hypothesis is not differentially private (exact ε = ∞), as the seed "
            "itself says; only the carrier release (Lemma 3.17) and continuations (Lemmas 3.11, 3.15) are covered.",
    witness="intervals on D = 4, |S| = |T| = 2: exact worst-case ε = ∞ over 2240 neighbour pairs; worst pair "
            "S = {(0,0),(0,0)} vs S' = {(0,0),(1,0)} with T = {0,0} (the supports differ).",
    command=AUDIT_HYPOTHESIS,
)

EXTERNAL_FINDINGS = (
    Finding(
        kind="violation",
        summary="dp-accounting 0.6.0's pessimistic PLD accountant (value discretisation 1e-4) reports an ε below the "
                "certified lower end of the true optimal ε for k-fold composition of (0.01, 0)-DP at δ = 1e-6; its "
                "'pessimistic' answer is not an upper bound here.",
        witness="k = 10⁴: dp-accounting ε = 4.88551555812; certified optimum ∈ [4.8855156010069987, 4.8855156010076308] "
                "(dpledger compose prints ε ≤ 4.88551560101).",
        command="python benchmarks/bench_optimal_composition.py  (and: dpledger compose --epsilon 0.01 --delta 0 "
                "--k 10000 --target-delta 1e-6 --method optimal)",
    ),
)
"""Findings about tools the project cites, not about the seeds."""


def _s(id: str, seed: str, statement: str, check: str, tests: Iterable[str] = (), commands: Iterable[str] = (),
       findings: Iterable[Finding] = ()) -> Statement:
    return Statement(id, seed, statement, check, tuple(tests), tuple(commands), tuple(findings))


SEED_000 = (
    _s("Theorem 1.1", "000", "Informal version of Theorem 5.1 (private realizable learner from component oracles).",
       "chain", THEOREM_5_1),
    _s("Theorem 1.2", "000", "Informal version of Theorem 8.5 (halfspaces from coordinate oracles).", "chain",
       THEOREM_8_5),
    _s("Theorem 1.3", "000", "Informal versions of Theorems 8.8 and 8.14 (halfspaces on a finite grid).", "chain",
       tuple(dict.fromkeys(THEOREM_8_8 + THEOREM_8_14))),
    _s("Theorem 1.4", "000", "Informal version of Theorem 8.19 (Boolean compositions).", "chain", THEOREM_8_19),
    _s("Definition 3.1", "000", "Realizable (α, β)-PAC learning.", "definition"),
    _s("Definition 3.2", "000", "(ε, δ)-differential privacy under substitute-one adjacency.", "definition",
       _in(EXACT, "test_privacy_profile_of_randomized_response_is_exact")),
    _s("Definition 3.3", "000", "Private PAC learning.", "definition"),
    _s("Theorem 3.4", "000", "Fixed-size subsampling without replacement (q = m/M) turns (ε, δ)-DP into "
       "(log(1 + q(e^ε − 1)), qδ)-DP [3, Thm 9].", "cited",
       _in(RULES, "test_theorem_3_4_amplification_certified_above_60_digit_reference",
           "test_amplification_is_monotone_in_q", "test_amplification_at_q_1_is_the_identity")),
    _s("Theorem 3.5", "000", "Adaptive advanced composition of L (ε, δ)-DP mechanisms [14, Thm III.3].", "cited",
       _in(RULES, "test_theorem_3_5_advanced_composition_matches_60_digit_reference")
       + _in("accountant/test_optimal_composition.py", "test_optimal_at_most_advanced_and_basic")),
    _s("Definition 3.6", "000", "Differential privacy on C-realizable inputs only.", "definition",
       _in(RULES, "test_realizable_only_guarantee_is_not_amplified_nor_counted_as_dp")),
    _s("Definition 3.7", "000", "Trace Π_C(P), growth function, VC dimension.", "definition",
       _in("learners/test_concept_classes.py", "test_dichotomies_by_geometry_equal_the_brute_force_trace",
           "test_trace_sizes_of_thresholds_and_intervals")),
    _s("Lemma 3.8", "000", "Sauer's lemma: |Π_C(P)| ≤ (e|P|/v)^v [24].", "cited"),
    _s("Theorem 3.9", "000", "Small-error all-pairs generalization [6, Thm B.5].", "cited"),
    _s("Theorem 3.10", "000", "Realizable VC bound: m ≥ c(v log(2/τ) + log(2/β))/τ random points of S force "
       "disc_S ≤ τ for every h consistent on them.", "cited"),
    _s("Algorithm 1", "000", "LabelBoostProcedure: relabel S and T by an exponential-mechanism choice from Π_C(S ∪ T).",
       "definition", _in("learners/test_labelboost.py", "test_algorithm_1_relabels_s_and_t_by_a_representative_of_the_trace",
                         "test_sampled_labelboost_agrees_with_the_enumerated_distribution")),
    _s("Lemma 3.11", "000", "LabelBoost followed by an (ε, δ)-DP algorithm is (ε + 3, 4eδ)-DP [6, Lemma 4.1].", "cited",
       _in(RULES, "test_lemma_3_11_labelboost_then_dp_costs_3_and_4e")),
    _s("Proposition 3.12", "000", "Exponential-mechanism utility: error ≤ α + (2/(εm))·(ln|F| + ln(1/β)) w.p. 1 − β "
       "[6, Prop A.1].", "cited", _in("learners/test_labelboost.py", "test_proposition_3_12_exact_tail_of_the_exponential_mechanism")),
    _s("Corollary 3.13", "000", "Approximate utility of LabelBoostProcedure (|S| = |T| = m, some g with err_S(g) ≤ α).",
       "empirical", _in("learners/test_labelboost.py", "test_proposition_3_12_and_corollary_3_13_empirical_utility_of_labelboost")),
    _s("Lemma 3.14", "000", "LabelBoost weight comparison: neighbouring inputs change each labeling's weight by ≤ 4e.",
       "exact", _in(EXACT, "test_lemma_3_14_common_labeling_weights_within_4e", "test_lemmas_3_14_and_3_17_on_larger_instances"),
       ("dpledger audit labelboost --class intervals --domain-size 4 --labeled 2 --unlabeled 2 --release weights",)),
    _s("Lemma 3.15", "000", "LabelBoost then a continuation that is (ε, δ)-DP on realizable inputs is "
       "(ε + ln 4e, 4eδ)-DP on all inputs.", "exact",
       _in(EXACT, "test_lemma_3_15_realizable_private_continuation_is_eps_plus_ln4e_dp",
           "test_lemma_3_15_continuation_is_private_on_realizable_inputs_only", "test_lemma_3_15_on_larger_instances")
       + _in(RULES, "test_lemma_3_15_labelboost_with_realizable_continuation_is_dp_on_arbitrary_inputs"),
       ("dpledger audit labelboost --class intervals --domain-size 4 --labeled 2 --unlabeled 2 --release continuation",)),
    _s("Remark 3.16", "000", "Lemma 3.15 also applies when the continuation uses only T^h (the macro-block's oracle "
       "reads only S_1 = U(T_1)^{h_1}; audited exactly).", "exact",
       _in(BLOCKS, "test_lemma_6_2_macro_block_exact_epsilon_within_C")),
    _s("Lemma 3.17", "000", "Releasing only the relabeled carrier T^h is c_LB = ln(4e)-DP in S.", "exact",
       _in(EXACT, "test_lemma_3_17_carrier_only_release_is_ln4e_dp", "test_lemma_3_17_intervals_domain_6_three_plus_three",
           "test_releasing_the_selected_hypothesis_is_not_private",
           "test_cli_hypothesis_release_reports_infinite_epsilon_and_a_witness")
       + _in(RULES, "test_lemma_3_17_carrier_only_release_is_c_lb_pure")
       + _in("verify/test_montecarlo_learners.py", "test_lemma_3_17_carrier_release_not_flagged_at_ln_4e"),
       ("dpledger audit labelboost --class intervals --domain-size 6 --labeled 3 --unlabeled 3 --release carrier",
        AUDIT_HYPOTHESIS), (FINDING_HYPOTHESIS_RELEASE,)),
    _s("Claim 4.1", "000", "With VC(C) = v, every restricted class C(y≤i) has VC dimension at most v.", "exact",
       _in("learners/test_concept_classes.py", "test_claim_4_1_restricted_classes_have_vc_dimension_at_most_v")),
    _s("Definition 4.2", "000", "Realizable prefix state (y≤i, S): S is labelled by some h ∈ C(y≤i).", "definition",
       _in("learners/test_carry_forward.py",
           "test_lemma_5_2_realizable_prefix_state_before_every_oracle_call_on_arbitrary_labels")),
    _s("Definition 4.3", "000", "Differential privacy on realizable prefix states.", "definition"),
    _s("Assumption 4.4", "000", "Private realizable component oracle: (ε_A, δ_A)-DP on realizable prefix states, total, "
       "τ-accurate with sample requirement M_A(τ).", "exact",
       _in(BLOCKS, "test_assumption_4_4_oracle_is_epsilon_a_private_on_realizable_neighbours",
           "test_oracle_with_smaller_epsilon_a_is_audited_against_it")
       + _in("learners/test_boolean_oracle.py", "test_oracle_is_total_and_valid_on_non_realizable_samples_assumption_4_4"),
       ("dpledger audit macro-block --class intervals --domain-size 4 --m 2 --block oracle",)),
    _s("Theorem 5.1", "000", "CarryForwardLearner is (ε, δ)-DP and a realizable (α, β)-PAC learner for "
       "n = Õ(√k·(…)/ε) (privacy half checked by the chain; utility half through Lemma 7.1's telemetry).", "chain",
       THEOREM_5_1 + LEMMA_6_12 + SAMPLE_SIZE,
       (CALIBRATE_CF, "dpledger calibrate 5.1 --class intervals",
        "dpledger run carry-forward --class intervals --n 200000 --m 300 --seed 4")),
    _s("Algorithm 2", "000", "CarryForwardLearner: value-independent partition, two alternating reservoirs, "
       "LabelBoost carriers, component oracles.", "definition",
       _in(CHAIN, "test_algorithm_2_m_is_the_exact_floor")
       + _in("learners/test_carry_forward.py", "test_same_seed_same_trace_and_hypothesis")),
    _s("Lemma 5.2", "000", "Iterated realizability: before every oracle call (y≤i−1, S_{i−1}) is a realizable prefix "
       "state, on arbitrary labels.", "property",
       _in("learners/test_carry_forward.py",
           "test_lemma_5_2_realizable_prefix_state_before_every_oracle_call_on_arbitrary_labels",
           "test_lemma_5_2_violation_is_an_internal_error")),
    _s("Definition 6.1", "000", "Two-round macro-block MB_i over a size-m carrier.", "definition", SECTION_6_TREE),
    _s("Lemma 6.2", "000", "The macro-block is (C, Δ)-DP with C = ε_A + 2c_LB, Δ = 4eδ_A.", "exact",
       _in(BLOCKS, "test_lemma_6_2_macro_block_exact_epsilon_within_C",
           "test_lemma_6_2_macro_block_with_carrier_release_rectangles") + SECTION_6_TREE,
       ("dpledger audit macro-block --class intervals --domain-size 4 --m 2",)),
    _s("Claim 6.3", "000", "For fixed u, K_u is (ε_A + c_LB, δ_A)-DP on realizable neighbouring samples.", "chain",
       SECTION_6_TREE),
    _s("Lemma 6.4", "000", "Initialization privacy with respect to R_0: (C, Δ)-DP.", "exact",
       _in(BLOCKS, "test_lemma_6_4_initialization_block_exact_epsilon_within_C"),
       ("dpledger audit macro-block --class intervals --domain-size 4 --m 2 --block init",)),
    _s("Definition 6.5", "000", "Amplified macro-block: the macro-block on a uniform size-m subsample of a reservoir.",
       "definition", SECTION_6_TREE),
    _s("Corollary 6.6", "000", "Reservoir amplification: (C, Δ) on m of ⌊n/3⌋ records gives (η, ζ), "
       "η = log(1 + q(e^C − 1)), ζ = qΔ.", "chain",
       SECTION_6_TREE + _in(RULES, "test_theorem_3_4_amplification_certified_above_60_digit_reference")),
    _s("Remark 6.7", "000", "Mechanisms that do not treat their input as a multiset are run on a shuffled sample "
       "(R_0 and every carrier T_i are drawn in uniformly random order).", "exact",
       _in("learners/test_randomness.py", "test_subset_and_permutation_are_uniform_when_enumerated")),
    _s("Corollary 6.8", "000", "Initialization-reservoir privacy: the learner is (η, ζ)-DP in W^init.", "chain",
       SECTION_6_TREE + LEMMA_6_12),
    _s("Corollary 6.9", "000", "The amplified macro-block is (η, ζ)-DP for every round and state.", "chain",
       SECTION_6_TREE + LEMMA_6_12),
    _s("Lemma 6.10", "000", "The boundary state of a reservoir's j-th activation is determined by the start state and "
       "the previous transcript.", "unchecked"),
    _s("Corollary 6.11", "000", "Privacy with respect to a reservoir: advanced composition of its ℓ = ⌈(k−1)/2⌉ "
       "activations gives (ε_res, δ_res).", "chain",
       _in(CHAIN, "test_corollary_6_11_reservoir_activation_counts_cover_rounds_1_to_k_minus_1") + LEMMA_6_12),
    _s("Lemma 6.12", "000", "For ε ≤ 1, δ ∈ (0, 1) and Algorithm 2's choices (ε_A = 4, δ_A = δ/(16ek), "
       "m = ⌊εn/(12e⁹√(k log(2/δ)))⌋), CarryForwardLearner is (ε, δ)-DP.", "chain",
       LEMMA_6_12 + _in(CHAIN, "test_algorithm_2_m_is_the_exact_floor"), (CALIBRATE_CF,), (FINDING_PAPER_M_SLACK,)),
    _s("Lemma 7.1", "000", "One-round utility: the round's disagreement is at most 2τ w.p. 1 − β_VC − β_A − β_LB.",
       "empirical", _in("learners/test_carry_forward.py",
                        "test_lemma_7_1_round_disagreements_within_two_tau_on_realizable_data")),
    _s("Theorem 7.2", "000", "Iterated utility: with m = O(max{(kv/α)log(320k²/(αβ)), M_A}) the hypothesis has "
       "error ≤ α w.p. 1 − β (checked empirically with the constant c = 1 and exact population error).", "empirical",
       THEOREM_7_2, findings=(FINDING_THEOREM_7_2_SLACK,)),
    _s("Corollary 7.3", "000", "CarryForwardLearner utility with the oracles' maximal sample requirement (utility at "
       "Theorem 7.2's m; the n it implies: `dpledger calibrate 5.1`).", "empirical", THEOREM_7_2 + SAMPLE_SIZE[:1],
       ("dpledger calibrate 5.1 --class intervals",)),
    _s("Definition 8.1", "000", "Coordinate depth objective Q_i^S.", "definition",
       _in("learners/test_halfspaces_depth.py", "test_definition_8_1_objective_equals_brute_force_maximum_over_completions")),
    _s("Definition 8.2", "000", "Finite coordinate domains of the halfspace parameterisation.", "definition"),
    _s("Lemma 8.3", "000", "Q_i^S is sensitivity-one and quasi-concave on the finite domain, which contains a "
       "full-depth coordinate.", "property", LEMMA_8_3),
    _s("Corollary 8.4", "000", "Depth to disagreement transfer under general position.", "property", DEPTH_TRANSFER),
    _s("Theorem 8.5", "000", "Halfspace learning from component oracles under general position (privacy half: "
       "the learner at the calibrated n meets (ε, δ) under the certified accounting; the sample size is computed "
       "from the proof's choices with named constants; utility not checked).", "chain", THEOREM_8_5,
       ("dpledger calibrate 8.5 --oracle exponential",)),
    _s("Proposition 8.6", "000", "Private quasi-concave optimisation on a finite ordered domain [12].", "cited"),
    _s("Lemma 8.7", "000", "The coordinate oracle satisfies Assumption 4.4 (β_A ≥ δ_A).", "exact", COORDINATE_ORACLES),
    _s("Theorem 8.8", "000", "Private realizable halfspace learning with quasi-concave optimisation (calibrated "
       "through Theorem 8.5 and Lemma 8.7, Õ constants set to 1).", "chain", THEOREM_8_8,
       ("dpledger calibrate 8.8 --dimension 2",)),
    _s("Theorem 8.9", "000", "PrivateIP outputs an interior point w.p. 1 − β for n > n_IP [12].", "cited"),
    _s("Algorithm 3", "000", "IPConcave [22].", "definition", IPCONCAVE),
    _s("Theorem 8.10", "000", "IPConcave is (ε, δ)-DP [22].", "cited", IPCONCAVE),
    _s("Lemma 8.11", "000", "Realizable transfer for linear feasibility (random submultiset B).", "property",
       LEMMAS_8_11_8_12),
    _s("Lemma 8.12", "000", "Realizable transfer for block maximizers.", "property", LEMMAS_8_11_8_12),
    _s("Lemma 8.13", "000", "The IPConcave coordinate oracle satisfies Assumption 4.4.", "exact", IPCONCAVE),
    _s("Theorem 8.14", "000", "Private realizable halfspace learning via IPConcave (calibrated through Theorem 8.5 "
       "and Lemma 8.13, Õ constants set to 1).", "chain", THEOREM_8_14, ("dpledger calibrate 8.14 --dimension 2",)),
    _s("Lemma 8.15", "000", "PAC-to-empirical conversion: a PAC learner run on m of 9m records drawn with replacement "
       "keeps its (ε, δ) (privacy half derived by the accountant's with-replacement rule and audited exactly; "
       "accuracy cited from Bun et al. Lemma 5.9).", "chain", LEMMA_8_15, findings=(FINDING_LEMMA_8_15_SLACK,)),
    _s("Proposition 8.16", "000", "Component-oracle construction from a local proper learner B_i.", "exact",
       COROLLARY_8_17[:2]),
    _s("Corollary 8.17", "000", "Local proper learners give component oracles ((ε_B + 3)-DP on realizable prefix states).",
       "exact", COROLLARY_8_17),
    _s("Lemma 8.18", "000", "Closure oracles for CarryForwardLearner on G(H_1, …, H_k).", "exact",
       _in("learners/test_boolean_composition.py", "test_restricted_trace_equals_enumerated_completions_lemma_8_18")),
    _s("Theorem 8.19", "000", "Private realizable learning of Boolean compositions.", "chain", THEOREM_8_19,
       ("dpledger calibrate 8.19 --k 3 --components thresholds,intervals,thresholds",)),
    _s("Proposition A.1", "000", "Feasible completion sets are convex; their projections are intervals.", "property",
       _in("learners/test_halfspaces_depth.py",
           "test_proposition_a_1_two_lps_give_the_full_depth_interval_of_the_exact_objective")),
    _s("Lemma A.2", "000", "One-coordinate depth is quasi-concave on realizable prefix states.", "property",
       _in("learners/test_halfspaces_depth.py", "test_lemma_a_2_objective_is_quasi_concave_on_realizable_prefix_states",
           "test_lemma_a_2_fails_without_realizability_the_reason_the_learner_restores_it")),
    _s("Corollary B.1", "000", "Restatement of Corollary 8.17.", "exact", COROLLARY_8_17),
    _s("Lemma C.1", "000", "A realizable halfspace sample induces a feasible system of linear constraints.", "property",
       _in("learners/test_halfspaces_depth.py", "test_reduction_appendix_c_constraint_signs")),
    _s("Corollary C.2", "000", "Restatement of Lemma 8.11.", "property", LEMMAS_8_11_8_12),
    _s("Definition C.3", "000", "Finite coordinate domains [18, Def 4.4].", "definition",
       _in("learners/test_halfspaces_domains.py", "test_definition_c_3_domain_bounds_and_denominator_chain")),
    _s("Lemma C.4", "000", "Attaining full depth on the finite domain [18, Lemma 4.5].", "cited", LEMMA_8_3[:1]),
    _s("Definition C.5", "000", "Independent perturbation of the sample points.", "definition"),
    _s("Lemma C.6", "000", "General position after perturbation [18, Lemma B.6].", "cited",
       _in("learners/test_halfspaces_perturbation.py",
           "test_lemma_c_6_perturbation_from_a_large_set_gives_general_position_with_probability_1_minus_beta")),
    _s("Lemma C.7", "000", "Realizability survives perturbations smaller than the margin.", "property",
       _in("learners/test_halfspaces_perturbation.py", "test_lemma_c_7_perturbation_smaller_than_the_margin_keeps_every_label")),
    _s("Corollary C.8", "000", "Perturbation throughout the carry-forward learner keeps realizability.", "unchecked"),
    _s("Lemma C.9", "000", "Restatement of Lemma 8.3.", "property", LEMMA_8_3),
    _s("Corollary C.10", "000", "Depth-to-disagreement transfer.", "property", DEPTH_TRANSFER),
    _s("Corollary C.11", "000", "Utility on the original (unperturbed) distribution.", "unchecked"),
)

SEED_002 = (
    _s("Theorem 1.1", "002", "Kulkarni–Lee–Liu (2021, Thm 1.1): private convex optimisation complexity (cited; "
       "dpledger uses a named substitute optimiser).", "cited"),
    _s("Theorem 1.2", "002", "Diakonikolas et al. (2022, Thm 1.2): non-private semi-agnostic halfspace learner.", "cited"),
    _s("Algorithm 1", "002", "Private improper learner: clipped Hermite features, private L1 regression, threshold "
       "selection.", "definition", IMPROPER_PRIVACY[:1]),
    _s("Theorem 2.1 (privacy)", "002", "Algorithm 1 is (ε, δ)-DP.", "chain", IMPROPER_PRIVACY,
       ("dpledger run agnostic --algorithm improper --dim 3 --n 2000 --epsilon 1 --delta 1e-5 --seed 1",)),
    _s("Theorem 2.1 (utility)", "002", "Algorithm 1 reaches error OPT + α under Gaussian marginals with "
       "n = d^O(1/α²)·(…) samples (empirical near-OPT; the lost sample bound is rebuilt as the learner's own chain "
       "with named constants, not proved).", "empirical",
       NEAR_OPT + _in(AGNOSTIC_SAMPLE, "test_theorem_2_1_blocks_make_excess_risk_bound_within_the_allocated_budget")
       + AGNOSTIC_SAMPLE_SIZE, ("dpledger calibrate 2.1 --degree 2",)),
    _s("Theorem D.1 (privacy)", "002", "The log-concave variant of Algorithm 1 is (ε, δ)-DP.", "chain", LOG_CONCAVE_PRIVACY),
    _s("Theorem D.1 (utility)", "002", "Error OPT + α under isotropic log-concave marginals with d^exp(O(1/α)) samples.",
       "unchecked"),
    _s("Algorithm 2", "002", "Private proper learner: polynomial regression, subspace from E[∇p∇pᵀ], exponential "
       "mechanism over a cover.", "definition", PROPER_PRIVACY),
    _s("Theorem 3.1 (privacy)", "002", "Algorithm 2 is (ε, δ)-DP.", "chain", PROPER_PRIVACY,
       ("dpledger run agnostic --algorithm proper --dim 3 --n 2000 --epsilon 1 --delta 1e-5 --seed 1",)),
    _s("Theorem 3.1 (utility)", "002", "Algorithm 2 outputs a halfspace with error OPT + α (proper); sample size "
       "rebuilt as the learner's own chain (Table 1's rate survives only as Õ).", "empirical",
       NEAR_OPT + _in("learners/test_agnostic_learners.py",
                      "test_private_subspace_step_still_recovers_the_direction_at_moderate_epsilon")
       + _in(AGNOSTIC_SAMPLE, "test_theorem_3_1_validation_terms_scale_as_alpha_minus_4_and_5_at_fixed_degree",
             "test_theorem_3_1_cover_matches_the_learners_cover_size") + AGNOSTIC_SAMPLE_SIZE,
       ("dpledger calibrate 3.1 --degree 2",)),
    _s("Lemma 3.2", "002", "A polynomial with small excess loss yields a low-dimensional subspace containing a good "
       "halfspace (extended to labels in [−1, 1]).", "empirical",
       _in("learners/test_agnostic_learners.py", "test_noiseless_subspace_step_recovers_the_target_direction")),
    _s("Lemma 3.4", "002", "The private regression step outputs a polynomial with small excess squared loss for the "
       "clipped labels.", "empirical",
       _in("learners/test_agnostic_private_l1.py",
           "test_noise_free_optimiser_reaches_the_lp_optimum_within_its_excess_risk_bound",
           "test_private_optimiser_records_the_noise_it_used_and_meets_its_budget")),
    _s("Lemma 3.5", "002", "Small excess squared loss translates into classification error for the original labels.",
       "unchecked"),
    _s("Algorithm 3", "002", "Private semi-agnostic learner for a known OPT guess (noisy threshold, initialization, "
       "gradient descent).", "definition", SEMI_AGNOSTIC_PRIVACY[:1]),
    _s("Algorithm 4", "002", "Semi-agnostic learner: Algorithm 3 over a geometric grid of OPT guesses, then selection.",
       "definition", SEMI_AGNOSTIC_PRIVACY[:1]),
    _s("Theorem 4.1 (privacy)", "002", "Algorithm 4 is (ε, δ)-DP.", "chain", SEMI_AGNOSTIC_PRIVACY,
       ("dpledger run agnostic --algorithm semi-agnostic --dim 3 --n 2000 --epsilon 1 --delta 1e-5 --seed 1",)),
    _s("Theorem 4.1 (utility)", "002", "Algorithm 4 reaches error O(OPT) + α (semi-agnostic); sample size rebuilt "
       "as the learner's own chain with DKTZ22's tolerances substituted.", "empirical",
       NEAR_OPT + _in(AGNOSTIC_SAMPLE, "test_theorem_4_1_clip_radius_covers_laurent_massart_at_the_final_n")
       + AGNOSTIC_SAMPLE_SIZE, ("dpledger calibrate 4.1",)),
    _s("Proposition 4.2", "002", "With a correct OPT guess, Algorithm 3 returns a hypothesis of error O(OPT) w.h.p.",
       "unchecked"),
    _s("Claim 4.3", "002", "The noisy gradient step equals the non-private step plus Gaussian noise of bounded effect.",
       "unchecked"),
    _s("Lemma 4.4", "002", "The private threshold estimate is accurate enough for the non-private analysis.", "unchecked"),
    _s("Claim 4.5", "002", "The noisy initialization keeps a positive correlation (small angle) with the target.",
       "unchecked"),
    _s("Claim 4.6", "002", "The noisy gradient-descent iterations keep the original additive error guarantees.",
       "unchecked"),
    _s("Definition B.2", "002", "Differential privacy (Dwork et al. 2006).", "cited"),
    _s("Lemma B.3", "002", "Basic properties of DP (Dwork–Roth 2014: composition, post-processing, Gaussian "
       "mechanism).", "cited", _in(RULES, "test_gaussian_mechanisms_compose_exactly_as_one_gaussian")),
    _s("Lemma B.4", "002", "Private convex optimisation of a convex Lipschitz loss is (ε, δ)-DP (Kulkarni et al.).",
       "cited", _in("learners/test_agnostic_private_l1.py",
                    "test_private_optimiser_records_the_noise_it_used_and_meets_its_budget")),
    _s("Lemma B.5", "002", "Exponential-mechanism selection on a validation sample adds at most α error w.p. 1 − β.",
       "cited", _in("learners/test_labelboost.py", "test_proposition_3_12_exact_tail_of_the_exponential_mechanism")),
    _s("Fact B.6", "002", "Polynomial approximation of halfspaces under the Gaussian (Kalai et al. 2008).", "cited"),
    _s("Lemma B.8", "002", "Polynomials of degree ≤ D are combinations of the orthonormal Hermite features.", "property",
       _in("learners/test_agnostic_features.py", "test_hermite_features_are_orthonormal_under_the_gaussian",
           "test_recurrence_gives_normalised_probabilists_hermite")),
    _s("Lemma B.9", "002", "Hermite polynomial identities (Andrews–Askey–Roy).", "cited"),
    _s("Lemma B.10", "002", "Unit-norm polynomial approximation of every halfspace in the Hermite basis (unit norm: "
       "Bessel, checked with the closed-form coefficients; the approximation rate's constant is hidden and measured).",
       "property", _in("learners/test_agnostic_features.py", "test_lemma_b_10_halfspace_projection_has_unit_norm_coefficients",
                       "test_degree_one_over_alpha_squared_leaves_l1_error_above_alpha_not_alpha_over_three"),
       findings=(FINDING_DEGREE_CONSTANT,)),
    _s("Fact B.11", "002", "Gaussian-marginal facts from Diakonikolas–Kontonis–Tzamos–Zarifis.", "cited"),
    _s("Fact B.12", "002", "Gaussian-marginal facts from Diakonikolas–Kontonis–Tzamos–Zarifis.", "cited"),
    _s("Fact B.13", "002", "Exponential density bound for one-dimensional log-concave distributions.", "cited"),
    _s("Lemma B.14", "002", "Weighted polynomial approximation for exponential weights (Lubinsky 2007).", "cited"),
    _s("Lemma B.15", "002", "Weighted approximation with weight exp(−|x|) (Freud et al. 1978; Lubinsky 2007).", "cited"),
    _s("Proposition C.1", "002", "Privacy of Algorithm 1: each regression run is DP and the runs touch disjoint "
       "blocks.", "chain", IMPROPER_PRIVACY),
    _s("Lemma C.2", "002", "Clipping the feature vectors raises the population loss by at most the clipping "
       "probability, which is small.", "unchecked"),
    _s("Claim C.2", "002", "Claim C.2 of Diakonikolas et al. (2022), reused with noise orthogonal to the iterate.",
       "cited"),
    _s("Lemma C.3", "002", "Lemma C.3 of Diakonikolas et al. (2022).", "cited"),
    _s("Corollary C.8", "002", "Corollary C.8 of Diakonikolas et al. (2022): angle contraction.", "cited"),
    _s("Claim C.9", "002", "DP analogue of Claim C.9 of Diakonikolas et al. (2022) with the threshold argument "
       "clipped to ρ.", "unchecked"),
    _s("Lemma C.12", "002", "DP analogue of Lemma C.12 of Diakonikolas et al. (2022): additive error unaffected by "
       "the noise.", "unchecked"),
    _s("Proposition D.2", "002", "Privacy of the log-concave learner.", "chain", LOG_CONCAVE_PRIVACY),
    _s("Lemma D.3", "002", "Polynomial approximation under log-concave marginals with a universal constant "
       "(coefficient-ball radius).", "unchecked"),
    _s("Proposition F.1", "002", "Algorithm 4 (hence Algorithm 3 on each block) satisfies (ε, δ)-DP.", "chain",
       SEMI_AGNOSTIC_PRIVACY),
    _s("Assumption F.2", "002", "Concentration assumption used in the semi-agnostic accuracy proof.", "unchecked"),
    _s("Lemma F.3", "002", "Per-sample bound combined with Assumption F.2 by a union bound.", "unchecked"),
)

REGISTRY: tuple[Statement, ...] = SEED_000 + SEED_002


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
        raise ValueError(f"no statement {sorted(unknown)[0]!r} in the registry (ids look like 'Lemma 6.2' or "
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
