"""Pure decisions: a finished process's status and detail, and stdout comparison.

Evidence, strongest first: the evaluator's own wall-clock kill; a death by signal
(seen directly, or reported by the harness's PID-1 init, which also reports CPU time);
the harness's outcome line; the exit status.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from adhere.sandbox._types import Status

__all__ = ["Mode", "Decision", "classify", "compare_output", "normalize_output", "parse_records"]

Mode = Literal["script", "asserts", "unittest"]


@dataclass(frozen=True)
class Decision:
    """Status and one-line detail of a run."""

    status: Status
    detail: str


def parse_records(data: bytes) -> list[dict[str, Any]]:
    """The harness's tab-separated lines as dicts (unreadable lines are skipped).

    ``status <status> <detail>`` → ``{"status", "detail"}``; ``exit <code> <cpu>`` and
    ``signal <number> <cpu>`` → ``{"exit"|"signal": int, "cpu": float}``.
    """
    records: list[dict[str, Any]] = []
    for line in data.decode("utf-8", "replace").splitlines():
        fields = line.split("\t")
        try:
            if fields[0] == "status" and len(fields) == 3:
                records.append({"status": fields[1], "detail": fields[2]})
            elif fields[0] in ("exit", "signal") and len(fields) == 3:
                records.append({fields[0]: int(fields[1]), "cpu": float(fields[2])})
        except ValueError:
            continue
    return records


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def classify(
    mode: Mode,
    *,
    timed_out: bool,
    timeout: float,
    returncode: int | None,
    records: Sequence[dict[str, Any]],
    cpu_limit: int,
    stderr: str = "",
    seconds: float = 0.0,
) -> Decision:
    """Decide how a run ended.

    Args:
        mode: The harness mode; in the test modes a pass needs the harness's own
            ``pass`` line, in ``script`` mode exit status 0 suffices.
        timed_out: The evaluator killed the process group at the wall-clock limit.
        timeout: That limit (for the detail).
        returncode: The exit status (negative: the signal that killed it).
        records: The harness's JSON lines.
        cpu_limit: The CPU limit in seconds (a SIGKILL after that much CPU time is
            the hard CPU limit, not a crash).
        stderr: Captured stderr; its last line explains an exit without an outcome.
        seconds: Wall-clock seconds of the run: without the init's CPU figure, a
            SIGKILL after more than the hard CPU limit is taken for that limit.
    """
    if timed_out:
        return Decision(
            "timeout", f"wall-clock limit of {timeout:g} s exceeded; process group killed"
        )
    outcome = next((r for r in reversed(records) if "status" in r), None)
    death = next((r for r in records if "signal" in r), None)
    cpu = death.get("cpu") if death else None
    sig: int | None = None
    if death is not None and isinstance(death.get("signal"), int):
        sig = death["signal"]
    elif returncode is not None and returncode < 0:
        sig = -returncode
    if sig is not None:
        name = _signal_name(sig)
        if sig == signal.SIGXCPU:
            return Decision("timeout", f"CPU limit of {cpu_limit} s exceeded ({name})")
        if sig == signal.SIGKILL and isinstance(cpu, int | float) and cpu >= cpu_limit:
            return Decision("timeout", f"CPU hard limit of {cpu_limit + 1} s exceeded ({name})")
        if sig == signal.SIGKILL and cpu is None and seconds >= cpu_limit + 1:
            return Decision(
                "timeout", f"killed by {name} after {seconds:.1f} s, most likely the CPU hard limit"
            )
        if sig == signal.SIGXFSZ:
            return Decision("crash", f"killed by {name} (file size limit exceeded)")
        return Decision("crash", f"killed by {name}")
    if outcome is None:
        if returncode == 0:
            if mode == "script":
                return Decision("pass", "")
            return Decision("crash", "exited with status 0 before the tests ended")
        why = _last_line(stderr)
        detail = f"exit status {returncode}" + (f": {why}" if why else "")
        return Decision("fail" if mode == "script" else "crash", detail)
    status = str(outcome.get("status"))
    detail = str(outcome.get("detail", ""))
    if status not in ("pass", "fail", "crash"):
        return Decision("crash", f"harness: unknown outcome {status!r}")
    if mode == "script":
        if returncode == 0:
            return Decision("pass", "")
        if status == "pass":
            return Decision("fail", f"exit status {returncode} after the program ended")
    elif status == "pass" and returncode != 0:
        return Decision("crash", f"exit status {returncode} after the tests passed")
    return Decision(status, detail)  # type: ignore[arg-type]


def normalize_output(text: str) -> list[str]:
    """Lines with runs of whitespace collapsed and ends stripped; trailing blank lines dropped."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _show(line: str, limit: int = 80) -> str:
    return repr(line if len(line) <= limit else line[: limit - 1] + "…")


def compare_output(expected: str, actual: str) -> str | None:
    """``None`` when the outputs agree after :func:`normalize_output`, else where not."""
    want, got = normalize_output(expected), normalize_output(actual)
    for number, (w, g) in enumerate(zip(want, got, strict=False), start=1):
        if w != g:
            return f"line {number}: expected {_show(w)}, got {_show(g)}"
    if len(want) != len(got):
        return f"expected {len(want)} lines, got {len(got)}"
    return None
