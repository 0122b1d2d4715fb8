"""The built-in VeriCode tasks in the sandbox: each reference solution passes its tests and
its mutation (the noisy double's broken answer) fails them."""

import asyncio

from adhere.scoring._evidence import sandbox_evidence
from adhere.suites.vericode import break_solution, builtin_tasks
from adhere.suites.vericode._verdicts import sandbox


def test_references_pass_and_mutations_fail():
    tasks = builtin_tasks()

    async def main():
        runs = []
        for task in tasks:
            runs.append(sandbox_evidence(sandbox(f"{task.id}/ok", task, task.solution, "auto")))
            broken = break_solution(task, task.solution)
            assert broken != task.solution
            runs.append(sandbox_evidence(sandbox(f"{task.id}/broken", task, broken, "auto")))
        return await asyncio.gather(*runs)

    found = {e.id: e for e in asyncio.run(main())}
    for task in tasks:
        assert found[f"{task.id}/ok"].status == "pass", (task.id, found[f"{task.id}/ok"].detail)
        assert found[f"{task.id}/broken"].status in ("fail", "crash"), task.id
