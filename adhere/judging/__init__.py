"""Judging: verifiers, the LLM judge, panels, agreement, the verdict cache, checklist generation.

Pure: model calls are injected as an ``ask`` callable (see :class:`JudgeCall`); this
package never opens a connection.
"""

from adhere.judging._agreement import (
    ItemKey,
    PairAgreement,
    PanelAgreement,
    cohen_kappa,
    exact_match,
    fleiss_kappa,
    panel_agreement,
    verdict_labels,
)
from adhere.judging._agreement_human import (
    HumanAgreement,
    HumanLabel,
    human_agreement,
    load_human_labels,
    resolve_human_labels,
)
from adhere.judging._agreement_ranks import RankStability, kendall_tau, rank_stability
from adhere.judging._cache import MemoryVerdictCache, VerdictCache, cache_key, trajectory_digest
from adhere.judging._checkgen import (
    MERGE_MODES,
    MergeMode,
    ReferenceRollout,
    generate_checklist,
    llm_merge,
    propose_checks,
)
from adhere.judging._checkgen_categories import category_named
from adhere.judging._checkgen_merge import (
    DEFAULT_SIMILARITY,
    GeneratedChecklist,
    MergedCheck,
    RolloutProposals,
    merge_proposals,
)
from adhere.judging._checkgen_merge_prompt import (
    MERGE_PROMPT_VERSION,
    Candidate,
    merge_candidates,
    read_merge_candidates,
    render_merge_user,
)
from adhere.judging._checkgen_merge_reply import MergeDraft, ParsedMerge, parse_merge_reply
from adhere.judging._checkgen_prompt import (
    CHECKGEN_PROMPT_VERSION,
    InstructionBlock,
    read_instruction_blocks,
    read_turns,
)
from adhere.judging._checkgen_reply import ProposedCheck, parse_checkgen_reply
from adhere.judging._checkgen_skill import SKILL_RULE, apply_skill_rule, skill_rule_checks
from adhere.judging._checkgen_yaml import render_checklist_yaml
from adhere.judging._conflict_judge import (
    CONFLICT_CHECK_ID,
    conflict_cache_key,
    judge_conflict,
    run_conflict_panel,
)
from adhere.judging._conflict_prompt import (
    BEGIN_CONFLICT,
    CONFLICT_PROMPT_VERSION,
    ConflictAnswer,
    ConflictQuestion,
    ConflictReplyError,
    ConflictSide,
    parse_conflict_reply,
    read_conflict_question,
    render_conflict_user,
)
from adhere.judging._feedback import (
    FEEDBACK_FORMAT,
    FeedbackItem,
    Placement,
    feedback_items,
    find_feedback,
    inject_feedback,
    render_feedback,
    strip_feedback,
)
from adhere.judging._judge import judge_trial
from adhere.judging._judge_batches import Grouping, plan_batches, prompt_tokens
from adhere.judging._judge_call import Ask, JudgeCall
from adhere.judging._judge_reply import ParsedReply, parse_reply
from adhere.judging._panel import (
    PanelJudge,
    PanelResult,
    endpoint_key,
    majority_vote,
    run_panel,
    served_at,
)
from adhere.judging._panel_scores import (
    PanelScore,
    category_trials,
    judge_trials,
    panel_scores,
    scores_by_judge,
)
from adhere.judging._prefix import ORDERINGS, Ordering, PrefixGate
from adhere.judging._prompt import (
    JUDGE_SYSTEM,
    PROMPT_VERSION,
    PromptItem,
    read_checklist,
    read_transcript,
    render_user,
)
from adhere.judging._prompt_condition import effective_condition, infer_condition
from adhere.judging._verify import (
    ENTRY_POINT_GROUP,
    Outcome,
    OutcomeResult,
    RegisteredVerifier,
    Verifier,
    VerifierParams,
    VerifyContext,
    get_verifier,
    verifier,
    verifier_names,
)
from adhere.judging._verify_bindings import Binding, Bindings, load_bindings, parse_bindings
from adhere.judging._verify_run import needs_judge, run_check, run_checks, validate_checks

__all__ = [
    "BEGIN_CONFLICT",
    "CONFLICT_CHECK_ID",
    "conflict_cache_key",
    "judge_conflict",
    "run_conflict_panel",
    "CONFLICT_PROMPT_VERSION",
    "ConflictAnswer",
    "ConflictQuestion",
    "ConflictReplyError",
    "ConflictSide",
    "parse_conflict_reply",
    "read_conflict_question",
    "render_conflict_user",
    "Ask",
    "Binding",
    "Bindings",
    "CHECKGEN_PROMPT_VERSION",
    "Candidate",
    "DEFAULT_SIMILARITY",
    "ENTRY_POINT_GROUP",
    "FEEDBACK_FORMAT",
    "FeedbackItem",
    "GeneratedChecklist",
    "Grouping",
    "HumanAgreement",
    "HumanLabel",
    "InstructionBlock",
    "ItemKey",
    "JUDGE_SYSTEM",
    "JudgeCall",
    "MERGE_MODES",
    "MERGE_PROMPT_VERSION",
    "MemoryVerdictCache",
    "MergeDraft",
    "MergeMode",
    "MergedCheck",
    "ORDERINGS",
    "Ordering",
    "Outcome",
    "OutcomeResult",
    "PROMPT_VERSION",
    "PairAgreement",
    "PanelAgreement",
    "PanelJudge",
    "PanelResult",
    "PanelScore",
    "ParsedMerge",
    "ParsedReply",
    "Placement",
    "PrefixGate",
    "PromptItem",
    "ProposedCheck",
    "RankStability",
    "ReferenceRollout",
    "RegisteredVerifier",
    "RolloutProposals",
    "SKILL_RULE",
    "VerdictCache",
    "Verifier",
    "VerifierParams",
    "VerifyContext",
    "apply_skill_rule",
    "cache_key",
    "category_named",
    "category_trials",
    "cohen_kappa",
    "effective_condition",
    "endpoint_key",
    "exact_match",
    "feedback_items",
    "find_feedback",
    "fleiss_kappa",
    "generate_checklist",
    "get_verifier",
    "human_agreement",
    "infer_condition",
    "inject_feedback",
    "judge_trial",
    "judge_trials",
    "kendall_tau",
    "llm_merge",
    "load_bindings",
    "load_human_labels",
    "majority_vote",
    "merge_candidates",
    "merge_proposals",
    "needs_judge",
    "panel_agreement",
    "panel_scores",
    "parse_bindings",
    "parse_checkgen_reply",
    "parse_merge_reply",
    "parse_reply",
    "plan_batches",
    "prompt_tokens",
    "propose_checks",
    "rank_stability",
    "read_checklist",
    "read_instruction_blocks",
    "read_merge_candidates",
    "read_transcript",
    "read_turns",
    "render_checklist_yaml",
    "render_feedback",
    "render_merge_user",
    "render_user",
    "resolve_human_labels",
    "run_check",
    "run_checks",
    "run_panel",
    "scores_by_judge",
    "served_at",
    "skill_rule_checks",
    "strip_feedback",
    "trajectory_digest",
    "validate_checks",
    "verdict_labels",
    "verifier",
    "verifier_names",
]
