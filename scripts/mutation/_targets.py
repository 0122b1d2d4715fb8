"""Which modules are mutated by default, and which tests each one's mutants must fail.

Only the tests mapped to a module run against its mutants, so a run stays minutes,
not hours. A module's tests are the unit tests that exercise it; when you add a test
file for a module, add it here too, or its kills will not count.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The modules where scores are computed (issue 18), in the order they are run.
DEFAULT_MODULES: tuple[str, ...] = (
    "adhere/metrics/_rates.py",
    "adhere/metrics/_delta.py",
    "adhere/judging/_judge_reply.py",
    "adhere/judging/_panel.py",
    "adhere/judging/_panel_scores.py",
    "adhere/judging/verifiers/_activity.py",
    "adhere/judging/verifiers/_calls.py",
    "adhere/judging/verifiers/_code.py",
    "adhere/judging/verifiers/_commands.py",
    "adhere/judging/verifiers/_emoji.py",
    "adhere/judging/verifiers/_files.py",
    "adhere/judging/verifiers/_langdetect.py",
    "adhere/judging/verifiers/_language.py",
    "adhere/judging/verifiers/_length.py",
    "adhere/judging/verifiers/_matches.py",
    "adhere/judging/verifiers/_order.py",
    "adhere/judging/verifiers/_paths.py",
    "adhere/judging/verifiers/_replies.py",
    "adhere/judging/verifiers/_ruff.py",
    "adhere/judging/verifiers/_schema.py",
    "adhere/judging/verifiers/_shell.py",
    "adhere/judging/verifiers/_skills.py",
    "adhere/suites/pacific/_instructions.py",
    "adhere/suites/manyih/_check_defs.py",
    "adhere/suites/manyih/_check_layout.py",
    "adhere/suites/manyih/_check_lexical.py",
    "adhere/suites/manyih/_check_names.py",
    "adhere/suites/manyih/_checkers.py",
    "adhere/suites/vericode/_checks.py",
    "adhere/suites/vericode/_paper_rules.py",
    "adhere/suites/guidebench/_normalize.py",
    "adhere/runner/_fingerprint.py",
    # Undecided and incomplete: Table 4's side attribution (ISR/CSR's rule is _rates).
    "adhere/metrics/_conflict.py",
    # Regression statistics (last: the slowest tests).
    "adhere/metrics/_pairing.py",
    "adhere/metrics/_significance.py",
    "adhere/metrics/_intervals.py",
    "adhere/metrics/_regression.py",
)

_VERIFIER_TESTS = (
    "tests/unit/judging/test_verifiers_*.py",
    "tests/unit/judging/test_verif_*.py",
    "tests/unit/judging/test_verify_registry.py",
    "tests/unit/judging/test_verify_bindings.py",
)

# (module glob, test files or globs of them) — the first matching module glob wins.
TESTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "adhere/metrics/_rates.py",
        (
            "tests/unit/test_metrics_rates.py",
            "tests/unit/test_metrics.py",
            "tests/unit/test_metrics_faults.py",
            "tests/unit/test_paper_tables.py",
            "tests/unit/test_metrics_delta.py",
            "tests/unit/judging/test_panel.py",
            "tests/unit/guidebench/test_gb_metrics.py",
            "tests/unit/vericode/test_vc_metrics.py",
            "tests/unit/manyih/test_mih_suite.py",
        ),
    ),
    (
        "adhere/metrics/_delta.py",
        ("tests/unit/test_metrics_delta.py", "tests/unit/test_metrics_rates.py"),
    ),
    (
        "adhere/metrics/_regression.py",
        (
            "tests/unit/test_metrics_regression_edges.py",
            "tests/unit/test_metrics_regression.py",
            "tests/unit/test_metrics_significance.py",
            "tests/unit/test_metrics_intervals.py",
            "tests/unit/test_metrics_pairing.py",
        ),
    ),
    (
        "adhere/metrics/_pairing.py",
        (
            "tests/unit/test_metrics_pairing.py",
            "tests/unit/test_metrics_regression.py",
            "tests/unit/test_bad_input.py",
        ),
    ),
    (
        "adhere/metrics/_significance.py",
        ("tests/unit/test_metrics_significance.py", "tests/unit/test_metrics_regression.py"),
    ),
    (
        "adhere/metrics/_intervals.py",
        (
            "tests/unit/test_metrics_intervals.py",
            "tests/unit/test_metrics_interval_edges.py",
            "tests/unit/test_metrics_regression.py",
        ),
    ),
    (
        "adhere/judging/_judge_reply.py",
        ("tests/unit/judging/test_judge_reply.py", "tests/unit/judging/test_judge_policy.py"),
    ),
    (
        "adhere/judging/_panel*.py",
        (
            "tests/unit/judging/test_panel.py",
            "tests/unit/judging/test_panel_vote.py",
            "tests/unit/judging/test_judge_order.py",
        ),
    ),
    ("adhere/judging/verifiers/_ruff.py", (*_VERIFIER_TESTS, "tests/unit/vericode")),
    ("adhere/judging/verifiers/*.py", _VERIFIER_TESTS),
    (
        "adhere/suites/pacific/_instructions.py",
        (
            "tests/unit/pacific/test_instructions.py",
            "tests/unit/pacific/test_suite.py",
            "tests/unit/pacific/test_parse.py",
        ),
    ),
    (
        "adhere/suites/manyih/_check*.py",
        (
            "tests/unit/manyih/test_mih_checkers.py",
            "tests/unit/manyih/test_mih_check_edges.py",
            "tests/unit/manyih/test_mih_check_rules.py",
            "tests/unit/manyih/test_mih_restyle.py",
        ),
    ),
    ("adhere/suites/vericode/_checks.py", ("tests/unit/vericode",)),
    (
        "adhere/suites/vericode/_paper_rules.py",
        ("tests/unit/vericode/test_vc_paper_rules.py", "tests/unit/vericode/test_vc_protocol.py"),
    ),
    (
        "adhere/metrics/_conflict.py",
        (
            "tests/unit/test_metrics_conflict_undecided.py",
            "tests/unit/test_metrics_conflict.py",
            "tests/unit/judging/test_conflict_judge.py",
        ),
    ),
    (
        "adhere/suites/guidebench/_normalize.py",
        (
            "tests/unit/guidebench/test_gb_normalize.py",
            "tests/unit/guidebench/test_gb_parse.py",
            "tests/unit/guidebench/test_gb_metrics.py",
            "tests/unit/guidebench/test_gb_suite.py",
        ),
    ),
    (
        "adhere/runner/_fingerprint.py",
        (
            "tests/unit/runner/test_fingerprint.py",
            "tests/unit/runner/test_fingerprint_parts.py",
            "tests/unit/runner/test_reuse.py",
        ),
    ),
)


def mapped_tests(module: str, root: Path = ROOT) -> tuple[str, ...]:
    """The test files mapped to ``module`` (a repository-relative path); empty if none.

    Globs among them are expanded (sorted) against ``root``.
    """
    for pattern, tests in TESTS:
        if fnmatch(module, pattern):
            found: list[str] = []
            for test in tests:
                if any(char in test for char in "*?["):
                    found.extend(sorted(str(p.relative_to(root)) for p in root.glob(test)))
                else:
                    found.append(test)
            return tuple(dict.fromkeys(found))
    return ()
