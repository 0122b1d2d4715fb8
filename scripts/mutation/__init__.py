"""Mutation testing of the modules where scores are computed (``bash scripts/mutation.sh``).

Not run in CI (it takes minutes per module). cosmic-ray makes the mutants; each one is
tested by the module's mapped tests (:mod:`scripts.mutation._targets`) in a forked,
pre-warmed pytest (:mod:`scripts.mutation._worker`) inside a temporary copy of the
repository, so the checkout is never changed. Equivalent mutants are listed with a
reason in ``scripts/mutation/equivalents.toml`` (or marked ``# pragma: no mutate``)
and left out of the score. See docs/development.md.
"""
