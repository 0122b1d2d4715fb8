"""`adhere plan` prints tokens and cost per model for the examples."""

import re

from tests.helpers import ROOT, run_cli


def test_plan_prints_tokens_and_cost_for_the_quickstart() -> None:
    files = sorted(str(p) for p in (ROOT / "examples" / "quickstart").glob("*.yaml"))
    done = run_cli("plan", *files, "--prices", str(ROOT / "examples" / "prices.yaml"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("Estimated tokens and cost per model:")
    assert lines[start + 1].split() == [
        "model",
        "trials",
        "input",
        "tokens",
        "output",
        "tokens",
        "cost",
    ]
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("  ") or line.startswith(("  total", "  (estimate")):
            break
        name, trials, inputs, outputs, cost = line.split()
        rows[name] = (
            int(trials),
            int(inputs.replace(",", "")),
            int(outputs.replace(",", "")),
            cost,
        )
    assert set(rows) == {"oracle", "noisy"}
    # examples/prices.yaml: oracle 1 / 4 USD per million, noisy* 0.5 / 2.
    for name, (per_in, per_out) in {"oracle": (1.0, 4.0), "noisy": (0.5, 2.0)}.items():
        trials, inputs, outputs, cost = rows[name]
        assert trials == 36 and inputs > 0 and outputs == 36 * 300  # one turn, one call each
        assert cost == f"${(inputs * per_in + outputs * per_out) / 1e6:,.2f}"
    total = next(line for line in lines if line.startswith("  total: "))
    assert re.fullmatch(r"  total: \$\d+\.\d\d", total)
    unpriced = run_cli("plan", *files)
    assert unpriced.returncode == 0, unpriced.stderr
    assert unpriced.stdout.count("no price") == 2 and "total:" not in unpriced.stdout
