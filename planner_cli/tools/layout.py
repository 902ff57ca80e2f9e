"""The `rough_layout` tool: the CP-SAT (or greedy) rough layout as a plan step (spec/solver.md).

Decision: the tool succeeds when the layout ran, even if some tasks stay pending; its text lists
each placed task and each pending one with the reason, and `data.pending` carries them for plan
references. Solver settings come from the tool context (configs/solver.yaml), overridable here.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from planner_cli.errors import PlannerError
from planner_cli.model.state import ScheduleState
from planner_cli.tools.common import ToolContext, ToolFailure, ToolResult, slots_label
from planner_cli.tools.messages import t
from planner_cli.tools.registry import ToolArgs, tool
from planner_cli.tools.write import changed_entries


class RoughLayoutArgs(ToolArgs):
    """Lay out pending study tasks automatically (CP-SAT optimiser, or the simple greedy cursor):
    every pending task of the auto-mode task classes in scope gets a suggested block of its own
    duration inside its class window, avoiding courses, exclusions and other tasks, keeping the
    class order and spreading work evenly. Tasks that cannot fit stay pending and the text says
    why. With `stability`, existing suggestions of the scope may move too, at that cost each."""

    task_class_ids: list[int] | int | None = Field(
        default=None,
        description="Task class ids to lay out (default: every auto-mode class in the state).",
    )
    task_ids: list[int] | None = Field(
        default=None,
        description="Explicit state_ids of pending or suggested tasks to lay out (instead of whole classes).",
    )
    solver: str | None = Field(
        default=None,
        description="'cpsat' (default, optimising) or 'greedy' (the original cursor rule).",
    )
    time_limit: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description="Wall-clock limit of the optimiser in seconds (default from settings, 10).",
    )
    stability: int | None = Field(
        default=None,
        ge=0,
        le=100_000,  # CP-SAT coefficients must stay far from 64-bit overflow
        description="Also re-lay out the scope's suggested tasks; cost per task moved away from its suggestion (e.g. 20). Omit to keep suggestions fixed.",
    )

    @field_validator("solver", mode="before")
    @classmethod
    def _solver_text(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else None


@tool("rough_layout", RoughLayoutArgs, kind="write", prefix_key="layout_prefix")
def rough_layout_tool(state: ScheduleState, args: RoughLayoutArgs, ctx: ToolContext) -> ToolResult:
    from planner_cli.solver.layout import rough_layout
    from planner_cli.solver.settings import SolverSettings

    lang = ctx.lang
    prefix = t(lang, "layout_prefix")
    scope = args.task_class_ids
    if isinstance(scope, int):
        scope = [scope]
    solver = args.solver or "cpsat"
    if solver not in ("cpsat", "greedy"):
        raise ToolFailure(
            t(lang, "layout_bad_task", prefix=prefix, detail=f"solver={solver!r}: cpsat | greedy")
        )
    try:
        settings = SolverSettings.from_dict(ctx.solver, time_limit_s=args.time_limit)
        result = rough_layout(
            state,
            scope_class_ids=scope,
            task_ids=args.task_ids,
            solver=solver,  # type: ignore[arg-type]
            settings=settings,
            stability=args.stability,
            lang=lang,
        )
    except PlannerError as exc:
        raise ToolFailure(t(lang, "layout_bad_task", prefix=prefix, detail=str(exc))) from None
    new = result.state
    total = len(result.placed) + len(result.pending)
    if total == 0:
        return ToolResult(True, t(lang, "layout_nothing"), state, {"placed": [], "pending": []})
    info = result.metrics["solver"]
    lines = [
        t(
            lang,
            "layout_done",
            total=total,
            placed=len(result.placed),
            pending=len(result.pending),
            solver=info["name"],
            status=info["status"],
            objective=result.metrics["objective"],
        )
    ]
    if result.changed:
        lines.append(t(lang, "layout_placed_head"))
        for task_id in result.changed:
            task = new.task(task_id)
            assert task is not None
            if task.slots:
                lines.append(
                    t(
                        lang,
                        "layout_placed_line",
                        id=task_id,
                        name=task.name,
                        label=slots_label(new, task.slots, lang),
                    )
                )
    if result.pending:
        lines.append(t(lang, "layout_pending_head"))
        for item in result.pending:
            lines.append(
                t(
                    lang,
                    "layout_pending_line",
                    id=item["state_id"],
                    name=item["name"],
                    reason=item["reason"],
                )
            )
    data = {
        "placed": result.placed,
        "pending": result.pending,
        "changed": changed_entries(state, new, result.changed),
        "metrics": result.metrics,
    }
    return ToolResult(True, "\n".join(lines), new, data, changed=result.changed)
