"""Queue tools queue_pop_head, queue_apply_head_move, queue_skip_head, queue_status (seed-origin
§2.13): one-task-at-a-time refinement over `state.runtime_queue`; every answer is JSON.

Decisions where the seed is silent: pop drops queued ids whose task no longer exists; a call
that changes nothing returns the input state (the queue is created only when something changes);
queue_apply_head_move runs write.move_task on the current task, and on failure returns ok=False
with a state whose only change is the queue bookkeeping (attempts + 1, last_error = move text);
without a current task apply answers with "result" and skip with "reason" (the seed's keys).
apply checks "no current task" before its arguments, as the seed does; a missing argument is
then answered under "result" and is not counted as an attempt.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from planner_cli.model.state import RuntimeQueue, ScheduleState, Task
from planner_cli.tools.common import ToolContext, ToolFailure, ToolResult, slot_json
from planner_cli.tools.messages import t
from planner_cli.tools.registry import ToolArgs, get_spec, parse_args, tool
from planner_cli.tools.write import move_task

NEXT_IDS_SHOWN = 5


def _json(
    ok: bool, state: ScheduleState, payload: dict[str, Any], changed: list[int] | None = None
) -> ToolResult:
    return ToolResult(
        ok, json.dumps(payload, ensure_ascii=False), state, payload, changed=changed or []
    )


def _counts(queue: RuntimeQueue | None) -> dict[str, int]:
    q = queue or RuntimeQueue()
    return {
        "pending_count": len(q.pending_task_ids),
        "completed_count": len(q.completed_task_ids),
        "skipped_count": len(q.skipped_task_ids),
    }


def _snapshot(state: ScheduleState, task: Task) -> dict[str, Any]:
    """The queue item as query_target_tasks shows it (seed key order)."""
    slots = []
    for s in sorted(task.slots, key=lambda s: s.key()):
        full = slot_json(state, s)
        slots.append(
            {
                k: full[k]
                for k in ("day", "week", "day_of_week", "slot_start", "slot_end")
                if k in full
            }
        )
    return {
        "task_id": task.state_id,
        "name": task.name,
        "category": task.category,
        "status": task.label,
        "duration": task.duration if task.duration > 0 else task.slot_sections,
        "task_class_id": task.class_id,
        "slots": slots,
    }


def _with_queue(state: ScheduleState) -> tuple[ScheduleState, RuntimeQueue]:
    new = state.clone()
    if new.runtime_queue is None:
        new.runtime_queue = RuntimeQueue()
    return new, new.runtime_queue


# -- argument models ----------------------------------------------------------------------


class QueuePopHeadArgs(ToolArgs):
    """Take the head of the processing queue as the current task and show it.

    If a current task already exists it is returned again (one task at a time). Fill the queue
    with query_target_tasks (enqueue is on by default).
    """


class QueueApplyHeadMoveArgs(ToolArgs):
    """Move the current queue task (see queue_pop_head) to a new position and mark it completed.

    Runs the same checks as move (suggested only, unlocked, in the window, order, conflicts). On
    failure the task stays current, its attempt counter grows and last_error keeps the reason;
    try another position or call queue_skip_head. Takes no task_id: it always acts on the current task.
    """

    new_day: int = Field(description="Target day index inside the planning window (1..N).")
    new_slot_start: int = Field(
        description="First section of the new block (1..12); the block keeps the task's current length."
    )


class QueueSkipHeadArgs(ToolArgs):
    """Skip the current queue task without changing the timetable and mark it skipped."""

    reason: str | None = Field(default=None, description="Optional short reason for skipping.")


class QueueStatusArgs(ToolArgs):
    """Show the processing queue: counts, the current task and its attempts, the last error and
    the next queued task ids."""


# -- tools --------------------------------------------------------------------------------


@tool("queue_pop_head", QueuePopHeadArgs, kind="queue", json_output=True)
def queue_pop_head(state: ScheduleState, args: QueuePopHeadArgs, ctx: ToolContext) -> ToolResult:
    queue = state.runtime_queue
    new = state
    if queue is not None and not queue.current_task_id and queue.pending_task_ids:
        new, queue = _with_queue(state)
        while queue.pending_task_ids and not queue.current_task_id:
            head = queue.pending_task_ids.pop(0)
            if new.task(head) is not None:
                queue.current_task_id = head
        queue.current_attempts = 0
        queue.last_error = ""
    current = (
        new.task(queue.current_task_id) if queue is not None and queue.current_task_id else None
    )
    payload: dict[str, Any] = {
        "tool": "queue_pop_head",
        "has_head": current is not None,
        **_counts(queue),
    }
    if current is not None:
        payload["current"] = _snapshot(new, current)
    if queue is not None and queue.last_error:
        payload["last_error"] = queue.last_error
    return _json(True, new, payload)


def _apply_no_current(state: ScheduleState, ctx: ToolContext) -> ToolResult:
    payload = {
        "tool": "queue_apply_head_move",
        "success": False,
        **_counts(state.runtime_queue),
        "result": t(ctx.lang, "queue_no_current_apply"),
    }
    return _json(False, state, payload)


def _apply_before_args(
    state: ScheduleState, raw: dict[str, Any], ctx: ToolContext
) -> ToolResult | ToolArgs:
    """The seed's order: "no current task" before the arguments; a missing or invalid argument
    is then answered like a failed move (under `result`), with nothing counted as an attempt."""
    queue = state.runtime_queue
    if queue is None or not queue.current_task_id:
        return _apply_no_current(state, ctx)
    spec = get_spec("queue_apply_head_move")
    assert spec is not None
    try:
        return parse_args(spec, raw, ctx.lang)
    except ToolFailure as exc:
        payload = {
            "tool": "queue_apply_head_move",
            "success": False,
            "task_id": queue.current_task_id,
            "current_attempt": queue.current_attempts,
            **_counts(queue),
            "result": exc.text,
        }
        return _json(False, state, payload)


@tool(
    "queue_apply_head_move",
    QueueApplyHeadMoveArgs,
    kind="queue",
    json_output=True,
    before_args=_apply_before_args,
)
def queue_apply_head_move(
    state: ScheduleState, args: QueueApplyHeadMoveArgs, ctx: ToolContext
) -> ToolResult:
    queue = state.runtime_queue
    if queue is None or not queue.current_task_id:
        return _apply_no_current(state, ctx)
    task_id = queue.current_task_id
    try:
        moved = move_task(state, task_id, args.new_day, args.new_slot_start, ctx.lang)
    except ToolFailure as exc:
        new, q = _with_queue(state)
        q.current_attempts += 1
        q.last_error = exc.text
        ok, text, changed = False, exc.text, []
    else:
        new, q = _with_queue(moved.state)
        q.completed_task_ids.append(task_id)
        q.current_task_id = 0
        q.current_attempts = 0
        q.last_error = ""
        ok, text, changed = True, moved.text, moved.changed
    payload = {
        "tool": "queue_apply_head_move",
        "success": ok,
        "task_id": task_id,
        "current_attempt": q.current_attempts,
        **_counts(q),
        "result": text,
    }
    return _json(ok, new, payload, changed)


@tool("queue_skip_head", QueueSkipHeadArgs, kind="queue", json_output=True)
def queue_skip_head(state: ScheduleState, args: QueueSkipHeadArgs, ctx: ToolContext) -> ToolResult:
    queue = state.runtime_queue
    if queue is None or not queue.current_task_id:
        payload = {
            "tool": "queue_skip_head",
            "success": False,
            "reason": t(ctx.lang, "queue_no_current_skip"),
        }
        return _json(False, state, payload)
    new, q = _with_queue(state)
    skipped = q.current_task_id
    q.skipped_task_ids.append(skipped)
    q.current_task_id = 0
    q.current_attempts = 0
    q.last_error = ""
    payload = {
        "tool": "queue_skip_head",
        "success": True,
        "skipped_task_id": skipped,
        "pending_count": len(q.pending_task_ids),
        "skipped_count": len(q.skipped_task_ids),
        "reason": (args.reason or "").strip(),
    }
    return _json(True, new, payload)


@tool("queue_status", QueueStatusArgs, kind="queue", json_output=True)
def queue_status(state: ScheduleState, args: QueueStatusArgs, ctx: ToolContext) -> ToolResult:
    q = state.runtime_queue or RuntimeQueue()
    payload: dict[str, Any] = {
        "tool": "queue_status",
        **_counts(q),
        "current_task_id": q.current_task_id,
        "current_attempt": q.current_attempts,
        "last_error": q.last_error,
        "next_task_ids": q.pending_task_ids[:NEXT_IDS_SHOWN],
    }
    current = state.task(q.current_task_id) if q.current_task_id else None
    if current is not None:
        payload["current"] = _snapshot(state, current)
    return _json(True, state, payload)
