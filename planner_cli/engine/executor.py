"""The step executor: runs a validated plan on a state (planning.md "Execute").

Order: a topological order that always takes the ready step with the smallest id (natural
order, s2 < s10), fixed before anything runs. Consecutive read steps of that order that do not
depend on each other run concurrently on the same state, which gives exactly the results of
running them one by one; writes and queue tools run one at a time. A tool refusal (ok False)
is `failed` with the tool's text and its dependents are `skipped`; an exception inside a tool,
or a result flagged `data["transient"]`, is retried up to 2 more times. A step whose tool and
resolved arguments equal an earlier step's is not run again (for reads only while the state is
unchanged since): it copies that step's outcome and names it in `duplicate_of`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from planner_cli.model.plan import Plan, RefError, Step, natural_key, resolve_ref, substitute_refs
from planner_cli.model.state import ScheduleState
from planner_cli.tools.common import ToolContext, ToolResult

MAX_ATTEMPTS = 3  # the first try and at most 2 retries (seed 004: 最多重试2次)
ToolRunner = Callable[[str, ScheduleState, dict[str, Any], ToolContext], ToolResult]
Emit = Callable[..., None]


@dataclass
class StepRecord:
    """What happened to one step; `to_json` is its form in the preview."""

    id: str
    tool: str
    args: dict[str, Any]
    depends_on: list[str]
    status: str = "pending"
    attempts: int = 0
    result: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    changed: list[int] = field(default_factory=list)
    duplicate_of: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "tool": self.tool,
            "args": self.args,
            "depends_on": list(self.depends_on),
            "status": self.status,
            "attempts": self.attempts,
            "result": self.result,
        }
        if self.duplicate_of is not None:
            out["duplicate_of"] = self.duplicate_of
        return out


@dataclass
class Execution:
    """The outcome of one plan: the final state, the records in execution order, and which step
    last changed each task (state_id → label)."""

    state: ScheduleState
    steps: list[StepRecord]
    by: dict[int, str]

    @property
    def failed(self) -> list[StepRecord]:
        return [s for s in self.steps if s.status == "failed"]

    @property
    def skipped(self) -> list[StepRecord]:
        return [s for s in self.steps if s.status == "skipped"]


def execution_order(steps: list[Step]) -> list[Step]:
    """Topological order, smallest ready id first (the plan is acyclic and its ids known)."""
    remaining = {s.id: set(s.depends_on) for s in steps}
    by_id = {s.id: s for s in steps}
    order: list[Step] = []
    while remaining:
        ready = sorted((sid for sid, deps in remaining.items() if not deps), key=natural_key)
        if not ready:
            raise ValueError("the plan has a dependency cycle")  # validation prevents this
        head = ready[0]
        order.append(by_id[head])
        del remaining[head]
        for deps in remaining.values():
            deps.discard(head)
    return order


def _batches(order: list[Step], kinds: Mapping[str, str]) -> list[list[Step]]:
    """Consecutive reads without dependencies among them form one batch; anything else is alone."""
    batches: list[list[Step]] = []
    for step in order:
        last = batches[-1] if batches else None
        if (
            last is not None
            and kinds.get(step.tool) == "read"
            and all(kinds.get(s.tool) == "read" for s in last)
            and not ({s.id for s in last} & set(step.depends_on))
        ):
            last.append(step)
        else:
            batches.append([step])
    return batches


def _call_key(tool: str, args: dict[str, Any]) -> str:
    return tool + " " + json.dumps(args, ensure_ascii=False, sort_keys=True)


def _default_runner() -> ToolRunner:
    from planner_cli.tools.registry import run_tool

    return run_tool


def _attempt(
    runner: ToolRunner, step: Step, state: ScheduleState, args: dict[str, Any], ctx: ToolContext
) -> tuple[ToolResult | None, int, str]:
    """Run one step with retries of transient failures: (result, attempts, error text)."""
    error = ""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            result = runner(step.tool, state, args, ctx)
        except Exception as exc:  # a bug or a time-out inside the tool: transient by definition
            error = f"{step.tool} raised {type(exc).__name__}: {exc}"
            continue
        if not result.ok and result.data.get("transient") is True and attempt < MAX_ATTEMPTS:
            error = result.text
            continue
        return result, attempt, ""
    return None, MAX_ATTEMPTS, f"{error} (gave up after {MAX_ATTEMPTS} attempts)"


def execute(
    plan: Plan,
    state: ScheduleState,
    ctx: ToolContext,
    *,
    runner: ToolRunner | None = None,
    kinds: Mapping[str, str] | None = None,
    emit: Emit | None = None,
    label: Callable[[str], str] = lambda sid: sid,
    workers: int = 4,
) -> Execution:
    """Run `plan` (already validated) on `state`; never raises for a failing step."""
    runner = runner or _default_runner()
    kinds = kinds if kinds is not None else getattr(type(plan), "tool_kinds", {})
    emit = emit or (lambda stage, **fields: None)
    order = execution_order(plan.steps)
    records = {
        s.id: StepRecord(s.id, s.tool, s.call_args(), list(s.depends_on)) for s in plan.steps
    }
    done: list[StepRecord] = []
    by: dict[int, str] = {}
    seen: dict[str, str] = {}  # call key → id of the step that ran it
    version = 0  # bumped by every write that changed the state

    def finish(record: StepRecord) -> None:
        done.append(record)
        event: dict[str, Any] = {
            "id": record.id,
            "tool": record.tool,
            "status": record.status,
            "attempts": record.attempts,
            "text": record.result,
        }
        if record.duplicate_of:
            event["duplicate_of"] = record.duplicate_of
        emit("step.result", **event)

    for batch in _batches(order, kinds):
        runnable: list[tuple[Step, dict[str, Any]]] = []
        twins: list[tuple[Step, str]] = []  # duplicates of a step of this very batch
        for step in batch:
            record = records[step.id]
            blocked = [d for d in step.depends_on if records[d].status != "success"]
            if blocked:
                dep = records[sorted(blocked, key=natural_key)[0]]
                record.status = "skipped"
                record.result = f"skipped: depends on {dep.id} ({dep.tool}), which {dep.status}"
                finish(record)
                continue
            results = {d: records[d].data for d in step.depends_on}
            try:
                args = substitute_refs(record.args, partial(resolve_ref, results=results))
            except RefError as exc:
                record.status = "failed"
                record.result = str(exc)
                finish(record)
                continue
            key = _call_key(step.tool, args)
            if kinds.get(step.tool) == "read":
                key = f"{version} {key}"  # a read repeated after a write is not a duplicate
            if key in seen:
                if records[seen[key]].status == "pending":
                    twins.append((step, key))
                else:
                    _copy(record, records[seen[key]])
                    finish(record)
                continue
            seen[key] = step.id
            runnable.append((step, args))
        for step, args in runnable:
            emit("step.start", id=step.id, tool=step.tool, args=args)
        if len(runnable) > 1:
            with ThreadPoolExecutor(max_workers=max(1, min(workers, len(runnable)))) as pool:
                futures = [pool.submit(_attempt, runner, s, state, a, ctx) for s, a in runnable]
                outcomes = [f.result() for f in futures]
        else:
            outcomes = [_attempt(runner, s, state, a, ctx) for s, a in runnable]
        for (step, _args), (result, attempts, error) in zip(runnable, outcomes, strict=True):
            record = records[step.id]
            record.attempts = attempts
            if result is None:
                record.status = "failed"
                record.result = error
            else:
                record.status = "success" if result.ok else "failed"
                record.result = result.text
                record.data = result.data
                if result.ok and kinds.get(step.tool) != "read":
                    if result.state is not state:
                        state = result.state
                        version += 1
                    record.changed = list(result.changed)
                    for state_id in result.changed:
                        by[state_id] = label(step.id)
            finish(record)
        for step, key in twins:
            _copy(records[step.id], records[seen[key]])
            finish(records[step.id])
    return Execution(state=state, steps=done, by=by)


def _copy(record: StepRecord, original: StepRecord) -> None:
    record.status = original.status
    record.attempts = 0
    record.result = original.result
    record.data = original.data
    record.duplicate_of = original.id
