"""The Java, C++ and Python renderings of PACIFIC agree with the reference implementations.

For each language one harness program holds all 22 rendered functions and a main that
reads ``<paper_id>\\t<input>`` lines from stdin and prints one output per line. The
programs are compiled (``javac``, ``g++``) and run as subprocesses; nothing rendered is
executed inside the test process. Every instruction gets more than 1,000 seeded random
inputs from its documented domain, and every output must equal the reference.
"""

from __future__ import annotations

import random
import shutil
import string
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adhere.suites.pacific._instructions import INSTRUCTIONS, Instruction
from adhere.suites.pacific._render import HEADERS_CPP, function_name, render_code

pytestmark = pytest.mark.slow

MIN_INPUTS = 1000
RUN_TIMEOUT = 120
STRING_POOL = string.ascii_letters + string.digits + " " + string.punctuation
ALL_PRINTABLE = "".join(chr(code) for code in range(32, 127))

Case = tuple[int, str, str]  # paper_id, input as text, expected output as text


def _int_inputs(rng: random.Random, bound: int) -> list[int]:
    values = [0, 1, -1, 2, -2, bound - 1, -(bound - 1)]
    power = 1
    while power < bound:
        for near in (power - 1, power, power + 1):
            values += [v for v in (near, -near) if -bound < v < bound]
        power *= 2
    values += [rng.randint(-50, 1000) for _ in range(450)]
    values += [rng.randrange(-bound + 1, bound) for _ in range(450)]
    values += [10000 * rng.randint(-200_000, 200_000) + rng.randint(-2, 2) for _ in range(100)]
    return values


def _random_text(rng: random.Random, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))


def _str_inputs(rng: random.Random) -> list[str]:
    values = ["", "a", "z", "A", "Z", "m", "M", "y", "IBM", " ", "~", ALL_PRINTABLE, "zZ" * 20]
    values += [_random_text(rng, STRING_POOL) for _ in range(500)]
    values += [_random_text(rng, string.ascii_letters) for _ in range(500)]
    values += [
        "".join(sorted(_random_text(rng, STRING_POOL))) + _random_text(rng, STRING_POOL)
        for _ in range(100)
    ]
    return values


def _inputs_for(instruction: Instruction) -> list[int] | list[str]:
    rng = random.Random(1000 + instruction.paper_id)
    if instruction.in_type == "int":
        return _int_inputs(rng, instruction.int_bound)
    return _str_inputs(rng)


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    collected: list[Case] = []
    for instruction in INSTRUCTIONS:
        inputs = _inputs_for(instruction)
        assert len(inputs) >= MIN_INPUTS
        for value in inputs:
            assert instruction.accepts(value), (instruction.name, value)
            collected.append((instruction.paper_id, str(value), str(instruction(value))))
    return collected


def _require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(
            f"`{tool}` was not found on PATH. The PACIFIC rendering tests compile and run "
            "the Java and C++ renderings; install a JDK (javac, java) and g++ "
            "(the test setup script does this) and run again.",
            pytrace=False,
        )
    return path


def _run(command: list[str], *, stdin: str = "", cwd: Path) -> str:
    completed = subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert completed.returncode == 0, (
        f"{' '.join(command)} exited with {completed.returncode}:\n{completed.stderr[-4000:]}"
    )
    return completed.stdout


def _check_outputs(stdout: str, cases: list[Case], language: str) -> None:
    assert stdout.endswith("\n"), f"{language}: output does not end with a newline"
    outputs = stdout[:-1].split("\n")
    assert len(outputs) == len(cases), f"{language}: {len(outputs)} lines for {len(cases)} inputs"
    mismatches = [
        f"  #{paper_id} input={value!r}: expected {expected!r}, got {got!r}"
        for (paper_id, value, expected), got in zip(cases, outputs, strict=True)
        if got != expected
    ]
    assert not mismatches, (
        f"{language}: {len(mismatches)} outputs differ from the reference:\n"
        + "\n".join(mismatches[:20])
    )


def _stdin_for(cases: list[Case]) -> str:
    return "".join(f"{paper_id}\t{value}\n" for paper_id, value, _ in cases)


# --- Java ---------------------------------------------------------------------------


