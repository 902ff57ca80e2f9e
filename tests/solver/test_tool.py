"""The rough_layout tool: text with placed and pending tasks, data for plan references."""

from __future__ import annotations

from planner_cli.tools.common import ToolContext
from planner_cli.tools.registry import run_tool

from .builders import course, item, meta, slots_of, state


def test_rough_layout_tool_places_and_explains() -> None:
    st = state(1, [course(1, [(1, 1, 8)]), item(10, 7), item(11, 7), item(12, 7)], [meta(7)])
    result = run_tool("rough_layout", st, {"solver": "greedy"})
    assert result.ok
    lines = result.text.split("\n")
    assert lines[0].startswith(
        "粗排完成：共 3 个任务，已落位 2 个，未落位 1 个（求解器 greedy，状态 GREEDY"
    )
    assert "  [10]t10 -> 第1天(星期1)第9-10节" in lines
    assert lines[-2] == "未落位任务及原因："
    assert lines[-1].startswith("  [12]t12：容量不足")
    assert result.data["pending"][0]["state_id"] == 12
    assert result.changed == [10, 11]
    assert slots_of(st, 10) == []


def test_rough_layout_tool_scope_and_english() -> None:
    st = state(2, [item(10, 7), item(11, 8)], [meta(7), meta(8)])
    result = run_tool("rough_layout", st, {"task_class_ids": 8}, ToolContext(lang="en"))
    assert result.text.startswith(
        "Rough layout done: 1 tasks, 1 placed, 0 left pending (solver cpsat"
    )
    assert slots_of(result.state, 11) and not slots_of(result.state, 10)
    nothing = run_tool(
        "rough_layout", result.state, {"task_class_ids": [8]}, ToolContext(lang="en")
    )
    assert nothing.text == "Rough layout done: nothing in scope to lay out."
    bad = run_tool("rough_layout", st, {"solver": "magic"})
    assert not bad.ok and bad.text.startswith("粗排失败：")
