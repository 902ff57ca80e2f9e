"""Engine test fixtures: S0, and the registry's tools plus a stand-in `rough_layout`.

The stand-in places every pending task at the first strictly free block (query_available_slots
then place), so the engine tests do not depend on the solver.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from planner_cli.engine.events import Events
from planner_cli.engine.run import RunSettings, Tools
from planner_cli.io.loader import load_any
from planner_cli.tools.common import ToolContext, ToolResult
from planner_cli.tools.registry import ToolArgs, registry, run_tool

ROOT = Path(__file__).resolve().parents[2]


class RoughLayoutArgs(ToolArgs):
    """Lay out every pending task (test stand-in)."""


def stand_in_rough_layout(state, args, ctx: ToolContext) -> ToolResult:
    changed = []
    for task in sorted(state.tasks, key=lambda t: t.state_id):
        if not task.is_pending:
            continue
        query = {"span": task.duration, "slot_type": "pure", "limit": 100}
        found = run_tool("query_available_slots", state, query, ctx)
        for slot in json.loads(found.text).get("slots") or []:
            args = {"task_id": task.state_id, "day": slot["day"], "slot_start": slot["slot_start"]}
            placed = run_tool("place", state, args, ctx)
            if placed.ok:
                state = placed.state
                changed.append(task.state_id)
                break
    return ToolResult(
        True, f"粗排完成：{len(changed)} 个任务", state, {"placed": changed}, changed=changed
    )


def make_tools(
    settings: RunSettings, rough: bool = True, extra: dict[str, Any] | None = None
) -> Tools:
    specs = dict(registry())
    handlers = dict(extra or {})
    if rough:
        specs["rough_layout"] = SimpleNamespace(
            args=RoughLayoutArgs, kind="write", description=RoughLayoutArgs.__doc__
        )
        handlers["rough_layout"] = stand_in_rough_layout
    for name, (spec, _handler) in (extra or {}).items():
        specs[name] = spec

    def runner(name: str, state, args: dict, ctx: ToolContext) -> ToolResult:
        if name == "rough_layout" and rough:
            return stand_in_rough_layout(state, args, ctx)
        if name in (extra or {}):
            return extra[name][1](state, args, ctx)  # type: ignore[index]
        return run_tool(name, state, args, ctx)

    return Tools(settings.tool_context(), specs=specs, runner=runner, now_g=settings.now_g)


@pytest.fixture
def s0():
    """seed-origin §6 S0: [1] locked course d1 §1-2, [2] water course d2 §3-4, [3] 线代1 d1 §5-6,
    [4] 线代2 pending, [5] 线代3 d3 §1-2, [6] 英语1 d4 §1-2, [7] 杂项 pending."""
    return load_any(ROOT / "fixtures" / "states" / "s0.json").state


@pytest.fixture
def events():
    return Events()
