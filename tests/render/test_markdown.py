"""Markdown tables: one per week, full escaped names, suggested in bold, guests under hosts."""

from __future__ import annotations

from planner_cli.render.markdown import escape, render_markdown
from tests.render.helpers import s0, s0_with_guest


def table_rows(md: str) -> dict[int, list[str]]:
    rows = {}
    for line in md.splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and parts[0].isdigit():
            rows[int(parts[0])] = parts[1:]
    return rows


def test_week_table_with_marks():
    md = render_markdown(s0_with_guest(), title="S0")
    assert md.startswith("# S0\n")
    assert "## 第12周  2026-11-23 – 2026-11-29" in md
    assert "| 节 | 周一 11-23 | 周二 11-24 |" in md
    rows = table_rows(md)
    assert rows[1][0] == "高等数学" and rows[2][0] == "〃"
    assert rows[5][0] == "**★线代1**"
    assert rows[3][1] == "*思政*"
    assert rows[4][1] == "↳ **★线代2**"
    assert len(rows) == 12 and all(len(r) == 7 for r in rows.values())
    assert "待安排（1）：[7]杂项" in md


def test_names_are_escaped_for_tables():
    state = s0()
    state.task(6).name = "a|b *c* <d>"
    rows = table_rows(render_markdown(state))
    assert rows[1][3] == r"**★a\|b \*c\* \<d\>**"
    assert escape("x\ny") == "x y"


def test_unmarked_when_not_suggested():
    state = s0()
    state.task(3).status = "existing"
    state.task(3).duration = 0
    assert table_rows(render_markdown(state))[5][0] == "线代1"
