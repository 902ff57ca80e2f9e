"""Step executor (planning.md "Execute"): order, statuses, skips, retries, refs, dedupe.

The tools here are fakes handed to the executor (no global registry change): `note` reads,
`mark` writes a task's name, `refuse` fails deterministically, `flaky` raises before it works.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from planner_cli.engine.executor import MAX_ATTEMPTS, execute, execution_order
from planner_cli.errors import InputError
from planner_cli.model.plan import parse_plan
from planner_cli.model.state import DayMap, ScheduleState, Task, Window
from planner_cli.tools.common import ToolContext, ToolResult
from planner_cli.tools.registry import ToolArgs


class NoteArgs(ToolArgs):
    """Read: answers {"value": n, "slots": [{"day": n}]}."""

    n: int = 0


class MarkArgs(ToolArgs):
    """Write: renames a task."""

    task_id: int
    name: str = "x"


class RefuseArgs(ToolArgs):
    """Write that always refuses."""

    why: str = "no"


class FlakyArgs(ToolArgs):
    """Write that raises `fails` times in a row, then succeeds."""

    fails: int = 1


SPECS = {
    "note": SimpleNamespace(args=NoteArgs, kind="read"),
    "mark": SimpleNamespace(args=MarkArgs, kind="write"),
    "refuse": SimpleNamespace(args=RefuseArgs, kind="write"),
    "flaky": SimpleNamespace(args=FlakyArgs, kind="write"),
}


def make_state() -> ScheduleState:
    window = Window(total_days=2, day_mapping=[DayMap(day_index=1, week=1, day_of_week=1)])
    tasks = [
        Task(
            state_id=i, source="task_item", source_id=i, name=f"t{i}", status="pending", duration=2
        )
        for i in (1, 2, 3)
    ]
    return ScheduleState(window=window, tasks=tasks)


class Tools:
    """The fake runner: records calls (tool, args) in call order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.flaky_seen = 0
        self.lock = threading.Lock()
        self.threads: set[int] = set()

    def __call__(self, name: str, state: ScheduleState, args: dict, ctx: ToolContext) -> ToolResult:
        with self.lock:
            self.calls.append((name, dict(args)))
            self.threads.add(threading.get_ident())
        if name == "note":
            n = args.get("n", 0)
            return ToolResult(True, f"note {n}", state, {"value": n, "slots": [{"day": n}]})
        if name == "mark":
            new = state.clone()
            task = new.task(args["task_id"])
            assert task is not None
            task.name = args.get("name", "x")
            return ToolResult(True, f"marked {task.state_id}", new, {}, changed=[task.state_id])
        if name == "refuse":
            return ToolResult(False, "移动失败：refused", state, {"error": "refused"})
        if name == "flaky":
            self.flaky_seen += 1
            if self.flaky_seen <= args.get("fails", 1):
                raise TimeoutError("solver time-out")
            return ToolResult(True, "flaky ok", state.clone(), {}, changed=[])
        raise AssertionError(name)


def run(*steps: dict, tools: Tools | None = None):
    tools = tools or Tools()
    data = {"goal": "t", "steps": list(steps)}
    plan = parse_plan(data, "p", specs=SPECS)
    events: list[tuple[str, dict]] = []
    result = execute(
        plan,
        make_state(),
        ToolContext(),
        runner=tools,
        emit=lambda stage, **f: events.append((stage, f)),
    )
    return result, tools, events


def step(sid, tool, args=None, deps=()):
    return {"id": sid, "tool": tool, "args": args or {}, "depends_on": list(deps)}


def test_dependency_order_with_ties_by_natural_id():
    result, tools, _ = run(
        step("s10", "mark", {"task_id": 1, "name": "a"}),
        step("s2", "mark", {"task_id": 2, "name": "b"}, ["s10"]),
        step("s1", "mark", {"task_id": 3, "name": "c"}),
        step("s3", "mark", {"task_id": 1, "name": "d"}),
    )
    assert [r.id for r in result.steps] == ["s1", "s3", "s10", "s2"]
    assert [c[1]["name"] for c in tools.calls] == ["c", "d", "a", "b"]
    assert all(r.status == "success" and r.attempts == 1 for r in result.steps)
    # writes are threaded through: the last write to task 1 wins, and `by` names it
    assert result.state.task(1).name == "a"
    assert result.by == {1: "s10", 2: "s2", 3: "s1"}


def test_execution_order_is_fixed_before_running():
    plan = parse_plan(
        {
            "goal": "t",
            "steps": [step("b", "note"), step("a", "note", deps=["c"]), step("c", "note")],
        },
        "p",
        specs=SPECS,
    )
    assert [s.id for s in execution_order(plan.steps)] == ["b", "c", "a"]


def test_failure_skips_dependents_transitively_and_isolates_others():
    result, tools, events = run(
        step("s1", "refuse"),
        step("s2", "mark", {"task_id": 1}, ["s1"]),
        step("s3", "note", {"n": 1}, ["s2"]),
        step("s4", "mark", {"task_id": 2}),
    )
    status = {r.id: (r.status, r.attempts, r.result) for r in result.steps}
    assert status["s1"] == ("failed", 1, "移动失败：refused")
    assert status["s2"] == ("skipped", 0, "skipped: depends on s1 (refuse), which failed")
    assert status["s3"] == ("skipped", 0, "skipped: depends on s2 (mark), which skipped")
    assert status["s4"][0] == "success"
    assert [c[0] for c in tools.calls] == ["refuse", "mark"]  # s2, s3 never ran
    assert result.state.task(1).name == "t1"
    assert [e[0] for e in events].count("step.start") == 2
    assert [e[0] for e in events].count("step.result") == 4


