"""The registry loads every tool module whatever was imported first."""

from __future__ import annotations

import subprocess
import sys


def test_direct_import_of_one_tool_module_does_not_hide_the_others():
    code = (
        "import planner_cli.tools.read\n"
        "from planner_cli.tools.registry import registry\n"
        "names = registry()\n"
        "assert {'move', 'place', 'get_overview', 'queue_status'} <= set(names), sorted(names)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_unknown_tool_lists_available_tools(s0):
    from planner_cli.tools.registry import run_tool

    result = run_tool("teleport", s0, {})
    assert not result.ok
    assert result.text.startswith('工具调用失败：未知工具 "teleport"。可用工具：')
    assert "move" in result.text and result.state is s0