def _java_harness() -> str:
    methods = "\n\n".join(render_code(ins.paper_id, "java") for ins in INSTRUCTIONS)
    branches = []
    for ins in INSTRUCTIONS:
        argument = "Long.parseLong(input)" if ins.in_type == "int" else "input"
        call = f"{function_name(ins.paper_id, 'java')}({argument})"
        result = f"String.valueOf({call})" if ins.out_type == "int" else call
        branches.append(f"case {ins.paper_id}: return {result};")
    dispatch = textwrap.indent("\n".join(branches), " " * 12)
    main = f"""
static String run(int id, String input) {{
    switch (id) {{
{dispatch}
        default: throw new IllegalArgumentException("unknown instruction " + id);
    }}
}}

public static void main(String[] args) throws java.io.IOException {{
    java.io.BufferedReader reader = new java.io.BufferedReader(
        new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.US_ASCII));
    StringBuilder out = new StringBuilder();
    String line;
    while ((line = reader.readLine()) != null) {{
        int tab = line.indexOf('\\t');
        out.append(run(Integer.parseInt(line.substring(0, tab)), line.substring(tab + 1)));
        out.append('\\n');
    }}
    System.out.print(out);
    System.out.flush();
}}
"""
    body = textwrap.indent(methods + "\n" + main, " " * 4)
    return f"public class Harness {{\n{body}}}\n"


def test_java_renderings(cases: list[Case], tmp_path: Path) -> None:
    javac = _require("javac")
    java = _require("java")
    (tmp_path / "Harness.java").write_text(_java_harness(), encoding="utf-8")
    _run([javac, "-Xlint:all", "-Werror", "-d", str(tmp_path), "Harness.java"], cwd=tmp_path)
    stdout = _run([java, "-cp", str(tmp_path), "Harness"], stdin=_stdin_for(cases), cwd=tmp_path)
    _check_outputs(stdout, cases, "java")


# --- C++ ----------------------------------------------------------------------------


def _cpp_harness() -> str:
    includes = "\n".join(f"#include {header}" for header in HEADERS_CPP)
    functions = "\n\n".join(render_code(ins.paper_id, "cpp") for ins in INSTRUCTIONS)
    branches = []
    for ins in INSTRUCTIONS:
        argument = "std::stoll(input)" if ins.in_type == "int" else "input"
        call = f"{function_name(ins.paper_id, 'cpp')}({argument})"
        result = f"std::to_string({call})" if ins.out_type == "int" else call
        branches.append(f"        case {ins.paper_id}: return {result};")
    dispatch = "\n".join(branches)
    # <iostream> comes after the rendered functions so they compile with HEADERS_CPP alone.
    return f"""{includes}

{functions}

#include <iostream>

std::string run(int id, const std::string& input) {{
    switch (id) {{
{dispatch}
    }}
    std::abort();
}}

int main() {{
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {{
        std::size_t tab = line.find('\\t');
        std::cout << run(std::stoi(line.substr(0, tab)), line.substr(tab + 1)) << '\\n';
    }}
    return 0;
}}
"""


def test_cpp_renderings(cases: list[Case], tmp_path: Path) -> None:
    gxx = _require("g++")
    source = tmp_path / "harness.cpp"
    binary = tmp_path / "harness"
    source.write_text(_cpp_harness(), encoding="utf-8")
    flags = ["-O2", "-std=c++17", "-Wall", "-Wextra", "-Werror"]
    _run([gxx, *flags, "-o", str(binary), str(source)], cwd=tmp_path)
    stdout = _run([str(binary)], stdin=_stdin_for(cases), cwd=tmp_path)
    _check_outputs(stdout, cases, "cpp")


# --- Python -------------------------------------------------------------------------


def _python_harness() -> str:
    functions = "\n\n\n".join(render_code(ins.paper_id, "python") for ins in INSTRUCTIONS)
    entries = "\n".join(
        f"        {ins.paper_id}: ({function_name(ins.paper_id, 'python')}, {ins.in_type}),"
        for ins in INSTRUCTIONS
    )
    # The import lives inside main so the rendered functions are checked to need none.
    return f"""{functions}


def main() -> None:
    import sys

    handlers = {{
{entries}
    }}
    out = []
    for line in sys.stdin.read().split("\\n"):
        if not line:
            continue
        paper_id, value = line.split("\\t", 1)
        function, parse = handlers[int(paper_id)]
        out.append(str(function(parse(value))))
    sys.stdout.write("\\n".join(out) + "\\n")


if __name__ == "__main__":
    main()
"""


def test_python_renderings(cases: list[Case], tmp_path: Path) -> None:
    script = tmp_path / "harness.py"
    script.write_text(_python_harness(), encoding="utf-8")
    stdout = _run([sys.executable, "-I", str(script)], stdin=_stdin_for(cases), cwd=tmp_path)
    _check_outputs(stdout, cases, "python")