def test_transient_failures_are_retried_at_most_twice():
    result, tools, _ = run(step("s1", "flaky", {"fails": 2}))
    assert (result.steps[0].status, result.steps[0].attempts) == ("success", 3)
    result, tools, _ = run(step("s1", "flaky", {"fails": 3}), step("s2", "note", deps=["s1"]))
    first = result.steps[0]
    assert (first.status, first.attempts) == ("failed", MAX_ATTEMPTS)
    assert first.result == "flaky raised TimeoutError: solver time-out (gave up after 3 attempts)"
    assert result.steps[1].status == "skipped"
    assert tools.flaky_seen == 3


def test_deterministic_failures_are_not_retried():
    result, tools, _ = run(step("s1", "refuse"))
    assert result.steps[0].attempts == 1 and len(tools.calls) == 1


def test_refs_are_resolved_from_dependency_results():
    result, tools, _ = run(
        step("s1", "note", {"n": 3}),
        step("s2", "mark", {"task_id": {"ref": "s1.slots[0].day"}, "name": "via-ref"}, ["s1"]),
    )
    assert tools.calls[1] == ("mark", {"task_id": 3, "name": "via-ref"})
    assert result.state.task(3).name == "via-ref"
    # the preview keeps the ref as written
    assert result.steps[1].to_json()["args"]["task_id"] == {"ref": "s1.slots[0].day"}


def test_unresolvable_ref_fails_the_step():
    result, tools, _ = run(
        step("s1", "note", {"n": 3}),
        step("s2", "mark", {"task_id": {"ref": "s1.slots[5].day"}}, ["s1"]),
        step("s3", "note", {"n": 9}, ["s2"]),
    )
    assert result.steps[1].status == "failed"
    assert (
        result.steps[1].result
        == "ref 's1.slots[5].day': index 5 is out of range (s1.slots has 1 items)"
    )
    assert result.steps[2].status == "skipped"
    assert [c[0] for c in tools.calls] == ["note"]


def test_cycles_and_unknown_dependencies_never_reach_the_executor():
    with pytest.raises(InputError, match="dependency cycle"):
        parse_plan(
            {
                "goal": "t",
                "steps": [step("s1", "note", deps=["s2"]), step("s2", "note", deps=["s1"])],
            },
            "p",
            specs=SPECS,
        )
    with pytest.raises(InputError, match="unknown step 's7'"):
        parse_plan({"goal": "t", "steps": [step("s1", "note", deps=["s7"])]}, "p", specs=SPECS)


def test_duplicate_steps_run_once():
    result, tools, _ = run(
        step("s1", "mark", {"task_id": 1, "name": "a"}),
        step("s2", "mark", {"task_id": 1, "name": "a"}),
        step("s3", "note", {"n": 1}, ["s2"]),
    )
    assert [c[0] for c in tools.calls] == ["mark", "note"]
    twin = result.steps[1]
    assert (twin.id, twin.status, twin.attempts, twin.duplicate_of) == ("s2", "success", 0, "s1")
    assert twin.to_json()["duplicate_of"] == "s1"
    assert result.steps[2].status == "success"  # a duplicate's dependents still run


def test_duplicate_reads_inside_one_batch_and_after_writes():
    result, tools, _ = run(
        step("s1", "note", {"n": 1}),
        step("s2", "note", {"n": 1}),
        step("s3", "mark", {"task_id": 1}),
        step("s4", "note", {"n": 1}),
    )
    # s2 copies s1; s4 reads again because s3 changed the state in between
    assert [c for c in tools.calls if c[0] == "note"] == [("note", {"n": 1}), ("note", {"n": 1})]
    assert {r.id: r.duplicate_of for r in result.steps} == {
        "s1": None,
        "s2": "s1",
        "s3": None,
        "s4": None,
    }


def test_independent_reads_run_concurrently_with_sequential_results():
    barrier = threading.Barrier(3, timeout=5)

    class Waiting(Tools):
        def __call__(self, name, state, args, ctx):
            if name == "note":
                barrier.wait()  # only passes if three reads are in flight at once
            return super().__call__(name, state, args, ctx)

    result, tools, events = run(
        step("s1", "note", {"n": 1}),
        step("s2", "note", {"n": 2}),
        step("s3", "note", {"n": 3}),
        tools=Waiting(),
    )
    assert [r.id for r in result.steps] == ["s1", "s2", "s3"]
    assert len(tools.threads) == 3
    assert [e[1]["id"] for e in events if e[0] == "step.result"] == ["s1", "s2", "s3"]


def test_writes_are_never_concurrent():
    result, tools, _ = run(
        step("s1", "mark", {"task_id": 1}),
        step("s2", "mark", {"task_id": 2}),
    )
    assert len(tools.threads) == 1
    assert result.by == {1: "s1", 2: "s2"}


def test_label_prefixes_step_ids_in_by():
    plan = parse_plan(
        {"goal": "t", "steps": [step("s1", "mark", {"task_id": 2})]}, "p", specs=SPECS
    )
    result = execute(plan, make_state(), ToolContext(), runner=Tools(), label=lambda s: f"r2.{s}")
    assert result.by == {2: "r2.s1"}
