"""The engine's one entry point: picks plan file, no LLM, Plan-and-Solve or ReAct for a run.

`history` is the conversation so far (a list of turns `{instruction, summary, outcome}`); the
result's `history` adds this run's turn, which is the seam a session store saves and hands back.
"""

from __future__ import annotations

from typing import Any

from planner_cli.engine.events import Events
from planner_cli.engine.plan_solve import PlanSolveRun
from planner_cli.engine.react import ReactRun
from planner_cli.engine.run import EngineRun, RunResult, RunSettings, Tools
from planner_cli.llm.backend import LLMBackend
from planner_cli.model.state import ScheduleState


def run_engine(
    state: ScheduleState,
    instruction: str | None,
    *,
    settings: RunSettings,
    events: Events,
    backend: LLMBackend | None = None,
    plan_data: Any = None,
    plan_name: str = "plan",
    history: list[dict[str, Any]] | None = None,
    tools: Tools | None = None,
) -> RunResult:
    """Run once. Raises InputError for an invalid plan file; LLM failures become outcomes."""
    kwargs: dict[str, Any] = {
        "settings": settings,
        "events": events,
        "tools": tools,
        "history": history,
    }
    if plan_data is not None:
        return PlanSolveRun(state, instruction, **kwargs).run_plan_file(plan_data, plan_name)
    if backend is None:
        run = EngineRun(state, instruction, **kwargs)
        run.lay_out()
        return run.finish("no_llm")
    if settings.mode == "react":
        return ReactRun(state, instruction, **kwargs).run_llm(backend)
    return PlanSolveRun(state, instruction, **kwargs).run_llm(backend)
