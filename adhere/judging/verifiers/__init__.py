"""Built-in deterministic verifiers, one module per family.

Each module registers its verifiers with :func:`adhere.judging._verify.verifier` when
imported; the registry imports a module the first time one of its names is looked up.

=========================  ==================================================
module                     verifiers
=========================  ==================================================
``_emoji``                 ``no_emoji``, ``uses_emoji``
``_matches``               ``reply_matches``
``_language``              ``reply_language``
``_length``                ``length_limit``
``_commands``              ``command_executed``, ``tests_run``
``_order``                 ``tool_order``, ``read_before_edit``
``_schema``                ``tool_args_valid``, ``no_invented_results``
``_files``                 ``file_rules``, ``memory_updated``
``_code``                  ``code_rules`` (AST rules, and ruff through ``_ruff``)
``_skills``                ``skill_invoked``
=========================  ==================================================

Shared helpers: ``_replies`` (which assistant text a check looks at), ``_calls`` (tool
calls and the role each plays), ``_shell`` (shell command parsing), ``_paths``
(workspace-relative paths and globs), ``_langdetect`` (the language detector).
"""

from adhere.judging.verifiers._ruff import (
    Diagnostic,
    RuffOptions,
    check_files,
    toml_setting,
    write_files,
)

__all__ = [
    "Diagnostic",
    "RuffOptions",
    "check_files",
    "toml_setting",
    "write_files",
]
