"""States the rendering tests share: S0, S0 with a guest in its water course, laid-out fixtures."""

from __future__ import annotations

from pathlib import Path

from planner_cli.io.loader import load_any
from planner_cli.model.state import ScheduleState
from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import run_tool

ROOT = Path(__file__).resolve().parents[2]
S0 = ROOT / "fixtures" / "states" / "s0.json"
EXPORTS = ROOT / "fixtures" / "exports"


def s0() -> ScheduleState:
    return load_any(S0).state


def s0_with_guest() -> ScheduleState:
    """S0 after place(4, day 2, §3): task 4 (线代2) is the guest of the water course 思政."""
    result = run_tool("place", s0(), {"task_id": 4, "day": 2, "slot_start": 3}, ToolContext())
    assert result.ok, result.text
    return result.state


def laid_out(name: str) -> ScheduleState:
    from planner_cli.solver.layout import rough_layout

    return rough_layout(load_any(EXPORTS / name).state, None, solver="greedy").state
